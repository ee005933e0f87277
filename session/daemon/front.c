/* front — a command's proxy front ends: HTTP/1.1 (absolute-form and CONNECT) and SOCKS5.
 *
 * Rules kept here:
 * - everything the client sends is hostile; it is parsed by proxy/http, proxy/socks and
 *   proxy/tls_sni and judged against this command's own lists only (deny wins);
 * - nothing reaches an upstream before the verdict; an IP literal is judged in its one
 *   canonical spelling;
 * - a TLS ClientHello in a tunnel to a name must name that host (SNI), else the tunnel closes;
 * - an absolute-form request is forwarded alone, on an upstream connection of its own: head
 *   rewritten to origin-form with "Connection: close", then exactly the body its framing
 *   says, never a byte more; bytes after the body are held (CONN_PIPE_MAX), not read past;
 * - the response is untrusted too: its head is parsed (proxy/http) before a byte of it is
 *   relayed, and its body relayed by its own framing, never a byte past its end; a bad head
 *   is a 502 (or, once something was relayed, the client's connection closes);
 * - the client's connection is kept only when the request and its response both ended
 *   where their framing says, and the client asked for it; then the next request (held
 *   pipelined bytes first) is parsed and judged on its own, exactly like a first one, and
 *   dialled afresh; the client is told "Connection: close" when it is not kept;
 * - every refusal is answered (403 / SOCKS 0x02) and recorded in the violation log.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proxy/addr.h"
#include "proxy/refuse.h"
#include "proxy/tls_sni.h"
#include "session/daemon/conn.h"

#define RESP_MAX 4096

static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";

/* The destination from the parsed request into p->host / p->port: an IP literal in its
 * canonical form, a name in its normalised one (domain_name_norm). */
static int set_dest(struct pconn *p, const char *host, size_t n, uint16_t port)
{
	struct addr_ip ip;
	char norm[sizeof(p->host)];

	if (n == 0 || n >= sizeof(p->host))
		return -EINVAL;
	p->port = port;
	if (addr_parse_literal(host, n, &ip) == 0) {
		p->name = false;
		return addr_format(&ip, p->host, sizeof(p->host));
	}
	memcpy(p->host, host, n);
	p->host[n] = '\0';
	p->name = true;
	/* the name in the one spelling the lists are matched in, which is also the name
	 * resolved: "GOOD.test." would otherwise be looked up past /etc/hosts (whose names
	 * have no trailing dot) in DNS. A name that is not valid stays as sent: it matches no
	 * pattern, and a refusal shows it escaped. */
	if (domain_name_norm(p->host, norm, sizeof(norm)) == 0)
		memcpy(p->host, norm, strlen(norm) + 1);
	return 0;
}

/* 0 when this command's lists let host:port through; sets p->literal_grant. A deny entry
 * that refused it is written into line (the fix: remove it), else line is left empty. */
static int verdict(struct pconn *p, char *why, size_t cap, char *line, size_t lcap)
{
	const struct cmd *c = p->cmd;
	char pat[300];

	for (size_t i = 0; i < c->ndeny; i++)
		if (domain_match(&c->deny[i], p->host, p->port)) {
			domain_pattern_format(&c->deny[i], pat, sizeof(pat));
			snprintf(why, cap, "denied by deny_domains %.160s", pat);
			snprintf(line, lcap, "deny_domains -= %.160s", pat);
			return -EPERM;
		}
	for (size_t i = 0; i < c->nallow; i++) {
		const struct domain_pattern *a = &c->allow[i];
		if (!domain_match(a, p->host, p->port))
			continue;
		p->literal_grant =
		    a->kind != DOM_NAME || (strcmp(a->host, "localhost") == 0 && a->port != 0);
		return 0;
	}
	snprintf(why, cap, "not in allow_domains");
	return -EPERM;
}

/* The policy line a refusal offers: line itself, none for "", else refuse_grant_line's
 * (allow_domains += host, with its port unless a web port; none when no pattern the policy
 * takes would let this request through). */
static const char *grant_line(const struct pconn *p, const char *line, char *buf, size_t cap)
{
	if (line)
		return line[0] ? line : NULL;
	return refuse_grant_line(p->host, p->port, buf, cap) == 0 ? buf : NULL;
}

