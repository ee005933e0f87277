/* sessd — the session daemon's insides, shared by its files (daemon, command, conn, front,
 * dial, vlog). Only sbxsh-sessiond and tests link these: they need libuv. */
#ifndef SBX_SESSD_H
#define SBX_SESSD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "proxy/domain.h"
#include "session/proto.h"

/* Refusal records one command may write to the log (command.c vlog_refusal). */
#define CMD_LOG_MAX 256

struct sessd_opts {
	const char *dir;     /* the session directory (checked by the client) */
	const char *session; /* the session id */
	const char *log;     /* violation log path */
	unsigned idle_exit;  /* seconds with no command before exiting; 0: never */
	unsigned conn_max;   /* proxy connections one command may hold at once */
	bool syslog;	     /* refusals also go to journald/syslog */
	int ready_fd;	     /* written "ok\n" or a reason once listening; -1: none */
};

struct cmd;
struct pconn;

struct sessd {
	uv_loop_t *loop;
	uv_poll_t ctl_poll;
	uv_timer_t idle;
	uv_signal_t sigterm, sighup;
	int ctl_fd;
	char *sock;
	const struct sessd_opts *o;
	uint64_t start_ms;
	uint64_t served, live, conns, allowed, refused, bytes_up, bytes_down;
	size_t nctl;	  /* control connections open */
	struct cmd *cmds; /* live and ending commands */
	bool stopping;
};

/* A network refusal kept for the command's END reply (docs/session.md). */
struct cmd_refusal {
	char *host, *reason, *grant; /* owned; bounded by SESS_REFUSAL_TEXT */
	uint16_t port;
};

/* One command's front: its rules, listeners and connections. Freed when it ended and the
 * last handle referring to it closed. */
struct cmd {
	struct sessd *d;
	struct cmd *prev, *next;
	unsigned refs;
	bool ended;
	char *id, *cmdline, *cwd, *profile, *profile_file;
	struct domain_pattern *allow, *deny;
	size_t nallow, ndeny;
	uint16_t reach[SESS_PORTS_MAX], listen[SESS_PORTS_MAX];
	size_t nreach, nlisten;
	struct lsn *lsns;
	struct pconn *conns;
	int relay_fd;					/* the stage's listen relay, or -1 */
	struct cmd_refusal refusals[SESS_REFUSALS_MAX]; /* distinct host:port, first kept */
	size_t nrefusals;
	unsigned refusals_more; /* distinct ones beyond the array */
	size_t nconns;		/* live proxy and reach connections (the conn_max limit) */
	size_t nrefused;	/* refused past the limit, still lingering (conn.c) */
	unsigned ndns;		/* name lookups of its connections running (dial.c) */
	struct pconn *dns_head, *dns_tail; /* its lookups waiting for one of those slots */
	bool limit_noted;		   /* the limit's refusal is in the log once per command */
	unsigned logged;		   /* refusal records written to the log (CMD_LOG_MAX) */
	uint64_t log_keys[CMD_LOG_MAX];	   /* their host:port and reason, to log each once */
	struct cmd_refusal notes[SESS_NOTES_MAX]; /* upstream failures: distinct host:port */
	size_t nnotes;
};

/* A listening socket of a command: one passed by the stage, or a host port for listen. */
struct lsn {
	uv_tcp_t h;
	struct cmd *cmd;
	struct lsn *next;
	int role; /* enum sess_fd_role; SESS_FD_RELAY for a host listen port */
	uint16_t port;
};

/* daemon.c */
int sessd_run(const struct sessd_opts *o);
void sessd_touch(struct sessd *d); /* re-arms the idle timer when nothing is live */
uint64_t sessd_now_ms(void);

/* command.c */
/* Builds a command from a decoded BEGIN and its descriptors (taken: closed on error).
 * Returns 0 and *out, or a negative errno with *why (caller frees) for the ERR reply. */
int cmd_begin(struct sessd *d, const struct sess_msg *m, int *fds, size_t nfds, struct cmd **out,
	      char **why);
/* Closes the command's listeners and connections; it is freed once they closed. */
void cmd_end(struct cmd *c);
void cmd_ref(struct cmd *c);
void cmd_unref(struct cmd *c);

/* conn.c / front.c: a connection accepted on one of the command's listeners. */
void conn_accepted(struct lsn *l);
void conn_close(struct pconn *p);

/* The command's refusals into an END reply (pointing into c: send before cmd_end). */
void cmd_refusals_reply(const struct cmd *c, struct sess_msg *m);

/* command.c: keeps an upstream failure of host:port (no such name, connection refused, timed
 * out) for the END reply, as a note: not a violation, not logged. One per host:port, first
 * reason kept, SESS_NOTES_MAX at most. */
void cmd_note(struct cmd *c, const char *host, unsigned port, const char *reason);

/* command.c: appends one refusal record to the daemon's log (grant: the line offered, or
 * NULL) and keeps it for the command's END reply; never fails. */
void vlog_refusal(struct cmd *c, const char *host, unsigned port, const char *reason,
		  const char *grant);

#endif
