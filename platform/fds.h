/* fds — descriptor housekeeping a child does before exec. */
#ifndef SBX_FDS_H
#define SBX_FDS_H
#include <stdbool.h>
#include <stddef.h>

/* Closes every descriptor from lowfd up (close_range, with a /proc/self/fd walk where the
 * kernel lacks it). Returns 0 or -errno. Async-signal-safe: for a forked child. */
int sbx_close_from(int lowfd);

/* A socket a caller left open (sbx_sockets_inherited), or a directory or O_PATH descriptor. */
struct sbx_unix_fd {
	int fd;
	bool place;	/* a directory or O_PATH descriptor (name says which, and its path) */
	bool pty;	/* a pty's master side (name says so) */
	bool kernel;	/* a device, a kernel file system's file or a kernel object (name says
			   which: "a device, /dev/net/tun", "a kernel object, anon_inode:[pidfd]") */
	bool unix_sock; /* else name says what it is: "a UDP IPv4 socket", "a netlink socket" */
	bool listening; /* else the peer's address is in name (connected), or "" */
	char name[112]; /* its peer's (or, listening, its own) path; "@…" abstract; "" none */
};

/* Calls fn for each descriptor from 3 up that is a socket, open across exec (a caller's:
 * ours are close-on-exec) and not the socket one of 0-2 holds (a dup of stdout passes with
 * it), and for each such directory or O_PATH descriptor (place: it reaches past the
 * sandbox's mounts, openat(fd, …) resolving in the caller's), pty master (pty) and kernel
 * handle (kernel: a device other than a terminal or /dev/null's kin, a file of proc, sysfs,
 * cgroup or another kernel file system, a namespace, a pidfd, an anonymous inode other than
 * eventfd, timerfd, signalfd and epoll: each acts on the host). fn may close the
 * descriptor; a nonzero return stops the walk and is returned. 0 or -errno (the descriptor table
 * could not be read). Not for a forked child. */
int sbx_sockets_inherited(int (*fn)(const struct sbx_unix_fd *u, void *arg), void *arg);

enum sbx_fd_reach { SBX_FD_INSIDE, SBX_FD_SOCKET, SBX_FD_PLACE, SBX_FD_PTY };

/* SBX_FD_INSIDE when fd is no socket, or a socket that reaches only its peer: a connected unix
 * stream or seqpacket socket (never connected again, never listening). Any other socket (datagram:
 * sendto any socket or address it names; TCP: disconnected with AF_UNSPEC and connected
 * anew, in the host's network namespace; listening; netlink, packet…) is SBX_FD_SOCKET, with
 * what it is in what[0…n) ("a datagram unix socket"); a directory or any O_PATH descriptor is
 * SBX_FD_PLACE (openat(fd, …) and /proc/self/fd/N/… resolve in the caller's mounts: "a
 * directory, /x"); a pty's master side is SBX_FD_PTY (what a command writes there is typed
 * into the shell on its slave side, outside the sandbox). */
enum sbx_fd_reach sbx_sock_peer_only(int fd, char *what, size_t n);

/* Opens path to be bound by its descriptor, without reading it (close-on-exec), and puts the
 * name the kernel now gives it (every link resolved) in real[0…n). Returns the descriptor or
 * -errno (-ENAMETOOLONG: the name does not fit). */
int sbx_fd_pin(const char *path, char *real, size_t n);

#endif
