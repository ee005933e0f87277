/* shell — `sbxsh [bash options] [-c CMD | FILE]`: the command, in the sandbox its cwd's
 * profile describes (docs/sbxsh.1.md).
 *
 * Rules kept here:
 * - Fail closed: a policy that does not load, a profile that does not resolve, a sandbox
 *   that cannot be built → the command does not run; exit 125 with the cause and the fix.
 * - bwrap and the stage are run by absolute path; argv arrays only, no shell strings.
 * - Inside a sandbox already (the marker), the inner shell runs directly: no nesting.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "paths.h"
#include "platform/log.h"
#include "platform/sandbox.h"
#include "shell/agent.h"
#include "shell/commands.h"
#include "shell/net.h"
#include "platform/linux/notify.h"
#include "shell/policy.h"
#include "shell/report.h"
#include "shell/shell.h"

#define STAGE_PATH  SBX_LIBEXECDIR "/sbxsh-stage"
#define MARKER_PATH SBX_LIBEXECDIR "/sandbox-marker"

extern char **environ;

/* Everything one run holds; released by run_release. */
struct run {
	struct shell_args args;
	struct policy *pol;
	struct profile *prof;
	struct sandbox_spec spec;
	struct strv argv;
	int fds[128]; /* the stage's socket end, the data pipes, the monitor's socket end */
	size_t nfds;
	int sock;
	struct report_run *mon; /* the violation monitor, or NULL (monitor = off) */
	struct net_run *net;	/* network = proxy, or NULL */
	/* An agent's cwd file relayed (agent.h). */
	struct agent_relay relay;
};

static void print_lines(const struct strv *l, const char *prefix)
{
	for (size_t i = 0; i < l->n; i++) {
		char line[8192];

		snprintf(line, sizeof(line), "sbxsh: %s%s", prefix, l->v[i]);
		sbx_put_line(stderr, line); /* notices name paths the sandbox may have made */
	}
}

static _Noreturn void refuse_diag(struct diag *d)
{
	print_lines(&d->errors, "");
	if (!d->errors.n)
		sbx_warn("the policy could not be loaded (out of memory)");
	exit(SBX_EXIT_REFUSED);
}

static _Noreturn void run_nested(const struct shell_args *a, char *inner)
{
	const char *sh = inner ? inner : "/bin/bash";

	if (a->shim && strcmp(a->shim, "zsh") == 0 && access("/bin/zsh", X_OK) == 0)
		sh = "/bin/zsh";

	if (a->dry_run) {
		printf("# already inside an sbxsh sandbox: %s runs directly\n", sh);
		exit(0);
	}
	execv(sh, a->fwd.v);
	sbx_die(errno == ENOENT ? SBX_EXIT_NOTFOUND : SBX_EXIT_NOEXEC,
		"cannot run the inner shell %s: %s", sh, strerror(errno));
}

static void load_profile(struct run *r)
{
	struct diag d = {0};
	struct strv extra = {0}, notes = {0};
	const char *cfg = r->args.config ? r->args.config : getenv("SBXSH_CONFIG");
	/* Only a login by argv[0] (sshd, login, su -) ignores --config and SBXSH_CONFIG. */
	struct policy_opts o = {.user_config = cfg && *cfg ? cfg : NULL,
				.login = r->args.login_argv0,
				.preset = agent_preset_env(),
				.extra_origin = "the agent's command (sbxsh run, SBXSH_AGENT_TMP)"};
	char *cwd = getcwd(NULL, 0);

	if (!cwd)
		sbx_fatal("cannot read the current directory (%s); cd to a directory that exists",
			  strerror(errno));
	if (agent_extra_writes(&r->args, o.preset, &extra, &notes, &r->relay) < 0)
		sbx_fatal("out of memory");
	o.extra_write = extra.v, o.nextra_write = extra.n;
	print_lines(&notes, "note: ");
	if (policy_load(&r->pol, &o, &d) < 0 || profile_resolve(r->pol, cwd, &r->prof, &d) < 0)
		refuse_diag(&d);
	print_lines(&d.warnings, "");
	diag_release(&d);
	strv_release(&extra);
	strv_release(&notes);
	free(cwd);
}

