/* test_session_proto — control frames: round trips, bounds, and malformed input refused. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "session/proto.h"
#include "session/wire.h"
#include "tests/unit/tap.h"

static struct sess_msg m, d;

static void roundtrip(void)
{
	struct buf b = {0};

	memset(&m, 0, sizeof(m));
	m.type = SESS_BEGIN;
	m.cmd_id = sess_s("123-456");
	m.cmdline = sess_s("curl https://example.com");
	m.cwd = sess_s("/home/u/p");
	m.profile = sess_s("[dir ~/p]");
	m.profile_file = sess_s("~/.config/sbxsh/sbxsh.ini");
	m.allow[m.nallow++] = sess_s("example.com");
	m.allow[m.nallow++] = sess_s("*.github.com");
	m.deny[m.ndeny++] = sess_s("evil.example.com");
	m.reach[m.nreach++] = 5432;
	m.listen[m.nlisten++] = 8080;
	m.fds[m.nfds++] = (struct sess_fdspec){SESS_FD_HTTP, 0};
	m.fds[m.nfds++] = (struct sess_fdspec){SESS_FD_REACH, 5432};
	is_int(sess_encode(&m, &b), 0, "BEGIN encodes");
	is_int(sess_frame_len(b.p, b.n), (long)b.n, "the header gives the frame's length");
	is_int(sess_frame_len(b.p, 3), 0, "three bytes are not enough to know");
	is_int(sess_decode(b.p, b.n, &d), 0, "and decodes");
	is_int(d.type, SESS_BEGIN, "type");
	ok(d.cmdline.n == m.cmdline.n && memcmp(d.cmdline.p, m.cmdline.p, d.cmdline.n) == 0,
	   "cmdline");
	is_int(d.nallow, 2, "two allow entries");
	ok(d.allow[1].n == 12 && memcmp(d.allow[1].p, "*.github.com", 12) == 0, "in order");
	is_int(d.ndeny, 1, "one deny");
	is_int(d.reach[0], 5432, "reach port");
	is_int(d.listen[0], 8080, "listen port");
	is_int(d.nfds, 2, "two descriptors named");
	is_int(d.fds[1].role, SESS_FD_REACH, "roles kept");
	is_int(d.fds[1].port, 5432, "with their port");
	is_int(sess_fds_expected(&d), 2, "BEGIN expects its descriptors");
	/* every proper prefix is incomplete or refused, never accepted */
	int bad = 0;
	for (size_t i = 0; i < b.n; i++)
		if (sess_decode(b.p, i, &d) == 0)
			bad++;
	is_int(bad, 0, "no truncation of the frame decodes");
	buf_free(&b);

	memset(&m, 0, sizeof(m));
	m.type = SESS_STATUS_REPLY;
	m.counter[SC_BYTES_DOWN] = 0x0123456789abcdefULL;
	m.counter[SC_PID] = 42;
	m.have_counters = (1u << SC_N) - 1;
	is_int(sess_encode(&m, &b), 0, "STATUS reply encodes");
	is_int(sess_decode(b.p, b.n, &d), 0, "and decodes");
	ok(d.counter[SC_BYTES_DOWN] == 0x0123456789abcdefULL && d.counter[SC_PID] == 42,
	   "64-bit counters");
	buf_free(&b);
}

/* A frame from hex-free bytes: header computed. */
static size_t mk(uint8_t *out, const uint8_t *body, size_t n)
{
	out[0] = (uint8_t)(n >> 24);
	out[1] = (uint8_t)(n >> 16);
	out[2] = (uint8_t)(n >> 8);
	out[3] = (uint8_t)n;
	memcpy(out + 4, body, n);
	return n + 4;
}

