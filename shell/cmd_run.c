/* cmd_run — `sbxsh run [--preset NAME] [--] AGENT [ARG…]`, and what an agent's commands need
 * (docs/sbxsh.1.md "AI agents"; compat.md 12–15).
 *
 * The agent itself runs unsandboxed (it keeps its API keys and its network); every command it
 * runs through a shell goes through the shims (SBX_LIBEXECDIR/shims/{bash,sh,zsh}, symlinks
 * to sbxsh) and is sandboxed. What sbxsh run sets for the agent:
 * - SHELL, CLAUDE_CODE_SHELL: the bash shim; PATH: the shim directory first (Gemini CLI runs
 *   "bash" from PATH; Codex runs the login shell, which must then be sbxsh: check_codex_shell);
 * - SBXSH_PRESET: the preset its commands run under ([profile NAME], after [default]);
 * - CLAUDE_CODE_TMPDIR, SBXSH_AGENT_TMP and (but for Claude Code) TMPDIR: a fresh 0700 host
 *   directory, writable in every sandbox at the same path: the agent's cwd file (Claude Code), its
 * output files (Gemini CLI) land where the agent reads them, while the rest of /tmp stays private.
 * The environment is the agent's own, not the sandbox's: a command cannot change what the
 * next one gets. A preset never lifts [limits] (profile.c applies them after it).
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "platform/log.h"
#include "session/client/client.h"
#include "shell/agent.h"
#include "shell/commands.h"
#include "shell/net.h"
#include "shell/policy.h"

#define SHIM_DIR SBX_LIBEXECDIR "/shims"

/* Agents by the base name of their command, and how their commands are recognised when only
 * SHELL points at a shim (no sbxsh run). env NULL: the agent sets nothing known. */
static const struct {
	const char *name, *preset, *env, *value;
} agents[] = {
    {"claude", "claude-code", "CLAUDECODE", "1"},
    {"codex", "codex", "CODEX_THREAD_ID", NULL}, /* set for each command (0.171) */
    {"codex", "codex", "CODEX_SANDBOX_NETWORK_DISABLED", NULL},
    {"gemini", "gemini", "GEMINI_CLI", "1"},
    {"aider", "aider", NULL, NULL},
    {"openhands", "openhands", NULL, NULL},
    {"goose", "goose", "GOOSE_TERMINAL", NULL},
};

const char *agent_preset_env(void)
{
	const char *p = getenv(AGENT_PRESET_ENV);

	if (p && *p)
		return strcmp(p, "none") == 0 ? NULL : p;
	for (size_t i = 0; i < sizeof(agents) / sizeof(*agents); i++) {
		const char *v = agents[i].env ? getenv(agents[i].env) : NULL;
		if (v && (agents[i].value ? strcmp(v, agents[i].value) == 0 : true))
			return agents[i].preset;
	}
	return NULL;
}

static const char *preset_for(const char *agent)
{
	const char *base = strrchr(agent, '/');

	base = base ? base + 1 : agent;
	for (size_t i = 0; i < sizeof(agents) / sizeof(*agents); i++)
		if (strcmp(base, agents[i].name) == 0 || strcmp(base, agents[i].preset) == 0)
			return agents[i].preset;
	return NULL;
}

/* A directory of ours that nobody else can write: canonical path, or NULL (why in *why). */
static char *own_dir(const char *path, const char **why)
{
	struct stat st;
	char *real = path[0] == '/' ? realpath(path, NULL) : NULL;

	*why = "not an absolute path to a directory that exists";
	if (!real || lstat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(real);
		return NULL;
	}
	*why = "not owned by you, or writable by others";
	if (st.st_uid != geteuid() || st.st_mode & 022 || strcmp(real, "/") == 0) {
		free(real);
		return NULL;
	}
	return real;
}

/* Where the word after the last "pwd -P >| " of a Claude Code command starts, and its length
 * (quotes included); NULL when there is none. */
static const char *claude_cwd_word(const char *cmd, size_t *len)
{
	static const char key[] = "pwd -P >| ";
	const char *at = NULL;

	for (const char *p = cmd; (p = strstr(p, key)); p++)
		at = p;
	if (!at)
		return NULL;
	at += sizeof(key) - 1;
	char q = *at == '\'' || *at == '"' ? *at : 0;
	*len = q ? strcspn(at + 1, (char[]){q, 0}) + 2 : strcspn(at, " \t\n;&|)");
	return q && at[*len - 1] != q ? NULL : at;
}

/* true when name is "claude-HEX-cwd" (Claude Code's cwd file). */
static bool claude_cwd_name(const char *name)
{
	size_t h = strncmp(name, "claude-", 7) == 0 ? strspn(name + 7, "0123456789abcdef") : 0;

	return h > 0 && h <= 32 && strcmp(name + 7 + h, "-cwd") == 0;
}

