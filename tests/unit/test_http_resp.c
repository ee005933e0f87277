/* test_http_resp — response heads from upstream servers: status lines, where the body ends
 * (HEAD, 1xx, 204, 304, length, chunked, close-delimited), strictness, limits, byte-at-a-time
 * feeding against a guard page, and the head relayed to the client. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/http.h"
#include "tests/unit/guard.h"
#include "tests/unit/tap.h"

static struct guard g;
static struct http_response resp;

static int parse(const char *s, unsigned flags)
{
	size_t n = strlen(s);
	const char *p = guard_place(&g, s, n);

	return http_parse_response(p, n, 0, flags, &resp);
}

/* Prefixes one byte longer each time, each against the guard page: the first answer that
 * is not partial must be the one-shot answer. */
static int incremental(const char *s, size_t n, unsigned flags, int *first)
{
	static struct http_response r2;
	int one = http_parse_response(s, n, 0, flags, &r2);

	for (size_t k = 1; k <= n; k++) {
		const char *p = guard_place(&g, s, k);
		int r = http_parse_response(p, k, k - 1, flags, &r2);
		if (r == HTTP_PARTIAL)
			continue;
		*first = r;
		return r == one;
	}
	*first = HTTP_PARTIAL;
	return one == HTTP_PARTIAL;
}

#define R200(fields) "HTTP/1.1 200 OK\r\n" fields "\r\n"
#define NONE	     HTTP_BODY_NONE
#define LEN	     HTTP_BODY_LENGTH
#define CHUNKED	     HTTP_BODY_CHUNKED
#define CLOSE	     HTTP_BODY_CLOSE

