/* conn — a proxied connection's life: accept, hold the client's first bytes, relay both ways
 * with backpressure and half-close, close.
 *
 * Rules kept here:
 * - the client's bytes are held (bounded by CONN_HELD_MAX, CONN_PIPE_MAX with pipelined
 *   requests) until front.c judged them; nothing reaches an upstream before the verdict;
 * - while a request is forwarded, every upstream byte goes through front.c (the response's
 *   framing decides what reaches the client); a kept client connection gets a new upstream
 *   for its next request only once the last one's handle has closed;
 * - a side is not read while the writes queued to the other side hold more than
 *   CONN_HIGH_WATER of memory, buffers whole: counting their bytes let a client that sends one
 *   byte a read (to an upstream that does not read) queue a 256 KiB read buffer per byte, a
 *   GiB of the daemon's memory per 4000 bytes (e2e 0994);
 * - a connection is freed only once every handle and request of it has called back; the
 *   command it belongs to stays allocated until then (cmd_ref).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "session/daemon/conn.h"
#include "session/proto.h"
#include "session/wire.h"

struct wbuf {
	uv_write_t req;
	struct pconn *p;
	size_t cap;
	size_t held; /* counted in the side's qmem: not written at once */
	char data[];
};

#define WBUF_OF(base) ((struct wbuf *)((char *)(base)-offsetof(struct wbuf, data)))

static struct wbuf *wbuf_new(struct pconn *p, size_t cap)
{
	struct wbuf *w = malloc(sizeof(*w) + cap);

	if (w) {
		w->p = p;
		w->cap = cap;
	}
	return w;
}

void conn_drop_read(char *base)
{
	if (base)
		free(WBUF_OF(base));
}

void conn_release(struct pconn *p)
{
	if (--p->handles)
		return;
	free(p->in);
	free(p->req);
	free(p->resp);
	free(p->rin);
	cmd_unref(p->cmd);
	free(p);
}

static void handle_closed(uv_handle_t *h)
{
	conn_release(h->data);
}

static void free_handle(uv_handle_t *h)
{
	free(h);
}

void conn_close(struct pconn *p)
{
	struct cmd *c = p->cmd;

	if (p->closing)
		return;
	p->closing = true;
	if (p->dns_wait)
		dial_forget(p);
	else if (p->st == P_DIAL)
		uv_cancel((uv_req_t *)&p->gai);
	p->st = P_CLOSED;
	splice_close(p);
	c->nconns--;
	if (p->prev)
		p->prev->next = p->next;
	else
		c->conns = p->next;
	if (p->next)
		p->next->prev = p->prev;
	uv_close((uv_handle_t *)&p->cli, handle_closed);
	if (p->up_init)
		uv_close((uv_handle_t *)&p->up, handle_closed);
}

static uv_tcp_t *other(struct pconn *p, uv_stream_t *s)
{
	return (uv_tcp_t *)s == &p->cli ? &p->up : &p->cli;
}

/* The memory queued to side to (the client or the upstream). */
static size_t *qmem(struct pconn *p, const uv_stream_t *to)
{
	return to == (uv_stream_t *)&p->cli ? &p->qmem_cli : &p->qmem_up;
}

static void resume(struct pconn *p, uv_tcp_t *from);

static void on_write(uv_write_t *req, int status)
{
	struct wbuf *w = req->data;
	struct pconn *p = w->p;
	uv_stream_t *to = req->handle;

	*qmem(p, to) -= w->held;
	free(w);
	if (p->closing)
		return;
	if (status < 0 && to == (uv_stream_t *)&p->up && p->up_retired)
		return; /* cancelled by the close between two requests */
	if (status < 0) {
		conn_close(p);
		return;
	}
	/* Both ways drained: the rest can go by splice(2). */
	if (p->spl)
		return;
	if (p->st == P_RELAY && !p->cli_eof && !p->up_eof && !p->cli_paused && !p->up_paused &&
	    p->cli.write_queue_size == 0 && p->up.write_queue_size == 0 && splice_start(p) == 0)
		return;
	/* Resume the side feeding this one once its queue drained. */
	if (*qmem(p, to) < CONN_LOW_WATER) {
		uv_tcp_t *from = other(p, to);
		bool *paused = from == &p->cli ? &p->cli_paused : &p->up_paused;
		if (*paused) {
			*paused = false;
			resume(p, from);
		}
	}
}

static void send_wbuf(struct pconn *p, uv_tcp_t *to, struct wbuf *w, char *base, size_t n)
{
	uv_buf_t b = uv_buf_init(base, (unsigned)n);
	size_t before = to->write_queue_size;

	w->req.data = w;
	w->held = 0;
	if (uv_write(&w->req, (uv_stream_t *)to, &b, 1, on_write) < 0) {
		free(w);
		conn_close(p);
		return;
	}
	/* libuv writes at once when nothing is queued; what it could not write stays queued,
	 * and with it the whole buffer */
	if (to->write_queue_size > before) {
		w->held = sizeof(*w) + w->cap;
		*qmem(p, (uv_stream_t *)to) += w->held;
	}
}

