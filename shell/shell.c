/* shell — `sbxsh [bash options] [-c CMD | FILE]`: the command, in the sandbox its cwd's
 * profile describes (docs/sbxsh.1.md).
 *
 * Rules kept here:
 * - Fail closed: a policy that does not load, a profile that does not resolve, a sandbox
 *   that cannot be built → the command does not run; exit 125 with the cause and the fix.
 * - bwrap and the stage are run by absolute path; argv arrays only, no shell strings.
 * - Inside a sandbox already (the marker), the inner shell runs directly: no nesting.
 * - With a terminal on 0-2 no sandbox ever gets it: the command gets a pty of ours, relayed
 *   (shell/relay.c); without one, the sandbox gets a session of its own (no TIOCSTI).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "paths.h"
#include "platform/buf.h"
#include "platform/fdpass.h"
#include "platform/fds.h"
#include "platform/host.h"
#include "platform/log.h"
#include "platform/pty.h"
#include "platform/memfile.h"
#include "platform/sandbox.h"
#include "platform/term.h"
#include "shell/agent.h"
#include "shell/cdswitch.h"
#include "shell/commands.h"
#include "shell/judge.h"
#include "shell/net.h"
#include "platform/monitor_src.h"
#include "shell/policy.h"
#include "shell/relay.h"
#include "shell/report.h"
#include "shell/shell.h"
#include "session/vlog.h"

#define STAGE_PATH   SBX_LIBEXECDIR "/sbxsh-stage"
#define MARKER_PATH  SBX_LIBEXECDIR "/sandbox-marker"
#define BASHRC_PATH  SBX_LIBEXECDIR "/sbxsh.bashrc"
#define ZDOTDIR_PATH SBX_LIBEXECDIR "/zsh" /* its .zshenv: shell/sbxsh.zshenv */

extern char **environ;

/* Everything one run holds; released by run_release. */
struct run {
	struct shell_args args;
	struct policy *pol;
	struct profile *prof;
	struct sandbox_spec spec;
	struct strv argv;
	int fds[128]; /* the stage's socket end, the data pipes, the monitor's socket end */
	size_t nfds;
	int sock;
	struct report_run *mon; /* the violation monitor, or NULL (monitor = off) */
	struct net_run *net;	/* network = proxy, or NULL */
	/* An agent's cwd file relayed (agent.h). */
	struct agent_relay agent;
	char *recovery; /* the recovery shell's writable directory (the user's config) */
	bool relay;	/* 0-2 are terminals: the command gets a pty, relayed */
	struct relay pty;
	/* The profile switch on cd (shell/cdswitch.c), or NULL: off for this session. */
	struct cdsw *cd;
	struct strv fwd0;     /* the inner shell's argv as given (plan adds --rcfile) */
	struct profile *base; /* the running sandbox's profile, as resolved (cd_judge) */
	bool relay_up;	      /* the relay is open (kept across a switch) */
	int cd_fds[2];	      /* the channel's inner end and the state for the next sandbox */
	char *switched;	      /* the name of the profile just left (cd_announce), or NULL */
};

static void print_lines(const struct strv *l, const char *prefix)
{
	for (size_t i = 0; i < l->n; i++)
		sbx_term_printf(stderr, "sbxsh: %s%s\n", prefix, l->v[i]); /* may name host files */
}

static _Noreturn void refuse_diag(struct diag *d)
{
	print_lines(&d->errors, "");
	if (!d->errors.n)
		sbx_warn("the policy could not be loaded (out of memory)");
	exit(SBX_EXIT_REFUSED);
}

static _Noreturn void run_nested(const struct shell_args *a, char *inner)
{
	const char *sh = inner ? inner : "/bin/bash";

	if (a->shim && strcmp(a->shim, "zsh") == 0 && access("/bin/zsh", X_OK) == 0)
		sh = "/bin/zsh";

	if (a->dry_run) {
		printf("# already inside an sbxsh sandbox: %s runs directly\n", sh);
		exit(0);
	}
	execv(sh, a->fwd.v);
	sbx_die(errno == ENOENT ? SBX_EXIT_NOTFOUND : SBX_EXIT_NOEXEC,
		"cannot run the inner shell %s: %s", sh, strerror(errno));
}

static bool interactive(const struct shell_args *a);
static bool prompts(const struct shell_args *a);
static bool all_tty(void);

/* The directory of the user's policy file (what a recovery shell may write). Caller frees. */
static char *user_config_dir(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	char *p = NULL;

	if (x && x[0] == '/' ? asprintf(&p, "%s/sbxsh", x) < 0
			     : !h || asprintf(&p, "%s/.config/sbxsh", h) < 0)
		return NULL;
	return p;
}

static void clear_list(struct pol_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].value);
	l->n = 0;
	l->ixn = SIZE_MAX; /* shell/profile.c's index of it */
}

/* A person at a terminal whose own policy file does not load is not locked out: a shell in
 * the system policy's sandbox with no network and nothing writable but the user's sbxsh
 * config directory, labelled as such, with the error and the fix. A command without a
 * terminal is refused instead (125). Returns only when the recovery profile is ready. */
static void recover(struct run *r, struct diag *bad, const char *cwd)
{
	struct diag d = {0};
	struct policy_opts o = {.login = r->args.login, .no_user = true};

	print_lines(&bad->errors, "");
	if (policy_load(&r->pol, &o, &d) < 0 || profile_resolve(r->pol, cwd, &r->prof, &d) < 0)
		refuse_diag(&d); /* the system policy itself: nothing for the user to fix */
	diag_release(&d);
	diag_release(bad);
	profile_forget_absent(r->prof); /* the directory below is made after the resolve */
	char *dir = user_config_dir();
	struct stat st;
	if (!dir)
		sbx_fatal("out of memory");
	mkdir(dir, 0700);
	/* the directory itself, never where a link of that name would lead */
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    !(r->recovery = realpath(dir, NULL)))
		sbx_fatal("no recovery shell: %s is not a directory of yours; fix your policy file "
			  "from another shell",
			  dir);
	free(dir);
	clear_list(&r->prof->write);
	clear_list(&r->prof->listen);
	r->prof->network = NET_NONE;
	fprintf(
	    stderr,
	    "sbxsh: RECOVERY SHELL: your policy did not load (above). This shell has no network "
	    "and only %s is writable:\n"
	    "sbxsh: fix the file there (`sbxsh policy --check FILE` checks it), then exit and "
	    "log in again.\n",
	    r->recovery);
}

/* bash runs in a current directory it cannot search (`su user -c CMD` from root's 0700 home,
 * root in a user's 0700 directory); a sandbox cannot start there: bwrap's chdir runs without
 * the capabilities that got the caller in, root's included. Refused with the cause and the fix
 * rather than bwrap's bare "Can't chdir", never run elsewhere (a relative path would then name
 * another file). */
static void cwd_enterable(const char *cwd)
{
	char why[4096];
	struct stat st;
	int e = host_dir_enterable(cwd, why, sizeof(why));

	if (e != -EACCES)
		return; /* entered, or not known here: bwrap says what it finds */
	if (stat(why, &st) < 0)
		memset(&st, 0, sizeof(st));
	sbx_fatal(
	    "the current directory %s cannot be entered in the sandbox: %s (owner uid %u, "
	    "mode %04o) does not let uid %u search it%s; cd to a directory you can enter "
	    "(your home: cd ~, or su - rather than su) and run the command from there",
	    cwd, why, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), (unsigned)geteuid(),
	    geteuid() == 0 ? " without capabilities, and commands run with none (root's too)" : "");
}

