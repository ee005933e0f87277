/* test_supervise — the front end's side of the stage's messages, with a fake stage (this
 * program again) in bwrap's place: network fronts that lost their descriptors on the way
 * (MSG_CTRUNC: the front end has no descriptor free) get a no-go, so the stage never waits
 * forever; whole fronts reach the hook. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/fdpass.h"
#include "platform/sandbox.h"
#include "shell/shell.h"
#include "tests/unit/tap.h"

/* The fake stage: optionally leaves the front end no free descriptor (prlimit on its
 * parent), sends two fronts, and exits 42 on no-go, 43 on go, 44 when no word came. */
static int fake_stage(int fd, int starve)
{
	struct sbx_stage_net m = {.magic = SBX_STAGE_MAGIC, .kind = SBX_STAGE_NET, .n = 2};
	struct sbx_stage_msg go;
	int fds[2];

	if (starve) {
		struct rlimit r = {3, 0};
		if (prlimit(getppid(), RLIMIT_NOFILE, NULL, &r) < 0)
			return 45;
		r.rlim_cur = 3; /* 0-2 only: SCM_RIGHTS cannot be installed */
		if (prlimit(getppid(), RLIMIT_NOFILE, &r, NULL) < 0)
			return 45;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0)
		return 46;
	m.fd[0].role = m.fd[1].role = 1;
	if (fdpass_send(fd, &m, sizeof(m), fds, 2) < 0)
		return 47;
	alarm(10);
	if (recv(fd, &go, sizeof(go), 0) != (ssize_t)sizeof(go) || go.kind != SBX_STAGE_GO)
		return 44;
	return go.status ? 42 : 43;
}

static int hook_calls;

static int fronts(void *arg, const int *fds, const uint16_t *roles, const uint16_t *ports, size_t n)
{
	(void)arg, (void)fds, (void)roles, (void)ports;
	hook_calls++;
	return n == 2 ? 0 : -EPROTO;
}

static void run(const char *self, int starve, struct run_result *res)
{
	int sv[2];
	char fdarg[16];
	struct rlimit saved;
	struct supervise_net net = {fronts, NULL};

	getrlimit(RLIMIT_NOFILE, &saved);
	socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv);
	snprintf(fdarg, sizeof(fdarg), "%d", sv[1]);
	char *argv[] = {(char *)self, "--fake-stage", fdarg, starve ? "1" : "0", NULL};
	hook_calls = 0;
	supervise_run(argv, sv[0], &sv[1], 1, false, &net, NULL, NULL, res);
	setrlimit(RLIMIT_NOFILE, &saved);
	close(sv[0]);
}

int main(int argc, char **argv)
{
	struct run_result res;
	char self[4096];
	ssize_t n;

	if (argc == 4 && strcmp(argv[1], "--fake-stage") == 0)
		return fake_stage(atoi(argv[2]), atoi(argv[3]));
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';

	run(self, 0, &res);
	is_int(hook_calls, 1, "whole fronts reach the hook");
	ok(WIFEXITED(res.bwrap_status) && WEXITSTATUS(res.bwrap_status) == 43,
	   "…and the stage hears go (status %#x)", res.bwrap_status);
	ok(!res.refused, "…not refused");

	run(self, 1, &res);
	is_int(hook_calls, 0,
	       "fronts that lost their descriptors (MSG_CTRUNC) never reach the hook");
	ok(WIFEXITED(res.bwrap_status) && WEXITSTATUS(res.bwrap_status) == 42,
	   "…the stage hears no-go instead of waiting (status %#x: 44 = no word)",
	   res.bwrap_status);
	ok(res.refused, "…and the command is refused");
	return tap_done();
}
