/* sbxsh-stage — runs inside the sandbox as its pid 1, between bwrap and the inner shell.
 *
 * Usage (bwrap runs it; not for people):
 *   sbxsh-stage --fd=N [--mask-file=PATH|--mask-dir=PATH|--ro=PATH]… [--marker=PATH
 *               --profile=NAME] [--dev-ro] [--unix-all] [--ctty] [--net [--reach=PORT]…
 *               [--relay]] [--argv-fd=M] [--blocked=SIGBITS] -- SHELL ARGV0 ARGS…
 *
 * Rules kept here:
 * - Nothing the command runs before the filter is installed, the capabilities (and the
 *   bounding set) dropped and NO_NEW_PRIVS set; a failure there stops it (fail closed).
 * - The mounts it is given (--mask-*, --ro, --marker, --dev-ro: root's masks, bwrap.c) are
 *   made first, with the CAP_SYS_ADMIN bwrap left it for them (stage_mounts.c); any that
 *   fails stops the command.
 * - The control socket (fd N) is the front end's; the shell never inherits it.
 * - As pid 1 it reaps every orphan, forwards the signals the front end sends to the
 *   command's process group, and reports the shell's real wait status, so the front end
 *   can die of the same signal. It reads one thing only: the front end's go / no-go.
 * - --ctty: 0-2 are the front end's pty (never the caller's terminal). The stage opens a pty
 *   of the sandbox's own devpts (bwrap's --dev: never the host's), with the front end's pty's
 *   modes and size, leads a session with it as controlling terminal (job control; `tty` names
 *   /dev/pts/N inside) and sends its master out with STARTED, keeping no copy: the relay then
 *   moves the bytes to it. Where that pty cannot be had, the front end's pty is the terminal (as
 *   before: `tty` says /dev/console). Signals from outside reach the shell's own process group
 *   too (an interactive shell leaves the stage's).
 * - --argv-fd=M: the shell's arguments after ARGV0, each ended by a NUL, in a memory file
 *   sbxsh sealed (bwrap takes at most 9000 arguments in all); read whole, then closed, before
 *   anything of the command exists.
 * - network = proxy (--net): the fronts listen before anything of the command exists; they go
 *   out to the front end (SCM_RIGHTS) and the stage closes its copies, so no listener is left
 *   in the sandbox; nothing runs before the front end says go (the daemon took them).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/linux/notify.h"
#include "platform/linux/stage_mounts.h"
#include "platform/fdpass.h"
#include "platform/log.h"
#include "platform/pty.h"
#include "platform/sandbox.h"
#include "platform/stage_fronts.h"
#include "platform/stage_proto.h"

_Static_assert(sizeof(((struct sandbox_spec *)0)->net_reach) / sizeof(uint16_t) == STAGE_REACH_MAX,
	       "one limit for the reach ports");

extern char **environ;

/* SIGTSTP: sbxsh's stop without a relay (shell/supervise.c on_stop) */
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCONT, SIGTSTP};

struct stage_args {
	int fd;
	bool unix_all, ctty;
	bool net, relay;
	bool keep_shell;  /* the shell filter too; the shell must be pid 2 */
	bool chld_ign;	  /* the shell starts with SIGCHLD ignored (the caller's) */
	unsigned blocked; /* of the forwarded signals, those the caller had blocked (1u << SIG) */
	uint16_t reach[STAGE_REACH_MAX];
	size_t nreach;
	struct stage_mount *mounts; /* --mask-file, --mask-dir, --ro, in order */
	size_t nmounts;
	const char *marker, *profile;
	bool dev_ro;
	char **shell; /* SHELL ARGV0 ARGS… */
	int argv_fd;  /* --argv-fd: the ARGS after those in shell, or -1 */
};

