/* test_args — bash's argument contract as sbxsh reads it (compat.md 1–4): a table of argv
 * and what sbxsh must take from it; everything else passed on unchanged. */
#include <string.h>

#include "shell/shell.h"
#include "tap.h"

struct row {
	const char *argv[10];
	enum shell_action action;
	int command, login, stdin_script, dry;
	const char *cmd, *script, *config;
	const char *fwd; /* the inner shell's argv, space-joined */
};

static const struct row rows[] = {
    {{"sbxsh", "-c", "echo hi", "n", "a"},
     SHELL_RUN,
     1,
     0,
     0,
     0,
     "echo hi",
     NULL,
     NULL,
     "sbxsh -c echo hi n a"},
    {{"sbxsh", "-c", "-l", "cmd"}, SHELL_RUN, 1, 1, 0, 0, "cmd", NULL, NULL, "sbxsh -c -l cmd"},
    {{"sbxsh", "-lc", "cmd"}, SHELL_RUN, 1, 1, 0, 0, "cmd", NULL, NULL, "sbxsh -lc cmd"},
    {{"sbxsh", "--login", "-c", "cmd"},
     SHELL_RUN,
     1,
     1,
     0,
     0,
     "cmd",
     NULL,
     NULL,
     "sbxsh --login -c cmd"},
    {{"-sbxsh"}, SHELL_RUN, 0, 1, 0, 0, NULL, NULL, NULL, "-sbxsh"},
    {{"-sbxsh", "-c", "cmd"}, SHELL_RUN, 1, 1, 0, 0, "cmd", NULL, NULL, "-sbxsh -c cmd"},
    {{"sbxsh", "-ec", "cmd"}, SHELL_RUN, 1, 0, 0, 0, "cmd", NULL, NULL, "sbxsh -ec cmd"},
    {{"sbxsh", "-o", "pipefail", "-c", "cmd"},
     SHELL_RUN,
     1,
     0,
     0,
     0,
     "cmd",
     NULL,
     NULL,
     "sbxsh -o pipefail -c cmd"},
    {{"sbxsh", "+o", "posix", "-c", "cmd"},
     SHELL_RUN,
     1,
     0,
     0,
     0,
     "cmd",
     NULL,
     NULL,
     "sbxsh +o posix -c cmd"},
    {{"sbxsh", "-O", "extglob", "-c", "cmd"},
     SHELL_RUN,
     1,
     0,
     0,
     0,
     "cmd",
     NULL,
     NULL,
     "sbxsh -O extglob -c cmd"},
    {{"sbxsh", "-co", "pipefail", "cmd"},
     SHELL_RUN,
     1,
     0,
     0,
     0,
     "cmd",
     NULL,
     NULL,
     "sbxsh -co pipefail cmd"},
    {{"sbxsh", "-c", "--", "-cmd"}, SHELL_RUN, 1, 0, 0, 0, "-cmd", NULL, NULL, "sbxsh -c -- -cmd"},
    {{"sbxsh", "-f", "-c", "cmd"}, SHELL_RUN, 1, 0, 0, 0, "cmd", NULL, NULL, "sbxsh -f -c cmd"},
    {{"sbxsh", "--rcfile", "-c", "-c", "x"},
     SHELL_RUN,
     1,
     0,
     0,
     0,
     "x",
     NULL,
     NULL,
     "sbxsh --rcfile -c -c x"},
    {{"sbxsh", "--norc", "--noprofile", "--posix", "-c", "x"},
     SHELL_RUN,
     1,
     0,
     0,
     0,
     "x",
     NULL,
     NULL,
     "sbxsh --norc --noprofile --posix -c x"},
    {{"sbxsh", "--dry-run", "--config", "/p.ini", "-c", "x"},
     SHELL_RUN,
     1,
     0,
     0,
     1,
     "x",
     NULL,
     "/p.ini",
     "sbxsh -c x"},
    {{"sbxsh", "--config=/p.ini", "-c", "x"},
     SHELL_RUN,
     1,
     0,
     0,
     0,
     "x",
     NULL,
     "/p.ini",
     "sbxsh -c x"},
    {{"sbxsh", "script.sh", "-c", "a"},
     SHELL_RUN,
     0,
     0,
     0,
     0,
     NULL,
     "script.sh",
     NULL,
     "sbxsh script.sh -c a"},
    {{"sbxsh", "-s", "a", "b"}, SHELL_RUN, 0, 0, 1, 0, NULL, NULL, NULL, "sbxsh -s a b"},
    {{"sbxsh", "-c", ""}, SHELL_RUN, 1, 0, 0, 0, "", NULL, NULL, "sbxsh -c "},
    {{"sbxsh", "-c"}, SHELL_USAGE, 1, 0, 0, 0, NULL, NULL, NULL, "sbxsh -c"},
    {{"sbxsh", "--rcfile"}, SHELL_USAGE, 0, 0, 0, 0, NULL, NULL, NULL, "sbxsh"},
    {{"sbxsh", "--nope", "-c", "x"}, SHELL_USAGE, 0, 0, 0, 0, NULL, NULL, NULL, "sbxsh"},
    {{"sbxsh", "--version"}, SHELL_VERSION, 0, 0, 0, 0, NULL, NULL, NULL, "sbxsh"},
    {{"sbxsh", "--help"}, SHELL_HELP, 0, 0, 0, 0, NULL, NULL, NULL, "sbxsh"},
    /* Long options only lead: after a short one, "--login" is an operand (bash agrees). */
    {{"sbxsh", "-e", "--login"}, SHELL_RUN, 0, 0, 0, 0, NULL, NULL, NULL, "sbxsh -e --login"},
};