/* line: the policy line to offer; NULL: the default (allow_domains += host); "": none. */
static void refuse(struct pconn *p, const char *reason, const char *line)
{
	struct sessd *d = p->cmd->d;
	struct refuse_info ri = {.host = p->host,
				 .port = p->port,
				 .reason = reason,
				 .profile = p->cmd->profile[0] ? p->cmd->profile : NULL,
				 .file = p->cmd->profile_file[0] ? p->cmd->profile_file : NULL,
				 .line = line};
	char out[RESP_MAX];
	uint8_t rep[SOCKS_REPLY_MAX];
	ssize_t n;

	char grant[300];

	d->refused++;
	vlog_refusal(p->cmd, p->host, p->port, reason, grant_line(p, line, grant, sizeof(grant)));
	if (p->role == SESS_FD_SOCKS) {
		n = (ssize_t)socks_reply(SOCKS_REP_NOT_ALLOWED, NULL, rep);
		conn_write(&p->cli, p, rep, (size_t)n);
	} else if ((n = refuse_http_403(&ri, out, sizeof(out))) > 0) {
		conn_write(&p->cli, p, out, (size_t)n);
	}
	conn_finish(p);
}

static void answer_status(struct pconn *p, int status, const char *msg)
{
	char out[RESP_MAX];
	ssize_t n = refuse_http_status(status, msg, out, sizeof(out));

	if (n > 0)
		conn_write(&p->cli, p, out, (size_t)n);
	conn_finish(p);
}

/* Judges the destination and dials it, or refuses. */
static void judge(struct pconn *p)
{
	char why[200], line[200] = "";

	uv_read_stop((uv_stream_t *)&p->cli);
	if (verdict(p, why, sizeof(why), line, sizeof(line)) < 0) {
		refuse(p, why, line[0] ? line : NULL);
		return;
	}
	dial_start(p);
}

/* The reason of a Host mismatch, naming the host the Host field asked for (the one the
 * request would have reached): its bytes outside a host name's shown as \xHH, at most 100. */
static void host_mismatch_why(const struct http_request *r, char *why, size_t cap)
{
	char name[4 * 100 + 1] = "";
	size_t o = 0;

	for (size_t i = 0; i < r->nheaders; i++) {
		const struct http_slice *k = &r->headers[i].name, *v = &r->headers[i].value;
		if (k->n != 4 || strncasecmp(k->p, "Host", 4) != 0)
			continue;
		for (size_t j = 0; j < v->n && j < 100; j++) {
			unsigned char c = (unsigned char)v->p[j];
			if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || (c && strchr("-._:[]", c)))
				name[o++] = (char)c;
			else
				o += (size_t)snprintf(name + o, sizeof(name) - o, "\\x%02X", c);
		}
		name[o] = '\0';
		break;
	}
	snprintf(why, cap, "the Host header names %s, not the request target",
		 name[0] ? name : "(an empty host)");
}

static void http_head(struct pconn *p)
{
	struct http_request *r = p->req;
	int n = http_parse_request((const char *)p->in, p->in_n, p->in_last, r);

	p->in_last = p->in_n;
	if (n == HTTP_PARTIAL) {
		if (p->in_n >= HTTP_HEAD_MAX)
			answer_status(p, 431, http_strerror(HTTP_E_HEAD_TOO_LARGE));
		return;
	}
	if (n == HTTP_E_HOST_MISMATCH) {
		char why[300];
		set_dest(p, r->host.p, r->host.n, r->port);
		p->cmd->d->refused++;
		host_mismatch_why(r, why, sizeof(why));
		vlog_refusal(p->cmd, p->host, p->port, why, NULL);
	}
	if (n < 0) {
		answer_status(p, http_error_status(n), http_strerror(n));
		return;
	}
	if (set_dest(p, r->host.p, r->host.n, r->port) < 0) {
		answer_status(p, 400, "bad host");
		return;
	}
	p->body = r->body;
	p->body_left = r->content_length;
	p->body_done = r->body == HTTP_BODY_NONE;
	http_chunked_init(&p->chunk);
	/* keep only the bytes after the head in p->in; the head is rewritten from *r later */
	p->in_last = (size_t)n;
	judge(p);
}

