/* monitor_src — the Linux event source of the violation monitor (platform/monitor_src.h):
 * answers every seccomp notification of one command and emits what each call named.
 *
 * Rules this file keeps:
 * - Every notification is answered: CONTINUE (the kernel's mounts still decide), or EPERM for
 *   a socket the filter routes here (AF_UNIX; the monitor never turns a refusal into a grant),
 *   and EPERM for any call it cannot map (an ABI or number not in its table): only a call the
 *   monitor knows is ever let through.
 * - Memory of the sandboxed process is read with process_vm_readv only, bounded, and treated
 *   as hostile text, and trusted only once the answer went through after the reading: the
 *   kernel takes it only while the call still waits, so the memory was that process's.
 * - /proc/PID/cwd and /proc/PID/fd/N name sandbox paths: they go out in events (the judge
 *   translates them through the mounts); they are never looked up on the host as they are.
 * - No allocation per notification; a path that cannot be read is counted, never waited on.
 */
#include "platform/monitor_src.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/net.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "platform/linux/filters.h"
#include "platform/linux/guard.h"
#include "platform/linux/notify.h"
#include "platform/path.h"

#define MON_NR_MAX     512
#define MON_SOCKETCALL 0x7ffe /* x86's multiplexed socket calls */
#define MON_STACK      (1024 * 1024)

struct mon_src {
	int fd;
	int boot;	   /* the socket the listener arrives on (msrc_set_boot), or -1 */
	uint32_t last_tid; /* the last call answered came from this thread */
	bool sync;	   /* the listener wakes synchronously (notify_listener_setup) */
	bool hup;	   /* the thread saw the listener hang up: nothing more can come */
	pthread_t thread;
	bool running;
	atomic_bool stop; /* msrc_stop asks the thread to end */
	msrc_fn *emit;
	void *emit_arg;
	int16_t nr_idx[2][MON_NR_MAX]; /* [native, x86] syscall number → index in the table */
	uint32_t arch[2];
	const struct notify_call *calls;
	unsigned ncalls;
	unsigned *jflags;      /* MSRC_MKDIR… per table index */
	struct cwd_cache *cwd; /* allocated at the first cwd read */
	bool cwd_ok;	       /* the level notifies every cwd_event call (msrc_set_level) */
	struct msrc_stats st;
	/* the guard (docs/monitor.md "The guard"): the calls it performs, per table index */
	uint8_t *gop;
	const struct mand_ctx *mc;
	struct guard_cache gc;
	bool quiet;    /* monitor = off: the guard works, no call's paths are read */
	bool no_reads; /* off, writes: reads are not judged (chdir notifies for the guard) */
};

/* The cwd of recent threads, as /proc/TID/cwd read it (a readlink is a third of the cost of a
 * relative open's notification). An entry is only good while nothing could have changed it:
 * - a call that may change a cwd or rename or remove a directory (NOTIFY_CWD_MOVES) empties the
 *   cache, and it stays unused until that call is over: the thread that made it makes another
 *   call, or is gone. More such threads at once than MON_CWD_PENDING: unused from there on
 *   (correct, slower);
 * - a call that makes a task (NOTIFY_CWD_TASK) empties it: the new task's tid may be one an
 *   entry names, and it makes no call before it exists.
 * An exec keeps the cwd. Threads that do not share their cwd (clone without CLONE_FS, which no
 * C library does) and then exec from a non-leader thread are the one case it can get wrong (the
 * exec'ing thread takes the leader's tid); the kernel's mounts decide access either way. */
#define MON_CWD		8
#define MON_CWD_PENDING 8

struct cwd_cache {
	struct {
		uint32_t tid, len;
		char path[496]; /* a longer cwd is read each time */
	} e[MON_CWD];
	uint32_t pending[MON_CWD_PENDING];
	unsigned npending;
	bool off;
};

/* What one call names. */
struct named {
	char path[2][PATH_MAX];
	enum msrc_kind kind[2];
	unsigned flags[2];
	int n;
};

static unsigned jflags_for(const char *name)
{
	static const struct {
		const char *name;
		unsigned f;
	} t[] = {
	    {"mkdir", MSRC_MKDIR},   {"mkdirat", MSRC_MKDIR},	{"utimensat", MSRC_TIMES},
	    {"utime", MSRC_TIMES},   {"utimes", MSRC_TIMES},	{"futimesat", MSRC_TIMES},
	    {"rmdir", MSRC_REMOVE},  {"unlink", MSRC_REMOVE},	{"unlinkat", MSRC_REMOVE},
	    {"rename", MSRC_REMOVE}, {"renameat", MSRC_REMOVE}, {"renameat2", MSRC_REMOVE},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(t[i].name, name) == 0)
			return t[i].f;
	return 0;
}

