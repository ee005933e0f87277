/* relay — the caller's terminal ⇄ the pty master, non-blocking, in the supervise loop.
 *
 * Rules kept here:
 * - The caller's terminal is raw while the relay runs, so ^C and ^Z are bytes for the pty's
 *   line discipline (the sandbox's foreground job), never signals to sbxsh; its modes come
 *   back on every way out (relay_close, exit, a fatal signal: platform/pty.h).
 * - Nothing blocks: both sides are non-blocking descriptions of our own; a side that is full
 *   keeps its bytes until poll says it can take more; the other direction still moves.
 * - Bytes pass unchanged in both directions.
 */
#include "shell/relay.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "platform/pty.h"

static void close_all(struct relay *r)
{
	int *fds[] = {&r->in, &r->out, &r->master, &r->slave, &r->early};

	for (size_t i = 0; i < sizeof(fds) / sizeof(*fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int relay_open(struct relay *r)
{
	int e;

	r->in = r->out = r->master = r->slave = r->early = -1;
	r->in_done = r->out_done = r->master_done = r->out_full = false;
	r->held = true;
	r->ilen = r->ioff = r->olen = r->ooff = 0;
	if ((e = sbx_pty_open(0, &r->master, &r->slave)) < 0)
		return e;
	if ((r->in = sbx_tty_reopen(0)) < 0 || (r->out = sbx_tty_reopen(1)) < 0) {
		e = r->in < 0 ? r->in : r->out;
		goto out;
	}
	/* ended lines and ^Ds typed ahead, for the shell first (held until relay_adopt) */
	long k = sbx_tty_take_lines(r->in, r->ib, sizeof(r->ib));
	r->ilen = k > 0 ? (size_t)k : 0;
	if ((e = sbx_tty_raw(0)) < 0)
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

void relay_poll(const struct relay *r, struct pollfd *p)
{
	short m = 0;

	if (!r->master_done && room(r))
		m |= POLLIN;
	if (!r->master_done && r->ilen > 0 && !r->held)
		m |= POLLOUT; /* held: ib is the next shell's (relay_renew) */
	p[0] = (struct pollfd){!r->held && !r->in_done && r->ilen == 0 ? r->in : -1, POLLIN, 0};
	p[1] = (struct pollfd){m ? r->master : -1, m, 0};
	p[2] = (struct pollfd){!r->out_done && r->olen > r->ooff ? r->out : -1, POLLOUT, 0};
	p[3] = (struct pollfd){room(r) ? r->early : -1, POLLIN, 0};
}

void relay_adopt(struct relay *r, int master)
{
	r->held = false;
	if (master < 0)
		return;
	if (r->master < 0 || sbx_pty_adopt(master) < 0) {
		close(master);
		relay_hangup(r);
		return;
	}
	r->early = r->master;
	r->master = master;
	/* ib: empty, or what was typed for the shell a profile switch ended (relay_renew) */
	sbx_pty_copy_size(0, master); /* a resize since the stage copied ours */
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
		relay_hangup(r);
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
}

void relay_winch(struct relay *r)
{
	if (r->master >= 0)
		sbx_pty_copy_size(0, r->master);
}

void relay_cont(struct relay *r)
{
	if (r->master >= 0)
		sbx_tty_raw(0);
}

void relay_hangup(struct relay *r)
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

/* Writes all of buf[*off..*len), waiting up to 1 s at a time; false when the side is gone. */
static bool give_all(struct relay *r, const char *buf, size_t *off, size_t *len)
{
	while (*len) {
		struct pollfd p = {r->out, POLLOUT, 0};
		if (!give(r->out, buf, off, len))
			return false;
		if (*len && poll(&p, 1, 1000) <= 0)
			return false;
	}
	return true;
}

void relay_say(struct relay *r, const char *text)
{
	char buf[1024];
	size_t n = 0, off = 0;

	/* first what the sandbox wrote before the call this is about (it waits for our word) */
	while (!r->out_done) {
		if (r->olen && !give_all(r, r->ob, &r->ooff, &r->olen))
			return;
		ssize_t k = r->master_done ? 0 : take(r->master, r->ob, sizeof(r->ob));
		if (k <= 0)
			break;
		r->olen = (size_t)k;
		r->ooff = 0;
	}
	if (r->out_done)
		return;
	r->out_full = false; /* ob went out whole */
	for (; *text; text++) {
		if (*text == '\n')
			buf[n++] = '\r';
		buf[n++] = *text;
		if (n >= sizeof(buf) - 2 && !give_all(r, buf, &off, &n))
			return;
	}
	give_all(r, buf, &off, &n);
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

	/* the modes and size of the pty the shell leaves (a master answers for its pty) */
	if ((e = sbx_pty_open(r->master, &m, &s)) < 0)
		return e;
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
	return 0;
}

void relay_close(struct relay *r)
{
	if (r->master < 0 && r->in < 0)
		return;
	bool early_done = false;

	if (r->early >= 0)
		drain(r, r->early, &early_done); /* what was said first */
	if (r->master >= 0)
		drain(r, r->master, &r->master_done);
	sbx_tty_restore();
	close_all(r);
}
