/* cdswitch — the profile switch on `cd` of an interactive bash (docs/sbxsh.1.md, "Interactive
 * use"): the channel the inner shell's prompt hook talks on, the front end's decision from the
 * shell's real cwd (/proc/PID/cwd), and the shell's state carried into the next sandbox.
 */
#ifndef SBX_SHELL_CDSWITCH_H
#define SBX_SHELL_CDSWITCH_H
#include <stdbool.h>
#include <sys/types.h>

#include "platform/strv.h"

struct profile;

/* What the front end decides for a directory. judge returns 0 (the same sandbox as now), 1
 * (another: *to names it, e.g. "[dir ~/b] (project ~/b)") or -1 (refused there: *to says why);
 * *to is the caller's to free. say prints one line of sbxsh's (ending in '\n'). */
struct cdsw_hooks {
	int (*judge)(void *arg, const char *cwd, char **to);
	void (*say)(void *arg, const char *text);
	void *arg;
};

struct cdsw;

/* A switch-capable session: the channel (a stream socket pair; ours has SO_PASSCRED). Returns
 * 0 and *out, or -errno. */
int cdsw_new(struct cdsw **out, const struct cdsw_hooks *h);
void cdsw_free(struct cdsw *c);

/* For the next sandbox: the channel's inner end (to inherit; the shell finds it in
 * SBXSH_CDSW_FD) and, after a switch, the state's memfd number (SBXSH_CDSW_STATE), or -1.
 * Both stay open until cdsw_started. Returns 0 or -errno. */
int cdsw_prepare(struct cdsw *c, int *chan_fd, int *state_fd);
/* The bwrap argv of the next sandbox is built: the state (when there is one) gets its
 * environment's tail (the sandbox's --setenv pairs win over the old shell's, the old sandbox's
 * own variables go, the new profile's env_unset applies) and is sealed. prof is the new
 * profile. Returns 0 or -errno. */
int cdsw_argv_ready(struct cdsw *c, char *const *argv, const struct profile *prof);
/* bwrap runs: our copies of the inner descriptors are closed; a new sandbox's shell is awaited. */
void cdsw_started(struct cdsw *c);

/* For the supervise loop (struct supervise_extra). */
int cdsw_poll_fd(void *c);
void cdsw_ready(void *c, short revents);

/* After the run: the directory to switch to (the shell sent its whole state and exited 0 on
 * our word), or NULL. */
const char *cdsw_target(const struct cdsw *c, int wstatus);
/* The switch is done (or given up): back to waiting for a shell. */
void cdsw_reset(struct cdsw *c);

/* true when a and b give the same sandbox (every key but the cwd). */
bool cdsw_profile_same(const struct profile *a, const struct profile *b);

#endif
