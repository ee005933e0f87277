/* cmd_session — `sbxsh session status|start|stop`: the session daemon seen from a terminal.
 *
 * Exit: 0 done; 1 status/stop found no daemon running; 2 usage; 125 the session directory or
 * the daemon failed (the message names what and the fix).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/log.h"
#include "session/client/client.h"
#include "session/ident.h"
#include "session/client/listen_relay.h"
#include "session/client/socks_client.h"
#include "shell/commands.h"
#include "shell/net.h"
#include "shell/policy.h"

static void usage(FILE *f)
{
	fputs("usage: sbxsh session status|start|stop\n"
	      "       sbxsh session connect HOST PORT\n"
	      "  status  the session daemon's pid, uptime, commands and proxy counters\n"
	      "  start   start it now (it also starts with the first command that needs it)\n"
	      "  stop    stop it; running commands lose the network proxy\n"
	      "  connect relay stdin/stdout to HOST:PORT through the sandbox's SOCKS5 proxy\n"
	      "          ($ALL_PROXY): an ssh ProxyCommand for commands with network = proxy\n",
	      f);
}

static int no_daemon(const char *what)
{
	char id[SESS_ID_MAX + 1] = "?";

	sess_id(id, NULL);
	printf("no session daemon runs for session %s%s\n", id, what);
	return 1;
}

static int status(void)
{
	struct sess_conn *c = NULL;
	struct sess_status st;
	char *err = NULL;
	int rc = sess_connect_existing(&c, &err);

	if (rc == -ENOENT)
		return no_daemon(" (it starts with the first command that needs the network)");
	if (rc == 0)
		rc = sess_status(c, &st, &err);
	if (rc < 0) {
		sbx_warn("session: %s", err ? err : strerror(-rc));
		free(err);
		sess_close(c);
		return SBX_EXIT_REFUSED;
	}
	printf("session    %s\ndirectory  %s\npid        %" PRIu64 "\nuptime     %" PRIu64 "s\n"
	       "commands   %" PRIu64 " served, %" PRIu64 " live\n"
	       "proxy      %" PRIu64 " connections, %" PRIu64 " allowed, %" PRIu64
	       " refused, %" PRIu64 " bytes up, %" PRIu64 " bytes down\n",
	       sess_conn_id(c), sess_conn_dir(c), st.v[SC_PID], st.v[SC_UPTIME], st.v[SC_SERVED],
	       st.v[SC_LIVE], st.v[SC_CONNS], st.v[SC_ALLOWED], st.v[SC_REFUSED], st.v[SC_BYTES_UP],
	       st.v[SC_BYTES_DOWN]);
	sess_close(c);
	return 0;
}

static int stop(void)
{
	struct sess_conn *c = NULL;
	char *err = NULL;
	int rc = sess_connect_existing(&c, &err);

	if (rc == -ENOENT)
		return no_daemon("");
	if (rc == 0)
		rc = sess_stop(c, &err);
	sess_close(c);
	if (rc < 0) {
		sbx_warn("session: %s", err ? err : strerror(-rc));
		free(err);
		return SBX_EXIT_REFUSED;
	}
	return 0;
}

/* Loads the policy for the daemon's settings (idle_exit, log). */
static int start(void)
{
	struct policy_opts o = {.user_config = getenv("SBXSH_CONFIG")};
	struct diag d = {0};
	struct policy *p = NULL;
	struct sess_conn *c = NULL;
	struct sess_status st;
	char *err = NULL;
	int rc;

	if (o.user_config && !*o.user_config)
		o.user_config = NULL;
	rc = policy_load(&p, &o, &d);
	for (size_t i = 0; i < d.errors.n; i++)
		fprintf(stderr, "%s\n", d.errors.v[i]);
	diag_release(&d);
	if (rc == 0) {
		struct sess_daemon_opts so = net_daemon_opts(policy_settings(p));

		rc = sess_connect(&so, &c, &err);
	}
	if (rc == 0)
		rc = sess_status(c, &st, &err);
	if (rc == 0)
		printf("session %s: daemon pid %" PRIu64 ", socket %s/ctl.sock\n", sess_conn_id(c),
		       st.v[SC_PID], sess_conn_dir(c));
	else
		sbx_warn("session: %s",
			 err ? err : "the policy did not load (fix the lines above)");
	free(err);
	sess_close(c);
	policy_free(p);
	return rc < 0 ? SBX_EXIT_REFUSED : 0;
}

/* ssh -o ProxyCommand='sbxsh session connect %h %p': stdin/stdout <-> the tunnel. */
static int connect_stdio(const char *host, const char *port_text)
{
	char *end, *err = NULL;
	unsigned long port = strtoul(port_text, &end, 10);
	const char *env = getenv("ALL_PROXY") ? getenv("ALL_PROXY") : getenv("all_proxy");
	int fd;

	if (*end || end == port_text || port == 0 || port > 65535) {
		sbx_warn("session connect: '%s' is not a port", port_text);
		return SBX_EXIT_USAGE;
	}
	fd = sess_socks_dial(env, host, (uint16_t)port, &err);
	if (fd < 0) {
		sbx_warn("session connect: %s", err ? err : strerror(-fd));
		free(err);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	sess_pump(0, 1, fd, fd);
	close(fd);
	return 0;
}

int cmd_session(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} verbs[] = {{"status", status}, {"start", start}, {"stop", stop}};

	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "connect") == 0)
		return connect_stdio(argv[2], argv[3]);
	for (size_t i = 0; argc == 2 && i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strcmp(argv[1], verbs[i].name) == 0)
			return verbs[i].fn();
	usage(stderr);
	return SBX_EXIT_USAGE;
}
