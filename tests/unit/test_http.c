/* test_http — forward-proxy request heads: forms, framing, smuggling guards, limits,
 * byte-at-a-time feeding against a guard page, rewrite, chunked framing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/http.h"
#include "tests/unit/guard.h"
#include "tests/unit/tap.h"

static struct guard g;
static struct http_request req;

static int parse(const char *s)
{
	size_t n = strlen(s);
	const char *p = guard_place(&g, s, n);

	return http_parse_request(p, n, 0, &req);
}

static char sbuf[HTTP_HEAD_MAX + 1];

static const char *slice(struct http_slice s)
{
	memcpy(sbuf, s.p, s.n);
	sbuf[s.n] = 0;
	return sbuf;
}

/* Feeds prefixes one byte longer each time; the first non-partial answer must be the
 * one-shot answer, and every prefix is read against the guard page. */
static int incremental(const char *s, size_t n, int *first)
{
	static struct http_request r2;
	int one = http_parse_request(s, n, 0, &r2);

	for (size_t k = 1; k <= n; k++) {
		const char *p = guard_place(&g, s, k);
		int r = http_parse_request(p, k, k - 1, &r2);
		if (r == HTTP_PARTIAL)
			continue;
		*first = r;
		return r == one;
	}
	*first = HTTP_PARTIAL;
	return one == HTTP_PARTIAL;
}

#define GET(target, fields) "GET " target " HTTP/1.1\r\n" fields "\r\n"
#define H(host)		    "Host: " host "\r\n"

