/* shell — the parts of the sandboxed shell (docs/sbxsh.1.md): arguments, nesting, running. */
#ifndef SBX_SHELL_H
#define SBX_SHELL_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "platform/strv.h"

/* SHELL_REAL: a shim's --version or --help, answered by the real shell it is named for. */
enum shell_action { SHELL_RUN, SHELL_VERSION, SHELL_HELP, SHELL_USAGE, SHELL_REAL };

/* What sbxsh reads of bash's argument contract; everything else goes to the inner shell. */
struct shell_args {
	enum shell_action action;
	bool login;	    /* argv[0] "-…", -l or --login */
	bool login_argv0;   /* argv[0] "-…" (sshd, login, su -): no --config, no SBXSH_CONFIG */
	const char *shim;   /* "bash", "sh" or "zsh": started by that name (a shim), or NULL */
	bool command;	    /* -c */
	bool stdin_script;  /* -s */
	bool interactive;   /* -i */
	bool dry_run;	    /* --dry-run (sbxsh's own) */
	const char *config; /* --config FILE (sbxsh's own), or NULL */
	const char *cmd;    /* the -c command string */
	size_t cmd_at;	    /* its index in fwd */
	const char *script; /* FILE: no -c, no -s */
	struct strv fwd;    /* the inner shell's argv: argv[0], then the caller's arguments
			       without sbxsh's own options, unchanged and in order */
	char *error;	    /* SHELL_USAGE: the message (owned) */
};

/* Parses argv as bash would. Returns 0 (see a->action), or -ENOMEM. */
int shell_args_parse(int argc, char **argv, struct shell_args *a);
void shell_args_release(struct shell_args *a);
/* The shell a shim is named for: "bash", "sh" or "zsh" when argv0's base name (a leading '-'
 * of a login dropped) is one of them, else NULL. */
const char *shell_shim_name(const char *argv0);
/* Text of `sbxsh --help`. */
extern const char shell_usage[];

/* true inside an sbxsh sandbox: marker is a mount point of its own whose content starts
 * with SBX_MARKER_MAGIC. *inner_shell (caller frees) is the shell the outer sbxsh named. */
bool nested_detect(const char *marker, char **inner_shell);

/* How the command ended, for the front end to pass on. */
struct run_result {
	bool started;	  /* the stage said it runs */
	bool reported;	  /* the stage reported the shell's end: wstatus is the command's */
	bool refused;	  /* the stage could not set up (it said why on stderr) */
	int wstatus;	  /* the inner shell's wait status */
	int bwrap_status; /* bwrap's own wait status */
};

/* The stage's network fronts (SBX_STAGE_NET), before the command starts: fds[i] has role
 * roles[i] and port ports[i]. Returns 0 to let the command run, or a negative errno (having
 * said why on stderr) to refuse it. The callee closes nothing; the caller closes fds. */
struct supervise_net {
	int (*fronts)(void *arg, const int *fds, const uint16_t *roles, const uint16_t *ports,
		      size_t n);
	void *arg;
};

/* Another descriptor the loop waits on: the violation monitor's boot socket, until its
 * listener arrives (then the monitor's own thread serves it). spawned() (may be NULL) runs
 * once bwrap has been spawned, before the first wait: work the sandbox does not need before
 * it starts, done while bwrap starts on another CPU. fd() is asked before each wait (-1: none
 * now); ready() gets poll's revents. */
struct supervise_extra {
	void (*spawned)(void *arg);
	int (*fd)(void *arg);
	void (*ready)(void *arg, short revents);
	void *arg;
	const struct supervise_extra *next; /* another one, or NULL (up to 4 in all) */
};

struct relay;
/* Runs argv (bwrap, by absolute path) and supervises it: signals forwarded to the stage,
 * the stage's report read from sock. keep_fds are made inheritable for bwrap only.
 * net (NULL: network is not proxy; a NET message is then refused) takes the fronts; extra
 * (may be NULL) is served in the same loop; relay (NULL: none; else opened) gives bwrap its
 * slave as 0-2, is served in the loop and closed (the terminal restored) before return.
 * Fills *res. Returns 0, or a negative errno when
 * it could not start bwrap. */
int supervise_run(char *const *argv, int sock, const int *keep_fds, size_t nkeep, bool new_session,
		  const struct supervise_net *net, const struct supervise_extra *extra,
		  struct relay *relay, struct run_result *res);
/* A profile switch (shell/cdswitch.c): true leaves the relay open (the terminal raw, the pty
 * kept) when supervise_run returns, for the next sandbox; the caller closes it otherwise. */
void supervise_keep_relay(bool keep);
/* Reaps the bwrap of the run that reported (as supervise_exit does), before the next run. */
void supervise_reap(void);
/* The caller left SIGCHLD ignored (asked before any run changes it; the answer is kept): the
 * command starts with it ignored too, as under bash, while sbxsh, bwrap and the stage reap. */
bool supervise_caller_ignores_chld(void);
/* The forwarded signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT) the caller had blocked, as bits
 * 1u << SIG (asked before any run blocks them; kept): bwrap runs with all four blocked, and the
 * stage unblocks for the shell those not named here. */
unsigned supervise_caller_blocked(void);
/* Exits with wstatus: the same code, or dies of the same signal. */
_Noreturn void supervise_exit(int wstatus);

#endif
