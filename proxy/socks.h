/* socks — SOCKS5 server side (RFC 1928): greeting and CONNECT request parsing, replies.
 *
 * Pure and I/O-free; nothing allocates. The daemon feeds received bytes to socks_step()
 * and writes the reply bytes it is handed. Input is hostile: see the rules in socks.c. */
#ifndef SBX_PROXY_SOCKS_H
#define SBX_PROXY_SOCKS_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Results: > 0 is bytes consumed; SOCKS_PARTIAL wants more; the rest are errors, after
 * which the daemon sends the reply bytes it was given (if any) and closes. */
enum socks_result {
	SOCKS_PARTIAL = -1,
	SOCKS_E_VERSION = -2,	/* first byte is neither 5 nor 4: not SOCKS */
	SOCKS_E_SOCKS4 = -3,	/* SOCKS4/4a: refused (socks4_reject() gives its reply) */
	SOCKS_E_NO_METHOD = -4, /* no-auth not offered: reply {5, 0xFF} */
	SOCKS_E_COMMAND = -5,	/* BIND, UDP ASSOCIATE, unknown: reply 0x07 */
	SOCKS_E_ATYP = -6,	/* address type other than 1, 3, 4: reply 0x08 */
	SOCKS_E_MALFORMED = -7, /* NMETHODS 0, RSV not 0, empty name, control byte or NUL in it,
				 * port 0: reply 0x01 */
	SOCKS_E_STATE = -8,	/* socks_step() called after the request or an error */
};

/* Reply codes (REP). */
enum socks_rep {
	SOCKS_REP_SUCCESS = 0x00,
	SOCKS_REP_GENERAL = 0x01,
	SOCKS_REP_NOT_ALLOWED = 0x02, /* refused by the profile */
	SOCKS_REP_NET_UNREACHABLE = 0x03,
	SOCKS_REP_HOST_UNREACHABLE = 0x04, /* DNS failure */
	SOCKS_REP_REFUSED = 0x05,	   /* upstream refused */
	SOCKS_REP_TTL_EXPIRED = 0x06,
	SOCKS_REP_COMMAND = 0x07,
	SOCKS_REP_ATYP = 0x08,
};

enum {
	SOCKS_CMD_CONNECT = 1,
	SOCKS_ATYP_IPV4 = 1,
	SOCKS_ATYP_DOMAIN = 3,
	SOCKS_ATYP_IPV6 = 4,
	SOCKS_METHOD_NOAUTH = 0x00,
	SOCKS_METHOD_NONE = 0xFF,
	SOCKS_REPLY_MAX = 22, /* longest reply: IPv6 bound address */
};

/* A CONNECT request. host is NUL-terminated text for every address type: the name as sent
 * (ATYP 3, 1..255 bytes, no NUL or control byte; not otherwise checked, the domain matcher
 * does that) or the address in inet_ntop form. addr holds the 4 or 16 address bytes. */
struct socks_request {
	uint8_t atyp;
	char host[256];
	uint8_t addr[16];
	uint16_t port;
};

/* Parses the greeting VER NMETHODS METHODS. Returns bytes consumed (> 0) with *method set to
 * SOCKS_METHOD_NOAUTH, or SOCKS_PARTIAL, or an error (SOCKS_E_NO_METHOD, _VERSION, _SOCKS4,
 * _MALFORMED). */
int socks_parse_greeting(const uint8_t *buf, size_t len, uint8_t *method);

/* Parses the request VER CMD RSV ATYP DST.ADDR DST.PORT into *req (the caller's). Returns
 * bytes consumed (> 0), SOCKS_PARTIAL, or an error; errors are decided as soon as the byte
 * that makes them is seen. */
int socks_parse_request(const uint8_t *buf, size_t len, struct socks_request *req);

/* The REP code that answers a request error (0x07, 0x08, or 0x01). */
uint8_t socks_error_rep(int err);

/* Writes a reply VER REP RSV ATYP BND.ADDR BND.PORT into out (SOCKS_REPLY_MAX bytes).
 * bound may be NULL (0.0.0.0:0); an AF_INET or AF_INET6 address is written as such.
 * Returns the reply's length (10 or 22). */
size_t socks_reply(uint8_t rep, const struct sockaddr *bound, uint8_t *out);

/* The 8-byte SOCKS4 "request rejected" reply (0x5B), for SOCKS_E_SOCKS4. Returns 8. */
size_t socks4_reject(uint8_t *out);

/* The server-side state machine over one connection. */
enum socks_stage {
	SOCKS_STAGE_GREETING = 0, /* waiting for the greeting */
	SOCKS_STAGE_REQUEST,	  /* method chosen, waiting for the request */
	SOCKS_STAGE_CONNECT,	  /* request parsed: the daemon checks and dials, then replies */
	SOCKS_STAGE_FAILED,	  /* error: send the reply bytes, close */
};

struct socks_conn {
	enum socks_stage stage;
};

/* Starts a connection. */
void socks_conn_init(struct socks_conn *c);

/* Feeds the bytes received and not yet consumed. Returns bytes consumed (> 0; call again
 * with the rest, a client may send greeting and request at once), SOCKS_PARTIAL, or an error.
 * *reply_len (≤ SOCKS_REPLY_MAX) bytes in reply are to be written to the client, on success
 * (the greeting's answer) and on error (the refusal); 0 when nothing is to be written. When
 * the stage becomes SOCKS_STAGE_CONNECT, *req is filled; the daemon answers with
 * socks_reply() once it has checked the host and dialled. */
int socks_step(struct socks_conn *c, const uint8_t *buf, size_t len, struct socks_request *req,
	       uint8_t *reply, size_t *reply_len);

/* A short English phrase for a socks_result; static storage. */
const char *socks_strerror(int err);

#endif
