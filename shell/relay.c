/* relay — the caller's terminal ⇄ the pty master, non-blocking, in the supervise loop.
 *
 * Rules kept here:
 * - The caller's terminal is raw while the relay runs, so ^C and ^Z are bytes for the pty's
 *   line discipline (the sandbox's foreground job), never signals to sbxsh; its modes come
 *   back on every way out (relay_close, exit, a fatal signal: platform/pty.h).
 * - Nothing blocks: both sides are non-blocking descriptions of our own; a side that is full
 *   keeps its bytes until poll says it can take more; the other direction still moves.
 * - Bytes pass unchanged in both directions.
 * - sbxsh's own lines keep their place: a violation (relay_tell, on the monitor's thread while
 *   the call waits) goes into ob behind everything the sandbox wrote before the call, so
 *   whatever the sandbox writes after it (the next prompt) comes after it. Two threads touch
 *   the relay: every exported function holds r->lock.
 */
#include "shell/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "platform/pty.h"

static void close_all(struct relay *r)
{
	int *fds[] = {&r->in, &r->out, &r->master, &r->slave, &r->early, &r->wake[0], &r->wake[1]};

	for (size_t i = 0; i < sizeof(fds) / sizeof(*fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

static void lock(struct relay *r)
{
	pthread_mutex_lock(&r->lock);
}

static void unlock(struct relay *r)
{
	pthread_mutex_unlock(&r->lock);
}

static int wait_terminal(struct relay *r, int ms);

/* The wake-up pipe, both ends non-blocking and close-on-exec. */
static int wake_pipe(int *w)
{
	if (pipe(w) < 0)
		return -errno;
	for (int i = 0; i < 2; i++)
		if (fcntl(w[i], F_SETFD, FD_CLOEXEC) < 0 || fcntl(w[i], F_SETFL, O_NONBLOCK) < 0)
			return -errno;
	return 0;
}

/* Our process group is the terminal's foreground, or the terminal is no longer our
 * controlling terminal (hung up: read to its end). The relay starts only on our controlling
 * terminal (shell.c relay_wanted): from another session the foreground cannot be known. */
static bool foreground(int fd)
{
	pid_t pg = tcgetpgrp(fd);

	return pg < 0 || pg == getpgrp();
}

int relay_open(struct relay *r)
{
	int e;

	if (!r->lock_ready && (e = pthread_mutex_init(&r->lock, NULL)))
		return -e;
	r->lock_ready = true;
	r->in = r->out = r->master = r->slave = r->early = r->wake[0] = r->wake[1] = -1;
	r->in_done = r->out_done = r->master_done = r->out_full = false;
	r->held = true;
	r->ilen = r->ioff = r->olen = r->ooff = 0;
	if ((e = wake_pipe(r->wake)) < 0 || (e = sbx_pty_open(0, &r->master, &r->slave)) < 0) {
		close_all(r);
		return e;
	}
	if ((r->in = sbx_tty_reopen(0)) < 0 || (r->out = sbx_tty_reopen(1)) < 0) {
		e = r->in < 0 ? r->in : r->out;
		goto out;
	}
	/* From the background the terminal stays as it is and is not read (a read would stop us
	 * with SIGTTIN, raw mode with SIGTTOU): what the user types belongs to the foreground
	 * job. fg (a SIGCONT, relay_cont) gives it to us. In the foreground: ended lines and
	 * ^Ds typed ahead, for the shell first (held until relay_adopt), then raw mode. */
	if ((r->fg = foreground(r->in))) {
		long k = sbx_tty_take_lines(r->in, r->ib, sizeof(r->ib));
		r->ilen = k > 0 ? (size_t)k : 0;
	}
	if (r->fg && (e = sbx_tty_raw(0)) < 0)
		goto out;
	return 0;
out:
	sbx_tty_restore(); /* the flags of a shared descriptor, too */
	close_all(r);
	return e;
}

/* ob holds ob[ooff..olen) for the terminal; a read goes on at olen while a pty's read (at
 * most its line discipline's 4 KiB) still fits, the front moved down when it would not. */
#define RELAY_READ 4096
static bool room(const struct relay *r)
{
	return sizeof(r->ob) - (r->olen - r->ooff) >= RELAY_READ;
}

void relay_poll(struct relay *r, struct pollfd *p)
{
	short m = 0;

	lock(r);
	if (!r->master_done && room(r))
		m |= POLLIN;
	if (!r->master_done && r->ilen > 0 && !r->held)
		m |= POLLOUT; /* held: ib is the next shell's (relay_renew) */
	p[0] = (struct pollfd){r->fg && !r->held && !r->in_done && r->ilen == 0 ? r->in : -1,
			       POLLIN, 0};
	p[1] = (struct pollfd){m ? r->master : -1, m, 0};
	p[2] = (struct pollfd){!r->out_done && r->olen > r->ooff ? r->out : -1, POLLOUT, 0};
	p[3] = (struct pollfd){room(r) ? r->early : -1, POLLIN, 0};
	p[4] = (struct pollfd){r->wake[0], POLLIN, 0};
	unlock(r);
}

static void hangup(struct relay *r);

void relay_adopt(struct relay *r, int master)
{
	lock(r);
	r->held = false;
	if (master < 0)
		goto out;
	if (r->master < 0 || sbx_pty_adopt(master) < 0) {
		close(master);
		hangup(r);
		goto out;
	}
	r->early = r->master;
	r->master = master;
	/* ib: empty, or what was typed for the shell a profile switch ended (relay_renew) */
	sbx_pty_copy_size(0, master); /* a resize since the stage copied ours */
out:
	unlock(r);
}

/* Reads into buf; returns the count, 0 at end (or error: that side is done), -1 not now. */
static ssize_t take(int fd, char *buf, size_t n)
{
	ssize_t k = read(fd, buf, n);

	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return -1;
	return k < 0 ? 0 : k;
}

/* Writes buf[*off..*len); returns false when the side is gone (the bytes are dropped). A
 * short write means the side is full: the rest waits for poll (another write now would only
 * say EAGAIN). */
static bool give(int fd, const char *buf, size_t *off, size_t *len)
{
	while (*off < *len) {
		ssize_t k = write(fd, buf + *off, *len - *off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			return true;
		if (k <= 0) {
			*off = *len = 0;
			return false;
		}
		*off += (size_t)k;
		if (*off < *len)
			return true;
	}
	*off = *len = 0;
	return true;
}

/* ob to the terminal; out_full says it took only part (the rest waits for POLLOUT). */
static void to_terminal(struct relay *r)
{
	if (!give(r->out, r->ob, &r->ooff, &r->olen))
		r->out_done = true;
	r->out_full = r->olen != 0;
}

/* Adds what fd (a master) has to ob, several reads (a pty gives at most 4 KiB a read), while
 * the terminal may still be taking the earlier part: the sandbox's writes go on while the
 * terminal is full, and the terminal gets one large write instead of many small ones. Then
 * writes what the terminal takes. Returns true when the reads stopped only for want of room
 * and the terminal took everything (more is likely queued: read again before the next poll). */
static bool from_master(struct relay *r, int fd, bool *done)
{
	ssize_t k = 0;

	if (sizeof(r->ob) - r->olen < RELAY_READ && r->ooff) {
		memmove(r->ob, r->ob + r->ooff, r->olen - r->ooff);
		r->olen -= r->ooff;
		r->ooff = 0;
	}
	/* until EAGAIN: the kernel's worker refills the line discipline's 4 KiB while we read
	 * (a failed read costs less than the poll a short read would otherwise end in) */
	while (sizeof(r->ob) - r->olen >= RELAY_READ &&
	       (k = take(fd, r->ob + r->olen, sizeof(r->ob) - r->olen)) > 0)
		r->olen += (size_t)k;
	if (k == 0) /* EIO: every slave is closed */
		*done = true;
	if (r->olen == r->ooff)
		return false;
	bool full = k > 0 && !*done;
	if (r->out_done)
		r->olen = r->ooff = 0; /* nobody to show it to: keep the sandbox's writes moving */
	else if (!r->out_full)
		to_terminal(r);
	return full && r->olen == 0 && !r->out_done;
}

static void from_terminal(struct relay *r)
{
	ssize_t k = take(r->in, r->ib, sizeof(r->ib));

	if (k == 0) {
		/* The terminal hung up: so does the pty (SIGHUP for the sandbox's session). */
		r->in_done = true;
		hangup(r);
		return;
	}
	if (k < 0)
		return;
	r->ilen = (size_t)k;
	r->ioff = 0;
	if (!r->master_done && !give(r->master, r->ib, &r->ioff, &r->ilen))
		r->master_done = true;
}

void relay_ready(struct relay *r, const struct pollfd *p)
{
	char w[64];

	lock(r);
	if (p[4].revents & POLLIN)
		while (read(r->wake[0], w, sizeof(w)) > 0)
			;
	if (p[2].revents & POLLOUT)
		to_terminal(r);
	else if (p[2].revents & (POLLERR | POLLHUP | POLLNVAL))
		r->out_done = true, r->olen = r->ooff = 0;
	if (p[1].revents & POLLOUT && !give(r->master, r->ib, &r->ioff, &r->ilen))
		r->master_done = true;
	/* while the terminal takes everything at once, go on reading without a poll between */
	if (p[1].revents & (POLLIN | POLLHUP | POLLERR) && room(r))
		for (int i = 0; i < 16 && from_master(r, r->master, &r->master_done); i++)
			;
	if (p[3].revents & (POLLIN | POLLHUP | POLLERR) && room(r)) {
		bool gone = false;
		from_master(r, r->early, &gone);
		if (gone || (p[3].revents & POLLNVAL)) {
			close(r->early);
			r->early = -1;
		}
	}
	if (p[0].revents & (POLLIN | POLLHUP | POLLERR) && r->ilen == 0)
		from_terminal(r);
	unlock(r);
}

void relay_winch(struct relay *r)
{
	lock(r);
	if (r->master >= 0)
		sbx_pty_copy_size(0, r->master);
	unlock(r);
}

/* SIGCONT: `fg` made us the foreground (raw mode, the terminal read), or `bg` left us in
 * the background (neither). */
void relay_cont(struct relay *r)
{
	lock(r);
	if (r->master >= 0 && (r->fg = foreground(r->in)))
		sbx_tty_raw(0);
	unlock(r);
}

void relay_pause(struct relay *r)
{
	lock(r);
	while (r->olen > r->ooff && !r->out_done) {
		to_terminal(r);
		if (r->out_full && wait_terminal(r, 1000) <= 0)
			break;
	}
	sbx_tty_pause();
	unlock(r);
}

void relay_resume(struct relay *r)
{
	lock(r);
	/* a terminal that cannot be ours again: the session ends, as on a hang-up */
	if (r->in >= 0 && sbx_tty_resume(0) < 0)
		hangup(r);
	r->fg = r->in >= 0 && foreground(r->in);
	if (r->master >= 0)
		sbx_pty_copy_size(0, r->master); /* the size it may have now */
	unlock(r);
}

static void hangup(struct relay *r)
{
	if (r->early >= 0)
		close(r->early);
	r->early = -1;
	if (r->master >= 0)
		close(r->master);
	r->master = -1;
	r->master_done = true;
	r->ilen = r->ioff = 0;
}

void relay_hangup(struct relay *r)
{
	lock(r);
	hangup(r);
	unlock(r);
}

/* Moves ob's front down so its free space is in one piece at its end. */
static void compact(struct relay *r)
{
	if (r->ooff) {
		memmove(r->ob, r->ob + r->ooff, r->olen - r->ooff);
		r->olen -= r->ooff;
		r->ooff = 0;
	}
}

/* What the sandbox wrote so far, from the master into ob while it fits (a read that finds
 * nothing has waited for the pty's own buffer to reach the master: what was written before is
 * all read). Returns true when nothing more is queued there. */
static bool pull(struct relay *r)
{
	ssize_t k;

	compact(r);
	while (!r->master_done && sizeof(r->ob) - r->olen >= RELAY_READ)
		if ((k = take(r->master, r->ob + r->olen, sizeof(r->ob) - r->olen)) > 0)
			r->olen += (size_t)k;
		else
			return true; /* EAGAIN, or EIO: no slave left (the loop finds out) */
	return r->master_done;
}

/* Queues text behind all the sandbox wrote before it, '\n' as "\r\n"; false when ob has no
 * room for it yet (the terminal must take some first). Called locked. */
static bool queue_text(struct relay *r, const char *text)
{
	size_t need = 0;

	for (const char *t = text; *t; t++)
		need += 1 + (*t == '\n');
	if (!pull(r) || sizeof(r->ob) - r->olen < need)
		return r->out_done && (r->olen = r->ooff = 0, true); /* nobody to show it to */
	for (; *text; text++) {
		if (*text == '\n')
			r->ob[r->olen++] = '\r';
		r->ob[r->olen++] = *text;
	}
	return true;
}

/* Waits (unlocked) up to ms for the terminal to take more: 1 it may, 0 not yet, -1 it is gone. */
static int wait_terminal(struct relay *r, int ms)
{
	struct pollfd p = {r->out, POLLOUT, 0};
	int n;

	unlock(r);
	n = poll(&p, 1, ms);
	lock(r);
	if (r->out < 0 || (n > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL))))
		r->out_done = true;
	return r->out_done ? -1 : n > 0;
}

/* Longer lines than this are cut (a violation's line is at most ~8 KiB). */
#define RELAY_SAY_MAX (sizeof(((struct relay *)0)->ob) / 4)

/* text, or its first n - 2 bytes and a newline in buf (queue_text needs room for it whole). */
static const char *bounded(const char *text, char *buf, size_t n)
{
	if (strlen(text) < n)
		return text;
	snprintf(buf, n, "%.*s\n", (int)(n - 2), text);
	return buf;
}

void relay_say(struct relay *r, const char *text)
{
	char buf[RELAY_SAY_MAX];

	text = bounded(text, buf, sizeof(buf));
	lock(r);
	if (r->out < 0) {
		unlock(r);
		fputs(text, stderr);
		return;
	}
	while (!queue_text(r, text)) {
		to_terminal(r);
		if (r->out_full && wait_terminal(r, 1000) <= 0)
			break; /* a terminal that takes nothing for 1 s: the line is dropped */
	}
	/* out now; a terminal that takes nothing for 1 s gets the rest from the loop */
	while (r->olen > r->ooff && !r->out_done) {
		to_terminal(r);
		if (r->out_full && wait_terminal(r, 1000) <= 0)
			break;
	}
	unlock(r);
}

void relay_tell(struct relay *r, const char *text)
{
	char buf[RELAY_SAY_MAX];

	text = bounded(text, buf, sizeof(buf));
	if (r->lock_ready)
		lock(r);
	if (!r->lock_ready || r->out < 0) {
		if (r->lock_ready)
			unlock(r);
		fputs(text, stderr);
		fflush(stderr);
		return;
	}
	/* room, while the terminal takes ob's front (the call waits, as a write to a full
	 * terminal would) */
	while (!queue_text(r, text)) {
		to_terminal(r);
		if (r->out_full && wait_terminal(r, -1) < 0)
			break;
	}
	if (r->olen > r->ooff && !r->out_full && !r->out_done)
		to_terminal(r);
	if (r->olen > r->ooff && r->wake[1] >= 0) /* the loop polls for the rest */
		(void)!write(r->wake[1], "w", 1);
	unlock(r);
}

/* The last output: what is queued on fd, the terminal given up to 1 s per write. */
static void drain(struct relay *r, int fd, bool *done)
{
	while (!*done && !r->out_done) {
		if (r->olen == 0) {
			ssize_t k = take(fd, r->ob, sizeof(r->ob));
			if (k <= 0)
				break; /* EIO: no slave left; EAGAIN: nothing more queued */
			r->olen = (size_t)k;
			r->ooff = 0;
		}
		struct pollfd p = {r->out, POLLOUT, 0};
		if (!give(r->out, r->ob, &r->ooff, &r->olen) || (r->olen && poll(&p, 1, 1000) <= 0))
			break;
	}
}

int relay_renew(struct relay *r)
{
	int m, s, e;

	lock(r);
	/* the modes and size of the pty the shell leaves (a master answers for its pty) */
	if ((e = sbx_pty_open(r->master, &m, &s)) < 0) {
		unlock(r);
		return e;
	}
	if (r->master >= 0) {
		/* What was typed ahead (after the `cd`, while the shell was not reading) waits in
		 * that pty's input: it goes to the next shell, before what ib still held. */
		char q[sizeof(r->ib)];
		long k = sbx_pty_take_input(r->master, q, sizeof(q));
		size_t rest = r->ilen - r->ioff;
		if (k > 0) {
			if (rest > sizeof(r->ib) - (size_t)k)
				rest = sizeof(r->ib) - (size_t)k;
			memmove(r->ib + k, r->ib + r->ioff, rest);
			memcpy(r->ib, q, (size_t)k);
			r->ioff = 0;
			r->ilen = (size_t)k + rest;
		}
		drain(r, r->master, &r->master_done); /* its last words first */
	}
	if (r->early >= 0)
		close(r->early);
	if (r->master >= 0)
		close(r->master);
	if (r->slave >= 0)
		close(r->slave);
	r->early = -1;
	r->master = m;
	r->slave = s;
	r->master_done = false;
	r->held = true; /* what is typed waits for the next shell's pty (relay_adopt) */
	unlock(r);
	return 0;
}

void relay_close(struct relay *r)
{
	bool early_done = false;

	if (!r->lock_ready)
		return;
	lock(r);
	if (r->master < 0 && r->in < 0) {
		unlock(r);
		return;
	}
	if (r->early >= 0)
		drain(r, r->early, &early_done); /* what was said first */
	if (r->master >= 0)
		drain(r, r->master, &r->master_done);
	sbx_tty_restore();
	close_all(r);
	unlock(r);
}
