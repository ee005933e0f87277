/* fuzz_gitcfg — the git config parser (shell/gitcfg.h): its input is a repository's config,
 * which a sandboxed command may have written. Whatever it reports, the names are what git
 * would take: a section and a key, non-empty and lowercased, a value within the text's
 * length; and a second parse of the same text reports the same entries. */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shell/gitcfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	size_t len, n;
	unsigned long sum;
};

static unsigned long hash(const char *s)
{
	unsigned long h = 5381;

	for (; s && *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static int entry(const char *section, const char *sub, const char *key, const char *value,
		 void *arg)
{
	struct seen *z = arg;

	if (!section || !*section || !key || !*key)
		abort();
	for (const char *c = section; *c; c++)
		if (isupper((unsigned char)*c))
			abort();
	for (const char *c = key; *c; c++)
		if (isupper((unsigned char)*c))
			abort();
	if (strlen(section) > z->len || strlen(key) > z->len || (sub && strlen(sub) > z->len) ||
	    (value && strlen(value) > z->len))
		abort();
	z->n++;
	z->sum = z->sum * 31 + hash(section) + hash(sub) * 3 + hash(key) * 7 + hash(value) * 11;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen a = {.len = size}, b = {.len = size};
	int ra = gitcfg_parse((const char *)data, size, entry, &a);
	int rb = gitcfg_parse((const char *)data, size, entry, &b);

	if (ra != rb || a.n != b.n || a.sum != b.sum)
		abort();
	return 0;
}
