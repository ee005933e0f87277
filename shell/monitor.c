/* monitor — answers every seccomp notification of one command and keeps its violations.
 *
 * Rules this file keeps:
 * - Every notification is answered: CONTINUE (the kernel's mounts still decide), or EPERM for
 *   a socket the filter routes here (AF_UNIX; the monitor never turns a refusal into a grant).
 * - Memory of the sandboxed process is read with process_vm_readv only, bounded, and treated
 *   as hostile text, and trusted only once the answer went through after the reading: the
 *   kernel takes it only while the call still waits, so the memory was that process's.
 * - /proc/PID/cwd and /proc/PID/fd/N name sandbox paths: they go to the judge, which translates
 *   them through the mounts; they are never looked up on the host as they are.
 * - No allocation per notification; a path that cannot be read is counted, never waited on.
 */
#include "shell/monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/net.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "platform/linux/filters.h"
#include "platform/linux/notify.h"

#define MON_NR_MAX     512
#define MON_SEEN       8192   /* per-command dedupe slots (hashes, no strings) */
#define MON_VIOL_MAX   256    /* violations kept per command; more are counted */
#define MON_SOCKETCALL 0x7ffe /* x86's multiplexed socket calls */
#define MON_STACK      (1024 * 1024)

struct monitor {
	int fd, stopfd;
	int boot; /* the socket the listener arrives on (monitor_set_boot), or -1 */
	bool hup; /* monitor_ready saw the listener hang up: nothing more can come */
	pthread_t thread;
	bool running;
	struct judge_ctx jc;
	bool did_io;
	int16_t nr_idx[2][MON_NR_MAX]; /* [native, x86] syscall number → index in the table */
	uint32_t arch[2];
	const struct notify_call *calls;
	unsigned ncalls;
	unsigned *jflags; /* JF_* per table index */
	uint64_t seen[MON_SEEN];
	size_t nseen;
	struct mon_viol *viol;
	size_t nviol;
	struct strv roots;
	bool saw_git;
	bool nscd; /* the host runs nscd: glibc's probe of it is a real refusal */
	void (*sink)(const struct mon_viol *v, void *arg);
	void *sink_arg;
	struct mon_stats st;
};

/* What one call names. */
struct named {
	char path[2][PATH_MAX];
	enum viol_kind kind[2];
	unsigned flags[2];
	int n;
};

static unsigned jflags_for(const char *name)
{
	static const struct {
		const char *name;
		unsigned f;
	} t[] = {
	    {"mkdir", JF_MKDIR},   {"mkdirat", JF_MKDIR},   {"utimensat", JF_TIMES},
	    {"utime", JF_TIMES},   {"utimes", JF_TIMES},    {"futimesat", JF_TIMES},
	    {"rmdir", JF_REMOVE},  {"unlink", JF_REMOVE},   {"unlinkat", JF_REMOVE},
	    {"rename", JF_REMOVE}, {"renameat", JF_REMOVE}, {"renameat2", JF_REMOVE},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(t[i].name, name) == 0)
			return t[i].f;
	return 0;
}

/* The syscall numbers come from the build (filters.h): libseccomp resolved them there. */
static void map_arch(struct monitor *m, int a)
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

