/* splice — the relay's fast path: once a tunnel is judged and nothing is queued either way,
 * bytes move socket -> pipe -> socket with splice(2), never through the daemon's memory.
 *
 * Rules kept here: it starts only when both write queues are empty (so no byte overtakes
 * one queued before); it keeps the relay's half-close (an end of stream one way shuts the
 * other socket's write side once the pipe drained); a pipe holds at most its capacity, so a
 * slow reader stops the other side's reads (backpressure); any error closes the connection.
 *
 * Wake-ups: both sockets sit in an epoll set (platform/evset.h) of the connection's own,
 * edge-triggered and registered once; libuv polls that set. Every wake-up moves what it can both
 * ways until each way waits on a socket (EAGAIN, so its next edge will come) or on its end of
 * stream; a socket that reported no input edge since its last EAGAIN is not read (an npm
 * install's keep-alive requests made 60% of the splices EAGAIN), and each read is passed on
 * before the next (bench/RESULTS.md, "Agents" notes). Level-triggered libuv polls of the sockets
 * had to be re-armed as pipes filled and drained: uv_poll_start is an epoll_ctl DEL + ADD, a fifth
 * of the relay's CPU. The set is private, so libuv, which no longer watches the sockets once their
 * reads stopped, never clashes.
 *
 * A leg whose peer is a loopback address (always the client's: the sandbox's 127.0.0.1
 * listeners; the upstream's for a local service) is switched to reno congestion control:
 * nothing to pace or share there, and under BBR (a common default) the relay's sends were
 * paced at a rate BBR estimated from its bursts, ~1.7 GiB/s here, with a timer per burst:
 * reno took the tunnel from ~1.3 to ~1.8 GiB/s and the daemon's CPU per GiB from ~410 to
 * ~240 ms (bench/RESULTS.md). Every user may pick reno. Other legs keep the system's choice.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "platform/evset.h"
#include "platform/kpipe.h"
#include "session/daemon/conn.h"

#define PIPE_WANT (1024 * 1024)

struct way {
	int pipe[2];
	size_t held, cap;
	bool eof, shut;
	bool ready; /* its source may hold input: an input edge came since its last EAGAIN */
};

struct spl {
	struct pconn *p;
	uv_poll_t poll;	   /* on ep */
	int ep;		   /* epoll set: the client (data 0) and the upstream (data 1) socket */
	int fd[2];	   /* the handles' own descriptors: 0 client, 1 upstream */
	struct way way[2]; /* 0: client -> upstream, 1: upstream -> client */
};

static void spl_free(struct spl *s)
{
	for (int i = 0; i < 2; i++) {
		if (s->way[i].pipe[0] >= 0)
			close(s->way[i].pipe[0]);
		if (s->way[i].pipe[1] >= 0)
			close(s->way[i].pipe[1]);
	}
	if (s->ep >= 0)
		close(s->ep);
	free(s);
}

static void poll_closed(uv_handle_t *h)
{
	struct spl *s = h->data;
	struct pconn *p = s->p;

	spl_free(s);
	conn_release(p);
}

void splice_close(struct pconn *p)
{
	struct spl *s = p->spl;

	if (!s)
		return;
	p->spl = NULL;
	uv_close((uv_handle_t *)&s->poll, poll_closed);
}

/* Drains way w's pipe into socket to until it is empty or to is full. -1 on an error. */
static int drain(struct way *w, int to)
{
	while (w->held) {
		ssize_t n = kpipe_move(w->pipe[0], to, w->held);
		if (n < 0)
			return n == -EAGAIN ? 0 : -1;
		w->held -= (size_t)n;
	}
	if (w->eof && !w->shut) {
		if (shutdown(to, SHUT_WR) < 0 && errno != ENOTCONN)
			return -1;
		w->shut = true;
	}
	return 0;
}

/* One read from socket from into way w's pipe: the bytes moved (0 at the end of stream, also
 * when from has nothing: then w->ready is cleared, its next input edge sets it), or -1 on an
 * error. */
