/* test_term — sbx_term_escape: controls, C1, bidi and invalid UTF-8 escaped; text kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/term.h"
#include "tests/unit/tap.h"

static void esc(const char *in, const char *want, const char *what)
{
	char out[256];

	sbx_term_escape(out, sizeof(out), in);
	is_str(out, want, "%s", what);
}

static void esc_json(const char *in, const char *want, const char *what)
{
	char out[256];

	sbx_term_escape_json(out, sizeof(out), in);
	is_str(out, want, "json: %s", what);
}

int main(void)
{
	char small[9], *buf = NULL;
	size_t len = 0;
	FILE *f;

	esc("/home/u/a b.txt", "/home/u/a b.txt", "plain text is kept");
	esc("x\x1b[2Jy\a", "x\\x1b[2Jy\\x07", "ESC and BEL escaped");
	esc("\t\n\r\x7f", "\\x09\\x0a\\x0d\\x7f", "tab, newline, CR, DEL escaped");
	esc("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "printable UTF-8 (2, 3, 4 bytes) is kept");
	esc("a\xc2\x9b"
	    "31mb",
	    "a\\xc2\\x9b31mb", "a C1 CSI in UTF-8 escaped");
	esc("a\x9b"
	    "31m",
	    "a\\x9b31m", "a raw C1 byte (invalid UTF-8) escaped");
	esc("\xc0\xaf\xe0\x80\xaf", "\\xc0\\xaf\\xe0\\x80\\xaf", "overlong forms escaped");
	esc("\xed\xa0\x80", "\\xed\\xa0\\x80", "a surrogate escaped");
	esc("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "past U+10FFFF escaped");
	esc("\xe2\x80\xae"
	    "txt.exe",
	    "\\xe2\\x80\\xaetxt.exe", "a right-to-left override escaped");
	esc("\xe2\x81\xa6x\xe2\x80\xa8", "\\xe2\\x81\\xa6x\\xe2\\x80\\xa8",
	    "an isolate and a line separator escaped");
	esc("\xe2\x82", "\\xe2\\x82", "a cut-off sequence escaped byte by byte");
	sbx_term_escape(small, sizeof(small),
			"ab\x1b"
			"cdef");
	is_str(small, "ab\\x1bcd", "truncated at a whole escape, NUL-terminated");
	sbx_term_escape(small, sizeof(small), "abcde\x1b");
	is_str(small, "abcde", "an escape that does not fit is left out whole");

	f = open_memstream(&buf, &len);
	sbx_term_printf(f, "sbxsh:   read %s (%s)\n", "/opt/\x1b[2J\a", "openat");
	fclose(f);
	is_str(buf, "sbxsh:   read /opt/\\x1b[2J\\x07 (openat)\n",
	       "sbx_term_printf escapes the line and keeps its final newline");
	free(buf);
	esc_json("{\"p\":\"/a b\",\"n\":1}", "{\"p\":\"/a b\",\"n\":1}", "plain JSON is kept");
	esc_json("{\"p\":\"a\xe2\x80\xae"
		 "b\xe2\x80\xa8\x7f\"}",
		 "{\"p\":\"a\\u202eb\\u2028\\u007f\"}",
		 "a format character or DEL in a string is \\uXXXX (valid JSON), not \\xNN");
	esc_json("{\"p\":\"a\\\"\xc2\x9b\"}", "{\"p\":\"a\\\"\\u009b\"}",
		 "an escaped quote does not end the string");
	esc_json("{\"p\":\"\\\\\",\t\"q\":\"\xff\"}", "{\"p\":\"\\\\\", \"q\":\"\\ufffd\"}",
		 "an escaped backslash ends before the quote; a tab between tokens is a space; a "
		 "byte that is not UTF-8 is \\ufffd");
	esc_json("{\"p\":\"\x1b]52;c;SGk=\a\"}", "{\"p\":\"\\u001b]52;c;SGk=\\u0007\"}",
		 "ESC and BEL in a string");
	return tap_done();
}
