/* tls_sni — server name of a TLS ClientHello (RFC 8446 4.1.2, RFC 6066 3).
 *
 * Rules this file keeps:
 * - The bytes come from a sandboxed process: hostile. Every length is checked against the
 *   enclosing one and against the bytes present; nothing at or past buf + len is read.
 * - Bounded: a ClientHello of at most TLS_SNI_HELLO_MAX bytes over at most
 *   TLS_SNI_RECORDS_MAX records; the bytes needed are counted before the hello is parsed, so
 *   a client feeding one byte at a time costs a record walk per call, not a parse.
 * - The name handed out is the one a server would act on: a second server_name extension or
 *   a second host_name is malformed, not "the first one wins"; the name holds only host name
 *   bytes, NUL-terminated.
 */
#include <string.h>

#include "proxy/tls_sni.h"

enum {
	TLS_RECORD_ALERT = 21,
	TLS_RECORD_HANDSHAKE = 22,
	TLS_HS_CLIENT_HELLO = 1,
	TLS_RECORD_MAX = 16384,
	TLS_SNI_RECORDS_MAX = 16,
	TLS_EXT_SERVER_NAME = 0,
	TLS_NAME_HOST = 0,
};

/* Reads handshake bytes across record boundaries. */
struct rd {
	const uint8_t *buf;
	size_t len, pos; /* pos: next byte of buf */
	size_t rec_left; /* payload bytes left in the current record */
	int nrec;
	size_t hs, limit; /* handshake bytes read; how many may be */
};

/* Whether the first record's header h (have bytes) starts what a TLS server would take for
 * a handshake: 0 when it does (parse it), TLS_SNI_NOT_TLS, TLS_SNI_MALFORMED (refuse) or
 * TLS_SNI_PARTIAL. Servers are looser than RFC 8446 about a first record, and whatever one
 * of them accepts must be parsed here, or the ClientHello after it reaches the server with
 * its name unchecked:
 * - OpenSSL and BoringSSL check only the record version's major byte (3) on a first record,
 *   not the minor one ("16 03 05 …" is a ClientHello to them);
 * - Go's crypto/tls takes any version below 0x1000 there ("16 00 01 …");
 * - Go and BoringSSL skip a warning alert before the ClientHello.
 * A first record that is a 2-byte alert is refused; a handshake record with major 3 is
 * parsed; one with another major below 0x10 is parsed when it goes on like a ClientHello
 * (type 1, a length below 64 KiB, client version 3.x), else it is no TLS. */
static int first_record(const uint8_t *h, size_t have)
{
	if (have >= 1 && h[0] != TLS_RECORD_HANDSHAKE && h[0] != TLS_RECORD_ALERT)
		return TLS_SNI_NOT_TLS;
	if (have >= 2 && h[1] >= 0x10)
		return TLS_SNI_NOT_TLS;
	if (h[0] == TLS_RECORD_ALERT) {
		if (have < 5)
			return TLS_SNI_PARTIAL;
		return h[3] == 0 && h[4] == 2 ? TLS_SNI_MALFORMED : TLS_SNI_NOT_TLS;
	}
	if (have >= 2 && h[1] == 3)
		return 0;
	if (have < 10)
		return TLS_SNI_PARTIAL;
	return h[5] == TLS_HS_CLIENT_HELLO && h[6] == 0 && h[9] == 3 ? 0 : TLS_SNI_NOT_TLS;
}

/* Checks the record header at r->pos as far as present; the first one decides NOT_TLS. */
static int rd_record(struct rd *r)
{
	const uint8_t *h = r->buf + r->pos;
	size_t have = r->len - r->pos, rlen;
	int e;

	if (r->nrec == 0) {
		if ((e = first_record(h, have)) != 0)
			return e;
	} else if ((have >= 1 && h[0] != TLS_RECORD_HANDSHAKE) || (have >= 2 && h[1] != 3) ||
		   (have >= 3 && h[2] > 4)) {
		return TLS_SNI_MALFORMED;
	}
	if (have < 5)
		return TLS_SNI_PARTIAL;
	rlen = (size_t)h[3] << 8 | h[4];
	if (rlen == 0 || rlen > TLS_RECORD_MAX)
		return TLS_SNI_MALFORMED;
	if (++r->nrec > TLS_SNI_RECORDS_MAX)
		return TLS_SNI_TOO_LARGE;
	r->pos += 5;
	r->rec_left = rlen;
	return 0;
}

static int rd_u8(struct rd *r, uint8_t *b)
{
	int e;

	if (r->hs >= r->limit)
		return TLS_SNI_MALFORMED;
	if (r->rec_left == 0 && (e = rd_record(r)) < 0)
		return e;
	if (r->pos >= r->len)
		return TLS_SNI_PARTIAL;
	*b = r->buf[r->pos++];
	r->rec_left--;
	r->hs++;
	return 0;
}

static int rd_num(struct rd *r, int bytes, size_t *v)
{
	uint8_t b;
	int e;

	*v = 0;
	for (int i = 0; i < bytes; i++) {
		if ((e = rd_u8(r, &b)) < 0)
			return e;
		*v = *v << 8 | b;
	}
	return 0;
}

static int rd_skip(struct rd *r, size_t n)
{
	uint8_t b;
	int e;

	while (n--)
		if ((e = rd_u8(r, &b)) < 0)
			return e;
	return 0;
}

/* Counts the handshake bytes present from here on (up to want), walking record headers only;
 * a bad record header on the way is reported now, as the parse would. */
