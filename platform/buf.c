/* buf — growable buffer, fixed-capacity writer, grow-array (see buf.h).
 *
 * Rules kept: no size is multiplied or added without an overflow check (explicit checks
 * against PTRDIFF_MAX, the largest object there can be, then reallocarray); a failure sticks, so a
 * partly built text never passes for a whole one; a fixed writer never writes past its cap.
 */
#include "platform/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *array_grow(void *v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 8;
	void *nv;

	if (need <= *cap && v)
		return v;
	while (c < need)
		c = c > SIZE_MAX / 2 ? need : c * 2;
	/* checked here too (no object is larger than PTRDIFF_MAX): a sanitizer's reallocarray
	 * aborts on an overflow or an impossible size instead of failing */
	if (size && c > PTRDIFF_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	if (!(nv = reallocarray(v, c, size)))
		return NULL;
	*cap = c;
	return nv;
}

/* Room for more bytes and the NUL after them. */
static int reserve(struct buf *b, size_t more)
{
	char *np;
	size_t cap;

	if (b->err)
		return b->err;
	/* no object is larger than PTRDIFF_MAX (and a sanitizer's realloc aborts past it) */
	if (more > (size_t)PTRDIFF_MAX - 1 - b->n || (b->max && more > b->max - b->n))
		return b->err = b->max ? -E2BIG : -ENOMEM;
	if (b->n + more + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < b->n + more + 1)
		cap = cap > (size_t)PTRDIFF_MAX / 2 ? b->n + more + 1 : cap * 2;
	if (!(np = realloc(b->p, cap)))
		return b->err = -ENOMEM;
	b->p = np;
	b->cap = cap;
	return 0;
}

void buf_add(struct buf *b, const void *s, size_t n)
{
	if (reserve(b, n) < 0)
		return;
	if (n)
		memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_putc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (b->err)
		return;
	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0) {
		b->err = -EINVAL;
		return;
	}
	if (reserve(b, (size_t)k) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)k;
}

void buf_reset(struct buf *b)
{
	b->n = 0;
	b->err = 0;
	if (b->p)
		b->p[0] = '\0';
}

void buf_free(struct buf *b)
{
	free(b->p);
	*b = (struct buf){0};
}

char *buf_steal(struct buf *b)
{
	char *s;

	buf_add(b, "", 0);
	if (b->err) {
		buf_free(b);
		return NULL;
	}
	s = b->p;
	*b = (struct buf){0};
	return s;
}

struct fbuf fbuf_on(char *p, size_t cap)
{
	return (struct fbuf){p, 0, p ? cap : (size_t)-1, 0};
}

void fbuf_add(struct fbuf *w, const void *s, size_t n)
{
	if (w->err || w->cap - w->n < n) {
		w->err = -ENOSPC;
		return;
	}
	if (w->p && n)
		memcpy(w->p + w->n, s, n);
	w->n += n;
}

void fbuf_puts(struct fbuf *w, const char *s)
{
	fbuf_add(w, s, strlen(s));
}

void fbuf_printf(struct fbuf *w, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int k;

	if (w->err)
		return;
	va_start(ap, fmt);
	k = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= sizeof(tmp)) {
		w->err = k < 0 ? -EINVAL : -ENOSPC;
		return;
	}
	fbuf_add(w, tmp, (size_t)k);
}

ssize_t fbuf_result(const struct fbuf *w)
{
	return w->err ? w->err : (ssize_t)w->n;
}