/* What the guard performs for a call of the table (GOP_NONE: answered CONTINUE). */
static uint8_t gop_for(const char *name)
{
	static const struct {
		const char *name;
		uint8_t op;
	} t[] = {
	    {"open", GOP_OPEN},		 {"openat", GOP_OPEN},	       {"openat2", GOP_OPENAT2},
	    {"creat", GOP_OPEN},	 {"mkdir", GOP_MKDIR},	       {"mkdirat", GOP_MKDIR},
	    {"mknod", GOP_MKNOD},	 {"mknodat", GOP_MKNOD},       {"unlink", GOP_UNLINK},
	    {"unlinkat", GOP_UNLINK},	 {"rmdir", GOP_UNLINK},	       {"rename", GOP_RENAME},
	    {"renameat", GOP_RENAME},	 {"renameat2", GOP_RENAME},    {"link", GOP_LINK},
	    {"linkat", GOP_LINK},	 {"symlink", GOP_SYMLINK},     {"symlinkat", GOP_SYMLINK},
	    {"truncate", GOP_TRUNCATE},	 {"truncate64", GOP_TRUNCATE}, {"chmod", GOP_CHMOD},
	    {"fchmodat", GOP_CHMOD},	 {"chown", GOP_CHOWN},	       {"chown32", GOP_CHOWN},
	    {"lchown", GOP_CHOWN},	 {"lchown32", GOP_CHOWN},      {"fchownat", GOP_CHOWN},
	    {"fchmodat2", GOP_CHMOD},	 {"fchmod", GOP_CHMOD},	       {"setxattr", GOP_XATTR},
	    {"lsetxattr", GOP_XATTR},	 {"fsetxattr", GOP_XATTR},     {"removexattr", GOP_XATTR},
	    {"lremovexattr", GOP_XATTR}, {"fremovexattr", GOP_XATTR},  {"bind", GOP_BIND},
	    {"umask", GOP_FACT},	 {"chdir", GOP_FACT},	       {"fchdir", GOP_FACT},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(t[i].name, name) == 0)
			return t[i].op;
	return GOP_NONE;
}

/* The syscall numbers come from the build (filters.h): libseccomp resolved them there. */
static void map_arch(struct mon_src *m, int a)
{
	const struct filters_arch *fa = &filters_arches[a];

	m->arch[a] = fa->arch;
	for (int i = 0; i < MON_NR_MAX; i++)
		m->nr_idx[a][i] = -1;
	for (unsigned i = 0; i < m->ncalls && i < FILTERS_CALLS_MAX; i++)
		if (fa->nr[i] >= 0 && fa->nr[i] < MON_NR_MAX)
			m->nr_idx[a][fa->nr[i]] = (int16_t)i;
	if (fa->socketcall >= 0 && fa->socketcall < MON_NR_MAX)
		m->nr_idx[a][fa->socketcall] = MON_SOCKETCALL;
}

int msrc_new(struct mon_src **out, int listener, const struct mand_ctx *mc, msrc_fn *fn, void *arg)
{
	struct mon_src *m = calloc(1, sizeof(*m));
	int r = -ENOMEM;

	*out = NULL;
	if (!m)
		goto out;
	m->fd = listener;
	m->boot = -1;
	guard_cache_init(&m->gc);
	m->mc = mc;
	m->emit = fn;
	m->emit_arg = arg;
	m->calls = notify_calls(&m->ncalls);
	m->jflags = calloc(m->ncalls, sizeof(*m->jflags));
	m->gop = calloc(m->ncalls, sizeof(*m->gop));
	if (!m->jflags || !m->gop)
		goto out;
	for (unsigned i = 0; i < m->ncalls; i++) {
		m->jflags[i] = jflags_for(m->calls[i].name);
		m->gop[i] = gop_for(m->calls[i].name);
	}
	map_arch(m, 0);
	map_arch(m, 1);
	*out = m;
	return 0;
out:
	if (m)
		msrc_free(m);
	else if (listener >= 0)
		close(listener);
	return r;
}

/* ---- reading the sandboxed process ---- */

/* Reads up to n bytes at addr, split at the page boundary so an unmapped second page still
 * yields the first. Returns the bytes read or -errno. */
static ssize_t read_mem(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	static size_t page;
	struct iovec local = {.iov_base = buf, .iov_len = n};
	struct iovec remote[2];
	int cnt = 1;
	ssize_t r;

	if (!page)
		page = (size_t)sysconf(_SC_PAGESIZE);
	size_t first = page - (size_t)(addr % page);

	remote[0].iov_base = (void *)(uintptr_t)addr;
	remote[0].iov_len = n;
	if (first < n) {
		remote[0].iov_len = first;
		remote[1].iov_base = (void *)(uintptr_t)(addr + first);
		remote[1].iov_len = n - first;
		cnt = 2;
	}
	r = process_vm_readv(pid, &local, 1, remote, (unsigned long)cnt, 0);
	return r < 0 ? -errno : r;
}

/* A NUL-terminated string at addr, read in growing pieces: 256 bytes first (nearly every
 * path ends there: little copied), then to the end of its page (one page pinned, not two),
 * then the rest of n. */
