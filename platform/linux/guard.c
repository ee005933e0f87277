/* guard — performs the calls that change a name or a file for the sandbox (guard.h).
 *
 * Rules this file keeps:
 * - Nothing the command controls is read twice: its strings were copied once (the caller),
 *   and every name is resolved here, inside its own view: its root (/proc/TID/root) with
 *   RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS, a relative path beneath its cwd or directory
 *   descriptor, and the last component never followed by the kernel — a symlink there is
 *   read and resolved again here, so the name checked is the name changed.
 * - The call is made only after SECCOMP_IOCTL_NOTIF_ID_VALID said the thread still waits: the
 *   /proc/TID/… opened before it were that thread's.
 * - Never open under a procfs parent for the command (/proc/self is the front end there):
 *   /proc/{self,thread-self,PID}/fd/N and /dev/fd/N are taken by string and re-opened through
 *   our own /proc/thread-self/fd; anything else under /proc or /sys is refused (EACCES).
 * - The performing thread holds no capability and the command's umask.
 * - Renames and creates are made one at a time on one thread, so no other change of a name in
 *   the sandbox runs between a check and its call; only a blocking FIFO open leaves it (to a
 *   helper thread), and that changes no name.
 */
#include "platform/linux/guard.h"

#include <cap-ng.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/kcmp.h>
#include <linux/magic.h>
#include <linux/major.h>
#include <linux/openat2.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "platform/path.h"

#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif
#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define HOPS_MAX 40

struct ctx {
	int listener;
	struct guard_cache *gc;
	const struct mand_ctx *mc;
	const struct seccomp_notif *req;
	int root; /* /proc/TID/root */
	bool umask_set;
	bool thr_asked;		  /* thr looked up */
	struct guard_thread *thr; /* the caller's facts, or NULL: not to be used */
	/* the open made the file it answers with (O_CREAT|O_EXCL on a missing name, O_TMPFILE):
	 * a new regular file, which no device number needs checking */
	bool made;
};

int guard_thread_setup(void)
{
	int keep;

	if (unshare(CLONE_FS) < 0)
		return -errno;
	/* libcap-ng's state is per thread: this thread's capabilities, not the process's */
	if (capng_get_caps_process() != 0)
		return -EPERM;
	/* CAP_SYS_PTRACE alone, when held: reading a process that kept capabilities (a test's
	 * child; a command outside bwrap) needs it, and it changes no file access */
	keep = capng_have_capability(CAPNG_PERMITTED, CAP_SYS_PTRACE);
	capng_clear(CAPNG_SELECT_CAPS);
	if (keep && capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_SYS_PTRACE) != 0)
		return -EPERM;
	if (capng_apply(CAPNG_SELECT_CAPS) != 0)
		return -EPERM;
	return 0;
}

