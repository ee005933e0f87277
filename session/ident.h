/* ident — which session this process belongs to, and the private directory that holds it. */
#ifndef SBX_SESS_IDENT_H
#define SBX_SESS_IDENT_H
#include <stddef.h>
#include <sys/types.h>

#define SESS_ID_MAX   64
#define SESS_NO_AUDIT "4294967295" /* /proc/self/sessionid when pam_loginuid never set it */

/* The session id from the audit session id text (contents of /proc/self/sessionid, or NULL),
 * else env (the value of $SBXSH_SESSION, or NULL), else "user". Writes it into id.
 * Returns 0, or -EINVAL with *err (caller frees) naming the bad value and the fix. */
int sess_id_from(const char *audit, const char *env, char id[SESS_ID_MAX + 1], char **err);

/* sess_id_from() with this process's /proc/self/sessionid and $SBXSH_SESSION. */
int sess_id(char id[SESS_ID_MAX + 1], char **err);

/* Creates (0700) and checks the session directory: <runtime>/sbxsh/<id> when runtime is set,
 * else <tmp>/sbxsh-<uid>/<id>. Every level sbxsh makes must be a real directory owned by uid
 * with no group or other bits; runtime must be owned by uid and not group/other writable;
 * tmp must be root's and sticky, or uid's and not group/other writable.
 * Returns 0 and *dir (caller frees), or a negative errno with *err (caller frees). */
int sess_dir_at(const char *runtime, const char *tmp, uid_t uid, const char *id, char **dir,
		char **err);

/* Where the session directory may be, in order (NULL: not tried). */
struct sess_bases {
	const char *runtime;  /* $XDG_RUNTIME_DIR: <runtime>/sbxsh/<id>, and nothing else */
	const char *run_user; /* "/run/user": <run_user>/<uid>/sbxsh/<id> when that is ours */
	const char *tmp;      /* "/tmp": <tmp>/sbxsh-<uid>/<id> */
	const char *home;     /* when tmp's is someone else's: <home>/.cache/sbxsh-run/<id> */
};
#define SESS_HOME_RUN "sbxsh-run" /* in ~/.cache */

/* The first usable place of b, with sess_dir_at()'s checks at every level (~/.cache: ours,
 * not writable by others). Without runtime, a place that is missing or someone else's is
 * passed over; when none works *err names each failure, the squatter and the fix. */
int sess_dir_in(const struct sess_bases *b, uid_t uid, const char *id, char **dir, char **err);

/* sess_dir_in() with $XDG_RUNTIME_DIR, /run/user, /tmp, $HOME (else the password database's
 * home) and getuid(). */
int sess_dir(const char *id, char **dir, char **err);

/* The path of a socket in dir, checked against the 108-byte sun_path limit.
 * Returns 0 and *path (caller frees), or -ENAMETOOLONG with *err naming the path. */
int sess_sock_path(const char *dir, const char *name, char **path, char **err);

#endif
