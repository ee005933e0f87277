/* log — user-facing messages. */
#include "platform/log.h"
#include "platform/term.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void sbx_put_line(FILE *f, const char *s)
{
	sbx_term_printf(f, "%s\n", s);
}

__attribute__((format(printf, 1, 0))) static void vmsg(const char *fmt, va_list ap)
{
	char buf[4096];

	int n = snprintf(buf, sizeof(buf), "sbxsh: ");
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	sbx_put_line(stderr, buf);
}

void sbx_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void sbx_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(SBX_EXIT_REFUSED);
}

void sbx_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(code);
}
