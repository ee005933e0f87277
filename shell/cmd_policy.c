/* cmd_policy — `sbxsh policy [--config FILE] [DIR]` and `sbxsh policy --check [FILE…]`.
 *
 * Exit: 0 shown / valid; 1 --check found errors ("file:line: message" lines, then "invalid");
 * 2 usage; 125 the policy in force could not be loaded (the command would be refused).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/log.h"
#include "platform/term.h"
#include "shell/agent.h"
#include "shell/commands.h"
#include "shell/policy.h"

struct args {
	const char *config;
	const char *preset; /* --preset NAME, else the agent's (SBXSH_PRESET, CLAUDECODE…) */
	const char *dir;
	bool check;
	char **files;
	size_t nfiles;
};

static void usage(FILE *f)
{
	fputs("usage: sbxsh policy [--config FILE] [--preset NAME] [DIR]\n"
	      "       sbxsh policy [--config FILE] --check [FILE...]\n"
	      "Shows the effective profile for DIR (default: the current directory), or validates\n"
	      "the given policy files (or, without files, every file sbxsh would load).\n",
	      f);
}

static int parse_args(int argc, char **argv, struct args *a)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (strcmp(argv[i], "--check") == 0) {
			a->check = true;
		} else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
			a->config = argv[++i];
		} else if (strncmp(argv[i], "--config=", 9) == 0) {
			a->config = argv[i] + 9;
		} else if (strcmp(argv[i], "--preset") == 0 && i + 1 < argc) {
			a->preset = argv[++i];
		} else if (strncmp(argv[i], "--preset=", 9) == 0) {
			a->preset = argv[i] + 9;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			exit(0);
		} else {
			sbx_warn("policy: unknown option '%s'", argv[i]);
			usage(stderr);
			return -1;
		}
	}
	if (a->check) {
		a->files = argv + i;
		a->nfiles = (size_t)(argc - i);
	} else if (argc - i > 1) {
		sbx_warn("policy: one directory at most");
		usage(stderr);
		return -1;
	} else if (argc - i == 1) {
		a->dir = argv[i];
	}
	return 0;
}

static void print_diag(const struct diag *d)
{
	for (size_t i = 0; i < d->errors.n; i++)
		sbx_term_printf(stderr, "%s\n", d->errors.v[i]);
	for (size_t i = 0; i < d->warnings.n; i++)
		sbx_term_printf(stderr, "warning: %s\n", d->warnings.v[i]);
}

static int check(const struct args *a, const struct policy_opts *o)
{
	struct diag d = {0};
	struct policy *p = NULL;
	int r = a->nfiles ? policy_check_files(a->files, a->nfiles, o, &d) : policy_load(&p, o, &d);
	print_diag(&d);
	diag_release(&d);
	policy_free(p);
	if (r == -ENOMEM)
		sbx_fatal("policy: out of memory");
	puts(r ? "invalid" : "ok");
	return r ? 1 : 0;
}

static int show(const struct args *a, const struct policy_opts *o)
{
	struct diag d = {0};
	struct policy *p = NULL;
	struct profile *pr = NULL;
	char *cwd = NULL, *abs = NULL;
	int r = policy_load(&p, o, &d);
	if (r == 0) {
		cwd = getcwd(NULL, 0);
		if (!cwd ||
		    (a->dir && a->dir[0] != '/' && asprintf(&abs, "%s/%s", cwd, a->dir) < 0))
			r = -ENOMEM;
	}
	if (r == 0)
		r = profile_resolve(p, abs ? abs : a->dir ? a->dir : cwd, &pr, &d);
	print_diag(&d);
	if (r == 0)
		profile_print(stdout, p, pr);
	else
		sbx_warn(
		    "policy: not loaded; sbxsh would refuse to run commands (fix the lines above)");
	profile_free(pr);
	policy_free(p);
	diag_release(&d);
	free(cwd);
	free(abs);
	return r ? SBX_EXIT_REFUSED : 0;
}

int cmd_policy(int argc, char **argv)
{
	struct args a = {0};
	if (parse_args(argc, argv, &a) < 0)
		return SBX_EXIT_USAGE;
	struct policy_opts o = {.user_config = a.config ? a.config : getenv("SBXSH_CONFIG")};
	if (o.user_config && !*o.user_config)
		o.user_config = NULL;
	o.preset = a.preset ? (strcmp(a.preset, "none") ? a.preset : NULL) : agent_preset_env();
	return a.check ? check(&a, &o) : show(&a, &o);
}
