/* socks — SOCKS5 server side (RFC 1928).
 *
 * Rules this file keeps:
 * - Every byte comes from a sandboxed process: hostile. No read at or past buf + len, no
 *   length trusted beyond the bytes present; nothing allocated.
 * - Only what the proxy supports is accepted: no-auth, CONNECT, IPv4 / domain / IPv6.
 *   SOCKS4 and everything else are refused with the reply RFC 1928 names.
 * - A domain name reaches the daemon NUL-terminated with no NUL or control byte inside, so
 *   it cannot be cut short or smuggle a line into a log.
 * - An error is decided by the first byte that makes it, so feeding one byte at a time and
 *   all at once give the same answer.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "proxy/socks.h"

int socks_parse_greeting(const uint8_t *buf, size_t len, uint8_t *method)
{
	size_t n;

	if (len < 1)
		return SOCKS_PARTIAL;
	if (buf[0] == 4)
		return SOCKS_E_SOCKS4;
	if (buf[0] != 5)
		return SOCKS_E_VERSION;
	if (len < 2)
		return SOCKS_PARTIAL;
	if (buf[1] == 0)
		return SOCKS_E_MALFORMED;
	n = (size_t)buf[1] + 2;
	if (len < n)
		return SOCKS_PARTIAL;
	if (!memchr(buf + 2, SOCKS_METHOD_NOAUTH, buf[1]))
		return SOCKS_E_NO_METHOD;
	*method = SOCKS_METHOD_NOAUTH;
	return (int)n;
}

/* Checks VER CMD RSV ATYP as far as present. */
static int request_prefix(const uint8_t *buf, size_t len)
{
	if (len >= 1 && buf[0] != 5)
		return buf[0] == 4 ? SOCKS_E_SOCKS4 : SOCKS_E_VERSION;
	if (len >= 2 && buf[1] != SOCKS_CMD_CONNECT)
		return SOCKS_E_COMMAND;
	if (len >= 3 && buf[2] != 0)
		return SOCKS_E_MALFORMED;
	if (len >= 4 && buf[3] != SOCKS_ATYP_IPV4 && buf[3] != SOCKS_ATYP_DOMAIN &&
	    buf[3] != SOCKS_ATYP_IPV6)
		return SOCKS_E_ATYP;
	return len >= 4 ? 0 : SOCKS_PARTIAL;
}

/* Checks the domain bytes present so far: 1..255, no NUL, no control byte, no space. */
static int domain_prefix(const uint8_t *buf, size_t len)
{
	if (len < 5)
		return SOCKS_PARTIAL;
	if (buf[4] == 0)
		return SOCKS_E_MALFORMED;
	for (size_t i = 5; i < len && i < 5 + (size_t)buf[4]; i++)
		if (buf[i] <= 0x20 || buf[i] == 0x7f)
			return SOCKS_E_MALFORMED;
	return 0;
}

static int request_fill(const uint8_t *buf, size_t alen, struct socks_request *req)
{
	const uint8_t *a = buf + 4;

	memset(req, 0, sizeof(*req));
	req->atyp = buf[3];
	if (req->atyp == SOCKS_ATYP_DOMAIN) {
		memcpy(req->host, a + 1, alen - 1);
		req->host[alen - 1] = 0;
	} else {
		memcpy(req->addr, a, alen);
		inet_ntop(alen == 4 ? AF_INET : AF_INET6, a, req->host, sizeof(req->host));
	}
	req->port = (uint16_t)(buf[4 + alen] << 8 | buf[5 + alen]);
	return req->port ? 0 : SOCKS_E_MALFORMED;
}

int socks_parse_request(const uint8_t *buf, size_t len, struct socks_request *req)
{
	size_t alen;
	int r;

	if ((r = request_prefix(buf, len)) < 0)
		return r;
	if (buf[3] == SOCKS_ATYP_DOMAIN) {
		if ((r = domain_prefix(buf, len)) < 0)
			return r;
		alen = 1 + (size_t)buf[4];
	} else {
		alen = buf[3] == SOCKS_ATYP_IPV4 ? 4 : 16;
	}
	if (len < 4 + alen + 2)
		return SOCKS_PARTIAL;
	if ((r = request_fill(buf, alen, req)) < 0)
		return r;
	return (int)(4 + alen + 2);
}