static const struct {
	const char *in;
	unsigned flags;
	int want; /* 0: the whole input is the head */
	int body, status;
	unsigned long long length;
	const char *why;
} cases[] = {
    {R200("Content-Length: 5\r\n"), 0, 0, LEN, 200, 5, "Content-Length"},
    {R200("Content-Length: 5, 5\r\nContent-Length: 5\r\n"), 0, 0, LEN, 200, 5,
     "equal Content-Length values"},
    {R200("Content-Length: 0\r\n"), 0, 0, NONE, 200, 0, "Content-Length 0: no body"},
    {R200("Content-Length: 1234567890123456789\r\n"), 0, 0, LEN, 200, 1234567890123456789ULL,
     "19-digit length"},
    {R200("Transfer-Encoding: chunked\r\n"), 0, 0, CHUNKED, 200, 0, "chunked"},
    {R200("Transfer-Encoding: gzip\r\nTransfer-Encoding: Chunked\r\n"), 0, 0, CHUNKED, 200, 0,
     "gzip then chunked over two fields"},
    {R200("Transfer-Encoding: gzip\r\n"), 0, 0, CLOSE, 200, 0,
     "a coding other than chunked last: until close"},
    {R200(""), 0, 0, CLOSE, 200, 0, "no framing: until close"},
    {"HTTP/1.0 200 OK\r\n\r\n", 0, 0, CLOSE, 200, 0, "HTTP/1.0 without length"},
    {R200("Content-Length: 5\r\n"), HTTP_RESP_TO_HEAD, 0, NONE, 200, 0, "HEAD: no body"},
    {R200("Transfer-Encoding: chunked\r\n"), HTTP_RESP_TO_HEAD, 0, NONE, 200, 0,
     "HEAD, chunked: no body"},
    {"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", 0, 0, NONE, 204, 0, "204"},
    {"HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n", 0, 0, NONE, 304, 0, "304"},
    {"HTTP/1.1 100 Continue\r\n\r\n", 0, 0, NONE, 100, 0, "100 Continue"},
    {"HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n", 0, 0, NONE, 103, 0, "103"},
    {"HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\n", 0, 0, LEN, 404, 3, "404"},
    {"HTTP/1.1 599 \r\n\r\n", 0, 0, CLOSE, 599, 0, "empty reason"},
    {"HTTP/1.1 200\r\n\r\n", 0, 0, CLOSE, 200, 0, "no space before an empty reason"},
    {"HTTP/1.1 200 Fine \t\xe9t\xe9\r\nX:\r\nY: \t v \t\r\n\r\n", 0, 0, CLOSE, 200, 0,
     "reason with tab and obs-text, empty and padded values"},
    {R200("Content-Length: 2\r\n") "okHTTP/1.1 200 OK\r\n\r\n", 0,
     (int)sizeof(R200("Content-Length: 2\r\n")) - 1, LEN, 200, 2,
     "bytes after the head are not read"},
    /* errors */
    {"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", 0, HTTP_E_UPGRADE, 0, 0, 0,
     "101 (the proxy never forwards Upgrade)"},
    {"HTTP/2 200 OK\r\n\r\n", 0, HTTP_E_VERSION, 0, 0, 0, "HTTP/2"},
    {"HTTP/1.2 200 OK\r\n\r\n", 0, HTTP_E_VERSION, 0, 0, 0, "HTTP/1.2"},
    {"http/1.1 200 OK\r\n\r\n", 0, HTTP_E_SYNTAX, 0, 0, 0, "lower-case version"},
    {"ICY 200 OK\r\n\r\n", 0, HTTP_E_SYNTAX, 0, 0, 0, "not HTTP"},
    {"\r\nHTTP/1.1 200 OK\r\n\r\n", 0, HTTP_E_SYNTAX, 0, 0, 0, "empty line first"},
    {"HTTP/1.1  200 OK\r\n\r\n", 0, HTTP_E_STATUS, 0, 0, 0, "two spaces"},
    {"HTTP/1.1 20 OK\r\n\r\n", 0, HTTP_E_STATUS, 0, 0, 0, "two-digit status"},
    {"HTTP/1.1 2000 OK\r\n\r\n", 0, HTTP_E_STATUS, 0, 0, 0, "four-digit status"},
    {"HTTP/1.1 099 OK\r\n\r\n", 0, HTTP_E_STATUS, 0, 0, 0, "status 099"},
    {"HTTP/1.1 600 OK\r\n\r\n", 0, HTTP_E_STATUS, 0, 0, 0, "status 600"},
    {"HTTP/1.1 2x0 OK\r\n\r\n", 0, HTTP_E_STATUS, 0, 0, 0, "status with a letter"},
    {"HTTP/1.1 200 O\001K\r\n\r\n", 0, HTTP_E_SYNTAX, 0, 0, 0, "control byte in the reason"},
    {"HTTP/1.1 200 OK\nContent-Length: 2\n\nok", 0, HTTP_E_SYNTAX, 0, 0, 0, "bare LF"},
    {"HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", 0, HTTP_E_SYNTAX, 0, 0, 0, "bare CR"},
    {R200("X: 1\r\n folded\r\n"), 0, HTTP_E_SYNTAX, 0, 0, 0, "obs-fold"},
    {R200("Content-Length : 5\r\n"), 0, HTTP_E_SYNTAX, 0, 0, 0, "space before the colon"},
    {R200("X: \x7f\r\n"), 0, HTTP_E_SYNTAX, 0, 0, 0, "DEL in a value"},
    {R200("Content-Length: 5\r\nContent-Length: 6\r\n"), 0, HTTP_E_CONTENT_LENGTH, 0, 0, 0,
     "different lengths"},
    {R200("Content-Length: 5, 6\r\n"), 0, HTTP_E_CONTENT_LENGTH, 0, 0, 0, "a list of two"},
    {R200("Content-Length: -1\r\n"), 0, HTTP_E_CONTENT_LENGTH, 0, 0, 0, "negative length"},
    {R200("Content-Length: +5\r\n"), 0, HTTP_E_CONTENT_LENGTH, 0, 0, 0, "signed length"},
    {R200("Content-Length: 0x5\r\n"), 0, HTTP_E_CONTENT_LENGTH, 0, 0, 0, "hex length"},
    {R200("Content-Length:\r\n"), 0, HTTP_E_CONTENT_LENGTH, 0, 0, 0, "empty length"},
    {R200("Content-Length: 12345678901234567890\r\n"), 0, HTTP_E_CONTENT_LENGTH, 0, 0, 0,
     "20-digit length"},
    {R200("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"), 0, HTTP_E_CL_AND_TE, 0, 0, 0,
     "Content-Length and Transfer-Encoding"},
    {R200("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"), HTTP_RESP_TO_HEAD,
     HTTP_E_CL_AND_TE, 0, 0, 0, "both, even for HEAD"},
    {"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 0, HTTP_E_TRANSFER_ENCODING, 0, 0, 0,
     "Transfer-Encoding on HTTP/1.0"},
    {R200("Transfer-Encoding: chunked, chunked\r\n"), 0, HTTP_E_TRANSFER_ENCODING, 0, 0, 0,
     "chunked twice"},
    {R200("Transfer-Encoding: chunked;q=1\r\n"), 0, HTTP_E_TRANSFER_ENCODING, 0, 0, 0,
     "a parameter"},
    {R200("Transfer-Encoding:\r\n"), 0, HTTP_E_TRANSFER_ENCODING, 0, 0, 0, "empty coding"},
};

