/* net — network = proxy in the front end: plan, connect, hand the fronts over.
 *
 * Rules kept here:
 * - Fail closed: no daemon, a refused BEGIN (a held listen port), fronts that do not match
 *   what was asked → the command does not run (exit 125, the daemon's words on stderr).
 * - The front end holds the stage's listeners only between receiving and passing them on;
 *   after sess_begin only the daemon has them.
 * - No event loop, no OpenSSL: session/client/client.c is plain blocking C.
 */
#include "shell/net.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "platform/log.h"
#include "platform/sandbox.h"
#include "proxy/domain.h"
#include "session/client/client.h"
#include "session/errf.h"
#include "session/client/proxy_env.h"
#include "session/client/stage_net.h"
#include "shell/policy.h"

struct net_run {
	struct sess_command cmd;
	struct sess_conn *conn;
	char *cmdline;
	bool begun;
};

static int plan_env(struct sandbox_spec *spec, char **err)
{
	struct strv env = {0};
	int r = sess_proxy_env(getenv("JAVA_TOOL_OPTIONS"), getenv("GIT_SSH_COMMAND"),
			       SBX_BINDIR "/sbxsh", &env);

	if (r == -EINVAL)
		r = sess_errf(err, r,
			      "sbxsh is installed at %s, a path ssh's ProxyCommand "
			      "would need quoted; install it under a plain path",
			      SBX_BINDIR "/sbxsh");
	else if (r < 0)
		r = sess_errf(err, r, "out of memory");
	for (size_t i = 0; r == 0 && i < env.n; i++)
		if (strv_push(&spec->env_set, env.v[i]) < 0)
			r = sess_errf(err, -ENOMEM, "out of memory");
	strv_release(&env);
	return r;
}

static int reach_port(const char *v, uint16_t *port)
{
	struct domain_pattern d;
	char *e = NULL;

	if (domain_pattern_parse(v, &d, &e) < 0) {
		free(e);
		return 0;
	}
	if (d.port == 0 || d.wildcard)
		return 0;
	if ((d.kind == DOM_NAME && strcmp(d.host, "localhost") == 0) ||
	    (d.kind == DOM_IPV4 && strcmp(d.host, "127.0.0.1") == 0) ||
	    (d.kind == DOM_IPV6 && strcmp(d.host, "::1") == 0)) {
		*port = (uint16_t)d.port;
		return 1;
	}
	return 0;
}

static int add_port(uint16_t *v, size_t *n, uint16_t port)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i] == port)
			return 0;
	if (*n >= SESS_PORTS_MAX)
		return -E2BIG;
	v[(*n)++] = port;
	return 0;
}

static int listen_port(const struct pol_value *v, uint16_t *port, char **err)
{
	char *end;
	unsigned long n = strtoul(v->value, &end, 10);

	if (end == v->value || *end || n == 0 || n > 65535)
		return sess_errf(err, -EINVAL, "%s:%u: listen = %s is not a port (1-65535)",
				 v->file, v->line, v->value);
	*port = (uint16_t)n;
	return 0;
}

/* Fills cmd from a resolved profile: allow/deny (pointing into p), reach ports (the
 * localhost:PORT / 127.0.0.1:PORT / [::1]:PORT entries of allow), listen ports, profile
 * section and file. cmdline, cwd and id are left for the caller. Returns 0, or -EINVAL /
 * -E2BIG with *err (caller frees) naming the value. */
static int command_from_profile(struct sess_command *cmd, const struct profile *p, char **err)
{
	const struct pol_list *a = &p->allow_domains, *d = &p->deny_domains;
	uint16_t port;

	if (a->n > SESS_LIST_MAX || d->n > SESS_LIST_MAX)
		return sess_errf(err, -E2BIG, "more than %d allow_domains or deny_domains entries",
				 SESS_LIST_MAX);
	cmd->nallow = cmd->ndeny = cmd->nreach = cmd->nlisten = 0;
	for (size_t i = 0; i < a->n; i++) {
		cmd->allow[cmd->nallow++] = a->v[i].value;
		if (reach_port(a->v[i].value, &port) &&
		    add_port(cmd->reach, &cmd->nreach, port) < 0)
			return sess_errf(err, -E2BIG, "%s:%u: more than %d localhost ports",
					 a->v[i].file, a->v[i].line, SESS_PORTS_MAX);
	}
	for (size_t i = 0; i < d->n; i++)
		cmd->deny[cmd->ndeny++] = d->v[i].value;
	for (size_t i = 0; i < p->listen.n; i++) {
		int rc = listen_port(&p->listen.v[i], &port, err);
		if (rc < 0)
			return rc;
		if (add_port(cmd->listen, &cmd->nlisten, port) < 0)
			return sess_errf(err, -E2BIG, "%s:%u: more than %d listen ports",
					 p->listen.v[i].file, p->listen.v[i].line, SESS_PORTS_MAX);
	}
	cmd->profile = p->grant_section;
	cmd->profile_file = p->grant_file;
	return 0;
}

