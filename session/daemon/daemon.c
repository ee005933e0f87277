/* daemon — the session daemon's loop: control socket, control connections, idle exit.
 *
 * Rules kept here:
 * - only peers of the daemon's own uid, in its own network and pid namespaces, are served
 *   (SO_PEERCRED and /proc/PID/ns/{net,pid}, checked at accept): a sandboxed process never
 *   is, not even with network = open;
 * - a control connection is one command's life: when it closes, the command ends, so a
 *   front end killed with -9 takes its command's listeners with it;
 * - every frame is bounded and decoded by proto.c; descriptors that arrive with a frame are
 *   counted against its T_FD fields and closed on any mismatch;
 * - the daemon never exits on a client's error: that client's connection is closed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "paths.h"
#include "platform/fdpass.h"
#include "platform/proc.h"
#include "session/errf.h"
#include "session/ident.h"
#include "session/daemon/sessd.h"
#include "session/wire.h"

struct ctl {
	uv_poll_t poll;
	struct sessd *d;
	int fd;
	uint8_t *buf;
	size_t have, want;
	int fds[SESS_FDS_MAX];
	size_t nfds;
	struct cmd *cmd;
	struct ctl *prev, *next;
};

static struct ctl *ctls;

/* The audit session watch: a daemon of session audit-N exits once no other process of that
 * login is left and nothing is live (the login ended without pam_sbxsh to stop it). */
#define AUDIT_WATCH_MS 3000
static uv_timer_t audit_watch;
static unsigned long audit_sid; /* 0: not watching */

uint64_t sessd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void on_idle(uv_timer_t *t);
static void sessd_stop(struct sessd *d);
static void release_dir(struct sessd *d);

void sessd_touch(struct sessd *d)
{
	if (d->stopping || !d->o->idle_exit)
		return;
	if (d->nctl == 0 && d->live == 0)
		uv_timer_start(&d->idle, on_idle, (uint64_t)d->o->idle_exit * 1000, 0);
	else
		uv_timer_stop(&d->idle);
}

static void on_idle(uv_timer_t *t)
{
	struct sessd *d = t->data;

	if (d->nctl == 0 && d->live == 0)
		sessd_stop(d);
}

static void ctl_freed(uv_handle_t *h)
{
	struct ctl *c = h->data;

	free(c->buf);
	free(c);
}

static void ctl_close(struct ctl *c)
{
	struct sessd *d = c->d;

	if (c->fd < 0)
		return;
	uv_poll_stop(&c->poll);
	if (c->cmd) {
		cmd_end(c->cmd);
		c->cmd = NULL;
		d->live--;
	}
	sess_close_fds(c->fds, c->nfds);
	c->nfds = 0;
	close(c->fd);
	c->fd = -1;
	if (c->prev)
		c->prev->next = c->next;
	else
		ctls = c->next;
	if (c->next)
		c->next->prev = c->prev;
	d->nctl--;
	uv_close((uv_handle_t *)&c->poll, ctl_freed);
	sessd_touch(d);
}

static int reply(struct ctl *c, struct sess_msg *m)
{
	struct buf b = {0};
	int rc = sess_encode(m, &b);

	if (rc == 0 && send(c->fd, b.p, b.n, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)b.n)
		rc = -EIO;
	buf_free(&b);
	return rc;
}

static int reply_text(struct ctl *c, uint8_t type, const char *text)
{
	struct sess_msg *m = calloc(1, sizeof(*m));
	int rc;

	if (!m)
		return -ENOMEM;
	m->type = type;
	m->text = sess_s(text);
	if (m->text.n > SESS_FIELD_MAX)
		m->text.n = SESS_FIELD_MAX;
	rc = reply(c, m);
	free(m);
	return rc;
}

static int reply_status(struct ctl *c)
{
	struct sessd *d = c->d;
	struct sess_msg *m = calloc(1, sizeof(*m));
	int rc;

	if (!m)
		return -ENOMEM;
	m->type = SESS_STATUS_REPLY;
	m->counter[SC_PID] = (uint64_t)getpid();
	m->counter[SC_UPTIME] = (sessd_now_ms() - d->start_ms) / 1000;
	m->counter[SC_SERVED] = d->served;
	m->counter[SC_LIVE] = d->live;
	m->counter[SC_CONNS] = d->conns;
	m->counter[SC_ALLOWED] = d->allowed;
	m->counter[SC_REFUSED] = d->refused;
	m->counter[SC_BYTES_UP] = d->bytes_up;
	m->counter[SC_BYTES_DOWN] = d->bytes_down;
	m->have_counters = (1u << SC_N) - 1;
	rc = reply(c, m);
	free(m);
	return rc;
}

