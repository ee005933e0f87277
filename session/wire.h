/* wire — blocking frame I/O with descriptors on a unix stream socket (no event loop). */
#ifndef SBX_SESS_WIRE_H
#define SBX_SESS_WIRE_H
#include <stddef.h>
#include <stdint.h>

#include "session/proto.h"

/* Sends the n bytes at p with the nfds descriptors (attached to the first byte).
 * Returns 0 or a negative errno. */
int sess_send(int sock, const void *p, size_t n, const int *fds, size_t nfds);

/* Reads one whole frame into buf (at least SESS_HDR_LEN + SESS_BODY_MAX bytes) and the
 * descriptors that came with it into fds (up to SESS_FDS_MAX, close-on-exec; *nfds set).
 * Returns the frame length, 0 at end of stream before any byte, or a negative errno
 * (-EPROTO for a bad frame, -EBADMSG for descriptors cut off by the kernel). Descriptors
 * received are the caller's even on error. */
long sess_recv(int sock, uint8_t *buf, int *fds, size_t *nfds);

/* Closes the n descriptors in fds that are >= 0. */
void sess_close_fds(int *fds, size_t n);

#endif
