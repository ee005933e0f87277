/* errf — the error text a session function hands back to its caller. */
#ifndef SBX_SESS_ERRF_H
#define SBX_SESS_ERRF_H

/* Sets *err (caller frees; may be NULL to discard) to the formatted text and returns rc.
 * When memory runs out *err is NULL and rc is still returned. */
int sess_errf(char **err, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
