/* addr — address classes for the proxy's address guard.
 *
 * Rules this file keeps:
 * - One address, one verdict: IPv6 forms that embed an IPv4 address are classified as that
 *   IPv4 address, and every IPv4 spelling inet_aton accepts parses to the same bytes.
 * - Most specific first: the class table is read top down, so a metadata address is never
 *   reported as merely link-local or private.
 * - Pure except addr_host_list(), which asks the kernel for the host's own addresses.
 * - Input strings are hostile: lengths bounded, nothing read past n.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>

#include "proxy/addr.h"

struct class_row {
	int family;
	uint8_t prefix[16];
	int bits;
	enum addr_class cls;
};

static const struct class_row class_table[] = {
    {AF_INET, {169, 254, 169, 254}, 32, ADDR_METADATA}, /* AWS, GCP, Azure IMDS */
    {AF_INET, {169, 254, 170, 2}, 32, ADDR_METADATA},	/* AWS ECS task metadata */
    {AF_INET, {169, 254, 170, 23}, 32, ADDR_METADATA},	/* AWS EKS pod identity */
    {AF_INET, {100, 100, 100, 200}, 32, ADDR_METADATA}, /* Alibaba Cloud */
    {AF_INET, {168, 63, 129, 16}, 32, ADDR_METADATA},	/* Azure wire server */
    {AF_INET, {192, 0, 0, 192}, 32, ADDR_METADATA},	/* Oracle Cloud */
    {AF_INET, {0}, 8, ADDR_UNSPECIFIED},
    {AF_INET, {127}, 8, ADDR_LOOPBACK},
    {AF_INET, {169, 254}, 16, ADDR_LINK_LOCAL},
    {AF_INET, {224}, 4, ADDR_MULTICAST},
    {AF_INET, {255, 255, 255, 255}, 32, ADDR_BROADCAST},
    {AF_INET, {240}, 4, ADDR_RESERVED},
    {AF_INET, {10}, 8, ADDR_PRIVATE},
    {AF_INET, {172, 16}, 12, ADDR_PRIVATE},
    {AF_INET, {192, 168}, 16, ADDR_PRIVATE},
    {AF_INET, {100, 64}, 10, ADDR_PRIVATE},
    {AF_INET6,
     {0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54},
     128,
     ADDR_METADATA}, /* AWS IMDS over IPv6: fd00:ec2::254 */
    {AF_INET6, {0}, 128, ADDR_UNSPECIFIED},
    {AF_INET6, {[15] = 1}, 128, ADDR_LOOPBACK},
    {AF_INET6, {0xfe, 0x80}, 10, ADDR_LINK_LOCAL},
    {AF_INET6, {0xff}, 8, ADDR_MULTICAST},
    {AF_INET6, {0xfc}, 7, ADDR_PRIVATE},
    {AF_INET6, {0xfe, 0xc0}, 10, ADDR_PRIVATE},				/* site-local, deprecated */
    {AF_INET6, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48, ADDR_PRIVATE}, /* local NAT64 */
    {AF_INET6, {0}, 8, ADDR_RESERVED}, /* the rest of ::/8 (SIIT and older forms) */
};

static const uint8_t mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
static const uint8_t compat_prefix[12] = {0};
static const uint8_t nat64_prefix[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};

static int prefix_match(const uint8_t *a, const uint8_t *p, int bits)
{
	int whole = bits / 8, rest = bits % 8;

	if (memcmp(a, p, (size_t)whole) != 0)
		return 0;
	if (!rest)
		return 1;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));
	return (a[whole] & mask) == (p[whole] & mask);
}

