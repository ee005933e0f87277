/* fds — descriptor housekeeping on Linux: close_range(2), which not every C library wraps. */
#include "platform/fds.h"

#include "platform/buf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

int sbx_close_from(int lowfd)
{
	struct rlimit rl;

	if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -errno;
	/* before 5.9: every descriptor below the limit */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	for (rlim_t fd = (rlim_t)lowfd; fd < rl.rlim_cur && fd < 65536; fd++)
		close((int)fd);
	return 0;
}

/* addr's path, "@…" for an abstract name, "" unnamed. */
static void unix_name(const struct sockaddr_un *a, socklen_t len, char *buf, size_t n)
{
	size_t off = offsetof(struct sockaddr_un, sun_path), l;

	buf[0] = '\0';
	if (len <= off || n < 2)
		return;
	l = len - off;
	if (a->sun_path[0] == '\0') { /* abstract: bytes, NUL ones too; shown up to a NUL */
		buf[0] = '@';
		l = l - 1 < n - 2 ? l - 1 : n - 2;
		memcpy(buf + 1, a->sun_path + 1, l);
		buf[1 + l] = '\0';
		buf[1 + strnlen(buf + 1, l)] = '\0';
		return;
	}
	l = strnlen(a->sun_path, l < sizeof(a->sun_path) ? l : sizeof(a->sun_path));
	l = l < n - 1 ? l : n - 1;
	memcpy(buf, a->sun_path, l);
	buf[l] = '\0';
}

/* A socket's kind in words for a message: "a datagram unix socket", "a listening TCP
 * socket (IPv4)", "a netlink socket"… */
static void sock_what(int fd, char *buf, size_t n)
{
	int dom = -1, type = -1, on = 0;
	socklen_t l = sizeof(dom);
	const char *fam, *kind, *state = "";
	char other[32];

	getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l);
	l = sizeof(type);
	getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l);
	l = sizeof(on);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &l) == 0 && on)
		state = "listening ";
	switch (type) {
	case SOCK_STREAM:
		kind = dom == AF_INET || dom == AF_INET6 ? "TCP" : "stream";
		break;
	case SOCK_DGRAM:
		kind = dom == AF_INET || dom == AF_INET6 ? "UDP" : "datagram";
		break;
	case SOCK_SEQPACKET:
		kind = "seqpacket";
		break;
	case SOCK_RAW:
		kind = "raw";
		break;
	default:
		kind = "";
	}
	switch (dom) {
	case AF_UNIX:
		fam = "unix";
		break;
	case AF_INET:
		fam = "IPv4";
		break;
	case AF_INET6:
		fam = "IPv6";
		break;
	case AF_NETLINK:
		fam = "netlink";
		break;
	case AF_PACKET:
		fam = "packet";
		break;
	case AF_VSOCK:
		fam = "vsock";
		break;
	default:
		snprintf(other, sizeof(other), "family %d", dom);
		fam = other;
	}
	snprintf(buf, n, "a %s%s%s%s socket", state, kind, *kind ? " " : "", fam);
}

/* A directory's descriptor or any O_PATH one: openat(fd, …) and /proc/self/fd/N/… resolve in
 * the caller's mounts, not the sandbox's (no read-only bind, no deny_read tmpfs there). A
 * descriptor whose flags cannot be read counts as one (fail closed). */
/* What descriptor fd names (its /proc/self/fd link), cut with "..." past cap; its length. */
static ssize_t fd_name(int fd, char *path, size_t cap)
{
	char proc[32];
	ssize_t l;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if ((l = readlink(proc, path, cap - 1)) < 0)
		l = 0;
	path[l] = '\0';
	if (l == (ssize_t)cap - 1)
		memcpy(path + l - 3, "...", 3);
	return l;
}

static bool fd_place(int fd, const struct stat *st, char *buf, size_t n)
{
	int fl = fcntl(fd, F_GETFL);
	char path[80];
	ssize_t l;

	if (fl >= 0 && !(fl & O_PATH) && !S_ISDIR(st->st_mode))
		return false;
	if (fl < 0 && !S_ISDIR(st->st_mode)) {
		snprintf(buf, n, "a descriptor whose flags cannot be read");
		return true;
	}
	l = fd_name(fd, path, sizeof(path));
	snprintf(buf, n, "%s%s%s", S_ISDIR(st->st_mode) ? "a directory" : "an O_PATH descriptor",
		 l ? S_ISDIR(st->st_mode) ? ", " : " of " : "", path);
	return true;
}

/* File systems whose files are the kernel's interfaces, not data: a descriptor of one acts on
 * the host at each read or write (/proc/PID/mem writes a host process's memory, /proc/PID/
 * environ reads its live environment, a sysfs or cgroup file is a knob), and the namespace,
 * pidfd and anonymous-inode ones are handles on host objects. Numbers from linux/magic.h, kept
 * here so an older header still builds them. */
