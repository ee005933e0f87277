/* wire — blocking frame I/O with SCM_RIGHTS.
 *
 * Rules kept here: descriptors are received close-on-exec, a truncated control message
 * (MSG_CTRUNC) fails the frame, and every descriptor received is handed to the caller, who
 * closes it, so none leaks on any path.
 */
#include "session/wire.h"
#include "platform/fdpass.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int sess_send(int sock, const void *p, size_t n, const int *fds, size_t nfds)
{
	return nfds > SESS_FDS_MAX ? -E2BIG : fdpass_send(sock, p, n, fds, nfds);
}

long sess_recv(int sock, uint8_t *buf, int *fds, size_t *nfds)
{
	union fdpass_cbuf u;
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
		if (fdpass_take(&mh, fds, SESS_FDS_MAX, nfds) < 0)
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