static struct agent_relay *relay_pending;

/* A refused command (exit before it ran) leaves no relay directory behind. */
static void relay_atexit(void)
{
	if (relay_pending)
		agent_after(relay_pending);
}

/* A Claude Code command run without `sbxsh run` ends with `pwd -P >| /tmp/claude-HEX-cwd`
 * (the agent's CLAUDE_CODE_TMPDIR, TMPDIR or /tmp), a path in the host's /tmp that the
 * command's private /tmp hides. The command is rewritten to write it into a fresh 0700 relay
 * directory beside it (granted writable), and agent_after copies it to where the agent reads
 * it. The host's /tmp never becomes writable. Returns 0 (or a note) or -ENOMEM. */
static int claude_cwd_relay(struct shell_args *a, struct strv *out, struct strv *notes,
			    struct agent_relay *rl)
{
	const char *tmp = getenv("CLAUDE_CODE_TMPDIR");
	size_t len = 0;
	const char *cmd = a->cmd && a->cmd_at < a->fwd.n ? a->fwd.v[a->cmd_at] : NULL;
	const char *at = cmd ? claude_cwd_word(cmd, &len) : NULL;
	char *word =
	    at ? strndup(at + (*at == '\'' || *at == '"'), len - 2 * (*at == '\'' || *at == '"'))
	       : NULL;
	char *dir = NULL, *want = NULL, *new_cmd = NULL;
	int r = 0;

	if (!tmp || !*tmp)
		tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *slash = word ? strrchr(word, '/') : NULL;
	if (!slash || !claude_cwd_name(slash + 1) || strpbrk(word, "'\"$`\\ "))
		goto out;
	*slash = '\0';
	dir = realpath(word[0] ? word : "/", NULL);
	want = realpath(tmp, NULL);
	*slash = '/';
	if (!dir || !want || strcmp(dir, want) != 0)
		goto out; /* not in the agent's temporary directory: not ours to relay */
	if (asprintf(&rl->dir, "%s/sbxsh-cwd.XXXXXX", dir) < 0) {
		rl->dir = NULL;
		r = -ENOMEM;
		goto out;
	}
	if (!mkdtemp(rl->dir)) {
		r = strv_pushf(notes,
			       "cannot make a directory for Claude Code's cwd file in %s (%s); "
			       "a cd in this command is not seen by the next one",
			       dir, strerror(errno));
		free(rl->dir);
		rl->dir = NULL;
		goto out;
	}
	relay_pending = rl;
	atexit(relay_atexit);
	if (asprintf(&rl->file, "%s/%s", rl->dir, slash + 1) < 0 ||
	    asprintf(&new_cmd, "%.*s%s%s", (int)(at - cmd), cmd, rl->file, at + len) < 0 ||
	    !(rl->host_file = strdup(word)) || strv_push(out, rl->dir) < 0) {
		r = -ENOMEM;
		goto out;
	}
	free(a->fwd.v[a->cmd_at]);
	a->fwd.v[a->cmd_at] = new_cmd;
	new_cmd = NULL;
out:
	free(new_cmd);
	free(word);
	free(dir);
	free(want);
	return r;
}

