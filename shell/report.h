/* report — what the user and the log learn after a monitored command (docs/monitor.md):
 * the violations on stderr with the grant that allows each, the JSON-lines log and syslog,
 * on_violation, and hints for a failure the monitor saw no violation for.
 */
#ifndef SBX_REPORT_H
#define SBX_REPORT_H
#include <stdio.h>

#include "shell/monitor.h"
#include "shell/policy.h"

/* The exit status of a command that succeeded but caused a violation under
 * on_violation = fail. Not bash's 1/2/126/127/128+n, not sbxsh's 125, not timeout(1)'s 124. */
#define REPORT_EXIT_VIOLATION 122

struct sess_refusals;

struct report_ctx {
	const struct judge_ctx *jc;
	enum viol_mode mode; /* the profile's on_violation */
	const char *log;     /* the violation log, or NULL */
	bool syslog;
	const char *session, *command, *cmdline, *cwd;
	bool logged;	  /* the violations were logged as they happened (report_log_one) */
	bool live;	  /* … and shown as they happened (report_run_live): not listed again */
	bool keep_status; /* a session's: on_violation = fail does not change its status */
	const struct sess_refusals *refusals; /* the session daemon's network refusals of
						  this command (its END reply), or NULL */
};

/* Writes every violation of m to the log (and syslog), prints the summary and hints on err
 * (not under on_violation = log), and returns the wait status to exit with: wstatus, or
 * REPORT_EXIT_VIOLATION when the command exited 0 with violations under fail. */
int report_finish(const struct report_ctx *rc, const struct monitor *m, int wstatus, FILE *err);

/* Logs one violation (file and syslog) with its suggestion. */
void report_log_one(const struct report_ctx *rc, const struct mon_viol *x);

/* The hints for a command that failed (pure but for the exists() of rc->jc): a write-grant
 * root it tried to remove, a hidden .git when it ran git. Appends lines to out; 0 or -ENOMEM. */
int report_hints(const struct report_ctx *rc, const struct monitor *m, struct strv *out);

/* The front end's hooks around one command (shell/shell.c). */
struct report_run;
struct sandbox_spec;
struct settings;

/* Two halves. report_run_begin, before bwrap starts: what bwrap and the stage need — the
 * stage's socket (*stage_fd, which bwrap must inherit; the caller closes its copy once bwrap
 * runs), the monitor's settings in the stage's NOTIFY_ENV, the command's id. report_run_start,
 * once bwrap runs (supervise_extra.spawned: it overlaps bwrap's own start): the judge's
 * context and the monitor, which the supervise loop then serves. Nothing of the command runs
 * before that: its first call (the shell's exec) waits on the listener, which only the
 * started monitor takes; a failed start ends sbxsh, and bwrap with it (fail closed).
 * prof, spec and set must outlive the run. Each returns 0 (begin: and *out), or -errno:
 * the command must not run. */
int report_run_begin(struct report_run **out, const struct settings *set,
		     const struct profile *prof, const struct sandbox_spec *spec,
		     const char *cmdline, int *stage_fd);
int report_run_start(struct report_run *rr);
/* The command id the log records carry: give it to the session daemon (sess_command.id) so
 * its network refusals are attributed to this command and shown in its summary. */
const char *report_run_command(const struct report_run *rr);
/* Where net_finish puts the daemon's network refusals of the command (NULL when rr is). */
struct sess_refusals *report_run_refusals(struct report_run *rr);

/* A session (an interactive shell, a script on stdin): each violation is also shown as it is
 * found, by say(arg, text) with one line of text ending in '\n', on the supervise loop's thread
 * (not under on_violation = log); report_run_end then lists none again. keep_status: the
 * session's status stays its shell's (no REPORT_EXIT_VIOLATION). */
void report_run_live(struct report_run *rr, bool keep_status,
		     void (*say)(void *arg, const char *text), void *arg);
/* After the command: stops the monitor, reports, returns the wait status to exit with. */
int report_run_end(struct report_run *rr, int wstatus);
/* The run's monitor (NULL when off), for the supervise loop to wait for its listener
 * (monitor_poll_fd, monitor_ready); report_run_end stops its thread. */
struct monitor *report_run_monitor(const struct report_run *rr);
void report_run_free(struct report_run *rr);

/* A command id for the log: "<pid>-<hex monotonic ns>", into buf. */
char *report_command_id(char *buf, size_t n);

#endif