int conn_write(uv_tcp_t *to, struct pconn *p, const void *data, size_t n)
{
	struct wbuf *w = wbuf_new(p, n);

	if (!w)
		return -ENOMEM;
	memcpy(w->data, data, n);
	send_wbuf(p, to, w, w->data, n);
	return 0;
}

/* Stops reading from when the other way is full. */
static void pressure(struct pconn *p, uv_tcp_t *from, uv_tcp_t *to)
{
	if (*qmem(p, (uv_stream_t *)to) <= CONN_HIGH_WATER)
		return;
	uv_read_stop((uv_stream_t *)from);
	if (from == &p->cli)
		p->cli_paused = true;
	else
		p->up_paused = true;
}

void conn_send_read(struct pconn *p, char *base, size_t n)
{
	struct sessd *d = p->cmd->d;

	d->bytes_up += n;
	send_wbuf(p, &p->up, WBUF_OF(base), base, n);
	pressure(p, &p->cli, &p->up);
}

void conn_send_down(struct pconn *p, char *base, size_t off, size_t n)
{
	send_wbuf(p, &p->cli, WBUF_OF(base), base + off, n);
	if (!p->closing)
		pressure(p, &p->up, &p->cli);
}

static void alloc_relay(uv_handle_t *h, size_t sugg, uv_buf_t *b)
{
	struct wbuf *w = wbuf_new(h->data, CONN_READ_SIZE);

	(void)sugg;
	*b = uv_buf_init(w ? w->data : NULL, w ? CONN_READ_SIZE : 0);
}

static void alloc_cli(uv_handle_t *h, size_t sugg, uv_buf_t *b)
{
	struct pconn *p = h->data;

	if (p->st == P_HEAD || p->st == P_SOCKS || p->st == P_SNI) {
		if (p->in_cap == 0) {
			p->in = malloc(CONN_HELD_MAX);
			p->in_cap = p->in ? CONN_HELD_MAX : 0;
		}
		*b = uv_buf_init((char *)p->in + p->in_n, (unsigned)(p->in_cap - p->in_n));
		return;
	}
	alloc_relay(h, sugg, b);
}

static void after_shutdown(uv_shutdown_t *req, int status)
{
	struct pconn *p = req->data;

	(void)status;
	if (p->closing)
		return;
	if (req == &p->sh_cli)
		p->cli_shut = true;
	else
		p->up_shut = true;
	if (p->st == P_RELAY && p->cli_shut && p->up_shut)
		conn_close(p);
}

static void shut(struct pconn *p, uv_tcp_t *h)
{
	uv_shutdown_t *req = h == &p->cli ? &p->sh_cli : &p->sh_up;

	req->data = p;
	if (uv_shutdown(req, (uv_stream_t *)h, after_shutdown) < 0)
		conn_close(p);
}

/* A side ended (EOF): pass the half-close on. */
static void side_eof(struct pconn *p, uv_tcp_t *from)
{
	if (from == &p->cli) {
		p->cli_eof = true;
		shut(p, &p->up);
	} else {
		p->up_eof = true;
		shut(p, &p->cli);
	}
}

static void on_relay_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	struct pconn *p = s->data;
	uv_tcp_t *to = other(p, s);

	if ((uv_tcp_t *)s == &p->up && p->st == P_FORWARD) {
		if (n > 0)
			p->cmd->d->bytes_down += (uint64_t)n;
		else
			conn_drop_read(b->base);
		if (n != 0)
			front_response(p, n > 0 ? b->base : NULL, n);
		return;
	}
	if (n > 0) {
		if ((uv_tcp_t *)s == &p->cli)
			p->cmd->d->bytes_up += (uint64_t)n;
		else
			p->cmd->d->bytes_down += (uint64_t)n;
		send_wbuf(p, to, WBUF_OF(b->base), b->base, (size_t)n);
		if (!p->closing)
			pressure(p, (uv_tcp_t *)s, to);
		return;
	}
	conn_drop_read(b->base);
	if (n == UV_EOF && !p->closing) {
		uv_read_stop(s);
		if (p->st == P_FORWARD)
			front_client_eof(p);
		else
			side_eof(p, (uv_tcp_t *)s);
	} else if (n < 0) {
		conn_close(p);
	}
}

