/* policy — the INI policy engine (docs/sbxsh.ini.5): load the layers, resolve a profile.
 *
 * Trusts nothing it reads: every file is checked (owner, mode, type) on its open
 * descriptor before it is parsed, and any error stops the load (fail closed).
 */
#ifndef SBX_POLICY_H
#define SBX_POLICY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "platform/strv.h"
#include "platform/values.h" /* struct pol_value, pol_list, pol_size */

enum net_mode { NET_NONE, NET_PROXY, NET_OPEN };
enum tmp_mode { TMP_PRIVATE, TMP_SHARED };
enum viol_mode { VIOL_FAIL, VIOL_WARN, VIOL_LOG };
/* [sbxsh] monitor: what the violation monitor sees (docs/monitor.md, "Levels"). */
enum mon_mode { MON_OFF, MON_WRITES, MON_ON, MON_FULL };

/* A scalar setting with its origin (file NULL: the built-in default). */
struct pol_origin {
	const char *file;
	unsigned line;
};

/* [sbxsh] */
struct settings {
	char *inner_shell; /* absolute */
	char *bwrap;	   /* absolute */
	char *log;	   /* absolute */
	enum viol_mode on_violation;
	enum mon_mode monitor;
	bool syslog, user_config;
	unsigned idle_exit;
	char *prompt_marker; /* "" = none; %p = the profile's name (sbxsh(1)) */
	struct pol_list root_markers;
	struct pol_origin o_inner_shell, o_bwrap, o_log, o_on_violation, o_monitor, o_syslog,
	    o_user_config, o_idle_exit, o_prompt_marker;
};

/* The profile in force for one cwd. Lists are final: =, +=, -=, use and [limits] applied. */
struct profile {
	char *cwd;	   /* canonical (a real path, unescaped) */
	char *root;	   /* project root, canonical (a real path, unescaped); NULL: no project */
	char *root_origin; /* why: "[dir …] file:line", "marker .git", "cwd …"; no project: why */
	char *no_project; /* no project: the line that would make the cwd one, e.g.
			     "[dir /opt/x] write = ."; NULL otherwise (and for / and ~) */
	struct strv
	    sections; /* matched sections, least specific first: "[dir ~/src/app] file:line" */
	struct pol_list read, deny_read, write, deny_write, unix_sockets, listen, env_unset,
	    env_keep, env_set, allow_domains, deny_domains, ignore_read, ignore_write,
	    ignore_network;
	/* create grants (create +=): write grants too (they are in write), where the guard lets a
	 * command change only the files it made (docs/monitor.md "Create grants") */
	struct pol_list create;
	bool hermetic, git_config;
	bool unix_all; /* unix_sockets = all */
	enum tmp_mode tmp;
	enum net_mode network;
	enum viol_mode on_violation;
	struct pol_size tmp_size, shm_size; /* the private /tmp's and /dev/shm's bound */
	struct pol_origin o_hermetic, o_git_config, o_tmp, o_network, o_on_violation, o_tmp_size,
	    o_shm_size;
	/* The section whose file should hold a new grant (most specific match, else [default]). */
	char *grant_section; /* e.g. "[dir ~/src/app]" */
	char *grant_file;    /* e.g. "~/.config/sbxsh/sbxsh.ini" */
};

struct policy_opts {
	const char *user_config; /* --config / SBXSH_CONFIG, or NULL; ignored when login */
	bool login;		 /* a login shell: no user_config override */
	const char *sysconfdir;	 /* NULL: SBX_SYSCONFDIR (tests pass their own) */
	uid_t sys_owner;	 /* owner system files must have: 0 (tests pass getuid()) */
	const char *home;	 /* NULL: $HOME, else the passwd entry */
	/* An agent preset (SBXSH_PRESET, the agent's environment): [profile NAME] applied right
	 * after [default], before the [dir] sections. NULL: none. */
	const char *preset;
	/* Write grants the front end adds (an agent's exchange directory, its cwd file), as if
	 * from a user file named by extra_origin: [limits] apply to them. */
	char *const *extra_write;
	size_t nextra_write;
	const char *extra_origin;
	bool no_user; /* the system files only (sbxsh's recovery shell) */
	/* no notice for a cwd that is no project (a command, not a person at a prompt: its
	 * refused write's hint names the line instead, and `sbxsh policy` says it) */
	bool quiet_no_project;
};

/* Diagnostics: errors stop the load; warnings (a grant dropped by [limits]) do not.
 * Each line reads "file:line: message" and names the fix. */
struct diag {
	struct strv errors, warnings;
};

struct policy;

/* Loads the embedded default, the system files and the user files.
 * Returns 0 and *out (caller frees with policy_free), or a negative errno / -EINVAL
 * with the reasons in d->errors and *out NULL. */
int policy_load(struct policy **out, const struct policy_opts *o, struct diag *d);

/* Loads the embedded default plus buf (len bytes, named name in messages) as a user file,
 * without any file checks (fuzzing, benchmarks, tests). Returns as policy_load. */
int policy_load_string(struct policy **out, const char *buf, size_t len, const char *name,
		       const struct policy_opts *o, struct diag *d);

/* Validates the named files only (sbxsh policy --check FILE…), each as a user file.
 * Returns 0 when all are valid, -EINVAL with d->errors otherwise. */
int policy_check_files(char *const *files, size_t n, const struct policy_opts *o, struct diag *d);

/* The [sbxsh] settings of a loaded policy; owned by p. */
const struct settings *policy_settings(const struct policy *p);

/* Resolves the profile for cwd (need not be canonical). Returns 0 and *out (caller frees
 * with profile_free), or a negative errno with d->errors filled. */
int profile_resolve(const struct policy *p, const char *cwd, struct profile **out, struct diag *d);

/* The platform's request for the sandbox of p (platform/sandbox.h): views into p, valid while
 * p lives. */
struct sandbox_req;
void profile_sandbox_req(const struct profile *p, struct sandbox_req *out);

/* Prints the profile and the [sbxsh] settings, each value with its origin (sbxsh policy). */
void profile_print(FILE *f, const struct policy *p, const struct profile *pr);

void policy_free(struct policy *p);
void profile_free(struct profile *p);
/* Forgets which deny_read paths the resolver found missing (struct pol_value.absent): for a
 * profile planned later than right after profile_resolve, when something may have made one
 * meanwhile (a cd switch waits for the old run's report). */
void profile_forget_absent(struct profile *p);
void diag_release(struct diag *d);

/* The embedded default (generated from etc/sbxsh.ini at build time). */
extern const char policy_default_ini[];

#endif
