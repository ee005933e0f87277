/* glibc_chk — the _FORTIFY_SOURCE entry points that Debian's static libcap-ng.a calls, for
 * the musl build of sbxsh-stage (GNUmakefile, LIBC=musl). musl has none of them.
 *
 * Rules kept here:
 * - Each keeps glibc's check: a destination smaller than the length promised aborts, as
 *   glibc's __chk_fail does; nothing here is ever a silent truncation.
 * - Only in the musl link of the per-command programs; never in a glibc build, where these
 *   names are glibc's own.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

int __snprintf_chk(char *s, size_t maxlen, int flag, size_t slen, const char *fmt, ...);
int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...);
int __printf_chk(int flag, const char *fmt, ...);
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);
int __asprintf_chk(char **s, int flag, const char *fmt, ...);
void __syslog_chk(int pri, int flag, const char *fmt, ...);

int __snprintf_chk(char *s, size_t maxlen, int flag, size_t slen, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	if (slen < maxlen)
		abort();
	va_start(ap, fmt);
	int r = vsnprintf(s, maxlen, fmt, ap);
	va_end(ap);
	return r;
}

int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	/* (size_t)-1: the compiler did not know the size; musl's vsnprintf refuses n > INT_MAX */
	int r = slen > INT_MAX ? vsprintf(s, fmt, ap) : vsnprintf(s, slen, fmt, ap);
	va_end(ap);
	if (r >= 0 && slen <= INT_MAX && (size_t)r >= slen)
		abort();
	return r;
}

int __printf_chk(int flag, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	int r = vprintf(fmt, ap);
	va_end(ap);
	return r;
}

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	int r = vfprintf(f, fmt, ap);
	va_end(ap);
	return r;
}

int __asprintf_chk(char **s, int flag, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	int r = vasprintf(s, fmt, ap);
	va_end(ap);
	return r;
}

void __syslog_chk(int pri, int flag, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	vsyslog(pri, fmt, ap);
	va_end(ap);
}
