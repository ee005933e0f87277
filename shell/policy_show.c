/* policy_show — `sbxsh policy` output: one "key = value  # origin" line per value, stable
 * order (the tables' order), so that it can be grepped and golden-tested. Every line is
 * escaped for the terminal (platform/term.h): the cwd, the root and a glob's hits are names
 * a command may have made. */
#include <stdio.h>

#include "platform/term.h"

#include "shell/policy_impl.h"

static void origin(FILE *f, const char *file, unsigned line)
{
	if (file)
		sbx_term_printf(f, "  # %s:%u\n", file, line);
	else
		fputs("  # default\n", f);
}

static void scalar(FILE *f, const char *key, const char *v, struct pol_origin o)
{
	sbx_term_printf(f, "%s = %s", key, v);
	origin(f, o.file, o.line);
}

static void list(FILE *f, const char *key, const struct pol_list *l)
{
	if (!l->n)
		sbx_term_printf(f, "%s =\n", key);
	for (size_t i = 0; i < l->n; i++) {
		sbx_term_printf(f, "%s = %s", key, l->v[i].value);
		origin(f, l->v[i].file, l->v[i].line);
	}
}

static void size_line(FILE *f, const char *key, struct pol_size z, struct pol_origin o)
{
	static const char units[] = "kMGT";
	char v[32];
	int u = -1;

	while (!z.pct && u < 3 && z.bytes && z.bytes % 1024 == 0)
		z.bytes /= 1024, u++;
	if (z.pct)
		snprintf(v, sizeof(v), "%u%%", z.pct);
	else if (u >= 0)
		snprintf(v, sizeof(v), "%llu%c", z.bytes, units[u]);
	else
		snprintf(v, sizeof(v), "%llu", z.bytes);
	scalar(f, key, v, o);
}

static const char *yn(bool b)
{
	return b ? "yes" : "no";
}

static void print_settings(FILE *f, const struct settings *s)
{
	char num[32];
	fputs("[sbxsh]\n", f);
	scalar(f, "inner_shell", s->inner_shell, s->o_inner_shell);
	scalar(f, "bwrap", s->bwrap, s->o_bwrap);
	scalar(f, "on_violation", policy_viol_names[s->on_violation], s->o_on_violation);
	scalar(f, "monitor", policy_monitor_names[s->monitor], s->o_monitor);
	list(f, "root_markers", &s->root_markers);
	scalar(f, "log", s->log, s->o_log);
	scalar(f, "syslog", yn(s->syslog), s->o_syslog);
	snprintf(num, sizeof(num), "%u", s->idle_exit);
	scalar(f, "idle_exit", num, s->o_idle_exit);
	scalar(f, "user_config", yn(s->user_config), s->o_user_config);
}

void profile_print(FILE *f, const struct policy *p, const struct profile *pr)
{
	sbx_term_printf(f, "cwd = %s\n", pr->cwd);
	if (pr->root)
		sbx_term_printf(f, "root = %s  # %s\n", pr->root, pr->root_origin);
	else if (pr->no_project)
		sbx_term_printf(f, "root = none  # no project: %s; to make it one: %s\n",
				pr->root_origin, pr->no_project);
	else
		sbx_term_printf(f, "root = none  # no project: %s\n", pr->root_origin);
	for (size_t i = 0; i < pr->sections.n; i++)
		sbx_term_printf(f, "section = %s\n", pr->sections.v[i]);
	sbx_term_printf(f, "grant_in = %s in %s\n", pr->grant_section, pr->grant_file);
	print_settings(f, policy_settings(p));
	fputs("[profile]\n", f);
	list(f, "read", &pr->read);
	scalar(f, "hermetic", yn(pr->hermetic), pr->o_hermetic);
	list(f, "deny_read", &pr->deny_read);
	list(f, "write", &pr->write);
	list(f, "create", &pr->create);
	list(f, "deny_write", &pr->deny_write);
	scalar(f, "git_config", yn(pr->git_config), pr->o_git_config);
	scalar(f, "tmp", policy_tmp_names[pr->tmp], pr->o_tmp);
	size_line(f, "tmp_size", pr->tmp_size, pr->o_tmp_size);
	size_line(f, "shm_size", pr->shm_size, pr->o_shm_size);
	scalar(f, "network", policy_net_names[pr->network], pr->o_network);
	if (pr->network == NET_NONE) /* the front end cannot see a resolve fail inside */
		fputs("# network = none: no network inside, names do not resolve; to reach a host "
		      "through the session proxy: network = proxy and allow_domains += HOST\n",
		      f);
	list(f, "allow_domains", &pr->allow_domains);
	list(f, "deny_domains", &pr->deny_domains);
	if (pr->unix_all)
		fputs("unix_sockets = all\n", f);
	if (!pr->unix_all || pr->unix_sockets.n)
		list(f, "unix_sockets", &pr->unix_sockets);
	list(f, "listen", &pr->listen);
	list(f, "env_unset", &pr->env_unset);
	if (pr->env_unset.n)
		fputs(
		    "# env_unset also removes a variable whose value holds a URL with a password "
		    "(scheme://user:password@host, https://token@host), a bare "
		    "user:password@host, an Authorization header, Basic or Bearer credentials, "
		    "a token of a known kind (ghp_..., sk-ant-...), a PEM private key or a signed "
		    "JWT, unless env_keep names it\n",
		    f);
	list(f, "env_keep", &pr->env_keep);
	list(f, "env_set", &pr->env_set);
	scalar(f, "on_violation", policy_viol_names[pr->on_violation], pr->o_on_violation);
	list(f, "ignore_read", &pr->ignore_read);
	list(f, "ignore_write", &pr->ignore_write);
	list(f, "ignore_network", &pr->ignore_network);
}
