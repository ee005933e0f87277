/* tls_sni — the server name (SNI) of a TLS ClientHello, read off the first bytes a client
 * sends into a CONNECT tunnel, so a tunnel to an allowed host cannot carry a TLS session
 * for another one.
 *
 * Pure and I/O-free; nothing allocates. Input is hostile: see the rules in tls_sni.c. */
#ifndef SBX_PROXY_TLS_SNI_H
#define SBX_PROXY_TLS_SNI_H
#include <stddef.h>
#include <stdint.h>

enum {
	TLS_SNI_HELLO_MAX = 16384, /* ClientHello body, over however many records */
	TLS_SNI_NAME_MAX = 255,
};

enum tls_sni_result {
	TLS_SNI_FOUND = 1,	/* a host_name was copied out */
	TLS_SNI_ABSENT = 0,	/* a complete, well-formed ClientHello without server_name */
	TLS_SNI_PARTIAL = -1,	/* more bytes needed (nothing beyond len was read) */
	TLS_SNI_NOT_TLS = -2,	/* the first bytes are no TLS handshake record (plain HTTP,
				 * SSLv2, anything else) */
	TLS_SNI_MALFORMED = -3, /* a TLS handshake, but lengths, types or the name are wrong */
	TLS_SNI_TOO_LARGE = -4, /* ClientHello larger than TLS_SNI_HELLO_MAX */
};

/* Parses buf[0..len), the first bytes the client sent. On TLS_SNI_FOUND, name (cap bytes,
 * at least TLS_SNI_NAME_MAX + 1) holds the host name, NUL-terminated, letters, digits, '-',
 * '.', '_' only, as sent (case kept). The whole ClientHello is checked before any answer
 * other than PARTIAL, NOT_TLS or TOO_LARGE. Pure: call again from the start with more bytes. */
int tls_sni_parse(const uint8_t *buf, size_t len, char *name, size_t cap);

/* A short English phrase for a result; static storage. */
const char *tls_sni_strerror(int result);

#endif
