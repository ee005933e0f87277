/* test_fdpass — descriptors over a unix socket: round trip, more than the receiver takes
 * (closed, not leaked), a truncated control buffer, too many to send. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/fdpass.h"
#include "tests/unit/tap.h"

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static ssize_t recv_into(int sock, char *buf, size_t len, void *cbuf, size_t clen,
			 struct msghdr *mh, struct iovec *iov)
{
	*iov = (struct iovec){buf, len};
	*mh = (struct msghdr){
	    .msg_iov = iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = clen};
	return recvmsg(sock, mh, MSG_CMSG_CLOEXEC);
}

int main(void)
{
	int sv[2], p[2], fds[4], got[4];
	union fdpass_cbuf u;
	struct msghdr mh;
	struct iovec iov;
	char buf[8] = {0};
	size_t n = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || pipe(p) < 0)
		return 1;
	int before = open_fds();

	is_int(fdpass_send(sv[0], "hi", 2, p, 1), 0, "one descriptor and two bytes sent");
	ok(recv_into(sv[1], buf, sizeof(buf), u.buf, sizeof(u.buf), &mh, &iov) == 2 &&
	       fdpass_take(&mh, got, 4, &n) == 0 && n == 1 && memcmp(buf, "hi", 2) == 0,
	   "…received with the bytes");
	ok(n == 1 && write(p[1], "x", 1) == 1 && read(got[0], buf, 1) == 1 && buf[0] == 'x',
	   "…and it is the same pipe");
	ok(n == 1 && (fcntl(got[0], F_GETFD) & FD_CLOEXEC), "…close-on-exec");
	close(got[0]);

	fds[0] = fds[1] = fds[2] = p[0];
	n = 0;
	fdpass_send(sv[0], "y", 1, fds, 3);
	recv_into(sv[1], buf, sizeof(buf), u.buf, sizeof(u.buf), &mh, &iov);
	is_int(fdpass_take(&mh, got, 2, &n), -EBADMSG, "more descriptors than the receiver takes");
	is_int(n, 2, "…it keeps what it can take");
	close(got[0]);
	close(got[1]);
	is_int(open_fds(), before, "…and the rest are closed, none leaked");

	char small[CMSG_SPACE(sizeof(int))];
	n = 0;
	fdpass_send(sv[0], "z", 1, fds, 3);
	recv_into(sv[1], buf, sizeof(buf), small, sizeof(small), &mh, &iov);
	int r = fdpass_take(&mh, got, 4, &n);
	is_int(r, -EBADMSG, "a truncated control message (MSG_CTRUNC) is an error");
	for (size_t i = 0; i < n; i++)
		close(got[i]);
	is_int(open_fds(), before, "…and leaks nothing");

	int many[FDPASS_MAX + 1];
	for (size_t i = 0; i <= FDPASS_MAX; i++)
		many[i] = p[0];
	is_int(fdpass_send(sv[0], "w", 1, many, FDPASS_MAX + 1), -E2BIG,
	       "more than FDPASS_MAX descriptors are refused");

	/* the peer's pid namespace: this process's own, and a peer that is gone */
	int pr[2];
	ok(socketpair(AF_UNIX, SOCK_STREAM, 0, pr) == 0 && fdpass_peer_same_pidns(pr[0]) == 1,
	   "a peer in this pid namespace is in it");
	close(pr[0]);
	close(pr[1]);
	ok(socketpair(AF_UNIX, SOCK_STREAM, 0, pr) == 0, "a pair for a child");
	pid_t c = fork();
	if (c == 0) {
		/* the child's own socket: its creds are the child's from here */
		int q[2];
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, q) == 0)
			fdpass_send(pr[1], "q", 1, &q[1], 1);
		_exit(0);
	}
	int qfd[1];
	size_t qn = 0;
	recv_into(pr[0], buf, sizeof(buf), u.buf, sizeof(u.buf), &mh, &iov);
	ok(fdpass_take(&mh, qfd, 1, &qn) == 0 && qn == 1, "…it sends its end of a pair");
	waitpid(c, NULL, 0);
	/* qfd's peer (the child's q[0]) is gone with it: its pid is no one's now */
	is_int(qn == 1 ? fdpass_peer_same_pidns(qfd[0]) : -1, 0,
	       "a peer that is gone is in no pid namespace (its pid is not looked up again)");
	if (qn == 1)
		close(qfd[0]);
	close(pr[0]);
	close(pr[1]);
	return tap_done();
}