static int read_str(pid_t pid, uint64_t addr, char *buf, size_t n)
{
	size_t first = 4096 - (size_t)(addr % 4096), got = 0;
	const size_t ends[3] = {first < 256 ? first : 256, first, n};

	if (!addr)
		return -EFAULT;
	for (int i = 0; i < 3; i++) {
		size_t end = ends[i] < n ? ends[i] : n;
		ssize_t r;

		if (end <= got)
			continue;
		r = read_mem(pid, addr + got, buf + got, end - got);
		if (r < 0)
			return (int)r;
		if (memchr(buf + got, '\0', (size_t)r))
			return 0;
		if (got + (size_t)r < end)
			return -EFAULT; /* unterminated up to unmapped memory */
		got = end;
	}
	return -ENAMETOOLONG;
}

/* The sandbox path behind a directory descriptor (AT_FDCWD: the cwd). */
static char *put_uint(char *p, unsigned v)
{
	char d[10];
	int k = 0;

	do
		d[k++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (k)
		*p++ = d[--k];
	return p;
}

/* A pending thread that is gone made its last call: drop it. */
static void cwd_reap(struct cwd_cache *c)
{
	for (unsigned i = 0; i < c->npending;)
		if (kill((pid_t)c->pending[i], 0) < 0 && errno == ESRCH)
			c->pending[i] = c->pending[--c->npending];
		else
			i++;
}

static int fd_path(struct mon_src *m, pid_t pid, int fd, char *buf, size_t n)
{
	char link[48], *p = link;
	struct cwd_cache *c = fd == AT_FDCWD && m->cwd_ok && pid > 0 ? m->cwd : NULL;
	unsigned slot = (unsigned)pid % MON_CWD;
	ssize_t k;

	if (c && c->npending)
		cwd_reap(c);
	if (c && !c->off && !c->npending && c->e[slot].tid == (uint32_t)pid && c->e[slot].len < n) {
		memcpy(buf, c->e[slot].path, c->e[slot].len + 1);
		return 0;
	}

	if (fd < 0 && fd != AT_FDCWD)
		return -EBADF;
	memcpy(p, "/proc/", 6);
	p = put_uint(p + 6, (unsigned)pid);
	if (fd == AT_FDCWD) {
		memcpy(p, "/cwd", 5);
	} else {
		memcpy(p, "/fd/", 4);
		*put_uint(p + 4, (unsigned)fd) = '\0';
	}
	k = readlink(link, buf, n - 1);
	if (k < 0)
		return -errno;
	buf[k] = '\0';
	if (buf[0] != '/')
		return -ENOENT; /* pipe:[…], socket:[…], anon_inode:… */
	if (c && !c->off && !c->npending && (size_t)k < sizeof(c->e[slot].path)) {
		c->e[slot].tid = (uint32_t)pid;
		c->e[slot].len = (uint32_t)k;
		memcpy(c->e[slot].path, buf, (size_t)k + 1);
	}
	return 0;
}

/* Fills out with the absolute sandbox path of argument pair (dirfd, path). */
static int resolve(struct mon_src *m, const struct seccomp_notif *req, uint8_t dirfd_arg,
		   uint8_t path_arg, char *out, size_t n)
{
	char rel[PATH_MAX];
	uint64_t addr = req->data.args[path_arg];
	int fd = dirfd_arg == NOTIFY_FD_CWD ? AT_FDCWD : (int)(uint32_t)req->data.args[dirfd_arg];
	int r;

	rel[0] = '\0';
	if (addr) { /* utimensat(fd, NULL, …) names the descriptor itself */
		r = read_str((pid_t)req->pid, addr, rel, sizeof(rel));
		if (r < 0)
			return r;
	}
	if (rel[0] == '/') {
		memcpy(out, rel, strlen(rel) + 1);
		return 0;
	}
	r = fd_path(m, (pid_t)req->pid, fd, out, n);
	if (r < 0)
		return r;
	if (rel[0]) {
		size_t l = strlen(out);

		if (l + 1 + strlen(rel) >= n)
			return -ENAMETOOLONG;
		out[l] = '/';
		strcpy(out + l + 1, rel);
	}
	path_normalize(out);
	return 0;
}

static bool open_writes(const struct seccomp_notif *req, const struct notify_call *c, int *err)
{
	uint64_t fl = req->data.args[c->flags];

	*err = 0;
	if (c->openat2) {
		struct open_how how;
		ssize_t r =
		    read_mem((pid_t)req->pid, req->data.args[c->flags], &how, sizeof(how.flags));

		if (r != (ssize_t)sizeof(how.flags)) {
			*err = -EFAULT;
			return false;
		}
		fl = how.flags;
	}
	if (fl & O_PATH)
		return false;
	return (fl & NOTIFY_OPEN_WRITE_FLAGS) != 0;
}

static int name_call(struct mon_src *m, const struct seccomp_notif *req,
		     const struct notify_call *c, unsigned jf, struct named *nm)
{
	int r, err;

	nm->n = 0;
	if (c->path == NOTIFY_NOARG)
		return 0;
	r = resolve(m, req, c->dirfd, c->path, nm->path[0], sizeof(nm->path[0]));
	if (r < 0)
		return r;
	nm->flags[0] = jf;
	switch (c->op) {
	case NOP_READ:
		nm->kind[0] = MSRC_READ;
		break;
	case NOP_EXEC:
		nm->kind[0] = MSRC_EXEC;
		break;
	case NOP_OPEN:
		nm->kind[0] = open_writes(req, c, &err) ? MSRC_WRITE : MSRC_READ;
		if (err)
			return err;
		break;
	default:
		nm->kind[0] = MSRC_WRITE;
		break;
	}
	nm->n = 1;
	if (c->path2 != NOTIFY_NOARG) {
		r = resolve(m, req, c->dirfd2, c->path2, nm->path[1], sizeof(nm->path[1]));
		if (r < 0)
			return r;
		nm->kind[1] = MSRC_WRITE;
		nm->flags[1] = jf & ~MSRC_REMOVE;
		nm->n = 2;
	}
	return 0;
}

/* ---- events ---- */

static void emit(struct mon_src *m, enum msrc_kind kind, unsigned flags, const char *path,
		 const char *call, pid_t pid, const struct mand_hit *hit)
{
	const struct msrc_event ev = {
	    .kind = kind, .flags = flags, .path = path, .call = call, .pid = pid, .hit = hit};

	m->emit(&ev, m->emit_arg);
}

/* ---- one notification ---- */

/* With the synchronous wake-up the answer wakes the caller on our CPU, where it runs as soon
 * as we sleep: right for a thread calling again and again (one thread and its handler take
 * turns on one CPU, no cross-CPU wake-up), wrong for a second thread, whose CPU is idle while
 * it waits: piled on ours behind the first, it waited up to a time slice (make -j2 left the
 * CPUs idle 40% of the build). So a call from another thread than the last one answered is
 * answered with the wake-up the scheduler places (the flag off for that one answer). */
static int respond(struct mon_src *m, const struct seccomp_notif *req, int error)
{
	struct seccomp_notif_resp resp = {.id = req->id};
	bool async = m->sync && req->pid != m->last_tid;
	int r;

	if (error)
		resp.error = error;
	else
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	m->st.notifications++;
	m->last_tid = req->pid;
	if (async)
		async = notify_sync_wake(m->fd, false) == 0;
	r = ioctl(m->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0 ? 1 : errno == ENOENT ? 0 : -errno;
	if (async)
		notify_sync_wake(m->fd, true);
	return r; /* ENOENT: interrupted, or the process died */
}

/* x86's socketcall(SYS_SOCKET or SYS_SOCKETPAIR, args): the filter cannot see the domain, so
 * every one is refused, as the stage's filter refuses them itself. */
static int handle_socketcall(struct mon_src *m, const struct seccomp_notif *req)
{
	uint32_t domain = 0;
	bool unix_ = read_mem((pid_t)req->pid, (uint32_t)req->data.args[1], &domain,
			      sizeof(domain)) == sizeof(domain) &&
		     domain == AF_UNIX;
	uint32_t call = (uint32_t)req->data.args[0];
	/* SYS_BIND notifies for the guard (libseccomp names i386's bind by both calls), which
	 * cannot take an address from memory the kernel reads again */
	int r = respond(
	    m, req, call == SYS_SOCKET || call == SYS_SOCKETPAIR || call == SYS_BIND ? -EPERM : 0);

	if (unix_ && r > 0)
		emit(m, MSRC_UNIX, 0, NULL, "socketcall", (pid_t)req->pid, NULL);
	return r;
}

/* Every notification: the thread's earlier call is over; a cwd_event call empties the cache. */
static void cwd_note(struct mon_src *m, uint32_t tid, const struct notify_call *c)
{
	struct cwd_cache *cc = m->cwd;

	if (!m->cwd_ok)
		return;
	if (!cc && !(cc = m->cwd = calloc(1, sizeof(*cc)))) {
		m->cwd_ok = false; /* no memory: a readlink every time */
		return;
	}
	for (unsigned i = 0; i < cc->npending; i++)
		if (cc->pending[i] == tid) {
			cc->pending[i] = cc->pending[--cc->npending];
			break;
		}
	if (c && c->cwd_event) {
		for (unsigned i = 0; i < MON_CWD; i++)
			cc->e[i].tid = 0;
		if (c->cwd_event != NOTIFY_CWD_MOVES)
			return;
		if (cc->npending < MON_CWD_PENDING)
			cc->pending[cc->npending++] = tid;
		else
			cc->off = true;
	}
}

/* ---- the guard ---- */

/* Set on the thread that serves once guard_thread_setup made it capless: any other thread
 * refuses the calls the guard performs (fail closed). */
static __thread bool guard_ready;

/* The call as the guard needs it: its raw strings (copied once: the guard never reads the
 * command's memory again) and its arguments by name. false: not one the guard performs (an
 * open without write intent, O_PATH). -errno in *err: what to answer without performing. */
static bool guard_call_of(const struct seccomp_notif *req, const struct notify_call *c, uint8_t op,
			  struct guard_call *g, char (*buf)[PATH_MAX], int *err)
{
	const __u64 *a = req->data.args;
	const char *n = c->name;
	pid_t pid = (pid_t)req->pid;
	int r = 0;

#define INT(i) ((int)(uint32_t)a[i])
	memset(g, 0, sizeof(*g));
	*err = 0;
	g->op = (enum guard_op)op;
	g->dirfd = g->dirfd2 = AT_FDCWD;
	g->path = buf[0];
	g->path2 = buf[1];
	buf[0][0] = buf[1][0] = '\0';
	switch (op) {
	case GOP_OPEN:
	case GOP_OPENAT2: {
		bool at = strcmp(n, "open") != 0 && strcmp(n, "creat") != 0;

		if (at)
			g->dirfd = INT(0);
		/* open and openat: the flags are in the registers; a read open (monitor = on) or
		 * O_PATH is the kernel's, known before the path is read (name_call reads it) */
		if (op == GOP_OPEN && strcmp(n, "creat") != 0 &&
		    (((uint32_t)a[at ? 2 : 1] & O_PATH) ||
		     !((uint32_t)a[at ? 2 : 1] & NOTIFY_OPEN_WRITE_FLAGS)))
			return false;
		r = read_str(pid, a[at ? 1 : 0], buf[0], PATH_MAX);
		if (strcmp(n, "creat") == 0) {
			g->flags = O_CREAT | O_WRONLY | O_TRUNC;
			g->mode = (uint32_t)a[1];
		} else if (op == GOP_OPENAT2) {
			struct open_how how;

			if (a[3] < sizeof(how.flags) * 3) {
				*err = a[3] < 24 ? -EINVAL : 0;
			} else if (read_mem(pid, a[2], &how, sizeof(how)) != (ssize_t)sizeof(how)) {
				*err = -EFAULT;
			}
			if (*err)
				return true;
			g->flags = how.flags;
			g->mode = how.mode;
			g->resolve = how.resolve;
			/* never continued: its flags are in memory, which the command may turn into
			 * O_CREAT after this read. What the guard does not perform (a read, O_PATH)
			 * answers ENOSYS, and callers fall back to openat, whose flags the kernel
			 * reads from the registers. */
			if ((g->flags & O_PATH) || !(g->flags & NOTIFY_OPEN_WRITE_FLAGS)) {
				*err = -ENOSYS;
				return true;
			}
		} else {
			g->flags = (uint32_t)a[at ? 2 : 1];
			g->mode = (uint32_t)a[at ? 3 : 2];
		}
		if (g->flags & O_PATH)
			return false;
		if (!(g->flags & NOTIFY_OPEN_WRITE_FLAGS))
			return false; /* a read open (monitor = on): the kernel's */
		if (!(g->flags & O_CREAT) && (g->flags & O_TMPFILE) != O_TMPFILE)
			g->mode = 0;
		break;
	}
	case GOP_MKDIR:
	case GOP_MKNOD:
	case GOP_TRUNCATE:
	case GOP_CHMOD:
	case GOP_CHOWN: {
		bool at = strncmp(n, "mkdirat", 7) == 0 || strcmp(n, "mknodat") == 0 ||
			  strncmp(n, "fchmodat", 8) == 0 || strcmp(n, "fchownat") == 0;
		int k = at ? 1 : 0;

		/* a descriptor's: as fchmodat2(fd, "", AT_EMPTY_PATH) */
		if (strcmp(n, "fchmod") == 0) {
			g->dirfd = INT(0);
			buf[0][0] = '\0';
			g->mode = (uint32_t)a[1];
			g->flags = AT_EMPTY_PATH | GUARD_FCHMOD;
			break;
		}
		if (at)
			g->dirfd = INT(0);
		r = read_str(pid, a[k], buf[0], PATH_MAX);
		g->mode = (uint32_t)a[k + 1];
		g->a = op == GOP_TRUNCATE ? a[k + 1]
		       : op == GOP_MKNOD  ? a[k + 2]
					  : (uint32_t)a[k + 1];
		g->b = (uint32_t)a[k + 2];
		if (op == GOP_TRUNCATE && strcmp(n, "truncate64") == 0 &&
		    req->data.arch != AUDIT_ARCH_X86_64)
			g->a = (uint32_t)a[1] | (uint64_t)(uint32_t)a[2] << 32;
		if (strncmp(n, "lchown", 6) == 0)
			g->flags = AT_SYMLINK_NOFOLLOW;
		if (strcmp(n, "fchownat") == 0)
			g->flags = (uint32_t)a[4];
		if (strcmp(n, "fchmodat2") == 0)
			g->flags = (uint32_t)a[3] & ~GUARD_FCHMOD;
		if (op == GOP_CHOWN) {
			g->a = (uint32_t)a[k + 1];
			g->b = (uint32_t)a[k + 2];
		}
		/* an empty path with AT_EMPTY_PATH is the descriptor's: performed by it (guard.c),
		 * never continued — the kernel would read the path again */
		break;
	}
	case GOP_XATTR: {
		static __thread char value[65536];
		bool fd = n[0] == 'f', rm = strstr(n, "remove") != NULL;
		const int k = 1; /* name, value, size, flags follow the path or descriptor */

		g->flags = (rm ? GUARD_X_REMOVE : 0) | (n[0] == 'l' ? GUARD_X_NOFOLLOW : 0) |
			   (fd ? GUARD_X_FD : 0);
		if (fd)
			g->dirfd = INT(0);
		else
			r = read_str(pid, a[0], buf[0], PATH_MAX);
		if (r == 0)
			r = read_str(pid, a[k], buf[1], 256);
		if (r == -ENAMETOOLONG)
			r = -ERANGE; /* a name past XATTR_NAME_MAX, as the kernel says */
		g->value = value;
		if (r == 0 && !rm) {
			g->size = (size_t)a[k + 2];
			g->a = (uint32_t)a[k + 3];
			if (g->size > sizeof(value))
				r = -E2BIG;
			else if (g->size &&
				 read_mem(pid, a[k + 1], value, g->size) != (ssize_t)g->size)
				r = -EFAULT;
		}
		break;
	}
	case GOP_UNLINK:
		if (strcmp(n, "unlinkat") == 0) {
			g->dirfd = INT(0);
			r = read_str(pid, a[1], buf[0], PATH_MAX);
			g->flags = (uint32_t)a[2];
		} else {
			r = read_str(pid, a[0], buf[0], PATH_MAX);
			g->flags = strcmp(n, "rmdir") == 0 ? AT_REMOVEDIR : 0;
		}
		break;
	case GOP_RENAME:
	case GOP_LINK:
		if (strcmp(n, "rename") == 0 || strcmp(n, "link") == 0) {
			r = read_str(pid, a[0], buf[0], PATH_MAX);
			if (r == 0)
				r = read_str(pid, a[1], buf[1], PATH_MAX);
		} else {
			g->dirfd = INT(0);
			g->dirfd2 = INT(2);
			r = read_str(pid, a[1], buf[0], PATH_MAX);
			if (r == 0)
				r = read_str(pid, a[3], buf[1], PATH_MAX);
			if (strcmp(n, "renameat") != 0)
				g->flags = (uint32_t)a[4];
		}
		break;
	case GOP_SYMLINK:
		r = read_str(pid, a[0], buf[0], PATH_MAX);
		if (strcmp(n, "symlinkat") == 0) {
			g->dirfd2 = INT(1);
			if (r == 0)
				r = read_str(pid, a[2], buf[1], PATH_MAX);
		} else if (r == 0) {
			r = read_str(pid, a[1], buf[1], PATH_MAX);
		}
		break;
	case GOP_BIND: { /* the address, copied once (bytes, not a string) */
		size_t len = (size_t)(uint32_t)a[2];
		ssize_t got = 0;

		g->dirfd2 = INT(0);
		if (len > sizeof(struct sockaddr_storage))
			r = -EINVAL; /* as the kernel says */
		else if (len && (got = read_mem(pid, a[1], buf[0], len)) < 0)
			r = (int)got;
		else if ((size_t)got < len)
			r = -EFAULT;
		g->value = buf[0];
		g->size = len;
		break;
	}
	default:
		return false;
	}
#undef INT
	*err = r;
	return true;
}

/* Performs the call (guard.h) and answers it: 1 answered, 0 gone, or -errno. */
/* A guarded call that failed is judged as before the guard (the mounts refused it, or the
 * judge decides it was the command's own miss); one that succeeded is no violation and is
 * not judged (no second read of the command's memory, no cwd lookup). */
static bool judge_worthy(int error)
{
	return error != 0 && error != -EEXIST && error != -ENOSYS; /* ENOSYS: the fallback is */
}

static int guard_one(struct mon_src *m, const struct seccomp_notif *req,
		     const struct notify_call *c, const struct guard_call *g, int err, int idx)
{
	struct guard_answer ans;
	static __thread struct guard_refusal ref;
	static __thread struct named nm;
	bool async_wake;
	int r;

	if (!guard_ready && !err)
		err = -EPERM;
	if (err) {
		memset(&ans, 0, sizeof(ans));
		ans.fd = -1;
		ans.error = err;
		ref.refused = ref.moved = false;
	} else if (guard_perform(m->fd, m->mc, &m->gc, req, g, &ans, &ref) < 0) {
		return 0; /* the caller went away */
	} else if (ref.moved && !ans.error && !m->quiet) {
		const struct msrc_event ev = {.kind = MSRC_MOVED,
					      .flags = ref.exchange ? MSRC_EXCHANGE : 0,
					      .path = ref.path,
					      .to = ref.to,
					      .call = c->name,
					      .pid = (pid_t)req->pid};

		m->emit(&ev, m->emit_arg);
	}
	nm.n = 0;
	/* read while the call still waits: what is read is that process's */
	if (!m->quiet && !ref.refused && judge_worthy(ans.error) &&
	    name_call(m, req, c, m->jflags[idx], &nm) < 0)
		nm.n = 0;
	m->st.notifications++;
	/* reported before the answer: the line comes before what the command then prints */
	if (ref.refused)
		emit(m, MSRC_REFUSED, m->jflags[idx], ref.path, c->name, (pid_t)req->pid, &ref.hit);
	for (int i = 0; i < nm.n; i++)
		emit(m, nm.kind[i], nm.flags[i], nm.path[i], c->name, (pid_t)req->pid, NULL);
	if (ans.async)
		r = 1; /* a helper thread answers */
	else {
		async_wake = m->sync && req->pid != m->last_tid;
		m->last_tid = req->pid;
		if (async_wake)
			async_wake = notify_sync_wake(m->fd, false) == 0;
		r = guard_send(m->fd, req->id, &ans);
		if (async_wake)
			notify_sync_wake(m->fd, true);
	}
	return r;
}

static int handle(struct mon_src *m, const struct seccomp_notif *req)
{
	int a = req->data.arch == m->arch[0] ? 0 : req->data.arch == m->arch[1] ? 1 : -1;
	int idx = (a >= 0 && req->data.nr >= 0 && req->data.nr < MON_NR_MAX)
		      ? m->nr_idx[a][req->data.nr]
		      : -1;
	const struct notify_call *c;
	static __thread struct named nm;
	int r;

	cwd_note(m, req->pid, idx >= 0 && idx != MON_SOCKETCALL ? &m->calls[idx] : NULL);
	guard_cache_seen(&m->gc, req->pid,
			 idx >= 0 && idx != MON_SOCKETCALL && m->gop[idx] == GOP_FACT);
	if (idx == MON_SOCKETCALL)
		return handle_socketcall(m, req);
	if (idx < 0) /* not a call of the table: never let through unseen */
		return respond(m, req, -EPERM);
	c = &m->calls[idx];
	if (c->op == NOP_UNIX) {
		unsigned type = (unsigned)req->data.args[1];

		r = respond(m, req, -EPERM);
		/* glibc asks nscd on every passwd/group lookup, with exactly this socket type */
		emit(m, MSRC_UNIX,
		     (type & ~(unsigned)(SOCK_NONBLOCK | SOCK_CLOEXEC)) == SOCK_STREAM &&
			     (type & SOCK_NONBLOCK) && (type & SOCK_CLOEXEC)
			 ? MSRC_NSCD
			 : 0,
		     NULL, c->name, (pid_t)req->pid, NULL);
		return r;
	}
	if (m->gop[idx] != GOP_NONE) {
		static __thread struct guard_call g;
		static __thread char gbuf[2][PATH_MAX];
		int err;

		if (guard_call_of(req, c, m->gop[idx], &g, gbuf, &err)) {
			r = guard_one(m, req, c, &g, err, idx);
			return r < 0 ? r : 0;
		}
	}
	r = m->quiet || (c->op == NOP_READ && m->no_reads)
		? (nm.n = 0)
		: name_call(m, req, c, m->jflags[idx], &nm);
	if (r < 0) {
		m->st.unknown += r != -ENOENT;
		nm.n = 0;
	}
	/* The answer is the validity check (no SECCOMP_IOCTL_NOTIF_ID_VALID round trip): it is
	 * taken only while the call still waits on it, i.e. the process that was read is the one
	 * that asked. Refused (gone meanwhile): what was read may not be its memory. */
	r = respond(m, req, 0);
	for (int i = 0; r > 0 && i < nm.n; i++)
		emit(m, nm.kind[i], nm.flags[i], nm.path[i], c->name, (pid_t)req->pid, NULL);
	return r < 0 ? r : 0;
}

static int recv_one(struct mon_src *m)
{
	struct seccomp_notif req;

	memset(&req, 0, sizeof(req));
	if (ioctl(m->fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
		if (errno == ENOENT || errno == EINTR)
			return 0; /* the caller went away before we took it */
		return -errno;
	}
	return handle(m, &req);
}

/* Waits for one notification (up to timeout_ms; -1 forever) and answers it. Returns 1 when one
 * was handled, 0 on timeout, -EPIPE when no process can notify any more, or -errno. */
static int monitor_dispatch(struct mon_src *m, int timeout_ms)
{
	struct pollfd p = {.fd = m->fd, .events = POLLIN};
	int r;

	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return 0;
	if (p.revents & POLLIN) {
		r = recv_one(m);
		return r < 0 ? r : 1;
	}
	return -EPIPE; /* POLLHUP: no process holds the filter any more */
}

/* The listener from the boot socket (readable now); false when the stage sent none. The
 * guard performs calls on a thread without capabilities and with its own umask: that thread
 * serves from the start, or nothing does (the listener closed: the calls fail, closed). */
static bool take_listener(struct mon_src *m)
{
	int fd = -1;

	if (notify_fd_recv(m->boot, &fd) < 0)
		return false; /* EOF: the stage died before installing its filter */
	m->sync = notify_listener_setup(fd) == 1;
	m->fd = fd;
	close(m->boot);
	m->boot = -1;
	if (msrc_start(m) < 0) {
		close(m->fd);
		m->fd = -1;
	}
	return true;
}

/* The thread (msrc_start): blocks in the listener's own RECV until the filter has no process
 * left or msrc_stop asks. msrc_stop's wake-up: SIGURG, whose default is to be ignored, so the
 * handler (there only to interrupt the RECV: installed without SA_RESTART) changes nothing for the
 * rest of sbxsh or for a SIGURG sent from outside. */
#define MON_WAKE SIGURG

static void wake_noop(int sig)
{
	(void)sig;
}

static void *loop(void *arg)
{
	struct mon_src *m = arg;
	sigset_t only;

	sigfillset(&only);
	sigdelset(&only, MON_WAKE);
	pthread_sigmask(SIG_SETMASK, &only, NULL);
	guard_ready = guard_thread_setup() == 0; /* else every guarded call is refused */
	while (!atomic_load_explicit(&m->stop, memory_order_acquire)) {
		struct seccomp_notif req;
		struct pollfd p = {.fd = m->fd, .events = POLLIN};

		memset(&req, 0, sizeof(req));
		if (ioctl(m->fd, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0) {
			if (handle(m, &req) < 0)
				break;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != ENOENT)
			break;
		/* the caller went away, or no process holds the filter any more */
		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL))) {
			m->hup = true;
			break;
		}
	}
	while (!m->hup && monitor_dispatch(m, 0) == 1)
		;
	return NULL;
}

int msrc_start(struct mon_src *m)
{
	struct sigaction sa = {.sa_handler = wake_noop};
	sigset_t all, old;
	pthread_attr_t at;
	int r;

	if (m->running)
		return 0;
	sigemptyset(&sa.sa_mask);
	if (sigaction(MON_WAKE, &sa, NULL) < 0)
		return -errno;
	/* The judge keeps several PATH_MAX buffers per frame: a stack of our choosing, not the C
	 * library's default (musl's is 128 KiB). Only the pages touched are ever used. */
	if ((r = pthread_attr_init(&at)) != 0)
		return -r;
	pthread_attr_setstacksize(&at, MON_STACK);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&m->thread, &at, loop, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&at);
	if (r)
		return -r;
	m->running = true;
	return 0;
}

