/* addr — the address guard's classifier: what kind of address a destination is, with every
 * spelling of one address (IPv4-mapped, -compatible and NAT64 IPv6; inet_aton's short,
 * octal, hex and integer forms) brought to one form, so it gets one verdict.
 *
 * addr_classify, addr_parse_literal and friends are pure; addr_host_list does I/O
 * (getifaddrs) and is kept apart. Nothing here decides policy: the daemon does. */
#ifndef SBX_PROXY_ADDR_H
#define SBX_PROXY_ADDR_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* An IP address in network byte order: AF_INET uses b[0..3], AF_INET6 all 16. */
struct addr_ip {
	int family;
	uint8_t b[16];
};

/* Classes, most specific first: a metadata address is METADATA, not LINK_LOCAL. */
enum addr_class {
	ADDR_PUBLIC = 0,
	ADDR_LOOPBACK,	  /* 127/8, ::1 */
	ADDR_UNSPECIFIED, /* 0/8 (Linux dials 0.0.0.0 as loopback), :: */
	ADDR_METADATA,	  /* cloud instance metadata and platform endpoints */
	ADDR_LINK_LOCAL,  /* 169.254/16, fe80::/10 */
	ADDR_MULTICAST,	  /* 224/4, ff00::/8 */
	ADDR_BROADCAST,	  /* 255.255.255.255 */
	ADDR_PRIVATE,	  /* 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, fec0::/10 */
	ADDR_RESERVED,	  /* 240/4 and IPv6 the guard cannot place (reserved ::/8 forms) */
};

/* The address of an AF_INET or AF_INET6 sockaddr of salen bytes, normalised (below), and
 * its port (host order) if port is not NULL. Returns 0, or -EAFNOSUPPORT / -EINVAL. */
int addr_from_sockaddr(const struct sockaddr *sa, socklen_t salen, struct addr_ip *out,
		       uint16_t *port);

/* Brings an IPv6 address that embeds an IPv4 one (::ffff:a.b.c.d mapped, ::a.b.c.d
 * compatible, 64:ff9b::a.b.c.d NAT64) to that AF_INET address; others are unchanged. */
void addr_normalise(struct addr_ip *ip);

/* The class of ip (normalised first, on a copy). */
enum addr_class addr_classify(const struct addr_ip *ip);

/* "loopback", "cloud metadata", …; static storage. */
const char *addr_class_name(enum addr_class c);

/* 1 when a and b are the same address after normalising, else 0. */
int addr_equal(const struct addr_ip *a, const struct addr_ip *b);

/* Parses s[0..n) as an IP literal in any spelling the resolver would take for one:
 * IPv4 as inet_aton reads it (1 to 4 parts, each decimal, 0-octal or 0x-hex: "127.1",
 * "0x7f.0.0.1", "2130706433", "0177.0.0.1"), one trailing dot allowed; IPv6 as inet_pton
 * reads it, bracketed or not, with a "%zone" suffix ignored. The result is normalised.
 * Returns 0, or -EINVAL when s is not an IP literal (then it is a name to resolve). */
int addr_parse_literal(const char *s, size_t n, struct addr_ip *out);

/* Writes ip in inet_ntop form (IPv6 without brackets) into buf (cap ≥ 46). Returns 0 or
 * -ENOSPC. */
int addr_format(const struct addr_ip *ip, char *buf, size_t cap);

/* I/O: the host's own interface addresses (getifaddrs), normalised, into out[0..cap).
 * Returns how many were found (may exceed cap; only cap are written), or -errno. */
int addr_host_list(struct addr_ip *out, size_t cap);

/* 1 when ip is one of list[0..n), else 0. */
int addr_in_list(const struct addr_ip *ip, const struct addr_ip *list, size_t n);

#endif