void addr_normalise(struct addr_ip *ip)
{
	const uint8_t *b = ip->b;
	int embeds;

	if (ip->family != AF_INET6)
		return;
	embeds = memcmp(b, mapped_prefix, 12) == 0 || memcmp(b, nat64_prefix, 12) == 0 ||
		 (memcmp(b, compat_prefix, 12) == 0 && (b[12] | b[13] | b[14] | (b[15] & 0xfe)));
	if (!embeds)
		return;
	memmove(ip->b, ip->b + 12, 4);
	memset(ip->b + 4, 0, 12);
	ip->family = AF_INET;
}

static enum addr_class classify_table(const struct addr_ip *ip)
{
	for (size_t i = 0; i < sizeof(class_table) / sizeof(class_table[0]); i++) {
		const struct class_row *r = &class_table[i];
		if (r->family == ip->family && prefix_match(ip->b, r->prefix, r->bits))
			return r->cls;
	}
	return ADDR_PUBLIC;
}

enum addr_class addr_classify(const struct addr_ip *in)
{
	struct addr_ip ip = *in;
	enum addr_class c;

	addr_normalise(&ip);
	c = classify_table(&ip);
	if (c == ADDR_PUBLIC && ip.family == AF_INET6 && ip.b[0] == 0x20 && ip.b[1] == 0x02) {
		/* 6to4 (2002:V4ADDR::/48) names an IPv4 address too: it may not launder one */
		struct addr_ip v4 = {AF_INET, {ip.b[2], ip.b[3], ip.b[4], ip.b[5]}};
		c = classify_table(&v4);
	}
	return c;
}

const char *addr_class_name(enum addr_class c)
{
	static const char *const names[] = {
	    [ADDR_PUBLIC] = "public",		[ADDR_LOOPBACK] = "loopback",
	    [ADDR_UNSPECIFIED] = "unspecified", [ADDR_METADATA] = "cloud metadata",
	    [ADDR_LINK_LOCAL] = "link-local",	[ADDR_MULTICAST] = "multicast",
	    [ADDR_BROADCAST] = "broadcast",	[ADDR_PRIVATE] = "private",
	    [ADDR_RESERVED] = "reserved",
	};

	if ((unsigned)c < sizeof(names) / sizeof(names[0]) && names[c])
		return names[c];
	return "unknown";
}

int addr_equal(const struct addr_ip *a, const struct addr_ip *b)
{
	struct addr_ip x = *a, y = *b;

	addr_normalise(&x);
	addr_normalise(&y);
	if (x.family != y.family)
		return 0;
	return memcmp(x.b, y.b, x.family == AF_INET ? 4 : 16) == 0;
}

int addr_from_sockaddr(const struct sockaddr *sa, socklen_t salen, struct addr_ip *out,
		       uint16_t *port)
{
	memset(out, 0, sizeof(*out));
	if (!sa || salen < (socklen_t)sizeof(sa_family_t))
		return -EINVAL;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		if (salen < (socklen_t)sizeof(*s4))
			return -EINVAL;
		out->family = AF_INET;
		memcpy(out->b, &s4->sin_addr, 4);
		if (port)
			*port = ntohs(s4->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		if (salen < (socklen_t)sizeof(*s6))
			return -EINVAL;
		out->family = AF_INET6;
		memcpy(out->b, &s6->sin6_addr, 16);
		if (port)
			*port = ntohs(s6->sin6_port);
	} else {
		return -EAFNOSUPPORT;
	}
	addr_normalise(out);
	return 0;
}

/* --- literals --------------------------------------------------------------------------- */

static int digit_in(char c, int base)
{
	int v;

	if (c >= '0' && c <= '9')
		v = c - '0';
	else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		v = (c | 0x20) - 'a' + 10;
	else
		return -1;
	return v < base ? v : -1;
}