/* The inner shell: the zsh shim runs the real zsh when there is one (an agent that picked
 * zsh writes zsh for it: Claude Code's shell snapshot), else inner_shell. */
static const char *inner_for(const struct shell_args *a, const struct settings *set)
{
	if (a->shim && strcmp(a->shim, "zsh") == 0)
		for (const char *const *z = (const char *const[]){"/bin/zsh", "/usr/bin/zsh", NULL};
		     *z; z++)
			if (access(*z, X_OK) == 0)
				return *z;
	return set->inner_shell;
}

static bool all_tty(void)
{
	return isatty(0) && isatty(1) && isatty(2);
}

static void plan(struct run *r, const struct settings *set)
{
	struct strv notices = {0}, errors = {0};
	char *home = getenv("HOME") ? realpath(getenv("HOME"), NULL) : NULL;
	const char *cfg = r->args.config ? r->args.config : getenv("SBXSH_CONFIG");
	struct sandbox_ctx c = {
	    .home = home,
	    .log = set->log,
	    .config_file = !r->args.login_argv0 && cfg && cfg[0] == '/' ? cfg : NULL,
	    .stage = STAGE_PATH,
	    .marker = MARKER_PATH,
	    .inner_shell = inner_for(&r->args, set),
	    .environ = environ,
	    .root = geteuid() == 0,
	    /* Interactive without a pty relay yet: a session of its own (no TIOCSTI). */
	    .tty = all_tty() && !(r->args.interactive || (!r->args.command && !r->args.script)),
	    .make_dirs = !r->args.dry_run,
	};
	int e = sandbox_plan(r->prof, &c, &r->spec, &notices, &errors);

	print_lines(&notices, "note: ");
	free(home);
	strv_release(&notices);
	if (e < 0) {
		print_lines(&errors, "");
		if (!errors.n)
			sbx_warn("cannot build the sandbox: %s", strerror(-e));
		exit(SBX_EXIT_REFUSED);
	}
	strv_release(&errors);
}

static void check_helpers(const struct settings *set)
{
	if (access(set->bwrap, X_OK) < 0)
		sbx_fatal("bwrap (%s) cannot be run: %s; install bubblewrap (apt-get install "
			  "bubblewrap) or set [sbxsh] bwrap to its absolute path",
			  set->bwrap, strerror(errno));
	if (access(STAGE_PATH, X_OK) < 0)
		sbx_fatal("the sandbox stage %s is missing (%s); reinstall sbxsh", STAGE_PATH,
			  strerror(errno));
}

/* One pipe per data file bwrap reads: the marker's text, then empty hidden files. */
static void make_data_fds(struct run *r)
{
	size_t n = sandbox_data_fds(&r->spec);
	char *text = sandbox_marker_text(&r->spec);

	if (!text || n + 2 > sizeof(r->fds) / sizeof(*r->fds))
		sbx_fatal("too many hidden files (%zu); hide their directory instead", n);
	for (size_t i = 0; i < n; i++) {
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0)
			sbx_fatal("cannot make a pipe: %s", strerror(errno));
		if (i == 0 && r->spec.marker &&
		    write(p[1], text, strlen(text)) != (ssize_t)strlen(text))
			sbx_fatal("cannot write the sandbox marker: %s", strerror(errno));
		close(p[1]);
		r->fds[r->nfds++] = p[0];
	}
	free(text);
}

/* Each write grant's directory, opened now and checked to be the canonical path the plan
 * judged (a link put there since, by another sandbox that can write its parent, leads
 * elsewhere): bwrap binds that descriptor, not the path (--bind-fd). */
