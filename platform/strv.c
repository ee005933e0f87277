/* strv — growable string vectors. */
#include "platform/strv.h"

#include "platform/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
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

static const char *env_get(char *const *env, const struct strv *hidden, const char *name,
			   size_t len)
{
	for (size_t i = 0; hidden && i < hidden->n; i++)
		if (strlen(hidden->v[i]) == len && !memcmp(hidden->v[i], name, len))
			return NULL;
	for (; env && *env; env++)
		if (!strncmp(*env, name, len) && (*env)[len] == '=')
			return *env + len + 1;
	return NULL;
}

static size_t name_len(const char *p)
{
	size_t n = 0;
	while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
	       (p[n] >= '0' && p[n] <= '9') || p[n] == '_')
		n++;
	return n && !(p[0] >= '0' && p[0] <= '9') ? n : 0;
}

/* The reference at s ("${…}"): its value (or word) appended to b; *end just past the '}'.
 * nested: s is inside a word (no :- there). */
static int env_ref(const char *s, char *const *env, const struct strv *hidden, struct buf *b,
		   const char **end, bool nested)
{
	const char *name = s + 2, *p, *word = NULL, *q;
	size_t len = name_len(name);

	p = name + len;
	if (!len)
		return -EINVAL;
	if (!nested && p[0] == ':' && p[1] == '-')
		word = p + 2;
	else if (*p != '}')
		return -EINVAL;
	/* the word: text and ${NAME} references, up to the first } outside them */
	for (q = word ? word : p; word && *q && *q != '}';) {
		size_t n = q[0] == '$' && q[1] == '{' ? name_len(q + 2) : 0;
		if (n && q[2 + n] == '}')
			q += 3 + n;
		else if (*q == '$' || *q == '{')
			return -EINVAL;
		else
			q++;
	}
	if (*q != '}')
		return -EINVAL;
	const char *v = env_get(env, hidden, name, len);
	if (v && *v) {
		buf_puts(b, v);
	} else {
		for (const char *w = word; w && w < q;) {
			if (*w == '$') {
				int r = env_ref(w, env, hidden, b, &w, true);
				if (r < 0)
					return r;
			} else {
				buf_putc(b, *w++);
			}
		}
	}
	*end = q + 1;
	return 0;
}

int env_expand(const char *value, char *const *env, const struct strv *hidden, char **out)
{
	struct buf b = {0};
	int r = 0;

	*out = NULL;
	buf_puts(&b, "");
	for (const char *s = value; r == 0 && *s;) {
		size_t n = strcspn(s, "$");
		buf_add(&b, s, n);
		s += n;
		if (!*s)
			break;
		if (s[1] != '{') {
			buf_putc(&b, *s++);
			continue;
		}
		r = env_ref(s, env, hidden, &b, &s, false);
	}
	if (r < 0) {
		buf_free(&b);
		return r;
	}
	*out = buf_steal(&b);
	return *out ? 0 : -ENOMEM;
}