static void socks_input(struct pconn *p)
{
	uint8_t rep[SOCKS_REPLY_MAX];
	size_t rlen = 0;
	int n;

	while (p->in_n && p->socks.stage < SOCKS_STAGE_CONNECT) {
		n = socks_step(&p->socks, p->in, p->in_n, &p->sreq, rep, &rlen);
		if (rlen)
			conn_write(&p->cli, p, rep, rlen);
		if (n == SOCKS_PARTIAL)
			return;
		if (n < 0) {
			conn_finish(p);
			return;
		}
		memmove(p->in, p->in + n, p->in_n - (size_t)n);
		p->in_n -= (size_t)n;
	}
	if (p->socks.stage != SOCKS_STAGE_CONNECT)
		return;
	if (set_dest(p, p->sreq.host, strlen(p->sreq.host), p->sreq.port) < 0) {
		n = (int)socks_reply(SOCKS_REP_GENERAL, NULL, rep);
		conn_write(&p->cli, p, rep, (size_t)n);
		conn_finish(p);
		return;
	}
	judge(p);
}

static bool same_name(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);

	na -= na && a[na - 1] == '.';
	nb -= nb && b[nb - 1] == '.';
	return na == nb && strncasecmp(a, b, na) == 0;
}

/* The tunnel's first client bytes: a ClientHello must name the host the tunnel was
 * opened to. */
static void sni_input(struct pconn *p)
{
	char name[TLS_SNI_NAME_MAX + 1], why[400];
	int r = p->name ? tls_sni_parse(p->in, p->in_n, name, sizeof(name)) : TLS_SNI_NOT_TLS;

	if (r == TLS_SNI_PARTIAL && p->in_n < CONN_HELD_MAX)
		return;
	if (r == TLS_SNI_FOUND && !same_name(name, p->host)) {
		snprintf(why, sizeof(why), "TLS server name %s does not match the tunnel's host",
			 name);
		p->cmd->d->refused++;
		vlog_refusal(p->cmd, p->host, p->port, why, NULL);
		conn_close(p);
		return;
	}
	if (r != TLS_SNI_FOUND && r != TLS_SNI_ABSENT && r != TLS_SNI_NOT_TLS) {
		p->cmd->d->refused++;
		vlog_refusal(p->cmd, p->host, p->port, tls_sni_strerror(r), NULL);
		conn_close(p);
		return;
	}
	if (p->in_n)
		conn_write(&p->up, p, p->in, p->in_n);
	p->cmd->d->bytes_up += p->in_n;
	p->in_n = 0;
	conn_relay(p);
}

void front_input(struct pconn *p)
{
	switch (p->st) {
	case P_HEAD:
		if (!p->req && !(p->req = malloc(sizeof(*p->req)))) {
			conn_close(p);
			return;
		}
		http_head(p);
		return;
	case P_SOCKS:
		socks_input(p);
		return;
	case P_SNI:
		sni_input(p);
		return;
	default:
		return;
	}
}

/* Feeds body bytes through the request's framing. Returns how many of n belong to it. */
static ssize_t body_bytes(struct pconn *p, const char *data, size_t n)
{
	ssize_t take = 0;

	if (p->body_done)
		return 0;
	if (p->body == HTTP_BODY_LENGTH) {
		take = (ssize_t)(n < p->body_left ? n : p->body_left);
		p->body_left -= (uint64_t)take;
		p->body_done = p->body_left == 0;
	} else if (p->body == HTTP_BODY_CHUNKED) {
		take = http_chunked_scan(&p->chunk, data, n);
		if (take < 0)
			return -EPROTO;
		p->body_done = http_chunked_done(&p->chunk);
	}
	return take;
}

/* Keeps client bytes that came after a request's body: the next pipelined request(s). */
static int hold(struct pconn *p, const char *data, size_t n)
{
	size_t need = p->in_n + n;
	uint8_t *in;

	if (need > CONN_PIPE_MAX)
		return -ENOBUFS;
	if (need > p->in_cap) {
		if (!(in = realloc(p->in, need)))
			return -ENOMEM;
		p->in = in;
		p->in_cap = need;
	}
	memcpy(p->in + p->in_n, data, n);
	p->in_n = need;
	return 0;
}