static int valid(const struct ctx *x)
{
	uint64_t id = x->req->id;

	return ioctl(x->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0 ? 0 : -ENOENT;
}

static void proc_path(char *buf, size_t n, pid_t tid, const char *what)
{
	snprintf(buf, n, "/proc/%d/%s", (int)tid, what);
}

/* A small /proc file p read whole into buf (n bytes), NUL-terminated: true when any came. */
static bool proc_read(const char *p, char *buf, size_t n)
{
	int fd = openat(AT_FDCWD, p, O_RDONLY | O_CLOEXEC);
	ssize_t k;

	if (fd < 0)
		return false;
	k = read(fd, buf, n - 1);
	close(fd);
	if (k <= 0)
		return false;
	buf[k] = '\0';
	return true;
}

/* A field of /proc/TID/status ("Umask:", "NStgid:"): its last number, in base. */
static long status_field(pid_t tid, const char *key, int base)
{
	char p[48], buf[2048];
	long v = -1;

	proc_path(p, sizeof(p), tid, "status");
	if (!proc_read(p, buf, sizeof(buf)))
		return -1;
	char *s = strstr(buf, key);
	if (!s)
		return -1;
	s += strlen(key);
	for (char *e = s; *e && *e != '\n';) {
		while (*e == ' ' || *e == '\t')
			e++;
		if (*e < '0' || *e > '9')
			break;
		v = strtol(e, &e, base);
	}
	return v;
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

static void thread_clear(struct guard_thread *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->cwd >= 0)
		close(t->cwd);
	if (t->dfd >= 0)
		close(t->dfd);
	memset(t, 0, sizeof(*t));
	t->pidfd = t->cwd = t->umask = t->dfd = -1;
}

void guard_cache_init(struct guard_cache *gc)
{
	memset(gc, 0, sizeof(*gc));
	gc->root = -1;
	for (unsigned i = 0; i < GUARD_DIRS; i++)
		gc->d[i].fd = -1;
	for (unsigned i = 0; i < GUARD_THREADS; i++)
		gc->t[i].pidfd = gc->t[i].cwd = gc->t[i].umask = gc->t[i].dfd = -1;
}

static void dirs_drop(struct guard_cache *gc)
{
	for (unsigned i = 0; i < GUARD_DIRS; i++) {
		if (gc->d[i].fd >= 0)
			close(gc->d[i].fd);
		free(gc->d[i].key);
		free(gc->d[i].real);
		gc->d[i].fd = -1;
		gc->d[i].key = gc->d[i].real = NULL;
	}
}

static void seen_drop(struct guard_cache *gc)
{
	for (unsigned i = 0; i < GUARD_SEEN; i++) {
		free(gc->seen[i]);
		gc->seen[i] = NULL;
	}
	gc->nseen = 0;
}

void guard_cache_release(struct guard_cache *gc)
{
	if (gc->root >= 0)
		close(gc->root);
	gc->root = -1;
	dirs_drop(gc);
	seen_drop(gc);
	for (size_t i = 0; i < gc->nnhooks; i++)
		free(gc->nhooks[i]);
	free(gc->nhooks);
	gc->nhooks = NULL;
	gc->nnhooks = gc->capnhooks = 0;
	for (unsigned i = 0; i < GUARD_THREADS; i++)
		thread_clear(&gc->t[i]);
	for (unsigned i = 0; i < gc->nown; i++)
		close(gc->own[i].fd);
	gc->nown = 0;
}

/* A cached directory: its descriptor (borrowed) and real path, or -1. */
static int dirs_find(struct guard_cache *gc, uint64_t dev, uint64_t ino, const char *key,
		     const char **real)
{
	for (unsigned i = 0; i < GUARD_DIRS; i++)
		if (gc->d[i].fd >= 0 && gc->d[i].dev == dev && gc->d[i].ino == ino &&
		    strcmp(gc->d[i].key, key) == 0) {
			*real = gc->d[i].real;
			gc->d[i].used = gc->call;
			return gc->d[i].fd;
		}
	return -1;
}

/* Keeps fd (taken) as key's directory; false when it could not (fd left to the caller). A
 * slot whose descriptor this call has lent out is never the one replaced: a rename's source
 * directory stays open while its target's is resolved (closed, its number could name another
 * directory by the time the call is made). */
static bool dirs_keep(struct guard_cache *gc, uint64_t dev, uint64_t ino, const char *key, int fd,
		      const char *real)
{
	unsigned i = GUARD_DIRS;
	char *k, *r;

	for (unsigned n = 0; n < GUARD_DIRS && i == GUARD_DIRS; n++) {
		unsigned j = gc->dnext++ % GUARD_DIRS;

		if (gc->d[j].fd < 0 || gc->d[j].used != gc->call)
			i = j;
	}
	if (i == GUARD_DIRS)
		return false; /* every slot lent out in this call */
	k = strdup(key);
	r = strdup(real);
	if (!k || !r) {
		free(k);
		free(r);
		return false;
	}
	if (gc->d[i].fd >= 0)
		close(gc->d[i].fd);
	free(gc->d[i].key);
	free(gc->d[i].real);
	gc->d[i].fd = fd;
	gc->d[i].dev = dev;
	gc->d[i].ino = ino;
	gc->d[i].key = k;
	gc->d[i].real = r;
	gc->d[i].used = gc->call;
	return true;
}

void guard_cache_seen(struct guard_cache *gc, uint32_t tid, bool fact)
{
	for (unsigned i = 0; i < gc->npending; i++)
		if (gc->pending[i] == tid)
			gc->pending[i--] = gc->pending[--gc->npending];
	if (!fact)
		return;
	/* the facts may change for any thread sharing tid's context: all forgotten */
	for (unsigned i = 0; i < GUARD_THREADS; i++) {
		struct guard_thread *t = &gc->t[i];

		if (t->cwd >= 0)
			close(t->cwd);
		t->cwd = t->umask = -1;
	}
	/* full: a pending thread that ended made its last call */
	for (unsigned i = 0; gc->npending == GUARD_PENDING && i < gc->npending; i++)
		if (kill((pid_t)gc->pending[i], 0) < 0 && errno == ESRCH)
			gc->pending[i--] = gc->pending[--gc->npending];
	if (gc->npending < GUARD_PENDING) {
		gc->pending[gc->npending++] = tid;
		gc->epoch++;
	} else {
		gc->off = true;
	}
}

/* Whether tid shares no file-system context with a thread in a chdir, fchdir or umask call
 * (a context is shared by clone(CLONE_FS) alone and never comes to be shared later: once seen
 * apart, the pair stays apart). A pending thread that is gone made its last call. */
static bool apart_from_pending(struct guard_cache *gc, uint32_t tid)
{
	for (unsigned i = 0; i < gc->npending; i++) {
		long r = syscall(SYS_kcmp, (pid_t)gc->pending[i], (pid_t)tid, KCMP_FS, 0, 0);

		if (r < 0 && errno == ESRCH && kill((pid_t)gc->pending[i], 0) < 0 &&
		    errno == ESRCH) {
			gc->pending[i--] = gc->pending[--gc->npending];
			continue;
		}
		if (r != 1 && r != 2)
			return false; /* shared, or not known */
	}
	return true;
}

/* The caller's cached facts (an entry, maybe empty), or NULL when they are not to be used. The
 * entry is the thread behind its pidfd: alive (poll) means it still holds the tid, so a call
 * with that tid is its own (the call is made only after ID_VALID said the caller waits). */
static struct guard_thread *thread_of(struct ctx *x)
{
	struct guard_cache *gc = x->gc;
	uint32_t tid = x->req->pid;
	struct guard_thread *t = &gc->t[tid % GUARD_THREADS];

	if (x->thr_asked)
		return x->thr;
	x->thr_asked = true;
	x->thr = NULL;
	if (gc->off)
		return NULL;
	if (t->pidfd >= 0 && t->tid == tid) {
		struct pollfd p = {.fd = t->pidfd, .events = POLLIN};

		if (poll(&p, 1, 0) != 0)
			thread_clear(t); /* it ended: a new thread may hold the tid */
	}
	if (t->pidfd < 0 || t->tid != tid) {
		int fd = (int)syscall(SYS_pidfd_open, (pid_t)tid, PIDFD_THREAD);

		thread_clear(t);
		if (fd < 0)
			return NULL; /* before 6.9, or gone */
		/* O_CLOEXEC is a pidfd's own */
		t->tid = tid;
		t->pidfd = fd;
		t->epoch = gc->epoch - 1;
	}
	if (gc->npending && t->epoch != gc->epoch) {
		if (!apart_from_pending(gc, tid))
			return NULL;
		t->epoch = gc->epoch;
	}
	x->thr = t;
	return t;
}

/* The command's umask on this thread, before anything is created. */
static int set_umask(struct ctx *x)
{
	struct guard_thread *t = thread_of(x);
	long u;

	if (x->umask_set)
		return 0;
	if (t && t->umask >= 0) {
		u = t->umask;
	} else {
		if ((u = status_field((pid_t)x->req->pid, "Umask:", 8)) < 0)
			return -ESRCH;
		if (t)
			t->umask = (int)u;
	}
	/* this thread's own (guard_thread_setup: unshare(CLONE_FS)), set only when it changes */
	static __thread long cur = -1;
	if (u != cur)
		umask((mode_t)u);
	cur = u;
	x->umask_set = true;
	return 0;
}

/* The sandbox path of our descriptor fd (the kernel's name for it in the sandbox's view). */
static int fd_name(int fd, char *buf, size_t n)
{
	char p[48];
	ssize_t k;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	if ((k = readlink(p, buf, n - 1)) < 0)
		return -errno;
	if ((size_t)k >= n - 1)
		return -ENAMETOOLONG;
	buf[k] = '\0';
	if (buf[0] != '/' || (k > 10 && strcmp(buf + k - 10, " (deleted)") == 0))
		return -ENOENT;
	return 0;
}

static bool ends_with(const char *s, const char *t)
{
	size_t a = strlen(s), b = strlen(t);

	return a >= b && strcmp(s + a - b, t) == 0;
}

static int open2(int dfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve)
{
	struct open_how how = {.flags = flags, .mode = mode, .resolve = resolve};
	long r;

	for (int i = 0; i < 8; i++) {
		r = syscall(SYS_openat2, dfd, path, &how, sizeof(how));
		if (r >= 0 || errno != EAGAIN)
			break;
	}
	return r < 0 ? -errno : (int)r;
}

/* A directory of the sandbox, O_PATH: path absolute (from its root), or relative to our
 * descriptor base (whose sandbox path is resolved from the root when `..` or an absolute
 * symlink leaves it: RESOLVE_IN_ROOT from a cwd would stop `..` at the cwd). */
static int open_dir(struct ctx *x, int base, const char *path)
{
	const uint64_t fl = O_PATH | O_DIRECTORY | O_CLOEXEC;
	char abs[PATH_MAX];
	int r;

	if (path[0] == '/')
		return open2(x->root, path, fl, 0, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
	if (!path[0])
		return (r = fcntl(base, F_DUPFD_CLOEXEC, 0)) < 0 ? -errno : r;
	r = open2(base, path, fl, 0, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
	if (r != -EXDEV)
		return r;
	if ((r = fd_name(base, abs, sizeof(abs))) < 0)
		return r;
	size_t l = strlen(abs);
	if (l + 1 + strlen(path) >= sizeof(abs))
		return -ENAMETOOLONG;
	abs[l] = '/';
	strcpy(abs + l + 1, path);
	return open2(x->root, abs, fl, 0, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
}

/* The command's directory descriptor dirfd (>= 0), kept in the thread's facts t: our O_PATH
 * descriptor of it, used again while dirfd still names the same directory (stat through
 * /proc/TID/fd/N: its device and inode, which no other directory can have while ours holds
 * it; the directory cache trusts the same identity), one system call where the open of
 * /proc/TID/fd/N, its fstat and close were three (tar and git name each file from a directory
 * descriptor). Our own open, not the command's file (pidfd_getfd): that would keep a flock
 * on it held after the command closed it. -1: none (the caller opens it, as before). */
static int cmd_dirfd(struct ctx *x, struct guard_thread *t, int dirfd, struct stat *st)
{
	char p[48], n[16];
	struct stat ds;
	int r;

	snprintf(n, sizeof(n), "fd/%d", dirfd);
	proc_path(p, sizeof(p), (pid_t)x->req->pid, n);
	if (t->dfd >= 0 && t->dfd_n == dirfd && stat(p, &ds) == 0 && S_ISDIR(ds.st_mode) &&
	    ds.st_dev == t->ddev && ds.st_ino == t->dino)
		goto kept;
	if ((r = openat(AT_FDCWD, p, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1; /* the caller's open says why */
	if (fstat(r, &ds) < 0) {
		close(r);
		return -1;
	}
	if (t->dfd >= 0)
		close(t->dfd);
	t->dfd = r;
	t->dfd_n = dirfd;
	t->ddev = ds.st_dev;
	t->dino = ds.st_ino;
kept:
	st->st_dev = t->ddev;
	st->st_ino = t->dino;
	return t->dfd;
}

/* The command's directory descriptor (AT_FDCWD: its cwd) as ours. *own false: the cache's
 * (not to be closed). st: its device and inode when known (st_ino 0 when not). */
static int cmd_dir(struct ctx *x, int dirfd, bool *own, struct stat *st)
{
	struct guard_thread *t = dirfd == AT_FDCWD || dirfd >= 0 ? thread_of(x) : NULL;
	char p[48], n[16];
	int r;

	*own = true;
	st->st_dev = st->st_ino = 0;
	if (t && dirfd >= 0 && (r = cmd_dirfd(x, t, dirfd, st)) >= 0) {
		*own = false;
		return r;
	}
	if (dirfd != AT_FDCWD)
		t = NULL; /* below: the cwd's facts only */
	if (t && t->cwd >= 0) {
		*own = false;
		st->st_dev = t->cdev;
		st->st_ino = t->cino;
		return t->cwd;
	}
	if (dirfd == AT_FDCWD) {
		proc_path(p, sizeof(p), (pid_t)x->req->pid, "cwd");
	} else {
		if (dirfd < 0)
			return -EBADF;
		snprintf(n, sizeof(n), "fd/%d", dirfd);
		proc_path(p, sizeof(p), (pid_t)x->req->pid, n);
	}
	/* openat, not open: musl's open() follows O_CLOEXEC with an fcntl (for kernels before
	 * 2.6.23), a system call per guarded call */
	r = openat(AT_FDCWD, p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r < 0)
		return errno == ENOENT && dirfd != AT_FDCWD ? -EBADF : -errno;
	if (t && fstat(r, st) == 0) {
		/* the same directory as the thread's cwd until it calls chdir or fchdir */
		t->cwd = r;
		t->cdev = st->st_dev;
		t->cino = st->st_ino;
		*own = false;
	} else {
		st->st_ino = 0;
	}
	return r;
}

/* The final name of one step: *pfd its parent (ours), name its last component (trailing
 * slashes in *slash), real the sandbox path parent/name. base: our descriptor for a
 * relative path, or -1 with cmd_fd the command's. */
struct final {
	int pfd;
	bool borrowed; /* pfd is the directory cache's */
	bool slash;
	char name[NAME_MAX + 2];
	char real[PATH_MAX];
};

/* The mode a file is created with (open's O_CREAT and O_TMPFILE, mknod): never set-user-ID or
 * set-group-ID (the kernel keeps both bits of the mode asked for, and a later write by a
 * capable host process keeps them), as chmod's setid_refused; the file type as asked. */
static mode_t new_mode(uint64_t mode)
{
	return (mode_t)mode & ~(mode_t)(S_ISUID | S_ISGID);
}

/* A directory of procfs or sysfs (where the front end's view is not the command's): -EROFS on
 * a read-only mount (/proc/sys, /sys in the sandbox), as the kernel says there, else -EACCES,
 * as for a file the command may not write; 0 for any other file system. */
static int kernel_fs(int dfd)
{
	struct statfs sf;

	if (fstatfs(dfd, &sf) < 0)
		return -errno;
	if (sf.f_type != PROC_SUPER_MAGIC && sf.f_type != SYSFS_MAGIC)
		return 0;
	return sf.f_flags & ST_RDONLY ? -EROFS : -EACCES;
}

/* One component of s into c (n bytes; "\1" when longer), "." components skipped: the rest. */
static const char *next_comp(const char *s, char *c, size_t n)
{
	for (;;) {
		size_t k = 0;

		while (*s == '/')
			s++;
		while (s[k] && s[k] != '/')
			k++;
		if (k >= n)
			snprintf(c, n, "\1");
		else
			snprintf(c, n, "%.*s", (int)k, s);
		s += k;
		if (strcmp(c, ".") != 0)
			return s;
	}
}

static long status_field(pid_t tid, const char *key, int base);

/* A descriptor's directory with a name below it: /dev/fd/N/REST, /proc/{self,thread-self,PID}
 * [/task/TID]/fd/N/REST, where the kernel follows the command's descriptor N, then REST. N
 * (*rest: REST, "." when empty), or -1. A ".." before N is not taken (the spelling then
 * stays what it was: a path into procfs, refused). */
static int fd_dir_spelling(const struct ctx *x, const char *path, const char **rest)
{
	char c[24], *e;
	const char *s = next_comp(path, c, sizeof(c));
	long v;

	if (strcmp(c, "dev") == 0) {
		s = next_comp(s, c, sizeof(c));
	} else if (strcmp(c, "proc") == 0) {
		s = next_comp(s, c, sizeof(c));
		if (strcmp(c, "self") != 0 && strcmp(c, "thread-self") != 0) {
			v = strtol(c, &e, 10);
			if (e == c || *e || v != status_field((pid_t)x->req->pid, "NStgid:", 10))
				return -1;
		}
		s = next_comp(s, c, sizeof(c));
		if (strcmp(c, "task") == 0) {
			s = next_comp(s, c, sizeof(c));
			v = strtol(c, &e, 10);
			if (e == c || *e)
				return -1;
			s = next_comp(s, c, sizeof(c));
		}
	} else {
		return -1;
	}
	if (strcmp(c, "fd") != 0)
		return -1;
	s = next_comp(s, c, sizeof(c));
	v = strtol(c, &e, 10);
	if (e == c || *e || v < 0 || v > 1 << 20 || *s != '/')
		return -1;
	while (*s == '/')
		s++;
	*rest = *s ? s : ".";
	return (int)v;
}

static int final_of(struct ctx *x, int base, int cmd_fd, const char *path, struct final *f)
{
	char dir[PATH_MAX];
	size_t l = strlen(path);
	int r, b = base;
	bool bown = false;
	struct stat bs = {0};

	f->pfd = -1;
	f->slash = false;
	if (!l)
		return -ENOENT;
	if (l >= sizeof(dir))
		return -ENAMETOOLONG;
	/* /proc/self/fd/N/name: name in the command's directory descriptor N, as the kernel
	 * follows it (never our procfs: /proc/self is the front end here) */
	if (path[0] == '/' && l > 8) {
		const char *rest;
		int n = fd_dir_spelling(x, path, &rest);

		if (n >= 0) {
			cmd_fd = n;
			b = -1;
			path = rest;
			l = strlen(path);
		}
	}
	memcpy(dir, path, l + 1);
	while (l > 1 && dir[l - 1] == '/') {
		dir[--l] = '\0';
		f->slash = true;
	}
	char *s = strrchr(dir, '/');
	const char *last = s ? s + 1 : dir;

	if (strlen(last) > NAME_MAX)
		return -ENAMETOOLONG;
	strcpy(f->name, *last ? last : ".");
	if (s == dir)
		dir[1] = '\0';
	else if (s)
		*s = '\0';
	else
		dir[0] = '\0';
	if (dir[0] != '/' && b < 0) {
		if ((b = cmd_dir(x, cmd_fd, &bown, &bs)) < 0)
			return b;
	}
	/* the directory cache, by the base's identity and the spelling */
	const char *cached = NULL;
	int cfd = -1;

	if (dir[0] == '/' || bs.st_ino || fstat(b, &bs) == 0)
		cfd = dirs_find(x->gc, bs.st_dev, bs.st_ino, dir, &cached);
	if (cfd >= 0) {
		size_t cl = strlen(cached);

		if (b != base && bown)
			close(b);
		f->pfd = cfd;
		f->borrowed = true;
		if (cl >= sizeof(f->real))
			return -ENAMETOOLONG; /* not kept so: f->real was its source */
		memcpy(f->real, cached, cl + 1);
		goto named;
	}
	/* An absolute directory spelled plainly (no ".", "..", "//") and reached through no
	 * symlink is its own real name: no readlink of the descriptor needed. */
	bool plain = dir[0] == '/' && !strstr(dir, "//") && !strstr(dir, "/./") &&
		     !strstr(dir, "/../") && !ends_with(dir, "/.") && !ends_with(dir, "/..");

	f->pfd = plain ? open2(x->root, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
			       RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS)
		       : -ELOOP;
	if (f->pfd == -ELOOP) {
		plain = false;
		f->pfd = open_dir(x, b, dir);
	}
	if (b != base && bown)
		close(b);
	if (f->pfd < 0) {
		r = f->pfd;
		f->pfd = -1;
		return r;
	}
	if ((r = kernel_fs(f->pfd)) < 0)
		return r;
	if (plain)
		strcpy(f->real, dir);
	else if ((r = fd_name(f->pfd, f->real, sizeof(f->real))) < 0)
		return r;
	if ((dir[0] == '/' || bs.st_ino) &&
	    dirs_keep(x->gc, bs.st_dev, bs.st_ino, dir, f->pfd, f->real))
		f->borrowed = true;
named:
	l = strlen(f->real);
	if (l + 2 + strlen(f->name) >= sizeof(f->real))
		return -ENAMETOOLONG;
	if (strcmp(f->real, "/") != 0)
		f->real[l++] = '/';
	strcpy(f->real + l, f->name);
	return 0;
}

static void final_drop(struct final *f)
{
	if (f->pfd >= 0 && !f->borrowed)
		close(f->pfd);
	f->pfd = -1;
	f->borrowed = false;
}

static bool dots(const char *n)
{
	return strcmp(n, ".") == 0 || strcmp(n, "..") == 0;
}

/* 1 when refused (filled), 0 allowed. */
/* The sandbox path exists (not followed), in the command's view. */
static bool exists_in_root(const struct ctx *x, const char *dir, size_t dl, const char *name)
{
	char p[PATH_MAX];
	int fd;

	if (snprintf(p, sizeof(p), "%.*s/%s", (int)dl, dir, name) >= (int)sizeof(p))
		return true; /* fail closed */
	if ((fd = open2(x->root, p, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0,
			RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)) < 0)
		return fd != -ENOENT && fd != -ENOTDIR;
	close(fd);
	return true;
}

/* A bare repository found by what is there, not by a name (git takes a directory holding a
 * HEAD, objects/ and refs/ as one): its config, commondir and hooks are a git directory's. A new
 * HEAD is mandatory.c's (HEAD outside every git directory). */
static bool in_bare(const struct ctx *x, const char *real, struct mand_hit *h)
{
	const char *b = strrchr(real, '/'), *a;
	size_t dl;

	if (x->mc->git_config || !b || b == real)
		return false;
	if (strcmp(b + 1, "config") == 0 || strcmp(b + 1, "config.worktree") == 0 ||
	    strcmp(b + 1, "commondir") == 0 || strcmp(b + 1, "hooks") == 0) {
		dl = (size_t)(b - real);
	} else {
		for (a = b - 1; a > real && *a != '/'; a--)
			;
		if ((size_t)(b - a) != 6 || strncmp(a, "/hooks", 6) != 0 || a == real)
			return false;
		dl = (size_t)(a - real);
	}
	/* HEAD alone: refs/ can be renamed away and back, a HEAD cannot (mandatory.c) */
	if (!exists_in_root(x, real, dl, "HEAD"))
		return false;
	h->lift = MAND_GIT_CONFIG;
	h->rule = "a bare repository's {config,hooks} (a HEAD beside them)";
	return true;
}

/* The slot of path's first l bytes in gc->seen: where it is, or the empty one to take. */
static unsigned seen_slot(const struct guard_cache *gc, const char *path, size_t l)
{
	uint32_t hsh = 2166136261u;

	for (size_t i = 0; i < l; i++)
		hsh = (hsh ^ (unsigned char)path[i]) * 16777619u;
	for (unsigned i = hsh & (GUARD_SEEN - 1);; i = (i + 1) & (GUARD_SEEN - 1))
		if (!gc->seen[i] || (strncmp(gc->seen[i], path, l) == 0 && !gc->seen[i][l]))
			return i;
}

/* What the configs of the repository whose worktree is path's first l bytes name, kept. */
static void nested_learn(const struct ctx *x, const char *path, size_t l)
{
	struct guard_cache *gc = x->gc;
	char wt[PATH_MAX], *list;

	if (l >= sizeof(wt))
		return;
	memcpy(wt, path, l);
	wt[l] = '\0';
	if (!(list = x->mc->nested_hooks(x->mc->nested_arg, wt)))
		return;
	for (const char *p = list; *p; p += strlen(p) + 1) {
		bool have = false;

		for (size_t i = 0; i < gc->nnhooks && !have; i++)
			have = strcmp(gc->nhooks[i], p) == 0;
		if (have)
			continue;
		if (gc->nnhooks == gc->capnhooks) {
			size_t cap = gc->capnhooks ? 2 * gc->capnhooks : 16;
			char **v = realloc(gc->nhooks, cap * sizeof(*v));

			if (!v)
				break;
			gc->nhooks = v;
			gc->capnhooks = cap;
		}
		if (!(gc->nhooks[gc->nnhooks] = strdup(p)))
			break;
		gc->nnhooks++;
	}
	free(list);
}

/* Nested repositories: the directory of real and each of its ancestors up to the root of the
 * deepest write grant holding it (or the home directory) not looked at since the last rename
 * of a directory is looked at once for a `.git`; the configs of one found are read
 * (nested_learn). A repository cannot be made in the sandbox (mandatory.c) and a directory
 * renamed empties what was seen, so one seen without a .git is none until then. One call
 * costs a lookup; a directory met for the first time an open of its .git. */
static void nested_meet(const struct ctx *x, const char *real)
{
	struct guard_cache *gc = x->gc;
	const struct mand_ctx *mc = x->mc;
	const char *b = strrchr(real, '/');
	size_t base = 0, l;
	bool in = false;

	if (!mc->nested_hooks || !b || b == real)
		return;
	for (size_t i = 0; i < mc->ngrants; i++) {
		size_t gl = strlen(mc->grants[i]);

		while (gl > 1 && mc->grants[i][gl - 1] == '/')
			gl--;
		if (gl > 1 && strncmp(real, mc->grants[i], gl) == 0 &&
		    (real[gl] == '/' || !real[gl]) && gl >= base) {
			base = gl;
			in = true;
		}
	}
	if (!in && mc->home && mc->home[1]) {
		size_t hl = strlen(mc->home);

		if (strncmp(real, mc->home, hl) == 0 && (real[hl] == '/' || !real[hl])) {
			base = hl;
			in = true;
		}
	}
	l = (size_t)(b - real);
	if (!in || l < base)
		return;
	for (;;) {
		unsigned k = seen_slot(gc, real, l);

		if (gc->seen[k])
			return; /* it and its ancestors were looked at */
		if (gc->nseen >= GUARD_SEEN / 2) {
			seen_drop(gc);
			k = seen_slot(gc, real, l);
		}
		if (!(gc->seen[k] = strndup(real, l)))
			return;
		gc->nseen++;
		if (exists_in_root(x, real, l, ".git"))
			nested_learn(x, real, l);
		if (l <= base)
			return;
		while (l > 0 && real[l - 1] != '/')
			l--;
		if (l > 0)
			l--;
		if (l < base)
			return;
	}
}

static int check(const struct ctx *x, const char *real, enum mand_op op, struct guard_refusal *ref)
{
	struct mand_hit h;

	if (mandatory_scratch(x->mc, real))
		return 0; /* the private /tmp or /dev/shm: nothing there reaches the host */
	nested_meet(x, real);
	if (mandatory_check(x->mc, real, op, &h) != 1 &&
	    !(op != MAND_MKDIR && in_bare(x, real, &h)) &&
	    mandatory_hooks(x->mc, (const char *const *)x->gc->nhooks, x->gc->nnhooks, real, op,
			    &h) != 1)
		return 0;
	ref->refused = true;
	ref->hit = h;
	snprintf(ref->path, sizeof(ref->path), "%s", real);
	return 1;
}

/* A regular file with a second name (a hard link), outside the sandbox's scratch: writing it,
 * truncating it or giving it a mode bit that runs it or lets others change it changes the
 * other name too, wherever that lies — a package store's file that uv (its default on Linux)
 * and pnpm link into every project's .venv and node_modules, a hook linked to a project
 * script — and no check sees it (only a name is checked). A new copy renamed over the name
 * (what pip, npm and editors write) is the project's own. 1 when refused (ref filled). */
static int shared_file(const struct ctx *x, const char *real, const struct stat *st,
		       struct guard_refusal *ref)
{
	if (!S_ISREG(st->st_mode) || st->st_nlink < 2 || mandatory_scratch(x->mc, real))
		return 0;
	for (unsigned i = 0; i < x->gc->nlinked; i++) /* every name made here, and checked */
		if (x->gc->linked[i].dev == st->st_dev && x->gc->linked[i].ino == st->st_ino &&
		    x->gc->linked[i].nlink == st->st_nlink)
			return 0;
	ref->refused = true;
	ref->hit.lift = MAND_NEVER;
	ref->hit.rule = "a file with another name (a hard link: a package store's, a hook's)";
	snprintf(ref->path, sizeof(ref->path), "%s", real);
	return 1;
}

/* A mode that adds to st's a bit that runs the file, sets an ID, or lets others write it. */
static bool mode_widens(uint64_t mode, const struct stat *st)
{
	return ((mode_t)mode & ~st->st_mode) &
	       (S_IXUSR | S_IXGRP | S_IXOTH | S_ISUID | S_ISGID | S_ISVTX | S_IWGRP | S_IWOTH);
}

/* ---- create grants (mand_ctx.creates): only what this command made there changes ---- */

static int own_find(const struct guard_cache *gc, const struct stat *st)
{
	for (unsigned i = 0; i < gc->nown; i++)
		if (gc->own[i].dev == st->st_dev && gc->own[i].ino == st->st_ino)
			return (int)i;
	return -1;
}

static void own_drop_at(struct guard_cache *gc, unsigned i)
{
	close(gc->own[i].fd);
	memmove(&gc->own[i], &gc->own[i + 1], (--gc->nown - i) * sizeof(gc->own[0]));
}

/* What was made: fd (ours, any mode) names it; kept by an O_PATH descriptor of its own (a
 * write descriptor kept here would make the file busy for exec). Full: the oldest is
 * forgotten (its maker can no longer change it: closed, not open). */
static void own_add(struct guard_cache *gc, int fd)
{
	char p[48];
	struct stat st;
	int o;

	snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", fd);
	if (fstat(fd, &st) < 0 || own_find(gc, &st) >= 0 || (o = open(p, O_PATH | O_CLOEXEC)) < 0)
		return;
	if (gc->nown == GUARD_OWN) {
		close(gc->own[0].fd);
		memmove(&gc->own[0], &gc->own[1], (GUARD_OWN - 1) * sizeof(gc->own[0]));
		gc->nown--;
	}
	gc->own[gc->nown++] = (struct guard_own){st.st_dev, st.st_ino, o};
}

/* As own_add for dfd/name just made (mkdir: dir, mknod of a regular file), not followed. */
static void own_add_at(struct guard_cache *gc, int dfd, const char *name, bool dir)
{
	int fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | (dir ? O_DIRECTORY : 0));

	if (fd >= 0) {
		own_add(gc, fd);
		close(fd);
	}
}

static void own_forget(struct guard_cache *gc, const struct stat *st)
{
	int i = own_find(gc, st);

	if (i >= 0)
		own_drop_at(gc, (unsigned)i);
}

static int create_refused(const struct ctx *x, long i, const char *real, struct guard_refusal *ref)
{
	ref->refused = true;
	ref->hit.lift = MAND_CREATE;
	ref->hit.rule = x->mc->creates[i];
	snprintf(ref->path, sizeof(ref->path), "%s", real);
	return 1;
}

/* A change of the existing object st at real: in a create grant's directory only one this
 * command made (the directory itself never). 1 refused (ref filled), 0 allowed. */
static int create_own(const struct ctx *x, const char *real, const struct stat *st,
		      struct guard_refusal *ref)
{
	long i;

	if (!x->mc->ncreates || (i = mandatory_create(x->mc, real)) < 0)
		return 0;
	if (strcmp(real, x->mc->creates[i]) != 0 && own_find(x->gc, st) >= 0)
		return 0;
	return create_refused(x, i, real, ref);
}

/* A new name at real of the kind made (S_IFREG, S_IFDIR: allowed; anything else — a symbolic
 * link, a device, FIFO or socket, a hard link — is refused in a create grant's directory: a
 * link leads to a file others may write, a FIFO or a socket to whoever made it). */
static int create_new(const struct ctx *x, const char *real, mode_t kind, struct guard_refusal *ref)
{
	long i;

	if (!x->mc->ncreates || (i = mandatory_create(x->mc, real)) < 0)
		return 0;
	return kind == S_IFREG || kind == S_IFDIR ? 0 : create_refused(x, i, real, ref);
}

/* Removing or renaming away real: never a create grant's directory or one holding it. */
static int create_holder(const struct ctx *x, const char *real, struct guard_refusal *ref)
{
	long i;

	if (!x->mc->ncreates || (i = mandatory_create_holder(x->mc, real)) < 0)
		return 0;
	return create_refused(x, i, real, ref);
}

static int fd_spelling(const struct ctx *x, const char *path);

/* Follows the last component's symlinks (when follow): *f names a non-symlink or a missing
 * name, st holds its lstat (st_mode 0 when missing). fdn (may be NULL): a symlink whose target
 * is spelled /proc/self/fd/N (bwrap's /dev/stdout) stops there: *fdn = N, returns 1. */
static int resolve_final(struct ctx *x, int cmd_fd, const char *path, bool follow, struct final *f,
			 struct stat *st, int *fdn)
{
	char buf[2][PATH_MAX];
	const char *p = path;
	int base = -1, r = 0;

	for (int hop = 0;; hop++) {
		r = final_of(x, base, cmd_fd, p, f);
		if (base >= 0)
			close(base);
		base = -1;
		if (r < 0)
			return r;
		if (fstatat(f->pfd, f->name, st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				return -errno;
			st->st_mode = 0;
			return 0;
		}
		/* a trailing slash follows the link as the kernel would */
		if (!S_ISLNK(st->st_mode) || !(follow || f->slash))
			return 0;
		if (hop >= HOPS_MAX)
			return -ELOOP;
		ssize_t k = readlinkat(f->pfd, f->name, buf[hop & 1], PATH_MAX - 1);
		if (k < 0)
			return -errno;
		buf[hop & 1][k] = '\0';
		p = buf[hop & 1];
		if (fdn && p[0] == '/' && (*fdn = fd_spelling(x, p)) >= 0)
			return 1;
		/* a relative target is relative to the link's directory */
		base = f->borrowed ? fcntl(f->pfd, F_DUPFD_CLOEXEC, 0) : f->pfd;
		f->pfd = -1;
		f->borrowed = false;
		if (base < 0)
			return -errno;
	}
}

/* The final name of path, which must exist, for a change of it (not followed at the end unless
 * follow): 0, -ENOENT, -GUARD_REFUSED (ref filled) or resolve_final's error. */
static int existing_name(struct ctx *x, int dirfd, const char *path, bool follow, struct final *f,
			 struct stat *st, struct guard_refusal *ref)
{
	int r;

	if ((r = resolve_final(x, dirfd, path, follow, f, st, NULL)) < 0)
		return r;
	if (!st->st_mode)
		return -ENOENT;
	return check(x, f->real, MAND_WRITE, ref) || create_own(x, f->real, st, ref)
		   ? -GUARD_REFUSED
		   : 0;
}

/* The final name of path, which must not exist yet (nor be . or ..: then taken, the call's
 * EEXIST or EADDRINUSE), to be made for op: 0, taken, -GUARD_REFUSED (ref filled) or
 * resolve_final's error. */
static int new_name(struct ctx *x, int dirfd, const char *path, enum mand_op op, int taken,
		    struct final *f, struct stat *st, struct guard_refusal *ref)
{
	int r;

	if ((r = resolve_final(x, dirfd, path, false, f, st, NULL)) < 0)
		return r;
	if (st->st_mode || dots(f->name))
		return taken;
	return check(x, f->real, op, ref) ? -GUARD_REFUSED : 0;
}

/* f's name with the trailing slash it was spelled with (the kernel's checks of a directory). */
static void name_slashed(char (*buf)[NAME_MAX + 3], const struct final *f)
{
	snprintf(*buf, sizeof(*buf), "%s%s", f->name, f->slash ? "/" : "");
}

/* ---- opens ---- */

/* /dev/fd/N, /proc/{self,thread-self,PID}/fd/N, …/task/TID/fd/N: N, or -1. */
static int fd_spelling(const struct ctx *x, const char *path)
{
	char n[PATH_MAX];
	const char *s;
	char *e;
	long v;

	if (strlen(path) >= sizeof(n))
		return -1;
	strcpy(n, path);
	path_normalize(n);
	if (strncmp(n, "/dev/fd/", 8) == 0) {
		s = n + 8;
	} else if (strncmp(n, "/proc/", 6) == 0) {
		s = n + 6;
		if (strncmp(s, "self/", 5) == 0) {
			s += 5;
		} else if (strncmp(s, "thread-self/", 12) == 0) {
			s += 12;
		} else {
			v = strtol(s, &e, 10);
			if (e == s || *e != '/' ||
			    v != status_field((pid_t)x->req->pid, "NStgid:", 10))
				return -1;
			s = e + 1;
		}
		if (strncmp(s, "task/", 5) == 0) {
			v = strtol(s + 5, &e, 10);
			if (e == s + 5 || *e != '/')
				return -1;
			s = e + 1;
		}
		if (strncmp(s, "fd/", 3) != 0)
			return -1;
		s += 3;
	} else {
		return -1;
	}
	v = strtol(s, &e, 10);
	if (e == s || *e || v < 0 || v > 1 << 20)
		return -1;
	return (int)v;
}

/* ---- the command's own per-process files ---- */

/* What a process may write of its own under /proc, natively, without a link in the way: each
 * file's write is judged by the kernel against the writer (the command, which writes to the
 * descriptor), not the opener. Not here: loginuid (audit identity), uid_map, gid_map,
 * setgroups, projid_map (user-namespace set-up), mem (a second way into memory), the magic
 * links (root, cwd, exe, fd, map_files: they lead out of /proc). */
static const char *const own_files[] = {
    "oom_score_adj",   "oom_adj",	"comm",		"clear_refs",
    "coredump_filter", "timerslack_ns", "attr/current", "attr/exec",
};

/* The host tid of the sandbox thread nstid in the host thread group tgid (a thread of the
 * caller's own process), or -ESRCH. */
static int task_host_tid(pid_t tgid, long nstid)
{
	char p[64];
	int r = -ESRCH;

	snprintf(p, sizeof(p), "/proc/%d/task", (int)tgid);
	int d = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0)
		return -ESRCH;
	DIR *dir = fdopendir(d);
	if (!dir) {
		close(d);
		return -ESRCH;
	}
	for (struct dirent *e; r < 0 && (e = readdir(dir));) {
		char *end;
		long t = strtol(e->d_name, &end, 10);

		if (end != e->d_name && !*end && status_field((pid_t)t, "NSpid:", 10) == nstid &&
		    status_field((pid_t)t, "Tgid:", 10) == tgid)
			r = (int)t;
	}
	closedir(dir);
	return r;
}

/* path (absolute) spelled /proc/{self,thread-self,PID}/X or …/task/TID/X, PID the caller's own
 * process in the sandbox: X is opened on the host's /proc/TGID/X (…/task/TID/X), the caller's
 * own task found from the notification, never by following the sandbox's procfs — nothing of
 * the string is resolved but its words. 1: not such a spelling; else 0 (ans->fd) or -errno:
 * another file of the process is refused as a file it may not write (EACCES). */
static int proc_own(struct ctx *x, const char *path, uint64_t fl, struct guard_answer *ans)
{
	char n[PATH_MAX], p[PATH_MAX];
	pid_t tid = (pid_t)x->req->pid;
	const char *s;
	char *e;
	long tgid, task = -1; /* the host tid of task/TID, or of thread-self */

	if (strlen(path) >= sizeof(n) || strncmp(path, "/proc/", 6) != 0)
		return 1;
	/* the words, slashes collapsed; "." and ".." make it something else */
	size_t k = 0;
	for (const char *c = path; *c; c++)
		if (!(c[0] == '/' && k && n[k - 1] == '/'))
			n[k++] = *c;
	n[k] = '\0';
	if (strstr(n, "/./") || strstr(n, "/../") || ends_with(n, "/.") || ends_with(n, "/.."))
		return 1;
	s = n + 6;
	if ((tgid = status_field(tid, "Tgid:", 10)) <= 0)
		return -ESRCH;
	if (strncmp(s, "self/", 5) == 0) {
		s += 5;
	} else if (strncmp(s, "thread-self/", 12) == 0) {
		s += 12;
		task = tid;
	} else {
		long v = strtol(s, &e, 10);

		if (e == s || *e != '/' || v != status_field(tid, "NStgid:", 10))
			return 1;
		s = e + 1;
	}
	if (task < 0 && strncmp(s, "task/", 5) == 0) {
		long v = strtol(s + 5, &e, 10);

		if (e == s + 5 || *e != '/')
			return -EACCES;
		task = v == status_field(tid, "NSpid:", 10) ? tid : task_host_tid((pid_t)tgid, v);
		if (task < 0)
			return -ENOENT;
		s = e + 1;
	}
	bool own = false;
	for (size_t i = 0; i < sizeof(own_files) / sizeof(own_files[0]); i++)
		own = own || strcmp(s, own_files[i]) == 0;
	if (!own)
		return -EACCES;
	if ((fl & O_CREAT) && (fl & O_EXCL))
		return -EEXIST;
	int w = task >= 0 ? snprintf(p, sizeof(p), "/proc/%ld/task/%ld/%s", tgid, task, s)
			  : snprintf(p, sizeof(p), "/proc/%ld/%s", tgid, s);
	if (w < 0 || (size_t)w >= sizeof(p))
		return -ENAMETOOLONG;
	int fd =
	    open(p, (int)(fl & ~(uint64_t)(O_CREAT | O_EXCL)) | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	/* the caller still waits: the tids read were its own, not a reused one's */
	int r = valid(x);
	if (r < 0) {
		close(fd);
		return r;
	}
	ans->fd = fd;
	return 0;
}

struct fifo_job {
	int listener, dfd; /* dfd -1: re-open ofd through /proc/thread-self/fd */
	int ofd;
	pid_t tid;
	uint64_t id;
	char name[NAME_MAX + 2];
	uint64_t flags;
	unsigned fdflags;
};

static int fifo_try(const struct fifo_job *j, int more)
{
	char p[48];

	if (j->dfd >= 0)
		return openat(j->dfd, j->name,
			      (int)(j->flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY) | more);
	snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", j->ofd);
	return open(p, (int)(j->flags | O_CLOEXEC | O_NOCTTY) | more);
}

/* A mask of /proc/TID/status ("SigPnd:"), in hex; 0 if it cannot be read. */
static uint64_t status_mask(const char *buf, const char *key)
{
	const char *s = strstr(buf, key);

	return s ? strtoull(s + strlen(key), NULL, 16) : 0;
}

/* The waiting thread has a signal to take: one sent to it alone, or to its process when it is
 * the only thread (the kernel woke it for that one, so its return to user space acts on it),
 * not blocked. An ignored signal is never pending. */
static bool signal_waiting(pid_t tid)
{
	char p[48], buf[4096];

	proc_path(p, sizeof(p), tid, "status");
	if (!proc_read(p, buf, sizeof(buf)))
		return false;
	uint64_t pend = status_mask(buf, "\nSigPnd:");
	const char *t = strstr(buf, "\nThreads:");

	if (t && strtol(t + strlen("\nThreads:"), NULL, 10) == 1)
		pend |= status_mask(buf, "\nShdPnd:");
	return (pend & ~status_mask(buf, "\nSigBlk:")) != 0;
}

/* The kernel's own wait for a FIFO's reader ends on a signal with ERESTARTSYS, which the
 * return to user space makes EINTR or a restart as the handler's SA_RESTART says (a stop
 * signal stops, then restarts). The guard's wait does the same: the open is tried again
 * without blocking until a reader comes, the thread has a signal to take, or it no longer
 * waits (killed). Only ever answered with a signal pending, so never seen as an errno. */
#define GUARD_ERESTARTSYS 512

static int fifo_wait_reader(const struct fifo_job *j)
{
	struct timespec ts = {0, 500 * 1000};
	uint64_t id = j->id;

	for (;;) {
		int fd = fifo_try(j, O_NONBLOCK);

		if (fd >= 0) {
			int f = fcntl(fd, F_GETFL);

			if (f < 0 || fcntl(fd, F_SETFL, f & ~O_NONBLOCK) < 0) {
				close(fd);
				return -EIO;
			}
			return fd;
		}
		if (errno != ENXIO)
			return -errno;
		bool sig = signal_waiting(j->tid);

		/* after the read: a tid that still waits is the one read */
		if (ioctl(j->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0)
			return -ENOENT;
		if (sig)
			return -GUARD_ERESTARTSYS;
		nanosleep(&ts, NULL);
		if (ts.tv_nsec < 8 * 1000 * 1000)
			ts.tv_nsec *= 2;
	}
}

static void *fifo_open(void *arg)
{
	struct fifo_job *j = arg;
	struct guard_answer a = {.fd = -1, .fdflags = j->fdflags};
	int fd;

	if ((j->flags & O_ACCMODE) == O_WRONLY)
		fd = fifo_wait_reader(j);
	else if ((fd = fifo_try(j, 0)) < 0)
		fd = -errno;
	if (fd < 0)
		a.error = fd;
	a.fd = fd < 0 ? -1 : fd;
	guard_send(j->listener, j->id, &a);
	if (j->dfd >= 0)
		close(j->dfd);
	if (j->ofd >= 0)
		close(j->ofd);
	free(j);
	return NULL;
}

/* A FIFO (or pipe) opened for writing blocks until a reader comes, one opened for reading
 * until a writer does: a write open is tried without blocking first (ENXIO: no reader yet);
 * what would block goes to a thread of its own, so the other notifications go on; a write
 * open waits there as fifo_wait_reader says (signals taken). dfd/name,
 * or (dfd -1) ofd re-opened; ofd is taken. Returns 0 with ans->fd or ans->async, or -errno. */
static int fifo_open_for(struct ctx *x, int dfd, const char *name, int ofd, uint64_t flags,
			 struct guard_answer *ans)
{
	uint64_t fl = flags & ~(uint64_t)(O_CREAT | O_EXCL | O_CLOEXEC);
	char p[48];
	int fd = -1, r;

	if ((fl & O_ACCMODE) == O_WRONLY) {
		if (dfd >= 0) {
			fd = openat(dfd, name,
				    (int)(fl | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY));
		} else {
			snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", ofd);
			fd = open(p, (int)(fl | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
		}
		if (fd >= 0) {
			int f = fcntl(fd, F_GETFL);

			if (f < 0 || fcntl(fd, F_SETFL, f & ~O_NONBLOCK) < 0) {
				close(fd);
				r = -EIO;
				goto out;
			}
			ans->fd = fd;
			r = 0;
			goto out;
		}
		if (errno != ENXIO) {
			r = -errno;
			goto out;
		}
	}
	struct fifo_job *j = calloc(1, sizeof(*j));
	pthread_attr_t at;
	pthread_t t;

	if (!j) {
		r = -ENOMEM;
		goto out;
	}
	j->listener = x->listener;
	j->id = x->req->id;
	j->tid = (pid_t)x->req->pid;
	j->dfd = dfd >= 0 ? fcntl(dfd, F_DUPFD_CLOEXEC, 0) : -1;
	j->ofd = ofd;
	snprintf(j->name, sizeof(j->name), "%s", name ? name : "");
	j->flags = fl;
	j->fdflags = ans->fdflags;
	if (dfd >= 0 && j->dfd < 0) {
		free(j);
		r = -errno;
		goto out;
	}
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	/* 64 KiB failed under a sanitizer build (pthread_create refused it: the writer got an
	 * error and its reader waited for ever); 256 KiB is still small */
	pthread_attr_setstacksize(&at, 256 * 1024);
	r = pthread_create(&t, &at, fifo_open, j);
	pthread_attr_destroy(&at);
	if (r) {
		if (j->dfd >= 0)
			close(j->dfd);
		free(j);
		r = -r;
		goto out;
	}
	ans->async = true;
	return 0; /* ofd is the helper's now */
out:
	if (ofd >= 0)
		close(ofd);
	return r;
}

/* A FIFO on a mount the sandbox has read-only is not opened for writing (the command's own
 * open is refused there, EROFS; the guard's was not): what is written reaches whatever host
 * process reads it (systemd's initctl FIFO as root, a debugger's vgdb pipe, a player's
 * command FIFO) as a unix socket's would. fd: the FIFO (O_PATH will do). -EROFS, 0, or
 * -errno. */
static int fifo_read_only(int fd, const struct stat *st, bool wr)
{
	struct statvfs sv;

	if (!wr || !S_ISFIFO(st->st_mode))
		return 0;
	if (fstatvfs(fd, &sv) < 0)
		return -errno;
	return (sv.f_flag & ST_RDONLY) ? -EROFS : 0;
}

/* One "NAME:\t<number>" field of an fdinfo text (base). */
static bool fdinfo_field(const char *buf, const char *name, int base, unsigned long long *v)
{
	size_t k = strlen(name);

	for (const char *s = buf; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
		if (strncmp(s, name, k) == 0) {
			*v = strtoull(s + k, NULL, base);
			return true;
		}
	return false;
}

/* The command's descriptor n (ofd: our O_PATH of its file) changed through (a write re-open,
 * truncate, chmod, chown, an attribute): where that file is on a mount of the caller's, not
 * the sandbox's (a descriptor the caller passed, `sbxsh -c cmd < ~/.bashrc`, or one re-opened
 * from it), the kernel judges the write against the caller's mount and the sandbox's
 * read-only view is bypassed; so only what the caller opened for writing is changed there
 * (n itself open for writing, the same file). A terminal or /dev/null's kin: as the kernel.
 * 0 or -EROFS. */
static int caller_file_write(const struct ctx *x, int n, int ofd)
{
	char p[64], buf[1024], *line = NULL;
	unsigned long long om, oi, nm, ni, nf;
	size_t cap = 0;
	struct stat st;
	bool ours = false;
	FILE *f;

	if (n < 0 || (fstat(ofd, &st) == 0 && S_ISCHR(st.st_mode)))
		return 0;
	snprintf(p, sizeof(p), "/proc/thread-self/fdinfo/%d", ofd);
	if (!proc_read(p, buf, sizeof(buf)) || !fdinfo_field(buf, "mnt_id:", 10, &om) ||
	    !fdinfo_field(buf, "ino:", 10, &oi))
		return -EROFS;
	snprintf(p, sizeof(p), "/proc/%d/mountinfo", (int)x->req->pid);
	if (!(f = fopen(p, "re")))
		return -EROFS;
	while (!ours && getline(&line, &cap, f) > 0)
		ours = strtoull(line, NULL, 10) == om;
	free(line);
	fclose(f);
	if (ours)
		return 0; /* a mount of the sandbox: its read-only flag holds */
	snprintf(p, sizeof(p), "/proc/%d/fdinfo/%d", (int)x->req->pid, n);
	if (proc_read(p, buf, sizeof(buf)) && fdinfo_field(buf, "flags:", 8, &nf) &&
	    fdinfo_field(buf, "mnt_id:", 10, &nm) && fdinfo_field(buf, "ino:", 10, &ni) &&
	    nm == om && ni == oi && ((nf & O_ACCMODE) == O_WRONLY || (nf & O_ACCMODE) == O_RDWR))
		return 0;
	return -EROFS;
}

/* One of the command's own descriptors re-opened (/proc/self/fd/N): through our own
 * /proc/thread-self/fd, never the sandbox's procfs, and not for writing a protected file. */
static int reopen_fd(struct ctx *x, int n, uint64_t flags, struct guard_answer *ans,
		     struct guard_refusal *ref)
{
	char p[48], real[PATH_MAX];
	struct stat st;
	int ofd, r;

	snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)x->req->pid, n);
	if ((ofd = open(p, O_PATH | O_CLOEXEC)) < 0)
		return -errno;
	if ((r = valid(x)) < 0)
		goto out;
	if (flags & O_NOFOLLOW) {
		r = -ELOOP;
		goto out;
	}
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
		r = -EEXIST;
		goto out;
	}
	if (fstat(ofd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (S_ISSOCK(st.st_mode)) {
		r = -ENXIO;
		goto out;
	}
	/* procfs and sysfs judge an open against the opener, ours: a descriptor of another
	 * process's file (O_PATH /proc/2/mem, the shell's memory) is not re-opened, as
	 * final_of refuses the path itself */
	if ((r = kernel_fs(ofd)) < 0)
		goto out;
	if (fd_name(ofd, real, sizeof(real)) == 0 &&
	    (check(x, real, MAND_WRITE, ref) ||
	     (((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC)) &&
	      (create_own(x, real, &st, ref) || shared_file(x, real, &st, ref))))) {
		r = -GUARD_REFUSED;
		goto out;
	}
	if ((r = fifo_read_only(ofd, &st, (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC))) <
	    0)
		goto out;
	if (((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC)) &&
	    (r = caller_file_write(x, n, ofd)) < 0)
		goto out;
	if (S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK)) {
		r = fifo_open_for(x, -1, NULL, ofd, flags, ans);
		ofd = -1; /* taken */
		goto out;
	}
	snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", ofd);
	/* O_NOCTTY: a terminal re-opened here must not become the front end's */
	r = open(p, (int)(flags & ~(uint64_t)(O_CREAT | O_EXCL)) | O_CLOEXEC | O_NOCTTY);
	if (r < 0) {
		r = -errno;
		goto out;
	}
	ans->fd = r;
	r = 0;
out:
	if (ofd >= 0)
		close(ofd);
	return r;
}

static int cmd_tty(pid_t tid)
{
	char p[48], b[1024];
	int fd, t = -1;
	ssize_t k;

	proc_path(p, sizeof(p), tid, "stat");
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	k = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (k <= 0)
		return -1;
	b[k] = '\0';
	char *s = strrchr(b, ')');
	if (!s || sscanf(s + 2, "%*c %*d %*d %*d %d", &t) != 1)
		return -1;
	return t;
}

/* "/dev/tty": the command's controlling terminal. The sandbox is a session of its own (bwrap
 * --new-session), so that is a pty of the sandbox's devpts — the stage's behind the relay, or
 * one a command made — opened as /dev/pts/N in the sandbox's view, and only if it is that
 * device. Never the front end's own /dev/tty: a device number does not say which devpts it
 * belongs to (the caller's /dev/pts/0 and the sandbox's are both 136:0). No terminal: ENXIO. */
static int do_open(struct ctx *x, const struct guard_call *c, struct guard_answer *ans,
		   struct guard_refusal *ref);
static int open_tty(struct ctx *x, const struct guard_call *c, struct guard_answer *ans,
		    struct guard_refusal *ref)
{
	int t = cmd_tty((pid_t)x->req->pid), r;
	dev_t dev = (dev_t)(unsigned)t;
	char pts[32];
	struct guard_call pc = *c;
	struct stat st;

	if (t <= 0 || major(dev) != UNIX98_PTY_SLAVE_MAJOR) /* a pty is all the sandbox has */
		return -ENXIO;
	snprintf(pts, sizeof(pts), "/dev/pts/%u", minor(dev));
	pc.path = pts;
	if ((r = do_open(x, &pc, ans, ref)) != 0 || ans->fd < 0)
		return r == -ENOENT ? -ENXIO : r;
	if (fstat(ans->fd, &st) < 0 || !S_ISCHR(st.st_mode) || st.st_rdev != dev) {
		close(ans->fd);
		ans->fd = -1;
		return -ENXIO;
	}
	return 0;
}

static int do_open(struct ctx *x, const struct guard_call *c, struct guard_answer *ans,
		   struct guard_refusal *ref)
{
	uint64_t fl = c->flags;
	bool wr = (fl & O_ACCMODE) != O_RDONLY || (fl & O_TRUNC);
	struct final f = {.pfd = -1};
	struct stat st;
	int r, n;

	ans->fdflags = (fl & O_CLOEXEC) ? O_CLOEXEC : 0;
	if (c->op == GOP_OPENAT2 && c->resolve)
		return -ENOSYS; /* RESOLVE_* of the command's own: it falls back to openat */
	if (c->path[0] == '/' && (n = fd_spelling(x, c->path)) >= 0)
		return reopen_fd(x, n, fl, ans, ref);
	const char *rest;

	if (c->path[0] == '/' && fd_dir_spelling(x, c->path, &rest) < 0 &&
	    (r = proc_own(x, c->path, fl, ans)) != 1)
		return r;
	if (strcmp(c->path, "/dev/tty") == 0)
		return open_tty(x, c, ans, ref);
	if ((fl & __O_TMPFILE) == __O_TMPFILE) {
		int d = -1, b = -1;
		bool bown = false;
		struct stat bs;

		const char *p = c->path;
		int dirfd = c->dirfd, fn;

		if ((r = set_umask(x)) < 0)
			return r;
		if (p[0] == '/' && (fn = fd_dir_spelling(x, p, &rest)) >= 0) {
			dirfd = fn;
			p = rest;
		}
		if (p[0] != '/' && (b = cmd_dir(x, dirfd, &bown, &bs)) < 0)
			return b;
		d = open_dir(x, b, p);
		if (b >= 0 && bown)
			close(b);
		if (d < 0)
			return d;
		if ((r = kernel_fs(d)) < 0)
			;
		else if ((r = valid(x)) == 0 &&
			 (r = openat(d, ".", (int)(fl | O_CLOEXEC | O_NOCTTY), new_mode(c->mode))) <
			     0)
			r = -errno;
		if (r >= 0 && x->mc->ncreates) {
			char dr[PATH_MAX];

			if (fd_name(d, dr, sizeof(dr)) == 0 && mandatory_create(x->mc, dr) >= 0)
				own_add(x->gc, r);
		}
		close(d);
		if (r < 0)
			return r;
		ans->fd = r;
		x->made = true;
		return 0;
	}
	/* O_CREAT|O_EXCL follows nothing and opens nothing that is there (a symlink included:
	 * EEXIST): a name allowed is created, or the kernel says why not, with no look first */
	if ((fl & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
		if ((r = final_of(x, -1, c->dirfd, c->path, &f)) < 0)
			goto out;
		if (!f.slash && !dots(f.name) && !check(x, f.real, MAND_WRITE, ref)) {
			if ((r = set_umask(x)) < 0 || (r = valid(x)) < 0)
				goto out;
			r = openat(f.pfd, f.name, (int)(fl | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY),
				   new_mode(c->mode));
			if (r < 0) {
				r = -errno;
				goto out;
			}
			if (x->mc->ncreates && mandatory_create(x->mc, f.real) >= 0)
				own_add(x->gc, r);
			ans->fd = r;
			x->made = true;
			r = 0;
			goto out;
		}
		ref->refused = false; /* the look below decides (EEXIST comes first) */
	}
	for (int again = 0; again < 8; again++) {
		bool follow = !(fl & O_NOFOLLOW) && !((fl & O_CREAT) && (fl & O_EXCL));

		final_drop(&f);
		r = resolve_final(x, c->dirfd, c->path, follow, &f, &st, &n);
		if (r == 1) {
			r = reopen_fd(x, n, fl, ans, ref);
			goto out;
		}
		if (r < 0)
			goto out;
		if (S_ISLNK(st.st_mode)) {
			/* not followed: O_NOFOLLOW, or O_CREAT|O_EXCL meeting any name */
			r = (fl & O_CREAT) && (fl & O_EXCL) ? -EEXIST : -ELOOP;
			goto out;
		}
		if (dots(f.name) || (f.slash && (!st.st_mode || S_ISDIR(st.st_mode)))) {
			if (st.st_mode && !S_ISDIR(st.st_mode)) {
				r = -ENOTDIR;
			} else if (!st.st_mode) {
				r = (fl & O_CREAT) ? -EISDIR : -ENOENT;
			} else if (wr || (fl & O_CREAT)) {
				r = (fl & O_CREAT) && (fl & O_EXCL) ? -EEXIST : -EISDIR;
			} else {
				r = (valid(x) == 0 &&
				     (r = openat(f.pfd, f.name,
						 (int)(fl | O_CLOEXEC | O_NOCTTY))) >= 0)
					? (ans->fd = r, 0)
					: -errno;
			}
			goto out;
		}
		if (f.slash) {
			r = -ENOTDIR;
			goto out;
		}
		if (st.st_mode) {
			if ((fl & O_CREAT) && (fl & O_EXCL)) {
				r = -EEXIST;
				goto out;
			}
			if (S_ISDIR(st.st_mode) && (wr || (fl & O_CREAT))) {
				r = -EISDIR;
				goto out;
			}
			if (wr &&
			    (check(x, f.real, MAND_WRITE, ref) || create_own(x, f.real, &st, ref) ||
			     shared_file(x, f.real, &st, ref))) {
				r = -GUARD_REFUSED;
				goto out;
			}
			if (wr && S_ISFIFO(st.st_mode)) {
				int pf = openat(f.pfd, f.name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

				r = pf < 0 ? -errno : fifo_read_only(pf, &st, wr);
				if (pf >= 0)
					close(pf);
				if (r < 0)
					goto out;
			}
		} else {
			if (!(fl & O_CREAT)) {
				r = -ENOENT;
				goto out;
			}
			if (check(x, f.real, MAND_WRITE, ref)) {
				r = -GUARD_REFUSED;
				goto out;
			}
			if ((r = set_umask(x)) < 0)
				goto out;
		}
		if ((r = valid(x)) < 0)
			goto out;
		if (S_ISFIFO(st.st_mode) && !(fl & O_NONBLOCK)) {
			r = fifo_open_for(x, f.pfd, f.name, -1, fl, ans);
			goto out;
		}
		/* a name that exists is opened, not created: O_EXCL on a missing one keeps a
		 * concurrent creator's file from being taken for ours */
		uint64_t ofl = fl | O_NOFOLLOW | O_CLOEXEC;
		if (st.st_mode)
			ofl &= ~(uint64_t)O_CREAT;
		else
			ofl |= O_EXCL;
		r = openat(f.pfd, f.name, (int)ofl | O_NOCTTY, new_mode(c->mode));
		if (r >= 0 && x->mc->ncreates && mandatory_create(x->mc, f.real) >= 0) {
			struct stat now;

			/* what was opened is what was checked (a name changed meanwhile: look
			 * again); what was made is this command's */
			if (st.st_mode && wr &&
			    (fstat(r, &now) < 0 || now.st_dev != st.st_dev ||
			     now.st_ino != st.st_ino)) {
				close(r);
				continue;
			}
			if (!st.st_mode)
				own_add(x->gc, r);
		}
		if (r >= 0) {
			ans->fd = r;
			x->made = !st.st_mode; /* opened with O_CREAT|O_EXCL */
			r = 0;
			goto out;
		}
		r = -errno;
		/* the name changed meanwhile (made, removed, a symlink): look again */
		if ((r == -EEXIST && !(fl & O_EXCL)) || (r == -ENOENT && st.st_mode) ||
		    (r == -ELOOP && !(fl & O_NOFOLLOW)))
			continue;
		goto out;
	}
	r = -EAGAIN;
out:
	final_drop(&f);
	return r;
}

/* ---- the other calls ---- */

/* The command's descriptor n as our O_PATH descriptor of the same file (*ofd), after the
 * mandatory check of its name when it has one (an O_TMPFILE or a removed file has none: no
 * name to protect). link: for a second name (nothing in a create grant's directory gets one),
 * else a change (only of what this command made there). 0, -GUARD_REFUSED (ref filled) or
 * -errno (-EBADF: no such descriptor). */
static int cmd_fd_file(struct ctx *x, int n, bool link, int *ofd, struct guard_refusal *ref)
{
	char p[48], real[PATH_MAX];
	struct stat st;
	long i;
	int r;

	*ofd = -1;
	if (n == AT_FDCWD)
		proc_path(p, sizeof(p), (pid_t)x->req->pid, "cwd");
	else if (n < 0)
		return -EBADF;
	else
		snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)x->req->pid, n);
	if ((r = open(p, O_PATH | O_CLOEXEC)) < 0)
		return errno == ENOENT ? -EBADF : -errno;
	if (fd_name(r, real, sizeof(real)) == 0 &&
	    (check(x, real, MAND_WRITE, ref) ||
	     (link && x->mc->ncreates && (i = mandatory_create(x->mc, real)) >= 0 &&
	      create_refused(x, i, real, ref)) ||
	     (!link && x->mc->ncreates && (fstat(r, &st) < 0 || create_own(x, real, &st, ref))))) {
		close(r);
		return ref->refused ? -GUARD_REFUSED : -EBADF;
	}
	*ofd = r;
	return 0;
}

/* The command's descriptor n was opened with O_PATH (its /proc/PID/fdinfo/N "flags:"). */
static bool cmd_fd_opath(const struct ctx *x, int n)
{
	char p[64], buf[512];

	if (n < 0)
		return false;
	snprintf(p, sizeof(p), "/proc/%d/fdinfo/%d", (int)x->req->pid, n);
	if (!proc_read(p, buf, sizeof(buf)))
		return false;
	const char *s = strstr(buf, "flags:");
	return s && (strtoul(s + 6, NULL, 8) & O_PATH);
}

/* Our /proc/thread-self/fd/FD: a path that reaches exactly that file. */
static void self_fd(char *buf, size_t n, int fd)
{
	snprintf(buf, n, "/proc/thread-self/fd/%d", fd);
}

/* A set-user-ID bit, or a set-group-ID bit on anything but a directory (where it only passes
 * the group on): a file that runs as the command's user for whoever runs it on the host, past
 * every sandbox (root's for root). -EPERM, else 0. */
/* A device node's mode, owner and attributes are never changed: the sandbox's /dev binds the
 * host's nodes (as root, `chmod 600 /dev/null` closed the host's to every other user), and a
 * terminal the caller passed is the caller's (fchmod(1, 0644) let every local user read what
 * the user types, after the command too). The kernel would let the owner do both. */
static int device_refused(enum guard_op op, mode_t type)
{
	if ((op == GOP_CHMOD || op == GOP_CHOWN || op == GOP_XATTR) &&
	    (S_ISCHR(type) || S_ISBLK(type)))
		return -EPERM;
	return 0;
}

static int setid_refused(uint64_t mode, mode_t type)
{
	if ((mode & S_ISUID) || ((mode & S_ISGID) && !S_ISDIR(type)))
		return -EPERM;
	return 0;
}

/* chmod, chown and the attribute calls on one file, ofd (O_PATH), by the path that reaches
 * exactly it. */
static int by_fd(const struct guard_call *c, int ofd)
{
	struct stat st;
	char p[48];
	int r;

	self_fd(p, sizeof(p), ofd);
	switch (c->op) {
	case GOP_CHMOD:
		if (fstat(ofd, &st) < 0)
			return -errno;
		if ((r = setid_refused(c->mode, st.st_mode)) < 0)
			return r;
		r = chmod(p, (mode_t)c->mode);
		break;
	case GOP_CHOWN:
		r = fchownat(ofd, "", (uid_t)c->a, (gid_t)c->b, AT_EMPTY_PATH);
		break;
	case GOP_TRUNCATE:
		r = truncate(p, (off_t)c->a);
		break;
	case GOP_XATTR:
		r = (c->flags & GUARD_X_REMOVE)
			? removexattr(p, c->path2)
			: setxattr(p, c->path2, c->value, c->size, (int)c->a);
		break;
	default:
		r = (errno = ENOSYS, -1);
	}
	return r < 0 ? -errno : 0;
}

/* chmod, chown, the attribute calls on a descriptor (AT_EMPTY_PATH, fsetxattr): performed on
 * the same file, after the check of its name — never continued (the kernel would read the
 * path again, and it may name a file by then). */
static int do_by_fd(struct ctx *x, const struct guard_call *c, struct guard_refusal *ref)
{
	int ofd, r;

	/* fchmod, fsetxattr, fremovexattr of an O_PATH descriptor: EBADF, as the kernel (fchmodat2
	 * and a /proc/self/fd/N path take one) */
	if (((c->op == GOP_CHMOD && (c->flags & GUARD_FCHMOD)) ||
	     (c->op == GOP_XATTR && (c->flags & GUARD_X_FD) && !(c->flags & GUARD_X_PROCFD))) &&
	    cmd_fd_opath(x, c->dirfd))
		return -EBADF;
	if ((r = cmd_fd_file(x, c->dirfd, false, &ofd, ref)) < 0)
		return r;
	{
		struct stat dst;

		r = fstat(ofd, &dst) < 0 ? -errno : device_refused(c->op, dst.st_mode);
		if (r < 0) {
			close(ofd);
			return r;
		}
	}
	if (c->dirfd != AT_FDCWD && (r = caller_file_write(x, c->dirfd, ofd)) < 0) {
		close(ofd);
		return r;
	}
	if (c->op == GOP_TRUNCATE || c->op == GOP_CHMOD || c->op == GOP_XATTR) {
		struct stat st;
		char real[PATH_MAX];

		if (fstat(ofd, &st) == 0 && (c->op != GOP_CHMOD || mode_widens(c->mode, &st)) &&
		    fd_name(ofd, real, sizeof(real)) == 0 && shared_file(x, real, &st, ref)) {
			close(ofd);
			return -GUARD_REFUSED;
		}
	}
	if ((r = valid(x)) == 0)
		r = by_fd(c, ofd);
	close(ofd);
	return r;
}

/* A file named by a descriptor linked to a name (an O_TMPFILE put in place): the source is
 * the command's descriptor n, the target checked like any other new name. */
static int link_fd(struct ctx *x, const struct guard_call *c, int n, struct guard_refusal *ref)
{
	struct final g = {.pfd = -1};
	struct stat st, st2;
	char p[48];
	int ofd, r;

	if ((r = cmd_fd_file(x, n, true, &ofd, ref)) < 0)
		return r == -EBADF && c->path[0] ? -ENOENT : r;
	/* an O_PATH descriptor of a symbolic link links the link */
	if (fstat(ofd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if ((r = new_name(x, c->dirfd2, c->path2, S_ISLNK(st.st_mode) ? MAND_LINK : MAND_WRITE,
			  -EEXIST, &g, &st2, ref)) < 0)
		goto out;
	/* into a create grant's directory: only a file this command made there and gave no
	 * name yet (its O_TMPFILE) */
	if (x->mc->ncreates && !dots(g.name) &&
	    (st.st_nlink != 0 || own_find(x->gc, &st) < 0 || !S_ISREG(st.st_mode)) &&
	    create_new(x, g.real, 0, ref)) {
		r = -GUARD_REFUSED;
		goto out;
	}
	if ((r = valid(x)) < 0)
		goto out;
	self_fd(p, sizeof(p), ofd);
	r = linkat(AT_FDCWD, p, g.pfd, g.name, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
out:
	final_drop(&g);
	close(ofd);
	return r;
}

/* setxattr, lsetxattr, removexattr, lremovexattr by path: the final name checked, then the
 * attribute set on exactly that file. A symlink's own attributes (the l- calls on a link) are
 * refused with EPERM, as the kernel says for user.* there. */
static int do_xattr(struct ctx *x, const struct guard_call *c, struct guard_refusal *ref)
{
	struct final f = {.pfd = -1};
	struct stat st;
	bool follow = !(c->flags & GUARD_X_NOFOLLOW);
	int r, ofd = -1;

	if ((r = existing_name(x, c->dirfd, c->path, follow, &f, &st, ref)) < 0)
		goto out;
	if (S_ISLNK(st.st_mode) || (r = device_refused(c->op, st.st_mode)) < 0) {
		r = -EPERM;
		goto out;
	}
	/* a shared file's attributes are its every name's: a POSIX ACL
	 * (system.posix_acl_access) sets the mode bits chmod may not widen */
	if (shared_file(x, f.real, &st, ref)) {
		r = -GUARD_REFUSED;
		goto out;
	}
	if ((ofd = openat(f.pfd, f.name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = -errno;
		goto out;
	}
	if ((r = valid(x)) == 0)
		r = by_fd(c, ofd);
out:
	if (ofd >= 0)
		close(ofd);
	final_drop(&f);
	return r;
}

/* mkdir, mknod: a new name */
static int name_make(struct ctx *x, const struct guard_call *c, struct guard_refusal *ref)
{
	struct final f = {.pfd = -1};
	struct stat st;
	int r;

	if ((r = resolve_final(x, c->dirfd, c->path, false, &f, &st, NULL)) < 0)
		goto out;
	if (st.st_mode || dots(f.name)) {
		r = -EEXIST;
		goto out;
	}
	if (c->op == GOP_MKNOD && f.slash) {
		r = -ENOENT;
		goto out;
	}
	mode_t kind = c->op == GOP_MKDIR ? S_IFDIR : (mode_t)c->mode & S_IFMT;

	if (check(x, f.real, c->op == GOP_MKDIR ? MAND_MKDIR : MAND_WRITE, ref) ||
	    create_new(x, f.real, kind ? kind : S_IFREG, ref)) {
		r = -GUARD_REFUSED;
		goto out;
	}
	if ((r = set_umask(x)) < 0 || (r = valid(x)) < 0)
		goto out;
	if (c->op == GOP_MKDIR)
		r = mkdirat(f.pfd, f.name, (mode_t)c->mode);
	else
		r = mknodat(f.pfd, f.name, new_mode(c->mode), (dev_t)c->a);
	r = r < 0 ? -errno : 0;
	if (r == 0 && x->mc->ncreates && mandatory_create(x->mc, f.real) >= 0)
		own_add_at(x->gc, f.pfd, f.name, c->op == GOP_MKDIR);
out:
	final_drop(&f);
	return r;
}

/* unlink, rmdir */
static int name_unlink(struct ctx *x, const struct guard_call *c, struct guard_refusal *ref)
{
	struct final f = {.pfd = -1};
	char nm[NAME_MAX + 3];
	struct stat st;
	int r;

	if ((r = resolve_final(x, c->dirfd, c->path, false, &f, &st, NULL)) < 0)
		goto out;
	if (!dots(f.name) && !st.st_mode) {
		r = -ENOENT;
		goto out;
	}
	if (!dots(f.name) && (check(x, f.real, MAND_REMOVE, ref) || create_holder(x, f.real, ref) ||
			      create_own(x, f.real, &st, ref))) {
		r = -GUARD_REFUSED;
		goto out;
	}
	if ((r = valid(x)) < 0)
		goto out;
	name_slashed(&nm, &f);
	r = unlinkat(f.pfd, nm, (int)(c->flags & AT_REMOVEDIR)) < 0 ? -errno : 0;
	if (r == 0 && x->gc->nown && !dots(f.name))
		own_forget(x->gc, &st);
out:
	final_drop(&f);
	return r;
}

/* A rename's side of the create grants: nothing renamed away or replaced there but what this
 * command made, never a directory (it would move what others made with it), nothing moved in
 * but what it made there, and never a create grant's directory or one holding it renamed away
 * or replaced. 1 refused (ref filled), 0 allowed. */
static int create_rename(const struct ctx *x, const struct final *f, const struct stat *st,
			 const struct final *g, const struct stat *st2, bool exchange,
			 struct guard_refusal *ref)
{
	const struct mand_ctx *mc = x->mc;
	long fi, gi;

	if (!mc->ncreates || dots(f->name) || dots(g->name))
		return 0;
	if (create_holder(x, f->real, ref) || (st2->st_mode && create_holder(x, g->real, ref)))
		return 1;
	fi = mandatory_create(mc, f->real);
	gi = mandatory_create(mc, g->real);
	/* what moves: st from f to g; st2 replaced at g, or (exchange) moved to f */
	if (fi >= 0 && (S_ISDIR(st->st_mode) || own_find(x->gc, st) < 0))
		return create_refused(x, fi, f->real, ref);
	if (gi >= 0 && (S_ISDIR(st->st_mode) || own_find(x->gc, st) < 0))
		return create_refused(x, gi, g->real, ref);
	if (st2->st_mode && gi >= 0 && (S_ISDIR(st2->st_mode) || own_find(x->gc, st2) < 0))
		return create_refused(x, gi, g->real, ref);
	if (exchange && st2->st_mode && fi >= 0 &&
	    (S_ISDIR(st2->st_mode) || own_find(x->gc, st2) < 0))
		return create_refused(x, fi, f->real, ref);
	return 0;
}

/* After a rename: what left the create grants' directories, or was replaced, is forgotten. */
static void create_renamed(const struct ctx *x, const struct final *f, const struct stat *st,
			   const struct final *g, const struct stat *st2, bool exchange)
{
	const struct mand_ctx *mc = x->mc;

	if (!x->gc->nown)
		return;
	if (mandatory_create(mc, g->real) < 0)
		own_forget(x->gc, st);
	if (st2->st_mode && (!exchange || mandatory_create(mc, f->real) < 0))
		own_forget(x->gc, st2);
}

/* the rename family (RENAME_EXCHANGE moves both names) */
static int name_rename(struct ctx *x, const struct guard_call *c, struct guard_refusal *ref)
{
	struct final f = {.pfd = -1}, g = {.pfd = -1};
	struct stat st, st2;
	char a[NAME_MAX + 3], b[NAME_MAX + 3];
	int r;

	if ((r = resolve_final(x, c->dirfd, c->path, false, &f, &st, NULL)) < 0 ||
	    (r = resolve_final(x, c->dirfd2, c->path2, false, &g, &st2, NULL)) < 0)
		goto out;
	if (!dots(f.name) && !st.st_mode) {
		r = -ENOENT;
		goto out;
	}
	/* RENAME_EXCHANGE moves the target's object to the source's name too */
	if ((!dots(f.name) &&
	     check(x, f.real,
		   (c->flags & RENAME_EXCHANGE) && S_ISDIR(st2.st_mode) ? MAND_DIR_TO : MAND_REMOVE,
		   ref)) ||
	    (!dots(g.name) && check(x, g.real,
				    S_ISDIR(st.st_mode) ? MAND_DIR_TO
				    : st2.st_mode	? MAND_REMOVE
							: MAND_WRITE,
				    ref))) {
		r = -GUARD_REFUSED;
		goto out;
	}
	/* a symbolic link lands at the target's name (and, exchanged, one at the source's) */
	if ((S_ISLNK(st.st_mode) && !dots(g.name) && check(x, g.real, MAND_LINK, ref)) ||
	    ((c->flags & RENAME_EXCHANGE) && S_ISLNK(st2.st_mode) && !dots(f.name) &&
	     check(x, f.real, MAND_LINK, ref))) {
		r = -GUARD_REFUSED;
		goto out;
	}
	if (create_rename(x, &f, &st, &g, &st2, (c->flags & RENAME_EXCHANGE) != 0, ref)) {
		r = -GUARD_REFUSED;
		goto out;
	}
	if ((r = valid(x)) < 0)
		goto out;
	name_slashed(&a, &f);
	name_slashed(&b, &g);
	r = syscall(SYS_renameat2, f.pfd, a, g.pfd, b, (unsigned)c->flags) < 0 ? -errno : 0;
	if (r == 0 && !dots(f.name) && !dots(g.name))
		create_renamed(x, &f, &st, &g, &st2, (c->flags & RENAME_EXCHANGE) != 0);
	if (r == 0 &&
	    (S_ISDIR(st.st_mode) || ((c->flags & RENAME_EXCHANGE) && S_ISDIR(st2.st_mode)))) {
		ref->moved = true;
		ref->exchange = (c->flags & RENAME_EXCHANGE) != 0;
		snprintf(ref->path, sizeof(ref->path), "%s", f.real);
		snprintf(ref->to, sizeof(ref->to), "%s", g.real);
	}
out:
	final_drop(&f);
	final_drop(&g);
	return r;
}

/* a hard link (or a descriptor linked into place) */
/* A link the command made to st's file (st: before it): its names are all known when it had
 * one, or all the ones before were this command's (guard_cache.linked). */
static void linked_add(struct guard_cache *gc, const struct stat *st)
{
	unsigned i = 0;

	while (i < gc->nlinked &&
	       !(gc->linked[i].dev == st->st_dev && gc->linked[i].ino == st->st_ino))
		i++;
	if (i == gc->nlinked && st->st_nlink != 1)
		return; /* a name this command did not make */
	if (i < gc->nlinked && gc->linked[i].nlink != st->st_nlink) {
		gc->linked[i].nlink = 0; /* a name made elsewhere meanwhile: never again */
		return;
	}
	if (i == gc->nlinked) {
		if (gc->nlinked == GUARD_LINKED)
			memmove(&gc->linked[0], &gc->linked[1],
				--gc->nlinked * sizeof(gc->linked[0]));
		i = gc->nlinked++;
		gc->linked[i].dev = st->st_dev;
		gc->linked[i].ino = st->st_ino;
	}
	gc->linked[i].nlink = st->st_nlink + 1;
}

static int name_link(struct ctx *x, const struct guard_call *c, struct guard_refusal *ref)
{
	struct final f = {.pfd = -1}, g = {.pfd = -1};
	struct stat st, st2;
	int r;
	bool follow;

	/* a descriptor linked into place (an O_TMPFILE): AT_EMPTY_PATH, or its
	 * /proc/self/fd/N followed */
	if (c->flags & AT_EMPTY_PATH && !c->path[0]) {
		r = link_fd(x, c, c->dirfd, ref);
		goto out;
	}
	follow = c->flags & AT_SYMLINK_FOLLOW;
	if (follow && c->path[0] == '/' && (r = fd_spelling(x, c->path)) >= 0) {
		r = link_fd(x, c, r, ref);
		goto out;
	}
	if ((r = resolve_final(x, c->dirfd, c->path, follow, &f, &st, NULL)) < 0 ||
	    (r = resolve_final(x, c->dirfd2, c->path2, false, &g, &st2, NULL)) < 0)
		goto out;
	if (!st.st_mode) {
		r = -ENOENT;
		goto out;
	}
	if (st2.st_mode || dots(g.name)) {
		r = -EEXIST;
		goto out;
	}
	/* a link to a protected file would be a second, unprotected name for it (a symbolic
	 * link's hard link is a symbolic link) */
	long ci;

	if (check(x, f.real, MAND_WRITE, ref) ||
	    check(x, g.real, S_ISLNK(st.st_mode) ? MAND_LINK : MAND_WRITE, ref)) {
		r = -GUARD_REFUSED;
		goto out;
	}
	/* no second name for a file in a create grant's directory, none made there */
	if (x->mc->ncreates &&
	    (((ci = mandatory_create(x->mc, f.real)) >= 0 && create_refused(x, ci, f.real, ref)) ||
	     create_new(x, g.real, 0, ref))) {
		r = -GUARD_REFUSED;
		goto out;
	}
	if ((r = valid(x)) < 0)
		goto out;
	r = linkat(f.pfd, f.name, g.pfd, g.name, 0) < 0 ? -errno : 0;
	if (r == 0 && S_ISREG(st.st_mode))
		linked_add(x->gc, &st);
out:
	final_drop(&f);
	final_drop(&g);
	return r;
}

/* a symbolic link */
static int name_symlink(struct ctx *x, const struct guard_call *c, struct guard_refusal *ref)
{
	struct final g = {.pfd = -1};
	struct stat st2;
	int r;

	if (!c->path[0])
		return -ENOENT;
	if ((r = new_name(x, c->dirfd2, c->path2, MAND_LINK, -EEXIST, &g, &st2, ref)) < 0)
		goto out;
	if (create_new(x, g.real, S_IFLNK, ref)) {
		r = -GUARD_REFUSED;
		goto out;
	}
	if ((r = valid(x)) < 0)
		goto out;
	r = symlinkat(c->path, g.pfd, g.name) < 0 ? -errno : 0;
out:
	final_drop(&g);
	return r;
}

/* truncate, chmod, chown of a name */
static int name_meta(struct ctx *x, const struct guard_call *c, struct guard_refusal *ref)
{
	struct final f = {.pfd = -1};
	struct stat st;
	bool follow = !(c->flags & AT_SYMLINK_NOFOLLOW);
	int r;

	if ((r = existing_name(x, c->dirfd, c->path, follow, &f, &st, ref)) < 0 ||
	    (r = valid(x)) < 0 || (r = device_refused(c->op, st.st_mode)) < 0)
		goto out;
	if ((c->op == GOP_TRUNCATE || (c->op == GOP_CHMOD && mode_widens(c->mode, &st))) &&
	    shared_file(x, f.real, &st, ref)) {
		r = -GUARD_REFUSED;
		goto out;
	}
	if (c->op == GOP_CHOWN) {
		r = fchownat(f.pfd, f.name, (uid_t)c->a, (gid_t)c->b, AT_SYMLINK_NOFOLLOW);
	} else if (c->op == GOP_CHMOD && !S_ISLNK(st.st_mode) &&
		   setid_refused(c->mode, st.st_mode)) {
		r = (errno = EPERM, -1);
	} else if (c->op == GOP_CHMOD) {
		r = S_ISLNK(st.st_mode) ? (errno = EOPNOTSUPP, -1)
					: fchmodat(f.pfd, f.name, (mode_t)c->mode, 0);
	} else if (S_ISDIR(st.st_mode)) {
		r = (errno = EISDIR, -1);
	} else if (!S_ISREG(st.st_mode)) {
		r = (errno = EINVAL, -1);
	} else {
		int fd = openat(f.pfd, f.name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

		r = fd < 0 ? -1 : ftruncate(fd, (off_t)c->a);
		if (fd >= 0) {
			int e = errno;
			close(fd);
			errno = e;
		}
	}
	r = r < 0 ? -errno : 0;
out:
	final_drop(&f);
	return r;
}

/* The command's descriptor n itself (a socket: no path reaches it), through its pidfd. */
static int cmd_socket(struct ctx *x, int n)
{
	long tgid = status_field((pid_t)x->req->pid, "Tgid:", 10);
	int pfd = tgid > 0 ? (int)syscall(SYS_pidfd_open, (pid_t)tgid, 0) : -1, fd;

	if (pfd < 0)
		return tgid > 0 ? -errno : -ESRCH;
	fd = (int)syscall(SYS_pidfd_getfd, pfd, n, 0);
	fd = fd < 0 ? -errno : fd;
	close(pfd);
	return fd == -ENOENT ? -ESRCH : fd;
}

/* A path address bound as the last component, from the checked directory: the guard thread's
 * own cwd (unshare(CLONE_FS)) moved there for the call and back. The socket's address is
 * then that name, not the spelling the command gave (docs/monitor.md, Limits). */
static int bind_at(int sfd, int dfd, const char *name)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	if (strlen(name) >= sizeof(a.sun_path)) {
		r = -ENAMETOOLONG;
	} else if (here < 0 || fchdir(dfd) < 0) {
		r = -errno;
	} else {
		strcpy(a.sun_path, name);
		r = bind(sfd, (struct sockaddr *)&a,
			 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name) + 1));
		r = r < 0 ? -errno : 0;
		if (fchdir(here) < 0 && chdir("/") < 0)
			r = r ? r : -errno;
	}
	if (here >= 0)
		close(here);
	return r;
}

/* bind: performed on the command's socket with the address copied once (a socketpair's end
 * can be bound to a path too, so at every unix_sockets setting). A unix socket's path is a name
 * made like mknod's, checked against the mandatory denies; any other address (abstract, autobind,
 * another family) is bound as given. */
/* The kernel's check of a privileged port, as the command would meet it: the user who made the
 * sandbox's user namespace holds every capability in it from outside, so a bind the guard makes
 * in the sandbox's own network namespace would pass where the command's own (no capability
 * there) gets EACCES. A socket of another namespace (the host's, network = open) is checked by
 * the kernel against this thread, which holds no capability. Ports below 1024: a fresh network
 * namespace's ip_unprivileged_port_start, which the sandbox cannot change (/proc/sys is
 * read-only or not its own). 0 or -EACCES. */
static int inet_privileged(int sfd, const struct guard_call *c)
{
	const struct sockaddr *sa = c->value;
	unsigned port = 0;
	struct stat a, b;
	int ns;

	if (c->size >= sizeof(struct sockaddr_in) && sa->sa_family == AF_INET)
		port = ntohs(((const struct sockaddr_in *)c->value)->sin_port);
	else if (c->size >= sizeof(struct sockaddr_in6) && sa->sa_family == AF_INET6)
		port = ntohs(((const struct sockaddr_in6 *)c->value)->sin6_port);
	if (port == 0 || port >= 1024)
		return 0;
	if ((ns = ioctl(sfd, SIOCGSKNS)) < 0)
		return -EACCES; /* fail closed */
	if (fstat(ns, &a) < 0 || stat("/proc/thread-self/ns/net", &b) < 0)
		a.st_ino = 0, b.st_ino = 1;
	close(ns);
	return a.st_ino == b.st_ino && a.st_dev == b.st_dev ? 0 : -EACCES;
}

static int name_bind(struct ctx *x, const struct guard_call *c, struct guard_refusal *ref)
{
	const struct sockaddr_un *a = c->value;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	struct sockaddr_un own;
	socklen_t ol = sizeof(own);
	struct final f = {.pfd = -1};
	struct stat st;
	char path[sizeof(a->sun_path) + 1];
	int sfd = cmd_socket(x, c->dirfd2), r;

	if (sfd < 0)
		return sfd == -ESRCH ? -ENOENT : sfd;
	memset(&own, 0, sizeof(own));
	if (getsockname(sfd, (struct sockaddr *)&own, &ol) < 0 || own.sun_family != AF_UNIX ||
	    c->size <= off || a->sun_family != AF_UNIX || a->sun_path[0] == '\0') {
		if ((r = inet_privileged(sfd, c)) == 0 && (r = valid(x)) == 0)
			r = bind(sfd, c->value, (socklen_t)c->size) < 0 ? -errno : 0;
		goto out;
	}
	if (c->size > sizeof(*a)) {
		r = -EINVAL; /* as the kernel says */
		goto out;
	}
	memcpy(path, a->sun_path, c->size - off);
	path[c->size - off] = '\0';
	if ((r = new_name(x, AT_FDCWD, path, MAND_WRITE, -EADDRINUSE, &f, &st, ref)) < 0)
		goto out;
	if (create_new(x, f.real, S_IFSOCK, ref)) {
		r = -GUARD_REFUSED;
		goto out;
	}
	if ((r = set_umask(x)) < 0 || (r = valid(x)) < 0)
		goto out;
	r = bind_at(sfd, f.pfd, f.name);
out:
	final_drop(&f);
	close(sfd);
	return r;
}

static int do_name(struct ctx *x, const struct guard_call *c, struct guard_answer *ans,
		   struct guard_refusal *ref)
{
	int r;

	/* chmod, chown, truncate, setxattr of /proc/self/fd/N (or /dev/fd/N): the kernel follows
	 * the descriptor to its file — performed on that file, as for AT_EMPTY_PATH */
	if ((c->op == GOP_CHMOD || c->op == GOP_CHOWN || c->op == GOP_TRUNCATE ||
	     (c->op == GOP_XATTR && !(c->flags & (GUARD_X_FD | GUARD_X_NOFOLLOW)))) &&
	    c->path[0] == '/' && !(c->flags & AT_SYMLINK_NOFOLLOW)) {
		struct guard_call fc = *c;

		if ((fc.dirfd = fd_spelling(x, c->path)) >= 0) {
			fc.path = "";
			fc.flags = c->op == GOP_XATTR ? c->flags | GUARD_X_FD | GUARD_X_PROCFD
						      : AT_EMPTY_PATH;
			r = do_by_fd(x, &fc, ref);
			if (c->op == GOP_CHMOD && r == 0)
				dirs_drop(x->gc);
			return r;
		}
	}
	if ((c->op == GOP_CHMOD || c->op == GOP_CHOWN) && (c->flags & AT_EMPTY_PATH) &&
	    !c->path[0]) {
		r = do_by_fd(x, c, ref);
		if (c->op == GOP_CHMOD && r == 0)
			dirs_drop(x->gc);
		return r;
	}
	switch (c->op) {
	case GOP_XATTR:
		r = (c->flags & GUARD_X_FD) ? do_by_fd(x, c, ref) : do_xattr(x, c, ref);
		break;
	case GOP_MKDIR:
	case GOP_MKNOD:
		r = name_make(x, c, ref);
		break;
	case GOP_UNLINK:
		r = name_unlink(x, c, ref);
		break;
	case GOP_RENAME:
		r = name_rename(x, c, ref);
		break;
	case GOP_LINK:
		r = name_link(x, c, ref);
		break;
	case GOP_SYMLINK:
		r = name_symlink(x, c, ref);
		break;
	case GOP_BIND:
		r = name_bind(x, c, ref);
		break;
	case GOP_TRUNCATE:
	case GOP_CHMOD:
	case GOP_CHOWN:
		r = name_meta(x, c, ref);
		break;
	default:
		r = -ENOSYS;
	}
	/* a name changed (or a directory's search permission): resolve afresh from now on. A call
	 * that failed changed nothing (git unlinks each name before it creates it) */
	if (r == 0 && (c->op == GOP_RENAME || c->op == GOP_UNLINK || c->op == GOP_CHMOD))
		dirs_drop(x->gc);
	/* a directory renamed may bring a repository where a directory was seen without one */
	if (r == 0 && c->op == GOP_RENAME && ref->moved)
		seen_drop(x->gc);
	(void)ans;
	return r;
}

int guard_perform(int listener, const struct mand_ctx *mc, struct guard_cache *gc,
		  const struct seccomp_notif *req, const struct guard_call *c,
		  struct guard_answer *ans, struct guard_refusal *ref)
{
	struct ctx x = {.listener = listener, .gc = gc, .mc = mc, .req = req, .root = gc->root};
	int *root = &gc->root;
	char p[48];
	int r;

	gc->call++; /* what the directory cache lends from here on is this call's */
	memset(ans, 0, sizeof(*ans));
	ans->fd = -1;
	ref->refused = ref->moved = false;
	if (x.root < 0) {
		proc_path(p, sizeof(p), (pid_t)req->pid, "root");
		x.root = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (x.root < 0) {
		r = valid(&x) < 0 ? -ENOENT : -errno;
		if (r == -ENOENT)
			return r;
		ans->error = r;
		return 0;
	}
	r = c->op == GOP_OPEN || c->op == GOP_OPENAT2 ? do_open(&x, c, ans, ref)
						      : do_name(&x, c, ans, ref);
	/* /dev/tty by any other name (/dev//tty, a link to it, a directory descriptor's "tty", a
	 * read-only descriptor's /proc/self/fd/N re-opened): the device 5:0 means the opener's
	 * terminal, and the opener was the front end. Judged by what was opened, not its name; a
	 * file the open made (x.made) is a new regular file, no terminal: no fstat. */
	if (r == 0 && ans->fd >= 0 && (c->op == GOP_OPEN || c->op == GOP_OPENAT2) && !x.made) {
		struct stat st;

		if (fstat(ans->fd, &st) < 0) {
			r = -errno; /* closed below */
		} else if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(TTYAUX_MAJOR, 0)) {
			close(ans->fd);
			ans->fd = -1;
			r = open_tty(&x, c, ans, ref);
		}
	}
	/* Every process of the sandbox has this root (none can chroot or make a mount namespace:
	 * no capability, clone(CLONE_NEWUSER) refused): kept once it was seen valid. */
	if (*root < 0 && valid(&x) == 0)
		*root = x.root;
	else if (x.root != *root)
		close(x.root);
	if (r == -ENOENT && valid(&x) < 0)
		return -ENOENT;
	if (r < 0) {
		if (ans->fd >= 0)
			close(ans->fd);
		ans->fd = -1;
		ans->error = r;
	}
	return 0;
}

int guard_send(int listener, uint64_t id, const struct guard_answer *ans)
{
	int r;

	if (ans->fd >= 0 && !ans->error) {
		struct seccomp_notif_addfd a = {.id = id,
						.flags = SECCOMP_ADDFD_FLAG_SEND,
						.srcfd = (uint32_t)ans->fd,
						.newfd_flags = ans->fdflags};

		r = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
		r = r >= 0 ? 1 : errno == ENOENT ? 0 : -errno;
		close(ans->fd);
		return r;
	}
	struct seccomp_notif_resp resp = {.id = id, .error = ans->error, .val = ans->val};

	r = ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	return r == 0 ? 1 : errno == ENOENT ? 0 : -errno;
}
