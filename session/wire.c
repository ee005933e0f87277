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
	struct fdpass_in got = {.fds = fds, .cap = SESS_FDS_MAX};
	size_t have = 0;
	long want = SESS_HDR_LEN;
	int bad = 0;

	*nfds = 0;
	while ((size_t)want > have) {
		ssize_t r = fdpass_recv(sock, buf + have, (size_t)want - have, 0, &got);
		*nfds = got.nfds;
		if (r < 0)
			return r;
		if (got.lost)
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
