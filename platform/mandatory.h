/* mandatory — the mandatory write denies of policy.md, by name: the one list, and the pure
 * checker the guard (platform/linux/guard.c) and the judge (shell/judge.c) ask.
 *
 * Pure string work: the caller hands in the real final path (absolute, normalized, the parent
 * resolved and the last component the name that would change), never a spelling the command
 * chose. The mounts (platform/linux/mounts.c) probe the same names to bind existing ones
 * read-only as a second layer.
 */
#ifndef SBX_MANDATORY_H
#define SBX_MANDATORY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the call does to the final name. */
enum mand_op {
	MAND_WRITE,  /* create, write, truncate, chmod/chown, mknod, link or symlink to it */
	MAND_MKDIR,  /* mkdir */
	MAND_REMOVE, /* unlink, rmdir, rename away: also refused for a holder of a protected path */
	MAND_DIR_TO, /* a directory renamed to this name: as MAND_REMOVE, and never into a git
		      * directory's modules/ or worktrees/ (it would bring its own config,
		      * hooks or commondir there, which were never checked as such) */
	MAND_LINK,   /* a symbolic link made, linked or renamed to this name: as MAND_WRITE, and
		      * never inside a git directory (git makes none there; `modules` or
		      * `worktrees` made a link would bring configs no check saw) */
};

/* How a refusal can be lifted. */
enum mand_lift {
	MAND_NEVER = 1,	     /* no grant lifts it */
	MAND_GIT_CONFIG = 2, /* git_config = yes lifts it (.git/config, a new repository) */
	MAND_HOME_GRANT = 3, /* the home rule: a grant naming that dot-entry lifts it */
	MAND_DENY_WRITE = 4, /* the policy's deny_write, deny_read (mand_ctx.holds): it lifts it */
	MAND_CREATE = 5,     /* a create grant (mand_ctx.creates): only the command that made a
			      * file there changes it; the rule is the grant's directory */
};

struct mand_ctx {
	const char *home; /* canonical, or NULL */
	/* the password database's home when HOME names another directory (canonical), or NULL:
	 * the home rule holds there too */
	const char *pw_home;
	const char *const *grants; /* write grant roots as the sandbox sees them (plain paths) */
	size_t ngrants;
	const char *const *gitdirs; /* git directories found at start outside a `.git` name */
	size_t ngitdirs;	    /* (a .git file's gitdir:, a commondir) */
	bool git_config;
	/* the recovery shell's one writable directory (the user's sbxsh config directory), which
	 * the home rules then leave alone; NULL otherwise */
	const char *recovery;
	/* the home rule's fixed paths where the environment moves them off ~/.config,
	 * ~/.local/share and ~/.local/state ($XDG_CONFIG_HOME/{sbxsh,git,…},
	 * $XDG_DATA_HOME/{bash-completion,…}, $XDG_STATE_HOME/sbxsh) and the violation log
	 * ([sbxsh] log): protected as they are, wherever they lie */
	const char *const *fixed;
	size_t nfixed;
	/* sbxsh's policy as this command was started with: the user file --config or
	 * SBXSH_CONFIG named and the system policy directory, canonical; never written, made,
	 * or moved by renaming a directory that holds them */
	const char *const *policy;
	size_t npolicy;
	/* the hooks directories git's configuration names (core.hooksPath) and the files it
	 * includes (include.path), found at start: git runs what is there as it would
	 * .git/hooks, reads them as it would .git/config; never written, made, or moved by
	 * renaming a directory that holds them */
	const char *const *hooks;
	size_t nhooks;
	/* the relative core.hooksPath values of git's global and system configs ("a/b", no "."
	 * nor ".." component): a directory of every repository's worktree, a nested one's too,
	 * so protected by name at any depth in the home directory or a write grant, as
	 * .git/hooks is */
	const char *const *hooknames;
	size_t nhooknames;
	/* for the guard: the hooks directories and included files the configs of the repository
	 * whose worktree is wt name (core.hooksPath, include.path; a relative one against wt),
	 * absolute, where a command could write them, as a malloc'd list of strings each ended
	 * by a NUL, the list by an empty one; NULL when none. Asked once for each repository
	 * the guard meets below a write grant or the home directory that was not read at start
	 * (a nested one, a submodule's checkout). NULL: none is read. */
	char *(*nested_hooks)(void *arg, const char *wt);
	void *nested_arg;
	/* the absolute directories of the user's $PATH that lie in the home directory or a write
	 * grant: a file in one runs as the host's next command of its name; nothing made,
	 * written or renamed directly in them, no directory holding one removed or replaced */
	const char *const *bins;
	size_t nbins;
	/* what the links among those programs and hooks lead to (~/.local/bin's, $PATH's in
	 * the home directory or a write grant, the hooks directories'), found at start: the
	 * file, and the tool environment it belongs to (a virtualenv, an npm package) outside
	 * the project; never written, made, or moved by renaming a directory that holds them */
	const char *const *links;
	size_t nlinks;
	/* what the user's shell start-up files source (`. FILE`, `source FILE`: ~/.cargo/env,
	 * nvm.sh) and what the caller's environment names as code (BASH_ENV, PYTHONSTARTUP,
	 * EDITOR's program, LD_PRELOAD's libraries …), in the home directory or a write grant:
	 * held as links are */
	const char *const *sourced;
	size_t nsourced;
	/* the sandbox's own file systems no host program reads (the private /tmp, /dev/shm):
	 * nothing made there outlives the command or reaches the host (a rename or a link out
	 * is EXDEV, a copy makes names that are judged), so no rule holds there, except below
	 * a write grant bound into one (a host directory) */
	const char *const *scratch;
	size_t nscratch;
	/* what the policy's deny_read and deny_write make hidden or read-only where a command
	 * could write: the paths the mounts hide or bind read-only inside a write grant (globs
	 * and variables as expanded at start), canonical, where no later grant lifts it, and
	 * the deny_write paths that did not exist at start (no read-only bind holds a name that
	 * is not there), canonical and as spelled. Nothing removed, made or renamed at or below
	 * one (the guard makes its calls outside the sandbox's mounts, where the mount on one
	 * is not there), no directory holding one removed or replaced (the mount moves with a
	 * renamed parent, the name does not: the next command's mounts, and the host's tools,
	 * would meet the old name empty and the file unhidden under the new one). A hit's rule
	 * is the entry itself (a pointer into this list). */
	const char *const *holds;
	size_t nholds;
	/* NULL, or mandatory_lcp of fixed's nfixed and of holds: a check then skips an entry
	 * that starts as the one before it past where the name parted from that one ($XDG_*'s
	 * copies share their directory's start, which most names part from); the same verdicts */
	const uint16_t *fixed_lcp;
	const uint16_t *holds_lcp;
	/* the create grants (create +=), plain canonical directories: a command makes new files
	 * and directories there and changes only those it made (the guard keeps which, by
	 * inode); nothing else there is written, truncated, renamed, removed, linked or has its
	 * mode, owner or attributes changed, no symbolic link, device, FIFO or socket is made,
	 * and no directory holding one is removed or renamed */
	const char *const *creates;
	size_t ncreates;
	/* the policy's deny_write globs, for names made after the start (a glob's read-only
	 * binds cover only what it matched then): the pattern that holds path (at or below a
	 * match, where no more specific grant lifts it; with dir_to, a directory renamed to
	 * path below which a match could lie), or NULL. A hit's rule is that pattern. NULL: no
	 * deny_write glob. */
	const char *(*deny_glob)(void *arg, const char *path, bool dir_to);
	void *deny_glob_arg;
};

