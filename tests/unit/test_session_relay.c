/* test_session_relay — the stage's listen relay: a host connection handed over with a
 * SESS_RELAY frame reaches the server on 127.0.0.1:PORT, both ways, with half-close. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session/client/listen_relay.h"
#include "session/proto.h"
#include "session/wire.h"
#include "tests/unit/tap.h"

static int listen_any(uint16_t *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(fd, (struct sockaddr *)&a, sizeof(a));
	listen(fd, 8);
	getsockname(fd, (struct sockaddr *)&a, &l);
	*port = ntohs(a.sin_port);
	return fd;
}

static int dial(uint16_t port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 ? fd : -1;
}

static ssize_t read_all(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n < cap && (r = read(fd, buf + n, cap - n)) > 0)
		n += (size_t)r;
	return (ssize_t)n;
}

int main(void)
{
	int sv[2], inner, hostl, client, hostconn, server;
	uint16_t iport, hport;
	struct sess_msg m = {.type = SESS_RELAY};
	struct buf b = {0};
	char got[64] = "";
	pid_t relay;
	int st;

	signal(SIGPIPE, SIG_IGN);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	inner = listen_any(&iport); /* the server inside the sandbox */
	hostl = listen_any(&hport); /* the daemon's host port */
	relay = fork();
	if (relay == 0) {
		close(sv[0]);
		_exit(sess_relay_serve(sv[1]) == 0 ? 0 : 1);
	}
	close(sv[1]);
	client = dial(hport);
	hostconn = accept(hostl, NULL, NULL);
	m.port = iport;
	sess_encode(&m, &b);
	is_int(sess_send(sv[0], b.p, b.n, &hostconn, 1), 0,
	       "a host connection is handed to the relay");
	close(hostconn);
	server = accept(inner, NULL, NULL);
	ok(server >= 0, "the relay connected to the server inside");
	ok(write(client, "ping", 4) == 4, "the host client writes");
	shutdown(client, SHUT_WR);
	is_int(read_all(server, got, sizeof(got) - 1), 4,
	       "the server reads it, then end of stream");
	is_str(got, "ping", "the bytes");
	ok(write(server, "pong", 4) == 4, "the server answers after the client's half-close");
	close(server);
	memset(got, 0, sizeof(got));
	is_int(read_all(client, got, sizeof(got) - 1), 4, "the client reads the answer, then EOF");
	is_str(got, "pong", "the answer's bytes");
	close(client);
	/* a frame of another type ends the relay */
	m.type = SESS_OK;
	sess_encode(&m, &b);
	sess_send(sv[0], b.p, b.n, NULL, 0);
	waitpid(relay, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 1,
	   "a frame that is not SESS_RELAY ends it with an error");
	buf_free(&b);
	close(sv[0]);
	close(inner);
	close(hostl);
	return tap_done();
}
