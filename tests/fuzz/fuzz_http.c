/* fuzz_http — request heads, rewrite and chunked framing. Invariants: consumed ≤ len; every
 * slice lies inside the input; one-shot equals byte-at-a-time; a rewritten head parses back
 * to the same host and port; the chunked scanner's split does not change its answer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/http.h"
#include "tests/fuzz/http_slices.h"

static struct http_request req, req2;

static void check_slices(const struct http_request *r, const char *buf, size_t len)
{
	in_buf(r->method, buf, len);
	in_buf(r->target, buf, len);
	in_buf(r->scheme, buf, len);
	in_buf(r->host, buf, len);
	in_buf(r->path, buf, len);
	headers_in_buf(r->headers, r->nheaders, buf, len);
}

/* The rewritten head, put back into absolute form with the original scheme, host and port,
 * parses as a request for that same host and port (the Host field kept agrees with it). */
static void check_roundtrip(const char *out, size_t n)
{
	static char back[HTTP_HEAD_MAX + 2 * HTTP_REWRITE_SLACK + 300];
	static struct http_request req3;
	size_t m = req.method.n, k;
	int r;

	if (n <= m + 1 || memcmp(out, req.method.p, m) != 0 || out[m] != ' ' || out[m + 1] != '/')
		abort();
	k = (size_t)snprintf(back, sizeof(back), "%.*s %.*s://%s%.*s%s", (int)m, req.method.p,
			     (int)req.scheme.n, req.scheme.p, req.host_is_ipv6 ? "[" : "",
			     (int)req.host.n, req.host.p, req.host_is_ipv6 ? "]" : "");
	if (req.port_explicit)
		k += (size_t)snprintf(back + k, sizeof(back) - k, ":%u", (unsigned)req.port);
	if (k + (n - m - 1) > sizeof(back))
		abort();
	memcpy(back + k, out + m + 1, n - m - 1);
	r = http_parse_request(back, k + n - m - 1, 0, &req3);
	if (r == HTTP_E_TOO_MANY_HEADERS || r == HTTP_E_HEAD_TOO_LARGE)
		return;
	if (r <= 0 || req3.port != req.port || req3.host.n != req.host.n ||
	    memcmp(req3.host.p, req.host.p, req.host.n) != 0)
		abort();
}

static void check_rewrite(size_t head_len)
{
	static char out[HTTP_HEAD_MAX + HTTP_REWRITE_SLACK];
	ssize_t n = http_rewrite_head(&req, HTTP_REWRITE_CLOSE, out, head_len + HTTP_REWRITE_SLACK);

	if (req.is_connect)
		return;
	if (n <= 0 || (size_t)n > head_len + HTTP_REWRITE_SLACK)
		abort();
	/* forwarded upstream, it is an origin-form request (the parser refuses that form) */
	int r2 = http_parse_request(out, (size_t)n, 0, &req2);
	if (r2 != HTTP_E_ORIGIN_FORM && r2 != HTTP_E_TOO_MANY_HEADERS &&
	    r2 != HTTP_E_HEAD_TOO_LARGE)
		abort();
	check_roundtrip(out, (size_t)n);
}

static void check_incremental(const char *buf, size_t len, int one)
{
	for (size_t k = 1; k <= len; k++) {
		int r = http_parse_request(buf, k, k - 1, &req2);
		if (r == HTTP_PARTIAL)
			continue;
		if (r != one)
			abort();
		return;
	}
	if (one != HTTP_PARTIAL)
		abort();
}

static void check_chunked(const char *buf, size_t len)
{
	struct http_chunked a, b;
	ssize_t ra, rb = 0, r;
	size_t half = len / 2;

	http_chunked_init(&a);
	ra = http_chunked_scan(&a, buf, len);
	if (ra > (ssize_t)len)
		abort();
	http_chunked_init(&b);
	r = http_chunked_scan(&b, buf, half);
	if (r >= 0) {
		rb = r;
		if (!http_chunked_done(&b) &&
		    (r = http_chunked_scan(&b, buf + half, len - half)) >= 0)
			rb += r;
	}
	if ((ra < 0) != (r < 0) ||
	    (ra >= 0 && (ra != rb || http_chunked_done(&a) != http_chunked_done(&b))))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	int r = http_parse_request(buf, size, 0, &req);

	if (r > (int)size || r == 0)
		abort();
	if (r > 0 || r == HTTP_E_HOST_MISMATCH || r == HTTP_E_ORIGIN_FORM)
		check_slices(&req, buf, size);
	if (r > 0)
		check_rewrite((size_t)r);
	if (size <= 4096)
		check_incremental(buf, size, r);
	check_chunked(buf, size);
	http_strerror(r);
	return 0;
}