static const struct {
	const char *in;
	int want;
	const char *why;
} cases[] = {
    {GET("http://example.com/", H("example.com")), 0, "absolute-form GET"},
    {GET("http://Example.COM:8080/a?b=c", H("example.com:8080")), 0, "port and query"},
    {GET("http://[::1]:8080/", H("[::1]:8080")), 0, "IPv6 literal"},
    {GET("http://[::1]:8080/", H("[0:0::1]:8080")), 0, "IPv6 Host in another spelling"},
    {GET("http://example.com./", H("example.com")), 0, "trailing dot in target, not Host"},
    {GET("http://example.com/", H("EXAMPLE.com.")), 0, "trailing dot in Host, case differs"},
    {GET("http://example.com/", H("example.com:80")), 0, "Host with the default port"},
    {GET("http://example.com:80/", H("example.com")), 0, "target with the default port"},
    {GET("http://example.com", H("example.com")), 0, "empty path"},
    {GET("http://example.com/", H("example.com") "Content-Length: 5\r\n"), 0, "CL"},
    {GET("http://example.com/", H("example.com") "Content-Length: 5, 5\r\n"), 0, "CL 5, 5"},
    {GET("http://example.com/", H("example.com") "Content-Length: 5\r\nContent-Length: 5\r\n"), 0,
     "two equal CL fields"},
    {GET("http://example.com/", H("example.com") "Content-Length: 1234567890123456789\r\n"), 0,
     "19-digit CL"},
    {GET("http://example.com/", H("example.com") "Transfer-Encoding: chunked\r\n"), 0, "TE"},
    {GET("http://example.com/", H("example.com") "Transfer-Encoding: gzip, CHUNKED\r\n"), 0,
     "TE gzip, chunked"},
    {GET("http://a_b-c.example/", H("a_b-c.example") "X:\r\nY: \t v \t\r\n"), 0,
     "empty and padded values"},
    {"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 0, "CONNECT"},
    {"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n", 0, "CONNECT, Host no port"},
    {"CONNECT [2001:db8::1]:443 HTTP/1.0\r\n\r\n", 0, "CONNECT IPv6, HTTP/1.0 no Host"},
    {"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nContent-Length: 0\r\n\r\n", 0,
     "CONNECT with CL 0"},
    {"GET http://example.com/ HTTP/1.0\r\n\r\n", 0, "HTTP/1.0 without Host"},
    /* forms */
    {GET("/index.html", H("example.com")), HTTP_E_ORIGIN_FORM, "origin-form"},
    {"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_TARGET, "asterisk-form"},
    {GET("https://example.com/", H("example.com")), HTTP_E_SCHEME, "https absolute-form"},
    {GET("ftp://example.com/", H("example.com")), HTTP_E_SCHEME, "ftp"},
    {GET("example.com:80", H("example.com")), HTTP_E_TARGET, "authority-form on GET"},
    {GET("http:/example.com/", H("example.com")), HTTP_E_TARGET, "one slash"},
    {"CONNECT http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", HTTP_E_TARGET,
     "CONNECT absolute-form"},
    {"CONNECT example.com HTTP/1.1\r\nHost: example.com\r\n\r\n", HTTP_E_TARGET,
     "CONNECT without port"},
    {"CONNECT example.com:443/x HTTP/1.1\r\nHost: example.com\r\n\r\n", HTTP_E_TARGET,
     "CONNECT with a path"},
    {"connect example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n", HTTP_E_TARGET,
     "methods are case-sensitive"},
    {GET("http://example.com/#frag", H("example.com")), HTTP_E_TARGET, "fragment"},
    {GET("http://exa%6dple.com/", H("example.com")), HTTP_E_TARGET, "percent in host"},
    {GET("http://a..b/", H("a..b")), HTTP_E_TARGET, "empty label"},
    {GET("http://.a/", H(".a")), HTTP_E_TARGET, "leading dot"},
    {GET("http://example.com:0/", H("example.com:0")), HTTP_E_TARGET, "port 0"},
    {GET("http://example.com:65536/", H("example.com")), HTTP_E_TARGET, "port 65536"},
    {GET("http://example.com:/", H("example.com")), HTTP_E_TARGET, "empty port"},
    {GET("http://example.com:+80/", H("example.com")), HTTP_E_TARGET, "signed port"},
    {GET("http://[::1/", H("[::1]")), HTTP_E_TARGET, "unclosed bracket"},
    {GET("http://[zz::1]/", H("[zz::1]")), HTTP_E_TARGET, "bad IPv6"},
    {GET("http://[fe80::1%25eth0]/", H("a")), HTTP_E_TARGET, "IPv6 zone"},
    {GET("http:///", H("a")), HTTP_E_TARGET, "empty host"},
    /* smuggling */
    {GET("http://allowed.com@evil.com/", H("allowed.com")), HTTP_E_USERINFO,
     "userinfo naming the allowed host"},
    {GET("http://allowed.com@evil.com/", H("evil.com")), HTTP_E_USERINFO, "userinfo"},
    {GET("http://allowed.com:80@evil.com/", H("allowed.com")), HTTP_E_USERINFO,
     "userinfo that looks like a port"},
    {GET("http://evil.com\\@allowed.com/", H("allowed.com")), HTTP_E_USERINFO,
     "backslash before @"},
    {GET("http://allowed.com#@evil.com/", H("allowed.com")), HTTP_E_TARGET, "# before @"},
    {GET("http://allowed.com?@evil.com/", H("allowed.com")), 0,
     "@ in the query belongs to the query"},
    {GET("http://allowed.com%40evil.com/", H("allowed.com")), HTTP_E_TARGET, "encoded @"},
    {GET("http://evil.com/", H("allowed.com")), HTTP_E_HOST_MISMATCH, "Host names another"},
    {GET("http://example.com/", H("example.com:81")), HTTP_E_HOST_MISMATCH, "Host port"},
    {GET("http://example.com:8080/", H("example.com")), HTTP_E_HOST_MISMATCH,
     "Host without the target's port"},
    {GET("http://example.com/", H("example.com.evil")), HTTP_E_HOST_MISMATCH, "Host suffix"},
    {GET("http://example.com/", H("example.com/x")), HTTP_E_HOST_MISMATCH, "Host with path"},
    {GET("http://example.com/", H("")), HTTP_E_HOST_MISMATCH, "empty Host"},
    {GET("http://[::1]/", H("[::2]")), HTTP_E_HOST_MISMATCH, "IPv6 Host differs"},
    {GET("http://example.com/", H("example.com") H("evil.com")), HTTP_E_HOST_DUPLICATE,
     "two Host fields"},
    {GET("http://example.com/", ""), HTTP_E_HOST_MISSING, "HTTP/1.1 without Host"},
    {"CONNECT example.com:8443 HTTP/1.1\r\nHost: example.com\r\n\r\n", HTTP_E_HOST_MISMATCH,
     "CONNECT non-default port, Host without"},
    {GET("http://example.com/", H("example.com") "Content-Length: 5\r\n"
						 "Transfer-Encoding: chunked\r\n"),
     HTTP_E_CL_AND_TE, "CL and TE"},
    {GET("http://example.com/", H("example.com") "Content-Length: 5\r\nContent-Length: 6\r\n"),
     HTTP_E_CONTENT_LENGTH, "two different CL fields"},
    {GET("http://example.com/", H("example.com") "Content-Length: 5, 6\r\n"), HTTP_E_CONTENT_LENGTH,
     "CL list 5, 6"},
    {GET("http://example.com/", H("example.com") "Content-Length: -1\r\n"), HTTP_E_CONTENT_LENGTH,
     "negative CL"},
    {GET("http://example.com/", H("example.com") "Content-Length: +5\r\n"), HTTP_E_CONTENT_LENGTH,
     "signed CL"},
    {GET("http://example.com/", H("example.com") "Content-Length: 0x10\r\n"), HTTP_E_CONTENT_LENGTH,
     "hex CL"},
    {GET("http://example.com/", H("example.com") "Content-Length:\r\n"), HTTP_E_CONTENT_LENGTH,
     "empty CL"},
    {GET("http://example.com/", H("example.com") "Content-Length: ,\r\n"), HTTP_E_CONTENT_LENGTH,
     "CL of commas"},
    {GET("http://example.com/", H("example.com") "Content-Length: 12345678901234567890\r\n"),
     HTTP_E_CONTENT_LENGTH, "20-digit CL"},
    {GET("http://example.com/", H("example.com") "Transfer-Encoding: gzip\r\n"),
     HTTP_E_TRANSFER_ENCODING, "TE not ending in chunked"},
    {GET("http://example.com/", H("example.com") "Transfer-Encoding: chunked, gzip\r\n"),
     HTTP_E_TRANSFER_ENCODING, "TE chunked, gzip"},
    {GET("http://example.com/", H("example.com") "Transfer-Encoding: chunked, chunked\r\n"),
     HTTP_E_TRANSFER_ENCODING, "chunked twice"},
    {GET("http://example.com/", H("example.com") "Transfer-Encoding: chunked\r\n"
						 "Transfer-Encoding: gzip\r\n"),
     HTTP_E_TRANSFER_ENCODING, "TE over two fields"},
    {GET("http://example.com/", H("example.com") "Transfer-Encoding: chunked;q=1\r\n"),
     HTTP_E_TRANSFER_ENCODING, "TE parameter"},
    {GET("http://example.com/", H("example.com") "Transfer-Encoding: \r\n"),
     HTTP_E_TRANSFER_ENCODING, "empty TE"},
    {GET("http://example.com/", H("example.com") "Transfer-Encoding: xchunked\r\n"),
     HTTP_E_TRANSFER_ENCODING, "xchunked"},
    {"POST http://example.com/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
     HTTP_E_TRANSFER_ENCODING, "TE on HTTP/1.0"},
    {"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 3\r\n\r\n",
     HTTP_E_CONNECT_BODY, "CONNECT with a body"},
    {"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked"
     "\r\n\r\n",
     HTTP_E_CONNECT_BODY, "CONNECT chunked"},
    /* syntax */
    {"GET http://example.com/ HTTP/1.1\nHost: example.com\r\n\r\n", HTTP_E_SYNTAX, "bare LF"},
    {GET("http://example.com/", H("exam\rple.com")), HTTP_E_SYNTAX, "bare CR"},
    {GET("http://example.com/", H("example.com") "X-A: a\r\n b\r\n"), HTTP_E_SYNTAX, "obs-fold"},
    {GET("http://example.com/", H("example.com") "X-A : a\r\n"), HTTP_E_SYNTAX,
     "space before colon"},
    {GET("http://example.com/", "Host : example.com\r\n"), HTTP_E_SYNTAX, "Host :"},
    {GET("http://example.com/", H("example.com") ": a\r\n"), HTTP_E_SYNTAX, "empty name"},
    {GET("http://example.com/", H("example.com") "X(A): a\r\n"), HTTP_E_SYNTAX, "bad name"},
    {GET("http://example.com/", H("example.com") "X-A: a\001b\r\n"), HTTP_E_SYNTAX,
     "control byte in value"},
    {GET("http://example.com/", H("example.com") "X-A: a\177\r\n"), HTTP_E_SYNTAX, "DEL"},
    {GET("http://example.com/", H("example.com") "X-A: caf\303\251\r\n"), 0, "obs-text ok"},
    {GET("http://example.com/", H("example.com") "NoColon\r\n"), HTTP_E_SYNTAX, "no colon"},
    {"GET  http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", HTTP_E_SYNTAX, "two spaces"},
    {"GET http://example.com/ HTTP/1.1 \r\nHost: example.com\r\n\r\n", HTTP_E_SYNTAX,
     "space after version"},
    {"GET http://example.com/\tx HTTP/1.1\r\nHost: example.com\r\n\r\n", HTTP_E_SYNTAX,
     "tab in target"},
    {"GET http://example.com/\377 HTTP/1.1\r\nHost: example.com\r\n\r\n", HTTP_E_SYNTAX,
     "high byte in target"},
    {"GET http://example.com/ HTTP/2.0\r\nHost: example.com\r\n\r\n", HTTP_E_VERSION, "2.0"},
    {"GET http://example.com/ HTTP/1.2\r\nHost: example.com\r\n\r\n", HTTP_E_VERSION, "1.2"},
    {"GET http://example.com/ HTTP/1.10\r\nHost: example.com\r\n\r\n", HTTP_E_VERSION, "1.10"},
    {"GET http://example.com/ http/1.1\r\nHost: example.com\r\n\r\n", HTTP_E_SYNTAX,
     "lowercase version"},
    {"GET http://example.com/\r\nHost: example.com\r\n\r\n", HTTP_E_SYNTAX, "no version"},
    {"G@T http://example.com/ HTTP/1.1\r\n\r\n", HTTP_E_METHOD, "bad method byte"},
    {"ABCDEFGHIJKLMNOPQRSTUVWXY http://a/ HTTP/1.1\r\n\r\n", HTTP_E_METHOD, "25-byte method"},
    {" GET http://a/ HTTP/1.1\r\n\r\n", HTTP_E_METHOD, "leading space"},
    {"\r\nGET http://a/ HTTP/1.1\r\n\r\n", HTTP_E_METHOD, "leading CRLF"},
    {"\026\003\001\002\000\001\000\001\374\003\003", HTTP_E_METHOD, "TLS to the HTTP port"},
};

static void test_cases(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = strlen(cases[i].in);
		int r = parse(cases[i].in), first;
		if (cases[i].want == 0)
			is_int(r, (int)n, "%s: parsed, whole head consumed", cases[i].why);
		else
			is_int(r, cases[i].want, "%s: %s", cases[i].why,
			       http_strerror(cases[i].want));
		ok(incremental(cases[i].in, n, &first), "%s: byte at a time gives the same (%d)",
		   cases[i].why, first);
	}
}

static void test_nul(void)
{
	static const char a[] = "GET http://exa\0mple.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n";
	static const char b[] = "GET http://example.com/ HTTP/1.1\r\nHost: example.com\0\r\n\r\n";
	int first;

	is_int(http_parse_request(a, sizeof(a) - 1, 0, &req), HTTP_E_SYNTAX, "NUL in the target");
	ok(incremental(a, sizeof(a) - 1, &first) && first == HTTP_E_SYNTAX,
	   "NUL refused as soon as it arrives");
	is_int(http_parse_request(b, sizeof(b) - 1, 0, &req), HTTP_E_SYNTAX, "NUL in a value");
}

static void test_last_len(void)
{
	const char *in = "GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\n\r\n";
	size_t n = strlen(in);

	is_int(http_parse_request(in, n, n + 10, &req), (int)n, "last_len past len: scanned anew");
	is_int(http_parse_request(in, n, n - 2, &req), (int)n, "end straddling last_len is found");
	is_int(http_parse_request(in, n - 1, 0, &req), HTTP_PARTIAL, "one byte short: partial");
	is_int(http_parse_request("GET", 3, 2, &req), HTTP_PARTIAL, "resumed inside the method");
	is_int(http_parse_request("GE@", 3, 2, &req), HTTP_E_METHOD, "bad method byte on resume");
}

static void test_fields(void)
{
	const char *in = GET("http://Example.COM:8080/a?b=c",
			     H("example.com:8080") "Connection: close\r\nX-Y:  v w  \r\n");
	is_int(parse(in), (int)strlen(in), "parses");
	is_int(req.form, HTTP_FORM_ABSOLUTE, "absolute-form");
	is_str(slice(req.method), "GET", "method");
	is_str(slice(req.scheme), "http", "scheme");
	is_str(slice(req.host), "Example.COM", "host as written");
	is_int(req.port, 8080, "port");
	ok(req.port_explicit, "port explicit");
	is_str(slice(req.path), "/a?b=c", "path and query");
	is_int(req.version_minor, 1, "HTTP/1.1");
	is_int(req.nheaders, 3, "three fields");
	is_str(slice(req.headers[2].name), "X-Y", "field name");
	is_str(slice(req.headers[2].value), "v w", "value trimmed, inner space kept");
	is_int(req.keep_alive, 0, "Connection: close");
	is_int(req.body, HTTP_BODY_NONE, "no body");

	parse(GET("http://allowed.com?@evil.com/", H("allowed.com")));
	is_str(slice(req.host), "allowed.com", "@ in the query: the host is the authority's");
	is_str(slice(req.path), "?@evil.com/", "and the rest is the query");

	parse(GET("http://[2001:db8::1]/", H("[2001:db8::1]")));
	is_str(slice(req.host), "2001:db8::1", "IPv6 host unbracketed");
	ok(req.host_is_ipv6 && req.port == 80 && !req.port_explicit, "IPv6, default port 80");

	parse("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
	ok(req.is_connect && req.form == HTTP_FORM_AUTHORITY, "CONNECT is authority-form");
	is_str(slice(req.host), "example.com", "CONNECT host");
	is_int(req.port, 443, "CONNECT port");
	ok(req.keep_alive, "HTTP/1.1 keeps alive by default");

	parse("GET http://a.example/ HTTP/1.0\r\n\r\n");
	ok(!req.keep_alive && !req.has_host, "HTTP/1.0: close by default, no Host");
	parse("GET http://a.example/ HTTP/1.0\r\nProxy-Connection: Keep-Alive\r\n\r\n");
	ok(req.keep_alive, "HTTP/1.0 with Proxy-Connection: keep-alive");
	parse(GET("http://a.example/", H("a.example") "Connection: keep-alive, close\r\n"));
	ok(!req.keep_alive, "close wins over keep-alive");

	parse(GET("http://a.example/", H("a.example") "Content-Length: 42\r\n"));
	ok(req.body == HTTP_BODY_LENGTH && req.content_length == 42, "CL 42 frames the body");
	parse(GET("http://a.example/", H("a.example") "Content-Length: 0\r\n"));
	ok(req.body == HTTP_BODY_NONE, "CL 0 is no body");
	parse(GET("http://a.example/", H("a.example") "Transfer-Encoding: chunked\r\n"));
	ok(req.body == HTTP_BODY_CHUNKED, "chunked body");

	is_int(parse(GET("/x", H("a.example"))), HTTP_E_ORIGIN_FORM, "origin-form reported");
	ok(req.form == HTTP_FORM_ORIGIN && req.path.n == 2, "origin-form path filled");

	const char *pipe = GET("http://a.example/", H("a.example")) "GET http://b/ HTTP/1.1\r\n";
	is_int(parse(pipe), (int)strlen(GET("http://a.example/", H("a.example"))),
	       "pipelined: only the first head is consumed");
}

static char *repeat(char *p, char c, size_t n)
{
	memset(p, c, n);
	return p + n;
}

static void test_limits(void)
{
	static char big[HTTP_HEAD_MAX + 4096];
	const char *pre = "GET http://a.example/", *post = " HTTP/1.1\r\nHost: a.example\r\n\r\n";
	size_t fill = HTTP_LINE_MAX - strlen(pre) - 9, n;
	char *p;
	int first;

	p = big + sprintf(big, "%s", pre);
	p = repeat(p, 'x', fill);
	n = (size_t)(p - big) + (size_t)sprintf(p, "%s", post);
	is_int(http_parse_request(big, n, 0, &req), (int)n, "request line of exactly 8192 bytes");
	p = big + sprintf(big, "%s", pre);
	p = repeat(p, 'x', fill + 1);
	n = (size_t)(p - big) + (size_t)sprintf(p, "%s", post);
	is_int(http_parse_request(big, n, 0, &req), HTTP_E_LINE_TOO_LONG, "8193 bytes: too long");
	ok(incremental(big, n, &first) && first == HTTP_E_LINE_TOO_LONG,
	   "too long is seen before the line ends");
	is_int(http_parse_request(big, HTTP_LINE_MAX + 1, 0, &req), HTTP_PARTIAL,
	       "8193 bytes of line so far: still partial");
	is_int(http_parse_request(big, HTTP_LINE_MAX + 2, 0, &req), HTTP_E_LINE_TOO_LONG,
	       "8194 bytes and no LF: too long");

	/* a head of exactly HTTP_HEAD_MAX bytes: pad one field */
	const char *start = "GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\nX: ";
	p = big + sprintf(big, "%s", start);
	p = repeat(p, 'v', HTTP_HEAD_MAX - strlen(start) - 4);
	memcpy(p, "\r\n\r\n", 4);
	is_int(http_parse_request(big, HTTP_HEAD_MAX, 0, &req), HTTP_HEAD_MAX,
	       "head of 65536 bytes");
	p = big + sprintf(big, "%s", start);
	p = repeat(p, 'v', HTTP_HEAD_MAX - strlen(start) - 3);
	memcpy(p, "\r\n\r\n", 4);
	is_int(http_parse_request(big, HTTP_HEAD_MAX + 1, 0, &req), HTTP_E_HEAD_TOO_LARGE,
	       "head of 65537 bytes");
	is_int(http_parse_request(big, HTTP_HEAD_MAX, 0, &req), HTTP_E_HEAD_TOO_LARGE,
	       "65536 bytes without the end: too large, not partial");
	ok(incremental(big, HTTP_HEAD_MAX + 1, &first) && first == HTTP_E_HEAD_TOO_LARGE,
	   "byte at a time: too large");

	for (int count = 100; count <= 101; count++) {
		p = big + sprintf(big, "GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\n");
		for (int i = 1; i < count; i++)
			p += sprintf(p, "X-%d: %d\r\n", i, i);
		p += sprintf(p, "\r\n");
		n = (size_t)(p - big);
		is_int(http_parse_request(big, n, 0, &req),
		       count == 100 ? (int)n : HTTP_E_TOO_MANY_HEADERS, "%d fields", count);
	}

	n = strlen(cases[0].in);
	size_t partial = 0;
	for (size_t k = 0; k < n; k++)
		partial += http_parse_request(cases[0].in, k, 0, &req) == HTTP_PARTIAL;
	is_int((int)partial, (int)n, "every proper prefix of a request is partial");
	is_int(http_parse_request(cases[0].in, n, 0, &req), (int)n, "… and the whole head is not");
}

static const char *rewrite(const char *in, unsigned flags)
{
	static char out[4096];
	int r = parse(in);
	ssize_t n;

	if (r <= 0)
		return "(parse failed)";
	n = http_rewrite_head(&req, flags, out, sizeof(out) - 1);
	if (n < 0)
		return "(rewrite failed)";
	out[n] = 0;
	return out;
}

static void test_rewrite(void)
{
	is_str(rewrite(GET("http://example.com/a?b",
			   H("example.com") "Proxy-Connection: keep-alive\r\nProxy-Authorization: "
					    "Basic eDp5\r\n"
					    "Connection: keep-alive, X-Foo\r\nX-Foo: "
					    "1\r\nKeep-Alive: 300\r\n"
					    "TE: trailers\r\nUpgrade: websocket\r\nTrailer: X\r\n"
					    "Proxy-Authenticate: x\r\nUser-Agent: t\r\n"),
		       0),
	       "GET /a?b HTTP/1.1\r\nHost: example.com\r\nUser-Agent: t\r\n\r\n",
	       "hop-by-hop fields dropped, origin-form, Host kept");
	is_str(
	    rewrite(GET("http://example.com/",
			H("example.com") "Connection: Content-Length, Host, Transfer-Encoding\r\n"
					 "Content-Length: 3\r\n"),
		    0),
	    "GET / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 3\r\n\r\n",
	    "Connection cannot drop framing fields or Host");
	is_str(
	    rewrite("GET http://example.com:8080 HTTP/1.0\r\nAccept: */*\r\n\r\n",
		    HTTP_REWRITE_CLOSE),
	    "GET / HTTP/1.1\r\nAccept: */*\r\nHost: example.com:8080\r\nConnection: close\r\n\r\n",
	    "HTTP/1.0 without Host: Host added, empty path is /, close asked");
	is_str(rewrite("GET http://[::1]?q HTTP/1.0\r\n\r\n", 0),
	       "GET /?q HTTP/1.1\r\nHost: [::1]\r\n\r\n", "query-only path, IPv6 Host bracketed");
	is_str(
	    rewrite(GET("http://example.com/", H("example.com") "Transfer-Encoding: chunked\r\n"),
		    0),
	    "GET / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n",
	    "Transfer-Encoding kept: the body is forwarded as framed");

	char small[64];
	const char *in = GET("http://example.com/", H("example.com"));
	parse(in);
	ssize_t need = http_rewrite_head(&req, 0, small, sizeof(small));
	is_int(need, 37, "rewrite length");
	is_int(http_rewrite_head(&req, 0, small, (size_t)need), need, "fits exactly");
	is_int(http_rewrite_head(&req, 0, small, (size_t)need - 1), HTTP_E_NOSPC, "one byte short");
	parse("CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n");
	is_int(http_rewrite_head(&req, 0, small, sizeof(small)), HTTP_E_TARGET,
	       "no rewrite of CONNECT");
}

static ssize_t chunked(const char *s, size_t n, int *done)
{
	struct http_chunked c;
	ssize_t r;

	http_chunked_init(&c);
	r = http_chunked_scan(&c, s, n);
	*done = http_chunked_done(&c);
	return r;
}

/* Byte at a time: the same total, the same end, the same error. */
static int chunked_bytes(const char *s, size_t n, ssize_t want, int want_done)
{
	struct http_chunked c;
	ssize_t total = 0, r = 0;

	http_chunked_init(&c);
	for (size_t i = 0; i < n && !http_chunked_done(&c); i++) {
		r = http_chunked_scan(&c, guard_place(&g, s + i, 1), 1);
		if (r < 0)
			return want == r;
		total += r;
	}
	return total == want && http_chunked_done(&c) == want_done;
}

static void test_chunked(void)
{
	static const struct {
		const char *in;
		ssize_t want; /* -1: all of it */
		int done;
		const char *why;
	} ck[] = {
	    {"5\r\nhello\r\n0\r\n\r\n", -1, 1, "one chunk"},
	    {"5;a=b;c\r\nhello\r\nA\r\n0123456789\r\n0;x\r\n\r\n", -1, 1, "extensions, hex A"},
	    {"0\r\nX-T: 1\r\nY:\r\n\r\n", -1, 1, "trailers"},
	    {"000005\r\nhello\r\n0\r\n\r\n", -1, 1, "leading zeros"},
	    {"5\r\nhel", -1, 0, "inside data"},
	    {"ffffffffffffffff\r\nabc", -1, 0, "largest size"},
	    {"5\r\nhello\r\n0\r\n\r\nGET http://x/ HTTP/1.1", 15, 1, "pipelined rest left"},
	    {"g\r\n", HTTP_E_CHUNKED, 0, "bad hex"},
	    {"\r\n", HTTP_E_CHUNKED, 0, "empty size"},
	    {"5 \r\nhello\r\n", HTTP_E_CHUNKED, 0, "space after size"},
	    {"5\nhello\r\n", HTTP_E_CHUNKED, 0, "bare LF after size"},
	    {"5\r\nhelloX\r\n", HTTP_E_CHUNKED, 0, "data longer than size"},
	    {"5\r\nhello\n0\r\n\r\n", HTTP_E_CHUNKED, 0, "bare LF after data"},
	    {"10000000000000000\r\n", HTTP_E_CHUNKED, 0, "size overflows 64 bits"},
	    {"-5\r\n", HTTP_E_CHUNKED, 0, "negative size"},
	    {"0x5\r\n", HTTP_E_CHUNKED, 0, "0x prefix"},
	    {"5;a\001\r\n", HTTP_E_CHUNKED, 0, "control byte in extension"},
	    {"0\r\nX\r\n\r\n", HTTP_E_CHUNKED, 0, "trailer without colon"},
	    {"0\r\n X: 1\r\n\r\n", HTTP_E_CHUNKED, 0, "folded trailer"},
	    {"0\r\nX: 1\n\r\n", HTTP_E_CHUNKED, 0, "bare LF in trailer"},
	    {"0\r\n\r\r", HTTP_E_CHUNKED, 0, "bad final LF"},
	};
	int done;

	for (size_t i = 0; i < sizeof(ck) / sizeof(ck[0]); i++) {
		size_t n = strlen(ck[i].in);
		ssize_t want = ck[i].want == -1 ? (ssize_t)n : ck[i].want;
		ssize_t r = chunked(guard_place(&g, ck[i].in, n), n, &done);
		ok(r == want && (r < 0 || done == ck[i].done), "chunked: %s (%zd, done %d)",
		   ck[i].why, r, done);
		ok(chunked_bytes(ck[i].in, n, want, ck[i].done), "chunked byte at a time: %s",
		   ck[i].why);
	}

	static char line[HTTP_CHUNK_LINE_MAX + 16];
	memset(line, 'a', sizeof(line));
	line[0] = '1', line[1] = ';';
	ok(chunked(line, sizeof(line), &done) == HTTP_E_CHUNKED, "size line past 4096 bytes");
	static char trailer[HTTP_TRAILER_MAX + 64];
	memset(trailer, 'a', sizeof(trailer));
	memcpy(trailer, "0\r\nX:", 5);
	ok(chunked(trailer, sizeof(trailer), &done) == HTTP_E_CHUNKED, "trailers past 16 KiB");

	struct http_chunked c;
	http_chunked_init(&c);
	http_chunked_scan(&c, "z", 1);
	ok(http_chunked_scan(&c, "5\r\n", 3) == HTTP_E_CHUNKED, "an error sticks");
}

static void test_strings(void)
{
	for (int e = HTTP_PARTIAL; e >= HTTP_E_INTERIM; e--)
		ok(strcmp(http_strerror(e), "unknown error") != 0, "message for %d: %s", e,
		   http_strerror(e));
	is_int(http_error_status(HTTP_E_LINE_TOO_LONG), 414, "414 for a long line");
	is_int(http_error_status(HTTP_E_HEAD_TOO_LARGE), 431, "431 for a large head");
	is_int(http_error_status(HTTP_E_VERSION), 505, "505 for HTTP/2");
	is_int(http_error_status(HTTP_E_SCHEME), 501, "501 for https://");

	/* the limits in the messages are the constants the parser checks, formatted here again */
	char want[128];
	snprintf(want, sizeof(want), "request line longer than %d bytes", HTTP_LINE_MAX);
	is_str(http_strerror(HTTP_E_LINE_TOO_LONG), want, "the line limit is the constant's");
	snprintf(want, sizeof(want), "request head larger than %d bytes", HTTP_HEAD_MAX);
	is_str(http_strerror(HTTP_E_HEAD_TOO_LARGE), want, "the head limit is the constant's");
	snprintf(want, sizeof(want), "more than %d header fields", HTTP_HEADERS_MAX);
	is_str(http_strerror(HTTP_E_TOO_MANY_HEADERS), want, "the field limit is the constant's");
	snprintf(want, sizeof(want), "more than %d interim (1xx) responses", HTTP_INTERIM_MAX);
	is_str(http_strerror(HTTP_E_INTERIM), want, "the interim limit is the constant's");
}

int main(void)
{
	test_cases();
	test_nul();
	test_last_len();
	test_fields();
	test_limits();
	test_rewrite();
	test_chunked();
	test_strings();
	guard_release(&g);
	return tap_done();
}
