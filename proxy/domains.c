/* domains — host patterns: parsing, validation and matching (see domain.h; not "domain.c",
 * which the GNUmakefile's "%main.c" program filter would leave out of libsbx.a).
 *
 * Rules kept: a pattern that would open a whole public suffix ("*", "*.com", "*.co.uk") is an
 * error, never a wide grant; URLs, paths and dotless names are errors, not guesses; matching
 * compares normalized forms only, so a client cannot dodge a pattern by case, a trailing dot
 * or a Unicode spelling. Works on fixed buffers; allocates only error messages.
 */
#include "proxy/domain.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Multi-label public suffixes under which a "*." pattern is refused. Every single-label
 * suffix is refused anyway. A short list of common ones, not the whole PSL. */
static const char *const public_suffixes[] = {
    "co.uk",	       "org.uk",	"ac.uk",
    "gov.uk",	       "me.uk",		"ltd.uk",
    "plc.uk",	       "com.au",	"net.au",
    "org.au",	       "edu.au",	"gov.au",
    "co.nz",	       "org.nz",	"co.jp",
    "ne.jp",	       "or.jp",		"ac.jp",
    "co.kr",	       "or.kr",		"com.br",
    "net.br",	       "org.br",	"com.cn",
    "net.cn",	       "org.cn",	"com.tw",
    "com.hk",	       "com.sg",	"com.mx",
    "com.ar",	       "com.tr",	"co.in",
    "net.in",	       "org.in",	"co.za",
    "co.il",	       "com.ua",	"com.pl",
    "github.io",       "gitlab.io",	"pages.dev",
    "workers.dev",     "netlify.app",	"vercel.app",
    "herokuapp.com",   "appspot.com",	"web.app",
    "firebaseapp.com", "blogspot.com",	"azurewebsites.net",
    "cloudfront.net",  "amazonaws.com", "s3.amazonaws.com",
    "fly.dev",	       "onrender.com",	"ngrok.io",
    "ngrok-free.app",  "repl.co",	"glitch.me",
    "readthedocs.io",
};

static int fail(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) < 0)
		*err = NULL;
	va_end(ap);
	return -EINVAL;
}

/* --- RFC 3492 punycode (encoder only) --- */
enum { PC_BASE = 36, PC_TMIN = 1, PC_TMAX = 26, PC_SKEW = 38, PC_DAMP = 700 };

static unsigned pc_adapt(unsigned delta, unsigned points, bool first)
{
	unsigned k = 0;
	delta = first ? delta / PC_DAMP : delta / 2;
	delta += delta / points;
	while (delta > ((PC_BASE - PC_TMIN) * PC_TMAX) / 2) {
		delta /= PC_BASE - PC_TMIN;
		k += PC_BASE;
	}
	return k + (PC_BASE - PC_TMIN + 1) * delta / (delta + PC_SKEW);
}

static char pc_digit(unsigned d)
{
	return (char)(d < 26 ? 'a' + d : '0' + d - 26);
}

/* Appends the variable-length integer q with bias. Returns the new length or -1. */
static int pc_put_int(unsigned q, unsigned bias, char *out, size_t o, size_t size)
{
	for (unsigned k = PC_BASE;; k += PC_BASE) {
		unsigned t = k <= bias ? PC_TMIN : k >= bias + PC_TMAX ? PC_TMAX : k - bias;
		if (q < t)
			break;
		if (o + 1 >= size)
			return -1;
		out[o++] = pc_digit(t + (q - t) % (PC_BASE - t));
		q = (q - t) / (PC_BASE - t);
	}
	if (o + 1 >= size)
		return -1;
	out[o++] = pc_digit(q);
	return (int)o;
}

int domain_punycode(const unsigned *cp, size_t n, char *out, size_t size)
{
	size_t o = 0, h, b;
	unsigned next = 128, delta = 0, bias = 72;

	for (size_t i = 0; i < n; i++)
		if (cp[i] < 128) {
			if (o + 1 >= size)
				return -1;
			out[o++] = (char)cp[i];
		}
	h = b = o;
	if (b > 0) {
		if (o + 1 >= size)
			return -1;
		out[o++] = '-';
	}
	while (h < n) {
		unsigned m = UINT32_MAX;
		for (size_t i = 0; i < n; i++)
			if (cp[i] >= next && cp[i] < m)
				m = cp[i];
		if ((uint64_t)(m - next) * (h + 1) + delta > UINT32_MAX)
			return -1;
		delta += (m - next) * (unsigned)(h + 1);
		next = m;
		for (size_t i = 0; i < n; i++) {
			if (cp[i] < next && ++delta == 0)
				return -1;
			if (cp[i] != next)
				continue;
			int r = pc_put_int(delta, bias, out, o, size);
			if (r < 0)
				return -1;
			o = (size_t)r;
			bias = pc_adapt(delta, (unsigned)h + 1, h == b);
			delta = 0;
			h++;
		}
		delta++;
		next++;
	}
	out[o] = '\0';
	return (int)o;
}