static int rd_available(const struct rd *r0, size_t want, size_t *n)
{
	struct rd r = *r0;
	int e;

	*n = 0;
	for (;;) {
		size_t have = r.len - r.pos;
		size_t here = have < r.rec_left ? have : r.rec_left;
		*n += here;
		if (*n >= want || here < r.rec_left)
			return 0;
		r.pos += here;
		r.rec_left = 0;
		if ((e = rd_record(&r)) < 0)
			return e;
	}
}

static int is_hchar(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_';
}

/* server_name: list<2> of { name_type<1>, opaque<2> }; one host_name at most. */
static int parse_server_name(struct rd *r, size_t ext_len, char *name, int *found)
{
	size_t list, n, end;
	uint8_t type;
	int e;

	if ((e = rd_num(r, 2, &list)) < 0)
		return e;
	if (list + 2 != ext_len || list < 3)
		return TLS_SNI_MALFORMED;
	end = r->hs + list;
	while (r->hs < end) {
		if ((e = rd_u8(r, &type)) < 0 || (e = rd_num(r, 2, &n)) < 0)
			return e;
		if (r->hs + n > end)
			return TLS_SNI_MALFORMED;
		if (type != TLS_NAME_HOST) {
			if ((e = rd_skip(r, n)) < 0)
				return e;
			continue;
		}
		if (*found || n == 0 || n > TLS_SNI_NAME_MAX)
			return TLS_SNI_MALFORMED;
		for (size_t i = 0; i < n; i++) {
			uint8_t c;
			if ((e = rd_u8(r, &c)) < 0)
				return e;
			if (!is_hchar(c))
				return TLS_SNI_MALFORMED;
			name[i] = (char)c;
		}
		name[n] = 0;
		*found = 1;
	}
	return 0;
}

static int parse_extensions(struct rd *r, char *name)
{
	size_t total, type, n, end;
	int e, found = 0, seen = 0;

	if ((e = rd_num(r, 2, &total)) < 0)
		return e;
	if (r->hs + total != r->limit)
		return TLS_SNI_MALFORMED;
	end = r->limit;
	while (r->hs < end) {
		if ((e = rd_num(r, 2, &type)) < 0 || (e = rd_num(r, 2, &n)) < 0)
			return e;
		if (r->hs + n > end)
			return TLS_SNI_MALFORMED;
		if (type != TLS_EXT_SERVER_NAME) {
			if ((e = rd_skip(r, n)) < 0)
				return e;
			continue;
		}
		if (seen++)
			return TLS_SNI_MALFORMED;
		if ((e = parse_server_name(r, n, name, &found)) < 0)
			return e;
	}
	return found ? TLS_SNI_FOUND : TLS_SNI_ABSENT;
}

/* legacy_version, random, session_id, cipher_suites, compression_methods, extensions. */
static int parse_hello(struct rd *r, char *name)
{
	size_t v, n;
	int e;

	if ((e = rd_num(r, 2, &v)) < 0)
		return e;
	if (v >> 8 != 3)
		return TLS_SNI_MALFORMED;
	if ((e = rd_skip(r, 32)) < 0 || (e = rd_num(r, 1, &n)) < 0)
		return e;
	if (n > 32)
		return TLS_SNI_MALFORMED;
	if ((e = rd_skip(r, n)) < 0 || (e = rd_num(r, 2, &n)) < 0)
		return e;
	if (n < 2 || n % 2)
		return TLS_SNI_MALFORMED;
	if ((e = rd_skip(r, n)) < 0 || (e = rd_num(r, 1, &n)) < 0)
		return e;
	if (n < 1)
		return TLS_SNI_MALFORMED;
	if ((e = rd_skip(r, n)) < 0)
		return e;
	if (r->hs == r->limit)
		return TLS_SNI_ABSENT;
	return parse_extensions(r, name);
}

int tls_sni_parse(const uint8_t *buf, size_t len, char *name, size_t cap)
{
	struct rd r = {buf, len, 0, 0, 0, 0, 4};
	size_t body, have;
	uint8_t type;
	int e;

	if (cap < TLS_SNI_NAME_MAX + 1)
		return TLS_SNI_MALFORMED;
	name[0] = 0;
	if ((e = rd_u8(&r, &type)) < 0)
		return e;
	if (type != TLS_HS_CLIENT_HELLO)
		return TLS_SNI_MALFORMED;
	if ((e = rd_num(&r, 3, &body)) < 0)
		return e;
	if (body > TLS_SNI_HELLO_MAX)
		return TLS_SNI_TOO_LARGE;
	if ((e = rd_available(&r, body, &have)) < 0)
		return e;
	if (have < body)
		return TLS_SNI_PARTIAL;
	r.limit = 4 + body;
	e = parse_hello(&r, name);
	if (e != TLS_SNI_FOUND)
		name[0] = 0;
	return e;
}

const char *tls_sni_strerror(int result)
{
	switch (result) {
	case TLS_SNI_FOUND:
		return "server name found";
	case TLS_SNI_ABSENT:
		return "ClientHello without server name";
	case TLS_SNI_PARTIAL:
		return "incomplete ClientHello";
	case TLS_SNI_NOT_TLS:
		return "not a TLS ClientHello";
	case TLS_SNI_MALFORMED:
		return "malformed TLS ClientHello";
	case TLS_SNI_TOO_LARGE:
		return "TLS ClientHello too large";
	}
	return "unknown result";
}
