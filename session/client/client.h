/* client — the front end's side of the session daemon (no event loop, no OpenSSL).
 *
 * One struct sess_conn per command: sess_connect (starts the daemon when none answers),
 * sess_begin with the command's listeners, then sess_end (or sess_close) when it finished.
 * The daemon treats a closed connection as the command's end, so a front end killed with
 * -9 takes its command's front with it.
 */
#ifndef SBX_SESS_CLIENT_H
#define SBX_SESS_CLIENT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/proto.h"

struct sess_conn;

/* What the daemon is told about a command. Texts and arrays are the caller's. */
struct sess_command {
	const char *id;	     /* NULL: "<pid>-<monotonic ns>" */
	const char *cmdline; /* truncated to SESS_CMDLINE_MAX bytes */
	const char *cwd;
	const char *profile;	  /* the section a grant would go in: profile->grant_section */
	const char *profile_file; /* profile->grant_file */
	const char *allow[SESS_LIST_MAX];
	const char *deny[SESS_LIST_MAX];
	size_t nallow, ndeny;
	uint16_t reach[SESS_PORTS_MAX];	 /* localhost:PORT entries of allow */
	uint16_t listen[SESS_PORTS_MAX]; /* listen = PORT */
	size_t nreach, nlisten;
};

/* One descriptor handed to the daemon with BEGIN. */
struct sess_fd {
	int fd; /* the caller keeps it open and closes it after sess_begin */
	enum sess_fd_role role;
	uint16_t port; /* SESS_FD_REACH: the port; else 0 */
};

struct sess_status {
	uint64_t v[SC_N]; /* indexed by enum sess_counter */
};

/* How a daemon this front end starts runs (the policy's [sbxsh] settings, from the caller). */
struct sess_daemon_opts {
	unsigned idle_exit; /* seconds without a command before it exits */
	bool syslog;	    /* refusals also to syslog */
	const char *log;    /* the violation log (absolute), or NULL: the default */
};

/* Connects to this session's daemon, starting it (SBX_LIBEXECDIR/sbxsh-sessiond) when none
 * answers; s gives idle_exit, syslog and log (NULL: the defaults). Returns 0 and *out (free
 * with sess_close), or a negative errno with *err (caller frees) saying what failed and the
 * fix. */
int sess_connect(const struct sess_daemon_opts *s, struct sess_conn **out, char **err);

/* Connects to a running daemon only. -ENOENT when none runs (no *err then). */
int sess_connect_existing(struct sess_conn **out, char **err);

/* Sends BEGIN with fds (duplicated into the daemon; the caller still closes its own).
 * A daemon that vanished since sess_connect is started again once. Returns 0, -EPERM with
 * the daemon's refusal in *err (a listen port held, say), or another negative errno. */
int sess_begin(struct sess_conn *c, const struct sess_command *cmd, const struct sess_fd *fds,
	       size_t nfds, char **err);

/* One network refusal of the command, copied out of the daemon's END reply. */
struct sess_net_refusal {
	char host[SESS_REFUSAL_TEXT + 1], reason[SESS_REFUSAL_TEXT + 1],
	    grant[SESS_REFUSAL_TEXT + 1];
	uint16_t port;
};
struct sess_refusals {
	struct sess_net_refusal v[SESS_REFUSALS_MAX];
	size_t n;
	unsigned more; /* distinct refusals the daemon did not list */
	struct sess_net_refusal notes[SESS_NOTES_MAX]; /* upstream failures (grant "") */
	size_t nnotes;
};

/* The command finished. The daemon answers with the command's network refusals, copied into
 * *out when out is not NULL (n = 0 when the call fails). Returns 0 or a negative errno
 * (*err). */
int sess_end(struct sess_conn *c, struct sess_refusals *out, char **err);

/* Asks for the daemon's counters. */
int sess_status(struct sess_conn *c, struct sess_status *st, char **err);

/* Asks the daemon to exit; returns once it said it will. */
int sess_stop(struct sess_conn *c, char **err);

/* The session directory and id this connection uses (owned by c). */
const char *sess_conn_dir(const struct sess_conn *c);
const char *sess_conn_id(const struct sess_conn *c);

/* Closes the connection (an implicit END); accepts NULL. */
void sess_close(struct sess_conn *c);

#endif
