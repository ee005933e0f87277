/* evset — a set of descriptors watched edge-triggered, itself one descriptor that an event
 * loop polls (session/daemon/splice.c: the relay's two sockets under libuv). The Linux backend
 * (platform/linux/evset.c) is an epoll set; another may be a kqueue with EV_CLEAR.
 */
#ifndef SBX_EVSET_H
#define SBX_EVSET_H
#include <stddef.h>

/* A set watching fds[0..n) for input, output and the peer's end, edge-triggered; one already
 * ready when added is reported at once. Returns the set's descriptor (close-on-exec; the
 * caller closes it) or -errno. */
int evset_open(const int *fds, size_t n);

/* Consumes the edges reported so far (the set stays readable until then); *in gets bit i set
 * when fds[i] reported input or its peer's end. Returns 1 when one of them is an error on a
 * descriptor, 0 when none is, or -errno. Never blocks. */
int evset_take(int set, unsigned *in);

#endif
