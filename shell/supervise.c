/* supervise — runs bwrap as our child and passes on how the command ended.
 *
 * Rules kept here:
 * - stdin, stdout and stderr are never read or touched: bwrap inherits them. Descriptors the
 *   caller passed stay open; ours are close-on-exec except those bwrap must read. With a pty
 *   relay (a terminal on 0-2) bwrap gets the pty's slave as 0-2 instead, and the relay moves
 *   the bytes (shell/relay.c); SIGWINCH resizes the pty; SIGHUP is forwarded (the relay hangs
 *   the pty up when the terminal itself is gone).
 * - SIGINT/SIGTERM/SIGHUP/SIGQUIT sent to sbxsh go to the stage, which passes them to the
 *   command's process group. One the terminal sent to our whole group is not sent twice.
 * - The stage's messages come from inside the sandbox: checked for size, magic and range;
 *   descriptors are taken only with the one network message, once, before the command
 *   starts, and only when network = proxy, and with STARTED the one pty master when there is
 *   a relay (checked to be one); any others are closed unread.
 * - A command killed by a signal makes sbxsh die of the same signal (compat.md 5).
 * - Once the stage reports the shell's status it exits; bwrap reaps it and exits, and
 *   sbxsh reaps bwrap last, just before it exits itself (supervise_exit): the command's CPU
 *   time reaches our caller's RUSAGE_CHILDREN through that chain of waits, as bash's would,
 *   while the kernel tears the sandbox down beside our own reporting. A sandbox that does
 *   not end within SBX_REAP_MS is killed (its time is then lost; nothing else is).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "platform/fdpass.h"
#include "platform/log.h"
#include "platform/proc.h"
#include "platform/pty.h"
#include "platform/sandbox.h"
#include "platform/stage_proto.h"
#include "shell/relay.h"
#include "shell/shell.h"

static const int handled[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};
static const int relayed[] = {SIGWINCH, SIGCONT}; /* with a pty relay: the relay's */
/* Without a relay: the stops a job-control shell (^Z, kill -TSTP %1) or a supervisor sends.
 * The sandbox is in a session of its own and hears none of them: sbxsh stops it, then itself. */
static const int stops[] = {SIGTSTP, SIGTTIN, SIGTTOU};

#define SBX_REAP_MS 2000
static pid_t pending_bwrap = -1; /* the stage reported; bwrap not yet reaped */
static bool keep_relay;		 /* supervise_keep_relay: a profile switch follows */
/* The mask the caller had before its first supervise_run: what every sandbox starts with (a
 * later run, after a profile switch, finds the handled signals still blocked here). */
static sigset_t caller_mask;
static bool caller_mask_saved;

extern char **environ;

struct sup {
	pid_t bwrap;
	int sock, sigfd, pidfd;
	bool new_session;
	bool net_done;	  /* the fronts came (or were refused): no second NET message */
	int stop_pending; /* a stop that came before the command started (on_stop at STARTED) */
	int stop_code;
	int stopping; /* without a relay: the stop told to the stage, until it says STOPPED */
	const struct supervise_net *net;
	const struct supervise_extra *extra;
	struct relay *relay;
	struct run_result *res;
};

/* The signals to watch: a forwarded one the caller left ignored stays ignored for the
 * command too, as bash keeps it (an async list starts with SIGINT and SIGQUIT ignored). */