static void on_cli_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	struct pconn *p = s->data;

	if (p->st == P_HEAD || p->st == P_SOCKS || p->st == P_SNI) {
		if (n > 0) {
			p->in_n += (size_t)n;
			front_input(p);
		} else if (n == UV_EOF) {
			front_client_eof(p);
		} else if (n < 0) {
			conn_close(p);
		}
		return;
	}
	if (p->st == P_FINISH) {
		conn_drop_read(b->base);
		if (n < 0)
			conn_close(p);
		return;
	}
	if (p->st == P_FORWARD && n > 0) {
		front_body(p, b->base, (size_t)n);
		return;
	}
	on_relay_read(s, n, b);
}

static void resume(struct pconn *p, uv_tcp_t *from)
{
	if (from == &p->cli)
		uv_read_start((uv_stream_t *)from, alloc_cli, on_cli_read);
	else
		uv_read_start((uv_stream_t *)from, alloc_relay, on_relay_read);
}

void conn_start_reading(struct pconn *p)
{
	uv_read_start((uv_stream_t *)&p->cli, alloc_cli, on_cli_read);
}

void conn_relay_down(struct pconn *p)
{
	uv_read_start((uv_stream_t *)&p->up, alloc_relay, on_relay_read);
}

void conn_relay(struct pconn *p)
{
	p->st = P_RELAY;
	if (!p->cli_eof && p->cli.write_queue_size == 0 && p->up.write_queue_size == 0 &&
	    splice_start(p) == 0)
		return;
	if (p->cli_eof)
		shut(p, &p->up);
	else
		uv_read_start((uv_stream_t *)&p->cli, alloc_cli, on_cli_read);
	conn_relay_down(p);
}

static void up_retired(uv_handle_t *h)
{
	struct pconn *p = h->data;

	p->up_retired = false;
	if (p->closing) {
		conn_release(p);
		return;
	}
	p->handles--;
	front_next(p);
}

void conn_next(struct pconn *p)
{
	p->st = P_NEXT;
	p->up_init = false;
	p->up_retired = true;
	p->up_paused = false;
	uv_close((uv_handle_t *)&p->up, up_retired);
}

static void after_finish(uv_shutdown_t *req, int status)
{
	struct pconn *p = req->data;

	if ((status < 0 || p->cli_eof) && !p->closing)
		conn_close(p);
}

void conn_finish(struct pconn *p)
{
	if (p->closing || p->st == P_FINISH)
		return;
	p->st = P_FINISH;
	if (p->up_init)
		uv_read_stop((uv_stream_t *)&p->up);
	p->sh_cli.data = p;
	if (uv_shutdown(&p->sh_cli, (uv_stream_t *)&p->cli, after_finish) < 0) {
		conn_close(p);
		return;
	}
	/* the client's further bytes are read and dropped, so closing sends no reset over
	 * the answer */
	if (!p->cli_eof)
		uv_read_start((uv_stream_t *)&p->cli, alloc_relay, on_cli_read);
}

/* A host connection to a listen port: handed to the stage's relay inside the sandbox. */
static void to_relay(struct lsn *l, uv_tcp_t *h)
{
	struct sess_msg m = {.type = SESS_RELAY, .port = l->port};
	struct buf b = {0};
	uv_os_fd_t fd;

	if (l->cmd->relay_fd >= 0 && uv_fileno((uv_handle_t *)h, &fd) == 0 &&
	    sess_encode(&m, &b) == 0 && sess_send(l->cmd->relay_fd, b.p, b.n, &fd, 1) == 0)
		l->cmd->d->allowed++;
	buf_free(&b);
	uv_close((uv_handle_t *)h, free_handle);
}

static struct pconn *pconn_new(struct lsn *l)
{
	struct pconn *p = calloc(1, sizeof(*p));
	struct cmd *c = l->cmd;

	if (!p)
		return NULL;
	p->cmd = c;
	p->role = l->role;
	uv_tcp_init(c->d->loop, &p->cli);
	p->cli.data = p;
	p->handles = 1;
	cmd_ref(c);
	c->nconns++;
	p->next = c->conns;
	if (c->conns)
		c->conns->prev = p;
	c->conns = p;
	return p;
}

/* A connection refused past the command's limit (conn_max): answered, then read and dropped
 * until the client closes or REFUSED_LINGER_MS pass, so the close sends no reset over the
 * answer. At most REFUSED_MAX linger per command; past that a refusal closes at once. */
#define REFUSED_LINGER_MS 2000
#define REFUSED_MAX	  16

struct refused {
	uv_tcp_t h;
	uv_timer_t t;
	struct cmd *c;
	int open; /* handles not yet closed */
	char buf[512];
};

static void refused_closed(uv_handle_t *h)
{
	struct refused *r = h->data;

	if (--r->open)
		return;
	r->c->nrefused--;
	cmd_unref(r->c);
	free(r);
}

static void refused_close(struct refused *r)
{
	if (!uv_is_closing((uv_handle_t *)&r->h))
		uv_close((uv_handle_t *)&r->h, refused_closed);
	if (!uv_is_closing((uv_handle_t *)&r->t))
		uv_close((uv_handle_t *)&r->t, refused_closed);
}

