/* guard — the front end performs, on the sandbox's behalf, every call that changes a name or
 * a file (docs/monitor.md "The guard"), after checking the final names against the mandatory
 * write denies (platform/mandatory.h). The kernel-facing half: resolving inside the sandbox's
 * own view, performing with no more privilege than the command, handing back the result.
 * platform/linux/monitor_src.c decides which notifications come here and emits the refusals.
 */
#ifndef SBX_GUARD_H
#define SBX_GUARD_H
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <linux/seccomp.h>

#include "platform/mandatory.h"

enum guard_op {
	GOP_NONE = 0,
	GOP_OPEN,     /* open, openat: flags, mode */
	GOP_OPENAT2,  /* flags, mode, resolve from struct open_how (read by the caller) */
	GOP_MKDIR,    /* mode */
	GOP_MKNOD,    /* mode, a = dev */
	GOP_UNLINK,   /* flags: AT_REMOVEDIR */
	GOP_RENAME,   /* flags: RENAME_* */
	GOP_LINK,     /* flags: AT_SYMLINK_FOLLOW, AT_EMPTY_PATH */
	GOP_SYMLINK,  /* path: the target (content), path2 in dirfd2: the new name */
	GOP_TRUNCATE, /* a = length */
	GOP_CHMOD,    /* mode; flags: AT_SYMLINK_NOFOLLOW */
	GOP_CHOWN,    /* a = uid, b = gid; flags: AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH */
	GOP_XATTR,    /* path2: the attribute's name; value, size; flags: GUARD_X_*, a = the
		       * call's XATTR_CREATE/REPLACE */
	GOP_FACT,     /* not performed: chdir, fchdir, umask change a fact the cache keeps */
	GOP_BIND,     /* dirfd2: the command's socket; value, size: its address (copied) */
};

/* GOP_XATTR's flags */
#define GUARD_X_REMOVE	 0x1u /* removexattr */
#define GUARD_X_NOFOLLOW 0x2u /* lsetxattr, lremovexattr */
#define GUARD_X_FD	 0x4u /* fsetxattr, fremovexattr: dirfd is the descriptor */
#define GUARD_X_PROCFD	 0x8u /* …the descriptor spelled /proc/self/fd/N (O_PATH taken) */
/* GOP_CHMOD's flags beside AT_*: fchmod itself (an O_PATH descriptor answers EBADF) */
#define GUARD_FCHMOD 0x40000000u

/* One call, as the command made it (the strings are the front end's copies). */
struct guard_call {
	enum guard_op op;
	int dirfd, dirfd2; /* AT_FDCWD or the command's descriptor */
	const char *path, *path2;
	uint64_t flags, mode, a, b, resolve;
	const void *value; /* GOP_XATTR: the value (the front end's copy) */
	size_t size;
};

/* What to answer: an error, a value, or our descriptor fd to install (then closed). */
struct guard_answer {
	int error; /* -errno, or 0 */
	int64_t val;
	int fd;		  /* -1: none */
	unsigned fdflags; /* O_CLOEXEC */
	bool async;	  /* a helper thread answers (a FIFO opened for writing) */
};

/* A mandatory rule refused the call. */
struct guard_refusal {
	bool refused;
	struct mand_hit hit;
	char path[PATH_MAX]; /* the final sandbox path refused */
	/* a directory renamed (performed): path is its real old name, to its new one, for the
	 * judge (the mounts below it moved with it); exchange: RENAME_EXCHANGE */
	bool moved, exchange;
	char to[PATH_MAX];
};

/* What the guard keeps between calls (guard_cache_init):
 * - the sandbox's root;
 * - the directories resolved lately (d[]);
 * - recent threads' facts (t[]): each thread's pidfd (PIDFD_THREAD, polled at each of its
 *   calls: an entry never outlives its thread, so a reused tid misses), its cwd (O_PATH: it
 *   follows the directory through renames, as the kernel's own cwd does) and its umask.
 *   chdir, fchdir and umask notify at every level (GOP_FACT): each empties the facts, and
 *   while one is in flight (until that thread's next call, or its end) the threads that share
 *   its file-system context (kcmp KCMP_FS) neither use nor fill them. */
