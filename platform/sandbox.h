/* sandbox — the OS sandbox backend behind one small interface (Linux: bwrap + sbxsh-stage).
 *
 * The shell calls, in order: sandbox_plan (its request → a spec, reading the file system once),
 * sandbox_argv (spec → the bwrap argv, pure), then runs the argv and sandbox_spec_release.
 * Nothing here prints; notices and errors are handed back as lines for the caller to show.
 */
#ifndef SBX_SANDBOX_H
#define SBX_SANDBOX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/strv.h"
#include "platform/values.h"

/* What a sandbox is asked to be: the resolved profile, as the shell hands it down
 * (shell/sandbox_req.c fills it; the lists are views, not owned). */
struct sandbox_req {
	const char *cwd;  /* canonical */
	const char *root; /* project root, canonical, or NULL */
	const char *name; /* the most specific section, e.g. "[dir ~/src/app]"; NULL: [default] */
	struct pol_list read, deny_read, write, deny_write, env_unset, env_keep, env_set;
	bool hermetic, git_config;
	bool unix_all;	  /* unix_sockets = all */
	bool tmp_private; /* a private /tmp (tmp = private) */
	bool net_open;	  /* network = open: the host's network namespace */
	struct pol_size tmp_size, shm_size;
	/* where a new grant would go, for the error that names it */
	const char *grant_section, *grant_file;
};

enum sbx_mount_op {
	SBX_M_RO_BIND,	 /* src visible read-only at dst */
	SBX_M_BIND,	 /* src writable at dst */
	SBX_M_HIDE_DIR,	 /* an empty tmpfs at dst, remounted read-only */
	SBX_M_HIDE_FILE, /* an empty read-only file at dst */
	SBX_M_SYMLINK,	 /* dst is a symlink whose target is src */
	SBX_M_DATA_FILE, /* a read-only file at dst holding the text src: a settings file
			    with its secrets removed (platform/settings.h) */
};

struct sbx_mount {
	enum sbx_mount_op op;
	char *src;     /* owned; NULL for HIDE_*; the file's text for DATA_FILE */
	char *dst;     /* owned; canonical */
	bool stage_ok; /* the stage may make it (a mask or a read-only self-bind whose path is
			  no link, when spec.stage_mounts); sbx_mounts_add leaves it false */
};

struct sbx_mounts {
	struct sbx_mount *v;
	size_t n, cap;
};

/* Everything the bwrap argv is made of: computed by sandbox_plan, or by hand in tests. */
struct sandbox_spec {
	struct sbx_mounts mounts; /* in mount order; the read-only remounts are derived */
	struct sbx_mounts kernel; /* kernel knobs made read-only or masked (runc's lists),
				     mounted after mounts so no grant re-opens them */
	char *cwd;		  /* canonical, visible in the sandbox */
	char *stage;		  /* absolute path of sbxsh-stage (bound read-only) */
	bool stage_shown;	  /* the mounts show stage read-only as on the host: no bind */
	bool stage_mounts;	  /* the stage makes the masks no later mount overlaps, the
				     marker and /dev's read-only remount itself (root: it holds
				     CAP_SYS_ADMIN over the sandbox's mounts until it drops every
				     capability; a kernel with mount_setattr) */
	char *marker;		  /* the host's marker file, or NULL when it is not installed */
	bool marker_shown;	  /* the mounts show it as on the host (as stage_shown): the
				     stage may bind over it */
	char *inner_shell;	  /* absolute */
	char *profile_name;	  /* informative, e.g. "[dir ~/src/app]" */
	bool tmp_private;	  /* a fresh 0700 tmpfs on /tmp; else the host's /tmp, writable */
	char *tmp_host;		  /* always NULL: the private /tmp has no host directory */
	bool unshare_user;	  /* a user namespace (always, from sandbox_plan) */
	bool root;		  /* run by uid 0: mapped to 0, capabilities dropped by bwrap */
	bool unshare_net;	  /* network none (and proxy until the proxy exists) */
	bool new_session;	  /* no terminal on 0-2 */
	bool pty;		 /* 0-2 are the front end's pty: the stage's controlling terminal */
	bool keep_shell;	 /* the inner shell's state goes on to another sandbox (the
				    cd switch): no command traces it or writes its memory */
	const char *recovery;	 /* the recovery shell's writable config directory (not owned), or
				    NULL: the guard's home rules leave it writable */
	bool chld_ignored;	 /* the caller ignores SIGCHLD: so does the inner shell (the stage
				    and bwrap reap) */
	unsigned caller_blocked; /* of SIGINT, SIGTERM, SIGHUP, SIGQUIT (bits 1u << SIG), those the
				    caller had blocked: bwrap runs with all four blocked (the front
				    end forwards them), the shell with the caller's (--blocked) */
	bool unix_all;		 /* unix_sockets = all: no AF_UNIX filter */
	bool git_discovery;
	bool net_proxy;		/* network = proxy: the stage makes the fronts (--net) */
	bool net_relay;		/* listen = PORT: the stage forks the listen relay */
	uint16_t net_reach[32]; /* localhost:PORT grants: listeners for loopback reach */
	size_t net_nreach;
	int stage_fd; /* the stage's end of the control socket */
	/* > 0: the inner shell's arguments after its argv[0] are in this sealed memory file, each
	 * ended by a NUL (the stage's --argv-fd), not in bwrap's argv: bwrap takes at most 9000
	 * arguments in all. 0: in the argv. */
	int argv_fd;
	/* One O_PATH descriptor per SBX_M_BIND of mounts, in order (--bind-fd: bwrap binds what
	 * was checked, not what a link put at the path since); NULL: by path (--dry-run). */
	const int *bind_fds;
	struct strv env_unset; /* names, globs already expanded against the environment */
	struct strv env_set;   /* NAME=value */
	/* The command only prints the environment for a program outside to adopt (an editor's
	 * login-environment resolver): none of env_set, nor SBXSH_SANDBOX/SBXSH_PROFILE,
	 * GIT_DISCOVERY_ACROSS_FILESYSTEM, nor a TMPDIR/TMP/TEMP the caller did not set. */
	bool host_env;
	/* Bytes of the private /tmp and of /dev/shm; 0: no bound (hand-made specs). */
	unsigned long long tmp_size, shm_size;
};