static void pin_binds(struct run *r, int *pins)
{
	size_t n = 0;

	for (size_t i = 0; i < r->spec.mounts.n; i++) {
		const struct sbx_mount *m = &r->spec.mounts.v[i];
		char proc[32], got[4096];
		ssize_t len = -1;

		if (m->op != SBX_M_BIND)
			continue;
		if (r->nfds + 3 > sizeof(r->fds) / sizeof(*r->fds))
			sbx_fatal("too many write grants (%zu); grant their parent instead", n);
		int fd = open(m->src, O_PATH | O_CLOEXEC);
		if (fd >= 0) {
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
			len = readlink(proc, got, sizeof(got) - 1);
		}
		if (fd < 0 || len < 0)
			sbx_fatal("cannot open the write grant %s: %s", m->src, strerror(errno));
		got[len] = 0;
		if (strcmp(got, m->src) != 0)
			sbx_fatal(
			    "the write grant %s changed while the sandbox was being built (it now "
			    "leads to %s): not mounted; remove the link, or grant the directory "
			    "it leads to if that is meant",
			    m->src, got);
		pins[n++] = fd;
		r->fds[r->nfds++] = fd;
	}
	r->spec.bind_fds = pins;
}

static void make_socket(struct run *r)
{
	int sv[2], one = 1;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
	    setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
		sbx_fatal("cannot make the stage's socket: %s", strerror(errno));
	r->sock = sv[0];
	r->spec.stage_fd = sv[1];
	r->fds[r->nfds++] = r->spec.stage_fd;
}

static _Noreturn void dry_run(struct run *r)
{
	for (size_t i = 0; i < r->argv.n; i++)
		printf("%s\n", r->argv.v[i]);
	exit(fflush(stdout) == 0 ? 0 : 1);
}

/* A wait status as the kernel reports it (W_EXITCODE is glibc's, not every C library's). */
static int wait_status(int code, int sig)
{
	return (code & 0xff) << 8 | (sig & 0x7f);
}

/* The wait status to pass on, or -1 when the sandbox was never built. */
static int outcome(const struct run_result *res)
{
	if (res->reported)
		return res->wstatus;
	if (res->refused)
		return wait_status(SBX_EXIT_REFUSED, 0);
	int st = res->bwrap_status;
	if (!res->started && !WIFSIGNALED(st))
		return -1;
	/* The stage itself was killed: bwrap says 128+N; pass on "killed by N". */
	if (WIFEXITED(st) && WEXITSTATUS(st) > 128 && WEXITSTATUS(st) < 128 + 65)
		return wait_status(0, WEXITSTATUS(st) - 128);
	return st;
}

static _Noreturn void finish(struct run *r, const struct run_result *res)
{
	int st = outcome(res);

	if (st < 0) {
		report_run_free(r->mon);
		sbx_die(SBX_EXIT_REFUSED,
			"the sandbox could not be built (bwrap exited %d; its message is above); "
			"`sbxsh doctor` checks what this machine allows",
			WEXITSTATUS(res->bwrap_status));
	}
	/* The violation report may turn a success into REPORT_EXIT_VIOLATION (on_violation). */
	st = report_run_end(r->mon, st);
	report_run_free(r->mon);
	supervise_exit(st);
}

/* network = proxy: the stage's fronts and the proxy variables (pure; for --dry-run too). */
static void plan_net(struct run *r)
{
	char *err = NULL;

	if (net_plan(&r->net, r->prof, &r->spec, &err) < 0)
		sbx_fatal("network = proxy: %s", err ? err : "out of memory");
}

/* The session daemon, before anything of the command exists; fail closed. */
static void connect_net(struct run *r, const struct settings *set)
{
	const char *what = r->args.cmd ? r->args.cmd : r->args.script ? r->args.script : "";
	char *err = NULL;

	if (r->net && net_connect(r->net, set, what, report_run_command(r->mon), &err) < 0)
		sbx_fatal("network = proxy: %s", err ? err : "out of memory");
}

/* The monitor's thread and the stage's NOTIFY_ENV (docs/monitor.md); fail closed. */
static void start_monitor(struct run *r, const struct settings *set)
{
	const char *what = r->args.cmd ? r->args.cmd : r->args.script ? r->args.script : "";
	int fd = -1;

	unsetenv(NOTIFY_ENV); /* only ever ours */
	int e = report_run_begin(&r->mon, set, r->prof, &r->spec, what, &fd);
	if (e < 0)
		sbx_fatal("cannot start the violation monitor: %s; [sbxsh] monitor = off runs "
			  "without it (enforcement is the same)",
			  strerror(-e));
	if (fd >= 0)
		r->fds[r->nfds++] = fd;
}

