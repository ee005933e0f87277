/* host — the Linux backend of platform/host.h: statx mount ids, prctl, landlock. */
#include "platform/host.h"

#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/landlock.h>
#include <linux/magic.h>
#include <linux/stat.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static int mnt_id(int dirfd, const char *path, int flags, unsigned long long *id, dev_t *dev)
{
	struct statx sx;

	/* The system call itself: the front end is also built with a C library (musl) that has
	 * no statx wrapper. */
	if (syscall(SYS_statx, dirfd, path, flags, STATX_MNT_ID, &sx) < 0)
		return -1;
	*id = sx.stx_mask & STATX_MNT_ID ? sx.stx_mnt_id : 0;
	*dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	return 0;
}

#ifndef FS_CASEFOLD_FL
#define FS_CASEFOLD_FL 0x40000000
#endif
#ifndef FS_ENCRYPT_FL
#define FS_ENCRYPT_FL 0x00000800
#endif

bool host_listing_exact(int fd)
{
	struct statfs sf;
	int fl = 0; /* FS_IOC_GETFLAGS: an int, whatever its name says */

	if (fstatfs(fd, &sf) < 0)
		return false;
	if (sf.f_type != EXT4_SUPER_MAGIC && sf.f_type != BTRFS_SUPER_MAGIC &&
	    sf.f_type != TMPFS_MAGIC)
		return false;
	/* ext4 and tmpfs fold case per directory (chattr +F); an encrypted directory without
	 * its key lists names a lookup does not take. Flags that cannot be read: not known. */
	return ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0 && !(fl & (FS_CASEFOLD_FL | FS_ENCRYPT_FL));
}

int host_dir_names(const char *dir, int (*add)(void *arg, const char *name), void *arg)
{
	/* openat, not open: musl's open adds an fcntl for O_CLOEXEC; getdents64 into a buffer
	 * of ours, not opendir (its allocation, fstat and fcntl): each system call costs */
	int fd = openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;
	char buf[4096];

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : 0;
	if (host_listing_exact(fd)) {
		long n;
		r = 1;
		while (r > 0 && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) != 0) {
			if (n < 0) {
				r = 0; /* cut short: not known */
				break;
			}
			/* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, then the name,
			 * NUL-terminated within reclen */
			for (long off = 0; r > 0 && off + 19 < n;) {
				unsigned short reclen;
				memcpy(&reclen, buf + off + 16, sizeof(reclen));
				if (reclen < 20 || off + reclen > n) {
					r = 0;
					break;
				}
				int e = add(arg, buf + off + 19);
				if (e < 0)
					r = e;
				off += reclen;
			}
		}
	}
	close(fd);
	return r;
}

bool host_is_mount_point(int fd, const char *path)
{
	char dir[4096];
	unsigned long long a, b;
	dev_t da, db;
	const char *slash = strrchr(path, '/');

	if (!slash || (size_t)(slash - path) >= sizeof(dir))
		return false;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	if (mnt_id(fd, "", AT_EMPTY_PATH, &a, &da) < 0 ||
	    mnt_id(AT_FDCWD, dir[0] ? dir : "/", 0, &b, &db) < 0)
		return false;
	return a && b ? a != b : da != db;
}

bool host_is_self_exe(const char *path)
{
	struct stat a, b;

	return stat("/proc/self/exe", &a) == 0 && stat(path, &b) == 0 && S_ISREG(b.st_mode) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

bool host_has_seccomp(void)
{
	return prctl(PR_GET_SECCOMP) >= 0;
}

long host_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? -errno : abi;
}

/* Search permission on st by its mode bits alone, for our ids and groups (no capability,
 * no ACL). */
static bool mode_searchable(const struct stat *st)
{
	gid_t g[256];
	int n;

	if (st->st_uid == geteuid())
		return st->st_mode & S_IXUSR;
	bool grp = st->st_gid == getegid();
	if (!grp && (n = getgroups(sizeof(g) / sizeof(*g), g)) > 0)
		for (int i = 0; i < n && !grp; i++)
			grp = g[i] == st->st_gid;
	return st->st_mode & (grp ? S_IXGRP : S_IXOTH);
}

/* The first directory of path (absolute) its prefixes' mode bits refuse to search, into why;
 * false when none does. */
static bool mode_refuser(const char *path, char *why, unsigned long n)
{
	struct stat st;
	size_t len = strlen(path);

	if (len >= n)
		return false;
	for (size_t i = 1; i <= len; i++) {
		if (i < len && path[i] != '/')
			continue;
		memcpy(why, path, i);
		why[i] = '\0';
		if (stat(why, &st) == 0 && S_ISDIR(st.st_mode) && !mode_searchable(&st))
			return true;
	}
	return false;
}

/* access(dir, X_OK) in a child that dropped every capability: root's answer as the sandbox
 * gets it, access control lists included. 0, -EACCES, or -errno. */
static int access_capless(const char *dir)
{
	pid_t p = fork();
	int st;

	if (p < 0)
		return -errno;
	if (p == 0) {
		capng_clear(CAPNG_SELECT_CAPS);
		if (capng_apply(CAPNG_SELECT_CAPS) != 0)
			_exit(2);
		_exit(access(dir, X_OK) == 0 ? 0 : errno == EACCES ? 1 : 2);
	}
	while (waitpid(p, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0   ? 0
	       : WIFEXITED(st) && WEXITSTATUS(st) == 1 ? -EACCES
						       : -EIO;
}

int host_dir_enterable(const char *dir, char *why, unsigned long n)
{
	if (geteuid() != 0) { /* no capability to lose: the kernel's own answer */
		if (access(dir, X_OK) == 0)
			return 0;
		if (errno != EACCES)
			return -errno;
		if (!mode_refuser(dir, why, n))
			snprintf(why, n, "%s", dir);
		return -EACCES;
	}
	/* root: the mode bits as uid 0 without capabilities; where they refuse (rare), the
	 * kernel's answer in a child without capabilities (an ACL may allow it) */
	if (!mode_refuser(dir, why, n))
		return 0;
	int e = access_capless(dir);
	return e == -EIO ? 0 : e; /* not asked: bwrap says what it finds */
}