static void load_profile(struct run *r)
{
	struct diag d = {0};
	struct strv extra = {0}, notes = {0};
	const char *cfg = r->args.config ? r->args.config : getenv("SBXSH_CONFIG");
	/* Only a login by argv[0] (sshd, login, su -) ignores --config and SBXSH_CONFIG. */
	struct policy_opts o = {.user_config = cfg && *cfg ? cfg : NULL,
				.login = r->args.login_argv0,
				.preset = agent_preset_env(),
				.quiet_no_project = !interactive(&r->args) && !r->args.dry_run,
				.extra_origin = "the agent's command (sbxsh run, SBXSH_AGENT_TMP)"};
	char *cwd = getcwd(NULL, 0);

	if (!cwd)
		sbx_fatal("cannot read the current directory (%s); cd to a directory that exists",
			  strerror(errno));
	if (agent_extra_writes(&r->args, o.preset, &extra, &notes, &r->agent) < 0)
		sbx_fatal("out of memory");
	o.extra_write = extra.v, o.nextra_write = extra.n;
	print_lines(&notes, "note: ");
	/* Only a policy that does not load: one that does but hides this directory (or is
	 * otherwise refused here) is the user's word, never lifted by a recovery shell. */
	if (policy_load(&r->pol, &o, &d) < 0) {
		if (r->args.dry_run || !all_tty() || !interactive(&r->args))
			refuse_diag(&d);
		recover(r, &d, cwd);
	} else if (profile_resolve(r->pol, cwd, &r->prof, &d) < 0) {
		refuse_diag(&d);
	} else if (!r->args.dry_run) {
		cwd_enterable(cwd);
	}
	print_lines(&d.warnings, "");
	diag_release(&d);
	strv_release(&extra);
	strv_release(&notes);
	free(cwd);
}

/* The inner shell: the zsh shim runs the real zsh when there is one (an agent that picked
 * zsh writes zsh for it: Claude Code's shell snapshot), else inner_shell. */
static const char *inner_for(const struct shell_args *a, const struct settings *set)
{
	if (a->shim && strcmp(a->shim, "zsh") == 0)
		for (const char *const *z = (const char *const[]){"/bin/zsh", "/usr/bin/zsh", NULL};
		     *z; z++)
			if (access(*z, X_OK) == 0)
				return *z;
	return set->inner_shell;
}

static bool all_tty(void)
{
	return isatty(0) && isatty(1) && isatty(2);
}

/* With terminals on 0-2 the relay stands between them and the sandbox, in the foreground or
 * not: from the background (sbxsh -c cmd &) it neither reads the terminal nor sets raw mode
 * until fg (relay.c), so the command never reads what the user types at the shell. Only on
 * our controlling terminal, where the foreground can be known: from a session of its own
 * (setsid sbxsh -c cmd &, su -c) the relay would take the terminal from whoever reads it,
 * raw mode on under the user's shell; there the command holds it as bash would. */
static bool relay_wanted(void)
{
	return all_tty() && tcgetpgrp(0) >= 0;
}

/* bash's rule: no command string, no script, stdin and stderr terminals (or -i). */
static bool interactive(const struct shell_args *a)
{
	return a->interactive ||
	       (!a->cmd && !a->script && !a->stdin_script && isatty(0) && isatty(2));
}

/* An editor taking the user's login environment: VS Code (and its forks: Cursor, Windsurf,
 * VSCodium) runs `$SHELL -i -l -c '<node> -p JSON.stringify(process.env)'` with
 * VSCODE_RESOLVING_ENVIRONMENT=1, JetBrains IDEs `$SHELL -l -i -c '<reader>'` with
 * INTELLIJ_ENVIRONMENT_READER set, and adopt what it prints for themselves, their extensions,
 * tasks and terminals. The command still runs sandboxed, without the variables that describe
 * the sandbox (the proxy's, the caches moved into its /tmp, the policy's env_set, its
 * markers): they are wrong outside it. Nothing is lost to the sandbox: without them a
 * command's network and cache writes fail closed. */
static bool env_resolver(const struct shell_args *a)
{
	const char *v = getenv("VSCODE_RESOLVING_ENVIRONMENT"),
		   *j = getenv("INTELLIJ_ENVIRONMENT_READER");

	return a->cmd && ((v && *v) || (j && *j));
}

/* An interactive shell that will show a prompt: not one given a command or a script (`-ilc
 * CMD`: editors taking the login environment, VS Code, JetBrains), which reads its start-up
 * files and runs the command as bash would, with none of the prompt's machinery (the marker,
 * the late profile in PROMPT_COMMAND, the history, the cd switch): a -c never prompts, so a
 * profile left to the prompt hook was never read, and the hook's variables reached the
 * caller's environment. */
static bool prompts(const struct shell_args *a)
{
	return interactive(a) && !a->cmd && !a->script;
}

/* The directory of a profile's interactive state (its shell history, less's, psql's…) on the
 * host: $XDG_STATE_HOME/sbxsh-shell/<profile>-<hash>, made 0700 if missing. One per profile, so
 * a profile's sandbox never writes what another profile's shell reads. NULL when it cannot
 * be made (then the session runs without it). Caller frees. */
/* The parent of every profile's state directory: $XDG_STATE_HOME/sbxsh-shell, or
 * ~/.local/state/sbxsh-shell. NULL without an absolute base. Caller frees. */
static char *state_base(void)
{
	const char *x = getenv("XDG_STATE_HOME"), *h = getenv("HOME");
	char *p = NULL;

	if (x && x[0] == '/'
		? asprintf(&p, "%s/sbxsh-shell", x) < 0
		: !h || h[0] != '/' || asprintf(&p, "%s/.local/state/sbxsh-shell", h) < 0)
		return NULL;
	return p;
}

/* Makes path and its missing parents (0700); true when path is then a directory of ours. */
static bool private_dirs(char *p)
{
	for (char *s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
		if (s)
			*s = 0;
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			break;
		if (!s)
			break;
		*s = '/';
	}
	struct stat st;
	return lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

static char *state_dir(const char *profile)
{
	char slug[64], *p = NULL, *base = state_base();
	uint32_t hash = 2166136261u;
	size_t n = 0;

	for (const char *c = profile; *c; c++)
		hash = (hash ^ (unsigned char)*c) * 16777619u;
	for (const char *c = profile; *c && n < 40; c++)
		if (*c != '[' && *c != ']')
			slug[n++] = isalnum((unsigned char)*c) || *c == '.' || *c == '-' ? *c : '_';
	slug[n] = 0;
	if (!base || asprintf(&p, "%s/%s-%08x", base, slug, hash) < 0)
		p = NULL;
	free(base);
	if (!p)
		return NULL;
	if (private_dirs(p))
		return p;
	free(p);
	return NULL;
}

/* An interactive shell keeps its history (HISTFILE) and the state files of common tools in
 * its profile's state directory, bound writable: no noise from ~/.lesshst and the like, no
 * host ~/.bash_history. */
static void session_state(struct run *r)
{
	static const char *const vars[][2] = {
	    {"HISTFILE", "bash_history"},	  {"LESSHISTFILE", "lesshst"},
	    {"PSQL_HISTORY", "psql_history"},	  {"MYSQL_HISTFILE", "mysql_history"},
	    {"SQLITE_HISTORY", "sqlite_history"}, {"NODE_REPL_HISTORY", "node_repl_history"},
	    {"PYTHON_HISTORY", "python_history"},
	};
	char *dir = NULL;

	if (r->args.dry_run || !prompts(&r->args) ||
	    !(dir = state_dir(r->spec.profile_name ? r->spec.profile_name : "default")))
		return;
	int e = sbx_mounts_add(&r->spec.mounts, SBX_M_BIND, dir, dir);
	for (size_t i = 0; e == 0 && i < sizeof(vars) / sizeof(*vars); i++)
		e = strv_pushf(&r->spec.env_set, "%s=%s/%s", vars[i][0], dir, vars[i][1]);
	free(dir);
	if (e < 0)
		sbx_fatal("out of memory");
}

/* Tools' own state files in the read-only home, which an interactive session writes without
 * meaning to (less, vim, python, psql…): not reported (the profile's ignore_write, for this
 * run only). Those with a variable for their path go to the state directory instead. */
static void quiet_tools(struct run *r)
{
	static const char *const names[] = {
	    ".viminfo*",      ".python_history", ".lesshst",	       ".psql_history",
	    ".mysql_history", ".sqlite_history", ".node_repl_history", ".wget-hsts",
	    ".bash_history",  ".zsh_history",	 ".zcompdump*",	       ".rediscli_history",
	};
	struct pol_list *l = &r->prof->ignore_write;
	char *home = getenv("HOME") ? realpath(getenv("HOME"), NULL) : NULL;

	if (!home || !interactive(&r->args)) {
		free(home);
		return;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		struct pol_value *v = array_grow(l->v, &l->cap, l->n + 1, sizeof(*v));
		if (!v)
			sbx_fatal("out of memory");
		l->v = v;
		if (asprintf(&v[l->n].value, "%s/%s", home, names[i]) < 0)
			sbx_fatal("out of memory");
		v[l->n].file = "<sbxsh>";
		v[l->n++].line = 0;
	}
	l->ixn = SIZE_MAX; /* shell/profile.c's index no longer covers it */
	free(home);
}

/* [sbxsh] prompt_marker with %p the profile's name (no brackets; no \ $ ` for the prompt to
 * expand) and a space; NULL when it is empty. Caller frees. */
static char *marker_text(const char *fmt, const char *profile)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	if (!f)
		sbx_fatal("out of memory");
	for (const char *c = fmt; *c; c++) {
		if (c[0] != '%' || (c[1] != 'p' && c[1] != '%')) {
			fputc(*c, f);
			continue;
		}
		for (const char *q = *++c == 'p' ? profile : "%"; *q; q++)
			if (*q != '[' && *q != ']')
				fputc(strchr("\\$`", *q) ? '_' : *q, f);
	}
	if (fclose(f) != 0 || !out)
		sbx_fatal("out of memory");
	if (!*out) {
		free(out);
		return NULL;
	}
	char *sp = NULL;
	if (asprintf(&sp, "%s ", out) < 0)
		sbx_fatal("out of memory");
	free(out);
	return sp;
}

