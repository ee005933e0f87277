/* canon — canonical paths without trusting the spelling a policy gave. */
#include "platform/linux/canon.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "platform/path.h"

/* Folds "//", "/./" and "/../" lexically in place (for the missing tail only). */
static void fold(char *p)
{
	char *w = p, *r = p;

	while (*r) {
		while (*r == '/')
			r++;
		char *end = strchrnul(r, '/');
		size_t len = (size_t)(end - r);
		if (len == 0 || (len == 1 && r[0] == '.')) {
			/* skip */
		} else if (len == 2 && r[0] == '.' && r[1] == '.') {
			while (w > p && *--w != '/')
				;
		} else {
			*w++ = '/';
			memmove(w, r, len);
			w += len;
		}
		r = end;
	}
	if (w == p)
		*w++ = '/';
	*w = '\0';
}

int canon_path(const char *path, char **out)
{
	char *tmp = NULL, *res = NULL;
	int r = -EINVAL;

	*out = NULL;
	if (!path || path[0] != '/')
		goto out;
	r = -ENOMEM;
	if (!(tmp = strdup(path)))
		goto out;
	fold(tmp);
	/* Resolve the longest existing prefix, then append the rest. */
	for (char *cut = tmp + strlen(tmp);;) {
		char save = *cut;
		*cut = '\0';
		char *real = realpath(tmp[0] ? tmp : "/", NULL);
		*cut = save;
		if (real) {
			const char *rest = cut;
			const char *head = strcmp(real, "/") == 0 && *rest ? "" : real;
			r = (res = path_cat(head, strlen(head), rest, "")) ? 0 : -ENOMEM;
			free(real);
			break;
		}
		if (errno != ENOENT && errno != ENOTDIR) {
			r = -errno;
			break;
		}
		char *prev = cut;
		while (prev > tmp && *--prev != '/')
			;
		if (prev == cut || prev == tmp) {
			r = (res = strdup(tmp)) ? 0 : -ENOMEM;
			break;
		}
		cut = prev;
	}
	if (r == 0) {
		*out = res;
		res = NULL;
	}
out:
	free(tmp);
	free(res);
	return r;
}

bool canon_under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return p[0] == '/';
	return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

unsigned canon_depth(const char *p)
{
	unsigned d = 0;

	for (; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			d++;
	return d;
}

int canon_first_link(const char *path, char **link)
{
	char *tmp = strdup(path);
	int r = -ENOENT;

	*link = NULL;
	if (!tmp)
		return -ENOMEM;
	for (char *p = tmp + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char save = *p;
		struct stat st;
		*p = '\0';
		if (lstat(tmp, &st) < 0) {
			*p = save;
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			r = (*link = strdup(tmp)) ? 0 : -ENOMEM;
			break;
		}
		*p = save;
		if (!save)
			break;
	}
	free(tmp);
	return r;
}
