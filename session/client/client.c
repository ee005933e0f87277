/* client — find or start the session daemon and talk to it.
 *
 * Rules kept here:
 * - the daemon is run by absolute path (SBX_LIBEXECDIR), with an empty environment and
 *   every descriptor closed but the readiness pipe, so nothing of the first command leaks
 *   into the long-lived daemon;
 * - readiness comes through a pipe, never by polling; one flock on <dir>/lock makes two
 *   first commands start one daemon;
 * - the daemon must run as our uid (SO_PEERCRED), though its directory is already private;
 * - no libuv, no OpenSSL: this is linked into the per-command front end.
 */
#include "platform/fdpass.h"
#include "platform/fds.h"
#include "session/client/client.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "paths.h"
#include "session/errf.h"
#include "session/ident.h"
#include "session/wire.h"

#define SESSIOND SBX_LIBEXECDIR "/sbxsh-sessiond"

struct sess_conn {
	int fd;
	char id[SESS_ID_MAX + 1];
	char *dir, *sock;
	unsigned idle_exit, conn_max;
	bool syslog;
	char *log;
};

/* $SBXSH_PROXY_CONN_MAX, the per-command limit a daemon this front end starts enforces. */
static int conn_max_env(unsigned *out, char **err)
{
	const char *v = getenv(SESS_CONN_MAX_ENV);
	char *end;
	long n;

	*out = SESS_CONN_MAX;
	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < 1 || n > SESS_CONN_MAX_MAX)
		return sess_errf(err, -EINVAL,
				 SESS_CONN_MAX_ENV "='%.40s' is not a number of connections: use 1 "
						   "to %d (or unset it for %d)",
				 v, SESS_CONN_MAX_MAX, SESS_CONN_MAX);
	*out = (unsigned)n;
	return 0;
}

static int try_connect(const char *path, int *out)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	uid_t uid;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (fdpass_peer_cred(fd, &uid, NULL) < 0 || uid != getuid()) {
		close(fd);
		return -EPERM;
	}
	/* The daemon is this front end's (or an earlier one's) child: in our pid namespace. A
	 * process in another is a sandboxed command's, serving where the daemon would be (a
	 * session directory made after that sandbox started is not hidden from it, and tmp =
	 * shared lets it make /tmp/sbxsh-UID): it gets nothing, neither the command's lists nor
	 * its fronts, and its word on the refusals is never taken. */
	if (!fdpass_peer_same_pidns(fd)) {
		close(fd);
		return -EXDEV;
	}
	*out = fd;
	return 0;
}

/* The grandchild: becomes the daemon. Only async-signal-safe calls from here on. */
static _Noreturn void exec_daemon(int ready, char *const *argv)
{
	static char *const envp[] = {NULL};
	sigset_t none;
	int null = open("/dev/null", O_RDWR);

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	if (ready != 3) {
		dup2(ready, 3);
		ready = 3;
	} else {
		fcntl(3, F_SETFD, 0);
	}
	sbx_close_from(4);
	execve(SESSIOND, argv, envp);
	{
		static const char msg[] = "cannot run " SESSIOND ": ";
		const char *e = strerror(errno);
		if (write(3, msg, sizeof(msg) - 1) < 0 || write(3, e, strlen(e)) < 0)
			_exit(127);
	}
	_exit(127);
}

