/* kpipe — the Linux backend of platform/kpipe.h: splice(2). */
#include "platform/kpipe.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int kpipe_open(int fds[2], size_t want, size_t *cap)
{
	int n;

	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0)
		return -errno;
	/* a size past the user's limit (pipe-max-size, pipe-user-pages-soft) is refused: the
	 * default size (64 KiB) does, just slower */
	if (want <= (size_t)0x7fffffff)
		(void)fcntl(fds[1], F_SETPIPE_SZ, (int)want);
	if ((n = fcntl(fds[1], F_GETPIPE_SZ)) <= 0) {
		int e = n < 0 ? -errno : -EINVAL;

		close(fds[0]);
		close(fds[1]);
		fds[0] = fds[1] = -1;
		return e;
	}
	*cap = (size_t)n;
	return 0;
}

ssize_t kpipe_move(int from, int to, size_t max)
{
	ssize_t n = splice(from, NULL, to, NULL, max, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

	return n < 0 ? -errno : n;
}

static bool peer_is_loopback(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (getpeername(fd, (struct sockaddr *)&ss, &len) < 0)
		return false;
	if (ss.ss_family == AF_INET)
		return (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127;
	if (ss.ss_family == AF_INET6) {
		const uint8_t *a = ((struct sockaddr_in6 *)&ss)->sin6_addr.s6_addr;
		return IN6_IS_ADDR_LOOPBACK((const struct in6_addr *)a) ||
		       (memcmp(a, mapped, sizeof(mapped)) == 0 && a[12] == 127);
	}
	return false;
}

void kpipe_local_leg(int fd)
{
	static const char cc[] = "reno";

	if (peer_is_loopback(fd) &&
	    setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, sizeof(cc) - 1) < 0) {
		/* the system's congestion control does, just slower */
	}
}