/* path's last component is name: the inner shell is bash, or zsh. */
static bool shell_is(const char *path, const char *name)
{
	const char *b = strrchr(path, '/');
	return strcmp(b ? b + 1 : path, name) == 0;
}

/* The inner bash reads sbxsh.bashrc (the user's ~/.bashrc, then the marker) unless the caller
 * chose its start-up files. */
static bool own_rc(const struct shell_args *a)
{
	static const char *const theirs[] = {"--rcfile", "--init-file", "--norc", "--posix"};

	for (size_t i = 1; i < a->fwd.n; i++)
		for (size_t k = 0; k < sizeof(theirs) / sizeof(*theirs); k++)
			if (strcmp(a->fwd.v[i], theirs[k]) == 0)
				return false;
	return access(BASHRC_PATH, R_OK) == 0;
}

/* A login bash reads no rc file: it sources sbxsh.bashrc from its first PROMPT_COMMAND
 * (SBXSH_RC_LATE tells the file), the only code that runs before the first prompt: started with
 * --noprofile, it has no profile file that could assign PROMPT_COMMAND outright before it ran.
 * The file reads /etc/profile and the ~/.profile family itself (SBXSH_RC_PROFILE; not when the
 * caller said --noprofile), as bash would have, and only then adds its own PROMPT_COMMAND
 * element. A PROMPT_COMMAND of the caller's goes in SBXSH_USER_PROMPT_COMMAND, and the file
 * puts it back in its place before the profile files run. */
static bool late_rc(const struct run *r)
{
	return r->args.login && own_rc(&r->args);
}

static int argv_noprofile(struct strv *a);

/* bash loads its history after its start-up files, with what they set (HISTSIZE, HISTFILESIZE,
 * HISTFILE), and truncates the file to HISTFILESIZE (500 when unset) then: with the profile
 * files read late, HISTFILE is empty until they ran (nothing loaded, nothing truncated) and the
 * file loads the history itself; its name is in SBXSH_HISTFILE. */
static int late_history(struct strv *env)
{
	const char *h = getenv("HISTFILE");
	int e = 0;

	for (size_t i = 0; i < env->n; i++)
		if (strncmp(env->v[i], "HISTFILE=", 9) == 0) {
			h = env->v[i] + 9;
			e = strv_pushf(env, "SBXSH_HISTFILE=%s", h);
			strv_remove(env, i);
			return e == 0 ? strv_push(env, "HISTFILE=") : e;
		}
	if (h)
		e = strv_pushf(env, "SBXSH_HISTFILE=%s", h);
	return e == 0 ? strv_push(env, "HISTFILE=") : e;
}

/* The prompt marker's format: the recovery shell's; none for an agent's shell (a preset in
 * force: sbxsh run, SBXSH_PRESET, an agent's variable), whose prompt a program parses, not a
 * person (OpenHands finds each command's end by a block its PS1 starts on a line of its own:
 * a marker before it, or anywhere outside it, is read as the command's output); else
 * [sbxsh] prompt_marker. */
static const char *marker_fmt(const struct run *r, const struct settings *set)
{
	if (r->recovery)
		return "[sbxsh:RECOVERY]";
	return agent_preset_env() ? "" : set->prompt_marker;
}

/* An interactive bash reads sbxsh.bashrc (bound read-only, --rcfile; a login shell: late_rc):
 * the violations before each prompt, the prompt marker (SBXSH_PROMPT_MARKER) and the profile
 * switch on cd. */
static void prompt_marker(struct run *r, const struct settings *set)
{
	char *m = NULL;
	int e = 0;

	/* the shell that runs: the zsh shim's zsh takes none of bash's options (--noprofile) */
	if (r->args.dry_run || !prompts(&r->args) || !shell_is(inner_for(&r->args, set), "bash"))
		return;
	m = marker_text(marker_fmt(r, set), r->spec.profile_name ? r->spec.profile_name : "");
	if (m)
		e = strv_pushf(&r->spec.env_set, "SBXSH_PROMPT_MARKER=%s", m);
	if (e == 0 && late_rc(r)) {
		e = sbx_mounts_add(&r->spec.mounts, SBX_M_RO_BIND, BASHRC_PATH, BASHRC_PATH);
		if (e == 0)
			e = strv_push(&r->spec.env_set, "PROMPT_COMMAND=. " BASHRC_PATH);
		if (e == 0)
			e = strv_push(&r->spec.env_set, "SBXSH_RC_LATE=1");
		if (e == 0 && getenv("PROMPT_COMMAND"))
			e = strv_pushf(&r->spec.env_set, "SBXSH_USER_PROMPT_COMMAND=%s",
				       getenv("PROMPT_COMMAND"));
		if (e == 0 && strv_find(&r->args.fwd, "--noprofile") < 0) {
			e = argv_noprofile(&r->args.fwd);
			if (e == 0)
				e = strv_push(&r->spec.env_set, "SBXSH_RC_PROFILE=1");
			if (e == 0)
				e = late_history(&r->spec.env_set);
		}
	}
	if (e == 0 && !r->args.login && own_rc(&r->args)) {
		struct strv argv = {0};
		e = sbx_mounts_add(&r->spec.mounts, SBX_M_RO_BIND, BASHRC_PATH, BASHRC_PATH);
		if (e == 0)
			e = strv_pushl(&argv, r->args.fwd.v[0], "--rcfile", BASHRC_PATH, NULL);
		for (size_t i = 1; e == 0 && i < r->args.fwd.n; i++)
			e = strv_push(&argv, r->args.fwd.v[i]);
		strv_release(&r->args.fwd);
		r->args.fwd = argv;
	}
	free(m);
	if (e < 0)
		sbx_fatal("out of memory");
}

/* zsh emulates sh when its argv[0] starts with s, b or k ("sbxsh", "-bash"): a zsh inner shell
 * is started as "zsh" ("-zsh" for a login by name) to be zsh and read the zsh files. */
