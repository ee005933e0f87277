/* front — a command's proxy front ends: HTTP/1.1 (absolute-form and CONNECT) and SOCKS5.
 *
 * Rules kept here:
 * - everything the client sends is hostile; it is parsed by proxy/http, proxy/socks and
 *   proxy/tls_sni and judged against this command's own lists only (deny wins);
 * - nothing reaches an upstream before the verdict; an IP literal is judged in its one
 *   canonical spelling;
 * - a TLS ClientHello in a tunnel to a name must name that host (SNI), else the tunnel closes;
 * - an absolute-form request is forwarded alone: head rewritten to origin-form with
 *   "Connection: close", then exactly the body its framing says, never a byte more; the
 *   response ends the client's connection (so pipelined bytes are never forwarded);
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
#include "session/conn.h"

#define RESP_MAX 4096

static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";

/* The destination from the parsed request into p->host / p->port, an IP literal in its
 * canonical form. */
static int set_dest(struct pconn *p, const char *host, size_t n, uint16_t port)
{
	struct addr_ip ip;

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

/* The policy line a refusal offers: line itself, none for "", else allow_domains += host
 * (with its port unless a web port; never for a host that would need escaping). */
static const char *grant_line(const struct pconn *p, const char *line, char *buf, size_t cap)
{
	bool v6 = strchr(p->host, ':') != NULL;

	if (line)
		return line[0] ? line : NULL;
	if (!refuse_host_is_plain(p->host))
		return NULL;
	if (p->port == 80 || p->port == 443)
		snprintf(buf, cap, "allow_domains += %s", p->host);
	else if (v6)
		snprintf(buf, cap, "allow_domains += [%s]:%u", p->host, p->port);
	else
		snprintf(buf, cap, "allow_domains += %s:%u", p->host, p->port);
	return buf;
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
		set_dest(p, r->host.p, r->host.n, r->port);
		p->cmd->d->refused++;
		vlog_refusal(p->cmd, p->host, p->port, http_strerror(n), NULL);
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

void front_body(struct pconn *p, char *data, size_t n)
{
	ssize_t take = body_bytes(p, data, n);

	if (take < 0) {
		conn_drop_read(data);
		conn_close(p);
		return;
	}
	if (take > 0)
		conn_send_read(p, data, (size_t)take);
	else
		conn_drop_read(data);
	if (p->body_done)
		uv_read_stop((uv_stream_t *)&p->cli);
}

/* Sends the rewritten head and what of the body arrived with it. */
static void forward_request(struct pconn *p)
{
	char *out = malloc(HTTP_HEAD_MAX + 256);
	size_t rest = p->in_n - p->in_last;
	ssize_t n =
	    out ? http_rewrite_head(p->req, HTTP_REWRITE_CLOSE, out, HTTP_HEAD_MAX + 256) : -ENOMEM;
	ssize_t take;

	if (n < 0) {
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
	p->in_n = 0;
	conn_relay_down(p);
	if (!p->body_done)
		conn_start_reading(p);
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
	conn_close(p);
}
