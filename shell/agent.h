/* agent — AI agent CLIs (compat.md 12–15): `sbxsh run`, presets, and what an agent's
 * commands need to hand their results back (docs/sbxsh.1.md "AI agents"). */
#ifndef SBX_AGENT_H
#define SBX_AGENT_H
#include "platform/strv.h"
#include "shell/shell.h"

/* Set by `sbxsh run` for the agent (and so for every command it runs). */
#define AGENT_PRESET_ENV "SBXSH_PRESET"	 /* the preset; "none": no preset, no detection */
#define AGENT_TMP_ENV	 "SBXSH_AGENT_TMP" /* the agent's TMPDIR, writable in every sandbox */

/* The preset for a command: $SBXSH_PRESET, else the agent recognised from the environment
 * (CLAUDECODE=1 …), else NULL. */
const char *agent_preset_env(void);

/* Write grants a command of an agent needs, into out (absolute paths): $SBXSH_AGENT_TMP when
 * it is a directory of the caller's own; without it, under the claude-code preset, the cwd
 * file named by a Claude Code command (created empty on the host, 0600, if missing).
 * Problems go to notes (the grant is then left out). Returns 0 or -ENOMEM. */
int agent_extra_writes(const struct shell_args *a, const char *preset, struct strv *out,
		       struct strv *notes);

#endif