/* The violation monitor, served by the supervise loop (no thread of its own). */
static int mon_fd(void *m)
{
	return monitor_poll_fd(m);
}

static void mon_ready(void *m, short revents)
{
	monitor_ready(m, revents);
}

static int run_sandboxed(struct run *r)
{
	const struct settings *set;
	struct run_result res;

	load_profile(r);
	set = policy_settings(r->pol);
	plan(r, set);
	if (!r->args.dry_run)
		check_helpers(set);
	make_socket(r);
	make_data_fds(r);
	int pins[sizeof(r->fds) / sizeof(*r->fds)];
	if (!r->args.dry_run)
		pin_binds(r, pins);
	plan_net(r);
	if (sandbox_argv(&r->spec, set->bwrap, r->fds + 1, r->args.fwd.v, &r->argv) < 0)
		sbx_fatal("out of memory");
	if (r->args.dry_run)
		dry_run(r);
	start_monitor(r, set);
	connect_net(r, set);
	struct supervise_net hook;
	if (r->net)
		net_hook(r->net, &hook);
	struct monitor *mon = report_run_monitor(r->mon);
	struct supervise_extra xmon = {mon_fd, mon_ready, mon};
	int e = supervise_run(r->argv.v, r->sock, r->fds, r->nfds, r->spec.new_session,
			      r->net ? &hook : NULL, mon ? &xmon : NULL, &res);
	if (e < 0)
		sbx_fatal("cannot start bwrap: %s", strerror(-e));
	net_finish(r->net, report_run_refusals(r->mon));
	agent_after(&r->relay);
	finish(r, &res);
}

/* A shim's --version or --help: the real shell it is named for answers (bash's own text). */
static _Noreturn void real_shell(const struct shell_args *a)
{
	char path[64];
	bool help = false;

	for (size_t i = 1; i < a->fwd.n; i++)
		if (strcmp(a->fwd.v[i], "--help") == 0 || strcmp(a->fwd.v[i], "--version") == 0) {
			help = a->fwd.v[i][2] == 'h';
			break;
		}
	snprintf(path, sizeof(path), "/bin/%s", a->shim);
	if (access(path, X_OK) < 0)
		snprintf(path, sizeof(path), "/usr/bin/%s", a->shim);
	execv(path, (char *[]){(char *)a->shim, help ? "--help" : "--version", NULL});
	sbx_die(SBX_EXIT_NOTFOUND, "%s: not installed (%s), so it cannot say its version", a->shim,
		strerror(errno));
}

/* --help, --version, a usage error: answered without a sandbox. Returns the status. */
static int answer(struct shell_args *a)
{
	int st = 0;

	if (a->action == SHELL_REAL)
		real_shell(a);
	if (a->action == SHELL_USAGE) {
		fprintf(stderr, "sbxsh: %s\n%s", a->error, shell_usage);
		st = SBX_EXIT_USAGE;
	} else if (a->action == SHELL_HELP) {
		fputs(shell_usage, stdout);
	} else {
		printf("sbxsh %s\n", SBX_VERSION);
	}
	shell_args_release(a);
	return st;
}

/* A caller may start us with 0, 1 or 2 closed: hold those numbers (close-on-exec, so the
 * command still finds them closed) so no pipe or socket of ours takes their place. */
static void hold_stdio(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR | O_CLOEXEC) < 0)
			sbx_fatal("cannot open /dev/null: %s", strerror(errno));
}

int shell_main(int argc, char **argv)
{
	struct run r = {.sock = -1};
	char *inner = NULL;

	hold_stdio();
	if (shell_args_parse(argc, argv, &r.args) < 0)
		sbx_fatal("out of memory");
	if (r.args.action != SHELL_RUN)
		return answer(&r.args);
	if (nested_detect(MARKER_PATH, &inner))
		run_nested(&r.args, inner);
	return run_sandboxed(&r);
}
