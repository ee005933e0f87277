/* conn — one proxied connection in the daemon (conn.c: life and relaying; front.c: HTTP and
 * SOCKS5 front ends; dial.c: resolve, guard, connect). Private to the daemon. */
#ifndef SBX_SESS_CONN_H
#define SBX_SESS_CONN_H
#include <netdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "proxy/http.h"
#include "proxy/socks.h"
#include "session/daemon/sessd.h"

enum pstate {
	P_HEAD,	   /* HTTP listener: reading a request head */
	P_SOCKS,   /* SOCKS listener: greeting and request */
	P_DIAL,	   /* resolving and connecting; the client is not read */
	P_SNI,	   /* tunnel up: the client's first bytes are held until judged */
	P_FORWARD, /* one absolute-form request: head and framed body up, response down */
	P_NEXT,	   /* response relayed, client kept: upstream closing, then the next request */
	P_RELAY,   /* both ways, until both sides ended */
	P_FINISH,  /* the answer is out; the client's bytes are read and dropped until it closes */
	P_CLOSED,
};

/* A side is not read while the writes queued the other way hold more than CONN_HIGH_WATER of
 * the daemon's memory (their buffers whole, not the bytes in them: a read of one byte keeps
 * its CONN_READ_SIZE buffer until written), and read again below CONN_LOW_WATER. */
#define CONN_HIGH_WATER (1024 * 1024)
#define CONN_LOW_WATER	(64 * 1024)
#define CONN_READ_SIZE	(256 * 1024)
#define CONN_HELD_MAX	(HTTP_HEAD_MAX + 4096) /* client bytes held before relaying */
/* held at most: a head's worth, plus the rest of the one read that ended a request's body
 * (the client is not read again until that request's response is relayed) */
#define CONN_PIPE_MAX (CONN_HELD_MAX + CONN_READ_SIZE)

enum resp_phase {
	RESP_HEAD, /* reading response heads (1xx ones, then the final one) */
	RESP_BODY, /* relaying the body by its framing */
	RESP_DONE,
};

struct pconn {
	struct cmd *cmd;
	struct pconn *prev, *next;
	int role; /* enum sess_fd_role of the listener */
	enum pstate st;
	uv_tcp_t cli, up;
	unsigned handles; /* handles still to close */
	bool up_init, closing;
	bool cli_eof, up_eof, cli_shut, up_shut, cli_paused, up_paused;
	uv_shutdown_t sh_cli, sh_up;
	/* client bytes held before relaying (head, SOCKS request, first tunnel bytes) */
	uint8_t *in;
	size_t in_n, in_cap, in_last;
	/* destination */
	char host[256];
	uint16_t port;
	bool name;			 /* host is a name (not an IP literal) */
	bool literal_grant;		 /* the policy names this host or address literally */
	struct sockaddr_storage cand[8]; /* addresses to try, in order */
	socklen_t candlen[8];
	size_t ncand, icand;
	unsigned tried;	     /* connects attempted */
	char guard_why[160]; /* why the guard refused the last address it refused */
	uv_getaddrinfo_t gai;
	bool dns_wait;		/* waiting for one of its command's lookup slots (dial.c) */
	struct pconn *dns_next; /* the command's queue of waiting lookups */
	uv_connect_t creq;
	char why[160]; /* why the last address was skipped or failed */
	/* HTTP */
	struct http_request *req;
	enum http_body body;
	uint64_t body_left;
	struct http_chunked chunk;
	bool body_done;
	bool req_head; /* the request is HEAD: its response has no body */
	bool req_keep; /* the client wants the connection kept (version, Connection) */
	int req_minor; /* the request's HTTP/1.<minor> */
	/* HTTP response: parsed before relaying, the client kept only when its end is known */
	struct http_response *resp;
	char *rin; /* response head bytes held until parsed (at most HTTP_HEAD_MAX) */
	size_t rin_n, rin_last;
	enum resp_phase rphase;
	enum http_body rbody;
	uint64_t rbody_left;
	struct http_chunked rchunk;
	unsigned interim; /* 1xx responses so far */
	bool resp_sent;	  /* response bytes were queued to the client */
	bool keep;	  /* the client connection stays open after this response */
	bool up_retired;  /* p->up is closing between two requests */
	/* memory held by writes not yet written to the client / the upstream (buffers whole) */
	size_t qmem_cli, qmem_up;
	struct spl *spl; /* splice(2) relay once both queues drained (splice.c) */
	/* SOCKS */
	struct socks_conn socks;
	struct socks_request sreq;
};

/* conn.c */
void conn_start_reading(struct pconn *p); /* reads the client into p->in */
void conn_relay(struct pconn *p);	  /* both ways from now on */
void conn_relay_down(struct pconn *p);	  /* upstream -> client only (SNI wait, forward) */
int conn_write(uv_tcp_t *to, struct pconn *p, const void *data, size_t n); /* copies data */
void conn_finish(struct pconn *p); /* close once queued writes to the client went */
/* conn.c: takes a buffer the client read handed over (base from the read callback) and
 * writes its first n bytes to the upstream; frees it when written. */
void conn_send_read(struct pconn *p, char *base, size_t n);
/* conn.c: the same for a buffer an upstream read handed over: writes base[off..off+n) to
 * the client. */
void conn_send_down(struct pconn *p, char *base, size_t off, size_t n);
/* conn.c: the response is relayed and the client kept: closes the upstream, then calls
 * front_next. */
void conn_next(struct pconn *p);
void conn_drop_read(char *base);
/* Drops one hold on p (a handle closed, a request called back); frees it at zero. */
void conn_release(struct pconn *p);

/* front.c: bytes arrived in p->in while reading the client */
void front_input(struct pconn *p);
/* dial.c outcomes, handled by front.c */
void front_connected(struct pconn *p);
void front_dial_failed(struct pconn *p, int kind, const char *why);
void front_client_eof(struct pconn *p);
/* front.c: more body bytes from the client while forwarding a request */
void front_body(struct pconn *p, char *data, size_t n);
/* front.c: an upstream read while forwarding a request: n > 0 bytes at base (a read buffer
 * it takes over), or n < 0 (UV_EOF or an error; base already dropped). */
void front_response(struct pconn *p, char *base, ssize_t n);
/* front.c: the upstream of the last request is closed: read the next request. */
void front_next(struct pconn *p);

enum dial_fail { DIAL_DNS = 1, DIAL_GUARD, DIAL_REFUSED };

/* splice.c: moves the relay to splice(2) (both write queues must be empty). Returns 0, or
 * a negative errno when it cannot (the libuv relay goes on). */
int splice_start(struct pconn *p);
void splice_close(struct pconn *p);

/* dial.c: resolves p->host (unless a literal), refuses guarded addresses unless
 * p->literal_grant, connects to exactly the address it checked. Calls front_connected or
 * front_dial_failed. */
void dial_start(struct pconn *p);
/* dial.c: loopback reach: 127.0.0.1:port, else [::1]:port. */
void dial_loopback(struct pconn *p);
/* dial.c: p closes while its lookup waits for a slot: takes it off its command's queue. */
void dial_forget(struct pconn *p);

#endif
