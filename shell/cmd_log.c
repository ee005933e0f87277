/* cmd_log — `sbxsh log [--json] [--since WHEN] [--command ID] [--all]`: the violations the
 * session recorded (docs/monitor.md).
 *
 * Exit codes: 0 shown (or none recorded); 2 usage; 125 the policy (which names the log)
 * could not be loaded. The log is read as untrusted text: a line that does not parse is
 * skipped, never shown raw; under --json lines are passed through as stored, but a control
 * or format character inside a string is written as \uXXXX (platform/term.h), so the output
 * stays valid JSON (a \xNN would not be: `sbxsh log --json | jq` stopped at such a line).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "platform/log.h"
#include "platform/term.h"
#include "session/ident.h"
#include "session/vlog.h"
#include "shell/commands.h"
#include "shell/policy.h"

struct log_args {
	bool json, all;
	const char *command, *config;
	char since[40]; /* ISO 8601 UTC, compared as text; "" for all */
};

static void usage(FILE *f)
{
	fputs("usage: sbxsh log [--json] [--since WHEN] [--command ID] [--all] [--config FILE]\n"
	      "  WHEN: a duration back from now (30s, 10m, 2h, 7d) or a UTC date or time\n"
	      "        (2026-11-29, 2026-11-29T20:00:00Z)\n"
	      "  --all: every session's records, not only this session's\n",
	      f);
}

/* Parses WHEN into a sortable UTC timestamp. 0 or -EINVAL. */
static int parse_since(const char *s, char *out, size_t n)
{
	static const struct {
		char unit;
		long secs;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
	char *end;
	long v = strtol(s, &end, 10);

	for (size_t i = 0; end != s && v >= 0 && i < sizeof(units) / sizeof(units[0]); i++) {
		if (end[0] == units[i].unit && !end[1] && v <= 3650L * 86400 / units[i].secs) {
			time_t t = time(NULL) - (time_t)(v * units[i].secs);
			struct tm tm;

			gmtime_r(&t, &tm);
			strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm);
			return 0;
		}
	}
	struct tm tm = {0};
	const char *rest = strptime(s, "%Y-%m-%d", &tm);

	if (rest && (!*rest || ((rest = strptime(rest, "T%H:%M:%S", &tm)) &&
				(!*rest || strcmp(rest, "Z") == 0)))) {
		strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm);
		return 0;
	}
	return -EINVAL;
}

static int parse_args(int argc, char **argv, struct log_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		bool has = i + 1 < argc;

		if (strcmp(o, "--json") == 0) {
			a->json = true;
		} else if (strcmp(o, "--all") == 0) {
			a->all = true;
		} else if (strcmp(o, "--command") == 0 && has) {
			a->command = argv[++i];
		} else if (strcmp(o, "--config") == 0 && has) {
			a->config = argv[++i];
		} else if (strcmp(o, "--since") == 0 && has) {
			if (parse_since(argv[++i], a->since, sizeof(a->since)) < 0) {
				fprintf(stderr,
					"sbxsh: log: --since %s: not a duration (10m, 2h, 7d) "
					"or a UTC date (2026-11-29T20:00:00Z)\n",
					argv[i]);
				return -1;
			}
		} else if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
			usage(stdout);
			exit(0);
		} else {
			bool valued = strcmp(o, "--command") == 0 || strcmp(o, "--since") == 0 ||
				      strcmp(o, "--config") == 0;

			fprintf(stderr, "sbxsh: log: %s: %s\n", o,
				valued ? "needs a value" : "unknown option");
			usage(stderr);
			return -1;
		}
	}
	return 0;
}

