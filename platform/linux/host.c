/* host — the Linux backend of platform/host.h: statx mount ids, prctl, landlock. */
#include "platform/host.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/landlock.h>
#include <linux/magic.h>
#include <linux/stat.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
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

bool host_has_seccomp(void)
{
	return prctl(PR_GET_SECCOMP) >= 0;
}

long host_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? -errno : abi;
}