/* One part as strtoul(…, 0) reads it after inet_aton's isdigit check: *i moves past it. */
static int v4_part(const char *s, size_t n, size_t *i, uint64_t *val)
{
	int base = 10, d, digits = 0;

	*val = 0;
	if (*i >= n || s[*i] < '0' || s[*i] > '9')
		return -EINVAL;
	if (s[*i] == '0') {
		base = 8;
		if (*i + 1 < n && (s[*i + 1] | 0x20) == 'x') {
			if (*i + 2 >= n || digit_in(s[*i + 2], 16) < 0)
				return -EINVAL; /* "0x" with no digit */
			base = 16;
			*i += 2;
		}
	}
	for (; *i < n && (d = digit_in(s[*i], base)) >= 0; (*i)++, digits++) {
		*val = *val * (uint64_t)base + (uint64_t)d;
		if (*val > 0xffffffffu)
			return -EINVAL;
	}
	return digits ? 0 : -EINVAL;
}

static int parse_v4(const char *s, size_t n, struct addr_ip *out)
{
	static const uint64_t max[4] = {0xffffffffu, 0xffffff, 0xffff, 0xff};
	uint8_t bytes[4] = {0};
	size_t i = 0, parts = 0;
	uint64_t val;

	if (n && s[n - 1] == '.')
		n--; /* one trailing dot: the same host to a resolver */
	for (;;) {
		if (v4_part(s, n, &i, &val) < 0)
			return -EINVAL;
		if (i == n)
			break;
		if (s[i] != '.' || parts == 3 || val > 0xff)
			return -EINVAL;
		bytes[parts++] = (uint8_t)val;
		i++;
	}
	if (val > max[parts])
		return -EINVAL;
	for (size_t k = 3; k >= parts && k < 4; k--, val >>= 8)
		bytes[k] = (uint8_t)(val & 0xff);
	memset(out, 0, sizeof(*out));
	out->family = AF_INET;
	memcpy(out->b, bytes, 4);
	return 0;
}

static int parse_v6(const char *s, size_t n, struct addr_ip *out)
{
	char tmp[64];
	const char *pct;

	if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
		s++, n -= 2;
	pct = memchr(s, '%', n);
	if (pct) {
		size_t z = (size_t)(s + n - pct - 1);
		if (z == 0)
			return -EINVAL;
		for (size_t k = 1; k <= z; k++)
			if (!((pct[k] >= '0' && pct[k] <= '9') ||
			      ((pct[k] | 0x20) >= 'a' && (pct[k] | 0x20) <= 'z') || pct[k] == '-' ||
			      pct[k] == '_' || pct[k] == '.'))
				return -EINVAL;
		n = (size_t)(pct - s);
	}
	if (n == 0 || n >= sizeof(tmp) || memchr(s, 0, n))
		return -EINVAL;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET6, tmp, out->b) != 1)
		return -EINVAL;
	out->family = AF_INET6;
	addr_normalise(out);
	return 0;
}

int addr_parse_literal(const char *s, size_t n, struct addr_ip *out)
{
	if (!s || n == 0 || n > 255)
		return -EINVAL;
	if (memchr(s, ':', n))
		return parse_v6(s, n, out);
	return parse_v4(s, n, out);
}

int addr_format(const struct addr_ip *ip, char *buf, size_t cap)
{
	if (!inet_ntop(ip->family, ip->b, buf, (socklen_t)cap))
		return -ENOSPC;
	return 0;
}

int addr_in_list(const struct addr_ip *ip, const struct addr_ip *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (addr_equal(ip, &list[i]))
			return 1;
	return 0;
}

int addr_host_list(struct addr_ip *out, size_t cap)
{
	struct ifaddrs *ifa = NULL;
	int n = 0;

	if (getifaddrs(&ifa) < 0)
		return -errno;
	for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
		struct addr_ip ip;
		socklen_t len;
		if (!i->ifa_addr)
			continue;
		len = i->ifa_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
							 : sizeof(struct sockaddr_in);
		if (addr_from_sockaddr(i->ifa_addr, len, &ip, NULL) < 0)
			continue;
		if ((size_t)n < cap)
			out[n] = ip;
		n++;
	}
	freeifaddrs(ifa);
	return n;
}