/* END's OK carries the command's network refusals; every malformed one is refused. */
static void refusals(void)
{
	struct buf b = {0};

	memset(&m, 0, sizeof(m));
	m.type = SESS_OK;
	m.refusals[m.nrefusals++] =
	    (struct sess_refusal){sess_s("example.org"), sess_s("not in allow_domains"),
				  sess_s("allow_domains += example.org"), 443};
	m.refusals[m.nrefusals++] =
	    (struct sess_refusal){sess_s("10.0.0.1"), sess_s(""), sess_s(NULL), 22};
	m.refusals_more = 7;
	is_int(sess_encode(&m, &b), 0, "an OK with refusals encodes");
	is_int(sess_decode(b.p, b.n, &d), 0, "and decodes");
	ok(d.nrefusals == 2 && d.refusals[0].port == 443 && d.refusals[0].host.n == 11 &&
	       memcmp(d.refusals[0].host.p, "example.org", 11) == 0 &&
	       d.refusals[0].grant.n == 28 && d.refusals[1].port == 22 &&
	       d.refusals[1].reason.n == 0 && d.refusals[1].grant.n == 0,
	   "host, port, reason and grant kept, in order");
	is_int(d.refusals_more, 7, "the count of those not listed");
	int bad = 0;
	for (size_t i = 0; i < b.n; i++)
		if (sess_decode(b.p, i, &d) == 0)
			bad++;
	is_int(bad, 0, "no truncation decodes");
	/* a refusal whose inner lengths overrun its field */
	uint8_t body[] = {
	    SESS_PROTO_VERSION, SESS_OK, T_REFUSAL, 0, 8, 0, 80, 0, 9, 'a', 'b', 0, 0};
	uint8_t fr[64];
	size_t n = mk(fr, body, sizeof(body));
	is_int(sess_decode(fr, n, &d), -EPROTO, "an inner length past the field is refused");
	uint8_t body2[] = {
	    SESS_PROTO_VERSION, SESS_OK, T_REFUSAL, 0, 10, 0, 80, 0, 1, 'a', 0, 0, 0, 0, 'x'};
	n = mk(fr, body2, sizeof(body2));
	is_int(sess_decode(fr, n, &d), -EPROTO, "a field longer than its texts is refused");
	uint8_t body3[] = {
	    SESS_PROTO_VERSION, SESS_OK, T_REFUSAL, 0, 9, 0, 80, 0, 1, 0, 0, 0, 0, 0};
	n = mk(fr, body3, sizeof(body3));
	is_int(sess_decode(fr, n, &d), -EPROTO, "a NUL in a host is refused");
	memset(&m, 0, sizeof(m));
	m.type = SESS_OK;
	m.nrefusals = SESS_REFUSALS_MAX + 1;
	is_int(sess_encode(&m, &b), -E2BIG, "more refusals than the bound do not encode");
	buf_free(&b);
}

/* END's OK carries the command's notes (upstream failures) apart from its refusals. */
static void notes(void)
{
	struct buf b = {0};

	memset(&m, 0, sizeof(m));
	m.type = SESS_OK;
	m.refusals[m.nrefusals++] = (struct sess_refusal){
	    sess_s("bad.test"), sess_s("not in allow_domains"), sess_s(""), 80};
	m.notes[m.nnotes++] = (struct sess_refusal){
	    sess_s("nothere.invalid"), sess_s("no such name (resolved by the session proxy)"),
	    sess_s(NULL), 443};
	is_int(sess_encode(&m, &b), 0, "an OK with a refusal and a note encodes");
	is_int(sess_decode(b.p, b.n, &d), 0, "and decodes");
	ok(d.nrefusals == 1 && d.nnotes == 1 && d.notes[0].port == 443 && d.notes[0].host.n == 15 &&
	       memcmp(d.notes[0].host.p, "nothere.invalid", 15) == 0 && d.notes[0].reason.n == 44 &&
	       d.refusals[0].port == 80,
	   "the note is kept apart from the refusal");
	uint8_t body[] = {SESS_PROTO_VERSION, SESS_OK, T_NOTE, 0, 9, 0, 80, 0, 1, 0, 0, 0, 0, 0};
	uint8_t fr[64];
	size_t n = mk(fr, body, sizeof(body));
	is_int(sess_decode(fr, n, &d), -EPROTO, "a NUL in a note's host is refused");
	memset(&m, 0, sizeof(m));
	m.type = SESS_OK;
	for (int i = 0; i < SESS_NOTES_MAX; i++)
		m.notes[i] = (struct sess_refusal){sess_s("h"), sess_s("r"), sess_s(""), 1};
	m.nnotes = SESS_NOTES_MAX;
	is_int(sess_encode(&m, &b), 0, "SESS_NOTES_MAX notes encode");
	/* one more T_NOTE appended by hand: past the bound */
	uint8_t extra[] = {T_NOTE, 0, 10, 0, 1, 0, 1, 'h', 0, 1, 'r', 0, 0};
	uint8_t *big = malloc(b.n + sizeof(extra));
	memcpy(big, b.p, b.n);
	memcpy(big + b.n, extra, sizeof(extra));
	uint32_t len = (uint32_t)(b.n - 4 + sizeof(extra));
	big[0] = (uint8_t)(len >> 24), big[1] = (uint8_t)(len >> 16), big[2] = (uint8_t)(len >> 8),
	big[3] = (uint8_t)len;
	is_int(sess_decode(big, b.n + sizeof(extra), &d), -EPROTO,
	       "a note past SESS_NOTES_MAX is refused");
	free(big);
	m.nnotes = SESS_NOTES_MAX + 1;
	is_int(sess_encode(&m, &b), -E2BIG, "more notes than the bound do not encode");
	buf_free(&b);
}