static const unsigned long kernel_fs[] = {
    0x9fa0UL,	  /* proc */
    0x62656572UL, /* sysfs */
    0x64626720UL, /* debugfs */
    0x74726163UL, /* tracefs */
    0x73636673UL, /* securityfs */
    0x27e0ebUL,	  /* cgroup */
    0x63677270UL, /* cgroup2 */
    0xcafe4a11UL, /* bpf */
    0x62656570UL, /* configfs */
    0x6165676cUL, /* pstore */
    0xde5e81e4UL, /* efivarfs */
    0x42494e4dUL, /* binfmt_misc */
    0x6e736673UL, /* nsfs */
    0x65735543UL, /* fusectl */
    0xf97cff8cUL, /* selinuxfs */
    0x43415d53UL, /* smackfs */
    0x09041934UL, /* anon_inodefs */
    0x50494446UL, /* pidfs */
};

/* Anonymous inodes that hold nothing of the host's beyond what their holder shares with the
 * command, as a pipe does: a counter. Not a wait set, a timer or a signalfd: the command
 * changes them in place for their holder (an epoll entry of a descriptor both have gets a
 * data word of the command's, which a C event loop takes for a pointer; the caller's timer
 * disarmed; its signalfd's mask emptied), red team of session 15. */
static const char *const plain_anon[] = {"anon_inode:[eventfd]"};

/* A descriptor that is no pipe, no file of a real file system, no terminal and no data device
 * (/dev/null, zero, full, random, urandom): a device (tun, fuse, kvm, uinput, the kernel log,
 * a disk), a file of the kernel's (proc, sysfs, cgroup…), a namespace, a pidfd, an inotify or
 * other kernel object. Sockets, directories, O_PATH and pty masters are judged before. A
 * descriptor whose file system cannot be read counts as one (fail closed). */
static bool fd_kernel(int fd, const struct stat *st, char *buf, size_t n)
{
	char path[80];
	struct statfs fs;
	struct termios t;
	ssize_t l;
	const char *kind = "a kernel object";

	if (S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode) || S_ISDIR(st->st_mode))
		return false;
	l = fd_name(fd, path, sizeof(path));
	if (S_ISCHR(st->st_mode)) {
		unsigned int mi = minor(st->st_rdev);

		if (tcgetattr(fd, &t) == 0)
			return false; /* a terminal (a master was judged before) */
		if (major(st->st_rdev) == 1 &&
		    (mi == 3 || mi == 5 || mi == 7 || mi == 8 || mi == 9))
			return false;
		kind = "a device";
	} else if (S_ISBLK(st->st_mode)) {
		kind = "a block device";
	} else if (fstatfs(fd, &fs) == 0) {
		bool k = false;

		for (size_t i = 0; i < sizeof(kernel_fs) / sizeof(*kernel_fs); i++)
			k = k || (unsigned long)fs.f_type == kernel_fs[i];
		if (!k)
			return false; /* a file of a real file system (a memfd's tmpfs too) */
		for (size_t i = 0; i < sizeof(plain_anon) / sizeof(*plain_anon); i++)
			if (strcmp(path, plain_anon[i]) == 0)
				return false;
		if ((unsigned long)fs.f_type != 0x09041934UL &&
		    (unsigned long)fs.f_type != 0x50494446UL &&
		    (unsigned long)fs.f_type != 0x6e736673UL)
			kind = "a file of the kernel's";
	}
	snprintf(buf, n, "%s%s%s", kind, l ? ", " : "", path);
	return true;
}

/* A pty's master side (unix98: TIOCGPTN answers; BSD: major 2): what is written there is typed
 * into the terminal of its slave side, a shell outside the sandbox. */
static bool fd_pty_master(int fd, const struct stat *st, char *buf, size_t n)
{
	unsigned int pn;

	if (!S_ISCHR(st->st_mode))
		return false;
	if (ioctl(fd, TIOCGPTN, &pn) == 0)
		snprintf(buf, n, "a pty master, of /dev/pts/%u", pn);
	else if (major(st->st_rdev) == 2)
		snprintf(buf, n, "a pty master");
	else
		return false;
	return true;
}

enum sbx_fd_reach sbx_sock_peer_only(int fd, char *what, size_t n)
{
	struct stat st;
	struct sockaddr_un a;
	socklen_t len = sizeof(a);
	int dom = -1, type = -1, on = 1;
	socklen_t l = sizeof(dom);
	char place[112];

	if (n)
		what[0] = '\0';
	if (fstat(fd, &st) < 0)
		return SBX_FD_INSIDE;
	if (fd_place(fd, &st, place, sizeof(place))) {
		snprintf(what, n, "%s", place);
		return SBX_FD_PLACE;
	}
	if (fd_pty_master(fd, &st, what, n))
		return SBX_FD_PTY;
	if (!S_ISSOCK(st.st_mode))
		return SBX_FD_INSIDE;
	/* every answer is needed: a socket that does not say what it is reaches too far */
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l) == 0 && dom == AF_UNIX &&
	    (l = sizeof(type), getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) == 0) &&
	    (type == SOCK_STREAM || type == SOCK_SEQPACKET) &&
	    (l = sizeof(on), getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &l) == 0) && !on &&
	    getpeername(fd, (struct sockaddr *)&a, &len) == 0)
		return SBX_FD_INSIDE; /* connected for good: a unix stream is never connected again
				       */
	sock_what(fd, what, n);
	return SBX_FD_SOCKET;
}

