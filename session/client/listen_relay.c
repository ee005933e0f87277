/* listen_relay — connects host connections for `listen` ports to the server inside.
 *
 * Rules kept here: it trusts only the daemon's frames (a bad frame ends the relay); it
 * connects only to loopback inside the sandbox's own namespace, on the port the frame names,
 * and only for ports the daemon bound for this command; every descriptor received is closed
 * in the parent once a child holds it.
 */
#include "session/client/listen_relay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session/proto.h"
#include "session/wire.h"

#define RELAY_BUF 65536

static int dial_inside(uint16_t port)
{
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a6.sin6_addr = in6addr_loopback;
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a4, sizeof(a4)) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a6, sizeof(a6)) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

struct way {
	int from, to;
	char buf[RELAY_BUF];
	size_t n, off;
	bool eof, done;
};

/* Passes an end of stream on: a half-close for a socket, a close for anything else. */
static void pass_eof(int to)
{
	if (shutdown(to, SHUT_WR) < 0)
		close(to);
}

/* Moves what it can one way; returns -1 on an error that ends the connection. */
static int step(struct way *w, short rev, short wev)
{
	ssize_t r;

	if (!w->eof && w->n == 0 && (rev & (POLLIN | POLLHUP | POLLERR))) {
		r = read(w->from, w->buf, sizeof(w->buf));
		if (r < 0 && errno != EINTR && errno != EAGAIN)
			return -1;
		if (r == 0)
			w->eof = true;
		if (r > 0) {
			w->n = (size_t)r;
			w->off = 0;
		}
	}
	if (w->n && (wev & (POLLOUT | POLLERR | POLLHUP))) {
		r = write(w->to, w->buf + w->off, w->n);
		if (r < 0 && errno != EINTR && errno != EAGAIN)
			return -1;
		if (r > 0) {
			w->off += (size_t)r;
			w->n -= (size_t)r;
		}
	}
	if (w->eof && w->n == 0 && !w->done) {
		pass_eof(w->to);
		w->done = true;
	}
	return 0;
}

/* The poll entries of one way: its source when it has room, its sink when it holds bytes. */
static void watch(const struct way *w, struct pollfd *p)
{
	bool rd = !w->eof && w->n == 0, wr = w->n != 0;

	p[0] = (struct pollfd){.fd = rd ? w->from : -1, .events = POLLIN};
	p[1] = (struct pollfd){.fd = wr ? w->to : -1, .events = POLLOUT};
}

void sess_pump(int a_in, int a_out, int b_in, int b_out)
{
	static struct way ab, ba;
	struct pollfd p[4];

	ab = (struct way){.from = a_in, .to = b_out};
	ba = (struct way){.from = b_in, .to = a_out};
	while (!(ab.done && ba.done)) {
		watch(&ab, p);
		watch(&ba, p + 2);
		if (poll(p, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (step(&ab, p[0].revents, p[1].revents) < 0 ||
		    step(&ba, p[2].revents, p[3].revents) < 0)
			return;
	}
}

static void serve_one(int sock, int conn, uint16_t port)
{
	pid_t pid = fork();

	if (pid == 0) {
		int in;
		close(sock);
		in = dial_inside(port);
		if (in >= 0)
			sess_pump(conn, conn, in, in);
		_exit(0);
	}
	close(conn);
}

int sess_relay_serve(int sock)
{
	static uint8_t buf[SESS_HDR_LEN + SESS_BODY_MAX];
	static struct sess_msg m;
	int fds[SESS_FDS_MAX];
	size_t nfds;
	long n;

	signal(SIGCHLD, SIG_IGN); /* children are reaped by the kernel */
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		n = sess_recv(sock, buf, fds, &nfds);
		if (n <= 0) {
			sess_close_fds(fds, nfds);
			return n == 0 ? 0 : (int)n;
		}
		if (sess_decode(buf, (size_t)n, &m) < 0 || m.type != SESS_RELAY || nfds != 1 ||
		    m.port == 0) {
			sess_close_fds(fds, nfds);
			return -EPROTO;
		}
		serve_one(sock, fds[0], m.port);
	}
}