/* --mask-file=PATH and the like: the kind, with *path; -1 for another option. */
static int mount_opt(const char *arg, const char **path)
{
	static const struct {
		const char *opt;
		enum stage_mount_kind kind;
	} opts[] = {{"--mask-file=", STAGE_MASK_FILE},
		    {"--mask-dir=", STAGE_MASK_DIR},
		    {"--ro=", STAGE_RO}};

	for (size_t i = 0; i < sizeof(opts) / sizeof(*opts); i++) {
		size_t n = strlen(opts[i].opt);
		if (strncmp(arg, opts[i].opt, n) == 0 && arg[n] == '/') {
			*path = arg + n;
			return (int)opts[i].kind;
		}
	}
	return -1;
}

static void noop(int sig)
{
	(void)sig; /* pid 1 only receives signals it handles */
}

static int parse(int argc, char **argv, struct stage_args *a)
{
	a->fd = a->argv_fd = -1;
	a->mounts = calloc((size_t)argc, sizeof(*a->mounts));
	if (!a->mounts)
		return -ENOMEM;
	for (int i = 1; i < argc; i++) {
		const char *path;
		int kind = mount_opt(argv[i], &path);
		if (kind >= 0) {
			a->mounts[a->nmounts].kind = (enum stage_mount_kind)kind;
			a->mounts[a->nmounts++].path = path;
		} else if (strncmp(argv[i], "--marker=/", 10) == 0) {
			a->marker = argv[i] + 9;
		} else if (strncmp(argv[i], "--profile=", 10) == 0) {
			a->profile = argv[i] + 10;
		} else if (strcmp(argv[i], "--dev-ro") == 0) {
			a->dev_ro = true;
		} else if (strncmp(argv[i], "--fd=", 5) == 0) {
			char *end;
			long v = strtol(argv[i] + 5, &end, 10);
			if (*end || v < 3 || v > 65535)
				return -EINVAL;
			a->fd = (int)v;
		} else if (strcmp(argv[i], "--unix-all") == 0) {
			a->unix_all = true;
		} else if (strcmp(argv[i], "--ctty") == 0) {
			a->ctty = true;
		} else if (strcmp(argv[i], "--keep-shell") == 0) {
			a->keep_shell = true;
		} else if (strcmp(argv[i], "--chld-ign") == 0) {
			a->chld_ign = true;
		} else if (strncmp(argv[i], "--blocked=", 10) == 0) {
			char *end;
			unsigned long v = strtoul(argv[i] + 10, &end, 10);
			if (*end || v > 0xffffffffUL)
				return -EINVAL;
			a->blocked = (unsigned)v;
		} else if (strcmp(argv[i], "--net") == 0) {
			a->net = true;
		} else if (strcmp(argv[i], "--relay") == 0) {
			a->relay = true;
		} else if (strncmp(argv[i], "--reach=", 8) == 0) {
			char *end;
			long v = strtol(argv[i] + 8, &end, 10);
			if (*end || v < 1 || v > 65535 || a->nreach >= STAGE_REACH_MAX)
				return -EINVAL;
			a->reach[a->nreach++] = (uint16_t)v;
		} else if (strncmp(argv[i], "--argv-fd=", 10) == 0) {
			char *end;
			long v = strtol(argv[i] + 10, &end, 10);
			if (*end || v < 3 || v > 65535)
				return -EINVAL;
			a->argv_fd = (int)v;
		} else if (strcmp(argv[i], "--") == 0 && i + 2 < argc) {
			a->shell = argv + i + 1;
			return a->fd >= 0 ? 0 : -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	return -EINVAL;
}

/* The most --argv-fd may hold: execve took the arguments from sbxsh's caller, whose limit is
 * a quarter of its stack limit (2 MiB under the usual 8 MiB); this bounds a forged file. */
#define ARGV_FILE_MAX (256UL << 20)

/* --argv-fd: its arguments appended to a->shell; the descriptor closed (the shell never
 * inherits it). Returns 0 or -errno. */
static int load_argv(struct stage_args *a)
{
	struct stat st;
	size_t n, got = 0, k = 0, inl = 0;

	if (fstat(a->argv_fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < 0 || (unsigned long)st.st_size > ARGV_FILE_MAX)
		return -EPROTO;
	n = (size_t)st.st_size;
	char *buf = malloc(n + 1);
	if (!buf)
		return -ENOMEM;
	while (got < n) {
		ssize_t r = pread(a->argv_fd, buf + got, n - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			return r < 0 ? -errno : -EPROTO;
		}
		got += (size_t)r;
	}
	if (n && buf[n - 1]) {
		free(buf);
		return -EPROTO; /* every argument ends with its NUL */
	}
	for (size_t i = 0; i < n; i++)
		k += !buf[i];
	while (a->shell[inl])
		inl++;
	char **v = calloc(inl + k + 1, sizeof(*v));
	if (!v) {
		free(buf);
		return -ENOMEM;
	}
	memcpy(v, a->shell, inl * sizeof(*v));
	for (size_t i = 0, at = 0; i < k; i++) {
		v[inl + i] = buf + at;
		at += strlen(buf + at) + 1;
	}
	a->shell = v; /* buf and v live as long as the stage */
	close(a->argv_fd);
	a->argv_fd = -1;
	return 0;
}

/* STARTED carries our credentials (the pid, for signals) and, given master >= 0, the pty's
 * master (SCM_RIGHTS, after the credentials). */
static int send_started(int fd, int master)
{
	struct sbx_stage_msg m;
	struct ucred cred = {getpid(), getuid(), getgid()};
	union {
		char buf[CMSG_SPACE(sizeof(cred)) + CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {&m, sizeof(m)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	stage_msg_encode(&m, SBX_STAGE_STARTED, 0);
	memset(&u, 0, sizeof(u));
	mh.msg_control = u.buf;
	mh.msg_controllen = CMSG_SPACE(sizeof(cred)) + (master >= 0 ? CMSG_SPACE(sizeof(int)) : 0);
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(cred));
	memcpy(CMSG_DATA(c), &cred, sizeof(cred));
	if (master >= 0) {
		c = CMSG_NXTHDR(&mh, c);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &master, sizeof(int));
	}
	ssize_t n;
	while ((n = sendmsg(fd, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	return n < 0 ? -errno : 0;
}

static void send_msg(int fd, uint32_t kind, int32_t status)
{
	struct sbx_stage_msg m;

	stage_msg_encode(&m, kind, status);
	while (send(fd, &m, sizeof(m), MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

static _Noreturn void fail(int fd, int err, const char *what)
{
	fprintf(stderr, "sbxsh: sandbox stage: %s: %s\n", what, strerror(err));
	send_msg(fd, SBX_STAGE_FAILED, err);
	_exit(SBX_EXIT_REFUSED);
}

/* Sends the fronts with their roles, closes our copies, and waits for the front end's word. */
static int net_handoff(int fd, const struct stage_front *fds, size_t n)
{
	struct sbx_stage_net m;
	uint16_t role[SBX_STAGE_NET_MAX], port[SBX_STAGE_NET_MAX];
	int raw[SBX_STAGE_NET_MAX];
	struct sbx_stage_msg go;
	struct stage_msg d;
	ssize_t got;

	for (size_t i = 0; i < n && i < SBX_STAGE_NET_MAX; i++) {
		role[i] = fds[i].role;
		port[i] = fds[i].port;
		raw[i] = fds[i].fd;
	}
	int r = stage_net_encode(&m, role, port, n);
	if (r == 0)
		r = fdpass_send(fd, &m, sizeof(m), raw, n);
	for (size_t i = 0; i < n; i++)
		close(fds[i].fd);
	if (r < 0)
		return r;
	while ((got = recv(fd, &go, sizeof(go), 0)) < 0 && errno == EINTR)
		;
	if (got < 0 || stage_msg_decode(&go, (size_t)got, &d) != SBX_STAGE_GO)
		return -EPIPE; /* the front end is gone */
	return d.status == 0 ? 0 : -ECANCELED;
}

/* network = proxy: the command's fronts in this namespace, handed out before it starts. */
static void net_setup(const struct stage_args *a)
{
	struct stage_front fds[SBX_STAGE_NET_MAX];
	size_t n = 0;
	char *err = NULL;
	int r = stage_fronts_make(a->reach, a->nreach, a->relay, fds, &n, &err);

	if (r < 0) {
		/* Below 1024 needs a capability the stage no longer has, by design. */
		const char *hint = r == -EACCES
				       ? "; a port below 1024 cannot be bound in a sandbox: "
					 "remove that localhost:PORT from allow_domains"
				       : "";
		fprintf(stderr, "sbxsh: network = proxy: %s%s\n", err ? err : strerror(-r), hint);
		free(err);
		send_msg(a->fd, SBX_STAGE_FAILED, -r);
		_exit(SBX_EXIT_REFUSED);
	}
	r = net_handoff(a->fd, fds, n);
	if (r == -ECANCELED)
		_exit(SBX_EXIT_REFUSED); /* the front end said why */
	if (r < 0)
		fail(a->fd, -r, "handing the network fronts to sbxsh");
}

/* The inner shell with SIGCHLD ignored, which posix_spawn cannot give (the stage itself must
 * reap it): vfork, whose child has dispositions of its own; its exec's errno comes back
 * through the memory it shares with us until then. 0 with *pid, or an errno. */
static int spawn_chld_ignored(const struct stage_args *a, const sigset_t *old, pid_t *pid)
{
	volatile int err = 0;
	pid_t p = vfork();

	if (p == 0) {
		struct sigaction ign = {.sa_handler = SIG_IGN};

		sigaction(SIGCHLD, &ign, NULL);
		sigprocmask(SIG_SETMASK, old, NULL);
		execve(a->shell[0], a->shell + 1, environ);
		err = errno;
		_exit(127);
	}
	if (p < 0)
		return errno;
	if (err) {
		while (waitpid(p, NULL, 0) < 0 && errno == EINTR) {
		}
		return err;
	}
	*pid = p;
	return 0;
}

/* The inner shell, with the caller's signal mask back (its handled signals return to their
 * defaults at exec; ignored ones stay ignored, as bash keeps them; SIGCHLD as --chld-ign
 * says). posix_spawn, not fork: the C library's vfork-style spawn copies no page tables.
 * Returns its pid, or -(126/127) when it cannot run (said on stderr; the status bash would
 * give). */
static pid_t spawn_shell(const struct stage_args *a, const sigset_t *old)
{
	posix_spawnattr_t at;
	pid_t pid = -1;
	int e;

	if (a->chld_ign) {
		e = spawn_chld_ignored(a, old, &pid);
	} else if ((e = posix_spawnattr_init(&at)) == 0) {
		e = posix_spawnattr_setsigmask(&at, old);
		if (e == 0)
			e = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
		if (e == 0)
			e = posix_spawn(&pid, a->shell[0], NULL, &at, a->shell + 1, environ);
		posix_spawnattr_destroy(&at);
	}
	if (e == 0)
		return pid;
	fprintf(stderr, "sbxsh: cannot run the inner shell %s: %s\n", a->shell[0], strerror(e));
	return e == ENOENT ? -127 : -126;
}

/* --ctty: a pty of the sandbox's own devpts with the modes and size of the front end's (on 0),
 * its slave our controlling terminal. Returns the slave (the shell's 0-2 later) with *master,
 * or -errno. */
static int own_pty(int *master)
{
	int m, s, r = sbx_pty_open(0, &m, &s);

	if (r < 0)
		return r;
	if ((r = sbx_pty_take(s)) < 0) {
		close(m);
		close(s);
		return r;
	}
	*master = m;
	return s;
}

/* Waits for the shell; reaps orphans; forwards signals sent from outside or by others. With a
 * pty (ctty), a shell that stops itself (`suspend`, a SIGSTOP) is told to the front end, which
 * stops in turn and, continued, sends us the SIGCONT that goes on to the shell. */
static bool stopped_now(pid_t pid)
{
	char path[64], buf[512];
	int f;
	ssize_t n = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(f, buf, sizeof(buf) - 1);
		close(f);
	}
	if (n <= 0)
		return false;
	buf[n] = '\0';
	const char *c = strrchr(buf, ')');
	return c && c[1] == ' ' && (c[2] == 'T' || c[2] == 't');
}

static int supervise(int fd, pid_t shell, bool ctty, const sigset_t *set)
{
	bool stopping = false; /* without a pty: sbxsh's stop, until the shell has stopped */

	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(set, &si);
		if (sig < 0)
			continue;
		if (sig != SIGCHLD) {
			/* From the terminal (SI_KERNEL) the group already has it, but for a
			 * hang-up: the kernel tells the session's leader alone, us (the relay
			 * closed the pty's master: the caller's terminal went away), and a leader
			 * passes it on, as bash would to its jobs. Ours: skip. */
			bool hup = sig == SIGHUP && si.si_code == SI_KERNEL;
			if (!hup && (si.si_code > 0 || si.si_pid == getpid()))
				continue;
			/* sbxsh stopped without a relay: so does the command. Our process group is
			 * orphaned (our parent, bwrap, is in another session), where the kernel
			 * drops a SIGTSTP with its default action: SIGSTOP (this process, the
			 * namespace's init, is not stopped by its own). */
			if (sig == SIGTSTP && !ctty) {
				kill(0, SIGSTOP);
				/* sbxsh stops when we say the shell did (a shell stopped already
				 * is not reported again) */
				stopping = !stopped_now(shell);
				if (!stopping)
					send_msg(fd, SBX_STAGE_STOPPED, 0);
				continue;
			}
			if (sig == SIGCONT)
				stopping = false;
			kill(0, sig);
			pid_t g = ctty ? getpgid(shell) : -1;
			if (g > 1 && g != getpgrp())
				kill(-g, sig);
			if (hup) { /* a stopped job hears it too */
				kill(0, SIGCONT);
				if (g > 1 && g != getpgrp())
					kill(-g, SIGCONT);
			}
			continue;
		}
		int status;
		pid_t p;
		while ((p = waitpid(-1, &status, WNOHANG | (ctty || stopping ? WUNTRACED : 0))) > 0)
			if (p == shell && WIFSTOPPED(status)) {
				if (ctty || stopping)
					send_msg(fd, SBX_STAGE_STOPPED, 0);
				stopping = false;
			} else if (p == shell) {
				return status;
			}
	}
}

/* The mounts bwrap left to us, before anything else (fail closed). */
static void make_mounts(const struct stage_args *a)
{
	char *text = a->marker ? sandbox_marker_format(a->shell[0], a->profile) : NULL;
	const char *failed = NULL;
	char what[4200];

	if (a->marker && !text)
		fail(a->fd, ENOMEM, "writing the sandbox marker");
	int r = stage_mounts_make(a->mounts, a->nmounts, a->marker, text, a->dev_ro, &failed);
	free(text);
	if (r < 0) {
		snprintf(what, sizeof(what), "mounting over %s in the sandbox",
			 failed ? failed : "?");
		fail(a->fd, -r, what);
	}
}

int main(int argc, char **argv)
{
	struct stage_args a = {0};
	sigset_t set, old;
	int r0;

	if (parse(argc, argv, &a) < 0) {
		fprintf(stderr, "sbxsh-stage: run by sbxsh inside the sandbox only\n");
		return SBX_EXIT_REFUSED;
	}
	/* The shell never inherits the control socket; and the stage is not traceable by the
	 * command it runs (same uid): its messages stay its own. Either failing stops it. */
	if (fcntl(a.fd, F_SETFD, FD_CLOEXEC) < 0)
		fail(a.fd, errno, "closing the control socket to the command (FD_CLOEXEC)");
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		fail(a.fd, errno, "making the stage untraceable (PR_SET_DUMPABLE)");
	if (a.argv_fd >= 0 && (r0 = load_argv(&a)) < 0)
		fail(a.fd, -r0, "reading the command's arguments (--argv-fd)");
	make_mounts(&a);
	/* the stage reaps its shell: never the kernel behind its back (the shell's own SIGCHLD
	 * is the caller's, --chld-ign) */
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(*forwarded); i++) {
		/* Ignored by the caller (an async list's SIGINT): ignored for the shell too. */
		if (signal(forwarded[i], noop) == SIG_IGN) {
			signal(forwarded[i], SIG_IGN);
			continue;
		}
		sigaddset(&set, forwarded[i]);
	}
	sigprocmask(SIG_BLOCK, &set, &old);
	/* sbxsh ran bwrap with the forwarded signals blocked (a signal to its caller's process
	 * group must not kill bwrap): the shell gets the caller's own mask for them back */
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(*forwarded); i++)
		if (forwarded[i] != SIGTSTP && !(a.blocked & 1u << forwarded[i]))
			sigdelset(&old, forwarded[i]); /* (SIGTSTP: bwrap had the caller's own) */
	/* A pty of our own: its foreground group gets ^C and ^Z; the shell takes it over. Until
	 * the shell starts, 0-2 stay the front end's pty, which shows what goes wrong before. */
	int r, master = -1, slave = -1;
	if (a.ctty && (slave = own_pty(&master)) < 0 && (r = sbx_pty_take(0)) < 0)
		fail(a.fd, -r, "making the pty the controlling terminal");

	/* The monitor's settings leave the environment before anything else can read them. */
	struct notify_stage mon;
	r = notify_stage_parse(&mon);
	if (r < 0)
		fail(a.fd, -r, "reading " NOTIFY_ENV);
	if ((r = sandbox_caps_drop()) < 0)
		fail(a.fd, -r, "dropping capabilities");
	/* network = proxy: the fronts, handed out; the command waits for the front end's go. */
	if (a.net)
		net_setup(&a);
	/* With the monitor on, one filter holds the main rules and the monitor's (one load: each
	 * costs the kernel ~50 µs); its listener goes to the front end, not inward. AF_UNIX is
	 * then the monitor's to refuse (EPERM, and reported): an ERRNO rule would win over its
	 * notification and hide the attempt. Unanswered, it still fails. */
	if (mon.fd >= 0) {
		/* the guard performs every change of a name: the sandbox's own are refused */
		if ((r = sandbox_names_lock()) < 0)
			fail(a.fd, -r, "refusing the sandbox's own changes of names (landlock)");
		if ((r = notify_stage_install(&mon)) < 0)
			fail(a.fd, -r, "installing the seccomp filter and the violation monitor's");
	} else if ((r = sandbox_seccomp_install(a.unix_all)) < 0) {
		fail(a.fd, -r, "installing the seccomp filter");
	}
	if (a.keep_shell && (r = sandbox_seccomp_install_shell()) < 0)
		fail(a.fd, -r, "installing the seccomp filter that keeps the shell untraceable");
	if ((r = send_started(a.fd, master)) < 0)
		fail(a.fd, -r, "telling sbxsh the sandbox is ready");
	if (master >= 0)
		close(master); /* the front end's now: nothing in here may read what is typed */
	for (int fd = 0; slave >= 0 && fd < 3; fd++)
		if (dup2(slave, fd) < 0)
			fail(a.fd, errno, "giving the shell its pty");
	if (slave > 2)
		close(slave);
	pid_t shell = spawn_shell(&a, &old);
	/* The shell filter names the shell by its pid: anything else is refused, not run. */
	if (a.keep_shell && shell > 0 && shell != 2) {
		kill(shell, SIGKILL);
		fail(a.fd, ESRCH, "starting the shell as pid 2 (the shell filter's)");
	}
	int status = shell < 0 ? (-shell) << 8 : supervise(a.fd, shell, a.ctty, &set);
	send_msg(a.fd, SBX_STAGE_EXITED, status);
	/* _exit: nothing may run at exit (a sanitizer build's leak check would print into the
	 * command's stderr); there is nothing to flush. bwrap reaps this process and sbxsh
	 * reaps bwrap, so the shell's CPU time (reaped above) reaches sbxsh's caller. */
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}