int net_plan(struct net_run **out, const struct profile *p, struct sandbox_spec *spec, char **err)
{
	struct net_run *n;
	int r;

	*out = NULL;
	if (p->network != NET_PROXY)
		return 0;
	if (!(n = calloc(1, sizeof(*n))))
		return sess_errf(err, -ENOMEM, "out of memory");
	r = command_from_profile(&n->cmd, p, err);
	if (r == 0)
		r = plan_env(spec, err);
	if (r < 0) {
		free(n);
		return r;
	}
	n->cmd.cwd = p->cwd;
	spec->net_proxy = true;
	spec->net_relay = n->cmd.nlisten > 0;
	spec->net_nreach = n->cmd.nreach;
	memcpy(spec->net_reach, n->cmd.reach, n->cmd.nreach * sizeof(*n->cmd.reach));
	*out = n;
	return 0;
}

int net_connect(struct net_run *n, const struct settings *set, const char *cmdline, const char *id,
		char **err)
{
	n->cmdline = strdup(cmdline ? cmdline : "");
	if (!n->cmdline)
		return sess_errf(err, -ENOMEM, "out of memory");
	n->cmd.cmdline = n->cmdline;
	n->cmd.id = id;
	struct sess_daemon_opts o = net_daemon_opts(set);

	return sess_connect(&o, &n->conn, err);
}

/* The stage made what was asked: the two fronts, one listener per reach port and family,
 * the relay exactly when listen ports were given. */
static bool fronts_match(const struct net_run *n, const uint16_t *roles, const uint16_t *ports,
			 size_t nfds)
{
	size_t relay = 0, http = 0, socks = 0;

	for (size_t i = 0; i < nfds; i++) {
		bool known = false;
		for (size_t j = 0; roles[i] == SESS_FD_REACH && j < n->cmd.nreach; j++)
			known |= ports[i] == n->cmd.reach[j];
		if (roles[i] == SESS_FD_HTTP && !ports[i])
			http++;
		else if (roles[i] == SESS_FD_SOCKS && !ports[i])
			socks++;
		else if (roles[i] == SESS_FD_RELAY && !ports[i])
			relay++;
		else if (!known)
			return false;
	}
	return http >= 1 && http <= 2 && socks >= 1 && socks <= 2 &&
	       relay == (n->cmd.nlisten ? 1u : 0u);
}

static int on_fronts(void *arg, const int *fds, const uint16_t *roles, const uint16_t *ports,
		     size_t nfds)
{
	struct net_run *n = arg;
	struct sess_fd v[SBX_STAGE_NET_MAX];
	char *err = NULL;
	int r;

	if (!fronts_match(n, roles, ports, nfds)) {
		sbx_warn("the sandbox stage made other network listeners than asked; the command "
			 "does not run");
		return -EPROTO;
	}
	for (size_t i = 0; i < nfds; i++)
		v[i] = (struct sess_fd){fds[i], (enum sess_fd_role)roles[i], ports[i]};
	r = sess_begin(n->conn, &n->cmd, v, nfds, &err);
	if (r < 0)
		sbx_warn("network = proxy: %s", err ? err : strerror(-r));
	else
		n->begun = true;
	free(err);
	return r;
}

void net_hook(struct net_run *n, struct supervise_net *out)
{
	*out = (struct supervise_net){on_fronts, n};
}

void net_finish(struct net_run *n, struct sess_refusals *refusals)
{
	char *err = NULL;

	if (refusals)
		refusals->n = refusals->more = refusals->nnotes = 0;
	if (!n)
		return;
	/* A daemon that died mid-command is not the command's failure. */
	if (n->begun)
		sess_end(n->conn, refusals, &err);
	free(err);
	sess_close(n->conn);
	free(n->cmdline);
	free(n);
}

struct sess_daemon_opts net_daemon_opts(const struct settings *s)
{
	return (struct sess_daemon_opts){
	    .idle_exit = s->idle_exit, .syslog = s->syslog, .log = s->log};
}
