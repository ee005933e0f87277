/* http — HTTP/1.1 forward-proxy request heads, and the response heads that come back.
 *
 * Rules this file keeps:
 * - Every byte comes from a sandboxed process: hostile. Nothing is allocated, no length the
 *   client states is trusted, nothing is read at or past buf + len.
 * - Bounded: request line, head size and field count have hard limits (http.h).
 * - Strict framing, so the proxy and the upstream can never disagree on where a request
 *   ends: CRLF only (bare CR, bare LF, NUL, obs-fold, space before ':' are errors),
 *   Content-Length and Transfer-Encoding together refused, one Content-Length value, chunked
 *   last and only once, no Transfer-Encoding on HTTP/1.0.
 * - The host the proxy checks is the host the upstream sees: Host must equal the target's
 *   authority; userinfo in the target is refused outright.
 * - The result is a pure function of the bytes up to the end of the head, so feeding one
 *   byte at a time and all at once give the same answer.
 * - Responses are untrusted too (the server may be anyone's): the same byte rules and
 *   limits, Content-Length and Transfer-Encoding read as strictly, and where the body ends
 *   decided by RFC 9112 section 6.3 (no body for HEAD, 1xx, 204, 304; chunked; length;
 *   else until the server closes). 101 is refused: the proxy never forwards Upgrade.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "proxy/http.h"

#include "platform/buf.h"

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int hex_val(unsigned char c)
{
	if (is_digit(c))
		return c - '0';
	return (c | 0x20) - 'a' + 10;
}

/* RFC 9110 tchar. */
static int is_tchar(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* A field-value byte: VCHAR, obs-text, SP, HTAB. */
static int is_fchar(unsigned char c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* Host names the proxy will look up: letters, digits, '-', '.', '_'. */
static int is_hchar(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_';
}

static int slice_eq(struct http_slice s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n == n && strncasecmp(s.p, lit, n) == 0;
}

static struct http_slice trim(const char *p, size_t n)
{
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	return (struct http_slice){p, n};
}

/* --- finding the end of the head ------------------------------------------------------ */

/* Checks byte i in order; returns 0 to go on, 1 at the end of the head, or an error. */
static int scan_byte(const char *buf, size_t i, int *in_method, int *in_line1)
{
	unsigned char c = (unsigned char)buf[i];

	if (*in_method) {
		if (c == ' ' && i > 0)
			*in_method = 0;
		else if (!is_tchar(c) || i >= HTTP_METHOD_MAX)
			return HTTP_E_METHOD;
	}
	if (*in_line1 && i > HTTP_LINE_MAX && c != '\n')
		return HTTP_E_LINE_TOO_LONG; /* the CRLF would end past the limit */
	if (i >= HTTP_HEAD_MAX)
		return HTTP_E_HEAD_TOO_LARGE;
	if (c == 0 || (i > 0 && buf[i - 1] == '\r' && c != '\n'))
		return HTTP_E_SYNTAX;
	if (c != '\n')
		return 0;
	if (i == 0 || buf[i - 1] != '\r')
		return HTTP_E_SYNTAX;
	*in_line1 = 0;
	return i >= 3 && buf[i - 2] == '\n' && buf[i - 3] == '\r';
}

/* Scans from where the last call stopped; the state there is recomputed cheaply. */
/* For a response (request 0) there is no method to check. */
static int head_end(const char *buf, size_t len, size_t last_len, int request, size_t *head_len)
{
	size_t i = last_len <= len ? last_len : 0;
	size_t m = i < HTTP_METHOD_MAX + 1 ? i : HTTP_METHOD_MAX + 1;
	int in_method = request && (i == 0 || !memchr(buf, ' ', m));
	int in_line1 = i <= HTTP_LINE_MAX + 2 && !memchr(buf, '\n', i);

	if (i > 0 && in_method && m < i)
		return HTTP_E_METHOD;
	for (; i < len; i++) {
		int r = scan_byte(buf, i, &in_method, &in_line1);
		if (r < 0)
			return r;
		if (r == 1) {
			*head_len = i + 1;
			return 0;
		}
	}
	/* no end within HTTP_HEAD_MAX bytes: it can only end past the limit */
	return len >= HTTP_HEAD_MAX ? HTTP_E_HEAD_TOO_LARGE : HTTP_PARTIAL;
}

/* --- request line ------------------------------------------------------------------------ */

/* "HTTP/" then digits and dots, starting with a digit: a version, if not one we speak. */
static int is_version(const char *p, size_t n)
{
	if (n < 6 || memcmp(p, "HTTP/", 5) != 0 || !is_digit((unsigned char)p[5]))
		return 0;
	for (size_t i = 6; i < n; i++)
		if (!is_digit((unsigned char)p[i]) && p[i] != '.')
			return 0;
	return 1;
}

/* Parses "METHOD SP target SP HTTP/1.x CRLF"; *pos moves past it. */
static int parse_request_line(const char *buf, size_t head_len, size_t *pos,
			      struct http_request *req)
{
	const char *p = buf, *sp, *crlf;

	crlf = memchr(p, '\r', head_len);
	if (!crlf || (size_t)(crlf - p) > HTTP_LINE_MAX)
		return HTTP_E_LINE_TOO_LONG;
	sp = memchr(p, ' ', (size_t)(crlf - p));
	if (!sp || sp == p || (size_t)(sp - p) > HTTP_METHOD_MAX)
		return HTTP_E_METHOD;
	req->method = (struct http_slice){p, (size_t)(sp - p)};
	for (size_t i = 0; i < req->method.n; i++)
		if (!is_tchar((unsigned char)p[i]))
			return HTTP_E_METHOD;
	p = sp + 1;
	sp = memchr(p, ' ', (size_t)(crlf - p));
	if (!sp || sp == p)
		return HTTP_E_SYNTAX;
	req->target = (struct http_slice){p, (size_t)(sp - p)};
	for (const char *q = p; q < sp; q++)
		if ((unsigned char)*q <= 0x20 || (unsigned char)*q >= 0x7f)
			return HTTP_E_SYNTAX;
	p = sp + 1;
	if (crlf - p != 8 || memcmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1'))
		return is_version((const char *)p, (size_t)(crlf - p)) ? HTTP_E_VERSION
								       : HTTP_E_SYNTAX;
	req->version_minor = p[7] - '0';
	*pos = (size_t)(crlf + 2 - buf);
	return 0;
}

/* --- authority: host[:port] ------------------------------------------------------------- */

struct authority {
	struct http_slice host;
	int v6;
	uint16_t port;
	int port_explicit;
};

static int parse_port(const char *p, size_t n, uint16_t *port)
{
	unsigned v = 0;

	if (n == 0 || n > 5)
		return HTTP_E_TARGET;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit((unsigned char)p[i]))
			return HTTP_E_TARGET;
		v = v * 10 + (unsigned)(p[i] - '0');
	}
	if (v == 0 || v > 65535)
		return HTTP_E_TARGET;
	*port = (uint16_t)v;
	return 0;
}

/* A name: hostname bytes, no empty label except one trailing dot. */
static int check_name(const char *p, size_t n)
{
	if (n == 0 || n > HTTP_HOST_MAX || p[0] == '.')
		return HTTP_E_TARGET;
	for (size_t i = 0; i < n; i++) {
		if (!is_hchar((unsigned char)p[i]))
			return HTTP_E_TARGET;
		if (p[i] == '.' && i > 0 && p[i - 1] == '.')
			return HTTP_E_TARGET;
	}
	return 0;
}

static int check_v6(const char *p, size_t n)
{
	char tmp[64];
	unsigned char bin[16];

	if (n < 2 || n >= sizeof(tmp))
		return HTTP_E_TARGET;
	for (size_t i = 0; i < n; i++)
		if (!is_hex((unsigned char)p[i]) && p[i] != ':' && p[i] != '.')
			return HTTP_E_TARGET;
	memcpy(tmp, p, n);
	tmp[n] = 0;
	return inet_pton(AF_INET6, tmp, bin) == 1 ? 0 : HTTP_E_TARGET;
}

static int parse_authority(const char *p, size_t n, struct authority *a)
{
	const char *colon;
	int r;

	memset(a, 0, sizeof(*a));
	if (n && p[0] == '[') {
		const char *rb = memchr(p, ']', n);
		if (!rb || check_v6(p + 1, (size_t)(rb - p - 1)) < 0)
			return HTTP_E_TARGET;
		a->host = (struct http_slice){p + 1, (size_t)(rb - p - 1)};
		a->v6 = 1;
		colon = rb + 1 < p + n ? rb + 1 : NULL;
		if (colon && *colon != ':')
			return HTTP_E_TARGET;
	} else {
		colon = memchr(p, ':', n);
		a->host = (struct http_slice){p, colon ? (size_t)(colon - p) : n};
		if ((r = check_name(a->host.p, a->host.n)) < 0)
			return r;
	}
	if (!colon)
		return 0;
	a->port_explicit = 1;
	return parse_port(colon + 1, (size_t)(p + n - colon - 1), &a->port);
}

/* --- request-target --------------------------------------------------------------------- */

static void set_target(struct http_request *req, const struct authority *a)
{
	req->host = a->host;
	req->host_is_ipv6 = a->v6;
	req->port = a->port;
	req->port_explicit = a->port_explicit;
}

static int parse_absolute(struct http_request *req)
{
	const char *p = req->target.p, *end = p + req->target.n, *s = p, *auth;
	struct authority a;
	int r;

	if (!is_alpha((unsigned char)*s))
		return HTTP_E_TARGET;
	while (s < end && (is_alpha((unsigned char)*s) || is_digit((unsigned char)*s) ||
			   *s == '+' || *s == '-' || *s == '.'))
		s++;
	if (end - s < 3 || memcmp(s, "://", 3) != 0)
		return HTTP_E_TARGET;
	req->scheme = (struct http_slice){p, (size_t)(s - p)};
	if (!slice_eq(req->scheme, "http"))
		return HTTP_E_SCHEME;
	auth = s + 3;
	for (s = auth; s < end && *s != '/' && *s != '?'; s++)
		if (*s == '@')
			return HTTP_E_USERINFO;
	if ((r = parse_authority(auth, (size_t)(s - auth), &a)) < 0)
		return r;
	if (!a.port_explicit)
		a.port = 80;
	set_target(req, &a);
	req->path = (struct http_slice){s, (size_t)(end - s)};
	req->form = HTTP_FORM_ABSOLUTE;
	return 0;
}

static int parse_target(struct http_request *req)
{
	struct authority a;
	int r;

	if (memchr(req->target.p, '#', req->target.n))
		return HTTP_E_TARGET;
	if (req->target.p[0] == '/') {
		req->form = HTTP_FORM_ORIGIN;
		req->path = req->target;
		return HTTP_E_ORIGIN_FORM;
	}
	if (!req->is_connect)
		return parse_absolute(req);
	if ((r = parse_authority(req->target.p, req->target.n, &a)) < 0)
		return r;
	if (!a.port_explicit)
		return HTTP_E_TARGET;
	set_target(req, &a);
	req->form = HTTP_FORM_AUTHORITY;
	return 0;
}

/* --- field lines ------------------------------------------------------------------------ */

/* One "name: value CRLF" at *pos; the caller knows a CRLF ends the head. */
static int parse_field(const char *buf, size_t *pos, struct http_header *h)
{
	const char *p = buf + *pos, *name = p, *v;

	while (is_tchar((unsigned char)*p))
		p++;
	if (p == name || *p != ':')
		return HTTP_E_SYNTAX; /* obs-fold, space before ':', bad name byte */
	h->name = (struct http_slice){name, (size_t)(p - name)};
	v = ++p;
	while (*p != '\r') {
		if (!is_fchar((unsigned char)*p))
			return HTTP_E_SYNTAX;
		p++;
	}
	h->value = trim(v, (size_t)(p - v));
	*pos = (size_t)(p + 2 - buf);
	return 0;
}

static int parse_fields(const char *buf, size_t head_len, size_t pos, struct http_header *hs,
			size_t *nheaders)
{
	int r;

	while (pos + 2 < head_len) {
		if (*nheaders == HTTP_HEADERS_MAX)
			return HTTP_E_TOO_MANY_HEADERS;
		if ((r = parse_field(buf, &pos, &hs[*nheaders])) < 0)
			return r;
		++*nheaders;
	}
	return 0;
}

/* --- list-valued fields ------------------------------------------------------------------ */

/* Calls fn for each non-empty element of a comma list; stops at fn's first error. */
static int each_element(struct http_slice v, int (*fn)(struct http_slice, void *), void *arg)
{
	const char *p = v.p, *end = v.p + v.n;

	while (p <= end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *e = c ? c : end;
		struct http_slice el = trim(p, (size_t)(e - p));
		int r = el.n ? fn(el, arg) : 0;
		if (r < 0)
			return r;
		p = e + 1;
	}
	return 0;
}

struct framing {
	int cl_seen, te_seen, te_chunked_last, te_error;
	uint64_t cl;
	int conn_close, conn_keep;
};

static int cl_element(struct http_slice el, void *arg)
{
	struct framing *f = arg;
	uint64_t v = 0;

	if (el.n > 19)
		return HTTP_E_CONTENT_LENGTH;
	for (size_t i = 0; i < el.n; i++) {
		if (!is_digit((unsigned char)el.p[i]))
			return HTTP_E_CONTENT_LENGTH;
		v = v * 10 + (uint64_t)(el.p[i] - '0');
	}
	if (f->cl_seen && f->cl != v)
		return HTTP_E_CONTENT_LENGTH;
	f->cl_seen = 1;
	f->cl = v;
	return 0;
}

static int te_element(struct http_slice el, void *arg)
{
	struct framing *f = arg;

	for (size_t i = 0; i < el.n; i++)
		if (!is_tchar((unsigned char)el.p[i]))
			return HTTP_E_TRANSFER_ENCODING; /* parameters, junk */
	if (f->te_chunked_last)
		return HTTP_E_TRANSFER_ENCODING; /* chunked must be last and once */
	f->te_chunked_last = slice_eq(el, "chunked");
	f->te_seen = 1;
	return 0;
}

static int conn_element(struct http_slice el, void *arg)
{
	struct framing *f = arg;

	if (slice_eq(el, "close"))
		f->conn_close = 1;
	else if (slice_eq(el, "keep-alive"))
		f->conn_keep = 1;
	return 0;
}

/* --- semantics ---------------------------------------------------------------------------- */

static int host_equal(struct http_slice a, int a6, struct http_slice b, int b6)
{
	if (a6 != b6)
		return 0;
	if (a6) {
		char ta[64], tb[64];
		unsigned char ba[16], bb[16];
		memcpy(ta, a.p, a.n), ta[a.n] = 0;
		memcpy(tb, b.p, b.n), tb[b.n] = 0;
		return inet_pton(AF_INET6, ta, ba) == 1 && inet_pton(AF_INET6, tb, bb) == 1 &&
		       memcmp(ba, bb, 16) == 0;
	}
	if (a.n && a.p[a.n - 1] == '.')
		a.n--;
	if (b.n && b.p[b.n - 1] == '.')
		b.n--;
	return a.n == b.n && strncasecmp(a.p, b.p, a.n) == 0;
}

/* Host must name the target: same host (case, one trailing dot aside), same port (a Host
 * without port means 80 for http://; for CONNECT, 80 or 443). */
static int check_host(const struct http_request *req, struct http_slice value)
{
	struct authority a;

	if (parse_authority(value.p, value.n, &a) < 0)
		return HTTP_E_HOST_MISMATCH;
	if (!host_equal(a.host, a.v6, req->host, req->host_is_ipv6))
		return HTTP_E_HOST_MISMATCH;
	if (a.port_explicit)
		return a.port == req->port ? 0 : HTTP_E_HOST_MISMATCH;
	if (req->port == 80 || (req->is_connect && req->port == 443))
		return 0;
	return HTTP_E_HOST_MISMATCH;
}

/* Content-Length and Transfer-Encoding into f, one rule for requests and responses; any
 * other field is left alone. 0 or an HTTP_E_* code. */
static int framing_field(const struct http_header *h, struct framing *f)
{
	int r = 0;

	if (slice_eq(h->name, "Content-Length")) {
		r = h->value.n ? each_element(h->value, cl_element, f) : HTTP_E_CONTENT_LENGTH;
		if (r == 0 && !f->cl_seen)
			r = HTTP_E_CONTENT_LENGTH;
	} else if (slice_eq(h->name, "Transfer-Encoding")) {
		r = each_element(h->value, te_element, f);
		if (r == 0 && !f->te_seen)
			r = HTTP_E_TRANSFER_ENCODING;
	}
	return r;
}

/* Reads the fields that frame the message or name its host. */
static int read_fields(struct http_request *req, struct framing *f, int *hosts)
{
	int r = 0;

	for (size_t i = 0; i < req->nheaders && r == 0; i++) {
		struct http_header *h = &req->headers[i];
		if (slice_eq(h->name, "Host")) {
			if (++*hosts > 1)
				return HTTP_E_HOST_DUPLICATE;
			r = check_host(req, h->value);
		} else if (slice_eq(h->name, "Connection") ||
			   slice_eq(h->name, "Proxy-Connection")) {
			r = each_element(h->value, conn_element, f);
		} else {
			r = framing_field(h, f);
		}
	}
	return r;
}

static int check_framing(struct http_request *req, const struct framing *f)
{
	if (f->te_seen && f->cl_seen)
		return HTTP_E_CL_AND_TE;
	if (f->te_seen && (!f->te_chunked_last || req->version_minor == 0))
		return HTTP_E_TRANSFER_ENCODING;
	if (req->is_connect && (f->te_seen || (f->cl_seen && f->cl)))
		return HTTP_E_CONNECT_BODY;
	if (f->te_seen) {
		req->body = HTTP_BODY_CHUNKED;
	} else if (f->cl_seen && f->cl) {
		req->body = HTTP_BODY_LENGTH;
		req->content_length = f->cl;
	}
	req->keep_alive = !f->conn_close && (req->version_minor == 1 || f->conn_keep);
	return 0;
}

static int check_semantics(struct http_request *req)
{
	struct framing f = {0};
	int hosts = 0, r;

	if ((r = read_fields(req, &f, &hosts)) < 0)
		return r;
	req->has_host = hosts == 1;
	if (!hosts && req->version_minor == 1)
		return HTTP_E_HOST_MISSING;
	return check_framing(req, &f);
}

int http_parse_request(const char *buf, size_t len, size_t last_len, struct http_request *req)
{
	size_t head_len = 0, pos = 0;
	int r;

	if ((r = head_end(buf, len, last_len, 1, &head_len)) < 0)
		return r;
	memset(req, 0, sizeof(*req));
	if ((r = parse_request_line(buf, head_len, &pos, req)) < 0)
		return r;
	req->is_connect = req->method.n == 7 && memcmp(req->method.p, "CONNECT", 7) == 0;
	if ((r = parse_fields(buf, head_len, pos, req->headers, &req->nheaders)) < 0)
		return r;
	if ((r = parse_target(req)) < 0)
		return r;
	if ((r = check_semantics(req)) < 0)
		return r;
	return (int)head_len;
}

/* --- errors ------------------------------------------------------------------------------- */

/* A limit's value as a string literal: the messages below spell the constants, never copies. */
#define SBX_STR_(x) #x
#define SBX_STR(x)  SBX_STR_(x)

static const struct {
	int code, status;
	const char *msg;
} http_errors[] = {
    {HTTP_PARTIAL, 0, "incomplete request"},
    {HTTP_E_SYNTAX, 400,
     "malformed request (bad byte, bare CR or LF, folded or badly named field)"},
    {HTTP_E_LINE_TOO_LONG, 414, "request line longer than " SBX_STR(HTTP_LINE_MAX) " bytes"},
    {HTTP_E_HEAD_TOO_LARGE, 431, "request head larger than " SBX_STR(HTTP_HEAD_MAX) " bytes"},
    {HTTP_E_TOO_MANY_HEADERS, 431, "more than " SBX_STR(HTTP_HEADERS_MAX) " header fields"},
    {HTTP_E_METHOD, 400, "not an HTTP request (bad method)"},
    {HTTP_E_VERSION, 505, "only HTTP/1.0 and HTTP/1.1 are supported"},
    {HTTP_E_TARGET, 400, "bad request target (host, port or form)"},
    {HTTP_E_ORIGIN_FORM, 400,
     "request for an origin server sent to the proxy (use an absolute URI)"},
    {HTTP_E_SCHEME, 501, "only http:// URIs are proxied (use CONNECT for https)"},
    {HTTP_E_USERINFO, 400, "user name in the request URI is refused"},
    {HTTP_E_HOST_MISSING, 400, "HTTP/1.1 request without Host header"},
    {HTTP_E_HOST_DUPLICATE, 400, "more than one Host header"},
    {HTTP_E_HOST_MISMATCH, 400, "Host header does not match the request target"},
    {HTTP_E_CONTENT_LENGTH, 400, "invalid or conflicting Content-Length"},
    {HTTP_E_TRANSFER_ENCODING, 400,
     "unsupported Transfer-Encoding (must end in chunked, HTTP/1.1 only)"},
    {HTTP_E_CL_AND_TE, 400, "both Content-Length and Transfer-Encoding"},
    {HTTP_E_CONNECT_BODY, 400, "CONNECT request with a body"},
    {HTTP_E_CHUNKED, 400, "malformed chunked body"},
    {HTTP_E_NOSPC, 500, "output buffer too small"},
    {HTTP_E_STATUS, 502, "bad status code in the response"},
    {HTTP_E_UPGRADE, 502, "101 Switching Protocols that was not asked for"},
    {HTTP_E_INTERIM, 502, "more than " SBX_STR(HTTP_INTERIM_MAX) " interim (1xx) responses"},
};

const char *http_strerror(int result)
{
	for (size_t i = 0; i < sizeof(http_errors) / sizeof(http_errors[0]); i++)
		if (http_errors[i].code == result)
			return http_errors[i].msg;
	return result >= 0 ? "ok" : "unknown error";
}

int http_error_status(int result)
{
	for (size_t i = 0; i < sizeof(http_errors) / sizeof(http_errors[0]); i++)
		if (http_errors[i].code == result)
			return http_errors[i].status;
	return 400;
}

/* --- rewrite for upstream ----------------------------------------------------------------- */

static void put_slice(struct fbuf *o, struct http_slice s)
{
	fbuf_add(o, s.p, s.n);
}

struct named {
	struct http_slice name;
	int found;
};

static int named_element(struct http_slice el, void *arg)
{
	struct named *nm = arg;

	if (el.n == nm->name.n && strncasecmp(el.p, nm->name.p, el.n) == 0)
		nm->found = 1;
	return 0;
}

static const char *const hop_by_hop[] = {
    "Connection",
    "Proxy-Connection",
    "Proxy-Authorization",
    "Proxy-Authenticate",
    "Keep-Alive",
    "TE",
    "Trailer",
    "Upgrade",
};

/* The response side: what the server says about its connection to the proxy is not the
 * client's business. */
static const char *const resp_hop_by_hop[] = {
    "Connection", "Proxy-Connection", "Keep-Alive", "Upgrade", "Proxy-Authenticate",
};

struct hop_list {
	const char *const *names;
	size_t n;
};

static const struct hop_list req_hops = {hop_by_hop, sizeof(hop_by_hop) / sizeof(hop_by_hop[0])};
static const struct hop_list resp_hops = {resp_hop_by_hop,
					  sizeof(resp_hop_by_hop) / sizeof(resp_hop_by_hop[0])};

/* Hop-by-hop: fixed names, and names listed in Connection (never the framing or Host). */
static int is_hop_by_hop(const struct http_header *hs, size_t nh, const struct hop_list *fixed,
			 struct http_slice name)
{
	struct named nm = {name, 0};

	for (size_t i = 0; i < fixed->n; i++)
		if (slice_eq(name, fixed->names[i]))
			return 1;
	if (slice_eq(name, "Host") || slice_eq(name, "Content-Length") ||
	    slice_eq(name, "Transfer-Encoding"))
		return 0;
	for (size_t i = 0; i < nh && !nm.found; i++)
		if (slice_eq(hs[i].name, "Connection"))
			each_element(hs[i].value, named_element, &nm);
	return nm.found;
}

/* The fields of hs that are not hop-by-hop, each with its CRLF. */
static void put_fields(struct fbuf *o, const struct http_header *hs, size_t nh,
		       const struct hop_list *fixed)
{
	for (size_t i = 0; i < nh; i++) {
		if (is_hop_by_hop(hs, nh, fixed, hs[i].name))
			continue;
		put_slice(o, hs[i].name);
		fbuf_puts(o, ": ");
		put_slice(o, hs[i].value);
		fbuf_puts(o, "\r\n");
	}
}

static void put_host(struct fbuf *o, const struct http_request *req)
{
	fbuf_puts(o, "Host: ");
	if (req->host_is_ipv6)
		fbuf_puts(o, "[");
	put_slice(o, req->host);
	if (req->host_is_ipv6)
		fbuf_puts(o, "]");
	if (req->port != 80)
		fbuf_printf(o, ":%u", (unsigned)req->port);
	fbuf_puts(o, "\r\n");
}

ssize_t http_rewrite_head(const struct http_request *req, unsigned flags, char *out, size_t cap)
{
	struct fbuf o = fbuf_on(out, cap);

	if (req->form != HTTP_FORM_ABSOLUTE)
		return HTTP_E_TARGET;
	put_slice(&o, req->method);
	fbuf_puts(&o, " ");
	if (req->path.n == 0 || req->path.p[0] != '/')
		fbuf_puts(&o, "/");
	put_slice(&o, req->path);
	fbuf_puts(&o, " HTTP/1.1\r\n");
	put_fields(&o, req->headers, req->nheaders, &req_hops);
	if (!req->has_host)
		put_host(&o, req);
	if (flags & HTTP_REWRITE_CLOSE)
		fbuf_puts(&o, "Connection: close\r\n");
	fbuf_puts(&o, "\r\n");
	return o.err ? HTTP_E_NOSPC : (ssize_t)o.n;
}

/* --- chunked framing ---------------------------------------------------------------------- */

enum {
	CK_SIZE,      /* first hex digit */
	CK_SIZE_MORE, /* more digits, ';' or CR */
	CK_EXT,	      /* chunk extension up to CR */
	CK_SIZE_LF,
	CK_DATA,
	CK_DATA_CR,
	CK_DATA_LF,
	CK_TRAILER, /* start of a trailer line, or the final CRLF */
	CK_TNAME,
	CK_TVALUE,
	CK_TLF,
	CK_END_LF,
	CK_DONE,
};

void http_chunked_init(struct http_chunked *c)
{
	memset(c, 0, sizeof(*c));
	c->state = CK_SIZE;
}

int http_chunked_done(const struct http_chunked *c)
{
	return c->state == CK_DONE;
}

static int ck_size(struct http_chunked *c, unsigned char b)
{
	if (is_hex(b)) {
		if (c->remaining > (UINT64_MAX >> 4))
			return HTTP_E_CHUNKED;
		c->remaining = (c->remaining << 4) | (uint64_t)hex_val(b);
		c->state = CK_SIZE_MORE;
		return 0;
	}
	if (c->state == CK_SIZE)
		return HTTP_E_CHUNKED;
	if (b == ';')
		c->state = CK_EXT;
	else if (b == '\r')
		c->state = CK_SIZE_LF;
	else
		return HTTP_E_CHUNKED;
	return 0;
}

/* One byte of the size line or trailer; data bytes are skipped by the caller. */
static int ck_byte(struct http_chunked *c, unsigned char b)
{
	switch (c->state) {
	case CK_SIZE:
	case CK_SIZE_MORE:
		return ck_size(c, b);
	case CK_EXT:
		if (b == '\r')
			c->state = CK_SIZE_LF;
		else if (!is_fchar(b))
			return HTTP_E_CHUNKED;
		return 0;
	case CK_SIZE_LF:
		if (b != '\n')
			return HTTP_E_CHUNKED;
		c->line = 0;
		c->state = c->remaining ? CK_DATA : CK_TRAILER;
		return 0;
	case CK_DATA_CR:
		c->state = CK_DATA_LF;
		return b == '\r' ? 0 : HTTP_E_CHUNKED;
	case CK_DATA_LF:
		c->state = CK_SIZE;
		return b == '\n' ? 0 : HTTP_E_CHUNKED;
	case CK_TRAILER:
		if (b == '\r')
			c->state = CK_END_LF;
		else if (is_tchar(b))
			c->state = CK_TNAME;
		else
			return HTTP_E_CHUNKED;
		return 0;
	case CK_TNAME:
		if (b == ':')
			c->state = CK_TVALUE;
		else if (!is_tchar(b))
			return HTTP_E_CHUNKED;
		return 0;
	case CK_TVALUE:
		if (b == '\r')
			c->state = CK_TLF;
		else if (!is_fchar(b))
			return HTTP_E_CHUNKED;
		return 0;
	case CK_TLF:
		c->state = CK_TRAILER;
		return b == '\n' ? 0 : HTTP_E_CHUNKED;
	case CK_END_LF:
		c->state = CK_DONE;
		return b == '\n' ? 0 : HTTP_E_CHUNKED;
	}
	return HTTP_E_CHUNKED;
}

static int ck_bounds(struct http_chunked *c)
{
	if (c->state <= CK_SIZE_LF && ++c->line > HTTP_CHUNK_LINE_MAX)
		return HTTP_E_CHUNKED;
	if (c->state >= CK_TRAILER && ++c->trailer > HTTP_TRAILER_MAX)
		return HTTP_E_CHUNKED;
	return 0;
}

ssize_t http_chunked_scan(struct http_chunked *c, const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && c->state != CK_DONE) {
		if (c->state == CK_DATA) {
			size_t n = len - i;
			if ((uint64_t)n > c->remaining)
				n = (size_t)c->remaining;
			c->remaining -= n;
			i += n;
			if (!c->remaining)
				c->state = CK_DATA_CR;
			continue;
		}
		if (ck_bounds(c) < 0 || ck_byte(c, (unsigned char)buf[i]) < 0) {
			c->state = -1;
			return HTTP_E_CHUNKED;
		}
		i++;
	}
	if (c->state < 0)
		return HTTP_E_CHUNKED;
	return (ssize_t)i;
}