#define GUARD_THREADS 16
#define GUARD_DIRS    8
#define GUARD_SEEN    1024 /* directories looked at for a nested repository (a power of 2) */
#define GUARD_PENDING 32
#define GUARD_OWN     256 /* files made in create grants' directories */
#define GUARD_LINKED  32  /* files the command linked (guard_cache.linked) */
struct guard_cache {
	int root;
	/* directories resolved lately, by (the base directory's device and inode, or 0 for the
	 * root; the spelling): emptied by every rename, unlink, rmdir and chmod the guard makes
	 * (the sandbox changes no name any other way) */
	struct {
		int fd; /* O_PATH, or -1 */
		uint64_t dev, ino;
		char *key, *real;
		unsigned used; /* the call that last lent fd out (gc->call): kept until it ends */
	} d[GUARD_DIRS];
	unsigned dnext;
	unsigned call; /* counts guard_perform's calls */
	struct guard_thread {
		uint32_t tid;
		int pidfd; /* -1: the slot is empty */
		int cwd;   /* O_PATH, or -1: not known */
		uint64_t cdev, cino;
		int umask;	/* -1: not known */
		unsigned epoch; /* the pending set it was found to share no context with */
		/* the last directory descriptor (not AT_FDCWD) it named, dfd_n: our O_PATH
		 * descriptor of it, or -1; used while dfd_n still names that directory */
		int dfd, dfd_n;
		uint64_t ddev, dino;
	} t[GUARD_THREADS];
	uint32_t pending[GUARD_PENDING]; /* threads in a chdir, fchdir or umask call */
	unsigned npending, epoch;
	bool off; /* more pending than fit: the facts are unused from then on */
	/* nested repositories (mand_ctx.nested_hooks): the directories looked at for a .git
	 * since the last rename of a directory (each one's ancestors up to its write grant's
	 * root, or the home directory, too), by path; and what the configs of those found name */
	char *seen[GUARD_SEEN];
	unsigned nseen;
	char **nhooks;
	size_t nnhooks, capnhooks;
	/* what this command made in a create grant's directory (mand_ctx.creates), the only
	 * files and directories there it may change: by device and inode, each held by an
	 * O_PATH descriptor, so the inode is not freed and its number not given to another
	 * file while it is here. Forgotten when removed or moved out; the oldest forgotten when
	 * full (then not writable by its maker either: closed) */
	struct guard_own {
		uint64_t dev, ino;
		int fd;
	} own[GUARD_OWN];
	unsigned nown;
	/* files this command gave their second, third … name by link() (each name checked), with
	 * how many names that makes: such a file may be written while it has no other (the
	 * oldest forgotten when full) */
	struct guard_linked {
		uint64_t dev, ino, nlink;
	} linked[GUARD_LINKED];
	unsigned nlinked;
};
void guard_cache_init(struct guard_cache *gc);
void guard_cache_release(struct guard_cache *gc);
/* Every notification, first: tid's earlier call is over; fact: it is making a GOP_FACT call. */
void guard_cache_seen(struct guard_cache *gc, uint32_t tid, bool fact);

/* The errno a refusal answers: what the kernel says for a read-only file. */
#define GUARD_REFUSED EROFS

/* On the thread that performs (once): no capabilities, a file-system context of its own (the
 * command's umask is set on it per call). 0 or -errno. */
int guard_thread_setup(void);

/* Performs c for req (listener: for SECCOMP_IOCTL_NOTIF_ID_VALID and a helper's answer).
 * gc: kept between calls. Fills *ans (always) and *ref. Returns 0, or -ENOENT when the
 * notification is gone. */
int guard_perform(int listener, const struct mand_ctx *mc, struct guard_cache *gc,
		  const struct seccomp_notif *req, const struct guard_call *c,
		  struct guard_answer *ans, struct guard_refusal *ref);

/* Answers req with *ans (ADDFD with SEND for a descriptor). 1 taken, 0 gone, or -errno. */
int guard_send(int listener, uint64_t id, const struct guard_answer *ans);

#endif
