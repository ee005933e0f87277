/* net — the front end's half of network = proxy (docs/session.md "How a command gets its
 * front"): the stage's arguments and the proxy variables in the spec, the session daemon's
 * connection, and the hand-off of the stage's fronts to it.
 */
#ifndef SBX_SHELL_NET_H
#define SBX_SHELL_NET_H

#include "session/client/client.h"
#include "shell/shell.h"

struct profile;
struct settings;
struct sandbox_spec;
struct net_run;

/* Pure (reads the environment only): when p->network is proxy, tells the stage (spec's net_*
 * fields) which fronts to make and appends the proxy variables to spec->env_set. Returns 0
 * and *out (NULL for other network modes), or a negative errno with *err (caller frees)
 * naming the value and the fix. */
int net_plan(struct net_run **out, const struct profile *p, struct sandbox_spec *spec, char **err);

/* Connects to the session daemon (started when none answers). id: the monitor's command id
 * (NULL: the client makes one). Returns 0 or a negative errno with *err. */
int net_connect(struct net_run *n, const struct settings *set, const char *cmdline, const char *id,
		char **err);

/* The policy's settings for a session daemon this front end starts. */
struct sess_daemon_opts net_daemon_opts(const struct settings *s);

/* The hook supervise_run calls with the stage's fronts (n as the arg). */
void net_hook(struct net_run *n, struct supervise_net *out);

/* After the command: tells the daemon it ended and frees n (NULL is fine). The daemon's
 * network refusals of the command go into *refusals (may be NULL; emptied first). */
struct sess_refusals;
void net_finish(struct net_run *n, struct sess_refusals *refusals);

#endif
