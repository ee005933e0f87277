/* refuse — the HTTP responses the proxy sends when it refuses or cannot connect: a 403 that
 * names the host, the profile and the line of policy that would allow it; a 502 for DNS and
 * upstream failures; a bare status for malformed requests. Every response has
 * Content-Length and Connection: close.
 *
 * Pure; nothing allocates but refuse_grant_line's check of its pattern (freed at once).
 * The host comes from hostile input: any byte outside a strict
 * host name set is shown escaped (\xHH), never copied raw. */
#ifndef SBX_PROXY_REFUSE_H
#define SBX_PROXY_REFUSE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct refuse_info {
	const char *host; /* as requested (hostile); an IPv6 literal without brackets */
	uint16_t port;
	const char *reason;  /* e.g. "not in allow_domains", "resolves to 127.0.0.1 (loopback)" */
	const char *profile; /* the section, e.g. "[profile node]"; NULL: not shown */
	const char *file;    /* the file that defines it; NULL: "the built-in default policy" */
	const char *line;    /* the line to add; NULL: refuse_grant_line's (none when it has
			      * none); "": no line offered */
};

/* Writes a complete "403 Forbidden" response into out[0..cap). Returns its length, or
 * -ENOSPC (out is then unspecified). No line to add is offered for a host that needed
 * escaping: no pattern could name it. */
ssize_t refuse_http_403(const struct refuse_info *ri, char *out, size_t cap);

enum refuse_upstream {
	REFUSE_DNS = 1,		 /* the name did not resolve */
	REFUSE_UPSTREAM_REFUSED, /* ECONNREFUSED */
	REFUSE_UPSTREAM_UNREACHABLE,
	REFUSE_UPSTREAM_TIMEOUT,
};

/* Writes a complete "502 Bad Gateway" response for host:port into out[0..cap); detail
 * (may be NULL) is appended in parentheses, e.g. gai_strerror()'s text. Returns its length
 * or -ENOSPC. */
ssize_t refuse_http_502(const char *host, uint16_t port, enum refuse_upstream why,
			const char *detail, char *out, size_t cap);

/* Writes a complete response with status (400, 414, 431, 501, 505, …) and a one-line
 * body "sbxsh: MESSAGE" (e.g. http_strerror()'s text). Returns its length or -ENOSPC. */
ssize_t refuse_http_status(int status, const char *message, char *out, size_t cap);

/* The policy line that would allow host:port ("allow_domains += host", with ":port" unless
 * a web port — always for localhost, whose web-port pattern grants no loopback; IPv6 in
 * brackets with a port) into out. Returns 0, or -1 when no line can: the host needs
 * escaping, or the pattern would be refused by the policy (a dotless name, a bad label) or
 * not match the request. */
int refuse_grant_line(const char *host, uint16_t port, char *out, size_t cap);

/* 1 when every byte of host is a letter, digit, '-', '.', '_' or ':' (and it is 1..255
 * bytes), so it can be shown and named in policy as is; else 0. */
int refuse_host_is_plain(const char *host);

#endif