int monitor_new(struct monitor **out, int listener, const struct judge_ctx *jc)
{
	struct monitor *m = calloc(1, sizeof(*m));
	int r = -ENOMEM;

	*out = NULL;
	if (!m)
		goto out;
	m->fd = listener;
	m->stopfd = -1;
	m->boot = -1;
	m->jc = *jc;
	m->calls = notify_calls(&m->ncalls);
	m->jflags = calloc(m->ncalls, sizeof(*m->jflags));
	m->viol = calloc(MON_VIOL_MAX, sizeof(*m->viol));
	if (!m->jflags || !m->viol)
		goto out;
	for (unsigned i = 0; i < m->ncalls; i++)
		m->jflags[i] = jflags_for(m->calls[i].name);
	map_arch(m, 0);
	map_arch(m, 1);
	m->nscd = monitor_host_exists("/var/run/nscd/socket", NULL);
	*out = m;
	return 0;
out:
	if (m)
		monitor_free(m);
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

/* A NUL-terminated string at addr: first up to the end of its page (nearly every path ends
 * there: one page pinned, not two), then the rest of n if it did not. */
static int read_str(pid_t pid, uint64_t addr, char *buf, size_t n)
{
	size_t first = 4096 - (size_t)(addr % 4096), got = 0;
	ssize_t r;

	if (!addr)
		return -EFAULT;
	if (first < n) {
		r = read_mem(pid, addr, buf, first);
		if (r < 0)
			return (int)r;
		if (memchr(buf, '\0', (size_t)r))
			return 0;
		if ((size_t)r < first)
			return -EFAULT;
		got = first;
	}
	r = read_mem(pid, addr + got, buf + got, n - got);
	if (r < 0)
		return (int)r;
	if (!memchr(buf + got, '\0', (size_t)r))
		return got + (size_t)r == n ? -ENAMETOOLONG : -EFAULT;
	return 0;
}

/* The sandbox path behind a directory descriptor (AT_FDCWD: the cwd). */
static int fd_path(pid_t pid, int fd, char *buf, size_t n)
{
	char link[64];
	ssize_t k;

	if (fd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
	else
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)pid, fd);
	k = readlink(link, buf, n - 1);
	if (k < 0)
		return -errno;
	buf[k] = '\0';
	return buf[0] == '/' ? 0 : -ENOENT; /* pipe:[…], socket:[…], anon_inode:… */
}

/* Fills out with the absolute sandbox path of argument pair (dirfd, path). */
static int resolve(const struct seccomp_notif *req, uint8_t dirfd_arg, uint8_t path_arg, char *out,
		   size_t n)
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
	r = fd_path((pid_t)req->pid, fd, out, n);
	if (r < 0)
		return r;
	if (rel[0]) {
		size_t l = strlen(out);

		if (l + 1 + strlen(rel) >= n)
			return -ENAMETOOLONG;
		out[l] = '/';
		strcpy(out + l + 1, rel);
	}
	judge_normalize(out);
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

static int name_call(const struct seccomp_notif *req, const struct notify_call *c, unsigned jf,
		     struct named *nm)
{
	int r, err;

	nm->n = 0;
	if (c->path == NOTIFY_NOARG)
		return 0;
	r = resolve(req, c->dirfd, c->path, nm->path[0], sizeof(nm->path[0]));
	if (r < 0)
		return r;
	nm->flags[0] = jf;
	switch (c->op) {
	case NOP_READ:
		nm->kind[0] = VK_READ;
		break;
	case NOP_EXEC:
		nm->kind[0] = VK_EXEC;
		break;
	case NOP_OPEN:
		nm->kind[0] = open_writes(req, c, &err) ? VK_WRITE : VK_READ;
		if (err)
			return err;
		break;
	default:
		nm->kind[0] = VK_WRITE;
		break;
	}
	nm->n = 1;
	if (c->path2 != NOTIFY_NOARG) {
		r = resolve(req, c->dirfd2, c->path2, nm->path[1], sizeof(nm->path[1]));
		if (r < 0)
			return r;
		nm->kind[1] = VK_WRITE;
		nm->flags[1] = jf & ~JF_REMOVE;
		nm->n = 2;
	}
	return 0;
}

/* ---- recording ---- */

static uint64_t hash_of(enum viol_kind k, unsigned flags, const char *s)
{
	uint64_t h = 1469598103934665603ULL ^ ((uint64_t)k << 8 | flags);

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h ? h : 1;
}

/* true when h was already there; adds it otherwise (a full table stops adding). */
static bool seen_add(struct monitor *m, uint64_t h, bool add)
{
	size_t i = (size_t)(h % MON_SEEN);

	for (size_t k = 0; k < MON_SEEN; k++, i = (i + 1) % MON_SEEN) {
		if (m->seen[i] == h)
			return true;
		if (m->seen[i] == 0) {
			if (add && m->nseen < MON_SEEN * 3 / 4) {
				m->seen[i] = h;
				m->nseen++;
			}
			return false;
		}
	}
	return false;
}

static void keep(struct monitor *m, const struct verdict *v, const char *call, pid_t pid)
{
	struct mon_viol *x;

	if (m->nviol >= MON_VIOL_MAX) {
		m->st.dropped++;
		return;
	}
	x = &m->viol[m->nviol];
	x->path = strdup(v->path);
	if (!x->path) {
		m->st.dropped++;
		return;
	}
	x->kind = v->kind;
	x->why = v->why;
	x->rule = v->rule;
	x->mandatory = v->mandatory;
	x->call = call;
	x->pid = pid;
	m->nviol++;
	if (m->sink)
		m->sink(x, m->sink_arg);
}