static void sigset_handled(sigset_t *set, bool relay)
{
	sigemptyset(set);
	for (size_t i = 0; relay && i < sizeof(relayed) / sizeof(*relayed); i++)
		sigaddset(set, relayed[i]);
	/* Without a relay, a SIGCONT goes on to the sandbox: a command that stopped itself (kill
	 * -STOP $$) is continued by its caller's kill -CONT, as it would be under bash. */
	sigaddset(set, SIGCONT);
	for (size_t i = 0; !relay && i < sizeof(stops) / sizeof(*stops); i++) {
		struct sigaction sa; /* one the caller ignores stays ignored (nothing stops) */
		if (sigaction(stops[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
			sigaddset(set, stops[i]);
	}
	for (size_t i = 0; i < sizeof(handled) / sizeof(*handled); i++) {
		struct sigaction sa;
		if (handled[i] != SIGCHLD && sigaction(handled[i], NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_IGN)
			continue;
		sigaddset(set, handled[i]);
	}
}

/* bwrap, spawned as the stage spawns the shell (posix_spawn: the C library's vfork-style
 * spawn copies no page tables): the terminal (tty >= 0) on 0-2 or nothing runs (never the
 * caller's terminal instead), keep[] inheritable, the caller's signal mask, and SIGCHLD
 * default, which bwrap needs to reap the stage (ours is default by now: inherited; the stage
 * gives the command the caller's ignored SIGCHLD back, --chld-ign). Returns the pid, or
 * -errno (nothing ran). */
static pid_t spawn(char *const *argv, const int *keep, size_t nkeep, int tty, const sigset_t *old)
{
	/* The forwarded signals blocked in bwrap: a signal to the caller's whole process group
	 * (timeout(1), a CI runner's cancel, ^C to a pipeline) reached bwrap too, which died of
	 * it and, --die-with-parent, SIGKILLed the sandbox before the command's traps ran. We
	 * forward them; the stage gives the shell the caller's mask back (--blocked). */
	sigset_t mask = *old;
	for (size_t i = 0; i < sizeof(handled) / sizeof(*handled); i++)
		if (handled[i] != SIGCHLD)
			sigaddset(&mask, handled[i]);
	old = &mask;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	pid_t pid = -1;
	int e = posix_spawn_file_actions_init(&fa);

	if (e)
		return -e;
	if ((e = posix_spawnattr_init(&at))) {
		posix_spawn_file_actions_destroy(&fa);
		return -e;
	}
	for (int fd = 0; e == 0 && tty >= 0 && fd < 3; fd++)
		e = posix_spawn_file_actions_adddup2(&fa, tty, fd);
	/* a descriptor dup2'd onto itself loses close-on-exec (POSIX.1-2024, musl, glibc) */
	for (size_t i = 0; e == 0 && i < nkeep; i++)
		e = posix_spawn_file_actions_adddup2(&fa, keep[i], keep[i]);
	if (e == 0)
		e = posix_spawnattr_setsigmask(&at, old);
	if (e == 0)
		e = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
	if (e == 0)
		e = posix_spawn(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return e ? -e : pid;
}

static int chld_ignored = -1; /* the caller's SIGCHLD: -1 not asked yet */

static void save_caller_mask(void)
{
	if (!caller_mask_saved && sigprocmask(SIG_BLOCK, NULL, &caller_mask) == 0)
		caller_mask_saved = true;
}

unsigned supervise_caller_blocked(void)
{
	unsigned bits = 0;

	save_caller_mask();
	for (size_t i = 0; i < sizeof(handled) / sizeof(*handled); i++)
		if (handled[i] != SIGCHLD && caller_mask_saved &&
		    sigismember(&caller_mask, handled[i]) == 1)
			bits |= 1u << handled[i];
	return bits;
}

bool supervise_caller_ignores_chld(void)
{
	struct sigaction sa;

	if (chld_ignored < 0)
		chld_ignored = sigaction(SIGCHLD, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
	return chld_ignored == 1;
}

static void send_go(int sock, int32_t status)
{
	struct sbx_stage_msg go;

	stage_msg_encode(&go, SBX_STAGE_GO, status);
	while (send(sock, &go, sizeof(go), MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* The fronts: checked, handed to the hook, closed; go or no-go to the stage. */
static void on_net(struct sup *s, const struct stage_msg *m, const int *fds, size_t nfds, bool lost)
{
	int r = -EPROTO;

	if (lost) {
		/* Descriptors the kernel could not give us (no free descriptor: MSG_CTRUNC), or
		 * a message cut short: the stage hears no-go rather than waiting forever. */
		fprintf(stderr,
			"sbxsh: the network fronts from the sandbox stage did not arrive "
			"whole (out of descriptors? see ulimit -n); the command does not run\n");
	} else if (s->net && !s->net_done && !s->res->started && m->n == nfds) {
		r = s->net->fronts(s->net->arg, fds, m->role, m->port, nfds);
	} else {
		fprintf(stderr, "sbxsh: the sandbox stage sent network fronts out of turn; "
				"the command does not run\n");
	}
	s->net_done = true;
	if (r < 0)
		s->res->refused = true;
	send_go(s->sock, r < 0 ? -r : 0);
}

/* The shell stopped itself (`suspend`): so does sbxsh's process group (as bash's suspend stops
 * its own), the caller's terminal given back its modes, and when the caller's shell continues
 * it (fg), the shell goes on. In the session leader's process group (a login, a terminal
 * window's or tmux pane's program, `sh -c sbxsh`) no job-control shell would ever continue it:
 * the shell goes on at once, with a line saying so. */
static void on_stopped(struct sup *s)
{
	if (getpgrp() == getsid(0)) {
		relay_say(s->relay, "sbxsh: suspend: no job-control shell outside sbxsh would "
				    "continue it (it runs in its session leader's process group); "
				    "the shell goes on\n");
	} else {
		relay_pause(s->relay);
		kill(0, SIGSTOP);
		relay_resume(s->relay); /* continued */
	}
	proc_handle_signal(s->pidfd, SIGCONT);
}

/* Whether our process group is orphaned, where the kernel drops a stop signal with its default
 * action (nothing would continue it): no process on the way up from us, within our group, has
 * its parent in another group of our session. (Other members of the group than our ancestors
 * are not looked at: a job's other processes share an ancestor with us.) */
static bool group_orphaned(void)
{
	pid_t me = getpid(), g = getpgrp(), sid = getsid(0);

	for (int depth = 0; depth < 64; depth++) {
		pid_t pp = proc_parent(me);
		if (pp <= 0)
			return true;
		pid_t pg = getpgid(pp);
		if (pg < 0)
			return true;
		if (pg != g)
			return getsid(pp) != sid;
		me = pp;
	}
	return true;
}

/* Stops this process with sig as its default action would (our caller sees WSTOPSIG sig) and
 * returns once it is continued. The signal is blocked here (the signal descriptor's): raised
 * for this thread, then let through. */
static void stop_self(int sig)
{
	sigset_t one;

	sigemptyset(&one);
	sigaddset(&one, sig);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL); /* taken here: stopped until a SIGCONT */
	sigprocmask(SIG_BLOCK, &one, NULL);
}

/* A stop (SIGTSTP, SIGTTIN, SIGTTOU) without a relay: the command stopped (the stage stops its
 * process group: SIGSTOP, since that group is orphaned inside, where a SIGTSTP is dropped),
 * then sbxsh itself, so the job-control shell that sent it sees the job stopped; its fg or
 * kill -CONT continues sbxsh, and the SIGCONT goes on to the command (forward). In an orphaned
 * group the kernel would drop the stop: then nothing stops. One from the terminal to our
 * group when that group holds the sandbox too (a terminal on some of 0-2) reached the
 * command already. */
static void on_stop(struct sup *s, int sig, int code)
{
	if (!s->res->started) { /* the command is not running yet: at STARTED */
		s->stop_pending = sig;
		s->stop_code = code;
		return;
	}
	if (group_orphaned())
		return;
	if (s->pidfd >= 0 && !(code == SI_KERNEL && !s->new_session)) {
		/* sbxsh stops once the stage says the shell has stopped (on_command_stopped): until
		 * then the monitor answers the calls the command waits in (a call left unanswered
		 * would hold it running, in the kernel, where no stop reaches it) */
		s->stopping = sig;
		proc_handle_signal(s->pidfd, SIGTSTP);
		return;
	}
	stop_self(sig);
}

/* The stage stopped the command for our stop (on_stop): now sbxsh stops. */
static void on_command_stopped(struct sup *s)
{
	int sig = s->stopping;

	s->stopping = 0;
	if (group_orphaned()) { /* it became one meanwhile: nothing would continue us */
		proc_handle_signal(s->pidfd, SIGCONT);
		return;
	}
	stop_self(sig);
	sigset_t p;
	/* not stopped after all (the kernel dropped it): the command goes on too */
	if (sigpending(&p) == 0 && sigismember(&p, SIGCONT) != 1)
		proc_handle_signal(s->pidfd, SIGCONT);
}

/* Reads one message. Returns 1, 0 at end of stream (the stage and bwrap closed it), or -1
 * when none is queued. */
static int on_message(struct sup *s)
{
	struct sbx_stage_net in; /* the largest message */
	int fds[SBX_STAGE_NET_MAX];
	struct fdpass_in got = {.fds = fds, .cap = SBX_STAGE_NET_MAX};
	ssize_t n = fdpass_recv(s->sock, &in, sizeof(in), FDPASS_NONBLOCK, &got);
	size_t nfds = got.nfds;
	struct stage_msg m;

	if (n < 0)
		return n == -EAGAIN ? -1 : 0;
	if (n == 0)
		return 0;
	int bad = got.lost;
	int kind = got.trunc ? -EPROTO : stage_msg_decode(&in, (size_t)n, &m);
	if (kind == SBX_STAGE_NET ||
	    (kind < 0 && n >= 8 && in.magic == SBX_STAGE_MAGIC && in.kind == SBX_STAGE_NET))
		on_net(s, &m, fds, nfds, bad || kind < 0); /* a NET that does not decode: no-go */
	if (kind == SBX_STAGE_STARTED && !s->res->started) {
		if (got.pid > 0)
			s->pidfd = proc_handle_open(got.pid);
		if (s->relay) { /* the shell's pty, of the sandbox's own devpts (or none: ours) */
			bool one = nfds == 1 && !bad;
			relay_adopt(s->relay, one ? fds[0] : -1);
			if (one)
				nfds = 0;
		}
		s->res->started = true;
		if (s->stop_pending) {
			on_stop(s, s->stop_pending, s->stop_code);
			s->stop_pending = 0;
		}
	} else if (kind == SBX_STAGE_EXITED && s->res->started && !s->res->reported) {
		s->res->wstatus = m.status;
		s->res->reported = true;
		/* The shell is gone and its status is ours. bwrap is not killed: killed, it
		 * would never reap the stage, and the command's CPU time would be lost to our
		 * caller; supervise_exit reaps it while the kernel tears the sandbox down. */
	} else if (kind == SBX_STAGE_FAILED) {
		s->res->refused = true;
	} else if (kind == SBX_STAGE_STOPPED && s->res->started && s->relay && s->pidfd >= 0) {
		on_stopped(s);
	} else if (kind == SBX_STAGE_STOPPED && !s->relay && s->stopping && s->pidfd >= 0) {
		on_command_stopped(s);
	}
	for (size_t i = 0; i < nfds; i++)
		close(fds[i]);
	return 1;
}

/* A signal for the command: to the stage once it runs, else to bwrap (which then dies of it
 * and takes the half-built sandbox along). */
static void forward(struct sup *s, const struct proc_sig *si)
{
	if (s->relay && si->signo == SIGWINCH) {
		relay_winch(s->relay);
		return;
	}
	if (s->relay && si->signo == SIGCONT) {
		relay_cont(s->relay);
		return;
	}
	if (si->signo == SIGCONT)
		s->stopping = 0; /* continued before the command had stopped: sbxsh does not stop */
	if (!s->relay && (si->signo == SIGTSTP || si->signo == SIGTTIN || si->signo == SIGTTOU)) {
		on_stop(s, si->signo, si->code);
		return;
	}
	/* The terminal sent it to our process group, which holds the sandbox too. */
	if (si->code == SI_KERNEL && !s->new_session)
		return;
	if (s->pidfd >= 0)
		proc_handle_signal(s->pidfd, si->signo);
	else if (!s->res->started)
		kill(s->bwrap, si->signo);
}

/* Returns true once bwrap has been reaped. */
static bool on_signal(struct sup *s)
{
	struct proc_sig si;

	while (proc_sigfd_read(s->sigfd, &si) == 1) {
		if (si.signo != SIGCHLD) {
			forward(s, &si);
			continue;
		}
		int st;
		if (waitpid(s->bwrap, &st, WNOHANG) == s->bwrap) {
			s->res->bwrap_status = st;
			return true;
		}
	}
	return false;
}

#define SUP_NEXTRA 4 /* the extras' chain served: the monitor, the profile switch's channel */

static void loop(struct sup *s)
{
	bool open = true;

	for (;;) {
		struct pollfd p[2 + SUP_NEXTRA + RELAY_NFDS] = {{s->sigfd, POLLIN, 0},
								{open ? s->sock : -1, POLLIN, 0}};
		const struct supervise_extra *x = s->extra;
		size_t n = 2, nx = 0; /* no more entries than are used: poll refuses more than
					 RLIMIT_NOFILE of them (EINVAL) */
		for (; x && nx < SUP_NEXTRA; x = x->next, nx++)
			p[n++] = (struct pollfd){x->fd(x->arg), POLLIN, 0};
		if (s->relay)
			relay_poll(s->relay, p + n), n += RELAY_NFDS;
		if (poll(p, n, -1) < 0)
			continue;
		if (s->relay)
			relay_ready(s->relay, p + 2 + nx);
		/* the monitor first: the stage's first monitored call waits on its listener */
		x = s->extra;
		for (size_t i = 0; i < nx; i++, x = x->next)
			if (p[2 + i].revents)
				x->ready(x->arg, p[2 + i].revents);
		if (p[1].revents & (POLLIN | POLLHUP | POLLERR))
			open = on_message(s) != 0;
		if ((p[0].revents & POLLIN) && on_signal(s))
			break;
		if (s->res->reported) {
			pending_bwrap = s->bwrap; /* reaped in supervise_exit */
			return;
		}
	}
	/* The stage's last words were queued before bwrap could exit. */
	while (open && on_message(s) > 0)
		;
}

int supervise_run(char *const *argv, int sock, const int *keep_fds, size_t nkeep, bool new_session,
		  const struct supervise_net *net, const struct supervise_extra *extra,
		  struct relay *relay, struct run_result *res)
{
	struct sup s = {.sock = sock,
			.pidfd = -1,
			.new_session = new_session,
			.net = net,
			.extra = extra,
			.relay = relay,
			.res = res};
	sigset_t set, old;
	int r = 0;

	memset(res, 0, sizeof(*res));
	/* A caller that ignores SIGCHLD would have bwrap reaped behind our back. */
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	(void)supervise_caller_ignores_chld(); /* asked before it changes */
	sigaction(SIGCHLD, &dfl, NULL);
	sigset_handled(&set, relay != NULL);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (!caller_mask_saved) {
		caller_mask = old;
		caller_mask_saved = true;
	}
	old = caller_mask;
	s.sigfd = proc_sigfd_open(&set);
	if (s.sigfd < 0) {
		r = s.sigfd;
		goto out;
	}
	s.bwrap = spawn(argv, keep_fds, nkeep, relay ? relay->slave : -1, &old);
	if (s.bwrap < 0) {
		r = s.bwrap;
		goto out;
	}
	for (size_t i = 0; i < nkeep; i++)
		if (keep_fds[i] != sock)
			close(keep_fds[i]);
	if (relay) {
		close(relay->slave); /* the sandbox's now: the master reads EIO once it is gone */
		relay->slave = -1;
	}
	for (const struct supervise_extra *x = extra; x; x = x->next)
		if (x->spawned)
			x->spawned(x->arg);
	loop(&s);
out:
	if (relay && !keep_relay)
		relay_close(relay);
	if (s.pidfd >= 0)
		close(s.pidfd);
	if (s.sigfd >= 0)
		close(s.sigfd);
	return r;
}

/* Reaps bwrap after the stage reported, so the sandbox's CPU time is counted to our caller;
 * kills it when it does not end within SBX_REAP_MS (a process stuck in the kernel). */
static void reap_bwrap(void)
{
	struct timespec end, now;
	sigset_t chld;

	if (pending_bwrap < 0)
		return;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += SBX_REAP_MS / 1000;
	end.tv_nsec += (SBX_REAP_MS % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	while (waitpid(pending_bwrap, NULL, WNOHANG) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		struct timespec left = {end.tv_sec - now.tv_sec, end.tv_nsec - now.tv_nsec};
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0 || (sigtimedwait(&chld, NULL, &left) < 0 && errno == EAGAIN)) {
			kill(pending_bwrap, SIGKILL);
			waitpid(pending_bwrap, NULL, 0);
			break;
		}
	}
	pending_bwrap = -1;
}

void supervise_keep_relay(bool keep)
{
	keep_relay = keep;
}

void supervise_reap(void)
{
	reap_bwrap();
}

_Noreturn void supervise_exit(int wstatus)
{
	fflush(NULL); /* the report is out before we wait on the sandbox's teardown */
	reap_bwrap();
	sbx_tty_keep_restore(); /* the sandbox is gone: nothing changes the terminal after this */
	if (WIFEXITED(wstatus))
		exit(WEXITSTATUS(wstatus));
	int sig = WTERMSIG(wstatus);
	struct rlimit no_core = {0, 0};
	sigset_t set;

	fflush(NULL);
	setrlimit(RLIMIT_CORE, &no_core); /* the command's core, if any, is its own */
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig); /* a signal whose default is to be ignored */
}
