/* test_addr — the address guard's classes, one verdict per address whatever its spelling,
 * IP literals compared with glibc's own inet_aton and getaddrinfo, host interface list. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#include "platform/host.h"
#include "proxy/addr.h"
#include "tests/unit/tap.h"

static enum addr_class cls(const char *lit)
{
	struct addr_ip ip;

	if (addr_parse_literal(lit, strlen(lit), &ip) < 0)
		return (enum addr_class) - 1;
	return addr_classify(&ip);
}

static const char *canon(const char *lit)
{
	static char buf[64];
	struct addr_ip ip;

	if (addr_parse_literal(lit, strlen(lit), &ip) < 0)
		return "(invalid)";
	addr_format(&ip, buf, sizeof(buf));
	return buf;
}

static void test_classes(void)
{
	static const struct {
		const char *lit;
		enum addr_class c;
	} t[] = {
	    {"8.8.8.8", ADDR_PUBLIC},
	    {"2606:4700::1111", ADDR_PUBLIC},
	    {"127.0.0.1", ADDR_LOOPBACK},
	    {"127.255.255.254", ADDR_LOOPBACK},
	    {"::1", ADDR_LOOPBACK},
	    {"0.0.0.0", ADDR_UNSPECIFIED},
	    {"0.1.2.3", ADDR_UNSPECIFIED},
	    {"::", ADDR_UNSPECIFIED},
	    {"169.254.169.254", ADDR_METADATA},
	    {"169.254.170.2", ADDR_METADATA},
	    {"100.100.100.200", ADDR_METADATA},
	    {"168.63.129.16", ADDR_METADATA},
	    {"fd00:ec2::254", ADDR_METADATA},
	    {"169.254.1.1", ADDR_LINK_LOCAL},
	    {"fe80::1", ADDR_LINK_LOCAL},
	    {"febf:ffff::1", ADDR_LINK_LOCAL},
	    {"fec0::1", ADDR_PRIVATE},
	    {"224.0.0.1", ADDR_MULTICAST},
	    {"239.255.255.255", ADDR_MULTICAST},
	    {"ff02::1", ADDR_MULTICAST},
	    {"255.255.255.255", ADDR_BROADCAST},
	    {"240.0.0.1", ADDR_RESERVED},
	    {"255.255.255.254", ADDR_RESERVED},
	    {"10.0.0.1", ADDR_PRIVATE},
	    {"172.16.0.1", ADDR_PRIVATE},
	    {"172.31.255.255", ADDR_PRIVATE},
	    {"172.32.0.1", ADDR_PUBLIC},
	    {"172.15.255.255", ADDR_PUBLIC},
	    {"192.168.1.1", ADDR_PRIVATE},
	    {"100.64.0.1", ADDR_PRIVATE},
	    {"100.127.255.255", ADDR_PRIVATE},
	    {"100.128.0.1", ADDR_PUBLIC},
	    {"fc00::1", ADDR_PRIVATE},
	    {"fd12:3456::1", ADDR_PRIVATE},
	    {"fe00::1", ADDR_PUBLIC},
	    /* one address, one verdict */
	    {"::ffff:127.0.0.1", ADDR_LOOPBACK},
	    {"[::ffff:7f00:1]", ADDR_LOOPBACK},
	    {"::127.0.0.1", ADDR_LOOPBACK},
	    {"64:ff9b::127.0.0.1", ADDR_LOOPBACK},
	    {"64:ff9b::a9fe:a9fe", ADDR_METADATA},
	    {"::ffff:169.254.169.254", ADDR_METADATA},
	    {"::ffff:10.1.1.1", ADDR_PRIVATE},
	    {"::ffff:8.8.8.8", ADDR_PUBLIC},
	    {"::ffff:0.0.0.0", ADDR_UNSPECIFIED},
	    {"2002:7f00:1::", ADDR_LOOPBACK},
	    {"2002:a9fe:a9fe::1", ADDR_METADATA},
	    {"2002:808:808::1", ADDR_PUBLIC},
	    {"64:ff9b:1::1", ADDR_PRIVATE},
	    {"::ffff:0:7f00:1", ADDR_RESERVED},
	    {"127.1", ADDR_LOOPBACK},
	    {"0x7f.0.0.1", ADDR_LOOPBACK},
	    {"2130706433", ADDR_LOOPBACK},
	    {"0177.0.0.1", ADDR_LOOPBACK},
	    {"0xa9.0xfe.0xa9.0xfe", ADDR_METADATA},
	    {"2852039166", ADDR_METADATA},
	    {"0", ADDR_UNSPECIFIED},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		is_str(addr_class_name(cls(t[i].lit)), addr_class_name(t[i].c), "%s is %s",
		       t[i].lit, addr_class_name(t[i].c));
	is_str(addr_class_name((enum addr_class)99), "unknown", "unknown class name");
}

