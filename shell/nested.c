/* nested — is this process already inside an sbxsh sandbox? (compat.md 11)
 *
 * The fact used cannot be forged from outside nor removed from inside: the marker is an
 * empty root-owned file on the host that only a sandbox has a read-only mount over (its
 * own mount id differs from its directory's) carrying the magic text. Outside, making
 * that mount needs mount rights, which would already mean no sandbox to escape; inside,
 * unmounting it is refused by seccomp and by the missing capabilities.
 */
#include <fcntl.h>
#include <linux/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "platform/sandbox.h"
#include "shell/shell.h"

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

static bool is_mount_point(int fd, const char *path)
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

bool nested_detect(const char *marker, char **inner_shell)
{
	char buf[4097];
	bool nested = false;
	int fd = open(marker, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	*inner_shell = NULL;
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = '\0';
		nested = strncmp(buf, SBX_MARKER_MAGIC, strlen(SBX_MARKER_MAGIC)) == 0 &&
			 is_mount_point(fd, marker);
	}
	close(fd);
	const char *sh = nested ? strstr(buf, "\ninner_shell=") : NULL;
	if (sh) {
		sh += strlen("\ninner_shell=");
		if (sh[0] == '/')
			*inner_shell = strndup(sh, strcspn(sh, "\n"));
	}
	return nested;
}
