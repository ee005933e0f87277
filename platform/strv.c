/* strv — growable string vectors. */
#include "platform/strv.h"

#include "platform/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(struct strv *sv)
{
	char **v = array_grow(sv->v, &sv->cap, sv->n + 2, sizeof(*v)); /* and the NULL */

	if (!v)
		return -ENOMEM;
	sv->v = v;
	return 0;
}

int strv_push_owned(struct strv *sv, char *s)
{
	if (!s || grow(sv) < 0) {
		free(s);
		return -ENOMEM;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
	return 0;
}

int strv_push(struct strv *sv, const char *s)
{
	return strv_push_owned(sv, strdup(s));
}

int strv_pushl(struct strv *sv, ...)
{
	va_list ap;
	const char *s;
	int r = 0;

	va_start(ap, sv);
	while (r == 0 && (s = va_arg(ap, const char *)))
		r = strv_push(sv, s);
	va_end(ap);
	return r;
}

int strv_pushf(struct strv *sv, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	return strv_push_owned(sv, s);
}

long strv_find(const struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return (long)i;
	return -1;
}

void strv_remove(struct strv *sv, size_t i)
{
	if (i >= sv->n)
		return;
	free(sv->v[i]);
	memmove(&sv->v[i], &sv->v[i + 1], (sv->n - i) * sizeof(*sv->v));
	sv->n--;
}

void strv_release(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}