/* --- responses ---------------------------------------------------------------------------- */

/* "HTTP/1.x SP 3DIGIT [SP reason] CRLF"; *pos moves past it. The space before an empty
 * reason may be missing (servers do that). */
static int parse_status_line(const char *buf, size_t head_len, size_t *pos,
			     struct http_response *resp)
{
	const char *crlf = memchr(buf, '\r', head_len), *sp;
	size_t n;

	if (!crlf || (size_t)(crlf - buf) > HTTP_LINE_MAX)
		return HTTP_E_LINE_TOO_LONG;
	n = (size_t)(crlf - buf);
	if (n < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || (buf[7] != '0' && buf[7] != '1') ||
	    buf[8] != ' ') {
		sp = memchr(buf, ' ', n);
		return is_version(buf, sp ? (size_t)(sp - buf) : n) ? HTTP_E_VERSION
								    : HTTP_E_SYNTAX;
	}
	resp->version_minor = buf[7] - '0';
	for (size_t i = 9; i < 12; i++) {
		if (!is_digit((unsigned char)buf[i]))
			return HTTP_E_STATUS;
		resp->status = resp->status * 10 + (buf[i] - '0');
	}
	if (resp->status < 100 || resp->status > 599 || (n > 12 && buf[12] != ' '))
		return HTTP_E_STATUS;
	resp->reason = (struct http_slice){buf + 13, n > 13 ? n - 13 : 0};
	for (size_t i = 0; i < resp->reason.n; i++)
		if (!is_fchar((unsigned char)resp->reason.p[i]))
			return HTTP_E_SYNTAX;
	*pos = n + 2;
	return 0;
}