static int handle_begin(struct ctl *c, const struct sess_msg *m)
{
	char *why = NULL;
	int rc;

	if (c->cmd) {
		sess_close_fds(c->fds, c->nfds);
		c->nfds = 0;
		return reply_text(c, SESS_ERR, "this connection already began a command");
	}
	rc = cmd_begin(c->d, m, c->fds, c->nfds, &c->cmd, &why);
	c->nfds = 0; /* taken by cmd_begin */
	if (rc < 0) {
		rc = reply_text(c, SESS_ERR, why ? why : strerror(-rc));
		free(why);
		return rc;
	}
	c->d->served++;
	c->d->live++;
	sessd_touch(c->d);
	return reply_text(c, SESS_OK, NULL);
}

/* The command ended: its network refusals go back in the OK (before it is freed). */
static int handle_end(struct ctl *c)
{
	struct sess_msg *m = calloc(1, sizeof(*m));
	int rc;

	if (!m)
		return -ENOMEM;
	m->type = SESS_OK;
	if (c->cmd)
		cmd_refusals_reply(c->cmd, m);
	rc = reply(c, m);
	free(m);
	if (c->cmd) {
		cmd_end(c->cmd);
		c->cmd = NULL;
		c->d->live--;
		sessd_touch(c->d);
	}
	return rc;
}

/* Handles one decoded frame. Returns < 0 to close the connection. */
static int handle(struct ctl *c, const struct sess_msg *m)
{
	switch (m->type) {
	case SESS_BEGIN:
		return handle_begin(c, m);
	case SESS_END:
		return handle_end(c);
	case SESS_STATUS:
		return reply_status(c);
	case SESS_STOP:
		/* The socket and the directory go before the answer: `session stop` returning
		 * means no new client can reach this daemon, nothing of it is left on disk, and a
		 * `session start` right after binds a fresh one. */
		release_dir(c->d);
		reply_text(c, SESS_OK, NULL);
		sessd_stop(c->d);
		return 0;
	default:
		reply_text(c, SESS_ERR, "unexpected message");
		return -EPROTO;
	}
}

static void frame_done(struct ctl *c)
{
	struct sess_msg *m = malloc(sizeof(*m));
	int rc = m ? sess_decode(c->buf, c->want, m) : -ENOMEM;

	if (rc == -EPROTONOSUPPORT) {
		reply_text(c, SESS_ERR,
			   "this sbxsh speaks another session protocol than the running daemon: "
			   "run `sbxsh session stop` once its commands finished");
	} else if (rc < 0) {
		reply_text(c, SESS_ERR, "malformed session message");
	} else if (c->nfds != sess_fds_expected(m)) {
		reply_text(c, SESS_ERR, "descriptors do not match the message");
		rc = -EPROTO;
	} else {
		rc = handle(c, m);
	}
	free(m);
	sess_close_fds(c->fds, c->nfds);
	c->nfds = 0;
	c->have = 0;
	c->want = SESS_HDR_LEN;
	if (rc < 0)
		ctl_close(c);
}

/* Reads what is there of the current frame. Returns 1 for a complete frame, 0 for more
 * later, < 0 to close. */
static int ctl_read(struct ctl *c)
{
	struct fdpass_in got = {.fds = c->fds, .cap = SESS_FDS_MAX, .nfds = c->nfds};
	ssize_t r = fdpass_recv(c->fd, c->buf + c->have, c->want - c->have, FDPASS_NONBLOCK, &got);

	c->nfds = got.nfds;
	if (r < 0)
		return r == -EAGAIN ? 0 : (int)r;
	if (r == 0 || got.lost)
		return -EPROTO;
	c->have += (size_t)r;
	if (c->have == SESS_HDR_LEN && c->want == SESS_HDR_LEN) {
		long n = sess_frame_len(c->buf, c->have);
		if (n < 0)
			return (int)n;
		c->want = (size_t)n;
	}
	return c->have == c->want && c->want > SESS_HDR_LEN;
}

static void on_ctl(uv_poll_t *h, int status, int events)
{
	struct ctl *c = h->data;
	int rc;

	(void)events;
	if (status < 0) {
		ctl_close(c);
		return;
	}
	rc = ctl_read(c);
	if (rc < 0)
		ctl_close(c);
	else if (rc == 1)
		frame_done(c);
}