static ssize_t fill(struct way *w, int from)
{
	ssize_t n = kpipe_move(from, w->pipe[1], w->cap - w->held);

	if (n == -EAGAIN) {
		w->ready = false;
		return 0;
	}
	if (n < 0)
		return -1;
	if (n == 0)
		w->eof = true;
	w->held += (size_t)n;
	return n;
}

/* Moves way w as far as it goes, each read passed on at once (the request a client waits on
 * goes out before the relay looks for more): stops when from has nothing (EAGAIN: from's next
 * edge wakes it; a source without an input edge since is not read at all), when to is full
 * (to's next edge wakes it), or once the end of stream went. -1 on an error. */
static int move(struct way *w, int from, int to, uint64_t *count)
{
	for (;;) {
		ssize_t n;

		if (drain(w, to) < 0)
			return -1;
		if (w->eof || w->held == w->cap || !w->ready)
			return 0;
		if ((n = fill(w, from)) < 0)
			return -1;
		*count += (uint64_t)n;
	}
}

static void on_poll(uv_poll_t *h, int status, int events)
{
	struct spl *s = h->data;
	struct pconn *p = s->p;
	struct sessd *d = p->cmd->d;
	unsigned in = 0;
	int rc;

	(void)events;
	if (status < 0) {
		conn_close(p);
		return;
	}
	/* consumes the edges (the set stays readable to libuv until it is read) */
	if ((rc = evset_take(s->ep, &in)) == 1) {
		conn_close(p);
		return;
	}
	if (rc < 0)
		in = 3; /* the edges unread: both ways read until EAGAIN */
	for (int i = 0; i < 2; i++)
		if (in & (1u << i))
			s->way[i].ready = true; /* way i reads socket i */
	if (move(&s->way[0], s->fd[0], s->fd[1], &d->bytes_up) < 0 ||
	    move(&s->way[1], s->fd[1], s->fd[0], &d->bytes_down) < 0 ||
	    (s->way[0].shut && s->way[1].shut))
		conn_close(p);
}

static int open_way(struct way *w)
{
	return kpipe_open(w->pipe, PIPE_WANT, &w->cap);
}

/* The epoll set; a socket already readable or writable when added is reported at once. */
static int open_set(struct spl *s)
{
	s->ep = evset_open(s->fd, 2);
	return s->ep < 0 ? s->ep : 0;
}

int splice_start(struct pconn *p)
{
	struct spl *s;
	uv_os_fd_t fd[2];
	int rc;

	if (p->spl)
		return -EALREADY;
	if (!(s = calloc(1, sizeof(*s))))
		return -ENOMEM;
	s->p = p;
	s->ep = -1;
	for (int i = 0; i < 2; i++) {
		s->way[i].pipe[0] = s->way[i].pipe[1] = -1;
		s->way[i].ready = true; /* bytes may wait already: read until EAGAIN */
	}
	if ((rc = uv_fileno((uv_handle_t *)&p->cli, &fd[0])) < 0 ||
	    (rc = uv_fileno((uv_handle_t *)&p->up, &fd[1])) < 0)
		goto out;
	s->fd[0] = fd[0];
	s->fd[1] = fd[1];
	if ((rc = open_way(&s->way[0])) < 0 || (rc = open_way(&s->way[1])) < 0 ||
	    (rc = open_set(s)) < 0 || (rc = uv_poll_init(p->cmd->d->loop, &s->poll, s->ep)) < 0)
		goto out;
	s->poll.data = s;
	kpipe_local_leg(s->fd[0]);
	kpipe_local_leg(s->fd[1]);
	p->handles++; /* released when the poll closed */
	p->spl = s;
	uv_read_stop((uv_stream_t *)&p->cli);
	uv_read_stop((uv_stream_t *)&p->up);
	uv_poll_start(&s->poll, UV_READABLE, on_poll);
	return 0;
out:
	spl_free(s);
	return rc;
}
