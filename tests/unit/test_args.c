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

int main(void)
{
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
