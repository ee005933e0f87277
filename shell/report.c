/* report — the violations of one command, on stderr and in the log.
 *
 * Rules this file keeps:
 * - It never reads the command's output: stdout and stderr pass through untouched, so hints
 *   come from what the monitor saw (calls), not from error messages.
 * - It runs after the command, once (a session's violations are also shown as found, one line
 *   each): a log that cannot be written never changes the exit status.
 * - Only fail turns a success into REPORT_EXIT_VIOLATION; a failing status is the command's.
 * - Every line that holds a path, host or reason from the sandbox is printed escaped
 *   (platform/term.h): a file name cannot put a control sequence on the user's terminal.
 * - The daemon's notes (a host that could not be reached upstream) are advice: printed after
 *   the violations, never counted as one, never changing the exit status.
 */
#include "platform/log.h"
#include "shell/report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "paths.h"
#include "platform/monitor_src.h"
#include "platform/sandbox.h"
#include "session/client/client.h"
#include "platform/term.h"
#include "session/ident.h"
#include "session/vlog.h"

char *report_command_id(char *buf, size_t n)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(buf, n, "%ld-%llx", (long)getpid(),
		 (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec);
	return buf;
}

static void to_verdict(const struct mon_viol *x, struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->kind = x->kind;
	v->why = x->why;
	v->rule = x->rule;
	v->mandatory = x->mandatory;
	snprintf(v->path, sizeof(v->path), "%s", x->path);
}

static const char *profile_at(const struct judge_ctx *jc)
{
	const struct strv *s = &jc->prof->sections;

	return s->n ? s->v[s->n - 1] : NULL;
}

static void log_one(const struct report_ctx *rc, const struct mon_viol *x, const char *grant);

void report_log_one(const struct report_ctx *rc, const struct mon_viol *x)
{
	struct verdict v;
	char grant[PATH_MAX * 2];

	to_verdict(x, &v);
	judge_suggest(rc->jc, &v, grant, sizeof(grant));
	log_one(rc, x, grant);
}

static void log_one(const struct report_ctx *rc, const struct mon_viol *x, const char *grant)
{
	struct vlog_record r = {
	    .session = rc->session,
	    .command = rc->command,
	    .cmdline = rc->cmdline,
	    .cwd = rc->cwd,
	    .profile = rc->jc->prof->grant_section,
	    .profile_file = rc->jc->prof->grant_file,
	    .profile_at = profile_at(rc->jc),
	    .kind = judge_kind_name(x->kind),
	    .path = x->path,
	    .call = x->call,
	    .pid = x->pid,
	    .grant = grant,
	};

	vlog_write(rc->log, rc->syslog, &r);
}

static void print_one(FILE *err, const struct report_ctx *rc, const struct mon_viol *x,
		      const char *grant)
{
	char tp[PATH_MAX];

	judge_tilde(rc->jc->home, x->path, tp, sizeof(tp));
	/* the path and the grant hold names the sandbox chose: escaped for the terminal */
	if (x->kind == VK_UNIX)
		sbx_term_printf(err, "sbxsh:   unix socket refused (%s): %s%s\n", x->call,
				grant[0] == '[' ? "to allow, " : "", grant);
	else
		sbx_term_printf(err, "sbxsh:   %s %s (%s): %s%s\n", judge_kind_name(x->kind), tp,
				x->call, grant[0] == '[' ? "to allow, " : "", grant);
}

/* The nearest .git at or above dir on the host, into out; false when none. */
static bool find_git(const struct judge_ctx *jc, const char *dir, char *out, size_t n)
{
	char d[PATH_MAX];

	snprintf(d, sizeof(d), "%s", dir);
	for (;;) {
		int k = snprintf(out, n, "%s%s.git", d, strcmp(d, "/") == 0 ? "" : "/");

		if (k > 0 && (size_t)k < n && jc->exists && jc->exists(out, jc->arg))
			return true;
		char *s = strrchr(d, '/');

		if (!s || s == d)
			return false;
		*s = '\0';
	}
}