void msrc_set_level(struct mon_src *m, enum monitor_level level)
{
	m->cwd_ok = level >= MONITOR_FULL; /* chdir and the other cwd_event calls notify */
	m->no_reads = level < MONITOR_FULL;
}

void msrc_set_quiet(struct mon_src *m)
{
	m->quiet = true;
}

void msrc_set_boot(struct mon_src *m, int sock)
{
	m->boot = sock;
}

int msrc_poll_fd(const struct mon_src *m)
{
	return m->fd < 0 ? m->boot : -1; /* then the thread serves the listener */
}

void msrc_ready(struct mon_src *m, short revents)
{
	if (m->fd < 0 && m->boot >= 0 && (revents & (POLLIN | POLLHUP | POLLERR)) &&
	    !take_listener(m)) {
		close(m->boot);
		m->boot = -1;
	}
}

void msrc_stop(struct mon_src *m)
{
	if (!m || !m->running)
		return;
	atomic_store_explicit(&m->stop, true, memory_order_release);
	/* A signal that lands before the thread is in its RECV is lost: send it again until
	 * the thread is gone (it checks the flag before every RECV). */
	for (;;) {
		struct timespec ts;

		pthread_kill(m->thread, MON_WAKE);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 10 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (pthread_timedjoin_np(m->thread, NULL, &ts) != ETIMEDOUT)
			break;
	}
	m->running = false;
}

const struct msrc_stats *msrc_stats(const struct mon_src *m)
{
	return &m->st;
}

void msrc_free(struct mon_src *m)
{
	if (!m)
		return;
	msrc_stop(m);
	if (m->fd >= 0)
		close(m->fd);
	if (m->boot >= 0)
		close(m->boot);
	guard_cache_release(&m->gc);
	free(m->cwd);
	free(m->jflags);
	free(m->gop);
	free(m);
}

/* ---- the stage's part ---- */

_Static_assert(MSRC_STAGE_UNIX == NOTIFY_UNIX && MSRC_STAGE_GUARD == NOTIFY_GUARD,
	       "the stage's flags are notify.h's");

int msrc_stage_setenv(int sock, enum monitor_level level, unsigned flags)
{
	char env[64];

	notify_env_format(env, sizeof(env), sock, level, flags);
	return setenv(NOTIFY_ENV, env, 1) < 0 ? -errno : 0;
}

void msrc_stage_unsetenv(void)
{
	unsetenv(NOTIFY_ENV);
}