static bool zsh_argv0(struct run *r, const struct settings *set)
{
	const char *sh = r->spec.inner_shell ? r->spec.inner_shell : set->inner_shell;
	const char *b = strrchr(sh, '/');
	char *z;

	if (strcmp(b ? b + 1 : sh, "zsh") != 0 || r->args.fwd.n == 0)
		return false;
	if (!(z = strdup(r->args.fwd.v[0][0] == '-' ? "-zsh" : "zsh")))
		sbx_fatal("out of memory");
	free(r->args.fwd.v[0]);
	r->args.fwd.v[0] = z;
	return true;
}

/* An interactive zsh starts with ZDOTDIR at sbxsh's .zshenv (bound read-only), which puts
 * the caller's ZDOTDIR back (SBXSH_USER_ZDOTDIR; unset: $HOME) and reads the user's .zshenv
 * from there; zsh then reads the rest of the user's files itself. It adds the prompt marker
 * (SBXSH_PROMPT_MARKER) and the violations before each prompt, as sbxsh.bashrc does for bash.
 * -f (no rc files at all) leaves it out, as --norc does for bash. Any zsh: zsh_argv0. */
static void zsh_startup(struct run *r, const struct settings *set)
{
	const char *zd = getenv("ZDOTDIR");
	char *m = NULL;
	int e = 0;

	if (!zsh_argv0(r, set) || r->args.dry_run || !interactive(&r->args) ||
	    access(ZDOTDIR_PATH "/.zshenv", R_OK) != 0)
		return;
	m = marker_text(marker_fmt(r, set), r->spec.profile_name ? r->spec.profile_name : "");
	if (m)
		e = strv_pushf(&r->spec.env_set, "SBXSH_PROMPT_MARKER=%s", m);
	if (e == 0 && zd)
		e = strv_pushf(&r->spec.env_set, "SBXSH_USER_ZDOTDIR=%s", zd);
	if (e == 0)
		e = strv_push(&r->spec.env_set, "ZDOTDIR=" ZDOTDIR_PATH);
	if (e == 0)
		e = sbx_mounts_add(&r->spec.mounts, SBX_M_RO_BIND, ZDOTDIR_PATH, ZDOTDIR_PATH);
	free(m);
	if (e < 0)
		sbx_fatal("out of memory");
}

/* print_lines, through the relay while it holds the terminal in raw mode (a policy note after
 * a switch: a bare \n there draws a staircase). */
static void run_lines(struct run *r, const struct strv *l, const char *prefix)
{
	char line[4096], safe[8192];

	if (!r->relay_up) {
		print_lines(l, prefix);
		return;
	}
	for (size_t i = 0; i < l->n; i++) {
		snprintf(line, sizeof(line), "sbxsh: %s%s", prefix, l->v[i]);
		size_t n = sbx_term_escape(safe, sizeof(safe) - 1, line);
		safe[n] = '\n';
		safe[n + 1] = 0;
		relay_say(&r->pty, safe);
	}
}

/* The pty and raw mode, just before bwrap starts; failing that, the command does not run. */
static void open_relay(struct run *r)
{
	int e;

	if (r->relay && !r->relay_up && (e = relay_open(&r->pty)) < 0)
		sbx_fatal("cannot make a pseudo-terminal for the sandbox: %s", strerror(-e));
	r->relay_up = r->relay;
}

static void cd_plan_fds(struct run *r);

/* What sandbox_plan needs beside the profile (home: the canonical $HOME, caller frees). */
static struct sandbox_ctx plan_ctx(const struct run *r, const struct settings *set,
				   const char *home)
{
	const char *cfg = r->args.config ? r->args.config : getenv("SBXSH_CONFIG");

	return (struct sandbox_ctx){
	    .home = home,
	    .log = set->log,
	    .config_file = !r->args.login_argv0 && cfg && cfg[0] == '/' ? cfg : NULL,
	    .stage = STAGE_PATH,
	    .marker = MARKER_PATH,
	    .inner_shell = inner_for(&r->args, set),
	    .environ = environ,
	    .root = geteuid() == 0,
	    /* Behind the relay the sandbox has a session of its own, led by the stage. */
	    .tty = false,
	};
}

/* The most of a script in the host's /tmp given to the sandbox (tmp_script). */
#define TMP_SCRIPT_MAX (1UL << 20)

/* `sbxsh /tmp/x.sh ARGS` (mktemp, then `$SHELL "$tmp"`: CI runners, IDE tasks, a tempfile):
 * the private /tmp hides the host's, and bash would say "No such file". The script's text,
 * read here as the caller, is a read-only file at its own path in the sandbox, as bash would
 * read it; nothing else of the host's /tmp is shown. Only a regular file of at most
 * TMP_SCRIPT_MAX bytes with no NUL; anything else stays hidden (bash then says so). */
static void tmp_script(struct run *r)
{
	const char *s = r->args.script;
	char *real = s && r->spec.tmp_private ? realpath(s, NULL) : NULL;
	struct stat st;
	int fd = -1;
	char *text = NULL;

	if (!real || strncmp(real, "/tmp/", 5) != 0 || !real[5])
		goto out;
	fd = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (unsigned long long)st.st_size > TMP_SCRIPT_MAX)
		goto out;
	size_t n = (size_t)st.st_size, got = 0;
	if (!(text = malloc(n + 1)))
		sbx_fatal("out of memory");
	while (got < n) {
		ssize_t k = read(fd, text + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			goto out; /* changed under us: left hidden */
		got += (size_t)k;
	}
	text[n] = 0;
	if (memchr(text, 0, n))
		goto out;
	/* what was read is the file at that canonical path now (a directory on the way swapped
	 * for a link to another place would have given another file) */
	char now[4096];
	struct stat pst;
	int pin = sbx_fd_pin(real, now, sizeof(now));
	bool same = pin >= 0 && strcmp(now, real) == 0 && fstat(pin, &pst) == 0 &&
		    pst.st_dev == st.st_dev && pst.st_ino == st.st_ino;
	if (pin >= 0)
		close(pin);
	if (!same)
		goto out;
	if (sbx_mounts_add(&r->spec.mounts, SBX_M_DATA_FILE, text, real) < 0)
		sbx_fatal("out of memory");
out:
	if (fd >= 0)
		close(fd);
	free(text);
	free(real);
}

static void plan(struct run *r, const struct settings *set)
{
	struct strv notices = {0}, errors = {0};
	char *home = getenv("HOME") ? realpath(getenv("HOME"), NULL) : NULL;
	struct sandbox_ctx c = plan_ctx(r, set, home);
	struct sandbox_req req;

	c.make_dirs = !r->args.dry_run;
	/* The log is hidden only if it exists as the sandbox starts (a mount hides it): one the
	 * daemon made later, at the session's first refusal, was readable by every sandbox
	 * running then (an interactive shell's: the other commands' command lines). Made
	 * empty now when missing (0600, its directories 0700), as the first record would. */
	struct stat lst;
	if (c.make_dirs && set->log && set->log[0] == '/' && lstat(set->log, &lst) < 0 &&
	    errno == ENOENT)
		vlog_append(set->log, "", 0); /* best effort: a log never fails anything */
	/* Every profile's interactive history lies below one parent, hidden from every sandbox
	 * (an interactive session binds its own profile's directory on top): made now when
	 * missing, for the same reason as the log. */
	char *sbase = state_base();
	if (sbase && c.make_dirs)
		private_dirs(sbase); /* best effort: a missing one holds nothing to hide */
	c.shell_state = sbase;

	profile_sandbox_req(r->prof, &req);
	int e = sandbox_plan(&req, &c, &r->spec, &notices, &errors);

	free(sbase);
	run_lines(r, &notices, "note: ");
	r->spec.pty = r->relay;
	r->spec.keep_shell = r->cd != NULL; /* its state is carried on: untraceable */
	r->spec.chld_ignored = supervise_caller_ignores_chld();
	r->spec.caller_blocked = supervise_caller_blocked();
	if (e == 0 && r->recovery) {
		e = sbx_mounts_add(&r->spec.mounts, SBX_M_BIND, r->recovery, r->recovery);
		r->spec.recovery = r->recovery;
	}
	if (e == 0) {
		session_state(r);
		prompt_marker(r, set);
		zsh_startup(r, set);
		cd_plan_fds(r);
		tmp_script(r);
	}
	free(home);
	strv_release(&notices);
	if (e < 0) {
		run_lines(r, &errors, "");
		if (!errors.n)
			sbx_warn("cannot build the sandbox: %s", strerror(-e));
		exit(SBX_EXIT_REFUSED);
	}
	strv_release(&errors);
}

