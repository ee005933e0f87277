/* http_slices.h — the slice check fuzz_http and fuzz_http_resp share: every slice the parser
 * hands out lies inside the input it was given (abort otherwise, for the fuzzer to see). */
#ifndef SBX_FUZZ_HTTP_SLICES_H
#define SBX_FUZZ_HTTP_SLICES_H
#include <stdlib.h>

#include "proxy/http.h"

static inline void in_buf(struct http_slice s, const char *buf, size_t len)
{
	if (s.n && (s.p < buf || s.p + s.n > buf + len))
		abort();
}

static inline void headers_in_buf(const struct http_header *h, size_t n, const char *buf,
				  size_t len)
{
	if (n > HTTP_HEADERS_MAX)
		abort();
	for (size_t i = 0; i < n; i++) {
		in_buf(h[i].name, buf, len);
		in_buf(h[i].value, buf, len);
	}
}

#endif