static void joined(const struct strv *sv, char *buf, size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; i < sv->n; i++) {
		strncat(buf, i ? " " : "", n - strlen(buf) - 1);
		strncat(buf, sv->v[i], n - strlen(buf) - 1);
	}
}

/* The shims (bash, sh, zsh: sbxsh by another name) and which login ignores --config. */
static void shims(void)
{
	static const struct {
		const char *argv0, *want;
	} names[] = {
	    {"/usr/libexec/sbxsh/shims/bash", "bash"},
	    {"bash", "bash"},
	    {"-bash", "bash"},
	    {"sh", "sh"},
	    {"/x/zsh", "zsh"},
	    {"-zsh", "zsh"},
	    {"sbxsh", NULL},
	    {"/usr/bin/sbxsh", NULL},
	    {"bash5", NULL},
	    {"/x/-bash", NULL},
	    {"-", NULL},
	    {"", NULL},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		is_str(shell_shim_name(names[i].argv0), names[i].want, "shim name of '%s'",
		       names[i].argv0);
	is_str(shell_shim_name(NULL), NULL, "no argv[0]: no shim");

	struct shell_args a;
	char buf[256];
	char *v1[] = {"bash", "--version", NULL};
	shell_args_parse(2, v1, &a);
	is_int(a.action, SHELL_REAL, "bash --version: the real bash answers");
	shell_args_release(&a);
	char *v2[] = {"bash", "--dry-run", "-c", "true", NULL};
	shell_args_parse(4, v2, &a);
	is_int(a.action, SHELL_USAGE, "bash --dry-run: sbxsh's option is invalid through a shim");
	shell_args_release(&a);
	char *v3[] = {"bash", "--config", "f", "-c", "true", NULL};
	shell_args_parse(5, v3, &a);
	ok(a.action == SHELL_USAGE && !a.config, "bash --config: invalid, no config taken");
	shell_args_release(&a);
	char *v4[] = {"-bash", "-c", "cmd", NULL};
	shell_args_parse(3, v4, &a);
	ok(a.action == SHELL_RUN && a.login && a.login_argv0 && a.shim, "-bash: a login shim");
	joined(&a.fwd, buf, sizeof(buf));
	is_str(buf, "-bash -c cmd", "-bash: argv[0] passed on");
	shell_args_release(&a);
	char *v5[] = {"sbxsh", "-c", "-l", "cmd", NULL};
	shell_args_parse(4, v5, &a);
	ok(a.login && !a.login_argv0 && !a.shim,
	   "-c -l: a login, not by argv[0] (config honoured)");
	is_int((int)a.cmd_at, 3, "-c -l cmd: the command's index in fwd");
	shell_args_release(&a);
	char *v6[] = {"sbxsh", "--version", NULL};
	shell_args_parse(2, v6, &a);
	is_int(a.action, SHELL_VERSION, "sbxsh --version stays sbxsh's");
	shell_args_release(&a);
}

int main(void)
{
	shims();
	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		const struct row *w = &rows[i];
		struct shell_args a;
		char buf[512], name[256] = "";
		int argc = 0;
		while (w->argv[argc])
			argc++;
		for (int k = 0; k < argc; k++) {
			strncat(name, k ? " " : "", sizeof(name) - strlen(name) - 1);
			strncat(name, w->argv[k], sizeof(name) - strlen(name) - 1);
		}
		is_int(shell_args_parse(argc, (char **)w->argv, &a), 0, "[%s] parses", name);
		is_int(a.action, w->action, "[%s] action", name);
		if (w->action != SHELL_RUN) {
			shell_args_release(&a);
			continue;
		}
		ok(a.command == w->command && a.login == w->login &&
		       a.stdin_script == w->stdin_script && a.dry_run == w->dry,
		   "[%s] flags", name);
		is_str(a.cmd, w->cmd, "[%s] command string", name);
		is_str(a.script, w->script, "[%s] script", name);
		is_str(a.config, w->config, "[%s] --config", name);
		joined(&a.fwd, buf, sizeof(buf));
		is_str(buf, w->fwd, "[%s] passed on", name);
		shell_args_release(&a);
	}
	return tap_done();
}
