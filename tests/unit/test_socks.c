/* test_socks — SOCKS5 server side: greeting, CONNECT requests, every refusal and its reply
 * code, SOCKS4, byte-at-a-time feeding against a guard page, reply builders. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "proxy/socks.h"
#include "tests/unit/guard.h"
#include "tests/unit/tap.h"

static struct guard g;

#define B(...) (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})

static int greeting(const uint8_t *b, size_t n, uint8_t *m)
{
	return socks_parse_greeting(guard_place(&g, b, n), n, m);
}

static struct socks_request rq;

static int request(const uint8_t *b, size_t n)
{
	return socks_parse_request(guard_place(&g, b, n), n, &rq);
}

/* Every prefix: the first non-partial answer equals the one-shot answer. */
static int incremental(int (*fn)(const uint8_t *, size_t), const uint8_t *b, size_t n)
{
	int one = fn(b, n);

	for (size_t k = 0; k <= n; k++) {
		int r = fn(b, k);
		if (r != SOCKS_PARTIAL)
			return r == one;
	}
	return one == SOCKS_PARTIAL;
}

static int greet_fn(const uint8_t *b, size_t n)
{
	uint8_t m;
	return greeting(b, n, &m);
}

static void test_greeting(void)
{
	uint8_t m = 0x55;

	is_int(greeting(B(5, 1, 0), &m), 3, "no-auth greeting");
	is_int(m, SOCKS_METHOD_NOAUTH, "no-auth chosen");
	is_int(greeting(B(5, 3, 2, 1, 0), &m), 5, "no-auth among others");
	is_int(greeting(B(5, 2, 2, 1), &m), SOCKS_E_NO_METHOD, "only user/pass and GSSAPI");
	is_int(greeting(B(5, 0), &m), SOCKS_E_MALFORMED, "NMETHODS 0");
	is_int(greeting(B(4, 1, 0, 80, 127, 0, 0, 1, 0), &m), SOCKS_E_SOCKS4, "SOCKS4 refused");
	is_int(greeting(B('G', 'E', 'T', ' '), &m), SOCKS_E_VERSION, "HTTP on the SOCKS port");
	is_int(greeting(B(5, 2, 0), &m), SOCKS_PARTIAL, "methods still coming");
	is_int(greeting(NULL, 0, &m), SOCKS_PARTIAL, "nothing yet");
	is_int(greeting(B(5, 1, 0, 5, 1, 0, 1), &m), 3, "greeting and request together: greeting");

	uint8_t many[257] = {5, 255};
	many[256] = 0;
	is_int(greeting(many, sizeof(many), &m), 257, "255 methods, no-auth last");
	ok(incremental(greet_fn, many, sizeof(many)), "255 methods byte at a time");
	ok(incremental(greet_fn, B(5, 2, 2, 1)), "no method byte at a time");
	ok(incremental(greet_fn, B(5, 0)), "NMETHODS 0 byte at a time");
}

