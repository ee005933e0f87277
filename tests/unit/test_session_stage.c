/* test_session_stage — the stage's listeners, in a network namespace of their own when one can
 * be made (else skipped): fronts on 3128/1080, reach ports, the relay, close-on-exec. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include "session/client/stage_net.h"
#include "tests/unit/tap.h"

static int lo_up(void)
{
	struct ifreq ifr = {0};
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	int rc;

	strcpy(ifr.ifr_name, "lo");
	rc = ioctl(s, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	rc = rc < 0 ? rc : ioctl(s, SIOCSIFFLAGS, &ifr);
	close(s);
	return rc;
}

int main(void)
{
	struct sess_fd fds[SESS_STAGE_FDS_MAX];
	uint16_t reach[] = {5432};
	size_t n = 0, http = 0, socks = 0, re = 0, rel = 0, cloexec = 0;
	char *err = NULL;

	/* root: a network namespace; others: with a user namespace of their own */
	if ((unshare(CLONE_NEWNET) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0) ||
	    lo_up() < 0) {
		skip("needs a network namespace (root or user namespaces)", "stage listeners");
		return tap_done();
	}
	is_int(sess_stage_listen(reach, 1, 1, fds, &n, &err), 0, "listeners made: %s",
	       err ? err : "");
	for (size_t i = 0; i < n; i++) {
		http += fds[i].role == SESS_FD_HTTP;
		socks += fds[i].role == SESS_FD_SOCKS;
		re += fds[i].role == SESS_FD_REACH && fds[i].port == 5432;
		rel += fds[i].role == SESS_FD_RELAY;
		cloexec += (fcntl(fds[i].fd, F_GETFD) & FD_CLOEXEC) != 0;
	}
	ok(http >= 1 && http <= 2, "an HTTP front (on one or both families)");
	is_int(socks, http, "a SOCKS front on the same families");
	is_int(re, http, "the reach port too");
	is_int(rel, 1, "one relay socket");
	is_int(cloexec, n, "every descriptor is close-on-exec");
	{
		struct sess_fd again[SESS_STAGE_FDS_MAX];
		size_t m = 0;
		int rc = sess_stage_listen(NULL, 0, 0, again, &m, &err);
		is_int(rc, -EADDRINUSE, "a port already held is an error");
		ok(err && strstr(err, "3128"), "naming the port: %s", err ? err : "");
		is_int(m, 0, "and nothing is left open");
	}
	for (size_t i = 0; i < n; i++)
		close(fds[i].fd);
	free(err);
	return tap_done();
}
