/* fdpass — SCM_RIGHTS send and receive.
 *
 * Rules kept here: a received descriptor is either handed to the caller or closed (none
 * leaks, whatever the peer sent); a truncated control message is an error.
 */
#include "platform/fdpass.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int fdpass_send(int sock, const void *buf, size_t len, const int *fds, size_t nfds)
{
	union fdpass_cbuf u;
	struct iovec iov = {(void *)buf, len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (nfds > FDPASS_MAX)
		return -E2BIG;
	if (nfds) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	while (iov.iov_len) {
		ssize_t w = sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		iov.iov_base = (char *)iov.iov_base + w;
		iov.iov_len -= (size_t)w;
		mh.msg_control = NULL; /* the descriptors went with the first part */
		mh.msg_controllen = 0;
	}
	return 0;
}

int fdpass_take(struct msghdr *mh, int *fds, size_t cap, size_t *n)
{
	int rc = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*n < cap) {
				fds[(*n)++] = fd;
			} else {
				close(fd);
				rc = -EBADMSG;
			}
		}
	}
	if (mh->msg_flags & MSG_CTRUNC)
		rc = -EBADMSG;
	return rc;
}