uint8_t socks_error_rep(int err)
{
	switch (err) {
	case SOCKS_E_COMMAND:
		return SOCKS_REP_COMMAND;
	case SOCKS_E_ATYP:
		return SOCKS_REP_ATYP;
	}
	return SOCKS_REP_GENERAL;
}

size_t socks_reply(uint8_t rep, const struct sockaddr *bound, uint8_t *out)
{
	out[0] = 5;
	out[1] = rep;
	out[2] = 0;
	if (bound && bound->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)bound;
		out[3] = SOCKS_ATYP_IPV6;
		memcpy(out + 4, &s6->sin6_addr, 16);
		memcpy(out + 20, &s6->sin6_port, 2);
		return 22;
	}
	out[3] = SOCKS_ATYP_IPV4;
	memset(out + 4, 0, 6);
	if (bound && bound->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)bound;
		memcpy(out + 4, &s4->sin_addr, 4);
		memcpy(out + 8, &s4->sin_port, 2);
	}
	return 10;
}

size_t socks4_reject(uint8_t *out)
{
	memset(out, 0, 8);
	out[1] = 0x5B;
	return 8;
}

void socks_conn_init(struct socks_conn *c)
{
	c->stage = SOCKS_STAGE_GREETING;
}

static int step_greeting(struct socks_conn *c, const uint8_t *buf, size_t len, uint8_t *reply,
			 size_t *reply_len)
{
	uint8_t method = SOCKS_METHOD_NONE;
	int r = socks_parse_greeting(buf, len, &method);

	if (r == SOCKS_PARTIAL)
		return r;
	if (r == SOCKS_E_SOCKS4) {
		*reply_len = socks4_reject(reply);
	} else if (r > 0 || r == SOCKS_E_NO_METHOD) {
		reply[0] = 5;
		reply[1] = method;
		*reply_len = 2;
	}
	c->stage = r > 0 ? SOCKS_STAGE_REQUEST : SOCKS_STAGE_FAILED;
	return r;
}

static int step_request(struct socks_conn *c, const uint8_t *buf, size_t len,
			struct socks_request *req, uint8_t *reply, size_t *reply_len)
{
	int r = socks_parse_request(buf, len, req);

	if (r == SOCKS_PARTIAL)
		return r;
	if (r > 0) {
		c->stage = SOCKS_STAGE_CONNECT;
		return r;
	}
	c->stage = SOCKS_STAGE_FAILED;
	if (r != SOCKS_E_VERSION && r != SOCKS_E_SOCKS4)
		*reply_len = socks_reply(socks_error_rep(r), NULL, reply);
	return r;
}

int socks_step(struct socks_conn *c, const uint8_t *buf, size_t len, struct socks_request *req,
	       uint8_t *reply, size_t *reply_len)
{
	*reply_len = 0;
	switch (c->stage) {
	case SOCKS_STAGE_GREETING:
		return step_greeting(c, buf, len, reply, reply_len);
	case SOCKS_STAGE_REQUEST:
		return step_request(c, buf, len, req, reply, reply_len);
	default:
		return SOCKS_E_STATE;
	}
}

static const struct {
	int code;
	const char *msg;
} socks_errors[] = {
    {SOCKS_PARTIAL, "incomplete SOCKS message"},
    {SOCKS_E_VERSION, "not a SOCKS5 client"},
    {SOCKS_E_SOCKS4, "SOCKS4 is not supported (use socks5h://)"},
    {SOCKS_E_NO_METHOD, "client offers no method without authentication"},
    {SOCKS_E_COMMAND, "only the CONNECT command is supported"},
    {SOCKS_E_ATYP, "unsupported address type"},
    {SOCKS_E_MALFORMED, "malformed SOCKS request"},
    {SOCKS_E_STATE, "SOCKS request after the connection was set up"},
};

const char *socks_strerror(int err)
{
	for (size_t i = 0; i < sizeof(socks_errors) / sizeof(socks_errors[0]); i++)
		if (socks_errors[i].code == err)
			return socks_errors[i].msg;
	return err >= 0 ? "ok" : "unknown error";
}
