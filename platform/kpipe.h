/* kpipe — bytes moved between two descriptors through a kernel pipe, never through the
 * caller's memory (session/daemon/splice.c: the relay's fast path). The Linux backend
 * (platform/linux/kpipe.c) is splice(2) with a pipe sized by F_SETPIPE_SZ; another may copy
 * through a buffer of its own behind the same calls.
 */
#ifndef SBX_KPIPE_H
#define SBX_KPIPE_H
#include <stddef.h>
#include <sys/types.h>

/* A non-blocking, close-on-exec pipe (fds[0] its read end) holding up to want bytes where the
 * system allows (else its default size). Sets *cap to what it holds. Returns 0 or -errno
 * (both ends closed then). */
int kpipe_open(int fds[2], size_t want, size_t *cap);

/* Moves at most max bytes from descriptor from to descriptor to, one of them an end of a
 * kpipe, without blocking. Returns the bytes moved, 0 at from's end of stream, or -errno
 * (-EAGAIN: from has nothing or to is full). */
ssize_t kpipe_move(int from, int to, size_t max);

/* Tunes a socket for relaying when its peer is a loopback address (Linux: reno congestion
 * control, see session/daemon/splice.c); other sockets, and a failure, leave it as it is. */
void kpipe_local_leg(int fd);

#endif