static void refused_alloc(uv_handle_t *h, size_t sugg, uv_buf_t *b)
{
	struct refused *r = h->data;

	(void)sugg;
	*b = uv_buf_init(r->buf, sizeof(r->buf));
}

static void refused_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	(void)b;
	if (n < 0)
		refused_close(s->data);
}

static void refused_timeout(uv_timer_t *t)
{
	refused_close(t->data);
}

/* The answer: HTTP 503 naming the limit; SOCKS "no authentication" then "general failure"
 * for the request to come; nothing on a reach port. Small: one send, never queued. */
static void refused_answer(int fd, int role, unsigned max)
{
	static const unsigned char socks[] = {5, 0, 5, 1, 0, 1, 0, 0, 0, 0, 0, 0};
	char body[400], resp[600];
	int n;

	if (role == SESS_FD_SOCKS) {
		(void)!send(fd, socks, sizeof(socks), MSG_DONTWAIT | MSG_NOSIGNAL);
	} else if (role == SESS_FD_HTTP) {
		n = snprintf(
		    body, sizeof(body),
		    "sbxsh: the sandbox's network proxy refused a connection: this command "
		    "holds %u connections through it, its limit.\n"
		    "Close some, or raise the limit: " SESS_CONN_MAX_ENV
		    "=N (1 to %d) for the session daemon (sbxsh session stop; the next "
		    "command starts it with the new limit).\n",
		    max, SESS_CONN_MAX_MAX);
		n = snprintf(resp, sizeof(resp),
			     "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
			     "Connection: close\r\nContent-Length: %d\r\n\r\n%s",
			     n, body);
		if (n > 0)
			(void)!send(fd, resp, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	shutdown(fd, SHUT_WR);
}

/* Past the limit: accepted, answered and closed (lingering, bounded), holding no slot of
 * the command's; the first refusal of each command is logged. Its other connections and
 * every other command go on. */
static void refuse_over_limit(struct lsn *l)
{
	struct cmd *c = l->cmd;
	struct sessd *d = c->d;
	struct refused *r = calloc(1, sizeof(*r));
	char reason[96];
	uv_os_fd_t fd;

	if (!r)
		return;
	r->c = c;
	r->open = 2;
	r->h.data = r->t.data = r;
	cmd_ref(c);
	c->nrefused++;
	uv_tcp_init(d->loop, &r->h);
	uv_timer_init(d->loop, &r->t);
	if (uv_accept((uv_stream_t *)&l->h, (uv_stream_t *)&r->h) == 0 &&
	    uv_fileno((uv_handle_t *)&r->h, &fd) == 0) {
		refused_answer(fd, l->role, d->o->conn_max);
		if (c->nrefused <= REFUSED_MAX &&
		    uv_read_start((uv_stream_t *)&r->h, refused_alloc, refused_read) == 0 &&
		    uv_timer_start(&r->t, refused_timeout, REFUSED_LINGER_MS, 0) == 0)
			r = NULL; /* lingers */
	}
	if (r)
		refused_close(r);
	d->refused++;
	if (!c->limit_noted) {
		c->limit_noted = true;
		snprintf(reason, sizeof(reason),
			 "more than %u connections through the proxy at once", d->o->conn_max);
		vlog_refusal(c, "proxy", 0, reason,
			     "the per-command limit on proxy connections (" SESS_CONN_MAX_ENV
			     "); the command's other connections were served");
	}
}

void conn_accepted(struct lsn *l)
{
	struct sessd *d = l->cmd->d;
	struct pconn *p;

	if (l->role == SESS_FD_RELAY) {
		uv_tcp_t *h = malloc(sizeof(*h));
		if (!h)
			return;
		uv_tcp_init(d->loop, h);
		if (uv_accept((uv_stream_t *)&l->h, (uv_stream_t *)h) == 0)
			to_relay(l, h);
		else
			uv_close((uv_handle_t *)h, free_handle);
		return;
	}
	if (l->cmd->nconns >= d->o->conn_max) {
		refuse_over_limit(l);
		return;
	}
	if (!(p = pconn_new(l)))
		return;
	if (uv_accept((uv_stream_t *)&l->h, (uv_stream_t *)&p->cli) < 0) {
		conn_close(p);
		return;
	}
	d->conns++;
	uv_tcp_nodelay(&p->cli, 1);
	if (l->role == SESS_FD_REACH) {
		p->port = l->port;
		p->st = P_DIAL;
		dial_loopback(p);
		return;
	}
	p->st = l->role == SESS_FD_HTTP ? P_HEAD : P_SOCKS;
	socks_conn_init(&p->socks);
	conn_start_reading(p);
}
