/* notify — seccomp rules that hand calls to the violation monitor, and the listener's plumbing.
 *
 * Rules this file keeps:
 * - It only ever adds SCMP_ACT_NOTIFY rules: what the monitor sees is answered CONTINUE (or,
 *   for socket(AF_UNIX), refused), so adding a call here never widens anything. A dead monitor
 *   makes the call fail with ENOSYS: fail closed.
 * - Read and write opens are told apart in BPF (masked compares on the flags), so a level that
 *   watches writes does not stop every read.
 * - The listener is never left in the sandbox: the stage sends it and closes its copy.
 */
#include "platform/linux/notify.h"
#include "platform/fdpass.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/net.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#define N	  NOTIFY_NOARG
#define CWD	  NOTIFY_FD_CWD
#define W	  MONITOR_WRITES
#define F	  MONITOR_FULL
#define A	  MONITOR_ALL
#define CWD_MOVES NOTIFY_CWD_MOVES
#define CWD_TASK  NOTIFY_CWD_TASK

/* name, op, level, dirfd, path, dirfd2, path2, flags, openat2, cwd_event */
/* clang-format off */
static const struct notify_call calls[] = {
	{ "open", NOP_OPEN, W, CWD, 0, N, N, 1, false, 0 },
	{ "openat", NOP_OPEN, W, 0, 1, N, N, 2, false, 0 },
	{ "openat2", NOP_OPEN, W, 0, 1, N, N, 2, true, 0 },
	{ "creat", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "execve", NOP_EXEC, W, CWD, 0, N, N, N, false, 0 },
	{ "execveat", NOP_EXEC, W, 0, 1, N, N, N, false, 0 },
	{ "access", NOP_READ, F, CWD, 0, N, N, N, false, 0 },
	{ "faccessat", NOP_READ, F, 0, 1, N, N, N, false, 0 },
	{ "faccessat2", NOP_READ, F, 0, 1, N, N, N, false, 0 },
	{ "chdir", NOP_READ, W, CWD, 0, N, N, N, false, CWD_MOVES }, /* judged from F */
	{ "readlink", NOP_READ, A, CWD, 0, N, N, N, false, 0 },
	{ "readlinkat", NOP_READ, A, 0, 1, N, N, N, false, 0 },
	{ "stat", NOP_READ, A, CWD, 0, N, N, N, false, 0 },
	{ "lstat", NOP_READ, A, CWD, 0, N, N, N, false, 0 },
	{ "stat64", NOP_READ, A, CWD, 0, N, N, N, false, 0 },
	{ "lstat64", NOP_READ, A, CWD, 0, N, N, N, false, 0 },
	{ "newfstatat", NOP_READ, A, 0, 1, N, N, 3, false, 0 },
	{ "fstatat64", NOP_READ, A, 0, 1, N, N, 3, false, 0 },
	{ "statx", NOP_READ, A, 0, 1, N, N, 2, false, 0 },
	{ "mkdir", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "mkdirat", NOP_WRITE, W, 0, 1, N, N, N, false, 0 },
	{ "unlink", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "unlinkat", NOP_WRITE, W, 0, 1, N, N, N, false, CWD_MOVES },
	{ "rmdir", NOP_WRITE, W, CWD, 0, N, N, N, false, CWD_MOVES },
	{ "rename", NOP_WRITE, W, CWD, 0, CWD, 1, N, false, CWD_MOVES },
	{ "renameat", NOP_WRITE, W, 0, 1, 2, 3, N, false, CWD_MOVES },
	{ "renameat2", NOP_WRITE, W, 0, 1, 2, 3, N, false, CWD_MOVES },
	{ "link", NOP_WRITE, W, CWD, 1, N, N, N, false, 0 },
	{ "linkat", NOP_WRITE, W, 2, 3, N, N, N, false, 0 },
	{ "symlink", NOP_WRITE, W, CWD, 1, N, N, N, false, 0 },
	{ "symlinkat", NOP_WRITE, W, 1, 2, N, N, N, false, 0 },
	{ "truncate", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "truncate64", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "utimensat", NOP_WRITE, W, 0, 1, N, N, N, false, 0 },
	{ "utime", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "utimes", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "futimesat", NOP_WRITE, W, 0, 1, N, N, N, false, 0 },
	{ "chmod", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "fchmodat", NOP_WRITE, W, 0, 1, N, N, N, false, 0 },
	{ "chown", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "chown32", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "lchown", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "lchown32", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "fchownat", NOP_WRITE, W, 0, 1, N, N, N, false, 0 },
	{ "mknod", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "mknodat", NOP_WRITE, W, 0, 1, N, N, N, false, 0 },
	{ "socket", NOP_UNIX, W, N, N, N, N, N, false, 0 },
	{ "fchdir", NOP_NOTE, W, N, N, N, N, N, false, CWD_MOVES }, /* and the guard's cache */
	{ "fork", NOP_NOTE, F, N, N, N, N, N, false, CWD_TASK },
	{ "vfork", NOP_NOTE, F, N, N, N, N, N, false, CWD_TASK },
	{ "clone", NOP_NOTE, F, N, N, N, N, N, false, CWD_TASK },
	{ "umask", NOP_NOTE, W, N, N, N, N, N, false, 0 }, /* the guard's cache */
	{ "fchmodat2", NOP_WRITE, W, 0, 1, N, N, N, false, 0 },
	{ "fchmod", NOP_WRITE, W, N, N, N, N, N, false, 0 },
	{ "setxattr", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "lsetxattr", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "fsetxattr", NOP_WRITE, W, N, N, N, N, N, false, 0 },
	{ "removexattr", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "lremovexattr", NOP_WRITE, W, CWD, 0, N, N, N, false, 0 },
	{ "fremovexattr", NOP_WRITE, W, N, N, N, N, N, false, 0 },
	{ "bind", NOP_WRITE, W, N, N, N, N, N, false, 0 }, /* an AF_UNIX path is a name made */
};
/* clang-format on */

