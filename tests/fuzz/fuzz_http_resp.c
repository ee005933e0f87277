/* fuzz_http_resp — response heads from upstream servers, and where a response ends.
 * Invariants: consumed ≤ len and never 0; every slice lies inside the input; one-shot equals
 * byte-at-a-time; HEAD means no body; the head relayed to the client fits the documented
 * slack and parses back to the same status and framing; a stream of 1xx heads, a final head
 * and its body (as the daemon reads it) never runs past the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/http.h"
#include "tests/fuzz/http_slices.h"

static struct http_response resp, resp2;

static void check_slices(const struct http_response *r, const char *buf, size_t len)
{
	in_buf(r->reason, buf, len);
	headers_in_buf(r->headers, r->nheaders, buf, len);
}

static void check_incremental(const char *buf, size_t len, unsigned flags, int one)
{
	for (size_t k = 1; k <= len; k++) {
		int r = http_parse_response(buf, k, k - 1, flags, &resp2);
		if (r == HTTP_PARTIAL)
			continue;
		if (r != one)
			abort();
		return;
	}
	if (one != HTTP_PARTIAL)
		abort();
}

static void check_rewrite(size_t head_len, unsigned flags)
{
	static char out[HTTP_HEAD_MAX + HTTP_REWRITE_SLACK];
	static const unsigned how[] = {0, HTTP_RESP_CLOSE, HTTP_RESP_KEEP_ALIVE};

	for (size_t i = 0; i < sizeof(how) / sizeof(how[0]); i++) {
		ssize_t n =
		    http_rewrite_response(&resp, how[i], out, head_len + HTTP_REWRITE_SLACK);
		if (n <= 0 || (size_t)n > head_len + HTTP_REWRITE_SLACK)
			abort();
		int r = http_parse_response(out, (size_t)n, 0, flags, &resp2);
		if (r == HTTP_E_TOO_MANY_HEADERS || r == HTTP_E_HEAD_TOO_LARGE)
			continue; /* the Connection field added one too many */
		if (r != n || resp2.status != resp.status || resp2.body != resp.body ||
		    resp2.content_length != resp.content_length)
			abort();
	}
}

/* The daemon's reading: heads (at most HTTP_INTERIM_MAX 1xx ones), then the body by its
 * framing. */
static void check_stream(const char *buf, size_t len, unsigned flags)
{
	size_t pos = 0;
	unsigned interim = 0;
	int r;

	for (;;) {
		r = http_parse_response(buf + pos, len - pos, 0, flags, &resp2);
		if (r <= 0)
			return;
		pos += (size_t)r;
		if (pos > len)
			abort();
		if (resp2.status >= 200)
			break;
		if (++interim > HTTP_INTERIM_MAX)
			return;
	}
	if (resp2.body == HTTP_BODY_CHUNKED) {
		struct http_chunked c;
		http_chunked_init(&c);
		ssize_t t = http_chunked_scan(&c, buf + pos, len - pos);
		if (t > (ssize_t)(len - pos))
			abort();
	} else if (resp2.body == HTTP_BODY_NONE && resp2.content_length != 0) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;

	for (unsigned flags = 0; flags <= HTTP_RESP_TO_HEAD; flags++) {
		int r = http_parse_response(buf, size, 0, flags, &resp);
		if (r > (int)size || r == 0)
			abort();
		if (r > 0) {
			check_slices(&resp, buf, size);
			if (flags && resp.body != HTTP_BODY_NONE)
				abort();
			check_rewrite((size_t)r, flags);
		}
		if (size <= 4096)
			check_incremental(buf, size, flags, r);
		check_stream(buf, size, flags);
		http_response_strerror(r);
	}
	return 0;
}
