/* test_buf — platform/buf: the growable buffer, the fixed writer, array_grow; their sticky
 * errors and overflow checks. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/buf.h"
#include "tests/unit/tap.h"

static void growable(void)
{
	struct buf b = {0};
	char big[1000];

	buf_puts(&b, "ab");
	buf_putc(&b, 'c');
	buf_printf(&b, "-%d-%s", 42, "x");
	is_str(b.p, "abc-42-x", "puts, putc and printf append");
	is_int(b.n, 8, "n counts the bytes, not the NUL");
	memset(big, 'z', sizeof(big));
	for (int i = 0; i < 100; i++)
		buf_add(&b, big, sizeof(big));
	is_int(b.n, 8 + 100 * sizeof(big), "it grows past many doublings");
	ok(b.p[b.n] == '\0' && b.p[b.n - 1] == 'z' && b.err == 0, "still NUL-terminated");
	buf_add(&b, "\0x", 2);
	is_int(b.n, 8 + 100 * sizeof(big) + 2, "binary bytes (a NUL) go in too");
	buf_reset(&b);
	is_str(b.p, "", "reset empties it");
	buf_printf(&b, "%s", "");
	buf_puts(&b, "y");
	is_str(b.p, "y", "and it is reusable");
	buf_free(&b);
	ok(b.p == NULL && b.n == 0 && b.cap == 0, "free leaves it empty");

	char *s = buf_steal(&b);
	is_str(s, "", "steal of an empty buffer is \"\", not NULL");
	free(s);
	buf_puts(&b, "kept");
	s = buf_steal(&b);
	is_str(s, "kept", "steal hands over the string");
	ok(b.p == NULL && b.n == 0, "and leaves the buffer empty");
	free(s);
}

static void limited(void)
{
	struct buf b = {.max = 5};

	buf_puts(&b, "abc");
	buf_puts(&b, "de");
	is_int(b.err, 0, "up to max fits");
	buf_puts(&b, "f");
	is_int(b.err, -E2BIG, "one byte past max is -E2BIG");
	buf_puts(&b, "");
	buf_printf(&b, "%d", 1);
	is_str(b.p, "abcde", "the error sticks: later appends are no-ops");
	is_int(b.err, -E2BIG, "and the first error is the one kept");
	ok(buf_steal(&b) == NULL, "steal after an error gives NULL");
	ok(b.p == NULL && b.err == 0, "and frees the buffer");

	struct buf c = {.max = 4};
	buf_add(&c, "abcdef", 6);
	ok(c.err == -E2BIG && c.n == 0, "an append that does not fit adds nothing of itself");
	buf_reset(&c);
	buf_add(&c, "abcd", 4);
	ok(c.err == 0 && c.max == 4, "reset clears the error and keeps max");
	buf_free(&c);

	struct buf o = {0};
	buf_putc(&o, 'a');
	buf_add(&o, "x", SIZE_MAX - 1);
	is_int(o.err, -ENOMEM, "a length that would overflow fails, never wraps");
	is_str(o.p, "a", "and writes nothing");
	buf_free(&o);

	struct buf big = {0};
	buf_putc(&big, 'a');
	buf_add(&big, "x", (size_t)PTRDIFF_MAX - 1);
	is_int(big.err, -ENOMEM, "a length past the largest object fails (no allocation tried)");
	buf_free(&big);
}

static void fixed(void)
{
	char out[8];
	struct fbuf w = fbuf_on(out, 6);

	memset(out, '#', sizeof(out));
	fbuf_puts(&w, "abc");
	fbuf_printf(&w, ":%u", 12u);
	is_int(fbuf_result(&w), 6, "exactly cap fits");
	ok(memcmp(out, "abc:12##", 8) == 0, "bytes in place, no NUL, nothing past cap");
	fbuf_add(&w, "x", 1);
	is_int(fbuf_result(&w), -ENOSPC, "one byte more is -ENOSPC");
	fbuf_add(&w, "", 0);
	is_int(w.err, -ENOSPC, "the error sticks, even for an empty append");
	ok(out[6] == '#' && out[7] == '#', "nothing written past cap");

	struct fbuf w2 = fbuf_on(out, 4);
	fbuf_puts(&w2, "abcde");
	ok(w2.err == -ENOSPC && w2.n == 0, "a piece that does not fit is not written in part");
	fbuf_puts(&w2, "ab");
	is_int(fbuf_result(&w2), -ENOSPC, "and a later piece that would fit is not either");

	struct fbuf count = fbuf_on(NULL, 0);
	fbuf_puts(&count, "hello");
	fbuf_printf(&count, "%05d", 7);
	is_int(fbuf_result(&count), 10, "a NULL writer counts");

	char lng[300];
	memset(lng, 'l', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = '\0';
	struct fbuf w3 = fbuf_on(NULL, 0);
	fbuf_printf(&w3, "%s", lng);
	is_int(fbuf_result(&w3), -ENOSPC, "a formatted piece past 255 bytes is refused, not cut");
}

static void arrays(void)
{
	int *v = NULL, *nv;
	size_t cap = 0;

	for (size_t i = 0; i < 1000; i++) {
		if (!(nv = array_grow(v, &cap, i + 1, sizeof(*v))))
			break;
		v = nv;
		v[i] = (int)i;
	}
	ok(v && cap >= 1000 && v[999] == 999 && v[0] == 0, "grows to 1000 keeping the elements");
	size_t before = cap;
	ok(array_grow(v, &cap, 10, sizeof(*v)) == v && cap == before, "no move when it has room");
	ok(array_grow(v, &cap, SIZE_MAX / 2, sizeof(*v)) == NULL, "count x size overflow fails");
	is_int(cap, before, "and leaves the capacity alone");
	ok(v[999] == 999, "and the array usable");
	free(v);

	size_t c2 = 0;
	char *p = array_grow(NULL, &c2, 1, 1);
	ok(p && c2 == 8, "the first growth gives 8");
	free(p);
	c2 = 0;
	ok(array_grow(NULL, &c2, SIZE_MAX, 1) == NULL && c2 == 0, "SIZE_MAX elements fail cleanly");
}

int main(void)
{
	growable();
	limited();
	fixed();
	arrays();
	return tap_done();
}
