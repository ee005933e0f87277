/* sbxsh-sessiond — the session daemon. Started by sbxsh (session/client/client.c), never by hand:
 *   sbxsh-sessiond --dir DIR --session ID --idle-exit SECONDS --log PATH [--syslog 0|1]
 *                  [--ready-fd N]
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/log.h"
#include "session/daemon/sessd.h"

#ifdef __SANITIZE_ADDRESS__
/* The daemon's stderr is /dev/null: sanitizer builds report to files instead. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "log_path=/tmp/sbxsh-sessiond-asan";
}
#endif

static const struct opt {
	const char *name;
	size_t off;
	int numeric;
} opts[] = {
    {"--dir", offsetof(struct sessd_opts, dir), 0},
    {"--session", offsetof(struct sessd_opts, session), 0},
    {"--log", offsetof(struct sessd_opts, log), 0},
    {"--idle-exit", offsetof(struct sessd_opts, idle_exit), 1},
    {"--conn-max", offsetof(struct sessd_opts, conn_max), 1},
    {"--ready-fd", offsetof(struct sessd_opts, ready_fd), 1},
    {"--syslog", offsetof(struct sessd_opts, syslog), 1},
};

static int set_opt(struct sessd_opts *o, const char *name, const char *val)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		char *end;
		long n;
		if (strcmp(name, opts[i].name) != 0)
			continue;
		if (!opts[i].numeric) {
			*(const char **)((char *)o + opts[i].off) = val;
			return 0;
		}
		errno = 0;
		n = strtol(val, &end, 10);
		if (errno || end == val || *end || n < 0 || n > INT_MAX)
			return -EINVAL;
		if (opts[i].off == offsetof(struct sessd_opts, idle_exit))
			o->idle_exit = (unsigned)n;
		else if (opts[i].off == offsetof(struct sessd_opts, conn_max))
			o->conn_max = n >= 1 && n <= SESS_CONN_MAX_MAX ? (unsigned)n : 0;
		else if (opts[i].off == offsetof(struct sessd_opts, syslog))
			o->syslog = n != 0;
		else
			o->ready_fd = (int)n;
		return 0;
	}
	return -EINVAL;
}

int main(int argc, char **argv)
{
	struct sessd_opts o = {.idle_exit = 300, .conn_max = SESS_CONN_MAX, .ready_fd = -1};

	for (int i = 1; i < argc; i += 2)
		if (i + 1 >= argc || set_opt(&o, argv[i], argv[i + 1]) < 0)
			sbx_die(SBX_EXIT_USAGE,
				"sbxsh-sessiond: bad argument %s (it is started by "
				"sbxsh, not by hand)",
				argv[i]);
	if (!o.conn_max)
		sbx_die(SBX_EXIT_USAGE, "sbxsh-sessiond: --conn-max takes 1 to %d",
			SESS_CONN_MAX_MAX);
	if (!o.dir || !o.session || !o.log)
		sbx_die(SBX_EXIT_USAGE, "sbxsh-sessiond: --dir, --session and --log are required");
	/* The proxy resolves exactly the name it judged: an empty LOCALDOMAIN turns off the
	 * resolver's search list (resolv.conf's "search"/"domain"), which would otherwise
	 * complete a name that does not resolve into another name ("x.allowed.example" into
	 * "x.allowed.example.corp.example"), one no pattern was matched against. Before any
	 * thread: each resolver thread reads it when it starts. */
	/* libuv's threads run the name lookups: four by default, and one command may hold
	 * DNS_PER_CMD of them (dial.c); more, so that a few commands' slow names leave the
	 * others some. Read when the first lookup starts the pool. */
	if (setenv("UV_THREADPOOL_SIZE", "16", 1) < 0 || setenv("LOCALDOMAIN", "", 1) < 0)
		sbx_die(SBX_EXIT_REFUSED, "sbxsh-sessiond: setenv: %s", strerror(errno));
	return sessd_run(&o) < 0 ? 1 : 0;
}
