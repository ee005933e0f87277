/* fdpass_recv — the Linux side of platform/fdpass.h's receive: MSG_CMSG_CLOEXEC for the
 * descriptors, SO_PASSCRED / SCM_CREDENTIALS for the sender (its pid as the receiver's pid
 * namespace sees it, checked by the kernel). */
#include "platform/fdpass.h"
#include "platform/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int fdpass_peer_cred(int sock, uid_t *uid, pid_t *pid)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);

	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cr, &l) < 0)
		return -errno;
	*uid = cr.uid;
	if (pid)
		*pid = cr.pid;
	return 0;
}

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5 */
#endif

/* The pid namespace levels below this /proc's that a process is in, from the NSpid line of
 * path (its status, or a pidfd's fdinfo: one number per level from /proc's own down): 0 for
 * /proc's own, -1 when the process is gone or the line cannot be read. */
static int nspid_depth(const char *path)
{
	char buf[2048];
	ssize_t n;
	int fd, depth = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *s = strstr(buf, "\nNSpid:");
	if (!s)
		return -1;
	for (s += 7; *s && *s != '\n';) {
		char *end;
		long v;
		if (*s == ' ' || *s == '\t') {
			s++;
			continue;
		}
		v = strtol(s, &end, 10);
		if (end == s || v <= 0)
			return -1; /* 0 or -1: gone, or outside this /proc's namespaces */
		depth++;
		s = end;
	}
	return depth;
}

int fdpass_peer_same_pidns(int sock)
{
	uid_t uid;
	pid_t pid = 0;
	int pidfd = -1, d;
	socklen_t l = sizeof(pidfd);
	char path[64];

	/* /proc of this process's own pid namespace (the usual case): the peer's pidfd says */
	if (nspid_depth("/proc/self/status") == 0 &&
	    getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &l) == 0 && pidfd >= 0) {
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
		d = nspid_depth(path);
		close(pidfd);
		return d == 0;
	}
	return fdpass_peer_cred(sock, &uid, &pid) == 0 && proc_same_pidns(pid);
}

int fdpass_want_peer(int sock)
{
	int one = 1;

	return setsockopt(sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ? -errno : 0;
}

ssize_t fdpass_recv(int sock, void *buf, size_t len, int flags, struct fdpass_in *in)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * FDPASS_MAX)];
		struct cmsghdr align;
	} u;
	struct iovec iov = {buf, len};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf)};
	int f = MSG_CMSG_CLOEXEC | ((flags & FDPASS_NONBLOCK) ? MSG_DONTWAIT : 0);
	struct fdpass_in none = {0};
	ssize_t n;

	while ((n = recvmsg(sock, &mh, f)) < 0 && errno == EINTR) {
	}
	if (n < 0)
		return -errno;
	if (!in)
		in = &none;
	in->pid = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		struct ucred cr;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS ||
		    c->cmsg_len < CMSG_LEN(sizeof(cr)))
			continue;
		memcpy(&cr, CMSG_DATA(c), sizeof(cr));
		in->pid = cr.pid > 0 ? cr.pid : 0;
		break;
	}
	if (fdpass_take(&mh, in->fds, in->fds ? in->cap : 0, &in->nfds) < 0)
		in->lost = true;
	if (mh.msg_flags & MSG_TRUNC)
		in->trunc = true;
	return n;
}
