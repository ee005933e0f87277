/* test_sni — server name from TLS ClientHellos: hellos captured from openssl s_client (TLS 1.3
 * and 1.2, with and without SNI), hellos split over records, every malformed length, not-TLS
 * input, limits, and byte-at-a-time feeding against a guard page. */
#include <stdio.h>
#include <string.h>

#include "proxy/tls_sni.h"
#include "tests/unit/guard.h"
#include "tests/unit/tap.h"

/* Captured with: python3 listener on 127.0.0.1; openssl s_client -connect 127.0.0.1:PORT
 * -servername example.com (TLS 1.3), -tls1_2 -servername www.Example.org, -noservername. */
/* ch13.bin: 317 bytes */
static const uint8_t hello13[] = {
    0x16, 0x03, 0x01, 0x01, 0x38, 0x01, 0x00, 0x01, 0x34, 0x03, 0x03, 0x21, 0x9c, 0x77, 0x47, 0xd5,
    0x8f, 0xa1, 0xa5, 0xfc, 0x1f, 0xcf, 0x0a, 0x8b, 0x0d, 0xc0, 0xab, 0xcb, 0xca, 0x2c, 0x12, 0x1e,
    0xb4, 0x37, 0x73, 0x4f, 0xf4, 0x03, 0x2e, 0xff, 0xf0, 0x1f, 0x8e, 0x20, 0xed, 0xe5, 0x36, 0x93,
    0xf7, 0x87, 0x4b, 0xb9, 0x30, 0x5d, 0x05, 0xfe, 0xde, 0x77, 0x86, 0xfa, 0x94, 0x46, 0x0c, 0xd3,
    0x77, 0xe6, 0xad, 0xe6, 0x96, 0xc1, 0x36, 0x50, 0xac, 0x3b, 0xfd, 0x1b, 0x00, 0x3e, 0x13, 0x02,
    0x13, 0x03, 0x13, 0x01, 0xc0, 0x2c, 0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa,
    0xc0, 0x2b, 0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b, 0xc0, 0x23, 0xc0, 0x27,
    0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39, 0xc0, 0x09, 0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d,
    0x00, 0x9c, 0x00, 0x3d, 0x00, 0x3c, 0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0xad,
    0x00, 0x00, 0x00, 0x10, 0x00, 0x0e, 0x00, 0x00, 0x0b, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65,
    0x2e, 0x63, 0x6f, 0x6d, 0x00, 0x0b, 0x00, 0x04, 0x03, 0x00, 0x01, 0x02, 0x00, 0x0a, 0x00, 0x16,
    0x00, 0x14, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x1e, 0x00, 0x19, 0x00, 0x18, 0x01, 0x00, 0x01, 0x01,
    0x01, 0x02, 0x01, 0x03, 0x01, 0x04, 0x00, 0x23, 0x00, 0x00, 0x00, 0x16, 0x00, 0x00, 0x00, 0x17,
    0x00, 0x00, 0x00, 0x0d, 0x00, 0x2a, 0x00, 0x28, 0x04, 0x03, 0x05, 0x03, 0x06, 0x03, 0x08, 0x07,
    0x08, 0x08, 0x08, 0x09, 0x08, 0x0a, 0x08, 0x0b, 0x08, 0x04, 0x08, 0x05, 0x08, 0x06, 0x04, 0x01,
    0x05, 0x01, 0x06, 0x01, 0x03, 0x03, 0x03, 0x01, 0x03, 0x02, 0x04, 0x02, 0x05, 0x02, 0x06, 0x02,
    0x00, 0x2b, 0x00, 0x09, 0x08, 0x03, 0x04, 0x03, 0x03, 0x03, 0x02, 0x03, 0x01, 0x00, 0x2d, 0x00,
    0x02, 0x01, 0x01, 0x00, 0x33, 0x00, 0x26, 0x00, 0x24, 0x00, 0x1d, 0x00, 0x20, 0xab, 0x32, 0xcb,
    0x2c, 0xd4, 0xb9, 0x25, 0xc6, 0x65, 0x33, 0x85, 0x27, 0xe3, 0xc1, 0x0b, 0xba, 0xca, 0xd4, 0x2c,
    0x88, 0x53, 0x87, 0xc5, 0x5c, 0x9b, 0x71, 0xf4, 0x4d, 0x77, 0x4f, 0x27, 0x02,
};
/* ch12.bin: 212 bytes */
static const uint8_t hello12[] = {
    0x16, 0x03, 0x01, 0x00, 0xcf, 0x01, 0x00, 0x00, 0xcb, 0x03, 0x03, 0xa5, 0x15, 0xbb, 0x1b, 0xa0,
    0xd3, 0x23, 0x22, 0x96, 0xe4, 0x93, 0x99, 0x4e, 0xa9, 0x00, 0x08, 0x3f, 0x94, 0x56, 0xa2, 0xd2,
    0x92, 0xd5, 0x91, 0xf7, 0x3c, 0x1f, 0xb6, 0x25, 0x00, 0xc3, 0x13, 0x00, 0x00, 0x38, 0xc0, 0x2c,
    0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa, 0xc0, 0x2b, 0xc0, 0x2f, 0x00, 0x9e,
    0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b, 0xc0, 0x23, 0xc0, 0x27, 0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14,
    0x00, 0x39, 0xc0, 0x09, 0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d, 0x00, 0x9c, 0x00, 0x3d, 0x00, 0x3c,
    0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0x6a, 0x00, 0x00, 0x00, 0x14, 0x00, 0x12,
    0x00, 0x00, 0x0f, 0x77, 0x77, 0x77, 0x2e, 0x45, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x2e, 0x6f,
    0x72, 0x67, 0x00, 0x0b, 0x00, 0x04, 0x03, 0x00, 0x01, 0x02, 0x00, 0x0a, 0x00, 0x0c, 0x00, 0x0a,
    0x00, 0x1d, 0x00, 0x17, 0x00, 0x1e, 0x00, 0x19, 0x00, 0x18, 0x00, 0x23, 0x00, 0x00, 0x00, 0x16,
    0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x0d, 0x00, 0x2a, 0x00, 0x28, 0x04, 0x03, 0x05, 0x03,
    0x06, 0x03, 0x08, 0x07, 0x08, 0x08, 0x08, 0x09, 0x08, 0x0a, 0x08, 0x0b, 0x08, 0x04, 0x08, 0x05,
    0x08, 0x06, 0x04, 0x01, 0x05, 0x01, 0x06, 0x01, 0x03, 0x03, 0x03, 0x01, 0x03, 0x02, 0x04, 0x02,
    0x05, 0x02, 0x06, 0x02,
};
/* chnosni.bin: 297 bytes */
static const uint8_t hello_nosni[] = {
    0x16, 0x03, 0x01, 0x01, 0x24, 0x01, 0x00, 0x01, 0x20, 0x03, 0x03, 0xd6, 0xf7, 0xff, 0xc0, 0x90,
    0xae, 0xe0, 0x4f, 0x26, 0xd5, 0xba, 0x14, 0x49, 0xcc, 0xc9, 0x54, 0x5f, 0x3f, 0xe3, 0xd4, 0xee,
    0x93, 0xed, 0x54, 0x13, 0x63, 0x02, 0x22, 0xe3, 0x69, 0x2d, 0x86, 0x20, 0xaf, 0xa4, 0x78, 0x09,
    0xed, 0xa5, 0x86, 0x5d, 0x91, 0x63, 0x4c, 0x32, 0x11, 0xe5, 0x16, 0x36, 0x18, 0xb6, 0x30, 0x8a,
    0x5f, 0x80, 0xd6, 0x96, 0xd6, 0x0b, 0x5a, 0x46, 0x77, 0x66, 0x71, 0x32, 0x00, 0x3e, 0x13, 0x02,
    0x13, 0x03, 0x13, 0x01, 0xc0, 0x2c, 0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa,
    0xc0, 0x2b, 0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b, 0xc0, 0x23, 0xc0, 0x27,
    0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39, 0xc0, 0x09, 0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d,
    0x00, 0x9c, 0x00, 0x3d, 0x00, 0x3c, 0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0x99,
    0x00, 0x0b, 0x00, 0x04, 0x03, 0x00, 0x01, 0x02, 0x00, 0x0a, 0x00, 0x16, 0x00, 0x14, 0x00, 0x1d,
    0x00, 0x17, 0x00, 0x1e, 0x00, 0x19, 0x00, 0x18, 0x01, 0x00, 0x01, 0x01, 0x01, 0x02, 0x01, 0x03,
    0x01, 0x04, 0x00, 0x23, 0x00, 0x00, 0x00, 0x16, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x0d,
    0x00, 0x2a, 0x00, 0x28, 0x04, 0x03, 0x05, 0x03, 0x06, 0x03, 0x08, 0x07, 0x08, 0x08, 0x08, 0x09,
    0x08, 0x0a, 0x08, 0x0b, 0x08, 0x04, 0x08, 0x05, 0x08, 0x06, 0x04, 0x01, 0x05, 0x01, 0x06, 0x01,
    0x03, 0x03, 0x03, 0x01, 0x03, 0x02, 0x04, 0x02, 0x05, 0x02, 0x06, 0x02, 0x00, 0x2b, 0x00, 0x09,
    0x08, 0x03, 0x04, 0x03, 0x03, 0x03, 0x02, 0x03, 0x01, 0x00, 0x2d, 0x00, 0x02, 0x01, 0x01, 0x00,
    0x33, 0x00, 0x26, 0x00, 0x24, 0x00, 0x1d, 0x00, 0x20, 0x0c, 0xbb, 0x42, 0x4e, 0x99, 0x96, 0xef,
    0x8a, 0xfe, 0x78, 0x03, 0xc7, 0x81, 0xe2, 0x6f, 0x19, 0x7d, 0x32, 0x59, 0x83, 0xf8, 0x0d, 0x9b,
    0x06, 0x36, 0x31, 0x86, 0x6e, 0xbb, 0xf1, 0x09, 0x32,
};