/* fd is a caller's socket (not ours, not 0-2's); fills u. */
static bool inherited_socket(int fd, const struct stat *std, struct sbx_unix_fd *u)
{
	struct sockaddr_un a;
	socklen_t len = sizeof(a);
	struct stat st;
	int fl = fcntl(fd, F_GETFD), on = 0, dom = -1;
	socklen_t ol = sizeof(on);

	if (fl < 0 || (fl & FD_CLOEXEC) || fstat(fd, &st) < 0)
		return false;
	u->place = fd_place(fd, &st, u->name, sizeof(u->name));
	u->pty = !u->place && fd_pty_master(fd, &st, u->name, sizeof(u->name));
	u->kernel = !u->place && !u->pty && fd_kernel(fd, &st, u->name, sizeof(u->name));
	if (u->place || u->pty || u->kernel) {
		u->fd = fd;
		u->unix_sock = u->listening = false;
		return true;
	}
	if (!S_ISSOCK(st.st_mode))
		return false;
	for (int i = 0; i < 3; i++)
		if (std[i].st_ino == st.st_ino && std[i].st_dev == st.st_dev)
			return false; /* the socket 0-2 pass anyway */
	u->fd = fd;
	u->name[0] = '\0';
	u->listening = false;
	memset(&a, 0, sizeof(a));
	/* any other family, or one that does not say (fail closed): not a unix socket */
	u->unix_sock = getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &ol) == 0 && dom == AF_UNIX &&
		       getsockname(fd, (struct sockaddr *)&a, &len) == 0 && a.sun_family == AF_UNIX;
	if (!u->unix_sock) {
		sock_what(fd, u->name, sizeof(u->name));
		return true;
	}
	ol = sizeof(on);
	u->listening = getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &ol) == 0 && on;
	if (!u->listening) {
		len = sizeof(a);
		memset(&a, 0, sizeof(a));
		if (getpeername(fd, (struct sockaddr *)&a, &len) < 0)
			len = 0;
	}
	unix_name(&a, len, u->name, sizeof(u->name));
	return true;
}

/* The descriptor numbers from 3 up, from /proc/self/fd; else every number below the limit.
 * *fds malloc'd. */
static int open_fds(int **fds, size_t *n)
{
	DIR *d = opendir("/proc/self/fd");
	size_t cap = 64;
	int *v = malloc(cap * sizeof(*v)), *w;
	struct rlimit rl;

	*n = 0;
	if (!v) {
		if (d)
			closedir(d);
		return -ENOMEM;
	}
	if (!d) {
		if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
			rl.rlim_cur = 65536;
		for (rlim_t fd = 3; fd < rl.rlim_cur && fd < (1u << 20); fd++) {
			if (fcntl((int)fd, F_GETFD) < 0)
				continue;
			if (!(w = array_grow(v, &cap, *n + 1, sizeof(*v)))) {
				free(v);
				return -ENOMEM;
			}
			v = w;
			v[(*n)++] = (int)fd;
		}
		*fds = v;
		return 0;
	}
	for (struct dirent *e; (e = readdir(d));) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end || e->d_name[0] < '0' || e->d_name[0] > '9' || fd < 3 || fd == dirfd(d))
			continue;
		if (!(w = array_grow(v, &cap, *n + 1, sizeof(*v)))) {
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v = w;
		v[(*n)++] = (int)fd;
	}
	closedir(d);
	*fds = v;
	return 0;
}

int sbx_sockets_inherited(int (*fn)(const struct sbx_unix_fd *u, void *arg), void *arg)
{
	struct stat std[3];
	struct sbx_unix_fd u;
	int *fds = NULL, r;
	size_t n;

	for (int i = 0; i < 3; i++)
		if (fstat(i, &std[i]) < 0)
			memset(&std[i], 0xff, sizeof(std[i])); /* matches no socket */
	r = open_fds(&fds, &n);
	for (size_t i = 0; r == 0 && i < n; i++)
		if (inherited_socket(fds[i], std, &u))
			r = fn(&u, arg);
	free(fds);
	return r;
}

int sbx_fd_pin(const char *path, char *real, size_t n)
{
	char proc[32];
	int fd = open(path, O_PATH | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if ((len = readlink(proc, real, n)) < 0 || (size_t)len >= n) {
		int e = len < 0 ? -errno : -ENAMETOOLONG;

		close(fd);
		return e;
	}
	real[len] = '\0';
	return fd;
}
