/* test_domain — host patterns: parsing, the errors of policy.md, matching, covering, punycode. */
#include <stdlib.h>
#include <string.h>

#include "proxy/domain.h"
#include "tests/unit/tap.h"

static const struct {
	const char *in, *norm;
} good[] = {
    {"Example.COM", "example.com"},
    {"example.com.", "example.com"},
    {"*.Example.com", "*.example.com"},
    {"example.com:8443", "example.com:8443"},
    {"localhost", "localhost"},
    {"localhost:5432", "localhost:5432"},
    {"10.0.0.1", "10.0.0.1"},
    {"10.0.0.1:80", "10.0.0.1:80"},
    {"::1", "::1"},
    {"[::1]:443", "[::1]:443"},
    {"[0:0::1]", "::1"},
    {"bücher.de", "xn--bcher-kva.de"},
    {"BÜCHER.de", "xn--bcher-kva.de"},
    {"*.münchen.de", "*.xn--mnchen-3ya.de"},
    {"例え.テスト", "xn--r8jz45g.xn--zckzah"},
    {"*.github.com", "*.github.com"},
    {"co.uk", "co.uk"},
};

static const struct {
	const char *in, *msg;
} bad[] = {
    {"*", "would let every host through"},
    {"*.com", "opens a whole public suffix"},
    {"*.co.uk", "opens a whole public suffix"},
    {"*.github.io", "opens a whole public suffix"},
    {"https://x.com", "is a URL"},
    {"x.com/path", "holds a path"},
    {"intranet", "has no dot"},
    {"a.*.com", "not a leading"},
    {"*.10.0.0.1", "wildcard on an IP"},
    {"x.com:0", "bad port"},
    {"x.com:70000", "bad port"},
    {"x.com:", "bad port"},
    {"-x.com", "not a valid host name"},
    {"x..com", "not a valid host name"},
    {"x_y!.com", "not a valid host name"},
    {"user@x.com", "user name"},
    {"", "empty"},
    {"[::1", "IPv6"},
    {"\xff.com", "not a valid host name"},
};

static const struct {
	const char *pat, *host;
	unsigned port;
	bool want;
} matches[] = {
    {"example.com", "example.com", 443, true},
    {"example.com", "EXAMPLE.com.", 80, true},
    {"example.com", "example.com", 22, false},
    {"example.com", "a.example.com", 443, false},
    {"*.example.com", "a.example.com", 443, true},
    {"*.example.com", "a.b.example.com", 443, true},
    {"*.example.com", "example.com", 443, false},
    {"*.example.com", "aexample.com", 443, false},
    {"example.com:8443", "example.com", 8443, true},
    {"example.com:8443", "example.com", 443, false},
    {"bücher.de", "xn--bcher-kva.de", 443, true},
    {"xn--bcher-kva.de", "BÜCHER.de", 443, true},
    {"localhost:5432", "localhost", 5432, true},
    {"localhost:5432", "localhost", 5433, false},
    {"[::1]:443", "[::1]", 443, true},
    {"[::1]:443", "0:0::1", 443, true},
    {"::1", "127.0.0.1", 443, false},
    {"10.0.0.1", "10.0.0.1", 80, true},
    {"10.0.0.1", "10.0.0.2", 80, false},
    {"example.com", "10.0.0.1", 80, false},
};

static const struct {
	const char *outer, *inner;
	bool want;
} covers[] = {
    {"*.example.com", "a.example.com", true},	    {"*.example.com", "*.a.example.com", true},
    {"*.example.com", "*.example.com", true},	    {"*.example.com", "example.com", false},
    {"example.com", "example.com:443", true},	    {"example.com", "example.com:8443", false},
    {"example.com:8443", "example.com:8443", true}, {"example.com", "*.example.com", false},
};

int main(void)
{
	struct domain_pattern p, q;
	char *err = NULL, buf[300];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int r = domain_pattern_parse(good[i].in, &p, &err);
		is_int(r, 0, "'%s' parses", good[i].in);
		if (r == 0)
			is_str(domain_pattern_format(&p, buf, sizeof(buf)), good[i].norm,
			       "'%s' normalizes", good[i].in);
		else
			printf("#   %s\n", err ? err : "");
		free(err);
		err = NULL;
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = domain_pattern_parse(bad[i].in, &p, &err);
		ok(r < 0 && err && strstr(err, bad[i].msg), "'%s' is refused: %s", bad[i].in,
		   err ? err : "(no message)");
		free(err);
		err = NULL;
	}
	for (size_t i = 0; i < sizeof(matches) / sizeof(matches[0]); i++) {
		domain_pattern_parse(matches[i].pat, &p, &err);
		ok(domain_match(&p, matches[i].host, matches[i].port) == matches[i].want,
		   "%s %s %s:%u", matches[i].pat, matches[i].want ? "matches" : "does not match",
		   matches[i].host, matches[i].port);
	}
	for (size_t i = 0; i < sizeof(covers) / sizeof(covers[0]); i++) {
		domain_pattern_parse(covers[i].outer, &p, &err);
		domain_pattern_parse(covers[i].inner, &q, &err);
		ok(domain_covers(&p, &q) == covers[i].want, "%s %s %s", covers[i].outer,
		   covers[i].want ? "covers" : "does not cover", covers[i].inner);
	}
	static const struct {
		const char *in, *want;
	} norms[] = {
	    {"GOOD.Test.", "good.test"},
	    {"good.test", "good.test"},
	    {"b\xc3\xbc"
	     "cher.test",
	     "xn--bcher-kva.test"},
	    {"good.test..", NULL},
	    {"good\\.test", NULL},
	    {"-x.test", NULL},
	    {"", NULL},
	};
	for (size_t i = 0; i < sizeof(norms) / sizeof(norms[0]); i++) {
		int r = domain_name_norm(norms[i].in, buf, sizeof(buf));
		if (norms[i].want)
			ok(r == 0 && strcmp(buf, norms[i].want) == 0, "'%s' is resolved as %s",
			   norms[i].in, norms[i].want);
		else
			is_int(r, -1, "'%s' is no name to resolve", norms[i].in);
	}
	/* RFC 3492 section 7.1 sample (L): 3<nen>B<gumi><kinpachi><sensei> */
	unsigned l[] = {0x33, 0x5e74, 0x42, 0x7d44, 0x91d1, 0x516b, 0x5148, 0x751f};
	domain_punycode(l, sizeof(l) / sizeof(l[0]), buf, sizeof(buf));
	is_str(buf, "3B-ww4c5e180e575a65lsy2b", "RFC 3492 sample L encodes");
	unsigned short_out[] = {0xfc};
	is_int(domain_punycode(short_out, 1, buf, 3), -1, "punycode reports a buffer too small");
	return tap_done();
}
