/* monitor — the front end's seccomp notification loop: see each monitored call, answer it,
 * judge it (shell/judge.h), keep the violations of one command (docs/monitor.md).
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

/* The level the stage's filter notifies at (enum monitor_level, platform/linux/notify.h):
 * from MONITOR_FULL on, every call that can change a cwd notifies and cwds are cached. */
void monitor_set_level(struct monitor *m, unsigned level);

/* monitor = off: the guard still performs and refuses (it is on at every level), nothing is
 * judged or kept. */
void monitor_set_quiet(struct monitor *m);

/* Answers on a thread of its own, blocked in the listener's RECV (signals blocked there but
 * SIGURG, whose no-op handler this installs: monitor_stop's wake-up), until no process holds the
 * filter or monitor_stop. For a monitor made over a listener (the tests), and by monitor_ready
 * itself once a command made MON_THREAD_AFTER calls. Returns 0 or -errno (then nothing runs;
 * the sandboxed calls fail with ENOSYS once the listener is closed: fail closed). */
int monitor_start(struct monitor *m);

/* For a caller's own poll loop (the front end's supervise loop): the listener will arrive on
 * sock (taken; notify_fd_send from the stage; a stage that dies first closes its end, and
 * nothing is seen). Poll monitor_poll_fd for POLLIN and call monitor_ready when it fires;
 * monitor_drain answers what is still queued (or stops the thread). A short command starts no
 * thread; after MON_THREAD_AFTER notifications monitor_ready starts one (monitor_start) and
 * monitor_poll_fd says -1 from then on. */
void monitor_set_boot(struct monitor *m, int sock);
/* The descriptor to wait on: the boot socket until the listener came, then the listener;
 * -1 once the stage closed the boot socket unsent, the listener hung up, or a thread serves
 * it. */
int monitor_poll_fd(const struct monitor *m);
/* monitor_poll_fd was ready (revents as poll gave them): takes the listener, or answers
 * one notification. Never blocks. */
void monitor_ready(struct monitor *m, short revents);
/* Answers every notification already queued, then returns; a thread is stopped (monitor_stop). */
void monitor_drain(struct monitor *m);

/* Stops the thread: answers what is pending, then returns once the thread has ended.
 * Safe to call when not started. */
void monitor_stop(struct monitor *m);

/* Calls fn(v, arg) on the thread that answers (monitor_ready's caller, or monitor_start's
 * thread) for each violation as it is kept (set it before either): the log gets it while
 * the command still runs, so a long interactive session or a front end killed later loses
 * nothing. fn must not block for long. */
void monitor_set_sink(struct monitor *m, void (*fn)(const struct mon_viol *v, void *arg),
		      void *arg);

/* Results (valid until monitor_free; read them after monitor_stop). */
const struct mon_viol *monitor_violations(const struct monitor *m, size_t *n);
const struct mon_stats *monitor_stats(const struct monitor *m);
/* Write-grant roots the command tried to remove or rename (EBUSY/EROFS): hint material. */
const struct strv *monitor_root_removals(const struct monitor *m);
/* true when the command ran a program named git. */
bool monitor_saw_git(const struct monitor *m);

void monitor_free(struct monitor *m);

/* Does path exist on the host (lstat)? The default exists() for a judge_ctx. */
bool monitor_host_exists(const char *path, void *arg);

#endif
