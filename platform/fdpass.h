/* fdpass — descriptors over unix sockets (SCM_RIGHTS), the one implementation every side
 * uses: the stage and the front end, the monitor's listener, the session protocol. */
#ifndef SBX_FDPASS_H
#define SBX_FDPASS_H
#include <stddef.h>
#include <sys/socket.h>

#define FDPASS_MAX 128 /* descriptors in one message */

/* Sends len bytes of buf with nfds descriptors (the descriptors ride with the first byte);
 * retries EINTR and short writes; never raises SIGPIPE. Returns 0, -E2BIG for more than
 * FDPASS_MAX descriptors, or -errno. The caller keeps (and closes) its descriptors. */
int fdpass_send(int sock, const void *buf, size_t len, const int *fds, size_t nfds);

/* Moves every descriptor the SCM_RIGHTS messages of mh carried into fds[*n…cap), closing any
 * beyond cap. Returns 0, or -EBADMSG when some were closed or the control data was truncated
 * (MSG_CTRUNC); either way each descriptor is in fds or closed, none leaks. Receive with
 * MSG_CMSG_CLOEXEC so they are close-on-exec. */
int fdpass_take(struct msghdr *mh, int *fds, size_t cap, size_t *n);

/* Control buffer large enough for FDPASS_MAX descriptors, aligned for cmsghdr. */
union fdpass_cbuf {
	char buf[CMSG_SPACE(sizeof(int) * FDPASS_MAX)];
	struct cmsghdr align;
};

#endif