static void test_literals(void)
{
	static const struct {
		const char *in, *want;
	} t[] = {
	    {"127.1", "127.0.0.1"},
	    {"127.0.1", "127.0.0.1"},
	    {"0x7f.0.0.1", "127.0.0.1"},
	    {"0X7F.1", "127.0.0.1"},
	    {"2130706433", "127.0.0.1"},
	    {"0x7f000001", "127.0.0.1"},
	    {"017700000001", "127.0.0.1"},
	    {"0177.0.0.01", "127.0.0.1"},
	    {"127.0.0.1.", "127.0.0.1"},
	    {"4294967295", "255.255.255.255"},
	    {"1.16777215", "1.255.255.255"},
	    {"1.2.65535", "1.2.255.255"},
	    {"00000000000000000000001.2.3.4", "1.2.3.4"},
	    {"[::ffff:127.0.0.1]", "127.0.0.1"},
	    {"::ffff:127.0.0.1", "127.0.0.1"},
	    {"64:ff9b::8.8.8.8", "8.8.8.8"},
	    {"[::1]", "::1"},
	    {"fe80::1%eth0", "fe80::1"},
	    {"[fe80::1%25eth0]", "fe80::1"},
	    {"2001:DB8::1", "2001:db8::1"},
	    {"", "(invalid)"},
	    {".", "(invalid)"},
	    {"1.2.3.4.5", "(invalid)"},
	    {"256.1.1.1", "(invalid)"},
	    {"1.256.1.1", "(invalid)"},
	    {"1.2.3.256", "(invalid)"},
	    {"1.2.65536", "(invalid)"},
	    {"1.16777216", "(invalid)"},
	    {"4294967296", "(invalid)"},
	    {"99999999999999999999999", "(invalid)"},
	    {"08.1.1.1", "(invalid)"},
	    {"0x.1.1.1", "(invalid)"},
	    {"0xg", "(invalid)"},
	    {"1..2", "(invalid)"},
	    {".1.2.3", "(invalid)"},
	    {"127.0.0.1..", "(invalid)"},
	    {"1.2.3.4 ", "(invalid)"},
	    {" 1.2.3.4", "(invalid)"},
	    {"+1.2.3.4", "(invalid)"},
	    {"-1", "(invalid)"},
	    {"example.com", "(invalid)"},
	    {"1.example", "(invalid)"},
	    {"[::1", "(invalid)"},
	    {"::1]", "(invalid)"},
	    {"[]", "(invalid)"},
	    {":::", "(invalid)"},
	    {"::1%", "(invalid)"},
	    {"::1%a b", "(invalid)"},
	    {"::ffff:127.1", "(invalid)"},
	    {"[127.0.0.1]", "(invalid)"},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		is_str(canon(t[i].in), t[i].want, "literal '%s'", t[i].in);

	struct addr_ip ip;
	is_int(addr_parse_literal("1.2.3.4xyz", 7, &ip), 0, "only n bytes are read");
	is_int(addr_parse_literal("::1\0", 4, &ip), -EINVAL, "NUL inside n");
}

/* A small deterministic generator: the same strings every run. */
static uint64_t rng = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* Our IPv4 reading agrees with glibc's inet_aton and getaddrinfo(AI_NUMERICHOST). */
static void test_against_glibc(void)
{
	static const char alpha[] = "0123456789.xXaAfFg";
	int disagree = 0, gai_disagree = 0, accepted = 0;
	char s[24];

	for (int i = 0; i < 300000; i++) {
		size_t n = 1 + rnd(16);
		for (size_t k = 0; k < n; k++)
			s[k] = alpha[rnd(sizeof(alpha) - 1)];
		s[n] = 0;
		if (s[n - 1] == '.')
			continue; /* we take one trailing dot on purpose; glibc does not */
		struct in_addr a;
		struct addr_ip ip;
		int theirs = inet_aton(s, &a) == 1;
		int ours = addr_parse_literal(s, n, &ip) == 0;
		accepted += ours;
		if (theirs != ours || (ours && memcmp(&a, ip.b, 4) != 0)) {
			if (disagree++ < 5)
				printf("# inet_aton disagrees on '%s'\n", s);
		}
		if (i % 10 == 0) {
			struct addrinfo hints = {.ai_flags = AI_NUMERICHOST, .ai_family = AF_INET};
			struct addrinfo *res = NULL;
			int g = getaddrinfo(s, NULL, &hints, &res) == 0;
			if (g != ours ||
			    (g && memcmp(&((struct sockaddr_in *)res->ai_addr)->sin_addr, ip.b,
					 4) != 0)) {
				if (gai_disagree++ < 5)
					printf("# getaddrinfo disagrees on '%s'\n", s);
			}
			if (res)
				freeaddrinfo(res);
		}
	}
	is_int(disagree, 0, "300000 random IPv4 spellings read as inet_aton reads them");
	is_int(gai_disagree, 0, "and as getaddrinfo(AI_NUMERICHOST) does");
	ok(accepted > 1000, "the sample holds many valid literals (%d)", accepted);
}

static void test_sockaddr(void)
{
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6, .sin6_port = htons(8080)};
	struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = htons(80)};
	struct addr_ip ip, lo;
	uint16_t port = 0;
	char buf[64];

	inet_pton(AF_INET6, "::ffff:127.0.0.1", &s6.sin6_addr);
	is_int(addr_from_sockaddr((struct sockaddr *)&s6, sizeof(s6), &ip, &port), 0,
	       "mapped sockaddr");
	ok(ip.family == AF_INET && port == 8080, "mapped becomes AF_INET, port kept");
	is_int(addr_classify(&ip), ADDR_LOOPBACK, "mapped loopback is loopback");
	inet_pton(AF_INET, "127.0.0.1", &s4.sin_addr);
	addr_from_sockaddr((struct sockaddr *)&s4, sizeof(s4), &lo, NULL);
	ok(addr_equal(&ip, &lo), "::ffff:127.0.0.1 and 127.0.0.1 are one address");
	addr_parse_literal("64:ff9b::7f00:1", 15, &ip);
	ok(addr_equal(&ip, &lo), "NAT64 form is the same address");
	addr_parse_literal("127.0.0.2", 9, &ip);
	ok(!addr_equal(&ip, &lo), "127.0.0.2 is another");
	struct addr_ip raw = {AF_INET6, {[10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1}};
	ok(addr_equal(&raw, &lo), "addr_equal normalises an unnormalised IPv6 form");
	is_int(addr_classify(&raw), ADDR_LOOPBACK, "addr_classify normalises too");

	is_int(addr_from_sockaddr((struct sockaddr *)&s6, sizeof(s6) - 1, &ip, NULL), -EINVAL,
	       "short sockaddr_in6");
	struct sockaddr su = {.sa_family = AF_UNIX};
	is_int(addr_from_sockaddr(&su, sizeof(su), &ip, NULL), -EAFNOSUPPORT, "AF_UNIX refused");
	is_int(addr_from_sockaddr(NULL, 0, &ip, NULL), -EINVAL, "NULL refused");

	addr_parse_literal("2001:db8::1", 11, &ip);
	is_int(addr_format(&ip, buf, sizeof(buf)), 0, "format");
	is_str(buf, "2001:db8::1", "formatted IPv6");
	is_int(addr_format(&ip, buf, 4), -ENOSPC, "format into a small buffer");
}

