/* fdpass_recv — the Linux side of platform/fdpass.h's receive: MSG_CMSG_CLOEXEC for the
 * descriptors, SO_PASSCRED / SCM_CREDENTIALS for the sender (its pid as the receiver's pid
 * namespace sees it, checked by the kernel). */
#include "platform/fdpass.h"

#include <errno.h>
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