static void test_cases(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = strlen(cases[i].in);
		int want = cases[i].want ? cases[i].want : (int)n, r, first;

		r = parse(cases[i].in, cases[i].flags);
		if (want > 0)
			ok(r == want && (int)resp.body == cases[i].body &&
			       resp.status == cases[i].status &&
			       resp.content_length == cases[i].length,
			   "%s (%d, body %d, status %d, length %llu)", cases[i].why, r,
			   (int)resp.body, resp.status, (unsigned long long)resp.content_length);
		else
			is_int(r, want, "%s", cases[i].why);
		ok(incremental(cases[i].in, n, cases[i].flags, &first) && first == want,
		   "byte at a time: %s", cases[i].why);
	}
}

static void test_fields(void)
{
	parse("HTTP/1.0 201 Created here\r\nLocation: /x\r\nX-Empty:\r\n\r\n", 0);
	is_int(resp.version_minor, 0, "HTTP/1.0 version");
	ok(resp.reason.n == 12 && memcmp(resp.reason.p, "Created here", 12) == 0, "reason");
	is_int((int)resp.nheaders, 2, "two fields");
	ok(resp.headers[0].value.n == 2 && memcmp(resp.headers[0].value.p, "/x", 2) == 0,
	   "a value");
	is_int((int)resp.headers[1].value.n, 0, "an empty value");
	is_int(parse("HTTP/1.1 200 OK\r\n\r", 0), HTTP_PARTIAL, "partial before the last LF");
	is_int(parse("", 0), HTTP_PARTIAL, "nothing yet");
	const char nul[] = "HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n";
	is_int(http_parse_response(guard_place(&g, nul, sizeof(nul) - 1), sizeof(nul) - 1, 0, 0,
				   &resp),
	       HTTP_E_SYNTAX, "a NUL in a value");
}

static char *repeat(char *p, char c, size_t n)
{
	memset(p, c, n);
	return p + n;
}

