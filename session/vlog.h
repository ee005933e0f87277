/* vlog — JSON lines for the session's violation log (escaping, appending). */
#ifndef SBX_SESS_VLOG_H
#define SBX_SESS_VLOG_H
#include <stddef.h>

/* A growing line; p is NUL-terminated, owned (free it), NULL after an allocation failure. */
struct vlog_buf {
	char *p;
	size_t n, cap;
};

/* Appends s as a JSON string: quotes, escapes, invalid UTF-8 as U+FFFD. */
void vlog_json_string(struct vlog_buf *b, const char *s);
/* Appends "key":"value", with a comma when the object already has a field. */
void vlog_field(struct vlog_buf *b, const char *key, const char *value);
/* Appends the n bytes of line to the file at path (0600, parents made 0700); failures are
 * ignored: the log never fails anything. */
void vlog_append(const char *path, const char *line, size_t n);

#endif