void front_body(struct pconn *p, char *data, size_t n)
{
	ssize_t take = body_bytes(p, data, n);

	if (take < 0 || ((size_t)take < n && hold(p, data + take, n - (size_t)take) < 0)) {
		conn_drop_read(data);
		conn_close(p);
		return;
	}
	if (take > 0)
		conn_send_read(p, data, (size_t)take);
	else
		conn_drop_read(data);
	if (p->body_done && !p->closing) {
		uv_read_stop((uv_stream_t *)&p->cli);
		p->cli_paused = false; /* not read again before the response is relayed */
	}
}

/* --- the response ------------------------------------------------------------------------ */

/* Feeds response body bytes through the response's framing. Returns how many of n belong to
 * the response, or -EPROTO. */
static ssize_t resp_body_bytes(struct pconn *p, const char *data, size_t n)
{
	ssize_t take = 0;

	if (p->rbody == HTTP_BODY_LENGTH) {
		take = (ssize_t)(n < p->rbody_left ? n : p->rbody_left);
		p->rbody_left -= (uint64_t)take;
		if (p->rbody_left == 0)
			p->rphase = RESP_DONE;
	} else if (p->rbody == HTTP_BODY_CHUNKED) {
		if ((take = http_chunked_scan(&p->rchunk, data, n)) < 0)
			return -EPROTO;
		if (http_chunked_done(&p->rchunk))
			p->rphase = RESP_DONE;
	} else if (p->rbody == HTTP_BODY_CLOSE) {
		take = (ssize_t)n;
	}
	return take;
}

/* The response is out: the next request on this connection, or the end of it. */
static void response_done(struct pconn *p)
{
	if (p->closing)
		return;
	if (p->keep && p->body_done && !p->cli_eof && p->up.write_queue_size == 0)
		conn_next(p);
	else
		conn_finish(p);
}

/* The response went wrong: a 502 while nothing of it was relayed, else the client's
 * connection ends (its client sees a response cut short). */
static void resp_fail(struct pconn *p, const char *why)
{
	char msg[300];

	if (p->resp_sent) {
		conn_finish(p);
		return;
	}
	snprintf(msg, sizeof(msg), "the server at %.200s:%u sent a bad response: %s", p->host,
		 p->port, why);
	answer_status(p, 502, msg);
}

/* Relays the complete head at the start of p->rin (hlen bytes): a 1xx one (not to an
 * HTTP/1.0 client) or the final one, which sets the body's framing and whether the client
 * is kept. Returns 0 or an http_result. */
static int resp_head(struct pconn *p, size_t hlen)
{
	const struct http_response *r = p->resp;
	bool interim = r->status < 200;
	unsigned flags = 0;
	char *out;
	ssize_t n;

	if (interim && ++p->interim > HTTP_INTERIM_MAX)
		return HTTP_E_INTERIM;
	if (!interim) {
		p->keep = p->req_keep && p->body_done && !p->cli_eof && r->body != HTTP_BODY_CLOSE;
		flags = !p->keep ? HTTP_RESP_CLOSE : p->req_minor == 0 ? HTTP_RESP_KEEP_ALIVE : 0;
		p->rbody = r->body;
		p->rbody_left = r->content_length;
		http_chunked_init(&p->rchunk);
		p->rphase = r->body == HTTP_BODY_NONE ? RESP_DONE : RESP_BODY;
	}
	if (!interim || p->req_minor == 1) {
		if (!(out = malloc(hlen + HTTP_REWRITE_SLACK)))
			return HTTP_E_NOSPC;
		n = http_rewrite_response(r, flags, out, hlen + HTTP_REWRITE_SLACK);
		if (n > 0 && conn_write(&p->cli, p, out, (size_t)n) == 0)
			p->resp_sent = true;
		free(out);
		if (n < 0)
			return (int)n;
	}
	memmove(p->rin, p->rin + hlen, p->rin_n - hlen);
	p->rin_n -= hlen;
	p->rin_last = 0;
	return 0;
}

