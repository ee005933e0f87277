/* term — strings from inside the sandbox made safe for a terminal.
 *
 * Rules kept here: the escape is one form (\xNN per byte), so what a user reads names the
 * bytes exactly; nothing the sandbox chose reaches the terminal as a control: C0, DEL, C1
 * (raw, or encoded as UTF-8), invalid or overlong UTF-8, surrogates, and the format
 * characters that reorder or break what is shown (bidi embeddings, overrides and isolates,
 * U+2028/U+2029). Any other valid UTF-8 is printed as it is.
 */
#include "platform/term.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at p (1-4) and its code point, or 0 when invalid. */
static size_t utf8_at(const unsigned char *p, uint32_t *cp)
{
	unsigned char b = p[0];
	size_t len;
	uint32_t c, lo = 0x80, hi = 0xbf;

	if (b < 0x80) {
		*cp = b;
		return 1;
	}
	if (b >= 0xc2 && b <= 0xdf) {
		len = 2;
		c = b & 0x1f;
	} else if (b >= 0xe0 && b <= 0xef) {
		len = 3;
		c = b & 0x0f;
		if (b == 0xe0)
			lo = 0xa0; /* overlong */
		if (b == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (b >= 0xf0 && b <= 0xf4) {
		len = 4;
		c = b & 0x07;
		if (b == 0xf0)
			lo = 0x90;
		if (b == 0xf4)
			hi = 0x8f; /* past U+10FFFF */
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		unsigned char k = p[i];
		if (k < (i == 1 ? lo : 0x80) || k > (i == 1 ? hi : 0xbf))
			return 0; /* also stops at the NUL */
		c = (c << 6) | (k & 0x3f);
	}
	*cp = c;
	return len;
}

static bool unsafe(uint32_t c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x061c || c == 0x200e ||
	       c == 0x200f || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

size_t sbx_term_escape(char *out, size_t n, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	while (*p) {
		uint32_t cp = 0;
		size_t len = utf8_at(p, &cp);
		bool esc = len == 0 || unsafe(cp);
		size_t k = len ? len : 1, need = esc ? 4 * k : k;

		if (o + need >= n)
			break;
		for (size_t i = 0; i < k; i++) {
			if (esc) {
				out[o++] = '\\';
				out[o++] = 'x';
				out[o++] = hex[p[i] >> 4];
				out[o++] = hex[p[i] & 15];
			} else {
				out[o++] = (char)p[i];
			}
		}
		p += k;
	}
	out[o] = '\0';
	return o;
}

size_t sbx_term_escape_json(char *out, size_t n, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	bool in_str = false, bs = false;

	while (*p) {
		uint32_t cp = 0;
		size_t len = utf8_at(p, &cp), k = len ? len : 1;
		bool esc = len == 0 || unsafe(cp);
		char e[8];
		size_t el = 0;

		if (!esc) {
			if (in_str && !bs && *p == '"')
				in_str = false;
			else if (!in_str && *p == '"')
				in_str = true;
			bs = in_str && !bs && *p == '\\';
		} else if (!in_str) {
			e[el++] = ' '; /* JSON's whitespace between tokens (\t \r \n): a space */
		} else {
			uint32_t c = len ? cp : 0xfffd; /* a byte that is not UTF-8: U+FFFD */
			e[el++] = '\\';
			e[el++] = 'u';
			for (int sh = 12; sh >= 0; sh -= 4)
				e[el++] = hex[(c >> sh) & 15];
			bs = false;
		}
		if (o + (esc ? el : k) >= n)
			break;
		if (esc) {
			memcpy(out + o, e, el);
			o += el;
		} else {
			memcpy(out + o, p, k);
			o += k;
		}
		p += k;
	}
	out[o] = '\0';
	return o;
}

void sbx_term_vprintf(FILE *f, const char *fmt, va_list ap)
{
	char *s = NULL, *e;
	int len = vasprintf(&s, fmt, ap);
	bool nl;

	if (len < 0)
		return;
	nl = len > 0 && s[len - 1] == '\n';
	if (nl)
		s[len - 1] = '\0';
	size_t cap = 4 * (size_t)len + 1;
	if ((e = malloc(cap))) {
		sbx_term_escape(e, cap, s);
		fputs(e, f);
		if (nl)
			fputc('\n', f);
	}
	free(e);
	free(s);
}

void sbx_term_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbx_term_vprintf(f, fmt, ap);
	va_end(ap);
}
