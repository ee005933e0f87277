/* domain — host patterns of the policy (allow_domains, deny_domains, [limits]) and the one
 * matcher the proxy uses for them.
 *
 * Spelling: "example.com" (ports 80 and 443), "*.example.com" (subdomains only, not the name
 * itself), "example.com:8443", "localhost[:port]", IPv4 "10.0.0.1[:port]", IPv6 "::1" or
 * "[::1]:443". Names are lowercased, a trailing dot is dropped, IDN labels become punycode.
 */
#ifndef SBX_DOMAIN_H
#define SBX_DOMAIN_H
#include <stdbool.h>
#include <stddef.h>

enum domain_kind { DOM_NAME, DOM_IPV4, DOM_IPV6 };

struct domain_pattern {
	enum domain_kind kind;
	bool wildcard;	/* "*.": strict subdomains of host */
	unsigned port;	/* 0: the web ports 80 and 443 */
	char host[256]; /* lowercase ASCII (punycode), no "*.", no trailing dot; IPv6 canonical */
};

/* Parses and validates text. Returns 0 and fills *out, or -EINVAL with *err (caller frees;
 * NULL when out of memory) naming what is wrong and the fix. Never allocates on success. */
int domain_pattern_parse(const char *text, struct domain_pattern *out, char **err);

/* true when host (any spelling a client may send: case, trailing dot, IDN, [v6]) and port
 * are let through by p. */
bool domain_match(const struct domain_pattern *p, const char *host, unsigned port);

/* The one spelling of host name host the matcher compares (lowercase, IDN labels as
 * punycode, no trailing dot) into out: the name to resolve, so that the name looked up is
 * the name judged. Returns 0, or -1 when host is not a valid name (no pattern matches it). */
int domain_name_norm(const char *host, char *out, size_t size);

/* true when every host:port inner lets through is also let through by outer. */
bool domain_covers(const struct domain_pattern *outer, const struct domain_pattern *inner);

/* The normalized spelling of p into buf ("*.example.com", "[::1]:443"). Returns buf. */
char *domain_pattern_format(const struct domain_pattern *p, char *buf, size_t size);

/* Encodes the code points cp[0..n) as RFC 3492 punycode (without "xn--") into out.
 * Returns the length, or -1 when it does not fit or overflows. */
int domain_punycode(const unsigned *cp, size_t n, char *out, size_t size);

#endif