/* Where the sandbox takes its facts from (the caller's environment, already read). */
struct sandbox_ctx {
	const char *home;	 /* canonical or NULL */
	const char *log;	 /* the violation log ([sbxsh] log), hidden; or NULL */
	const char *shell_state; /* the interactive shells' state directories' parent,
				    hidden (a session binds its own below it); or NULL */
	const char *config_file; /* --config file, or NULL */
	const char *stage;	 /* absolute path of sbxsh-stage */
	const char *marker;	 /* the marker file (bound only if it exists) */
	const char *inner_shell; /* absolute */
	char *const *environ;	 /* for env_unset globs */
	bool root;		 /* running as uid 0 */
	bool tty;		 /* 0, 1 and 2 are all terminals */
	bool make_dirs;		 /* create missing write-grant directories under home or
				    the project (not for --dry-run) */
};

/* What `sbxsh doctor` says of the system-call interfaces: the ones the filter covers, and
 * whether the kernel offers the others (ia32, x32: static texts, or NULL where the question
 * does not arise on this architecture). */
struct sandbox_abis {
	char covered[256];
	const char *ia32, *x32;
};
void sandbox_abis_probe(struct sandbox_abis *out);

/* The system directories `hermetic = yes` reads instead of "/" (NULL-terminated): the one
 * list both the profile (what `sbxsh policy` shows) and the mounts use. */
extern const char *const sandbox_hermetic_roots[];

/* The nested-sandbox marker: an empty root-owned file on the host (installed at
 * SBX_LIBEXECDIR/sandbox-marker); each sandbox binds its content over it read-only. */
#define SBX_MARKER_MAGIC "sbxsh-sandbox "

/* Stage → front end messages on the control socket (SOCK_SEQPACKET). Untrusted: they come
 * from inside the sandbox; the front end checks size, magic and range. */
#define SBX_STAGE_MAGIC 0x53425853u /* "SBXS" */
enum sbx_stage_kind {
	SBX_STAGE_STARTED = 1, /* sent with SCM_CREDENTIALS: the stage's pid, for signals; with
				  --ctty also SCM_RIGHTS: the shell's pty master (or none) */
	SBX_STAGE_EXITED = 2,  /* status = the inner shell's wait status */
	SBX_STAGE_FAILED = 3,  /* status = errno: the stage could not set up or exec */
	SBX_STAGE_NET = 4,     /* struct sbx_stage_net with its listeners (SCM_RIGHTS), sent
				  before STARTED; the stage then waits for SBX_STAGE_GO */
	SBX_STAGE_GO = 5,      /* front end → stage: status 0 = go, else no-go (stage exits) */
	SBX_STAGE_STOPPED = 6, /* --ctty: the shell stopped itself (`suspend`); a SIGCONT to the
				  stage continues it */
};
struct sbx_stage_msg {
	uint32_t magic;
	uint32_t kind;
	int32_t status;
};