static void test_request(void)
{
	is_int(request(B(5, 1, 0, 1, 93, 184, 216, 34, 0, 80)), 10, "CONNECT IPv4");
	is_str(rq.host, "93.184.216.34", "IPv4 as text");
	ok(rq.atyp == SOCKS_ATYP_IPV4 && rq.port == 80 && rq.addr[0] == 93, "IPv4 bytes and port");

	is_int(request(B(5, 1, 0, 3, 11, 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o', 'm', 1,
			 0xbb)),
	       18, "CONNECT domain");
	is_str(rq.host, "example.com", "domain NUL-terminated");
	is_int(rq.port, 443, "port in network order");

	uint8_t v6[22] = {5, 1, 0, 4, 0x20, 0x01, 0x0d, 0xb8, [19] = 1, [20] = 0x1f, [21] = 0x90};
	is_int(request(v6, sizeof(v6)), 22, "CONNECT IPv6");
	is_str(rq.host, "2001:db8::1", "IPv6 as text");
	is_int(rq.port, 8080, "IPv6 port");

	uint8_t name[4 + 1 + 255 + 2] = {5, 1, 0, 3, 255};
	memset(name + 5, 'a', 255);
	name[260] = 0, name[261] = 80;
	is_int(request(name, sizeof(name)), 262, "255-byte name");
	is_int(strlen(rq.host), 255, "all 255 bytes kept");
	ok(incremental(request, name, sizeof(name)), "255-byte name byte at a time");

	is_int(request(B(5, 2, 0, 1, 1, 2, 3, 4, 0, 80)), SOCKS_E_COMMAND, "BIND");
	is_int(request(B(5, 3, 0, 1, 1, 2, 3, 4, 0, 80)), SOCKS_E_COMMAND, "UDP ASSOCIATE");
	is_int(request(B(5, 9)), SOCKS_E_COMMAND, "unknown command, decided at once");
	is_int(request(B(5, 1, 0, 2)), SOCKS_E_ATYP, "ATYP 2");
	is_int(request(B(5, 1, 0, 0)), SOCKS_E_ATYP, "ATYP 0");
	is_int(request(B(5, 1, 1, 1, 1, 2, 3, 4, 0, 80)), SOCKS_E_MALFORMED, "RSV not 0");
	is_int(request(B(5, 1, 0, 3, 0, 0, 80)), SOCKS_E_MALFORMED, "empty name");
	is_int(request(B(5, 1, 0, 3, 3, 'a', 0, 'b', 0, 80)), SOCKS_E_MALFORMED, "NUL in name");
	is_int(request(B(5, 1, 0, 3, 3, 'a', '\n', 'b', 0, 80)), SOCKS_E_MALFORMED, "LF in name");
	is_int(request(B(5, 1, 0, 3, 3, 'a', ' ', 'b', 0, 80)), SOCKS_E_MALFORMED, "space in name");
	is_int(request(B(5, 1, 0, 1, 1, 2, 3, 4, 0, 0)), SOCKS_E_MALFORMED, "port 0");
	is_int(request(B(4, 1, 0, 80)), SOCKS_E_SOCKS4, "SOCKS4 request");
	is_int(request(B(6, 1, 0, 1)), SOCKS_E_VERSION, "version 6");
	is_int(request(B(5, 1, 0, 3, 5, 'a', 'b')), SOCKS_PARTIAL, "name still coming");
	is_int(request(B(5, 1, 0, 3, 1, 'a', 0)), SOCKS_PARTIAL, "port still coming");
	is_int(request(B(5, 1, 0, 1, 1, 2, 3, 4, 0, 80, 9, 9)), 10, "extra bytes left");

	ok(incremental(request, B(5, 1, 0, 3, 3, 'a', 0, 'b', 0, 80)), "NUL byte at a time");
	ok(incremental(request, B(5, 1, 0, 7)), "bad ATYP byte at a time");
	ok(incremental(request, v6, sizeof(v6)), "IPv6 byte at a time");
	ok(incremental(request, B(5, 1, 0, 1, 1, 2, 3, 4, 0, 0)), "port 0 byte at a time");

	is_int(socks_error_rep(SOCKS_E_COMMAND), 7, "command not supported: 0x07");
	is_int(socks_error_rep(SOCKS_E_ATYP), 8, "address type not supported: 0x08");
	is_int(socks_error_rep(SOCKS_E_MALFORMED), 1, "malformed: general failure");
}

static void test_replies(void)
{
	uint8_t out[SOCKS_REPLY_MAX];
	struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = htons(1080)};
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6, .sin6_port = htons(443)};

	inet_pton(AF_INET, "10.1.2.3", &s4.sin_addr);
	inet_pton(AF_INET6, "2001:db8::2", &s6.sin6_addr);
	is_int(socks_reply(SOCKS_REP_SUCCESS, (struct sockaddr *)&s4, out), 10, "IPv4 reply");
	ok(!memcmp(out, (uint8_t[]){5, 0, 0, 1, 10, 1, 2, 3, 0x04, 0x38}, 10), "IPv4 reply bytes");
	is_int(socks_reply(SOCKS_REP_SUCCESS, (struct sockaddr *)&s6, out), 22, "IPv6 reply");
	ok(out[3] == 4 && out[4] == 0x20 && out[19] == 2 && out[20] == 1 && out[21] == 0xbb,
	   "IPv6 reply bytes");
	static const uint8_t codes[] = {SOCKS_REP_NOT_ALLOWED, SOCKS_REP_HOST_UNREACHABLE,
					SOCKS_REP_REFUSED, SOCKS_REP_GENERAL};
	for (size_t i = 0; i < sizeof(codes); i++) {
		is_int(socks_reply(codes[i], NULL, out), 10, "refusal 0x%02x is 10 bytes",
		       codes[i]);
		ok(!memcmp(out, (uint8_t[]){5, codes[i], 0, 1, 0, 0, 0, 0, 0, 0}, 10),
		   "refusal 0x%02x: 0.0.0.0:0", codes[i]);
	}
	is_int(socks4_reject(out), 8, "SOCKS4 reject");
	ok(out[0] == 0 && out[1] == 0x5B, "SOCKS4 reject bytes");
}

