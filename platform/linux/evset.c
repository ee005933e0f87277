/* evset — the Linux backend of platform/evset.h: an epoll set. */
#include "platform/evset.h"

#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <unistd.h>

#define EVSET_MAX 2 /* edges taken per wait: the set's size in its one user */

int evset_open(const int *fds, size_t n)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0)
		return -errno;
	for (size_t i = 0; i < n; i++) {
		struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
					 .data.u32 = (uint32_t)i};
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) < 0) {
			int e = -errno;

			close(ep);
			return e;
		}
	}
	return ep;
}

int evset_take(int set, unsigned *in)
{
	struct epoll_event ev[EVSET_MAX];
	int n;

	*in = 0;
	while ((n = epoll_wait(set, ev, EVSET_MAX, 0)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		if (ev[i].events & EPOLLERR)
			return 1;
		if ((ev[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) && ev[i].data.u32 < 32)
			*in |= 1u << ev[i].data.u32;
	}
	return 0;
}