static bool exists_hook(const char *path, void *arg)
{
	struct monitor *m = arg;

	m->did_io = true;
	return m->jc.exists ? m->jc.exists(path, m->jc.arg) : false;
}

static void judge_one(struct monitor *m, enum viol_kind kind, unsigned jf, const char *path,
		      const char *call, pid_t pid)
{
	struct judge_ctx jc = m->jc;
	struct verdict v;
	uint64_t h = hash_of(kind, jf, path);

	if (kind == VK_EXEC) {
		const char *b = strrchr(path, '/');

		if (b && strcmp(b + 1, "git") == 0)
			m->saw_git = true;
	}
	if ((jf & JF_REMOVE) && judge_is_grant_root(&m->jc, path) && strv_find(&m->roots, path) < 0)
		strv_push(&m->roots, path);
	if (seen_add(m, h, false))
		return;
	jc.exists = exists_hook;
	jc.arg = m;
	m->did_io = false;
	int r = judge_path(&jc, kind, path, jf, &v);

	if (r == 1 || m->did_io)
		seen_add(m, h, true);
	/* one record per (kind, host path), whatever call or flags led there */
	if (r == 1 && !seen_add(m, hash_of(kind, 0xff, v.path), true))
		keep(m, &v, call, pid);
}

/* ---- one notification ---- */

