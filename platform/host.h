/* host — what the kernel offers, as `sbxsh doctor` and the nested-sandbox check ask it. The
 * Linux backend is platform/linux/host.c.
 */
#ifndef SBX_HOST_H
#define SBX_HOST_H
#include <stdbool.h>

/* The file open at fd, named path (absolute), is a mount point of its own: its mount differs
 * from its directory's (the mount ids, or the devices on a kernel without them). false when
 * either cannot be asked. */
bool host_is_mount_point(int fd, const char *path);

/* A listing of the directory open at fd names exactly what a lookup in it finds, so a name it
 * lacks does not exist (path_names): a local, case-sensitive file system (ext4, btrfs, tmpfs),
 * the directory neither case-folding nor encrypted. false when not known: procfs (a lookup
 * finds threads a listing leaves out), XFS (ascii-ci is file-system wide and not asked here),
 * network, FUSE and overlay file systems, a case-insensitive one. */
bool host_listing_exact(int fd);

/* The names of directory dir, when its listing is exact (host_listing_exact): add(arg, name)
 * for each, "." and ".." too. Returns 1 when listed, 0 when not known (not exact, not
 * readable), -ENOENT when dir is missing (no such path, or not a directory: a lookup of
 * anything under it fails alike), or add's negative return. */
int host_dir_names(const char *dir, int (*add)(void *arg, const char *name), void *arg);

/* A command in the sandbox, which holds no capability (root's neither), can make dir its
 * current directory: every directory on the way is searchable by the caller's ids and
 * groups alone. dir is absolute (getcwd's). Returns 0, or -EACCES with the first directory on
 * the way that refuses in why (n bytes), or another -errno when it cannot be asked. */
int host_dir_enterable(const char *dir, char *why, unsigned long n);

/* The kernel's own answer to whether a connection to the address addr (family AF_INET: 4
 * bytes, AF_INET6: 16, network order) stays on this host: its route is local (an interface's
 * address, or any address of a prefix routed to the host itself, "ip route add local", which
 * no interface lists), broadcast, anycast or multicast. Returns 1, 0 (a route off the host,
 * or none), or -errno when the kernel cannot be asked. */
int host_addr_local(int family, const void *addr);

/* The file at path (symbolic links followed) is this process's own executable (the same
 * device and inode). false when either cannot be asked. */
bool host_is_self_exe(const char *path);

/* The kernel has seccomp filters. */
bool host_has_seccomp(void);

/* The landlock ABI version the kernel offers, or <= 0: none (-errno). */
long host_landlock_abi(void);

#endif