/* NULL when the peer may talk to the daemon, else why not. */
static const char *peer_refusal(int fd)
{
	uid_t uid;
	pid_t pid;

	if (fdpass_peer_cred(fd, &uid, &pid) < 0 || uid != getuid())
		return "refused: this session daemon serves only its own user";
	/* a process inside a sandbox (its own namespace) never gets a front, whatever it can
	 * reach on disk; one whose namespace cannot be read is refused too */
	if (!proc_same_netns(pid))
		return "refused: the peer is in another network namespace than the session daemon "
		       "(set SBXSH_SESSION to give it a session of its own)";
	/* network = open shares this namespace, and a session directory made after a sandbox
	 * started is not hidden from it; every sandbox has a pid namespace of its own */
	if (!fdpass_peer_same_pidns(fd))
		return "refused: the peer is in another pid namespace than the session daemon (a "
		       "sandboxed command's, say)";
	return NULL;
}

static void refuse_peer(int fd, const char *why)
{
	struct ctl tmp = {.fd = fd};

	reply_text(&tmp, SESS_ERR, why);
	close(fd);
}

static void ctl_new(struct sessd *d, int fd)
{
	struct ctl *c = calloc(1, sizeof(*c));

	if (!c || !(c->buf = malloc(SESS_HDR_LEN + SESS_BODY_MAX)) ||
	    uv_poll_init(d->loop, &c->poll, fd) < 0) {
		if (c)
			free(c->buf);
		free(c);
		close(fd);
		return;
	}
	c->d = d;
	c->fd = fd;
	c->want = SESS_HDR_LEN;
	c->poll.data = c;
	c->next = ctls;
	if (ctls)
		ctls->prev = c;
	ctls = c;
	d->nctl++;
	sessd_touch(d);
	uv_poll_start(&c->poll, UV_READABLE | UV_DISCONNECT, on_ctl);
}

/* A descriptor held in reserve: out of descriptors (EMFILE), it is given up to accept and
 * close the waiting control connections, so the level-triggered poll does not spin and the
 * clients hear EOF instead of hanging. */
static int spare_fd = -1;

static void shed_ctl(int lfd)
{
	int fd;

	if (spare_fd < 0)
		return;
	close(spare_fd);
	while ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
		close(fd);
	spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void on_accept(uv_poll_t *h, int status, int events)
{
	struct sessd *d = h->data;
	int fd;

	(void)events;
	if (status < 0)
		return;
	while ((fd = accept4(d->ctl_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		const char *why = peer_refusal(fd);
		if (why)
			refuse_peer(fd, why);
		else
			ctl_new(d, fd);
	}
	if (errno == EMFILE || errno == ENFILE)
		shed_ctl(d->ctl_fd);
}

static void sessd_stop(struct sessd *d)
{
	if (d->stopping)
		return;
	d->stopping = true;
	uv_poll_stop(&d->ctl_poll);
	uv_close((uv_handle_t *)&d->ctl_poll, NULL);
	release_dir(d);
	close(d->ctl_fd);
	d->ctl_fd = -1;
	while (ctls)
		ctl_close(ctls);
	for (struct cmd *c = d->cmds, *next; c; c = next) {
		next = c->next;
		if (!c->ended)
			cmd_end(c);
	}
	uv_timer_stop(&d->idle);
	uv_close((uv_handle_t *)&d->idle, NULL);
	if (audit_sid) {
		uv_timer_stop(&audit_watch);
		uv_close((uv_handle_t *)&audit_watch, NULL);
	}
	uv_close((uv_handle_t *)&d->sigterm, NULL);
	uv_close((uv_handle_t *)&d->sighup, NULL);
}

static void on_signal(uv_signal_t *s, int sig)
{
	(void)sig;
	sessd_stop(s->data);
}

static void on_audit_watch(uv_timer_t *t)
{
	struct sessd *d = t->data;

	if (d->nctl == 0 && d->live == 0 && !proc_login_session_others(audit_sid))
		sessd_stop(d);
}

/* Watches the audit session when this daemon is its session's (audit-N, and N is ours). */
static void audit_watch_start(struct sessd *d)
{
	unsigned long sid = proc_login_session(0);
	char want[40];

	snprintf(want, sizeof(want), "audit-%lu", sid);
	if (!sid || strcmp(d->o->session, want) != 0)
		return;
	audit_sid = sid;
	uv_timer_init(d->loop, &audit_watch);
	audit_watch.data = d;
	uv_timer_start(&audit_watch, on_audit_watch, AUDIT_WATCH_MS, AUDIT_WATCH_MS);
}

/* At exit: the session directory goes too, unless another daemon already binds in it. Under
 * the clients' start lock, so no client is starting a daemon there meanwhile; a client that
 * waited for the lock finds its lock file unlinked and starts over (client.c). */
static void remove_dir(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), lk = -1;
	struct stat st;

	if (dfd < 0)
		return;
	lk = openat(dfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lk < 0)
		goto out;
	while (flock(lk, LOCK_EX) < 0)
		if (errno != EINTR)
			goto out;
	if (fstatat(dfd, "ctl.sock", &st, AT_SYMLINK_NOFOLLOW) == 0)
		goto out; /* a fresh daemon (`session stop` then `start`) lives here now */
	unlinkat(dfd, "lock", 0);
	rmdir(dir); /* fails, harmlessly, when something else is in it */
out:
	if (lk >= 0)
		close(lk);
	close(dfd);
}

/* The socket and the directory, once: the second time they may be a fresh daemon's. */
static void release_dir(struct sessd *d)
{
	static bool done;

	if (done)
		return;
	done = true;
	unlink(d->sock);
	remove_dir(d->o->dir);
}

/* Binds the control socket, replacing a stale one no daemon answers on. */
static int bind_ctl(struct sessd *d, char **why)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return sess_errf(why, -errno, "socket: %s", strerror(errno));
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", d->sock);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
		close(fd);
		return sess_errf(why, -EEXIST, "a session daemon already answers on %s", d->sock);
	}
	close(fd);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return sess_errf(why, -errno, "socket: %s", strerror(errno));
	unlink(d->sock);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 || listen(fd, 128) < 0) {
		int e = errno;
		close(fd);
		return sess_errf(why, -e, "cannot listen on %s: %s", d->sock, strerror(e));
	}
	d->ctl_fd = fd;
	return 0;
}

