/* fuzz_proto — session control frames: any bytes decode or are refused, and a decoded frame
 * re-encodes to a frame that decodes to the same message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "session/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sess_msg a, b;

static int same(const struct sess_str *x, const struct sess_str *y)
{
	return x->n == y->n && (x->n == 0 || memcmp(x->p, y->p, x->n) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf buf = {0};
	long want = sess_frame_len(data, size);

	if (want <= 0 || (size_t)want > size)
		return 0;
	if (sess_decode(data, (size_t)want, &a) != 0)
		return 0;
	if (sess_encode(&a, &buf) != 0)
		abort();
	if (sess_decode(buf.p, buf.n, &b) != 0)
		abort();
	if (a.type != b.type || a.nallow != b.nallow || a.ndeny != b.ndeny || a.nfds != b.nfds ||
	    a.nreach != b.nreach || a.nlisten != b.nlisten || a.port != b.port ||
	    a.have_counters != b.have_counters || !same(&a.cmdline, &b.cmdline) ||
	    !same(&a.text, &b.text))
		abort();
	for (size_t i = 0; i < a.nallow; i++)
		if (!same(&a.allow[i], &b.allow[i]))
			abort();
	if (memcmp(a.fds, b.fds, a.nfds * sizeof(a.fds[0])) != 0 ||
	    memcmp(a.counter, b.counter, sizeof(a.counter)) != 0)
		abort();
	buf_free(&buf);
	return 0;
}
