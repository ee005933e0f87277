/* path — policy path spelling: ~, $VAR, ${VAR}, relative-to-root, glob syntax, canonical form.
 *
 * Pure string work except path_canon (realpath on the existing prefix). Glob characters
 * (* ? [ ] { }) and their \ escapes are kept for the sandbox to expand later.
 */
#ifndef SBX_PATH_H
#define SBX_PATH_H
#include <stdbool.h>
#include <stddef.h>

#include "platform/strv.h"

/* Expands ~ (home), $VAR and ${VAR} (caller's environment), and makes a relative path
 * absolute under root ("." is root; NULL: no project, -ENOENT); normalizes it lexically and
 * checks glob syntax. What is substituted (home, root, a variable's value) is escaped: its
 * characters are literal, never glob syntax.
 * Returns 0 and *out (caller frees), or -EINVAL / -ENOMEM with *err (caller frees, may be
 * NULL on -ENOMEM) saying what is wrong and how to fix it; -ENXIO (with *err) when a variable
 * is unset or empty, or a path from a variable is relative: deny_read takes that as naming
 * nothing. */
int path_expand(const char *in, const char *home, const char *root, char **out, char **err);
/* As path_expand, into b (emptied first, its memory kept: a caller expanding many paths
 * reuses one buffer, not an allocation each); on success b->p is the path. */
struct buf;
int path_expand_buf(const char *in, const char *home, const char *root, struct buf *b, char **err);

/* NULL when the glob syntax of s is valid, else a static message. */
const char *path_glob_error(const char *s);

/* The first na bytes of a, then b, then c, newly allocated (NULL when out of memory): the
 * path joins of the hot paths, without asprintf's formatting (~1,000 instructions a call). */
char *path_cat(const char *a, size_t na, const char *b, const char *c);

/* Expands the {a,b} alternatives of a glob pattern (nested too), as glob(3)'s GLOB_BRACE
 * does, into out: one pattern per combination, in order; `\` escapes and […] sets are kept
 * as written. A pattern without braces is pushed as it is. Returns 0, -ENOMEM, or -E2BIG
 * past PATH_BRACE_MAX patterns. */
#define PATH_BRACE_MAX 256
int path_brace_expand(const char *pat, struct strv *out);

/* The one definition of a glob in a policy path: the first unescaped '*', '?', '[' or '{' of
 * s, or NULL when s is a literal (its `\` escapes still to be removed). */
const char *path_glob_start(const char *s);
/* true when path_glob_start(s) finds one. */
bool path_has_glob(const char *s);

/* s with '*', '?', '[', ']', '{', '}' and '\' escaped by '\': a real path spelled as a policy
 * path that matches only itself. Newly allocated, NULL when out of memory. */
char *path_escape(const char *s);
/* As path_escape, and the characters a policy line reads as syntax besides: blanks and ','
 * (list separators), '$' (a variable), ';' (" ;" starts a comment). What every suggested line
 * spells a real path with, so that the line names that path and nothing else. */
char *path_escape_value(const char *s);
/* The literal a glob-free policy path names: its `\` escapes removed. Caller frees. */
char *path_unescape(const char *s);

/* Lexically normalizes an absolute path in place: "//", "/./", "/x/../", trailing "/". */
void path_normalize(char *p);

/* Canonical form of an absolute policy path: symlinks resolved in the longest existing prefix
 * that holds no glob, the rest re-appended; the resolved prefix comes back escaped
 * (path_escape), so a real name holding '[' stays literal. Returns 0 and *out (caller frees)
 * or -errno. */
int path_canon(const char *abs, char **out);

/* "No such name" from one read of a directory, for callers that look up many names in a few
 * directories (the default policy's ~300 credential stores and host auto-run files, most of
 * which do not exist): an lstat that fails costs ~2 µs on a VM, a small directory's listing
 * ~10 µs. A directory is read at its third question (before, an lstat each is cheaper), and
 * trusted only where a listing names exactly what a lookup finds (host_listing_exact). Start
 * zeroed; valid while the file system does not change (release it after making anything). */
struct path_names {
	struct path_names_dir *v;
	size_t n, cap;
	size_t last; /* the directory asked about last: most questions come in runs */
};
/* true when dir/name certainly does not exist now (an lstat would fail): dir, read once,
 * lists no such name, or dir itself is missing (ENOENT or ENOTDIR opening it, or a read
 * listing of an ancestor lacks the next component; asked at dir's first question). false when
 * not known: look it up. name is one component, never "." or "..". */
bool path_names_absent(struct path_names *pn, const char *dir, const char *name);
/* As path_names_absent for an absolute path, split at its last '/'. */
bool path_names_absent_path(struct path_names *pn, const char *path);
void path_names_release(struct path_names *pn);

/* A memo of canonical directories, so that resolving many paths under the same trees costs
 * one lstat per directory. Start zeroed; valid while the file system does not change. */
struct path_cache {
	struct path_cache_ent *v;
	size_t n, cap;
	struct path_names names; /* the canonical directories' listings */
};
/* As path_canon, remembering what it learns in c (may be NULL). */
int path_canon_cached(const char *abs, struct path_cache *c, char **out);
/* As path_canon_cached of a normalized abs (as path_expand makes it), and *absent: abs holds
 * no glob and an lstat of its canonical path (or of a parent) found nothing, just now (false
 * when not known: a link realpath could not follow). A plan made right after may skip its own
 * lstat of that path. */
int path_canon_absent(const char *abs, struct path_cache *c, char **out, bool *absent);
void path_cache_release(struct path_cache *c);

/* true when path is dir or lies under it (component-wise; both normalized). */
bool path_under(const char *path, const char *dir);

#endif
