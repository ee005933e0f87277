/* strv — a growable, NULL-terminated vector of owned strings (argv arrays, lists). */
#ifndef SBX_STRV_H
#define SBX_STRV_H
#include <stddef.h>

struct strv {
	char **v; /* NULL-terminated; owned */
	size_t n;
	size_t cap;
};

/* Appends a copy of s. Returns 0 or -ENOMEM. */
int strv_push(struct strv *sv, const char *s);
/* Appends s itself, taking ownership (freed on failure). Returns 0 or -ENOMEM. */
int strv_push_owned(struct strv *sv, char *s);
/* Appends the copies of each argument up to NULL. Returns 0 or -ENOMEM. */
int strv_pushl(struct strv *sv, ...);
/* Appends printf-formatted text. Returns 0 or -ENOMEM. */
int strv_pushf(struct strv *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Index of s in sv, or -1. */
long strv_find(const struct strv *sv, const char *s);
/* Removes entry i, freeing it. */
void strv_remove(struct strv *sv, size_t i);
/* Frees every entry and the array; sv is left empty and reusable. */
void strv_release(struct strv *sv);

/* env_set's value with each ${NAME} and ${NAME:-word} replaced from env (NAME=value strings,
 * NULL-terminated; NULL: none): a NAME unset, empty or listed in hidden (the names env_unset
 * removes; may be NULL) gives word (which may hold ${NAME} references, without a default), or
 * "". A $ not followed by { is kept. *out is the caller's. Returns 0, -EINVAL (an unclosed ${,
 * a NAME not letters, digits and _, any other $ or { in word; *out NULL) or -ENOMEM. */
#define ENV_EXPAND_HINT                                                                            \
	"write ${NAME} or ${NAME:-default} (a NAME of letters, digits and _; "                     \
	"a default of text and ${NAME})"
int env_expand(const char *value, char *const *env, const struct strv *hidden, char **out);

#endif