static void test_limits(void)
{
	static char big[HTTP_HEAD_MAX + 4096];
	const char *pre = "HTTP/1.1 200 ";
	size_t n;
	char *p;
	int first;

	p = big + sprintf(big, "%s", pre);
	p = repeat(p, 'r', HTTP_LINE_MAX - strlen(pre));
	n = (size_t)(p - big) + (size_t)sprintf(p, "\r\n\r\n");
	is_int(http_parse_response(big, n, 0, 0, &resp), (int)n, "status line of 8192 bytes");
	p = big + sprintf(big, "%s", pre);
	p = repeat(p, 'r', HTTP_LINE_MAX - strlen(pre) + 1);
	n = (size_t)(p - big) + (size_t)sprintf(p, "\r\n\r\n");
	is_int(http_parse_response(big, n, 0, 0, &resp), HTTP_E_LINE_TOO_LONG, "8193: too long");
	ok(incremental(big, n, 0, &first) && first == HTTP_E_LINE_TOO_LONG,
	   "too long is seen before the line ends");

	const char *start = "HTTP/1.1 200 OK\r\nX: ";
	p = big + sprintf(big, "%s", start);
	p = repeat(p, 'v', HTTP_HEAD_MAX - strlen(start) - 4);
	memcpy(p, "\r\n\r\n", 4);
	is_int(http_parse_response(big, HTTP_HEAD_MAX, 0, 0, &resp), HTTP_HEAD_MAX,
	       "head of 65536 bytes");
	p = big + sprintf(big, "%s", start);
	p = repeat(p, 'v', HTTP_HEAD_MAX - strlen(start) - 3);
	memcpy(p, "\r\n\r\n", 4);
	is_int(http_parse_response(big, HTTP_HEAD_MAX + 1, 0, 0, &resp), HTTP_E_HEAD_TOO_LARGE,
	       "head of 65537 bytes");
	is_int(http_parse_response(big, HTTP_HEAD_MAX, 0, 0, &resp), HTTP_E_HEAD_TOO_LARGE,
	       "65536 bytes without the end: too large, not partial");

	for (int count = 100; count <= 101; count++) {
		p = big + sprintf(big, "HTTP/1.1 200 OK\r\n");
		for (int i = 0; i < count; i++)
			p += sprintf(p, "X%d: v\r\n", i);
		n = (size_t)(p - big) + (size_t)sprintf(p, "\r\n");
		is_int(http_parse_response(big, n, 0, 0, &resp),
		       count == 100 ? (int)n : HTTP_E_TOO_MANY_HEADERS, "%d fields", count);
	}
}

static const char *rewrite(const char *in, unsigned flags)
{
	static char out[HTTP_HEAD_MAX + HTTP_REWRITE_SLACK + 1];
	int r = parse(in, 0);
	ssize_t n;

	if (r <= 0)
		return "(parse failed)";
	n = http_rewrite_response(&resp, flags, out, (size_t)r + HTTP_REWRITE_SLACK);
	if (n < 0)
		return "(rewrite failed)";
	out[n] = 0;
	return out;
}