static void test_host_list(void)
{
	struct addr_ip list[64];
	int n = addr_host_list(list, 64), n0 = addr_host_list(NULL, 0);

	ok(n >= 0, "host addresses listed (%d)", n);
	is_int(n0, n, "cap 0 still counts");
	int fam_ok = 1;
	for (int i = 0; i < n && i < 64; i++)
		fam_ok &= list[i].family == AF_INET || list[i].family == AF_INET6;
	ok(fam_ok, "every entry is an IP address");
	struct addr_ip lo;
	addr_parse_literal("127.0.0.1", 9, &lo);
	int has_lo = 0;
	for (int i = 0; i < n && i < 64; i++)
		has_lo |= addr_equal(&list[i], &lo);
	if (has_lo)
		ok(addr_in_list(&lo, list, (size_t)(n < 64 ? n : 64)),
		   "127.0.0.1 found in the list");
	else
		skip("no 127.0.0.1 on this host's interfaces", "127.0.0.1 found in the list");
	struct addr_ip doc;
	addr_parse_literal("192.0.2.123", 11, &doc);
	ok(!addr_in_list(&doc, list, (size_t)(n < 64 ? n : 64)),
	   "a documentation address is not ours");
}

/* The kernel's answer (platform/linux/route.c): the host's loopback and an interface address
 * are routed here, a documentation address is not (a default route or none), the families
 * are checked. */
static void test_route_local(void)
{
	struct addr_ip list[64], a;
	int n = addr_host_list(list, 64), here = 1;

	addr_parse_literal("127.0.0.1", 9, &a);
	is_int(host_addr_local(AF_INET, a.b), 1, "127.0.0.1 is routed to this host");
	addr_parse_literal("127.9.8.7", 9, &a);
	is_int(host_addr_local(AF_INET, a.b), 1, "so is 127.9.8.7 (the local route 127/8)");
	addr_parse_literal("192.0.2.123", 11, &a);
	is_int(host_addr_local(AF_INET, a.b), 0, "192.0.2.123 is not");
	addr_parse_literal("2001:db8::1", 11, &a);
	is_int(host_addr_local(AF_INET6, a.b), 0, "nor is 2001:db8::1");
	is_int(host_addr_local(AF_UNIX, a.b), -EAFNOSUPPORT, "another family is refused");
	for (int i = 0; i < n && i < 64; i++)
		if (list[i].family == AF_INET && host_addr_local(AF_INET, list[i].b) != 1)
			here = 0;
	ok(here, "every IPv4 interface address of this host is routed to it (%d listed)", n);
}

int main(void)
{
	test_classes();
	test_literals();
	test_against_glibc();
	test_sockaddr();
	test_host_list();
	test_route_local();
	return tap_done();
}