/* Head phase: moves bytes of base into p->rin and parses; relays the complete heads and the
 * body bytes that came with the final one. *off: the bytes of base used. Returns 0 or an
 * http_result. */
static int resp_heads(struct pconn *p, const char *base, size_t n, size_t *off)
{
	unsigned flags = p->req_head ? HTTP_RESP_TO_HEAD : 0;
	ssize_t take;
	int r;

	while (p->rphase == RESP_HEAD) {
		size_t k =
		    n - *off < HTTP_HEAD_MAX - p->rin_n ? n - *off : HTTP_HEAD_MAX - p->rin_n;
		memcpy(p->rin + p->rin_n, base + *off, k);
		p->rin_n += k;
		*off += k;
		r = http_parse_response(p->rin, p->rin_n, p->rin_last, flags, p->resp);
		p->rin_last = p->rin_n;
		if (r == HTTP_PARTIAL && *off == n)
			return 0;
		if (r < 0 && r != HTTP_PARTIAL)
			return r;
		if (r > 0 && (r = resp_head(p, (size_t)r)) < 0)
			return r;
	}
	if (p->rphase == RESP_BODY && p->rin_n) {
		if ((take = resp_body_bytes(p, p->rin, p->rin_n)) < 0)
			return HTTP_E_CHUNKED;
		if (take > 0)
			conn_write(&p->cli, p, p->rin, (size_t)take);
	}
	/* the head is out: a long body or an idle kept connection holds no head buffers */
	free(p->rin);
	free(p->resp);
	p->rin = NULL;
	p->resp = NULL;
	p->rin_n = 0;
	return 0;
}

/* The upstream ended (n is UV_EOF or an error) before the response's framing did. */
static void resp_eof(struct pconn *p, ssize_t n)
{
	if (p->rphase == RESP_HEAD)
		resp_fail(p, n == UV_EOF ? "the connection closed before a complete response head"
					 : uv_strerror((int)n));
	else if (n == UV_EOF && p->rbody == HTTP_BODY_CLOSE)
		response_done(p); /* a close-delimited body ends here, and so does the client's */
	else if (n == UV_EOF)
		conn_finish(p); /* the client sees its response cut short */
	else
		conn_close(p);
}

void front_response(struct pconn *p, char *base, ssize_t n)
{
	size_t off = 0;
	ssize_t take;
	int r;

	if (n < 0) {
		resp_eof(p, n);
		return;
	}
	if ((r = resp_heads(p, base, (size_t)n, &off)) < 0) {
		conn_drop_read(base);
		resp_fail(p, http_response_strerror(r));
		return;
	}
	if (p->rphase == RESP_BODY && off < (size_t)n) {
		if ((take = resp_body_bytes(p, base + off, (size_t)n - off)) < 0) {
			conn_drop_read(base);
			resp_fail(p, http_response_strerror(HTTP_E_CHUNKED));
			return;
		}
		if (take > 0) {
			conn_send_down(p, base, off, (size_t)take);
			base = NULL;
		}
	}
	conn_drop_read(base); /* bytes past the response's end are never relayed */
	if (p->rphase == RESP_DONE)
		response_done(p);
}

/* What the response needs to know of the request, and a place for its head. */
static int resp_prepare(struct pconn *p)
{
	const struct http_request *r = p->req;

	p->req_head = r->method.n == 4 && memcmp(r->method.p, "HEAD", 4) == 0;
	p->req_keep = r->keep_alive;
	p->req_minor = r->version_minor;
	p->rphase = RESP_HEAD;
	p->rin_n = p->rin_last = 0;
	p->interim = 0;
	p->resp_sent = p->keep = false;
	if (!p->resp && !(p->resp = malloc(sizeof(*p->resp))))
		return -ENOMEM;
	if (!p->rin && !(p->rin = malloc(HTTP_HEAD_MAX)))
		return -ENOMEM;
	return 0;
}

/* Sends the rewritten head and what of the body arrived with it; what came after the body
 * stays in p->in for the next request. */
