/* wire — blocking frame I/O with SCM_RIGHTS.
 *
 * Rules kept here: descriptors are received close-on-exec, a truncated control message
 * (MSG_CTRUNC) fails the frame, and every descriptor received is handed to the caller, who
 * closes it, so none leaks on any path.
 */
#include "session/wire.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int sess_send(int sock, const uint8_t *p, size_t n, const int *fds, size_t nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * SESS_FDS_MAX)];
		struct cmsghdr align;
	} u;
	struct iovec iov = {(void *)p, n};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (nfds > SESS_FDS_MAX)
		return -E2BIG;
	if (nfds) {
		struct cmsghdr *c;
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	while (n) {
		ssize_t w = sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		iov.iov_base = (char *)iov.iov_base + w;
		iov.iov_len -= (size_t)w;
		n -= (size_t)w;
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
	}
	return 0;
}

/* Moves the descriptors of every SCM_RIGHTS message in mh into fds. */
static int take_fds(struct msghdr *mh, int *fds, size_t *nfds)
{
	int rc = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*nfds < SESS_FDS_MAX)
				fds[(*nfds)++] = fd;
			else {
				close(fd);
				rc = -EBADMSG;
			}
		}
	}
	if (mh->msg_flags & MSG_CTRUNC)
		rc = -EBADMSG;
	return rc;
}

long sess_recv(int sock, uint8_t *buf, int *fds, size_t *nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * SESS_FDS_MAX)];
		struct cmsghdr align;
	} u;
	size_t have = 0;
	long want = SESS_HDR_LEN;
	int bad = 0;

	*nfds = 0;
	while ((size_t)want > have) {
		struct iovec iov = {buf + have, (size_t)want - have};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = u.buf,
				    .msg_controllen = sizeof(u.buf)};
		ssize_t r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (take_fds(&mh, fds, nfds) < 0)
			bad = -EBADMSG;
		if (r == 0)
			return have ? -EPROTO : 0;
		have += (size_t)r;
		if (have >= SESS_HDR_LEN && want == SESS_HDR_LEN) {
			want = sess_frame_len(buf, have);
			if (want < 0)
				return -EPROTO;
		}
	}
	return bad ? bad : want;
}

void sess_close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}
