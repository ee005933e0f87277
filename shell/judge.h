/* judge — is one call a violation, and which line of policy would allow it (docs/monitor.md).
 *
 * Pure: the only I/O is the caller's exists() callback (does a path exist on the host).
 * Paths come in as the sandbox sees them and are translated through the mount layout the
 * front end built (struct sandbox_spec); the profile only explains and suggests.
 */
#ifndef SBX_JUDGE_H
#define SBX_JUDGE_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct profile;
struct sandbox_spec;
struct pol_value;
struct mand_ctx;
struct judge_layout;

enum viol_kind { VK_READ, VK_WRITE, VK_EXEC, VK_UNIX, VK_NETWORK };

enum viol_why {
	VW_NONE = 0,
	VW_NO_GRANT,	/* no read (or write) grant covers it */
	VW_DENY_READ,	/* hidden by a deny_read of a user file: a deeper read grant shows it */
	VW_CREDENTIAL,	/* a credential store of the default policy: named, never suggested */
	VW_SYSTEM,	/* hidden by a system file: a user file cannot grant it */
	VW_DENY_WRITE,	/* read-only by a deny_write value */
	VW_MANDATORY,	/* a mandatory write deny (start-up files, git hooks, sbxsh's config…) */
	VW_GIT_CONFIG,	/* .git/config: git_config = yes allows it */
	VW_UNMOUNTED,	/* a write grant covers it but matched nothing when the command started */
	VW_UNIX,	/* socket(AF_UNIX) refused */
	VW_NETWORK,	/* a host the proxy refused */
	VW_DENY_DOMAIN, /* a host deny_domains refuses */
	VW_HOME,	/* the home rule (the guard): a grant naming that dot-entry lifts it */
	VW_CREATE	/* a create grant (the guard): a file this command did not make there */
};

/* Call details that change the verdict. */
enum {
	JF_MKDIR =
	    0x1, /* mkdir: a directory that exists in the sandbox met EEXIST, wrote nothing */
	JF_TIMES = 0x2,	 /* a timestamp change: on a readable path it changes no byte */
	JF_REMOVE = 0x4, /* rmdir, unlink, rename's source: removing a grant root is a hint */
};

struct judge_ctx {
	const struct profile *prof;
	const struct sandbox_spec
	    *spec;		/* the mounts as built; NULL: judged on the profile alone */
	const char *home;	/* canonical, or NULL */
	const char *sysconfdir; /* system policy directory ("/etc/sbxsh"), or NULL */
	const char *log;	/* the violation log ([sbxsh] log), or NULL */
	bool (*exists)(const char *host_path, void *arg);
	void *arg;
	/* the guard's mandatory denies (platform/mandatory.h), or NULL: the judge's own from the
	 * profile (no gitdirs, $XDG paths or policy files) */
	const struct mand_ctx *mand;
	/* the mounts where directories the command renamed took them (judge_moved), or NULL */
	struct judge_layout *moved;
};

struct verdict {
	enum viol_kind kind;
	enum viol_why why;
	const struct pol_value *rule; /* the value that decided (a deny or a grant), or NULL */
	const char *mandatory;	      /* the mandatory entry matched, e.g. ".git/hooks" */
	char path[PATH_MAX];	      /* host path, or host:port for VK_NETWORK */
};

/* Judges a path the sandbox named for kind (VK_READ, VK_WRITE or VK_EXEC) with JF_* flags.
 * Returns 1 with *v filled (a violation), 0 (none, *v->path still holds the host path when
 * known), or -ENAMETOOLONG / -EINVAL (not absolute). */
int judge_path(const struct judge_ctx *c, enum viol_kind kind, const char *sbx_path, unsigned flags,
	       struct verdict *v);

/* A refused socket(AF_UNIX): always a violation unless ignore_write… none apply. */
/* path matches the profile's ignore_write (never reported; enforcement unchanged). */
bool judge_ignored_write(const struct judge_ctx *c, const char *path);
/* A refused write that is noise whatever refused it (a history file, top's ~/.config/procps,
 * a __pycache__): the guard's refusals under the home rule are not reported either. */
bool judge_noise_write(const struct judge_ctx *c, const char *path, unsigned flags);
void judge_unix(struct verdict *v);

/* A host (and port) the proxy refused: 1 with *v filled, 0 when ignore_network silences it.
 * in_deny: deny_domains refused it (the rule is looked up for the explanation). */
int judge_network(const struct judge_ctx *c, const char *host, unsigned port, struct verdict *v);

/* true when sbx_path is exactly the root of a write grant (a mount point: removing or renaming
 * it fails with EBUSY or EROFS; emptying it works). */
bool judge_is_grant_root(const struct judge_ctx *c, const char *sbx_path);

/* The explanation and the grant for v, spelled as the user writes it, e.g.
 * "[dir ~/src/app] in ~/.config/sbxsh/sbxsh.ini: read += ~/.aws/config". Writes into buf
 * (always NUL-terminated) and returns buf. */
char *judge_suggest(const struct judge_ctx *c, const struct verdict *v, char *buf, size_t n);

/* path spelled with ~ when it lies under home; into buf, returns buf. */
char *judge_tilde(const char *home, const char *path, char *buf, size_t n);
/* A real path as a policy line spells it: "~/…" under home, glob characters escaped. */
char *judge_policy_path(const char *home, const char *path, char *buf, size_t n);

/* Glob match of a policy pattern (* ? [..] ** {a,b}, \ escapes) against a whole path.
 * judge_glob_covers: the pattern matches path or one of its ancestors. */
bool judge_glob_match(const char *pat, const char *path);
bool judge_glob_covers(const char *pat, const char *path);

/* For the guard (mand_ctx.deny_glob): the profile's deny_write glob that holds path — the
 * most specific of its write and deny_write rules covering path is a deny_write with a glob
 * (a name made after the start, which no read-only bind covers) — or, with dir_to (a
 * directory renamed to path), any deny_write glob a match of which could lie below path
 * (the directory brings its names there unchecked). NULL when none. */
const struct pol_value *judge_deny_glob(const struct judge_ctx *c, const char *path, bool dir_to);

const char *judge_kind_name(enum viol_kind k);

/* A directory the guard renamed, from → to (real sandbox paths; exchange: RENAME_EXCHANGE,
 * each took the other's name): the mounts below it moved with it, so the judge looks them up
 * at their new names from now on (a write in a new directory under the old name is no
 * violation; what the mount hides or makes read-only is still found where it went). 1 when
 * mounts moved, 0 when none lay below, -ENOMEM (then the layout stays as it was). */
int judge_moved(struct judge_ctx *c, const char *from, const char *to, bool exchange);
/* Frees what judge_moved kept. */
void judge_release(struct judge_ctx *c);

#endif