static void test_rewrite(void)
{
	is_str(rewrite("HTTP/1.1 200 OK\r\nConnection: close, X-Secret\r\nX-Secret: 1\r\n"
		       "Keep-Alive: timeout=5\r\nProxy-Connection: close\r\nUpgrade: h2c\r\n"
		       "Proxy-Authenticate: Basic\r\nX-Kept: 1\r\nContent-Length: 3\r\n\r\n",
		       0),
	       "HTTP/1.1 200 OK\r\nX-Kept: 1\r\nContent-Length: 3\r\n\r\n",
	       "hop-by-hop fields dropped, the rest kept in order");
	is_str(rewrite("HTTP/1.1 200 OK\r\nConnection: Content-Length, Transfer-Encoding\r\n"
		       "Transfer-Encoding: chunked\r\n\r\n",
		       HTTP_RESP_CLOSE),
	       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
	       "Connection cannot drop the framing; close added");
	is_str(rewrite("HTTP/1.0 404 Gone\r\nContent-Length:0\r\n\r\n", HTTP_RESP_KEEP_ALIVE),
	       "HTTP/1.1 404 Gone\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n",
	       "our version; keep-alive added for an HTTP/1.0 client");
	is_str(rewrite("HTTP/1.1 204\r\n\r\n", 0), "HTTP/1.1 204 \r\n\r\n",
	       "no reason: the space is written");

	/* the worst case for the slack: 100 fields without a space after the colon, a status
	 * line without one after the code, keep-alive added */
	static char big[HTTP_HEAD_MAX];
	static char out[HTTP_HEAD_MAX + HTTP_REWRITE_SLACK];
	char *p = big + sprintf(big, "HTTP/1.1 200\r\n");
	for (int i = 0; i < HTTP_HEADERS_MAX; i++)
		p += sprintf(p, "X%d:\r\n", i);
	p += sprintf(p, "\r\n");
	size_t n = (size_t)(p - big);
	is_int(http_parse_response(big, n, 0, 0, &resp), (int)n, "100 bare fields parse");
	ssize_t w = http_rewrite_response(&resp, HTTP_RESP_KEEP_ALIVE, out, n + HTTP_REWRITE_SLACK);
	ok(w > 0 && (size_t)w <= n + HTTP_REWRITE_SLACK, "the slack suffices (%zd of %zu)", w,
	   n + HTTP_REWRITE_SLACK);
	is_int(http_rewrite_response(&resp, HTTP_RESP_KEEP_ALIVE, out, (size_t)w), w,
	       "fits exactly");
	is_int(http_rewrite_response(&resp, HTTP_RESP_KEEP_ALIVE, out, (size_t)w - 1), HTTP_E_NOSPC,
	       "one byte short");
	struct http_response back;
	const char *one = rewrite("HTTP/1.1 200\r\nX:1\r\nTransfer-Encoding: gzip\r\n\r\n", 0);
	is_int(http_parse_response(one, strlen(one), 0, 0, &back), (int)strlen(one),
	       "a relayed head parses back");
	ok(back.body == HTTP_BODY_CLOSE && back.status == 200 && back.nheaders == 2,
	   "to the same status and framing");
}

static void test_strings(void)
{
	static const int errs[] = {
	    HTTP_PARTIAL,
	    HTTP_E_SYNTAX,
	    HTTP_E_LINE_TOO_LONG,
	    HTTP_E_HEAD_TOO_LARGE,
	    HTTP_E_TOO_MANY_HEADERS,
	    HTTP_E_VERSION,
	    HTTP_E_STATUS,
	    HTTP_E_UPGRADE,
	    HTTP_E_CONTENT_LENGTH,
	    HTTP_E_TRANSFER_ENCODING,
	    HTTP_E_CL_AND_TE,
	    HTTP_E_CHUNKED,
	    HTTP_E_INTERIM,
	};
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		ok(strcmp(http_response_strerror(errs[i]), "unknown error") != 0,
		   "response message for %d: %s", errs[i], http_response_strerror(errs[i]));
	ok(strstr(http_response_strerror(HTTP_E_HEAD_TOO_LARGE), "response") != NULL,
	   "response messages speak of the response");

	char want[128];
	snprintf(want, sizeof(want), "status line longer than %d bytes", HTTP_LINE_MAX);
	is_str(http_response_strerror(HTTP_E_LINE_TOO_LONG), want, "line limit from the constant");
	snprintf(want, sizeof(want), "response head larger than %d bytes", HTTP_HEAD_MAX);
	is_str(http_response_strerror(HTTP_E_HEAD_TOO_LARGE), want, "head limit from the constant");
	snprintf(want, sizeof(want), "more than %d header fields in the response",
		 HTTP_HEADERS_MAX);
	is_str(http_response_strerror(HTTP_E_TOO_MANY_HEADERS), want,
	       "field limit from the constant");
	snprintf(want, sizeof(want), "more than %d interim (1xx) responses", HTTP_INTERIM_MAX);
	is_str(http_response_strerror(HTTP_E_INTERIM), want, "interim limit from the constant");
}

int main(void)
{
	test_cases();
	test_fields();
	test_limits();
	test_rewrite();
	test_strings();
	guard_release(&g);
	return tap_done();
}