static void ready(const struct sessd_opts *o, const char *why)
{
	if (o->ready_fd < 0)
		return;
	if (write(o->ready_fd, why ? why : "ok", strlen(why ? why : "ok")) < 0 ||
	    write(o->ready_fd, "\n", 1) < 0) {
		/* the client is gone: it will find the socket or start another daemon */
	}
	close(o->ready_fd);
}

static int sessd_setup(struct sessd *d, char **why)
{
	int rc;

	if ((rc = sess_sock_path(d->o->dir, "ctl.sock", &d->sock, why)) < 0 ||
	    (rc = bind_ctl(d, why)) < 0)
		return rc;
	uv_poll_init(d->loop, &d->ctl_poll, d->ctl_fd);
	d->ctl_poll.data = d;
	uv_poll_start(&d->ctl_poll, UV_READABLE, on_accept);
	uv_timer_init(d->loop, &d->idle);
	d->idle.data = d;
	uv_signal_init(d->loop, &d->sigterm);
	uv_signal_init(d->loop, &d->sighup);
	d->sigterm.data = d->sighup.data = d;
	uv_signal_start(&d->sigterm, on_signal, SIGTERM);
	uv_signal_start(&d->sighup, on_signal, SIGHUP);
	d->start_ms = sessd_now_ms();
	audit_watch_start(d);
	sessd_touch(d);
	return 0;
}

/* Every proxied connection is two descriptors: take all the hard limit allows. */
static void raise_fd_limit(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

int sessd_run(const struct sessd_opts *o)
{
	struct sessd d = {.o = o, .ctl_fd = -1};
	uv_loop_t loop;
	char *why = NULL;
	int rc;

	umask(077);
	if (chdir("/") < 0) {
		/* not fatal: the daemon only holds the first command's cwd open */
	}
	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit();
	spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if ((rc = uv_loop_init(&loop)) < 0) {
		ready(o, uv_strerror(rc));
		return rc;
	}
	d.loop = &loop;
	if ((rc = sessd_setup(&d, &why)) < 0) {
		ready(o, why ? why : strerror(-rc));
		free(why);
		free(d.sock);
		uv_loop_close(&loop);
		return rc;
	}
	ready(o, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	rc = uv_loop_close(&loop);
	free(d.sock);
	return rc == UV_EBUSY ? -EBUSY : 0;
}