/* Decodes one UTF-8 sequence at s; returns its length or 0 when invalid. */
static size_t utf8_decode(const unsigned char *s, unsigned *cp)
{
	size_t len;
	unsigned c = s[0], min;
	if (c < 0x80)
		return *cp = c, 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Simple case folding for the common scripts (Latin-1, Greek, Cyrillic). */
static unsigned fold(unsigned c)
{
	if ((c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7) ||
	    (c >= 0x391 && c <= 0x3a9) || (c >= 0x410 && c <= 0x42f))
		return c + 0x20;
	if (c >= 0x400 && c <= 0x40f)
		return c + 0x50;
	return c;
}

/* Normalizes one label [s, s+len) into out (ASCII, punycode for IDN). Returns length or -1. */
static int label_norm(const char *s, size_t len, char *out, size_t size)
{
	unsigned cp[64];
	size_t n = 0;
	bool ascii = true;
	for (size_t i = 0; i < len;) {
		size_t l = utf8_decode((const unsigned char *)s + i, &cp[n]);
		if (!l || i + l > len || n >= 63)
			return -1;
		cp[n] = fold(cp[n]);
		ascii &= cp[n] < 128;
		i += l;
		n++;
	}
	if (ascii) {
		if (n + 1 > size)
			return -1;
		for (size_t i = 0; i < n; i++)
			out[i] = (char)cp[i];
		out[n] = '\0';
		return (int)n;
	}
	if (size < 5)
		return -1;
	memcpy(out, "xn--", 4);
	int r = domain_punycode(cp, n, out + 4, size - 4);
	return r < 0 ? -1 : r + 4;
}

/* Normalizes a host name into out: lowercase, IDN to punycode, no trailing dot; checks
 * label syntax. Returns 0 or -1. */
static int name_norm(const char *in, char *out, size_t size)
{
	size_t o = 0, len = strlen(in);
	if (len && in[len - 1] == '.')
		len--;
	if (!len || in[len - 1] == '.')
		return -1; /* one trailing dot only: "a.example.." has an empty label */
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && in[j] != '.')
			j++;
		if (j == i)
			return -1;
		char lab[64 + 4 * 64];
		int l = label_norm(in + i, j - i, lab, sizeof(lab));
		if (l <= 0 || l > 63 || lab[0] == '-' || lab[l - 1] == '-')
			return -1;
		for (int k = 0; k < l; k++) {
			char c = lab[k];
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
			      c == '_'))
				return -1;
		}
		if (o + (size_t)l + 2 > size)
			return -1;
		if (o)
			out[o++] = '.';
		memcpy(out + o, lab, (size_t)l);
		o += (size_t)l;
		i = j + 1;
	}
	out[o] = '\0';
	return o > 253 ? -1 : 0;
}

static int parse_port(const char *s, unsigned *port)
{
	unsigned long v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > 65535)
			return -1;
	}
	if (v == 0)
		return -1;
	*port = (unsigned)v;
	return 0;
}

static bool is_public_suffix(const char *host)
{
	if (!strchr(host, '.'))
		return true;
	for (size_t i = 0; i < sizeof(public_suffixes) / sizeof(public_suffixes[0]); i++)
		if (strcmp(host, public_suffixes[i]) == 0)
			return true;
	return false;
}

/* Splits text into host and port: "[v6]:p", "v6", "host:p", "host". */
static int split_host_port(const char *text, char *host, size_t size, unsigned *port, char **err)
{
	const char *colon = strrchr(text, ':'), *end;
	*port = 0;
	if (text[0] == '[') {
		end = strchr(text, ']');
		if (!end || (end[1] && end[1] != ':'))
			return fail(err,
				    "'%s' is not a valid IPv6 pattern; write [addr] or [addr]:port",
				    text);
		if (end[1] && parse_port(end + 2, port) < 0)
			return fail(err, "'%s' has a bad port; use 1-65535", text);
		text++;
	} else if (colon && strchr(text, ':') == colon) {
		end = colon;
		if (parse_port(colon + 1, port) < 0)
			return fail(err, "'%s' has a bad port; use a number from 1 to 65535", text);
	} else {
		end = text + strlen(text);
	}
	if ((size_t)(end - text) >= size)
		return fail(err, "'%s' is too long for a host name", text);
	memcpy(host, text, (size_t)(end - text));
	host[end - text] = '\0';
	return 0;
}

static int parse_ip(struct domain_pattern *out, const char *text, char **err)
{
	unsigned char a[16];
	if (inet_pton(AF_INET, out->host, a) == 1) {
		out->kind = DOM_IPV4;
	} else if (inet_pton(AF_INET6, out->host, a) == 1) {
		out->kind = DOM_IPV6;
		inet_ntop(AF_INET6, a, out->host, sizeof(out->host));
	} else {
		return 1;
	}
	if (out->wildcard)
		return fail(err, "'%s' puts a wildcard on an IP address; name the address", text);
	return 0;
}

