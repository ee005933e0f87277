/* buf — the byte buffers every layer writes into: a growable buffer and a fixed-capacity
 * writer, both with a sticky error (the first failure sticks, later appends do nothing, the
 * caller checks once at the end), and a grow-array helper on reallocarray.
 */
#ifndef SBX_BUF_H
#define SBX_BUF_H
#include <stddef.h>
#include <sys/types.h>

/* A growing buffer. p is owned (buf_free) and NUL-terminated once anything was appended, so
 * text may be used as a string; binary data may hold NULs. max: 0 for no limit, else n never
 * exceeds it (-E2BIG). err: 0, or the first failure (-ENOMEM, -E2BIG, -EINVAL from a bad
 * format); once set, appends are no-ops. */
struct buf {
	char *p;
	size_t n, cap;
	size_t max;
	int err;
};

void buf_add(struct buf *b, const void *s, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_putc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Empties b (n and err 0), keeping its memory and its max. */
void buf_reset(struct buf *b);
/* Frees p; b is left empty ({0}) and reusable. */
void buf_free(struct buf *b);
/* The string built (owned by the caller; "" when nothing was appended), or NULL after a
 * failure; b is left empty either way. */
char *buf_steal(struct buf *b);

/* A writer over the caller's array: nothing is written past cap, and nothing is added (no
 * NUL). p NULL counts only (cap (size_t)-1 then). err: 0 or -ENOSPC once something did not
 * fit; later appends are no-ops. */
struct fbuf {
	char *p;
	size_t n, cap;
	int err;
};

struct fbuf fbuf_on(char *p, size_t cap);
void fbuf_add(struct fbuf *w, const void *s, size_t n);
void fbuf_puts(struct fbuf *w, const char *s);
/* One formatted piece of at most 255 bytes (a longer one is -ENOSPC): numbers, short lines. */
void fbuf_printf(struct fbuf *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The bytes written, or the error. */
ssize_t fbuf_result(const struct fbuf *w);

/* Room for need (>= 1) elements of size bytes in v, whose capacity is *cap: returns v when
 * it has room already, else the array reallocated (capacity doubled, from 8, until need fits;
 * *cap updated), or NULL on overflow or out of memory (v and *cap then unchanged, v still
 * owned by the caller). Usage: if (!(nv = array_grow(a->v, &a->cap, a->n + 1, sizeof(*nv))))
 * return -ENOMEM; a->v = nv; */
void *array_grow(void *v, size_t *cap, size_t need, size_t size);

#endif
