/* splice — the relay's fast path: once a tunnel is judged and nothing is queued either way,
 * bytes move socket -> pipe -> socket with splice(2), never through the daemon's memory.
 *
 * Rules kept here: it starts only when both write queues are empty (so no byte overtakes
 * one queued before); it keeps the relay's half-close (an end of stream one way shuts the
 * other socket's write side once the pipe drained); a pipe holds at most its capacity, so a
 * slow reader stops the other side's reads (backpressure); any error closes the connection.
 * The descriptors it polls are dups of the handles' own, so libuv's watchers never clash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "session/conn.h"

#define PIPE_WANT (1024 * 1024)

struct way {
	int pipe[2];
	size_t held, cap;
	bool eof, shut;
};

struct spl {
	struct pconn *p;
	uv_poll_t poll[2]; /* 0: client, 1: upstream */
	int fd[2];
	struct way way[2]; /* 0: client -> upstream, 1: upstream -> client */
	unsigned open;	   /* poll handles not yet closed */
};

static void spl_free(struct spl *s)
{
	for (int i = 0; i < 2; i++) {
		if (s->way[i].pipe[0] >= 0)
			close(s->way[i].pipe[0]);
		if (s->way[i].pipe[1] >= 0)
			close(s->way[i].pipe[1]);
	}
	free(s);
}

static void poll_closed(uv_handle_t *h)
{
	struct spl *s = h->data;
	int i = h == (uv_handle_t *)&s->poll[1];

	close(s->fd[i]);
	if (--s->open == 0) {
		struct pconn *p = s->p;
		spl_free(s);
		conn_release(p);
	}
}

void splice_close(struct pconn *p)
{
	struct spl *s = p->spl;

	if (!s)
		return;
	p->spl = NULL;
	uv_close((uv_handle_t *)&s->poll[0], poll_closed);
	uv_close((uv_handle_t *)&s->poll[1], poll_closed);
}

static void on_poll(uv_poll_t *h, int status, int events);

static void arm(struct spl *s)
{
	for (int i = 0; i < 2; i++) {
		struct way *out = &s->way[i], *in = &s->way[!i];
		int ev = (!out->eof && out->held < out->cap ? UV_READABLE : 0) |
			 (in->held ? UV_WRITABLE : 0);
		if (ev)
			uv_poll_start(&s->poll[i], ev, on_poll);
		else
			uv_poll_stop(&s->poll[i]);
	}
}

/* Drains way w's pipe into socket to. Returns -1 on an error. */
static int drain(struct way *w, int to)
{
	while (w->held) {
		ssize_t n =
		    splice(w->pipe[0], NULL, to, NULL, w->held, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		w->held -= (size_t)n;
	}
	if (w->eof && !w->shut) {
		shutdown(to, SHUT_WR);
		w->shut = true;
	}
	return 0;
}

/* Fills way w's pipe from socket from. Returns -1 on an error. */
static int fill(struct way *w, int from, uint64_t *count)
{
	while (!w->eof && w->held < w->cap) {
		ssize_t n = splice(from, NULL, w->pipe[1], NULL, w->cap - w->held,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		if (n == 0)
			w->eof = true;
		w->held += (size_t)n;
		*count += (uint64_t)n;
	}
	return 0;
}

static void on_poll(uv_poll_t *h, int status, int events)
{
	struct spl *s = h->data;
	struct pconn *p = s->p;
	struct sessd *d = p->cmd->d;
	int i = h == &s->poll[1];

	if (status < 0) {
		conn_close(p);
		return;
	}
	if ((events & UV_READABLE) &&
	    (fill(&s->way[i], s->fd[i], i ? &d->bytes_down : &d->bytes_up) < 0 ||
	     drain(&s->way[i], s->fd[!i]) < 0)) {
		conn_close(p);
		return;
	}
	if ((events & UV_WRITABLE) && drain(&s->way[!i], s->fd[i]) < 0) {
		conn_close(p);
		return;
	}
	if (s->way[0].shut && s->way[1].shut) {
		conn_close(p);
		return;
	}
	arm(s);
}

static int open_way(struct way *w)
{
	if (pipe2(w->pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		return -errno;
	if (fcntl(w->pipe[1], F_SETPIPE_SZ, PIPE_WANT) < 0) {
		/* the default size (64 KiB) does, just slower */
	}
	w->cap = (size_t)fcntl(w->pipe[1], F_GETPIPE_SZ);
	return 0;
}

int splice_start(struct pconn *p)
{
	struct spl *s;
	uv_os_fd_t fd[2];

	if (p->spl)
		return -EALREADY;
	if (!(s = calloc(1, sizeof(*s))))
		return -ENOMEM;
	s->p = p;
	s->fd[0] = s->fd[1] = -1;
	for (int i = 0; i < 2; i++)
		s->way[i].pipe[0] = s->way[i].pipe[1] = -1;
	if (uv_fileno((uv_handle_t *)&p->cli, &fd[0]) < 0 ||
	    uv_fileno((uv_handle_t *)&p->up, &fd[1]) < 0 || open_way(&s->way[0]) < 0 ||
	    open_way(&s->way[1]) < 0 || (s->fd[0] = fcntl(fd[0], F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (s->fd[1] = fcntl(fd[1], F_DUPFD_CLOEXEC, 3)) < 0) {
		if (s->fd[0] >= 0)
			close(s->fd[0]);
		spl_free(s);
		return -EMFILE;
	}
	for (int i = 0; i < 2; i++) {
		uv_poll_init(p->cmd->d->loop, &s->poll[i], s->fd[i]);
		s->poll[i].data = s;
	}
	s->open = 2;
	p->handles++; /* released when both polls closed */
	p->spl = s;
	uv_read_stop((uv_stream_t *)&p->cli);
	uv_read_stop((uv_stream_t *)&p->up);
	arm(s);
	return 0;
}
