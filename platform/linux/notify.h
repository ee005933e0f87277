/* notify — the seccomp user-notification half of the violation monitor (docs/monitor.md).
 *
 * The stage adds the rules (notify_rules_add) to its own filter before it loads it, sends the
 * listener to the front end (notify_fd_send) and closes its copy before exec. The front end
 * receives it (notify_fd_recv), prepares it (notify_listener_setup) and serves it
 * (platform/linux/monitor_src.c).
 * The call table here is the one both sides read: which calls notify, and where their path,
 * directory descriptor and open flags sit in the arguments.
 */
#ifndef SBX_NOTIFY_H
#define SBX_NOTIFY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <seccomp.h>

#include "platform/monitor_src.h" /* enum monitor_level */

/* notify_rules_add flags */
#define NOTIFY_UNIX 0x1u /* socket(AF_UNIX) notifies; the monitor refuses it with EPERM */
/* Only the calls the guard performs (notify_guarded) and chdir, fchdir, umask (its cache):
 * monitor = off, which reports nothing. AF_UNIX stays the filter's own rule (refused with
 * EPERM unless granted); the stage picks filters_guard[NOTIFY_UNIX set ? 0 : 1]. */
#define NOTIFY_GUARD 0x2u

/* What a call does to the path it names. */
enum notify_op {
	NOP_READ,  /* open for reading, access, chdir, readlink */
	NOP_WRITE, /* creates, removes, renames, changes metadata */
	NOP_OPEN,  /* read or write by its flags (open, openat, openat2) */
	NOP_EXEC,
	NOP_UNIX, /* socket(AF_UNIX) */
	NOP_NOTE, /* nothing to judge: notified for its cwd_event only */
};

#define NOTIFY_NOARG  0xff
#define NOTIFY_FD_CWD 0xfe /* no dirfd argument: relative to the cwd */

struct notify_call {
	const char *name;
	uint8_t op;	       /* enum notify_op */
	uint8_t level;	       /* the least monitor_level that notifies it */
	uint8_t dirfd, path;   /* argument indexes (dirfd may be NOTIFY_FD_CWD) */
	uint8_t dirfd2, path2; /* a second path written (rename, link), or NOTIFY_NOARG */
	uint8_t flags;	       /* NOP_OPEN: the open flags argument (openat2: the how pointer);
				* NOP_READ: an AT_* flags argument, AT_EMPTY_PATH calls (fstat)
				* not notified; or NOTIFY_NOARG */
	bool openat2;	       /* flags are in struct open_how at the flags argument */
	uint8_t cwd_event;     /* NOTIFY_CWD_*: monitor_src.c's cwd cache */
};

/* What a call may do to what /proc/TID/cwd reads (notify_call.cwd_event). */
#define NOTIFY_CWD_MOVES 1 /* changes some thread's cwd, or renames/removes a directory */
#define NOTIFY_CWD_TASK	 2 /* makes a task, whose tid may be one seen before */

/* The table of monitored calls; *n receives its length. Static, never freed. */
const struct notify_call *notify_calls(unsigned *n);

/* The guard performs c, or keeps a cache by it (chdir, fchdir, umask): the NOTIFY_GUARD
 * filter's calls. */
bool notify_guarded(const struct notify_call *c);

/* Open flags that mean the open may write. */
#define NOTIFY_OPEN_WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

/* Adds SCMP_ACT_NOTIFY rules for level to ctx, on every architecture ctx holds. Calls the
 * architecture lacks are skipped. flags: NOTIFY_UNIX. Returns 0 or a negative errno from
 * libseccomp. MONITOR_OFF adds nothing. */
int notify_rules_add(scmp_filter_ctx ctx, enum monitor_level level, unsigned flags);

/* Sends fd over the unix socket sock (SCM_RIGHTS), with one byte of payload. 0 or -errno. */
int notify_fd_send(int sock, int fd);

/* Receives one descriptor sent by notify_fd_send. Returns 0 and *fd (caller closes; made
 * close-on-exec), -EBADMSG when the message carried none, or -errno. Blocks. */
int notify_fd_recv(int sock, int *fd);

/* Prepares a listener in the front end: close-on-exec, and the synchronous wake-up flag
 * (kernel 6.6+; older kernels refuse it, which is not an error). Returns 1 when the flag is
 * set, 0 when the kernel lacks it, or -errno. */
int notify_listener_setup(int fd);

/* Turns the listener's synchronous wake-up on or off (notify_listener_setup turned it on). */
int notify_sync_wake(int fd, bool on);

/* The front end tells the stage through this variable ("FD:LEVEL:FLAGS"), which bwrap passes
 * on and the stage removes before anything else runs. */
#define NOTIFY_ENV "SBXSH_MONITOR"

struct notify_stage {
	int fd; /* the socket to send the listener on, or -1: no monitor */
	enum monitor_level level;
	unsigned flags; /* NOTIFY_UNIX, NOTIFY_GUARD */
};

/* Formats the variable's value. Returns buf. */
char *notify_env_format(char *buf, size_t n, int fd, enum monitor_level level, unsigned flags);

/* Stage: reads and removes NOTIFY_ENV. Returns 0 (st->fd -1 when there is none), or -EINVAL
 * for a malformed value. */
int notify_stage_parse(struct notify_stage *st);

/* Stage: loads a second filter holding only the notify rules (as libseccomp compiled
 * notify_rules_add at build time: filters.h), sends its listener on st->fd and closes both,
 * so nothing the stage runs holds them. NO_NEW_PRIVS must be set. Returns 0 or -errno. */
int notify_stage_install(const struct notify_stage *st);

/* Name of a monitor level ("off", "writes", "full"); parses one back (-1 when unknown). */
const char *notify_level_name(enum monitor_level l);
int notify_level_parse(const char *s);

#endif