static int load_log_path(const struct log_args *a, char **path, bool *syslog)
{
	struct diag d = {0};
	struct policy *p = NULL;
	struct policy_opts o = {.user_config = a->config ? a->config : getenv("SBXSH_CONFIG")};
	int r;

	if (o.user_config && !*o.user_config)
		o.user_config = NULL;
	r = policy_load(&p, &o, &d);
	for (size_t i = 0; i < d.errors.n; i++)
		fprintf(stderr, "%s\n", d.errors.v[i]);
	if (r == 0) {
		*path = strdup(policy_settings(p)->log);
		*syslog = policy_settings(p)->syslog;
	}
	diag_release(&d);
	policy_free(p);
	return r == 0 && !*path ? -ENOMEM : r;
}

static bool wanted(const struct log_args *a, const struct vlog_entry *e, const char *session)
{
	if (!a->all && (!e->session || strcmp(e->session, session) != 0))
		return false;
	if (a->command && (!e->command || strcmp(e->command, a->command) != 0))
		return false;
	return !a->since[0] || (e->time && strncmp(e->time, a->since, strlen(a->since)) >= 0);
}

static void show(const struct vlog_entry *e)
{
	char target[PATH_MAX + 32];

	if (e->host && e->port > 0)
		snprintf(target, sizeof(target), "%s:%ld", e->host, e->port);
	else if (e->host)
		snprintf(target, sizeof(target), "%s", e->host); /* the connection limit */
	else
		snprintf(target, sizeof(target), "%s", e->path ? e->path : "?");
	/* Every field may hold what a command chose (a path, a host, its command line): each
	 * line is escaped for the terminal (platform/term.h). */
	char call[160] = "";
	if (e->call)
		snprintf(call, sizeof(call), "  (%.64s, pid %ld)", e->call, e->pid);
	sbx_term_printf(stdout, "%.19s  %-7s %s%s\n", e->time ? e->time : "?",
			e->kind ? e->kind : "?", target, call);
	sbx_term_printf(stdout, "    command %s: %.100s\n", e->command ? e->command : "?",
			e->cmdline ? e->cmdline : "");
	if (e->grant)
		sbx_term_printf(stdout, "    %s\n", e->grant);
	else if (e->reason)
		sbx_term_printf(stdout, "    %s\n", e->reason);
}

static int scan(const struct log_args *a, FILE *f, const char *session)
{
	char *line = NULL, *copy = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long shown = 0;

	while ((n = getline(&line, &cap, f)) > 0) {
		struct vlog_entry e;
		char *c = realloc(copy, (size_t)n + 1);

		if (!c)
			break;
		copy = c;
		memcpy(copy, line, (size_t)n + 1);
		if (vlog_parse(copy, (size_t)n, &e) < 0 || !wanted(a, &e, session))
			continue;
		shown++;
		if (a->json) { /* as stored, but no raw control byte reaches the terminal */
			char *j = malloc(6 * (size_t)n + 1);

			if (line[n - 1] == '\n')
				line[n - 1] = '\0';
			if (j) {
				sbx_term_escape_json(j, 6 * (size_t)n + 1, line);
				puts(j);
			}
			free(j);
		} else
			show(&e);
	}
	if (!shown && !a->json)
		printf("no violations recorded%s\n", a->all ? "" : " in this session");
	free(line);
	free(copy);
	return 0;
}

int cmd_log(int argc, char **argv)
{
	struct log_args a = {0};
	char session[SESS_ID_MAX + 1], *err = NULL, *path = NULL;
	bool syslog = false;
	FILE *f;
	int r;

	if (parse_args(argc, argv, &a) < 0)
		return SBX_EXIT_USAGE;
	if (load_log_path(&a, &path, &syslog) < 0) {
		sbx_warn("log: the policy could not be loaded (fix the lines above)");
		return SBX_EXIT_REFUSED;
	}
	if (sess_id(session, &err) < 0) {
		sbx_warn("log: %s", err ? err : "no session id");
		free(err);
		free(path);
		return SBX_EXIT_REFUSED;
	}
	f = fopen(path, "re");
	if (!f) {
		if (!a.json)
			printf("no violations recorded (%s: %s)\n", path, strerror(errno));
		free(path);
		return 0;
	}
	r = scan(&a, f, session);
	fclose(f);
	free(path);
	return r;
}