static struct guard g;
static char name[TLS_SNI_NAME_MAX + 1];

static int sni(const uint8_t *b, size_t n)
{
	return tls_sni_parse(guard_place(&g, b, n), n, name, sizeof(name));
}

/* Every prefix is read against the guard page; the first non-partial answer is the
 * one-shot answer. */
static int incremental(const uint8_t *b, size_t n, int *first)
{
	char keep[sizeof(name)];
	int one = sni(b, n);

	memcpy(keep, name, sizeof(name));
	for (size_t k = 0; k <= n; k++) {
		int r = sni(b, k);
		if (r == TLS_SNI_PARTIAL)
			continue;
		*first = r;
		return r == one && strcmp(name, keep) == 0;
	}
	*first = TLS_SNI_PARTIAL;
	return one == TLS_SNI_PARTIAL;
}

/* --- a ClientHello builder ------------------------------------------------------------- */

struct bw {
	uint8_t b[40000];
	size_t n;
};

static void u8(struct bw *w, unsigned v)
{
	w->b[w->n++] = (uint8_t)v;
}

static void u16(struct bw *w, unsigned v)
{
	u8(w, v >> 8), u8(w, v & 0xff);
}

static void bytes(struct bw *w, const void *p, size_t n)
{
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

/* server_name extension with the given host names (type 0) */
static void ext_sni(struct bw *w, const char *a, const char *b)
{
	size_t la = strlen(a), lb = b ? strlen(b) : 0;
	size_t list = 3 + la + (b ? 3 + lb : 0);

	u16(w, 0), u16(w, (unsigned)(list + 2)), u16(w, (unsigned)list);
	u8(w, 0), u16(w, (unsigned)la), bytes(w, a, la);
	if (b)
		u8(w, 0), u16(w, (unsigned)lb), bytes(w, b, lb);
}

/* Wraps a ClientHello body (version … extensions) into a handshake and records of rec
 * bytes each. */
static size_t frame(uint8_t *out, const struct bw *body, size_t rec)
{
	uint8_t hs[40000];
	size_t n = 0, o = 0;

	hs[n++] = 1;
	hs[n++] = (uint8_t)(body->n >> 16), hs[n++] = (uint8_t)(body->n >> 8),
	hs[n++] = (uint8_t)body->n;
	memcpy(hs + n, body->b, body->n);
	n += body->n;
	for (size_t i = 0; i < n; i += rec) {
		size_t k = n - i < rec ? n - i : rec;
		out[o++] = 22, out[o++] = 3, out[o++] = 1;
		out[o++] = (uint8_t)(k >> 8), out[o++] = (uint8_t)k;
		memcpy(out + o, hs + i, k);
		o += k;
	}
	return o;
}

/* version, random, session id, suites, compression; extensions follow from exts. */
static void hello_body(struct bw *w, const struct bw *exts, int sid, int suites, int comp)
{
	static const uint8_t random[32] = {1, 2, 3};
	uint8_t z[64] = {0};

	w->n = 0;
	u16(w, 0x0303);
	bytes(w, random, 32);
	u8(w, (unsigned)sid), bytes(w, z, (size_t)sid);
	u16(w, (unsigned)suites), bytes(w, z, (size_t)suites);
	u8(w, (unsigned)comp), bytes(w, z, (size_t)comp);
	if (exts)
		u16(w, (unsigned)exts->n), bytes(w, exts->b, exts->n);
}

static uint8_t msg[45000];

static size_t with_exts(const struct bw *exts, size_t rec)
{
	static struct bw body;

	hello_body(&body, exts, 32, 4, 1);
	return frame(msg, &body, rec);
}

static void test_captured(void)
{
	int first;

	is_int(sni(hello13, sizeof(hello13)), TLS_SNI_FOUND, "TLS 1.3 hello from openssl");
	is_str(name, "example.com", "its server name");
	ok(incremental(hello13, sizeof(hello13), &first) && first == TLS_SNI_FOUND,
	   "TLS 1.3 hello byte at a time");
	is_int(sni(hello12, sizeof(hello12)), TLS_SNI_FOUND, "TLS 1.2 hello");
	is_str(name, "www.Example.org", "case kept");
	ok(incremental(hello12, sizeof(hello12), &first) && first == TLS_SNI_FOUND,
	   "TLS 1.2 hello byte at a time");
	is_int(sni(hello_nosni, sizeof(hello_nosni)), TLS_SNI_ABSENT, "hello without SNI");
	is_str(name, "", "no name");
	ok(incremental(hello_nosni, sizeof(hello_nosni), &first) && first == TLS_SNI_ABSENT,
	   "no SNI byte at a time");

	uint8_t more[sizeof(hello13) + 6];
	memcpy(more, hello13, sizeof(hello13));
	memcpy(more + sizeof(hello13), "\x14\x03\x03\x00\x01\x01", 6);
	is_int(sni(more, sizeof(more)), TLS_SNI_FOUND, "bytes after the hello are not read");
	char small[16];
	is_int(tls_sni_parse(hello13, sizeof(hello13), small, sizeof(small)), TLS_SNI_MALFORMED,
	       "a name buffer below 256 bytes is refused");
}

static void test_records(void)
{
	static struct bw ex;
	size_t n;
	int first;

	ex.n = 0;
	u16(&ex, 10), u16(&ex, 4), u16(&ex, 2), u16(&ex, 29); /* supported_groups first */
	ext_sni(&ex, "split.example", NULL);
	for (size_t rec = 7; rec <= 100; rec += 31) {
		n = with_exts(&ex, rec);
		is_int(sni(msg, n), TLS_SNI_FOUND, "hello over records of %zu bytes", rec);
		is_str(name, "split.example", "name across records of %zu bytes", rec);
		ok(incremental(msg, n, &first), "records of %zu bytes byte at a time", rec);
	}
	n = with_exts(&ex, 1);
	is_int(sni(msg, n), TLS_SNI_TOO_LARGE, "one byte per record: too many records");
	ok(incremental(msg, n, &first) && first == TLS_SNI_TOO_LARGE,
	   "too many records, byte at a time");

	n = with_exts(&ex, 40);
	msg[5 + 40] = 23; /* second record: application data */
	is_int(sni(msg, n), TLS_SNI_MALFORMED, "another record type mid-hello");
	n = with_exts(&ex, 40);
	msg[5 + 40 + 3] = 0, msg[5 + 40 + 4] = 0;
	is_int(sni(msg, n), TLS_SNI_MALFORMED, "empty record mid-hello");

	/* the largest hello: body of exactly TLS_SNI_HELLO_MAX bytes, padding extension */
	static struct bw big;
	size_t fixed = 2 + 32 + 1 + 32 + 2 + 4 + 1 + 1 + 2;
	big.n = 0;
	ext_sni(&big, "big.example", NULL);
	size_t pad = TLS_SNI_HELLO_MAX - fixed - big.n - 4;
	u16(&big, 21), u16(&big, (unsigned)pad);
	memset(big.b + big.n, 0, pad), big.n += pad;
	n = with_exts(&big, 16384);
	is_int(sni(msg, n), TLS_SNI_FOUND, "hello of exactly 16384 bytes over two records");
	big.n += 1;
	big.b[big.n - 1] = 0;
	big.b[big.n - pad - 3] = (uint8_t)((pad + 1) >> 8),
			    big.b[big.n - pad - 2] = (uint8_t)(pad + 1);
	n = with_exts(&big, 16384);
	is_int(sni(msg, n), TLS_SNI_TOO_LARGE, "hello of 16385 bytes");
	is_int(sni(msg, 9), TLS_SNI_TOO_LARGE, "too large is known from the first 9 bytes");
}

static void test_not_tls(void)
{
	int first;

	is_int(sni((const uint8_t *)"GET / HTTP/1.1\r\n", 16), TLS_SNI_NOT_TLS, "plain HTTP");
	is_int(sni((const uint8_t *)"G", 1), TLS_SNI_NOT_TLS, "one byte decides");
	is_int(sni((const uint8_t *)"SSH-2.0-OpenSSH\r\n", 17), TLS_SNI_NOT_TLS, "ssh");
	is_int(sni((const uint8_t[]){0x80, 0x2e, 0x01, 0x00, 0x02}, 5), TLS_SNI_NOT_TLS,
	       "SSLv2-style hello");
	is_int(sni((const uint8_t[]){22, 0x10, 0}, 3), TLS_SNI_NOT_TLS, "record version 16.0");
	is_int(sni((const uint8_t[]){22, 2, 0, 0, 4, 2, 0, 0, 0, 3}, 10), TLS_SNI_NOT_TLS,
	       "record version 2.0, not going on like a ClientHello");
	is_int(sni((const uint8_t[]){22, 2, 0}, 3), TLS_SNI_PARTIAL,
	       "record version 2.0: partial until the hello's start is seen");
	is_int(sni((const uint8_t[]){22, 3, 9}, 3), TLS_SNI_PARTIAL,
	       "record version 3.9: a TLS record to OpenSSL (partial)");
	is_int(sni((const uint8_t[]){23, 3, 3, 0, 1, 0}, 6), TLS_SNI_NOT_TLS, "application data");
	is_int(sni((const uint8_t[]){20, 3, 3, 0, 1, 1}, 6), TLS_SNI_NOT_TLS, "change cipher spec");
	is_int(sni((const uint8_t[]){21, 3, 1, 0, 2, 1, 90}, 7), TLS_SNI_MALFORMED,
	       "a warning alert before the hello (Go and BoringSSL skip it)");
	is_int(sni((const uint8_t[]){21, 0, 0, 0, 2}, 5), TLS_SNI_MALFORMED,
	       "an alert with Go's loose version");
	is_int(sni((const uint8_t[]){21, 3, 1, 0}, 4), TLS_SNI_PARTIAL,
	       "an alert's length: partial");
	is_int(sni((const uint8_t[]){21, 3, 1, 1, 0}, 5), TLS_SNI_NOT_TLS,
	       "0x15 with a length no alert has");
	is_int(sni((const uint8_t[]){22}, 1), TLS_SNI_PARTIAL, "0x16 alone: partial");
	is_int(sni(NULL, 0), TLS_SNI_PARTIAL, "nothing yet: partial");
	is_int(sni((const uint8_t[]){22, 3, 1, 0, 0}, 5), TLS_SNI_MALFORMED, "empty record");
	is_int(sni((const uint8_t[]){22, 3, 1, 0x40, 1}, 5), TLS_SNI_MALFORMED, "record > 16 KiB");
	is_int(sni((const uint8_t[]){22, 3, 1, 0, 4, 2, 0, 0, 0}, 9), TLS_SNI_MALFORMED,
	       "ServerHello, not ClientHello");
	is_int(sni((const uint8_t[]){22, 3, 1, 0, 4, 1, 0, 0x40, 1}, 9), TLS_SNI_TOO_LARGE,
	       "ClientHello length past the limit");
	is_int(sni((const uint8_t[]){22, 3, 1, 0, 4, 1, 0, 0, 0}, 9), TLS_SNI_MALFORMED,
	       "empty ClientHello");
	ok(incremental((const uint8_t *)"\x16\x03\x01\x00\x04\x02\x00\x00\x00", 9, &first),
	   "ServerHello byte at a time");
}

/* A first record whose version a server takes though RFC 8446 would not: the name is still
 * read (OpenSSL checks only the major byte, Go anything below 0x1000). */
static void test_loose_versions(void)
{
	static uint8_t h[sizeof(hello13)];

	memcpy(h, hello13, sizeof(h));
	h[2] = 5;
	is_int(sni(h, sizeof(h)), TLS_SNI_FOUND, "record version 3.5: the name is read");
	is_str(name, "example.com", "…and it is the hello's");
	h[1] = 0, h[2] = 1;
	is_int(sni(h, sizeof(h)), TLS_SNI_FOUND, "record version 0.1 (Go): the name is read");
	h[1] = 0x0f;
	is_int(sni(h, sizeof(h)), TLS_SNI_FOUND, "record version 15.1 (Go): the name is read");
	h[1] = 0x10;
	is_int(sni(h, sizeof(h)), TLS_SNI_NOT_TLS, "record version 16.1: no server takes it");
}

static void test_malformed(void)
{
	static struct bw ex, body;
	size_t n;
	int first;

	ex.n = 0;
	ext_sni(&ex, "a.example", "b.example");
	n = with_exts(&ex, 16384);
	is_int(sni(msg, n), TLS_SNI_MALFORMED, "two host names");
	ex.n = 0;
	ext_sni(&ex, "a.example", NULL);
	ext_sni(&ex, "b.example", NULL);
	n = with_exts(&ex, 16384);
	is_int(sni(msg, n), TLS_SNI_MALFORMED, "two server_name extensions");
	ok(incremental(msg, n, &first) && first == TLS_SNI_MALFORMED,
	   "two extensions byte at a time");

	static const char *const bad_names[] = {"a\nb", "a/b", "a b", "a\001", "a:443", "\377"};
	for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
		ex.n = 0;
		ext_sni(&ex, bad_names[i], NULL);
		n = with_exts(&ex, 16384);
		is_int(sni(msg, n), TLS_SNI_MALFORMED, "bad byte in name %zu", i);
		is_str(name, "", "no name handed out for bad name %zu", i);
	}
	ex.n = 0;
	ext_sni(&ex, "", NULL);
	is_int(sni(msg, with_exts(&ex, 16384)), TLS_SNI_MALFORMED, "empty name");
	ex.n = 0;
	u16(&ex, 0), u16(&ex, 0);
	is_int(sni(msg, with_exts(&ex, 16384)), TLS_SNI_MALFORMED, "empty server_name extension");
	ex.n = 0;
	u16(&ex, 0), u16(&ex, 7), u16(&ex, 5), u8(&ex, 1), u16(&ex, 2), bytes(&ex, "ab", 2);
	is_int(sni(msg, with_exts(&ex, 16384)), TLS_SNI_ABSENT, "only a non-host name type");

	char name255[256], name256[257];
	memset(name255, 'a', 255), name255[255] = 0;
	memset(name256, 'a', 256), name256[256] = 0;
	ex.n = 0;
	ext_sni(&ex, name255, NULL);
	is_int(sni(msg, with_exts(&ex, 16384)), TLS_SNI_FOUND, "255-byte name");
	is_int(strlen(name), 255, "all of it");
	ex.n = 0;
	ext_sni(&ex, name256, NULL);
	is_int(sni(msg, with_exts(&ex, 16384)), TLS_SNI_MALFORMED, "256-byte name");

	/* lengths that disagree */
	ex.n = 0;
	ext_sni(&ex, "a.example", NULL);
	ex.b[5]++; /* list length one more than the extension holds */
	is_int(sni(msg, with_exts(&ex, 16384)), TLS_SNI_MALFORMED, "server_name list too long");
	ex.b[5] -= 2;
	is_int(sni(msg, with_exts(&ex, 16384)), TLS_SNI_MALFORMED, "server_name list too short");
	ex.b[5]++;
	ex.b[8]++; /* name length past the list */
	is_int(sni(msg, with_exts(&ex, 16384)), TLS_SNI_MALFORMED, "name longer than its list");
	ex.b[8]--;
	ex.b[3] += 9; /* extension length past the block */
	is_int(sni(msg, with_exts(&ex, 16384)), TLS_SNI_MALFORMED, "extension past the block");
	ex.b[3] -= 9;

	hello_body(&body, &ex, 32, 4, 1);
	body.b[body.n - ex.n - 1]++; /* extensions total one more */
	is_int(sni(msg, frame(msg, &body, 16384)), TLS_SNI_MALFORMED, "extensions total too long");
	hello_body(&body, &ex, 32, 4, 1);
	body.n--; /* handshake ends inside the last extension */
	is_int(sni(msg, frame(msg, &body, 16384)), TLS_SNI_MALFORMED,
	       "hello cut inside extensions");
	hello_body(&body, &ex, 33, 4, 1);
	is_int(sni(msg, frame(msg, &body, 16384)), TLS_SNI_MALFORMED, "session id of 33");
	hello_body(&body, &ex, 32, 3, 1);
	is_int(sni(msg, frame(msg, &body, 16384)), TLS_SNI_MALFORMED, "odd cipher suites length");
	hello_body(&body, &ex, 32, 0, 1);
	is_int(sni(msg, frame(msg, &body, 16384)), TLS_SNI_MALFORMED, "no cipher suites");
	hello_body(&body, &ex, 32, 4, 0);
	is_int(sni(msg, frame(msg, &body, 16384)), TLS_SNI_MALFORMED, "no compression method");
	hello_body(&body, NULL, 0, 2, 1);
	is_int(sni(msg, frame(msg, &body, 16384)), TLS_SNI_ABSENT, "no extensions at all");
	hello_body(&body, &ex, 32, 4, 1);
	body.b[0] = 2;
	is_int(sni(msg, frame(msg, &body, 16384)), TLS_SNI_MALFORMED, "legacy_version 2.x");
	hello_body(&body, &ex, 32, 4, 1);
	body.n = 2 + 32 + 1 + 32 + 2 + 4 + 1 + 1 + 1; /* one byte of the extensions length */
	is_int(sni(msg, frame(msg, &body, 16384)), TLS_SNI_MALFORMED, "half an extensions length");

	for (int r = TLS_SNI_FOUND; r >= TLS_SNI_TOO_LARGE; r--)
		ok(strcmp(tls_sni_strerror(r), "unknown result") != 0, "message for %d", r);
}

int main(void)
{
	test_captured();
	test_records();
	test_not_tls();
	test_loose_versions();
	test_malformed();
	guard_release(&g);
	return tap_done();
}