static void check_helpers(const struct settings *set)
{
	if (access(set->bwrap, X_OK) < 0)
		sbx_fatal("bwrap (%s) cannot be run: %s; install bubblewrap (apt-get install "
			  "bubblewrap) or set [sbxsh] bwrap to its absolute path",
			  set->bwrap, strerror(errno));
	if (access(STAGE_PATH, X_OK) < 0)
		sbx_fatal("the sandbox stage %s is missing (%s); reinstall sbxsh", STAGE_PATH,
			  strerror(errno));
}

/* A sanitised settings file's text in a memfd, at offset 0, for bwrap to read. */
static int data_memfd(const char *d)
{
	size_t n = strlen(d);
	int fd = memfile_open("sbxsh-settings", false);

	if (fd < 0)
		errno = -fd;
	if (fd < 0 || write(fd, d, n) != (ssize_t)n || lseek(fd, 0, SEEK_SET) != 0)
		sbx_fatal("cannot write a settings file's sanitised copy: %s", strerror(errno));
	return fd;
}

/* One pipe per data file bwrap reads: the marker's text, then empty hidden files and the
 * sanitised settings files (each at most SETTINGS_MAX bytes: within a pipe's buffer). */
static void make_data_fds(struct run *r)
{
	size_t n = sandbox_data_fds(&r->spec);
	char *text = sandbox_marker_text(&r->spec);

	if (!text || n + 2 > sizeof(r->fds) / sizeof(*r->fds))
		sbx_fatal("too many hidden files (%zu); hide their directory instead", n);
	for (size_t i = 0; i < n; i++) {
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0)
			sbx_fatal("cannot make a pipe: %s", strerror(errno));
		if (i == 0 && sandbox_data_marker(&r->spec) &&
		    write(p[1], text, strlen(text)) != (ssize_t)strlen(text))
			sbx_fatal("cannot write the sandbox marker: %s", strerror(errno));
		const char *d = sandbox_data_text(&r->spec, i);
		if (d && *d) { /* a memfd: no pipe buffer to fill before bwrap reads */
			close(p[0]);
			p[0] = data_memfd(d);
		}
		close(p[1]);
		r->fds[r->nfds++] = p[0];
	}
	free(text);
}

/* bwrap refuses more than 9000 arguments in all, its own and the command's (xargs, a glob,
 * `find -exec sh -c … {} +` give more): past this many, the inner shell's arguments after
 * its argv[0] go to the stage in a sealed memory file (--argv-fd), each ended by its NUL. */
#define ARGV_INLINE_MAX 1024

static void make_argv_fd(struct run *r)
{
	const struct strv *a = &r->args.fwd;

	if (a->n <= ARGV_INLINE_MAX)
		return;
	if (r->nfds >= sizeof(r->fds) / sizeof(*r->fds))
		sbx_fatal("too many descriptors for the sandbox");
	int fd = memfile_open("sbxsh-argv", true);
	if (fd < 0)
		sbx_fatal("cannot hand the command's %zu arguments to the sandbox: %s", a->n,
			  strerror(-fd));
	for (size_t i = 1; i < a->n; i++) {
		const char *p = a->v[i];
		size_t left = strlen(p) + 1; /* with its NUL */
		while (left) {
			ssize_t k = write(fd, p, left);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				sbx_fatal(
				    "cannot hand the command's %zu arguments to the sandbox: %s",
				    a->n, k < 0 ? strerror(errno) : "short write");
			p += k;
			left -= (size_t)k;
		}
	}
	int e = memfile_seal(fd);
	if (e < 0)
		sbx_fatal("cannot hand the command's %zu arguments to the sandbox: %s", a->n,
			  strerror(-e));
	r->spec.argv_fd = fd;
	r->fds[r->nfds++] = fd;
}

/* Each write grant's directory, opened now and checked to be the canonical path the plan
 * judged (a link put there since, by another sandbox that can write its parent, leads
 * elsewhere): bwrap binds that descriptor, not the path (--bind-fd). */
static void pin_binds(struct run *r, int *pins)
{
	size_t n = 0;

	for (size_t i = 0; i < r->spec.mounts.n; i++) {
		const struct sbx_mount *m = &r->spec.mounts.v[i];
		char got[4096];

		if (m->op != SBX_M_BIND)
			continue;
		if (r->nfds + 3 > sizeof(r->fds) / sizeof(*r->fds))
			sbx_fatal("too many write grants (%zu); grant their parent instead", n);
		int fd = sbx_fd_pin(m->src, got, sizeof(got));
		if (fd < 0)
			sbx_fatal("cannot open the write grant %s: %s", m->src, strerror(-fd));
		if (strcmp(got, m->src) != 0)
			sbx_fatal(
			    "the write grant %s changed while the sandbox was being built (it now "
			    "leads to %s): not mounted; remove the link, or grant the directory "
			    "it leads to if that is meant",
			    m->src, got);
		pins[n++] = fd;
		r->fds[r->nfds++] = fd;
	}
	r->spec.bind_fds = pins;
}

static void make_socket(struct run *r)
{
	int sv[2], e;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		sbx_fatal("cannot make the stage's socket: %s", strerror(errno));
	if ((e = fdpass_want_peer(sv[0])) < 0)
		sbx_fatal("cannot make the stage's socket: %s", strerror(-e));
	r->sock = sv[0];
	r->spec.stage_fd = sv[1];
	r->fds[r->nfds++] = r->spec.stage_fd;
}

static _Noreturn void dry_run(struct run *r)
{
	for (size_t i = 0; i < r->argv.n; i++)
		sbx_term_printf(stdout, "%s\n", r->argv.v[i]); /* paths a command may have named */
	exit(fflush(stdout) == 0 ? 0 : 1);
}

/* A wait status as the kernel reports it (W_EXITCODE is glibc's, not every C library's). */
static int wait_status(int code, int sig)
{
	return (code & 0xff) << 8 | (sig & 0x7f);
}

/* The wait status to pass on, or -1 when the sandbox was never built. */
static int outcome(const struct run_result *res)
{
	if (res->reported)
		return res->wstatus;
	if (res->refused)
		return wait_status(SBX_EXIT_REFUSED, 0);
	int st = res->bwrap_status;
	if (!res->started && !WIFSIGNALED(st))
		return -1;
	/* The stage itself was killed: bwrap says 128+N; pass on "killed by N". */
	if (WIFEXITED(st) && WEXITSTATUS(st) > 128 && WEXITSTATUS(st) < 128 + 65)
		return wait_status(0, WEXITSTATUS(st) - 128);
	return st;
}