void agent_after(struct agent_relay *rl)
{
	char buf[4097];
	ssize_t n = -1;
	struct stat st;

	if (!rl->dir)
		return;
	relay_pending = NULL;
	int in = rl->file ? open(rl->file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	if (in >= 0 && fstat(in, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1)
		n = read(in, buf, sizeof(buf) - 1);
	if (in >= 0)
		close(in);
	if (n >= 0 && (size_t)n < sizeof(buf) - 1) {
		/* The agent's own file: ours and plain, or made now; never through a link. */
		int out = open(rl->host_file, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (out >= 0 && fstat(out, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_uid == geteuid() && st.st_nlink == 1 && ftruncate(out, 0) == 0 &&
		    write(out, buf, (size_t)n) != n)
			sbx_warn("cannot write Claude Code's cwd file %s: %s", rl->host_file,
				 strerror(errno));
		if (out >= 0)
			close(out);
	}
	if (rl->file)
		unlink(rl->file);
	if (rmdir(rl->dir) < 0 && errno != ENOENT)
		sbx_warn("the cwd relay directory %s is left (%s): the command put more in it",
			 rl->dir, strerror(errno));
	free(rl->dir);
	free(rl->file);
	free(rl->host_file);
	*rl = (struct agent_relay){0};
}

int agent_extra_writes(struct shell_args *a, const char *preset, struct strv *out,
		       struct strv *notes, struct agent_relay *rl)
{
	const char *tmp = getenv(AGENT_TMP_ENV), *why;

	if (tmp && *tmp) {
		char *d = own_dir(tmp, &why);
		if (d)
			return strv_push_owned(out, d);
		return strv_pushf(notes, "%s=%s is %s; it is not made writable (sbxsh run sets it)",
				  AGENT_TMP_ENV, tmp, why);
	}
	if (preset && strcmp(preset, "claude-code") == 0)
		return claude_cwd_relay(a, out, notes, rl);
	return 0;
}

/* --- sbxsh run --- */

/* The agent found on the caller's PATH (before the shims go first: `sbxsh run -- sh` runs the
 * real sh), or NULL. */
static char *find_agent(const char *name)
{
	const char *path = getenv("PATH");
	char *dup = NULL, *save = NULL, *hit = NULL;

	if (strchr(name, '/'))
		return strdup(name);
	dup = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *d = dup ? strtok_r(dup, ":", &save) : NULL; d && !hit;
	     d = strtok_r(NULL, ":", &save)) {
		struct stat st;
		if (asprintf(&hit, "%s/%s", *d ? d : ".", name) < 0)
			hit = NULL;
		else if (stat(hit, &st) < 0 || !S_ISREG(st.st_mode) || access(hit, X_OK) < 0) {
			free(hit);
			hit = NULL;
		}
	}
	free(dup);
	return hit;
}

static void usage(FILE *f)
{
	fputs("usage: sbxsh run [--preset NAME] [--] AGENT [ARG…]\n"
	      "Runs AGENT (an AI agent CLI) unsandboxed with SHELL, PATH and its own shell\n"
	      "variables pointing at sbxsh's shims, so that every command it runs is sandboxed.\n"
	      "  --preset NAME  the [profile NAME] its commands use (default: from AGENT's name:\n"
	      "                 claude-code, codex, gemini, aider, openhands, goose; none: no\n"
	      "                 preset)\n",
	      f);
}

/* Loads the policy with the preset and resolves the cwd's profile: a bad preset or policy is
 * said now, not at the agent's first command. Starts the session daemon when the profile
 * needs it. Returns 0 or SBX_EXIT_REFUSED. */
static int check_policy(const char *preset)
{
	const char *cfg = getenv("SBXSH_CONFIG");
	struct policy_opts o = {.user_config = cfg && *cfg ? cfg : NULL, .preset = preset};
	struct diag d = {0};
	struct policy *p = NULL;
	struct profile *pr = NULL;
	char *cwd = getcwd(NULL, 0), *err = NULL;
	int rc = cwd ? policy_load(&p, &o, &d) : -errno;

	if (rc == 0)
		rc = profile_resolve(p, cwd, &pr, &d);
	for (size_t i = 0; i < d.errors.n; i++)
		fprintf(stderr, "sbxsh: %s\n", d.errors.v[i]);
	if (rc == 0 && pr->network == NET_PROXY) {
		struct sess_conn *c = NULL;
		struct sess_daemon_opts so = net_daemon_opts(policy_settings(p));

		if (sess_connect(&so, &c, &err) < 0)
			sbx_warn("run: the session daemon did not start (%s); each command tries "
				 "again",
				 err ? err : "?");
		sess_close(c);
	}
	if (rc < 0 && !d.errors.n)
		sbx_warn("run: the policy did not load: %s", strerror(-rc));
	free(err);
	free(cwd);
	diag_release(&d);
	profile_free(pr);
	policy_free(p);
	return rc < 0 ? SBX_EXIT_REFUSED : 0;
}

/* Codex runs its commands with the login shell of the password database (getpwuid's
 * pw_shell, by its path) and ignores SHELL and PATH (Codex 0.171, tests/e2e/0610): unless that
 * shell is sbxsh (a shim, or sbxsh itself: Codex then takes "bash" from PATH, the shim), its
 * commands would run unsandboxed. Refused then (fail closed). Returns 0 or SBX_EXIT_REFUSED. */
static int check_codex_shell(const char *agent)
{
	const char *base = strrchr(agent, '/');
	struct passwd *pw = getpwuid(getuid());
	char *login = pw && pw->pw_shell && pw->pw_shell[0] ? realpath(pw->pw_shell, NULL) : NULL;
	char *ours = realpath(SHIM_DIR "/bash", NULL);
	bool ok = login && ours && strcmp(login, ours) == 0;

	base = base ? base + 1 : agent;
	if (strcmp(base, "codex") != 0)
		ok = true;
	if (!ok)
		fprintf(stderr,
			"sbxsh: run: Codex runs its commands with your login shell (%s, from the "
			"password database) and ignores SHELL and PATH: they would not be "
			"sandboxed. Make sbxsh the login shell of the user that runs Codex "
			"(chsh -s %s/bash, or a user of its own); sbxsh(1) \"AI agents\"\n",
			pw && pw->pw_shell ? pw->pw_shell : "none", SHIM_DIR);
	free(login);
	free(ours);
	return ok ? 0 : SBX_EXIT_REFUSED;
}

/* PATH with the shim directory first (once). Returns 0 or -ENOMEM. */
static int set_path(void)
{
	const char *old = getenv("PATH");
	char *v = NULL;

	if (!old || !*old)
		old = "/usr/local/bin:/usr/bin:/bin";
	if (strncmp(old, SHIM_DIR ":", sizeof(SHIM_DIR)) == 0)
		return 0;
	if (asprintf(&v, "%s:%s", SHIM_DIR, old) < 0)
		return -ENOMEM;
	int r = setenv("PATH", v, 1) < 0 ? -errno : 0;
	free(v);
	return r;
}

/* The agent's temporary directory: fresh, 0700, under $TMPDIR or /tmp. It stays after the
 * agent (sbxsh run is gone by then: exec); the system's tmp cleaning removes it. Claude Code
 * puts its cwd file and task output in CLAUDE_CODE_TMPDIR: its TMPDIR (its own temporary
 * files) stays as it was. Other agents read back files they make in TMPDIR (Gemini CLI). */
static int set_tmp(const char *preset)
{
	const char *base = getenv("TMPDIR");
	char *d = NULL;
	int r = 0;

	if (!base || base[0] != '/')
		base = "/tmp";
	if (asprintf(&d, "%s/sbxsh-run.XXXXXX", base) < 0)
		return -ENOMEM;
	if (!mkdtemp(d))
		sbx_fatal("run: cannot make the agent's temporary directory %s: %s; set TMPDIR to "
			  "a writable directory",
			  d, strerror(errno));
	const char *vars[] = {"CLAUDE_CODE_TMPDIR", AGENT_TMP_ENV, "TMPDIR"};
	size_t n = preset && strcmp(preset, "claude-code") == 0 ? 2 : 3;
	for (size_t i = 0; r == 0 && i < n; i++)
		r = setenv(vars[i], d, 1) < 0 ? -errno : 0;
	free(d);
	return r;
}

static int set_env(const char *preset)
{
	const char *shell = SHIM_DIR "/bash";
	int r = 0;

	if (access(shell, X_OK) < 0)
		sbx_fatal("run: the shim %s is missing (%s); reinstall sbxsh (make install)", shell,
			  strerror(errno));
	if (setenv("SHELL", shell, 1) < 0 || setenv("CLAUDE_CODE_SHELL", shell, 1) < 0 ||
	    setenv(AGENT_PRESET_ENV, preset ? preset : "none", 1) < 0)
		r = -errno;
	if (r == 0)
		r = set_path();
	if (r == 0)
		r = set_tmp(preset);
	return r;
}

int cmd_run(int argc, char **argv)
{
	const char *preset = NULL;
	bool given = false;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--preset") == 0 && i + 1 < argc) {
			preset = argv[++i], given = true;
		} else if (strncmp(argv[i], "--preset=", 9) == 0) {
			preset = argv[i] + 9, given = true;
		} else {
			fprintf(stderr, "sbxsh: run: %s: invalid option\n", argv[i]);
			usage(stderr);
			return SBX_EXIT_USAGE;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "sbxsh: run: name the agent to run\n");
		usage(stderr);
		return SBX_EXIT_USAGE;
	}
	if (given && (!*preset || strcmp(preset, "none") == 0))
		preset = NULL;
	if (!given && (preset = preset_for(argv[i])))
		fprintf(stderr,
			"sbxsh: run: %s with preset %s (from its name; --preset NAME picks "
			"another)\n",
			argv[i], preset);
	else if (!given)
		fprintf(stderr,
			"sbxsh: run: no preset for %s; its commands get the policy's "
			"profiles as they are (--preset NAME picks one)\n",
			argv[i]);
	char *agent = find_agent(argv[i]);
	if (!agent)
		sbx_die(SBX_EXIT_NOTFOUND, "run: %s: not found on PATH", argv[i]);
	int rc = check_codex_shell(agent);
	if (rc == 0)
		rc = check_policy(preset);
	if (rc) {
		free(agent);
		return rc;
	}
	if (set_env(preset) < 0)
		sbx_fatal("run: cannot set the agent's environment: %s", strerror(errno));
	execv(agent, argv + i);
	sbx_die(errno == ENOENT ? SBX_EXIT_NOTFOUND : SBX_EXIT_NOEXEC, "run: cannot run %s: %s",
		agent, strerror(errno));
}
