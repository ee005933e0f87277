/* guard.h — places test input against a PROT_NONE page, so any read past its end faults. */
#ifndef SBX_TEST_GUARD_H
#define SBX_TEST_GUARD_H
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct guard {
	unsigned char *map;
	size_t size;
};

/* Returns a copy of src[0..n) whose last byte is just before an unreadable page. */
static inline void *guard_place(struct guard *g, const void *src, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t need = (n + page - 1) / page * page + page;

	if (g->map && g->size < need) {
		munmap(g->map, g->size);
		g->map = NULL;
	}
	if (!g->map) {
		g->map =
		    mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (g->map == MAP_FAILED)
			abort();
		g->size = need;
	}
	mprotect(g->map, g->size, PROT_READ | PROT_WRITE);
	mprotect(g->map + g->size - page, page, PROT_NONE);
	unsigned char *p = g->map + g->size - page - n;
	if (n)
		memcpy(p, src, n);
	return p;
}

static inline void guard_release(struct guard *g)
{
	if (g->map)
		munmap(g->map, g->size);
	g->map = NULL;
}
#endif
