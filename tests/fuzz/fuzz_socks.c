/* fuzz_socks — SOCKS5 greeting and request parsing and the state machine. Invariants:
 * consumed ≤ len; a parsed domain is NUL-terminated with no NUL or control byte, and its
 * normalised spelling (the one resolved) is a plain, stable name; replies
 * fit SOCKS_REPLY_MAX; one-shot equals byte-at-a-time; the state machine never goes past
 * CONNECT or FAILED. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/domain.h"
#include "proxy/socks.h"

/* The spelling the daemon resolves a domain in (domain_name_norm): lowercase ASCII letters,
 * digits, '-', '_' and inner dots only, at most 253 bytes, and normalising it again changes
 * nothing. */
static void check_norm(const char *host)
{
	char norm[256], again[256];
	size_t n;

	if (domain_name_norm(host, norm, sizeof(norm)) < 0)
		return;
	n = strnlen(norm, sizeof(norm));
	if (n == 0 || n > 253 || norm[0] == '.' || norm[n - 1] == '.' || strstr(norm, ".."))
		abort();
	for (size_t i = 0; i < n; i++)
		if (!((norm[i] >= 'a' && norm[i] <= 'z') || (norm[i] >= '0' && norm[i] <= '9') ||
		      norm[i] == '-' || norm[i] == '_' || norm[i] == '.'))
			abort();
	if (domain_name_norm(norm, again, sizeof(again)) < 0 || strcmp(norm, again) != 0)
		abort();
}

static void check_request(const struct socks_request *rq)
{
	size_t n = strnlen(rq->host, sizeof(rq->host));

	if (n == sizeof(rq->host) || n == 0)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)rq->host[i] <= 0x20 || rq->host[i] == 0x7f)
			abort();
	if (rq->port == 0)
		abort();
	check_norm(rq->host);
}

static void check_incremental(const uint8_t *d, size_t size, int req, int one)
{
	struct socks_request rq;
	uint8_t m;

	for (size_t k = 0; k <= size; k++) {
		int r = req ? socks_parse_request(d, k, &rq) : socks_parse_greeting(d, k, &m);
		if (r == SOCKS_PARTIAL)
			continue;
		if (r != one)
			abort();
		return;
	}
	if (one != SOCKS_PARTIAL)
		abort();
}

static void run_machine(const uint8_t *d, size_t size)
{
	struct socks_conn c;
	struct socks_request rq;
	uint8_t reply[SOCKS_REPLY_MAX];
	size_t used = 0, rl;

	socks_conn_init(&c);
	while (c.stage != SOCKS_STAGE_CONNECT && c.stage != SOCKS_STAGE_FAILED) {
		int r = socks_step(&c, d + used, size - used, &rq, reply, &rl);
		if (rl > SOCKS_REPLY_MAX)
			abort();
		if (r == SOCKS_PARTIAL)
			return;
		if (r > 0) {
			if ((size_t)r > size - used)
				abort();
			used += (size_t)r;
		} else if (c.stage != SOCKS_STAGE_FAILED) {
			abort();
		}
	}
	if (c.stage == SOCKS_STAGE_CONNECT)
		check_request(&rq);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct socks_request rq;
	uint8_t m = 0x55;
	int g = socks_parse_greeting(data, size, &m);
	int r = socks_parse_request(data, size, &rq);

	if (g > (int)size || r > (int)size || g == 0 || r == 0)
		abort();
	if (g > 0 && m != SOCKS_METHOD_NOAUTH)
		abort();
	if (r > 0)
		check_request(&rq);
	check_incremental(data, size, 0, g);
	check_incremental(data, size, 1, r);
	run_machine(data, size);
	socks_strerror(r);
	return 0;
}
