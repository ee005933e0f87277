/* fdpass — descriptors over unix sockets (SCM_RIGHTS), the one implementation every side
 * uses: the stage and the front end, the monitor's listener, the session protocol. */
#ifndef SBX_FDPASS_H
#define SBX_FDPASS_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
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

/* What came with one read (fdpass_recv). */
struct fdpass_in {
	int *fds;	  /* descriptors go to fds[nfds…cap): close-on-exec */
	size_t cap, nfds; /* in/out: nfds grows */
	bool lost;	  /* out: some were closed (beyond cap, or the control data truncated) */
	bool trunc;	  /* out: a datagram was longer than the buffer (its tail is gone) */
	pid_t pid;	  /* out: the sender, as the kernel saw it, where sock asked for it
			   * (fdpass_want_peer); else 0 */
};

#define FDPASS_NONBLOCK 1 /* fdpass_recv: -EAGAIN when nothing is queued */

/* The user (and, pid not NULL, the process) at the other end of the connected unix socket
 * sock, as the kernel saw it at connect. Returns 0 or -errno. */
int fdpass_peer_cred(int sock, uid_t *uid, pid_t *pid);

/* 1 when the process at the other end of the connected unix socket sock (the one that
 * connected, or listened) is alive in this process's pid namespace, else 0 (another one, a
 * sandbox's; gone; unknown). Judged on a descriptor of that very process where the kernel
 * gives one (SO_PEERPIDFD), so a pid used again by another process is never taken for it;
 * on older kernels by the pid's /proc entry. */
int fdpass_peer_same_pidns(int sock);

/* Asks the kernel to tell the sender of each message read on sock (a pid the sender cannot
 * forge). Returns 0 or -errno. */
int fdpass_want_peer(int sock);

/* One read of sock (a stream: what is there, up to len; a datagram: one) into buf, what came
 * with it into *in (NULL: descriptors closed, no sender). Retries EINTR. Returns the bytes
 * read, 0 at the end of stream, or -errno. Every descriptor received is in in->fds or closed
 * (the rule of fdpass_take). */
ssize_t fdpass_recv(int sock, void *buf, size_t len, int flags, struct fdpass_in *in);

/* Control buffer large enough for FDPASS_MAX descriptors, aligned for cmsghdr. */
union fdpass_cbuf {
	char buf[CMSG_SPACE(sizeof(int) * FDPASS_MAX)];
	struct cmsghdr align;
};

#endif
