/* term — strings from inside the sandbox (paths, names, host names), made safe to print on
 * the user's terminal: no byte of them can start an escape sequence or a control function. */
#ifndef SBX_TERM_H
#define SBX_TERM_H
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Copies s into out (n > 0 bytes, always NUL-terminated) with every C0 control, DEL, C1
 * control (U+0080-U+009F), bidirectional or line-separator format character and byte that is
 * not valid UTF-8 written as \xNN (lowercase hex, one per byte); printable UTF-8 is kept.
 * Truncates at a whole character or escape. Returns the length written. */
size_t sbx_term_escape(char *out, size_t n, const char *s);

/* The same for one line of JSON (a record of the violation log, as stored): inside a string
 * each of those characters is written as JSON's \uXXXX (a byte that is not UTF-8 as \ufffd),
 * outside one as a space (JSON's whitespace), so valid JSON stays valid and means the same.
 * Returns the length written; n of 6 per byte of s (plus 1) is always enough. */
size_t sbx_term_escape_json(char *out, size_t n, const char *s);

/* fprintf to f with the whole formatted text escaped as above, except one final newline:
 * for lines that hold strings from inside the sandbox (the format itself must be plain). */
void sbx_term_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbx_term_vprintf(FILE *f, const char *fmt, va_list ap);

#endif