static int respond(struct monitor *m, uint64_t id, int error)
{
	struct seccomp_notif_resp resp = {.id = id};

	if (error)
		resp.error = error;
	else
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	m->st.notifications++;
	if (ioctl(m->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0)
		return 1;
	return errno == ENOENT ? 0 : -errno; /* ENOENT: interrupted, or the process died */
}

/* x86's socketcall(SYS_SOCKET, args): the filter cannot see the domain, so every one comes
 * here and every one is refused, as the stage's filter refuses them when unmonitored. */
static int handle_socketcall(struct monitor *m, const struct seccomp_notif *req)
{
	uint32_t domain = 0;
	bool unix_ = read_mem((pid_t)req->pid, (uint32_t)req->data.args[1], &domain,
			      sizeof(domain)) == sizeof(domain) &&
		     domain == AF_UNIX;
	int r = respond(m, req->id, (uint32_t)req->data.args[0] == SYS_SOCKET ? -EPERM : 0);

	if (unix_ && r > 0) {
		struct verdict v;

		judge_unix(&v);
		if (!seen_add(m, hash_of(VK_UNIX, 0, ""), true))
			keep(m, &v, "socketcall", (pid_t)req->pid);
	}
	return r;
}

static int handle(struct monitor *m, const struct seccomp_notif *req)
{
	int a = req->data.arch == m->arch[0] ? 0 : req->data.arch == m->arch[1] ? 1 : -1;
	int idx = (a >= 0 && req->data.nr >= 0 && req->data.nr < MON_NR_MAX)
		      ? m->nr_idx[a][req->data.nr]
		      : -1;
	const struct notify_call *c;
	static __thread struct named nm;
	int r;

	if (idx == MON_SOCKETCALL)
		return handle_socketcall(m, req);
	if (idx < 0)
		return respond(m, req->id, 0);
	c = &m->calls[idx];
	if (c->op == NOP_UNIX) {
		struct verdict v;
		unsigned type = (unsigned)req->data.args[1];

		r = respond(m, req->id, -EPERM);
		/* glibc asks nscd on every passwd/group lookup, with exactly this socket type:
		 * where the host runs no nscd the refusal changes nothing, so it is noise. */
		if ((type & ~(unsigned)(SOCK_NONBLOCK | SOCK_CLOEXEC)) == SOCK_STREAM &&
		    (type & SOCK_NONBLOCK) && (type & SOCK_CLOEXEC) && !m->nscd)
			return r;
		judge_unix(&v);
		if (!seen_add(m, hash_of(VK_UNIX, 0, ""), true))
			keep(m, &v, c->name, (pid_t)req->pid);
		return r;
	}
	r = name_call(req, c, m->jflags[idx], &nm);
	if (r < 0) {
		m->st.unknown += r != -ENOENT;
		nm.n = 0;
	}
	/* The answer is the validity check (no SECCOMP_IOCTL_NOTIF_ID_VALID round trip): it is
	 * taken only while the call still waits on it, i.e. the process that was read is the one
	 * that asked. Refused (gone meanwhile): what was read may not be its memory. */
	r = respond(m, req->id, 0);
	for (int i = 0; r > 0 && i < nm.n; i++)
		judge_one(m, nm.kind[i], nm.flags[i], nm.path[i], c->name, (pid_t)req->pid);
	return r < 0 ? r : 0;
}

static int recv_one(struct monitor *m)
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

int monitor_dispatch(struct monitor *m, int timeout_ms)
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

/* The listener from the boot socket (readable now); false when the stage sent none. */
static bool take_listener(struct monitor *m)
{
	int fd = -1;

	if (notify_fd_recv(m->boot, &fd) < 0)
		return false; /* EOF: the stage died before installing its filter */
	notify_listener_setup(fd);
	m->fd = fd;
	close(m->boot);
	m->boot = -1;
	return true;
}

static void *loop(void *arg)
{
	struct monitor *m = arg;
	struct pollfd p[2] = {{.fd = m->fd, .events = POLLIN}, {.fd = m->stopfd, .events = POLLIN}};

	for (;;) {
		int r = poll(p, 2, -1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (p[0].revents & POLLIN) {
			if (recv_one(m) < 0)
				break;
			continue;
		}
		if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			break;
		if (p[1].revents & POLLIN) {
			while (monitor_dispatch(m, 0) == 1)
				;
			break;
		}
	}
	return NULL;
}

int monitor_start(struct monitor *m)
{
	sigset_t all, old;
	pthread_attr_t at;
	int r;

	/* the thread's stop signal; only this threaded form needs it */
	if (m->stopfd < 0 && (m->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
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

void monitor_set_boot(struct monitor *m, int sock)
{
	m->boot = sock;
}

int monitor_poll_fd(const struct monitor *m)
{
	return m->fd >= 0 ? (m->hup ? -1 : m->fd) : m->boot;
}

void monitor_ready(struct monitor *m, short revents)
{
	if (m->fd < 0) {
		if (m->boot >= 0 && (revents & (POLLIN | POLLHUP | POLLERR)) && !take_listener(m)) {
			close(m->boot);
			m->boot = -1;
		}
		return;
	}
	if (revents & POLLIN) {
		if (recv_one(m) < 0)
			m->hup = true;
	} else if (revents & (POLLHUP | POLLERR | POLLNVAL)) {
		m->hup = true; /* no process holds the filter any more */
	}
}

void monitor_drain(struct monitor *m)
{
	if (m && m->fd >= 0 && !m->hup)
		while (monitor_dispatch(m, 0) == 1)
			;
}

void monitor_stop(struct monitor *m)
{
	uint64_t one = 1;

	if (!m || !m->running)
		return;
	if (write(m->stopfd, &one, sizeof(one)) < 0) {
		/* an eventfd write fails only on overflow: the thread is already told */
	}
	pthread_join(m->thread, NULL);
	m->running = false;
}

void monitor_set_sink(struct monitor *m, void (*fn)(const struct mon_viol *v, void *arg), void *arg)
{
	m->sink = fn;
	m->sink_arg = arg;
}

int monitor_fd(const struct monitor *m)
{
	return m->fd;
}

const struct mon_viol *monitor_violations(const struct monitor *m, size_t *n)
{
	*n = m->nviol;
	return m->viol;
}

const struct mon_stats *monitor_stats(const struct monitor *m)
{
	return &m->st;
}

const struct strv *monitor_root_removals(const struct monitor *m)
{
	return &m->roots;
}

bool monitor_saw_git(const struct monitor *m)
{
	return m->saw_git;
}

void monitor_free(struct monitor *m)
{
	if (!m)
		return;
	monitor_stop(m);
	if (m->fd >= 0)
		close(m->fd);
	if (m->stopfd >= 0)
		close(m->stopfd);
	if (m->boot >= 0)
		close(m->boot);
	for (size_t i = 0; m->viol && i < m->nviol; i++)
		free(m->viol[i].path);
	free(m->viol);
	free(m->jflags);
	strv_release(&m->roots);
	free(m);
}

bool monitor_host_exists(const char *path, void *arg)
{
	struct stat st;

	(void)arg;
	return fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}