/* Runs a client's bytes through the state machine in pieces of size step. */
static int drive(const uint8_t *b, size_t n, size_t step, uint8_t *reply, size_t *rlen,
		 struct socks_conn *c)
{
	size_t have = 0, used = 0;
	int r = SOCKS_PARTIAL;

	socks_conn_init(c);
	*rlen = 0;
	while (c->stage < SOCKS_STAGE_CONNECT) {
		size_t rl;
		if (r == SOCKS_PARTIAL) {
			if (have == n)
				break;
			have = have + step > n ? n : have + step;
		}
		r = socks_step(c, guard_place(&g, b + used, have - used), have - used, &rq, reply,
			       &rl);
		if (rl)
			*rlen = rl;
		if (r > 0)
			used += (size_t)r;
		else if (r != SOCKS_PARTIAL)
			return r;
	}
	return c->stage == SOCKS_STAGE_CONNECT ? (int)used : r;
}

static void test_state_machine(void)
{
	static const uint8_t ok_bytes[] = {5, 1, 0, 5, 1, 0, 3, 4, 'h', 'o', 's', 't', 0, 22};
	uint8_t reply[SOCKS_REPLY_MAX];
	struct socks_conn c;
	size_t rlen;

	for (size_t step = 1; step <= sizeof(ok_bytes); step++) {
		int r = drive(ok_bytes, sizeof(ok_bytes), step, reply, &rlen, &c);
		ok(r == (int)sizeof(ok_bytes) && c.stage == SOCKS_STAGE_CONNECT &&
		       !strcmp(rq.host, "host") && rq.port == 22,
		   "greeting + request in %zu-byte pieces", step);
	}
	drive(B(5, 1, 2), 1, reply, &rlen, &c);
	ok(c.stage == SOCKS_STAGE_FAILED && rlen == 2 && reply[1] == 0xFF, "no method: {5, 0xFF}");
	drive(B(5, 1, 0, 5, 2, 0, 1, 1, 1, 1, 1, 0, 80), 1, reply, &rlen, &c);
	ok(c.stage == SOCKS_STAGE_FAILED && rlen == 10 && reply[1] == 7, "BIND: reply 0x07");
	drive(B(5, 1, 0, 5, 1, 0, 9), 1, reply, &rlen, &c);
	ok(c.stage == SOCKS_STAGE_FAILED && rlen == 10 && reply[1] == 8, "ATYP 9: reply 0x08");
	drive(B(4, 1, 0, 80, 1, 2, 3, 4, 0), 1, reply, &rlen, &c);
	ok(c.stage == SOCKS_STAGE_FAILED && rlen == 8 && reply[1] == 0x5B, "SOCKS4: 0x5B reply");
	drive(B(0x16, 3, 1), 1, reply, &rlen, &c);
	ok(c.stage == SOCKS_STAGE_FAILED && rlen == 0, "TLS on the SOCKS port: closed, no reply");
	is_int(socks_step(&c, B(5, 1, 0), &rq, reply, &rlen), SOCKS_E_STATE,
	       "no step after failure");

	for (int e = SOCKS_PARTIAL; e >= SOCKS_E_STATE; e--)
		ok(strcmp(socks_strerror(e), "unknown error") != 0, "message for %d: %s", e,
		   socks_strerror(e));
}

int main(void)
{
	test_greeting();
	test_request();
	test_replies();
	test_state_machine();
	guard_release(&g);
	return tap_done();
}