static void malformed(void)
{
	static const struct {
		const char *what;
		uint8_t body[16];
		size_t n;
		int rc;
	} cases[] = {
	    {"another version", {2, 1}, 2, -EPROTONOSUPPORT},
	    {"an unknown type", {1, 0x44}, 2, -EPROTO},
	    {"an unknown tag", {1, 1, 99, 0, 0}, 5, -EPROTO},
	    {"a field past the frame", {1, 1, 1, 0, 5, 'a'}, 6, -EPROTO},
	    {"a cut field header", {1, 1, 1, 0}, 4, -EPROTO},
	    {"a NUL in a text", {1, 1, 2, 0, 3, 'a', 0, 'b'}, 8, -EPROTO},
	    {"a repeated scalar", {1, 1, 1, 0, 1, 'a', 1, 0, 1, 'b'}, 10, -EPROTO},
	    {"port 0", {1, 1, 8, 0, 2, 0, 0}, 7, -EPROTO},
	    {"a port of 3 bytes", {1, 1, 8, 0, 3, 0, 1, 2}, 8, -EPROTO},
	    {"an unknown fd role", {1, 1, 10, 0, 3, 9, 0, 0}, 8, -EPROTO},
	    {"a reach fd without port", {1, 1, 10, 0, 3, 3, 0, 0}, 8, -EPROTO},
	    {"an http fd with a port", {1, 1, 10, 0, 3, 1, 0, 1}, 8, -EPROTO},
	    {"a counter of 4 bytes", {1, 0x83, 20, 0, 4, 0, 0, 0, 1}, 9, -EPROTO},
	};
	uint8_t f[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = mk(f, cases[i].body, cases[i].n);
		is_int(sess_decode(f, n, &d), cases[i].rc, "%s is refused", cases[i].what);
	}
	f[0] = 0x7f;
	is_int(sess_frame_len(f, 4), -EMSGSIZE,
	       "a length past the bound is refused from the header");
	memset(f, 0, 4);
	f[3] = 1;
	is_int(sess_frame_len(f, 4), -EPROTO, "a body too short for version and type is refused");
}

static void limits(void)
{
	struct buf b = {0};
	static char big[SESS_FIELD_MAX + 2];

	memset(&m, 0, sizeof(m));
	m.type = SESS_BEGIN;
	memset(big, 'x', sizeof(big) - 1);
	m.cwd = sess_s(big);
	is_int(sess_encode(&m, &b), -E2BIG, "a field past SESS_FIELD_MAX is not encoded");
	m.cwd = sess_s("/x");
	for (size_t i = 0; i < SESS_LIST_MAX; i++)
		m.allow[m.nallow++] = sess_s("a.example.com");
	is_int(sess_encode(&m, &b), 0, "SESS_LIST_MAX allow entries encode");
	is_int(sess_decode(b.p, b.n, &d), 0, "and decode");
	/* one more entry appended by hand is refused */
	{
		uint8_t *p = malloc(b.n + 8);
		size_t body;
		memcpy(p, b.p, b.n);
		memcpy(p + b.n,
		       "\x06\x00\x01"
		       "b",
		       4);
		body = b.n + 4 - SESS_HDR_LEN;
		p[0] = (uint8_t)(body >> 24);
		p[1] = (uint8_t)(body >> 16);
		p[2] = (uint8_t)(body >> 8);
		p[3] = (uint8_t)body;
		is_int(sess_decode(p, b.n + 4, &d), -EPROTO, "entry SESS_LIST_MAX + 1 is refused");
		free(p);
	}
	buf_free(&b);
}

static void wire(void)
{
	int sv[2], fds[SESS_FDS_MAX], pfd[2];
	size_t nfds = 0;
	struct buf b = {0};
	static uint8_t buf[SESS_HDR_LEN + SESS_BODY_MAX];

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	if (pipe(pfd) < 0)
		return;
	memset(&m, 0, sizeof(m));
	m.type = SESS_RELAY;
	m.port = 8080;
	sess_encode(&m, &b);
	is_int(sess_send(sv[0], b.p, b.n, &pfd[0], 1), 0, "a frame with a descriptor is sent");
	is_int(sess_recv(sv[1], buf, fds, &nfds), (long)b.n, "and received whole");
	is_int(nfds, 1, "with its descriptor");
	is_int(sess_decode(buf, b.n, &d), 0, "that decodes");
	is_int(d.port, 8080, "port");
	sess_close_fds(fds, nfds);
	close(sv[0]);
	is_int(sess_recv(sv[1], buf, fds, &nfds), 0, "end of stream reads 0");
	close(sv[1]);
	close(pfd[0]);
	close(pfd[1]);
	buf_free(&b);
}

int main(void)
{
	roundtrip();
	malformed();
	refusals();
	notes();
	limits();
	wire();
	return tap_done();
}