static _Noreturn void finish(struct run *r, const struct run_result *res)
{
	int st = outcome(res);

	if (r->relay_up)
		relay_close(&r->pty); /* kept for a switch that did not come */

	if (st < 0) {
		report_run_free(r->mon);
		sbx_die(SBX_EXIT_REFUSED,
			"the sandbox could not be built (bwrap exited %d; its message is above); "
			"`sbxsh doctor` checks what this machine allows",
			WEXITSTATUS(res->bwrap_status));
	}
	/* The violation report may turn a success into REPORT_EXIT_VIOLATION (on_violation);
	 * not an interactive session's (report_run_live): its status is the shell's. */
	st = report_run_end(r->mon, st);
	/* Not freed: the exit gives it all back in one teardown, where free's munmaps of the
	 * monitor's and the judge's larger blocks (eight for `-c true`) each cost a TLB flush — a
	 * hypervisor exit on a paravirtualized guest — while the caller waits. r is static: a
	 * leak checker still finds it reachable. */
	supervise_exit(st);
}

/* network = proxy: the stage's fronts and the proxy variables (pure; for --dry-run too). */
static void plan_net(struct run *r)
{
	char *err = NULL;

	if (net_plan(&r->net, r->prof, &r->spec, &err) < 0)
		sbx_fatal("network = proxy: %s", err ? err : "out of memory");
	r->spec.host_env = env_resolver(&r->args);
}

/* The session daemon, before anything of the command exists; fail closed. */
static void connect_net(struct run *r, const struct settings *set)
{
	const char *what = r->args.cmd ? r->args.cmd : r->args.script ? r->args.script : "";
	char *err = NULL;

	if (r->net && net_connect(r->net, set, what, report_run_command(r->mon), &err) < 0)
		sbx_fatal("network = proxy: %s", err ? err : "out of memory");
}

/* The stage's part of the monitor (docs/monitor.md); the monitor itself once bwrap runs
 * (mon_spawned); fail closed. */
static void start_monitor(struct run *r, const struct settings *set)
{
	const char *what = r->args.cmd ? r->args.cmd : r->args.script ? r->args.script : "";
	int fd = -1;

	msrc_stage_unsetenv(); /* only ever ours */
	int e = report_run_begin(&r->mon, set, r->prof, &r->spec, what, &fd);
	if (e < 0)
		sbx_fatal("cannot start the violation monitor: %s; [sbxsh] monitor = off runs "
			  "without it (enforcement is the same)",
			  strerror(-e));
	if (fd >= 0)
		r->fds[r->nfds++] = fd;
}

/* A session's violations as they happen: through the relay, or on stderr. */
static void say_relay(void *arg, const char *text)
{
	relay_tell(arg, text);
}

static void say_stderr(void *arg, const char *text)
{
	(void)arg;
	fputs(text, stderr);
	fflush(stderr);
}

/* An interactive shell or a script read from stdin: one command after another, so each
 * violation is shown when it happens, not all at the end. */
static void live_reports(struct run *r)
{
	bool inter = interactive(&r->args);

	if (!inter && (r->args.cmd || r->args.script))
		return;
	if (r->relay)
		report_run_live(r->mon, inter, say_relay, &r->pty);
	else
		report_run_live(r->mon, inter, say_stderr, NULL);
}

/* The violation monitor: made while bwrap starts (nothing of the command runs before it
 * serves); the supervise loop waits for its listener, then its thread serves. */
static void mon_spawned(void *rr)
{
	int e = report_run_start(rr);

	if (e < 0)
		sbx_fatal("cannot start the violation monitor: %s; [sbxsh] monitor = off runs "
			  "without it (enforcement is the same)",
			  strerror(-e));
}

static int mon_fd(void *rr)
{
	return monitor_poll_fd(report_run_monitor(rr));
}

/* What a caller left open on 3 and up that reaches past the sandbox is closed before bwrap
 * starts, each named in a note: a unix socket (an agent's connection, docker.sock's, a
 * listening socket: past the AF_UNIX refusal) unless unix_sockets = all; any other socket (the
 * host's network namespace); a directory or O_PATH descriptor (openat(fd, …) and
 * /proc/self/fd/N/… resolve in the caller's mounts: a deny_read file read, a file made where
 * nothing is granted); a pty master (typed into a terminal outside); a device, a kernel file
 * system's file or a kernel object (/proc/PID/mem writes a host process's memory, a tun
 * device reaches the host's network, a pidfd names a host process). Pipes, files, terminals,
 * /dev/null's kin and eventfd pass, as bash's (an epoll set, a timerfd, a signalfd are
 * changed in place for the caller: not); 0-2 are
 * check_std_sockets', and a later copy of them passes. */
static int drop_inherited_fd(const struct sbx_unix_fd *u, void *arg)
{
	const struct run *r = arg;
	const char *h = getenv("HOME");
	char *home, f[PATH_MAX];

	if (u->unix_sock && r->prof->unix_all)
		return 0;
	if (close(u->fd) < 0 && errno != EINTR)
		sbx_fatal("cannot close descriptor %d, %s: %s", u->fd,
			  u->place || u->pty || u->kernel ? u->name : "a socket", strerror(errno));
	if (u->pty) {
		sbx_term_printf(
		    stderr,
		    "sbxsh: note: descriptor %d (%s) not passed into the sandbox: what a "
		    "command wrote there would be typed into its terminal, outside the "
		    "sandbox\n",
		    u->fd, u->name);
		return 0;
	}
	if (u->kernel) {
		sbx_term_printf(
		    stderr,
		    "sbxsh: note: descriptor %d (%s) not passed into the sandbox: a "
		    "command would act through it on the host (a device, a process, the "
		    "kernel's files); pass it a pipe or a file instead\n",
		    u->fd, u->name);
		return 0;
	}
	if (u->place) {
		/* openat(fd, …) and /proc/self/fd/N/… would resolve in the caller's mounts */
		sbx_term_printf(
		    stderr,
		    "sbxsh: note: descriptor %d (%s) not passed into the sandbox: a "
		    "command would reach every file below it past the sandbox's mounts "
		    "(hidden and read-only ones too); pass it a file or a pipe, or name "
		    "the directory by its path\n",
		    u->fd, u->name);
		return 0;
	}
	if (!u->unix_sock) {
		/* another network's socket (the host's namespace): never passed */
		sbx_term_printf(stderr,
				"sbxsh: note: descriptor %d (%s) not passed into the sandbox: only "
				"unix sockets may be (unix_sockets = all); a command's network is "
				"its profile's network setting\n",
				u->fd, u->name);
		return 0;
	}
	home = h && *h ? realpath(h, NULL) : NULL;
	if (r->prof->grant_file)
		judge_tilde(home, r->prof->grant_file, f, sizeof(f));
	sbx_term_printf(
	    stderr,
	    "sbxsh: note: descriptor %d (a unix socket%s%s) not passed into the sandbox: "
	    "to pass it, %s in %s: unix_sockets = all\n",
	    u->fd,
	    u->listening ? " listening at "
	    : u->name[0] ? " connected to "
			 : "",
	    u->name, r->prof->grant_section ? r->prof->grant_section : "[default]",
	    r->prof->grant_file ? f : "~/.config/sbxsh/sbxsh.ini");
	free(home);
	return 0;
}

static void drop_inherited_fds(struct run *r)
{
	int e = sbx_sockets_inherited(drop_inherited_fd, r);

	if (e < 0)
		sbx_fatal("cannot list the inherited descriptors (/proc/self/fd): %s",
			  strerror(-e));
}

/* A socket on 0-2 reaches past the sandbox unless it is tied to its peer for good (a
 * datagram socket sends to any name or address, even of the host's network namespace; a
 * listening one accepts the host's connections; a TCP one is connected anew after an
 * AF_UNSPEC connect): refused, whatever the profile (docs/sbxsh.1.md "Descriptors"). So is a
 * directory or O_PATH descriptor: openat(fd, …) resolves in the caller's mounts. */
