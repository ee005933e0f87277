/* host — the Linux backend of platform/host.h: statx mount ids, prctl, landlock. */
#include "platform/host.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/stat.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
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
