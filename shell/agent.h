/* agent — AI agent CLIs (compat.md 12–15): `sbxsh run`, presets, and what an agent's
 * commands need to hand their results back (docs/sbxsh.1.md "AI agents"). */
#ifndef SBX_AGENT_H
#define SBX_AGENT_H
#include "platform/strv.h"
#include "shell/shell.h"

/* Set by `sbxsh run` for the agent (and so for every command it runs). */
#define AGENT_PRESET_ENV "SBXSH_PRESET"	   /* the preset; "none": no preset, no detection */
#define AGENT_TMP_ENV	 "SBXSH_AGENT_TMP" /* the agent's TMPDIR, writable in every sandbox */

/* The preset for a command: $SBXSH_PRESET, else the agent recognised from the environment
 * (CLAUDECODE=1 …), else NULL. */
const char *agent_preset_env(void);

/* A Claude Code cwd file relayed for a command run without `sbxsh run` (its path lies in the
 * host's /tmp, which the sandbox does not see): the command writes it in dir (a fresh host
 * directory, writable in the sandbox), agent_after copies it to host_file. */
struct agent_relay {
	char *dir, *file, *host_file;
};

/* Write grants a command of an agent needs, into out (absolute paths): $SBXSH_AGENT_TMP when
 * it is a directory of the caller's own; without it, under the claude-code preset, a relay
 * directory for the cwd file the command names (a->fwd's command is rewritten to write it
 * there). Problems go to notes (the grant is then left out). Returns 0 or -ENOMEM. */
int agent_extra_writes(struct shell_args *a, const char *preset, struct strv *out,
		       struct strv *notes, struct agent_relay *rl);
/* After the command: the relayed cwd file to its host path, the relay directory removed. */
void agent_after(struct agent_relay *rl);

#endif
