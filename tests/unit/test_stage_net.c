/* test_stage_net — the front end's side of the stage's network message (shell/supervise.c):
 * a stand-in stage (python3) sends SBX_STAGE_NET with descriptors; the front end takes them
 * only when network = proxy, once, when the count matches, and answers go / no-go. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/sandbox.h"
#include "shell/shell.h"
#include "tap.h"

/* argv[1]: the socket; argv[2]: messages to send ("ok", "count", "twice"); exits with the
 * first answer's status (0 = go), 99 when none came. */
static const char stage_py[] =
    "import socket, struct, sys\n"
    "s = socket.socket(fileno=int(sys.argv[1]))\n"
    "def msg(n, roles):\n"
    "    body = struct.pack('III', 0x53425853, 4, n)\n"
    "    for i in range(69):\n"
    "        body += struct.pack('HH', *(roles[i] if i < len(roles) else (0, 0)))\n"
    "    return body\n"
    "l = [socket.socket() for _ in range(2)]\n"
    "for x in l: x.bind(('127.0.0.1', 0)); x.listen()\n"
    "fds = [x.fileno() for x in l]\n"
    "roles = [(1, 0), (2, 0)]\n"
    "mode = sys.argv[2]\n"
    "socket.send_fds(s, [msg(3 if mode == 'count' else 2, roles)], fds)\n"
    "a = s.recv(64)\n"
    "st = struct.unpack('IIi', a)[2] if len(a) == 12 else 99\n"
    "if mode == 'twice':\n"
    "    socket.send_fds(s, [msg(2, roles)], fds)\n"
    "    b = s.recv(64)\n"
    "    st = st * 1000 + (struct.unpack('IIi', b)[2] if len(b) == 12 else 99)\n"
    "sys.exit(min(st, 255) if mode != 'twice' else (0 if st == 0 else 1 if st % 1000 else 2))\n";

struct seen {
	int calls;
	size_t n;
	uint16_t roles[4];
	int listening;
};

static int fronts(void *arg, const int *fds, const uint16_t *roles, const uint16_t *ports, size_t n)
{
	struct seen *s = arg;
	(void)ports;
	s->calls++;
	s->n = n;
	for (size_t i = 0; i < n && i < 4; i++) {
		int v = 0;
		socklen_t l = sizeof(v);
		s->roles[i] = roles[i];
		if (getsockopt(fds[i], SOL_SOCKET, SO_ACCEPTCONN, &v, &l) == 0 && v)
			s->listening++;
	}
	return 0;
}

/* Runs the stand-in; returns its exit status, and *res. */
static int run(const char *mode, const struct supervise_net *net, struct run_result *res)
{
	int sv[2];
	char fd[16];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	snprintf(fd, sizeof(fd), "%d", sv[1]);
	char *argv[] = {"/usr/bin/python3", "-c", (char *)stage_py, fd, (char *)mode, NULL};
	int keep[] = {sv[1]};
	int e = supervise_run(argv, sv[0], keep, 1, true, net, NULL, NULL, res);
	close(sv[0]);
	if (e < 0)
		return -1;
	return WIFEXITED(res->bwrap_status) ? WEXITSTATUS(res->bwrap_status) : -1;
}

int main(void)
{
	struct run_result res;
	struct seen s = {0};
	struct supervise_net net = {fronts, &s};

	if (access("/usr/bin/python3", X_OK) < 0) {
		skip("python3 is not installed", "the stand-in stage");
		return tap_done();
	}
	is_int(run("ok", &net, &res), 0, "network = proxy: the fronts are taken and go is sent");
	is_int(s.calls, 1, "…the hook ran once");
	ok(s.n == 2 && s.roles[0] == 1 && s.roles[1] == 2, "…with the roles in order");
	is_int(s.listening, 2, "…and the stage's listening sockets");
	ok(!res.refused, "…the command is not refused");

	memset(&s, 0, sizeof(s));
	is_int(run("ok", NULL, &res), EPROTO, "network is not proxy: fronts are refused (no-go)");
	ok(res.refused, "…and the command with them");

	is_int(run("count", &net, &res), EPROTO,
	       "a count that does not match the descriptors: no-go");
	is_int(s.calls, 0, "…the hook never saw them");

	is_int(run("twice", &net, &res), 1, "a second network message: go, then no-go");
	is_int(s.calls, 1, "…the hook ran for the first only");
	ok(res.refused, "…and the command is refused");
	return tap_done();
}