static void forward_request(struct pconn *p)
{
	char *out = malloc(HTTP_HEAD_MAX + 256);
	size_t rest = p->in_n - p->in_last, used;
	ssize_t n =
	    out ? http_rewrite_head(p->req, HTTP_REWRITE_CLOSE, out, HTTP_HEAD_MAX + 256) : -ENOMEM;
	ssize_t take;

	if (n < 0 || resp_prepare(p) < 0) {
		free(out);
		answer_status(p, 502, "cannot forward the request");
		return;
	}
	p->st = P_FORWARD;
	conn_write(&p->up, p, out, (size_t)n);
	free(out);
	take = body_bytes(p, (const char *)p->in + p->in_last, rest);
	if (take < 0) {
		conn_close(p);
		return;
	}
	if (take > 0)
		conn_write(&p->up, p, p->in + p->in_last, (size_t)take);
	p->cmd->d->bytes_up += (uint64_t)n + (uint64_t)take;
	used = p->in_last + (size_t)take;
	memmove(p->in, p->in + used, p->in_n - used);
	p->in_n -= used;
	p->in_last = 0;
	conn_relay_down(p);
	if (!p->body_done)
		conn_start_reading(p);
}

void front_next(struct pconn *p)
{
	p->ncand = p->icand = 0;
	p->tried = 0;
	p->guard_why[0] = p->why[0] = '\0';
	p->literal_grant = false;
	p->up_eof = p->up_shut = false;
	p->body_done = false;
	p->in_last = 0;
	p->st = P_HEAD;
	conn_start_reading(p);
	if (p->in_n)
		http_head(p);
}

static void tunnel_open(struct pconn *p)
{
	uint8_t rep[SOCKS_REPLY_MAX];
	struct sockaddr_storage ss;
	int len = sizeof(ss);

	if (p->role == SESS_FD_SOCKS) {
		if (uv_tcp_getsockname(&p->up, (struct sockaddr *)&ss, &len) < 0)
			memset(&ss, 0, sizeof(ss));
		conn_write(&p->cli, p, rep,
			   socks_reply(SOCKS_REP_SUCCESS,
				       ss.ss_family ? (struct sockaddr *)&ss : NULL, rep));
	} else {
		conn_write(&p->cli, p, established, sizeof(established) - 1);
		memmove(p->in, p->in + p->in_last, p->in_n - p->in_last);
		p->in_n -= p->in_last;
	}
	p->in_last = 0;
	p->st = P_SNI;
	conn_relay_down(p);
	if (p->in_n)
		sni_input(p);
	else
		conn_start_reading(p);
}

void front_connected(struct pconn *p)
{
	p->cmd->d->allowed++;
	if (p->role == SESS_FD_REACH)
		conn_relay(p);
	else if (p->role == SESS_FD_HTTP && !p->req->is_connect)
		forward_request(p);
	else
		tunnel_open(p);
}

void front_dial_failed(struct pconn *p, int kind, const char *why)
{
	char out[RESP_MAX], reason[300];
	uint8_t rep[SOCKS_REPLY_MAX];
	ssize_t n;

	if (kind == DIAL_GUARD) {
		snprintf(reason, sizeof(reason),
			 "%s; the proxy reaches such an address only when allow_domains names "
			 "it literally",
			 why);
		refuse(p, reason, "");
		return;
	}
	if (p->role == SESS_FD_REACH) {
		conn_close(p);
		return;
	}
	if (p->role == SESS_FD_SOCKS) {
		n = (ssize_t)socks_reply(
		    kind == DIAL_DNS ? SOCKS_REP_HOST_UNREACHABLE : SOCKS_REP_REFUSED, NULL, rep);
		conn_write(&p->cli, p, rep, (size_t)n);
	} else {
		n = refuse_http_502(p->host, p->port,
				    kind == DIAL_DNS ? REFUSE_DNS : REFUSE_UPSTREAM_REFUSED, why,
				    out, sizeof(out));
		if (n > 0)
			conn_write(&p->cli, p, out, (size_t)n);
	}
	conn_finish(p);
}

void front_client_eof(struct pconn *p)
{
	p->cli_eof = true;
	if (p->st == P_SNI && p->in_n == 0) {
		conn_relay(p);
		return;
	}
	if (p->st == P_FORWARD && p->body_done)
		return;
	if (p->st == P_HEAD) {
		conn_finish(p); /* responses to earlier requests may still be queued */
		return;
	}
	conn_close(p);
}