struct mand_hit {
	enum mand_lift lift;
	const char *rule; /* static: ".bashrc", ".git/hooks", "~/.ssh", "~/.*" … */
};

/* For each of the n paths v, the length of the start it shares with the one before (0 for the
 * first), malloc'd; NULL when out of memory or a path is too long to say it in 16 bits. */
uint16_t *mandatory_lcp(const char *const *v, size_t n);

/* path lies in one of c's scratch file systems, and not in a write grant bound into it. */
bool mandatory_scratch(const struct mand_ctx *c, const char *path);

/* The create grant (mand_ctx.creates) path lies at or below: its index, or -1. */
long mandatory_create(const struct mand_ctx *c, const char *path);

/* path is a create grant's directory or a directory holding one: its index, or -1. */
long mandatory_create_holder(const struct mand_ctx *c, const char *path);

/* As mandatory_check's core.hooksPath rule, against the list hooks (n of them) instead of
 * c->hooks: 1 when refused (*hit filled), else 0. */
int mandatory_hooks(const struct mand_ctx *c, const char *const *hooks, size_t n, const char *path,
		    enum mand_op op, struct mand_hit *hit);

/* 1 when op on path is refused (*hit says by which rule), 0 when not, -EINVAL when path is
 * not absolute. */
int mandatory_check(const struct mand_ctx *c, const char *path, enum mand_op op,
		    struct mand_hit *hit);

/* The names protected at any depth in a write grant, relative (".bashrc", ".claude/agents",
 * ".claude/settings*.json" — a glob —, ".git/hooks" …), for the mounts' probes; *n gets
 * the count. home: the paths protected below the home directory instead (".ssh",
 * ".config/sbxsh" …, then the patterns below Python's user site). */
const char *const *mandatory_names(bool home, size_t *n);

/* name (one component) is an agent's own directory (".claude", ".codex" …), whose contents
 * only its data subdirectories may change. */
bool mandatory_agent_dir(const char *name);

/* Those data subdirectories ("shell-snapshots", "logs", "telemetry" …: what the agent keeps
 * and never runs or obeys), for the mounts: a write grant over an agent's directory that the
 * probes make read-only leaves these writable, as the guard does. Not "worktrees", projects
 * with name rules of their own that the mounts' probes would not reach. *n gets the count. */
const char *const *mandatory_agent_data(size_t *n);

/* The names of the home rule's fixed paths below ~/.config ("sbxsh", "git", "hg" …), which
 * $XDG_CONFIG_HOME moves (mand_ctx.fixed holds them there); *n gets the count. */
const char *const *mandatory_xdg_config(size_t *n);

/* The same for the ones below ~/.local/share ("bash-completion", "nvim/site" …), which
 * $XDG_DATA_HOME moves. */
const char *const *mandatory_xdg_data(size_t *n);

/* The same for the ones below ~/.cache ("pre-commit", "pip" …), which $XDG_CACHE_HOME
 * moves. */
const char *const *mandatory_xdg_cache(size_t *n);

#endif