int report_hints(const struct report_ctx *rc, const struct monitor *m, struct strv *out)
{
	const struct strv *roots = monitor_root_removals(m);
	char t[PATH_MAX], g[PATH_MAX], why[PATH_MAX * 2];
	struct verdict v;
	int r = 0;

	for (size_t i = 0; r == 0 && i < roots->n; i++)
		r = strv_pushf(out,
			       "%s is the root of a write grant (a mount point): it cannot be "
			       "removed or renamed in the sandbox (EBUSY, Read-only file system); "
			       "empty it instead: rm -rf %s/*",
			       judge_tilde(rc->jc->home, roots->v[i], t, sizeof(t)), t);
	if (r == 0 && monitor_saw_git(m) && rc->cwd && find_git(rc->jc, rc->cwd, g, sizeof(g)) &&
	    judge_path(rc->jc, VK_READ, g, 0, &v) == 1) {
		judge_suggest(rc->jc, &v, why, sizeof(why));
		r = strv_pushf(out,
			       "git cannot see the repository (\"not a git repository\"): %s is "
			       "hidden; %s",
			       judge_tilde(rc->jc->home, g, t, sizeof(t)), why);
	}
	return r;
}

static int failed_status(int wstatus)
{
	return !(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
}

/* The session daemon's network refusals for this command, as it answered the command's END
 * on the control connection (never read back from the log, which the sandbox may write). */
static void network_records(const struct report_ctx *rc, struct strv *lines, struct strv *seen)
{
	const struct sess_refusals *rs = rc->refusals;
	char g[PATH_MAX * 2];

	for (size_t i = 0; rs && i < rs->n; i++) {
		const struct sess_net_refusal *e = &rs->v[i];
		struct verdict v;

		char key[sizeof(v.path) + SESS_REFUSAL_TEXT + 2];

		/* one line per host:port and reason, as the daemon keeps them */
		if (judge_network(rc->jc, e->host, e->port, &v) == 0)
			continue;
		snprintf(key, sizeof(key), "%s %s", v.path, e->reason);
		if (strv_find(seen, key) >= 0 || strv_push(seen, key) < 0)
			continue;
		/* The daemon's own offer, made with the command's lists, is the only one: it
		 * offers none where no line would let the request through (the name resolved to
		 * a guarded address, a Host header or TLS server name that is not the target's,
		 * a name no pattern can spell, the connection limit), and a line guessed here
		 * from the host alone named one the profile already holds, or one its parser
		 * refuses ("allow_domains += a/.b"). */
		snprintf(g, sizeof(g), "%s", e->grant);
		if (g[0])
			strv_pushf(lines, "sbxsh:   network %s (%s): %s%s", v.path,
				   e->reason[0] ? e->reason : "refused by the proxy",
				   g[0] == '[' ? "to allow, " : "", g);
		else
			strv_pushf(lines, "sbxsh:   network %s (%s)", v.path,
				   e->reason[0] ? e->reason : "refused by the proxy");
	}
}

/* The daemon's notes: one line per host:port that could not be reached upstream. */
static void print_notes(FILE *err, const struct report_ctx *rc)
{
	const struct sess_refusals *rs = rc->refusals;
	char hp[SESS_REFUSAL_TEXT + 16];

	for (size_t i = 0; rs && i < rs->nnotes; i++) {
		const struct sess_net_refusal *e = &rs->notes[i];

		if (strchr(e->host, ':'))
			snprintf(hp, sizeof(hp), "[%s]:%u", e->host, e->port);
		else
			snprintf(hp, sizeof(hp), "%s:%u", e->host, e->port);
		sbx_term_printf(err, "sbxsh: note: %s could not be reached: %s\n", hp,
				e->reason[0] ? e->reason : "the connection failed");
	}
}

int report_finish(const struct report_ctx *rc, const struct monitor *m, int wstatus, FILE *err)
{
	size_t n;
	const struct mon_viol *x = monitor_violations(m, &n);
	const struct mon_stats stv = monitor_stats(m), *st = &stv;
	bool show = rc->mode != VIOL_LOG;
	char grant[PATH_MAX * 2];
	struct strv hints = {0}, net = {0}, seen = {0};
	unsigned long total;

	network_records(rc, &net, &seen);
	total = n + st->dropped + net.n + (rc->refusals ? rc->refusals->more : 0);
	bool list = show && !rc->live; /* live: each was shown as it happened */
	if (list && total)
		fprintf(err, "sbxsh: %lu violation%s\n", total, total == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		struct verdict v;

		to_verdict(&x[i], &v);
		judge_suggest(rc->jc, &v, grant, sizeof(grant));
		if (!rc->logged)
			log_one(rc, &x[i], grant);
		if (list)
			print_one(err, rc, &x[i], grant);
	}
	for (size_t i = 0; show && i < net.n; i++)
		sbx_term_printf(err, "%s\n", net.v[i]); /* the daemon logged these */
	if (show && (st->dropped || (rc->refusals && rc->refusals->more)))
		fprintf(err, "sbxsh:   (%lu more not listed)\n",
			st->dropped + (rc->refusals ? rc->refusals->more : 0));
	if (show)
		print_notes(err, rc);
	if (list && failed_status(wstatus) && report_hints(rc, m, &hints) == 0)
		for (size_t i = 0; i < hints.n; i++)
			sbx_term_printf(err, "sbxsh: hint: %s\n", hints.v[i]);
	strv_release(&hints);
	strv_release(&net);
	strv_release(&seen);
	if (rc->mode == VIOL_FAIL && total && !failed_status(wstatus) && !rc->keep_status) {
		fprintf(err,
			"sbxsh: exit status %d: the command succeeded but caused a violation "
			"(on_violation = fail)\n",
			REPORT_EXIT_VIOLATION);
		return REPORT_EXIT_VIOLATION << 8;
	}
	fflush(err);
	return wstatus;
}

/* ---- the front end's hooks around one command ---- */

struct report_run {
	struct monitor *mon;
	struct judge_ctx jc;
	struct report_ctx rc;
	char *home, *cmdline;
	char command[64];
	char session[SESS_ID_MAX + 1];
	struct sess_refusals refusals;
	bool quiet; /* monitor = off: the guard works, nothing is reported */
	/* report_run_begin's, for report_run_start */
	int boot; /* the boot socket's end the monitor takes, or -1 */
	enum monitor_level lvl;
	const struct settings *set;
	const struct profile *prof;
	const struct sandbox_spec *spec;
	void (*say)(void *arg, const char *text); /* report_run_live */
	void *say_arg;
};

/* On the monitor's thread, as each violation is found. */
static void live_log(const struct mon_viol *x, void *arg)
{
	struct report_run *rr = arg;
	struct verdict v;
	char grant[PATH_MAX * 2], *text = NULL;
	size_t len = 0;

	to_verdict(x, &v);
	judge_suggest(rr->rc.jc, &v, grant, sizeof(grant));
	log_one(&rr->rc, x, grant);
	if (!rr->say || rr->rc.mode == VIOL_LOG)
		return;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return;
	print_one(f, &rr->rc, x, grant);
	if (fclose(f) == 0 && text && strncmp(text, "sbxsh:   ", 9) == 0) {
		char *line = NULL;
		if (asprintf(&line, "sbxsh: violation: %s", text + 9) >= 0)
			rr->say(rr->say_arg, line);
		free(line);
	}
	free(text);
}

void report_run_live(struct report_run *rr, bool keep_status,
		     void (*say)(void *arg, const char *text), void *arg)
{
	if (!rr)
		return;
	rr->say = say;
	rr->say_arg = arg;
	rr->rc.live = say != NULL;
	rr->rc.keep_status = keep_status;
}

void report_run_free(struct report_run *rr)
{
	if (!rr)
		return;
	monitor_free(rr->mon);
	if (rr->boot >= 0)
		close(rr->boot);
	free(rr->home);
	free(rr->cmdline);
	free(rr);
}

static void fill_ctx(struct report_run *rr, const struct settings *set, const struct profile *prof,
		     const struct sandbox_spec *spec)
{
	const char *h = getenv("HOME");
	char *err = NULL;

	rr->home = h && *h ? realpath(h, NULL) : NULL;
	rr->jc.prof = prof;
	rr->jc.spec = spec;
	rr->jc.home = rr->home;
	rr->jc.sysconfdir = SBX_SYSCONFDIR "/sbxsh";
	rr->jc.log = set->log;
	rr->jc.exists = monitor_host_exists;
	if (sess_id(rr->session, &err) < 0)
		snprintf(rr->session, sizeof(rr->session), "user");
	free(err);
	rr->rc.jc = &rr->jc;
	rr->rc.mode = prof->on_violation;
	rr->rc.log = set->log;
	rr->rc.syslog = set->syslog;
	rr->rc.session = rr->session;
	rr->rc.command = rr->command; /* made by report_run_begin */
	rr->rc.cmdline = rr->cmdline;
	rr->rc.cwd = spec->cwd ? spec->cwd : prof->cwd;
	rr->rc.refusals = &rr->refusals; /* filled by report_run_set_refusals */
}

const char *report_run_command(const struct report_run *rr)
{
	return rr ? rr->command : NULL;
}

/* The policy's words to the filter's levels: `on` is the full level (read opens,
 * access, chdir), `full` adds readlink and the stat family (MONITOR_ALL). */
static enum monitor_level monitor_level_of(enum mon_mode m)
{
	static const enum monitor_level t[] = {
	    [MON_OFF] = MONITOR_OFF,
	    [MON_WRITES] = MONITOR_WRITES,
	    [MON_ON] = MONITOR_FULL,
	    [MON_FULL] = MONITOR_ALL,
	};

	return t[m];
}

static int above_stdio(int *fd)
{
	int n;

	if (*fd > 2)
		return 0;
	n = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
	if (n < 0)
		return -errno;
	close(*fd);
	*fd = n;
	return 0;
}

int report_run_begin(struct report_run **out, const struct settings *set,
		     const struct profile *prof, const struct sandbox_spec *spec,
		     const char *cmdline, int *stage_fd)
{
	struct report_run *rr = NULL;
	int sv[2] = {-1, -1}, r = 0;

	*out = NULL;
	*stage_fd = -1;
	/* monitor = off still runs the guard (docs/monitor.md "The guard"): the filter notifies
	 * the write-intent calls (the writes level) and nothing is reported */
	enum monitor_level lvl =
	    set->monitor == MON_OFF ? MONITOR_WRITES : monitor_level_of(set->monitor);
	rr = calloc(1, sizeof(*rr));
	if (rr)
		rr->boot = -1;
	if (!rr || !(rr->cmdline = strdup(cmdline ? cmdline : ""))) {
		r = -ENOMEM;
		goto out;
	}
	rr->set = set;
	rr->prof = prof;
	rr->spec = spec;
	rr->lvl = lvl;
	rr->quiet = set->monitor == MON_OFF;
	report_command_id(rr->command, sizeof(rr->command));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		r = -errno;
		goto out;
	}
	/* A caller that closed stdin/stdout/stderr must not get our socket in their place. */
	if ((r = above_stdio(&sv[0])) < 0 || (r = above_stdio(&sv[1])) < 0)
		goto out;
	/* off: the guard's calls alone (no exec, time or AF_UNIX round trips to report) */
	if ((r = msrc_stage_setenv(sv[1], lvl,
				   (spec->unix_all ? 0 : MSRC_STAGE_UNIX) |
				       (rr->quiet ? MSRC_STAGE_GUARD : 0))) < 0)
		goto out;
	rr->boot = sv[0]; /* the monitor's, once report_run_start made it */
	*stage_fd = sv[1];
	*out = rr;
	return 0;
out:
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	msrc_stage_unsetenv();
	report_run_free(rr);
	return r;
}

int report_run_start(struct report_run *rr)
{
	int r;

	if (rr->mon)
		return 0;
	fill_ctx(rr, rr->set, rr->prof, rr->spec);
	if ((r = monitor_new(&rr->mon, -1, &rr->jc)) < 0)
		return r;
	if (rr->quiet)
		monitor_set_quiet(rr->mon);
	else
		monitor_set_sink(rr->mon, live_log, rr);
	monitor_set_level(rr->mon, rr->lvl);
	rr->rc.logged = true;
	monitor_set_boot(rr->mon, rr->boot); /* awaited by the supervise loop (monitor_poll_fd) */
	rr->boot = -1;			     /* the monitor's now */
	return 0;
}

struct sess_refusals *report_run_refusals(struct report_run *rr)
{
	return rr ? &rr->refusals : NULL;
}

struct monitor *report_run_monitor(const struct report_run *rr)
{
	return rr ? rr->mon : NULL;
}

int report_run_end(struct report_run *rr, int wstatus)
{
	if (!rr)
		return wstatus;
	monitor_stop(rr->mon); /* answers what is queued first */
	if (rr->quiet)
		return wstatus;
	return report_finish(&rr->rc, rr->mon, wstatus, stderr);
}