static void check_std_sockets(void)
{
	char what[112];

	for (int fd = 0; fd < 3; fd++) {
		enum sbx_fd_reach k = sbx_sock_peer_only(fd, what, sizeof(what));

		if (k != SBX_FD_INSIDE)
			sbx_fatal("descriptor %d (%s) would let a command reach past the sandbox "
				  "(%s); give sbxsh a pipe, a file or a connected unix stream "
				  "socket as %s instead (e.g. through `| cat`)",
				  fd, what,
				  k == SBX_FD_PLACE
				      ? "it reaches every file below it past the sandbox's mounts"
				  : k == SBX_FD_PTY ? "what a command writes there is typed into "
						      "its terminal, outside the sandbox"
						    : "it can send to any address or socket it "
						      "names, or accept connections",
				  fd == 0   ? "its standard input"
				  : fd == 1 ? "its standard output"
					    : "its standard error");
	}
}

static void mon_ready(void *rr, short revents)
{
	monitor_ready(report_run_monitor(rr), revents);
}

/* ---- the profile switch on cd (shell/cdswitch.c; docs/sbxsh.1.md "Interactive use") ---- */

static void cd_say(void *arg, const char *text)
{
	relay_say(&((struct run *)arg)->pty, text);
}

/* "[dir ~/b] (project ~/b)" for a profile and the spec planned from it. Caller frees. */
static char *cd_name(const struct profile *p, const struct sandbox_spec *spec)
{
	char t[4096], *s = NULL;
	const char *h = getenv("HOME");
	char *home = h ? realpath(h, NULL) : NULL;

	if (p->root)
		judge_tilde(home, p->root, t, sizeof(t));
	if (asprintf(&s, "%s (%s%s)", spec->profile_name ? spec->profile_name : "[default]",
		     p->root ? "project " : "no project", p->root ? t : "") < 0)
		s = NULL;
	free(home);
	return s;
}

/* The sandbox p would give, planned as plan() does but nothing made: 1 and *to its name, or -1
 * and *to why not. */
static int cd_plan_check(struct run *r, const struct profile *p, char **to)
{
	const struct settings *set = policy_settings(r->pol);
	struct strv notices = {0}, errors = {0};
	struct sandbox_spec spec = {0};
	char *home = getenv("HOME") ? realpath(getenv("HOME"), NULL) : NULL;
	struct sandbox_ctx c = plan_ctx(r, set, home);
	struct sandbox_req req;

	profile_sandbox_req(p, &req);
	int e = sandbox_plan(&req, &c, &spec, &notices, &errors);

	*to = e < 0 ? strdup(errors.n ? errors.v[0] : strerror(-e)) : cd_name(p, &spec);
	sandbox_spec_release(&spec);
	strv_release(&notices);
	strv_release(&errors);
	free(home);
	return e < 0 ? -1 : 1;
}

/* cdsw_hooks.judge: the sandbox a shell whose cwd is cwd would get, against the running one. */
static int cd_judge(void *arg, const char *cwd, char **to)
{
	struct run *r = arg;
	struct diag d = {0};
	struct profile *p = NULL;
	int v = 0;

	if (profile_resolve(r->pol, cwd, &p, &d) < 0) {
		*to = strdup(d.errors.n ? d.errors.v[0] : "the profile does not resolve");
		v = -1;
	} else if (!cdsw_profile_same(p, r->base)) {
		v = cd_plan_check(r, p, to);
	}
	profile_free(p);
	diag_release(&d);
	return v;
}

/* An interactive bash behind the relay, with sbxsh's rc file (a login shell's late), or an
 * interactive zsh (sbxsh's .zshenv), not the recovery shell: the shell that can switch. */
static void cd_setup(struct run *r, const struct settings *set)
{
	struct cdsw_hooks h = {cd_judge, cd_say, r};
	const char *sh = inner_for(&r->args, set);
	bool bash = shell_is(sh, "bash") && own_rc(&r->args) && (!r->args.login || late_rc(r));
	bool zsh = shell_is(sh, "zsh") && access(ZDOTDIR_PATH "/.zshenv", R_OK) == 0;

	if (!r->relay || !prompts(&r->args) || r->args.dry_run || r->recovery || !(bash || zsh))
		return;
	for (size_t i = 0; i < r->args.fwd.n; i++)
		if (strv_push(&r->fwd0, r->args.fwd.v[i]) < 0)
			sbx_fatal("out of memory");
	if (cdsw_new(&r->cd, &h) < 0)
		sbx_fatal("out of memory");
}

/* argv[0] --noprofile argv[1…] (bash takes long options first). */
static int argv_noprofile(struct strv *a)
{
	struct strv n = {0};
	int e = strv_pushl(&n, a->v[0], "--noprofile", NULL);

	for (size_t i = 1; e == 0 && i < a->n; i++)
		e = strv_push(&n, a->v[i]);
	if (e < 0) {
		strv_release(&n);
		return e;
	}
	strv_release(a);
	*a = n;
	return 0;
}

/* In plan(): the channel and, after a switch, the state, named in the environment. */
static void cd_plan_fds(struct run *r)
{
	struct diag d = {0};
	int chan, state, e;

	if (!r->cd)
		return;
	if (!r->base && profile_resolve(r->pol, r->prof->cwd, &r->base, &d) < 0)
		sbx_fatal("the profile of %s does not resolve a second time", r->prof->cwd);
	diag_release(&d);
	if ((e = cdsw_prepare(r->cd, &chan, &state)) < 0)
		sbx_fatal("cannot make the profile switch's channel: %s", strerror(-e));
	e = strv_pushf(&r->spec.env_set, "SBXSH_CDSW_FD=%d", chan);
	if (e == 0 && state >= 0)
		e = strv_pushf(&r->spec.env_set, "SBXSH_CDSW_STATE=%d", state);
	/* A login shell after a switch: its profile files ran in the first sandbox; the state
	 * has what they set (sourced by the late rc file at the first prompt). */
	if (e == 0 && state >= 0 && r->args.login && r->args.fwd.n > 0 &&
	    strv_find(&r->args.fwd, "--noprofile") < 0 &&
	    !shell_is(r->spec.inner_shell ? r->spec.inner_shell : "bash", "zsh"))
		e = argv_noprofile(&r->args.fwd);
	if (e < 0)
		sbx_fatal("out of memory");
	r->cd_fds[0] = chan;
	r->cd_fds[1] = state;
}

/* The argv is built: the state gets its tail; the channel and the state go to bwrap. */
static void cd_argv_ready(struct run *r)
{
	int e;

	if (!r->cd)
		return;
	if ((e = cdsw_argv_ready(r->cd, r->argv.v, r->prof)) < 0)
		sbx_fatal("cannot write the shell's state for its new sandbox: %s", strerror(-e));
	for (int i = 0; i < 2; i++)
		if (r->cd_fds[i] >= 0) {
			if (r->nfds >= sizeof(r->fds) / sizeof(*r->fds))
				sbx_fatal("too many descriptors for the sandbox");
			r->fds[r->nfds++] = r->cd_fds[i];
		}
}

/* After a run: when the shell left for a profile switch, the old run's report is done, the cwd
 * is the shell's and the next run's profile is resolved; true. Else false (the session ends). */
static bool cd_switch(struct run *r, const struct run_result *res)
{
	const char *t = r->cd && res->reported ? cdsw_target(r->cd, res->wstatus) : NULL;
	struct diag d = {0};
	struct profile *np = NULL;
	char *to = t ? strdup(t) : NULL, *was = NULL;
	int e = 0;

	if (!to)
		return false;
	if (chdir(to) < 0 || profile_resolve(r->pol, to, &np, &d) < 0 ||
	    (e = relay_renew(&r->pty)) < 0) {
		sbx_term_printf(stderr,
				"sbxsh: cd: cannot start a sandbox for %s (%s); the session "
				"ends\r\n",
				to, d.errors.n ? d.errors.v[0] : strerror(e ? -e : errno));
		free(to);
		return false;
	}
	report_run_end(r->mon, res->wstatus); /* what is left of the old run's report */
	report_run_free(r->mon);
	r->mon = NULL;
	r->net = NULL; /* net_finish freed it */
	supervise_reap();
	was = cd_name(r->base, &r->spec);
	sandbox_spec_release(&r->spec);
	memset(&r->spec, 0, sizeof(r->spec));
	strv_release(&r->argv);
	close(r->sock);
	r->sock = -1;
	r->nfds = 0;
	profile_free(r->prof);
	profile_free(r->base);
	profile_forget_absent(np); /* resolved before the old run's report was waited for */
	r->prof = np;
	r->base = NULL;
	strv_release(&r->args.fwd);
	for (size_t i = 0; i < r->fwd0.n; i++)
		if (strv_push(&r->args.fwd, r->fwd0.v[i]) < 0)
			sbx_fatal("out of memory");
	run_lines(r, &d.warnings, "");
	diag_release(&d);
	r->switched = was;
	cdsw_reset(r->cd);
	free(to);
	return true;
}