/* Content-Length and Transfer-Encoding, as strict as for requests. */
static int resp_fields(const struct http_response *resp, struct framing *f)
{
	int r = 0;

	for (size_t i = 0; i < resp->nheaders && r == 0; i++)
		r = framing_field(&resp->headers[i], f);
	return r;
}

/* RFC 9112 section 6.3, strictly: where the response's body ends. */
static int resp_framing(struct http_response *resp, unsigned flags)
{
	struct framing f = {0};
	int r;

	if (resp->status == 101)
		return HTTP_E_UPGRADE;
	if ((r = resp_fields(resp, &f)) < 0)
		return r;
	if (f.te_seen && f.cl_seen)
		return HTTP_E_CL_AND_TE;
	if (f.te_seen && resp->version_minor == 0)
		return HTTP_E_TRANSFER_ENCODING;
	if (resp->status < 200 || resp->status == 204 || resp->status == 304 ||
	    (flags & HTTP_RESP_TO_HEAD))
		resp->body = HTTP_BODY_NONE;
	else if (f.te_seen)
		resp->body = f.te_chunked_last ? HTTP_BODY_CHUNKED : HTTP_BODY_CLOSE;
	else if (f.cl_seen)
		resp->body = f.cl ? HTTP_BODY_LENGTH : HTTP_BODY_NONE;
	else
		resp->body = HTTP_BODY_CLOSE;
	if (resp->body == HTTP_BODY_LENGTH)
		resp->content_length = f.cl;
	return 0;
}