#undef N
#undef CWD
#undef W
#undef F
#undef A
#undef CWD_MOVES
#undef CWD_TASK

const struct notify_call *notify_calls(unsigned *n)
{
	*n = sizeof(calls) / sizeof(calls[0]);
	return calls;
}

bool notify_guarded(const struct notify_call *c)
{
	/* the time calls change no name and no content (docs/monitor.md, Limits) */
	static const char *const unguarded[] = {"utimensat", "utime", "utimes", "futimesat"};

	if (c->op == NOP_OPEN)
		return true;
	/* the facts the guard caches per thread: its cwd and umask */
	if (strcmp(c->name, "umask") == 0 || strcmp(c->name, "chdir") == 0 ||
	    strcmp(c->name, "fchdir") == 0)
		return true;
	if (c->op == NOP_NOTE)
		return false;
	if (c->op != NOP_WRITE)
		return false;
	for (size_t i = 0; i < sizeof(unguarded) / sizeof(unguarded[0]); i++)
		if (strcmp(c->name, unguarded[i]) == 0)
			return false;
	return true;
}

int notify_fd_send(int sock, int fd)
{
	return fdpass_send(sock, "L", 1, &fd, 1);
}

int notify_fd_recv(int sock, int *fd)
{
	char byte;
	union fdpass_cbuf u;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf)};
	int got[FDPASS_MAX];
	size_t n = 0;
	ssize_t r;

	*fd = -1;
	while ((r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC)) < 0)
		if (errno != EINTR)
			return -errno;
	/* a truncated or foreign message: close whatever came with it */
	if (fdpass_take(&mh, got, FDPASS_MAX, &n) < 0 || r != 1 || byte != 'L' || n != 1) {
		for (size_t i = 0; i < n; i++)
			close(got[i]);
		return -EBADMSG;
	}
	*fd = got[0];
	return 0;
}

int notify_listener_setup(int fd)
{
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -errno;
	/* Without it a 2-CPU machine bounces the waker and the handler across CPUs (1-3 s per
	 * 50,000 opens instead of ~0.5 s); an old kernel answers EINVAL/ENOTTY: run without.
	 * The flags are the ioctl's argument itself, not a pointer to them. */
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		  (unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) == 0)
		return 1;
	return errno == EINVAL || errno == ENOTTY ? 0 : -errno;
}

int notify_sync_wake(int fd, bool on)
{
	unsigned long fl = on ? (unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP : 0;

	return ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, fl) == 0 ? 0 : -errno;
}

static const char *const level_names[] = {"off", "writes", "full", "all"};

const char *notify_level_name(enum monitor_level l)
{
	return (unsigned)l < 4 ? level_names[l] : "?";
}

int notify_level_parse(const char *s)
{
	static const struct {
		const char *s;
		int l;
	} t[] = {{"off", MONITOR_OFF}, {"no", MONITOR_OFF},	   {"false", MONITOR_OFF},
		 {"0", MONITOR_OFF},   {"writes", MONITOR_WRITES}, {"full", MONITOR_FULL},
		 {"on", MONITOR_FULL}, {"yes", MONITOR_FULL},	   {"true", MONITOR_FULL},
		 {"1", MONITOR_FULL}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(s, t[i].s) == 0)
			return t[i].l;
	return -1;
}

char *notify_env_format(char *buf, size_t n, int fd, enum monitor_level level, unsigned flags)
{
	snprintf(buf, n, "%d:%d:%u", fd, (int)level, flags);
	return buf;
}

int notify_stage_parse(struct notify_stage *st)
{
	const char *v = getenv(NOTIFY_ENV);
	char *end;
	long fd, lvl;
	unsigned long fl;

	st->fd = -1;
	st->level = MONITOR_OFF;
	st->flags = 0;
	if (!v)
		return 0;
	fd = strtol(v, &end, 10);
	if (*end != ':' || fd < 3 || fd > 65535)
		goto bad;
	lvl = strtol(end + 1, &end, 10);
	if (*end != ':' || lvl <= MONITOR_OFF || lvl > MONITOR_ALL)
		goto bad;
	fl = strtoul(end + 1, &end, 10);
	if (*end || fl > (NOTIFY_UNIX | NOTIFY_GUARD))
		goto bad;
	unsetenv(NOTIFY_ENV);
	st->fd = (int)fd;
	st->level = (enum monitor_level)lvl;
	st->flags = (unsigned)fl;
	return 0;
bad:
	unsetenv(NOTIFY_ENV);
	return -EINVAL;
}