/* Reads the daemon's readiness line: "ok" or its reason. */
static int await_ready(int rd, char **err)
{
	char buf[512];
	size_t n = 0;
	ssize_t r;

	while (n < sizeof(buf) - 1 && (r = read(rd, buf + n, sizeof(buf) - 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return sess_errf(err, -errno, "session daemon: %s", strerror(errno));
		n += (size_t)r;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (strcmp(buf, "ok") == 0)
		return 0;
	return sess_errf(err, -ECHILD, "the session daemon did not start: %s",
			 n ? buf : "it exited without a word");
}

static int spawn_daemon(struct sess_conn *c, char **err)
{
	char idle[16], cmax[16],
	    *argv[] = {"sbxsh-sessiond",
		       "--dir",
		       c->dir,
		       "--session",
		       c->id,
		       "--idle-exit",
		       idle,
		       "--log",
		       c->log,
		       "--syslog",
		       c->syslog ? "1" : "0",
		       "--ready-fd",
		       "3",
		       "--conn-max",
		       cmax,
		       NULL};
	int p[2], st, rc;
	pid_t pid;

	snprintf(idle, sizeof(idle), "%u", c->idle_exit);
	snprintf(cmax, sizeof(cmax), "%u", c->conn_max);
	if (pipe2(p, O_CLOEXEC) < 0)
		return sess_errf(err, -errno, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		setsid();
		if (fork() != 0)
			_exit(0);
		exec_daemon(p[1], argv);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return sess_errf(err, -errno, "fork: %s", strerror(errno));
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	rc = await_ready(p[0], err);
	close(p[0]);
	return rc;
}

static int lock_dir(const char *dir, char **err)
{
	struct stat st;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == ENOENT)
		return -EAGAIN; /* an exiting daemon removed the directory: make it again */
	if (fd < 0)
		return sess_errf(err, -errno, "%s: %s", path, strerror(errno));
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			int e = errno;
			close(fd);
			return sess_errf(err, -e, "lock %s: %s", path, strerror(e));
		}
	}
	if (fstat(fd, &st) == 0 && st.st_nlink == 0) {
		close(fd); /* the exiting daemon unlinked it while we waited */
		return -EAGAIN;
	}
	return fd;
}

/* Takes the start lock, making the directory again as often as exiting daemons remove it. */
static int lock_session(struct sess_conn *c, char **err)
{
	for (int tries = 0;; tries++) {
		char *dir = NULL;
		int rc = lock_dir(c->dir, err);
		if (rc != -EAGAIN)
			return rc;
		if (tries == 8)
			return sess_errf(err, -EAGAIN, "%s keeps disappearing", c->dir);
		if ((rc = sess_dir(c->id, &dir, err)) < 0)
			return rc;
		free(dir);
	}
}

static int connect_error(const struct sess_conn *c, int rc, char **err)
{
	if (rc == -EPERM)
		return sess_errf(err, rc, "%s is served by another user's process: remove it",
				 c->sock);
	if (rc == -EXDEV)
		return sess_errf(err, rc,
				 "%s is served by a process in another pid namespace (a sandboxed "
				 "command's, say), not the session daemon; nothing was sent to it: "
				 "end that command, or remove the socket",
				 c->sock);
	return sess_errf(err, rc, "cannot reach the session daemon at %s: %s", c->sock,
			 strerror(-rc));
}

/* Connects to the daemon, starting one under the lock when none answers. */
static int reach_daemon(struct sess_conn *c, int start, char **err)
{
	int rc = try_connect(c->sock, &c->fd), lk;

	if (rc == 0)
		return 0;
	if (rc != -ENOENT && rc != -ECONNREFUSED)
		return connect_error(c, rc, err);
	if (!start)
		return -ENOENT;
	if ((lk = lock_session(c, err)) < 0)
		return lk;
	rc = try_connect(c->sock, &c->fd);
	if (rc == -ENOENT || rc == -ECONNREFUSED) {
		rc = spawn_daemon(c, err);
		if (rc < 0) {
			close(lk);
			return rc;
		}
		rc = try_connect(c->sock, &c->fd);
	}
	close(lk);
	return rc < 0 ? connect_error(c, rc, err) : 0;
}

static char *default_log(void)
{
	const char *st = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *p = NULL;

	if (st && st[0] == '/')
		return asprintf(&p, "%s/sbxsh/violations.jsonl", st) < 0 ? NULL : p;
	if (home && home[0] == '/')
		return asprintf(&p, "%s/.local/state/sbxsh/violations.jsonl", home) < 0 ? NULL : p;
	return strdup("/dev/null");
}

static int conn_new(const struct sess_daemon_opts *s, struct sess_conn **out, char **err)
{
	struct sess_conn *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return sess_errf(err, -ENOMEM, "out of memory");
	c->fd = -1;
	c->idle_exit = s ? s->idle_exit : 300;
	c->syslog = s ? s->syslog : false;
	c->log = s && s->log ? strdup(s->log) : default_log();
	if (!c->log) {
		rc = sess_errf(err, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = conn_max_env(&c->conn_max, err)) < 0 || (rc = sess_id(c->id, err)) < 0 ||
	    (rc = sess_dir(c->id, &c->dir, err)) < 0 ||
	    (rc = sess_sock_path(c->dir, "ctl.sock", &c->sock, err)) < 0)
		goto out;
	*out = c;
	return 0;
out:
	sess_close(c);
	return rc;
}

int sess_connect(const struct sess_daemon_opts *s, struct sess_conn **out, char **err)
{
	struct sess_conn *c = NULL;
	int rc;

	*out = NULL;
	if ((rc = conn_new(s, &c, err)) < 0)
		return rc;
	if ((rc = reach_daemon(c, 1, err)) < 0) {
		sess_close(c);
		return rc;
	}
	*out = c;
	return 0;
}

int sess_connect_existing(struct sess_conn **out, char **err)
{
	struct sess_conn *c = NULL;
	int rc;

	*out = NULL;
	if ((rc = conn_new(NULL, &c, err)) < 0)
		return rc;
	if ((rc = reach_daemon(c, 0, err)) < 0) {
		if (rc == -ENOENT)
			rmdir(c->dir); /* made just now by conn_new; kept if anything is in it */
		sess_close(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* One request and its reply. -ECONNRESET when the daemon went away before answering. */
static int exchange(struct sess_conn *c, const struct sess_msg *m, const int *fds, size_t nfds,
		    uint8_t *rbuf, struct sess_msg *reply, char **err)
{
	struct buf b = {0};
	int rfds[SESS_FDS_MAX];
	size_t nr = 0;
	long n;
	int rc = sess_encode(m, &b);

	if (rc < 0) {
		buf_free(&b);
		return sess_errf(err, rc, "session message: %s", strerror(-rc));
	}
	rc = sess_send(c->fd, b.p, b.n, fds, nfds);
	buf_free(&b);
	if (rc == -EPIPE || rc == -ECONNRESET)
		return -ECONNRESET;
	if (rc < 0)
		return sess_errf(err, rc, "session daemon: %s", strerror(-rc));
	n = sess_recv(c->fd, rbuf, rfds, &nr);
	sess_close_fds(rfds, nr);
	if (n == 0 || n == -ECONNRESET)
		return -ECONNRESET;
	if (n < 0 || sess_decode(rbuf, (size_t)n, reply) < 0)
		return sess_errf(err, -EPROTO,
				 "the session daemon answered something unreadable: "
				 "run `sbxsh session stop`");
	if (reply->type == SESS_ERR)
		return sess_errf(err, -EPERM, "%.*s", (int)reply->text.n,
				 reply->text.p ? reply->text.p : "");
	return 0;
}

/* exchange(), and once more with a fresh daemon if this one vanished meanwhile. */
static int request(struct sess_conn *c, const struct sess_msg *m, const int *fds, size_t nfds,
		   struct sess_msg *reply, char **err)
{
	static uint8_t rbuf[SESS_HDR_LEN + SESS_BODY_MAX];
	int rc = exchange(c, m, fds, nfds, rbuf, reply, err);

	if (rc != -ECONNRESET)
		return rc;
	if (m->type != SESS_BEGIN)
		return sess_errf(err, rc, "the session daemon at %s closed the connection",
				 c->sock);
	close(c->fd);
	c->fd = -1;
	if ((rc = reach_daemon(c, 1, err)) < 0)
		return rc;
	rc = exchange(c, m, fds, nfds, rbuf, reply, err);
	if (rc == -ECONNRESET)
		return sess_errf(err, rc, "the session daemon at %s closed the connection",
				 c->sock);
	return rc;
}

static void fill_begin(struct sess_msg *m, const struct sess_command *cmd, char *idbuf)
{
	struct timespec ts;

	m->type = SESS_BEGIN;
	if (!cmd->id) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(idbuf, 64, "%ld-%lld", (long)getpid(),
			 (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	}
	m->cmd_id = sess_s(cmd->id ? cmd->id : idbuf);
	m->cmdline = sess_s(cmd->cmdline);
	if (m->cmdline.n > SESS_CMDLINE_MAX)
		m->cmdline.n = SESS_CMDLINE_MAX;
	m->cwd = sess_s(cmd->cwd);
	m->profile = sess_s(cmd->profile);
	m->profile_file = sess_s(cmd->profile_file);
	for (size_t i = 0; i < cmd->nallow && i < SESS_LIST_MAX; i++)
		m->allow[m->nallow++] = sess_s(cmd->allow[i]);
	for (size_t i = 0; i < cmd->ndeny && i < SESS_LIST_MAX; i++)
		m->deny[m->ndeny++] = sess_s(cmd->deny[i]);
	m->nreach = cmd->nreach < SESS_PORTS_MAX ? cmd->nreach : SESS_PORTS_MAX;
	memcpy(m->reach, cmd->reach, m->nreach * sizeof(uint16_t));
	m->nlisten = cmd->nlisten < SESS_PORTS_MAX ? cmd->nlisten : SESS_PORTS_MAX;
	memcpy(m->listen, cmd->listen, m->nlisten * sizeof(uint16_t));
}

int sess_begin(struct sess_conn *c, const struct sess_command *cmd, const struct sess_fd *fds,
	       size_t nfds, char **err)
{
	struct sess_msg *m = calloc(2, sizeof(*m));
	int raw[SESS_FDS_MAX], rc;
	char idbuf[64];

	if (!m)
		return sess_errf(err, -ENOMEM, "out of memory");
	if (nfds > SESS_FDS_MAX) {
		rc = sess_errf(err, -E2BIG, "%zu descriptors for one command (at most %d)", nfds,
			       SESS_FDS_MAX);
		goto out;
	}
	fill_begin(m, cmd, idbuf);
	for (size_t i = 0; i < nfds; i++) {
		raw[i] = fds[i].fd;
		m->fds[i].role = (uint8_t)fds[i].role;
		m->fds[i].port = fds[i].port;
	}
	m->nfds = nfds;
	rc = request(c, m, raw, nfds, m + 1, err);
out:
	free(m);
	return rc;
}

static int simple(struct sess_conn *c, uint8_t type, struct sess_msg *reply, char **err)
{
	struct sess_msg *m = calloc(1, sizeof(*m));
	int rc;

	if (!m)
		return sess_errf(err, -ENOMEM, "out of memory");
	m->type = type;
	rc = request(c, m, NULL, 0, reply, err);
	free(m);
	return rc;
}

static void copy_text(char *dst, size_t cap, struct sess_str s)
{
	snprintf(dst, cap, "%.*s", (int)(s.n < cap ? s.n : cap - 1), s.p ? s.p : "");
}

int sess_end(struct sess_conn *c, struct sess_refusals *out, char **err)
{
	struct sess_msg *r = malloc(sizeof(*r));
	int rc;

	if (out)
		out->n = out->more = out->nnotes = 0;
	if (!r)
		return sess_errf(err, -ENOMEM, "out of memory");
	rc = simple(c, SESS_END, r, err);
	for (size_t i = 0; rc == 0 && out && i < r->nnotes; i++) {
		struct sess_net_refusal *o = &out->notes[out->nnotes++];
		copy_text(o->host, sizeof(o->host), r->notes[i].host);
		copy_text(o->reason, sizeof(o->reason), r->notes[i].reason);
		o->grant[0] = '\0';
		o->port = r->notes[i].port;
	}
	for (size_t i = 0; rc == 0 && out && i < r->nrefusals; i++) {
		struct sess_net_refusal *o = &out->v[out->n++];
		copy_text(o->host, sizeof(o->host), r->refusals[i].host);
		copy_text(o->reason, sizeof(o->reason), r->refusals[i].reason);
		copy_text(o->grant, sizeof(o->grant), r->refusals[i].grant);
		o->port = r->refusals[i].port;
	}
	if (rc == 0 && out)
		out->more = r->refusals_more;
	free(r);
	return rc;
}

int sess_status(struct sess_conn *c, struct sess_status *st, char **err)
{
	struct sess_msg *r = malloc(sizeof(*r));
	int rc;

	if (!r)
		return sess_errf(err, -ENOMEM, "out of memory");
	rc = simple(c, SESS_STATUS, r, err);
	if (rc == 0 && r->type != SESS_STATUS_REPLY)
		rc = sess_errf(err, -EPROTO, "the session daemon did not answer with its status");
	for (int i = 0; rc == 0 && i < SC_N; i++)
		st->v[i] = r->counter[i];
	free(r);
	return rc;
}

int sess_stop(struct sess_conn *c, char **err)
{
	struct sess_msg *r = malloc(sizeof(*r));
	int rc;

	if (!r)
		return sess_errf(err, -ENOMEM, "out of memory");
	rc = simple(c, SESS_STOP, r, err);
	free(r);
	return rc;
}

const char *sess_conn_dir(const struct sess_conn *c)
{
	return c->dir;
}

const char *sess_conn_id(const struct sess_conn *c)
{
	return c->id;
}

void sess_close(struct sess_conn *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->dir);
	free(c->sock);
	free(c->log);
	free(c);
}