int http_parse_response(const char *buf, size_t len, size_t last_len, unsigned flags,
			struct http_response *resp)
{
	size_t head_len = 0, pos = 0;
	int r;

	if ((r = head_end(buf, len, last_len, 0, &head_len)) < 0)
		return r;
	memset(resp, 0, sizeof(*resp));
	if ((r = parse_status_line(buf, head_len, &pos, resp)) < 0)
		return r;
	if ((r = parse_fields(buf, head_len, pos, resp->headers, &resp->nheaders)) < 0)
		return r;
	if ((r = resp_framing(resp, flags)) < 0)
		return r;
	return (int)head_len;
}

static const struct {
	int code;
	const char *msg;
} resp_errors[] = {
    {HTTP_PARTIAL, "incomplete response head"},
    {HTTP_E_SYNTAX, "malformed response head (bad byte, bare CR or LF, folded or badly "
		    "named field)"},
    {HTTP_E_LINE_TOO_LONG, "status line longer than " SBX_STR(HTTP_LINE_MAX) " bytes"},
    {HTTP_E_HEAD_TOO_LARGE, "response head larger than " SBX_STR(HTTP_HEAD_MAX) " bytes"},
    {HTTP_E_TOO_MANY_HEADERS,
     "more than " SBX_STR(HTTP_HEADERS_MAX) " header fields in the response"},
    {HTTP_E_VERSION, "response version is not HTTP/1.0 or HTTP/1.1"},
    {HTTP_E_STATUS, "bad status code in the response"},
    {HTTP_E_UPGRADE, "101 Switching Protocols that was not asked for"},
    {HTTP_E_CONTENT_LENGTH, "invalid or conflicting Content-Length in the response"},
    {HTTP_E_TRANSFER_ENCODING, "unsupported Transfer-Encoding in the response"},
    {HTTP_E_CL_AND_TE, "both Content-Length and Transfer-Encoding in the response"},
    {HTTP_E_CHUNKED, "malformed chunked response body"},
    {HTTP_E_INTERIM, "more than " SBX_STR(HTTP_INTERIM_MAX) " interim (1xx) responses"},
};

const char *http_response_strerror(int result)
{
	for (size_t i = 0; i < sizeof(resp_errors) / sizeof(resp_errors[0]); i++)
		if (resp_errors[i].code == result)
			return resp_errors[i].msg;
	return result >= 0 ? "ok" : "unknown error";
}

ssize_t http_rewrite_response(const struct http_response *resp, unsigned flags, char *out,
			      size_t cap)
{
	struct fbuf o = fbuf_on(out, cap);

	fbuf_printf(&o, "HTTP/1.1 %03d ", resp->status % 1000);
	put_slice(&o, resp->reason);
	fbuf_puts(&o, "\r\n");
	put_fields(&o, resp->headers, resp->nheaders, &resp_hops);
	if (flags & HTTP_RESP_CLOSE)
		fbuf_puts(&o, "Connection: close\r\n");
	else if (flags & HTTP_RESP_KEEP_ALIVE)
		fbuf_puts(&o, "Connection: keep-alive\r\n");
	fbuf_puts(&o, "\r\n");
	return o.err ? HTTP_E_NOSPC : (ssize_t)o.n;
}