/* The switch's one line, once the new sandbox's name is known. */
static void cd_announce(struct run *r)
{
	char *now, *line = NULL;

	if (!r->switched)
		return;
	now = cd_name(r->prof, &r->spec);
	if (now && asprintf(&line, "sbxsh: cd: now in profile %s, was %s; shell state kept", now,
			    r->switched) >= 0) {
		char safe[8192];
		size_t n = sbx_term_escape(safe, sizeof(safe) - 1, line);
		safe[n] = '\n';
		safe[n + 1] = 0;
		relay_say(&r->pty, safe);
	}
	free(line);
	free(now);
	free(r->switched);
	r->switched = NULL;
}

static int run_sandboxed(struct run *r)
{
	const struct settings *set;
	struct run_result res;

	check_std_sockets();
	load_profile(r);
	drop_inherited_fds(r); /* before cd_setup: the switch's own socket is sbxsh's */
	set = policy_settings(r->pol);
	r->relay = relay_wanted();
	if (!r->relay && !r->args.dry_run)
		sbx_tty_keep(); /* a terminal the command holds as it is: put back after it */
	cd_setup(r, set);
	for (;;) {
		quiet_tools(r);
		plan(r, set);
		if (!r->args.dry_run)
			check_helpers(set);
		make_socket(r);
		make_data_fds(r);
		make_argv_fd(r);
		int pins[sizeof(r->fds) / sizeof(*r->fds)];
		if (!r->args.dry_run)
			pin_binds(r, pins);
		plan_net(r);
		if (sandbox_argv(&r->spec, set->bwrap, r->fds + 1, r->args.fwd.v, &r->argv) < 0)
			sbx_fatal("out of memory");
		if (r->args.dry_run)
			dry_run(r);
		cd_argv_ready(r);
		start_monitor(r, set);
		live_reports(r);
		connect_net(r, set);
		struct supervise_net hook;
		if (r->net)
			net_hook(r->net, &hook);
		struct supervise_extra xcd = {NULL, cdsw_poll_fd, cdsw_ready, r->cd, NULL};
		struct supervise_extra xmon = {mon_spawned, mon_fd, mon_ready, r->mon,
					       r->cd ? &xcd : NULL};
		open_relay(r);
		cd_announce(r);
		int e = supervise_run(r->argv.v, r->sock, r->fds, r->nfds, r->spec.new_session,
				      r->net ? &hook : NULL,
				      r->mon  ? &xmon
				      : r->cd ? &xcd
					      : NULL,
				      r->relay ? &r->pty : NULL, &res);
		if (e < 0)
			sbx_fatal("cannot start bwrap: %s", strerror(-e));
		if (r->cd)
			cdsw_started(r->cd);
		net_finish(r->net, report_run_refusals(r->mon));
		agent_after(&r->agent);
		if (!cd_switch(r, &res))
			finish(r, &res);
	}
}

/* A shim's --version or --help: the real shell it is named for answers (bash's own text). */
static _Noreturn void real_shell(const struct shell_args *a)
{
	char path[64];
	bool help = false;

	for (size_t i = 1; i < a->fwd.n; i++)
		if (strcmp(a->fwd.v[i], "--help") == 0 || strcmp(a->fwd.v[i], "--version") == 0) {
			help = a->fwd.v[i][2] == 'h';
			break;
		}
	snprintf(path, sizeof(path), "/bin/%s", a->shim);
	if (access(path, X_OK) < 0)
		snprintf(path, sizeof(path), "/usr/bin/%s", a->shim);
	execv(path, (char *[]){(char *)a->shim, help ? "--help" : "--version", NULL});
	sbx_die(SBX_EXIT_NOTFOUND, "%s: not installed (%s), so it cannot say its version", a->shim,
		strerror(errno));
}

/* --help, --version, a usage error: answered without a sandbox. Returns the status. */
static int answer(struct shell_args *a)
{
	int st = 0;

	if (a->action == SHELL_REAL)
		real_shell(a);
	if (a->action == SHELL_USAGE) {
		fprintf(stderr, "sbxsh: %s\n%s", a->error, shell_usage);
		st = SBX_EXIT_USAGE;
	} else if (a->action == SHELL_HELP) {
		fputs(shell_usage, stdout);
	} else {
		printf("sbxsh %s\n", SBX_VERSION);
	}
	shell_args_release(a);
	return st;
}

/* A caller may start us with 0, 1 or 2 closed: hold those numbers (close-on-exec, so the
 * command still finds them closed) so no pipe or socket of ours takes their place. */
static void hold_stdio(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR | O_CLOEXEC) < 0)
			sbx_fatal("cannot open /dev/null: %s", strerror(errno));
}

/* `sbxsh -c WORD` where WORD (one bare word, nothing after it) names sbxsh itself on the
 * caller's PATH — a shim, as `bash` under sbxsh run: tmux's `$SHELL -c bash` for a pane, a
 * terminal's or an agent's `-c bash` — is sbxsh started by that name, as bash -c runs its one
 * command with exec: an interactive session with the prompt hook, the violations before each
 * prompt and the switch on cd, not a bare inner shell under a -c that reports at its end. No
 * other program runs outside the sandbox: only our own executable (same file). Returns when
 * it does not apply. */
static void exec_self_word(const struct shell_args *a)
{
	const char *w = a->cmd, *path = getenv("PATH");
	char buf[4096];

	/* (sbxsh's own --config and --dry-run are not in fwd: with them it does not apply) */
	if (!a->command || !w || a->login || a->interactive || a->config || a->dry_run ||
	    a->fwd.n != 3 || a->cmd_at != 2 || strcmp(a->fwd.v[1], "-c") != 0 || !w[0] ||
	    w[0] == '-' ||
	    w[strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+-")])
		return;
	if (strchr(w, '/')) {
		if (host_is_self_exe(w))
			execv(w, (char *[]){(char *)w, NULL});
		return;
	}
	/* the first executable of that name on PATH, as the inner shell would find it */
	for (const char *d = path; d && *d;) {
		size_t n = strcspn(d, ":");
		int k = snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, d, n ? "/" : "./", w);
		d += n + (d[n] == ':');
		if (k <= 0 || (size_t)k >= sizeof(buf) || access(buf, X_OK) != 0)
			continue;
		if (host_is_self_exe(buf))
			execv(buf, (char *[]){(char *)w, NULL});
		return;
	}
}

int shell_main(int argc, char **argv)
{
	/* Static: the pty relay's 68 KB of buffers (struct relay) zeroed on the stack cost a
	 * page fault per 4 KB at every start (17 of the front end's ~125); in .bss they are
	 * zero already and touched only when a relay runs. */
	static struct run r;
	char *inner = NULL;

	r.sock = -1;
	r.cd_fds[0] = r.cd_fds[1] = -1;

	hold_stdio();
	if (shell_args_parse(argc, argv, &r.args) < 0)
		sbx_fatal("out of memory");
	if (r.args.action != SHELL_RUN)
		return answer(&r.args);
	if (nested_detect(MARKER_PATH, &inner))
		run_nested(&r.args, inner);
	exec_self_word(&r.args);
	return run_sandboxed(&r);
}
