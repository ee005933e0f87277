/* monitor — the violation monitor of one command (docs/monitor.md): the event source
 * (platform/monitor_src.h) sees and answers each monitored call; this judges what it names
 * (shell/judge.h) and keeps the violations.
 */
#ifndef SBX_MONITOR_H
#define SBX_MONITOR_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "platform/strv.h"
#include "shell/judge.h"

/* One violation seen (deduplicated by kind and path for the command). */
struct mon_viol {
	enum viol_kind kind;
	enum viol_why why;
	const struct pol_value *rule; /* owned by the profile */
	const char *mandatory;	      /* static */
	char *path;		      /* owned: host path, or host:port */
	const char *call;	      /* static: the call's name */
	pid_t pid;		      /* as the front end sees it (host pid namespace) */
};

struct mon_stats {
	unsigned long notifications; /* answered */
	unsigned long unknown;	     /* a path that could not be read: not judged */
	unsigned long dropped;	     /* violations past the per-command cap, counted only */
};

struct monitor;

/* A monitor over listener (ownership taken: closed by monitor_free, also on error) that judges
 * with jc (copied; what it points to must outlive the monitor). Returns 0 and *out, or -errno. */
int monitor_new(struct monitor **out, int listener, const struct judge_ctx *jc);

/* The level the stage's filter notifies at (enum monitor_level, platform/monitor_src.h):
 * from MONITOR_FULL on, every call that can change a cwd notifies and cwds are cached. */
void monitor_set_level(struct monitor *m, unsigned level);

/* monitor = off: the guard still performs and refuses (it is on at every level), nothing is
 * judged or kept. */
void monitor_set_quiet(struct monitor *m);

/* One serving mode: a thread of the source's own answers every notification, from the moment
 * the listener arrives (msrc_start in platform/monitor_src.h).
 * For a monitor made over a listener (the tests): starts that thread. Returns 0 or -errno
 * (then nothing serves; the sandboxed calls fail with ENOSYS once the listener is closed). */
int monitor_start(struct monitor *m);

/* For the front end's supervise loop, which only waits for the listener: it will arrive on
 * sock (taken; from the stage; a stage that dies first closes its end, and nothing is seen).
 * Poll monitor_poll_fd and call monitor_ready when it is ready: that takes the listener and
 * starts the thread (failing, the listener is closed: fail closed). */
void monitor_set_boot(struct monitor *m, int sock);
/* The boot socket until the listener came; -1 from then on (or once the stage closed it). */
int monitor_poll_fd(const struct monitor *m);
/* monitor_poll_fd was ready (revents as poll gave them). Never blocks. */
void monitor_ready(struct monitor *m, short revents);

/* Stops the thread: answers what is pending, then returns once the thread has ended.
 * Safe to call when not started, and with m NULL. */
void monitor_stop(struct monitor *m);

/* Calls fn(v, arg) on the thread that answers for each violation as it is kept (set it
 * before monitor_start or monitor_ready): the log gets it while the command still runs, so a
 * long interactive session or a front end killed later loses nothing. fn must not block for
 * long. */
void monitor_set_sink(struct monitor *m, void (*fn)(const struct mon_viol *v, void *arg),
		      void *arg);

/* Results (valid until monitor_free; read them after monitor_stop). */
const struct mon_viol *monitor_violations(const struct monitor *m, size_t *n);
struct mon_stats monitor_stats(const struct monitor *m);
/* Write-grant roots the command tried to remove or rename (EBUSY/EROFS): hint material. */
const struct strv *monitor_root_removals(const struct monitor *m);
/* true when the command ran a program named git. */
bool monitor_saw_git(const struct monitor *m);

void monitor_free(struct monitor *m);

/* Does path exist on the host (lstat)? The default exists() for a judge_ctx. */
bool monitor_host_exists(const char *path, void *arg);

#endif
