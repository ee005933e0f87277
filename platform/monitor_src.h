/* monitor_src — the violation monitor's event source: the kernel half (docs/monitor.md).
 *
 * A backend sees every monitored call the sandboxed command makes, answers it (the guard
 * performs the calls that change a name or a file: docs/monitor.md "The guard") and emits what
 * each call named to a callback, as the sandbox spelled it. It reads nothing of the policy:
 * judging, the judge cache and the violation list are the caller's (shell/monitor.c).
 * The Linux backend is platform/linux/monitor_src.c (seccomp user notification); another
 * backend provides these functions and the stage side that hands it its listener.
 *
 * Serving: one thread of the source's own answers the notifications, from the moment the
 * listener arrives (the guard needs a thread without capabilities and with its own umask);
 * the caller's poll loop only waits for the listener (msrc_poll_fd, msrc_ready).
 */
#ifndef SBX_MONITOR_SRC_H
#define SBX_MONITOR_SRC_H
#include <stdbool.h>
#include <sys/types.h>

#include "platform/mandatory.h"

/* How much the monitor sees ([sbxsh] monitor: off, writes, on, full). WRITES: every
 * write-intent call (opens told apart by their flags in BPF), execs and AF_UNIX sockets; FULL
 * (the policy's `on`) adds read opens, access and chdir. ALL (the policy's `full`) adds
 * readlink and the stat family: gcc alone makes ~1,100 readlinks per compile and git status
 * one lstat per file, each a round trip, and neither reads a file's content. */
enum monitor_level { MONITOR_OFF = 0, MONITOR_WRITES = 1, MONITOR_FULL = 2, MONITOR_ALL = 3 };

/* What an event says a call did. */
enum msrc_kind {
	MSRC_READ,    /* path was read (an open for reading, access, chdir, readlink, stat) */
	MSRC_WRITE,   /* path was created, removed, renamed, written or its metadata changed */
	MSRC_EXEC,    /* path was executed */
	MSRC_UNIX,    /* an AF_UNIX socket, refused (path NULL) */
	MSRC_REFUSED, /* the guard refused a write by a mandatory rule (hit: which) */
	MSRC_MOVED,   /* the guard renamed a directory: path → to (the real names) */
};

/* msrc_event.flags: call details that change a verdict */
#define MSRC_MKDIR    0x1u  /* mkdir: a directory that exists in the sandbox met EEXIST */
#define MSRC_TIMES    0x2u  /* a timestamp change */
#define MSRC_REMOVE   0x4u  /* rmdir, unlink, rename's source */
#define MSRC_NSCD     0x8u  /* MSRC_UNIX: the socket type of glibc's nscd probe */
#define MSRC_EXCHANGE 0x10u /* MSRC_MOVED: RENAME_EXCHANGE (both moved) */

struct msrc_event {
	enum msrc_kind kind;
	unsigned flags;		    /* MSRC_MKDIR… */
	const char *path;	    /* the sandbox path (MSRC_REFUSED: the final one refused) */
	const char *call;	    /* static: the call's name */
	pid_t pid;		    /* as the front end sees it */
	const struct mand_hit *hit; /* MSRC_REFUSED: the rule */
	const char *to;		    /* MSRC_MOVED: the new name */
};

/* Called on the serving thread for each event, before the call's answer for a call the guard
 * performs, after it for the others (a path read is trusted only once the answer went
 * through while the call still waited). The event and what it points to are valid for the
 * call only. fn must not block for long. */
typedef void msrc_fn(const struct msrc_event *ev, void *arg);

struct msrc_stats {
	unsigned long notifications; /* answered */
	unsigned long unknown;	     /* a path that could not be read: no event */
};

struct mon_src;

/* A source over listener (-1: none yet, see msrc_set_boot; ownership taken: closed by
 * msrc_free, also on error). The guard checks its writes against *mc (not copied: it and what
 * it points to must outlive the source). Returns 0 and *out, or -errno. */
int msrc_new(struct mon_src **out, int listener, const struct mand_ctx *mc, msrc_fn *fn, void *arg);

/* The level the stage's filter notifies at: from MONITOR_FULL on, every call that can change a
 * cwd notifies and cwds are cached. */
void msrc_set_level(struct mon_src *s, enum monitor_level level);

/* monitor = off: the guard still performs and refuses, and emits its refusals; no call's
 * paths are read for an event. */
void msrc_set_quiet(struct mon_src *s);

/* Starts the serving thread on the listener (msrc_new's): blocked in the listener's receive
 * (signals blocked there but SIGURG, whose no-op handler this installs: msrc_stop's wake-up),
 * until no process holds the filter or msrc_stop. Returns 0 or -errno (nothing serves: once
 * the listener is closed the sandboxed calls fail with ENOSYS, closed). */
int msrc_start(struct mon_src *s);

/* The listener will arrive on sock (taken; from the stage, which closes its end if it dies
 * first). Poll msrc_poll_fd and call msrc_ready when it is ready: that takes the listener and
 * starts the thread (msrc_start; failing, the listener is closed: fail closed). */
void msrc_set_boot(struct mon_src *s, int sock);
/* The boot socket until the listener came, then -1. */
int msrc_poll_fd(const struct mon_src *s);
void msrc_ready(struct mon_src *s, short revents);

/* Stops the thread: answers what is pending, then returns once it has ended. Safe to call
 * when not started. */
void msrc_stop(struct mon_src *s);

/* Counters (read them after msrc_stop). */
const struct msrc_stats *msrc_stats(const struct mon_src *s);

void msrc_free(struct mon_src *s);

/* The stage's part: sock is the descriptor the stage sends the listener on (inherited through
 * bwrap), passed in the environment with level and flags (MSRC_STAGE_*). 0 or -errno. */
#define MSRC_STAGE_UNIX	 0x1u /* socket(AF_UNIX) notifies: the monitor refuses and reports it */
#define MSRC_STAGE_GUARD 0x2u /* only the calls the guard performs (monitor = off) */
int msrc_stage_setenv(int sock, enum monitor_level level, unsigned flags);
/* Removes what msrc_stage_setenv set (a value inherited from outside is never ours). */
void msrc_stage_unsetenv(void);

#endif
