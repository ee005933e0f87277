/* canon — path canonicalization for the Linux backend (until platform/path has it). */
#ifndef SBX_LINUX_CANON_H
#define SBX_LINUX_CANON_H
#include <stdbool.h>

/* The canonical form of an absolute path: links resolved for the part that exists, the
 * missing rest appended as written ("." and ".." folded). Returns 0 and *out (caller
 * frees), or a negative errno (-EINVAL for a relative path). */
int canon_path(const char *path, char **out);
/* true when p is dir or lies under it (both canonical). */
bool canon_under(const char *p, const char *dir);
/* Number of components ("/" is 0). */
unsigned canon_depth(const char *p);
/* The first symlink on the way to path (not its target): 0 and *link (caller frees) or
 * -ENOENT when there is none. */
int canon_first_link(const char *path, char **link);

#endif