/* The network fronts the stage made (network = proxy): one entry per descriptor, in the
 * order of the SCM_RIGHTS array. role is session/proto.h's enum sess_fd_role. */
#define SBX_STAGE_NET_MAX 69 /* session/client/stage_net.h SESS_STAGE_FDS_MAX */
struct sbx_stage_net {
	uint32_t magic;
	uint32_t kind; /* SBX_STAGE_NET */
	uint32_t n;
	struct {
		uint16_t role, port;
	} fd[SBX_STAGE_NET_MAX];
};

/* Resolves p into a spec: globs expanded, paths canonicalized, file write grants widened,
 * mandatory denies found, the cwd checked. Returns 0 and fills *out (release it with
 * sandbox_spec_release), or -EPERM/-ENOENT/... with one line per cause in errors.
 * Lines for the user (widened grants, empty globs) are appended to notices either way. */
int sandbox_plan(const struct sandbox_req *p, const struct sandbox_ctx *c, struct sandbox_spec *out,
		 struct strv *notices, struct strv *errors);
void sandbox_spec_release(struct sandbox_spec *s);

/* Appends a mount; src may be NULL. Returns 0 or -ENOMEM. */
int sbx_mounts_add(struct sbx_mounts *m, enum sbx_mount_op op, const char *src, const char *dst);
void sbx_mounts_release(struct sbx_mounts *m);

/* Number of data descriptors sandbox_argv needs (the marker, then each hidden file bwrap
 * makes). */
size_t sandbox_data_fds(const struct sandbox_spec *s);
/* Whether data descriptor 0 is the marker's (bwrap binds it; else the stage makes it). */
bool sandbox_data_marker(const struct sandbox_spec *s);

/* The text bwrap reads from data descriptor i (the order sandbox_argv uses them): "" for
 * an empty hidden file, the sanitised text of a DATA_FILE; NULL for the marker (index 0 when
 * s->marker) and past the end. */
const char *sandbox_data_text(const struct sandbox_spec *s, size_t i);

/* The bwrap argv (pure: no I/O). bwrap is its absolute path; data_fds holds
 * sandbox_data_fds(s) descriptors, each to be read by bwrap for one empty or marker file;
 * shell_argv is the inner shell's argv (argv[0] as the caller gave it). Appends to out and
 * returns 0, or -ENOMEM. */
int sandbox_argv(const struct sandbox_spec *s, const char *bwrap, const int *data_fds,
		 char *const *shell_argv, struct strv *out);

/* The marker's content for this sandbox (caller frees). */
char *sandbox_marker_text(const struct sandbox_spec *s);
/* The same from its parts (the stage: its inner shell and --profile). */
char *sandbox_marker_format(const char *inner_shell, const char *profile_name);

/* The stage: sets NO_NEW_PRIVS and installs the seccomp filter (AF_UNIX refused unless
 * unix_all), as libseccomp compiled it at build time. 0 or -errno. */
int sandbox_seccomp_install(bool unix_all);
/* The stage, after that filter: the shell filter stacked on it (filters_shell: no ptrace
 * attach of pid 2, no process_vm_writev into it). 0 or -errno. */
int sandbox_seccomp_install_shell(void);
/* Build time (bpfgen): a libseccomp context made ready (a binary-tree layout, ABIs it does
 * not hold refused), and the rules of that filter for the ABIs ctx holds
 * (filters_build makes the whole program). 0 or a negative errno from libseccomp. */
int sandbox_seccomp_prepare(void *ctx);
int sandbox_seccomp_rules(void *ctx, bool unix_all);
/* Drops every capability (effective, permitted, inheritable, ambient, bounding) and sets
 * NO_NEW_PRIVS. 0 or -errno. */
int sandbox_caps_drop(void);
/* The stage, after sandbox_caps_drop and before the guard's filter: the kernel refuses every
 * name the sandbox's own system calls would make, remove, rename or link, and every write open
 * (landlock) — the guard makes those calls for it, from outside — so a name the kernel makes
 * for it with no call the guard sees (a core dump's) is refused too. A kernel without landlock
 * gets no core file instead (RLIMIT_CORE 0, both limits). 0 (landlock), 1 (no landlock), or
 * -errno. */
int sandbox_names_lock(void);

#endif
