/* path — policy path spelling: ~, $VAR, ${VAR}, relative-to-root, glob syntax, canonical form.
 *
 * Pure string work except path_canon (realpath on the existing prefix). Glob characters
 * (* ? [ ] { }) and their \ escapes are kept for the sandbox to expand later.
 */
#ifndef SBX_PATH_H
#define SBX_PATH_H
#include <stdbool.h>

/* Expands ~ (home), $VAR and ${VAR} (caller's environment), and makes a relative path
 * absolute under root ("." is root); normalizes it lexically and checks glob syntax.
 * Returns 0 and *out (caller frees), or -EINVAL / -ENOMEM with *err (caller frees, may be
 * NULL on -ENOMEM) saying what is wrong and how to fix it. */
int path_expand(const char *in, const char *home, const char *root, char **out, char **err);

/* NULL when the glob syntax of s is valid, else a static message. */
const char *path_glob_error(const char *s);

/* true when s holds an unescaped glob character. */
bool path_has_glob(const char *s);

/* Lexically normalizes an absolute path in place: "//", "/./", "/x/../", trailing "/". */
void path_normalize(char *p);

/* Canonical form of an absolute path: symlinks resolved in the longest existing prefix
 * that holds no glob, the rest re-appended. Returns 0 and *out (caller frees) or -errno. */
int path_canon(const char *abs, char **out);

/* true when path is dir or lies under it (component-wise; both normalized). */
bool path_under(const char *path, const char *dir);

#endif
