/* main — sbxsh's entry: a subcommand named first, else the shell (bash's contract).
 * Started by a shim's name (bash, sh, zsh: a symlink to sbxsh), it is only the shell. */
#include <stddef.h>
#include <string.h>

#include "shell/commands.h"
#include "shell/shell.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} subcommands[] = {
    {"policy", cmd_policy}, {"session", cmd_session}, {"doctor", cmd_doctor},
    {"log", cmd_log},	    {"run", cmd_run},
};

int main(int argc, char **argv)
{
	/* A login shell (argv[0] "-sbxsh") never takes subcommands: it is sshd's or login's;
	 * nor does a shim: `bash log` runs the script ./log. */
	if (argc >= 2 && argv[0] && argv[0][0] != '-' && !shell_shim_name(argv[0])) {
		for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
			if (strcmp(argv[1], subcommands[i].name) == 0)
				return subcommands[i].fn(argc - 1, argv + 1);
	}
	return shell_main(argc, argv);
}