static int check_shape(const char *text, char **err)
{
	if (!*text)
		return fail(err, "%san empty domain pattern; remove it", "");
	if (strstr(text, "://"))
		return fail(
		    err,
		    "'%s' is a URL; write just the host, e.g. 'example.com' or 'example.com:8443'",
		    text);
	if (strchr(text, '/'))
		return fail(
		    err, "'%s' holds a path; the proxy filters by host only, write just the host",
		    text);
	if (strcmp(text, "*") == 0 || strcmp(text, "*.") == 0)
		return fail(
		    err,
		    "'%s' would let every host through; name the domains (or use network = open)",
		    text);
	if (strchr(text, '@'))
		return fail(err, "'%s' holds a user name; write just the host", text);
	return 0;
}

int domain_pattern_parse(const char *text, struct domain_pattern *out, char **err)
{
	char host[256];
	int r;

	*err = NULL;
	memset(out, 0, sizeof(*out));
	if ((r = check_shape(text, err)) < 0)
		return r;
	if ((r = split_host_port(text, host, sizeof(host), &out->port, err)) < 0)
		return r;
	const char *h = host;
	if (h[0] == '*' && h[1] == '.') {
		out->wildcard = true;
		h += 2;
	}
	if (strchr(h, '*'))
		return fail(err, "'%s' has a '*' that is not a leading '*.'; write '*.example.com'",
			    text);
	if (strlen(h) >= sizeof(out->host))
		return fail(err, "'%s' is too long for a host name", text);
	strcpy(out->host, h);
	if ((r = parse_ip(out, text, err)) <= 0)
		return r;
	if (name_norm(h, out->host, sizeof(out->host)) < 0)
		return fail(
		    err,
		    "'%s' is not a valid host name (letters, digits, '-' and '.'; labels up to 63)",
		    text);
	if (out->wildcard && is_public_suffix(out->host))
		return fail(
		    err, "'%s' opens a whole public suffix; name your domain, e.g. '*.example.com'",
		    text);
	if (!out->wildcard && !strchr(out->host, '.') && strcmp(out->host, "localhost") != 0)
		return fail(
		    err,
		    "'%s' has no dot; write the full name (e.g. 'host.example.com') or 'localhost'",
		    text);
	return 0;
}

static bool port_ok(unsigned pat, unsigned port)
{
	return pat ? pat == port : port == 80 || port == 443;
}

static bool host_ok(const struct domain_pattern *p, const char *h)
{
	if (!p->wildcard)
		return strcmp(p->host, h) == 0;
	size_t hl = strlen(h), pl = strlen(p->host);
	return hl > pl + 1 && h[hl - pl - 1] == '.' && strcmp(h + hl - pl, p->host) == 0;
}

bool domain_match(const struct domain_pattern *p, const char *host, unsigned port)
{
	char buf[256], norm[256];
	size_t len = strlen(host);
	unsigned char a[16];

	if (!port_ok(p->port, port) || len >= sizeof(buf))
		return false;
	if (host[0] == '[' && len > 2 && host[len - 1] == ']') {
		memcpy(buf, host + 1, len - 2);
		buf[len - 2] = '\0';
	} else {
		memcpy(buf, host, len + 1);
	}
	if (inet_pton(AF_INET6, buf, a) == 1) {
		inet_ntop(AF_INET6, a, norm, sizeof(norm));
		return p->kind == DOM_IPV6 && strcmp(norm, p->host) == 0;
	}
	if (inet_pton(AF_INET, buf, a) == 1)
		return p->kind == DOM_IPV4 && strcmp(buf, p->host) == 0;
	if (p->kind != DOM_NAME || name_norm(buf, norm, sizeof(norm)) < 0)
		return false;
	return host_ok(p, norm);
}

int domain_name_norm(const char *host, char *out, size_t size)
{
	return name_norm(host, out, size);
}

bool domain_covers(const struct domain_pattern *outer, const struct domain_pattern *inner)
{
	if (outer->kind != inner->kind)
		return false;
	if (outer->port ? inner->port != outer->port : !port_ok(0, inner->port ? inner->port : 80))
		return false;
	if (!outer->wildcard)
		return !inner->wildcard && strcmp(outer->host, inner->host) == 0;
	if (inner->wildcard && strcmp(outer->host, inner->host) == 0)
		return true;
	return host_ok(outer, inner->host);
}

char *domain_pattern_format(const struct domain_pattern *p, char *buf, size_t size)
{
	const char *pre = p->wildcard ? "*." : "";
	if (p->kind == DOM_IPV6 && p->port)
		snprintf(buf, size, "[%s]:%u", p->host, p->port);
	else if (p->port)
		snprintf(buf, size, "%s%s:%u", pre, p->host, p->port);
	else
		snprintf(buf, size, "%s%s", pre, p->host);
	return buf;
}
