/* stage_net — listeners for the proxy fronts and loopback reach, and the listen relay.
 *
 * Rules kept here: listeners are bound before the command exists (no race, no polling);
 * every descriptor is close-on-exec, so the command never inherits a listener; a host
 * without IPv6 is not an error (only ::1 is skipped), any other failure is, and names the
 * port.
 */
#include "session/client/stage_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "platform/sandbox.h"
#include "platform/stage_fronts.h"
#include "session/errf.h"
#include "session/client/listen_relay.h"

/* Listens on loopback:port of family af. Returns the descriptor, -EAFNOSUPPORT /
 * -EADDRNOTAVAIL when the namespace has no such loopback, or another negative errno. */
static int listen_on(int af, uint16_t port)
{
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	int one = 1, fd = socket(af, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int rc;

	if (fd < 0)
		return -errno;
	a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a6.sin6_addr = in6addr_loopback;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (af == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	rc = af == AF_INET ? bind(fd, (struct sockaddr *)&a4, sizeof(a4))
			   : bind(fd, (struct sockaddr *)&a6, sizeof(a6));
	if (rc < 0 || listen(fd, SOMAXCONN) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

static int add(struct sess_fd *fds, size_t *n, uint16_t port, enum sess_fd_role role, uint16_t tag,
	       char **err)
{
	static const int fams[] = {AF_INET, AF_INET6};

	for (size_t i = 0; i < 2; i++) {
		int fd = listen_on(fams[i], port);
		if (fd == -EAFNOSUPPORT || (fams[i] == AF_INET6 && fd == -EADDRNOTAVAIL))
			continue; /* no IPv6 in this namespace */
		if (fd < 0)
			return sess_errf(err, fd, "cannot listen on %s:%u in the sandbox: %s",
					 i ? "[::1]" : "127.0.0.1", port, strerror(-fd));
		if (*n >= SESS_STAGE_FDS_MAX) {
			close(fd);
			return sess_errf(err, -E2BIG, "too many network listeners");
		}
		fds[(*n)++] = (struct sess_fd){fd, role, tag};
	}
	return 0;
}

static int relay(struct sess_fd *fds, size_t *n, char **err)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return sess_errf(err, -errno, "socketpair: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return sess_errf(err, -errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		for (size_t i = 0; i < *n; i++)
			close(fds[i].fd);
		close(sv[0]);
		/* Out of the command's process group and session: `kill 0` or a terminal's ^C
		 * in the command does not end it; it still dies with the sandbox's pid
		 * namespace. A relay that cannot leave the group does not run. */
		if (setsid() < 0)
			_exit(1);
		_exit(sess_relay_serve(sv[1]) == 0 ? 0 : 1);
	}
	close(sv[1]);
	fds[(*n)++] = (struct sess_fd){sv[0], SESS_FD_RELAY, 0};
	return 0;
}

int sess_stage_listen(const uint16_t *reach, size_t nreach, size_t nlisten, struct sess_fd *fds,
		      size_t *nfds, char **err)
{
	int rc;

	*nfds = 0;
	if (nreach > SESS_PORTS_MAX)
		return sess_errf(err, -E2BIG, "more than %d loopback ports", SESS_PORTS_MAX);
	if ((rc = add(fds, nfds, SESS_HTTP_PORT, SESS_FD_HTTP, 0, err)) < 0 ||
	    (rc = add(fds, nfds, SESS_SOCKS_PORT, SESS_FD_SOCKS, 0, err)) < 0)
		goto out;
	for (size_t i = 0; i < nreach; i++)
		if ((rc = add(fds, nfds, reach[i], SESS_FD_REACH, reach[i], err)) < 0)
			goto out;
	if (nlisten && (rc = relay(fds, nfds, err)) < 0)
		goto out;
	return 0;
out:
	for (size_t i = 0; i < *nfds; i++)
		close(fds[i].fd);
	*nfds = 0;
	return rc;
}

/* ---- what the stage asks for (platform/stage_fronts.h) ---- */

_Static_assert(SBX_STAGE_NET_MAX == SESS_STAGE_FDS_MAX, "one limit for the stage's fronts");
_Static_assert(STAGE_REACH_MAX == SESS_PORTS_MAX, "one limit for the reach ports");

int stage_fronts_make(const uint16_t *reach, size_t nreach, bool relay, struct stage_front *out,
		      size_t *n, char **err)
{
	struct sess_fd fds[SESS_STAGE_FDS_MAX];
	size_t k = 0;
	int r = sess_stage_listen(reach, nreach, relay ? 1 : 0, fds, &k, err);

	*n = 0;
	if (r < 0)
		return r;
	for (size_t i = 0; i < k; i++)
		out[i] = (struct stage_front){
		    .fd = fds[i].fd, .role = (uint16_t)fds[i].role, .port = fds[i].port};
	*n = k;
	return 0;
}
