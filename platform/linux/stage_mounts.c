/* stage_mounts — the masks, the marker and /dev's read-only remount, made by the stage.
 *
 * Rules kept here:
 * - Each mount is made read-only, nosuid and nodev before it is attached (open_tree,
 *   mount_setattr on the detached copy, move_mount): it never shows writable.
 * - A target is opened once without following a link in its last component (the plan
 *   judged it to be no link) and mounted on through that descriptor; a link found there,
 *   or a directory where a file was judged (or the reverse), fails.
 * - A mask's empty file is made in bwrap's fresh /dev (still writable, nothing of the
 *   command runs yet), bound, and unlinked before /dev goes read-only: as bwrap's own
 *   --ro-bind-data does with its temporary file. Every empty mask is bound from one such
 *   file (each bind a read-only mount of its own; nothing can write the file through any of
 *   them), the marker from one holding its text: two files, not one a mask (five system
 *   calls each, and a hypervisor exit each on a paravirtualized guest).
 * - Any failure is returned; the stage stops the command (fail closed).
 */
#include "platform/linux/stage_mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Not in every C library's headers (musl has none of them). */
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef MOVE_MOUNT_T_EMPTY_PATH
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV  0x00000004
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

struct attr { /* the kernel's struct mount_attr */
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

#define LOCKED_DOWN (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)

static int open_tree_(int dfd, const char *path, unsigned flags)
{
	return (int)syscall(SYS_open_tree, dfd, path, flags);
}

static int move_mount_(int from, int to)
{
	return (int)syscall(SYS_move_mount, from, "", to, "",
			    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}

static int setattr_(int dfd, const char *path, unsigned flags)
{
	struct attr a = {.attr_set = LOCKED_DOWN};
	return (int)syscall(SYS_mount_setattr, dfd, path, flags, &a, sizeof(a));
}

/* The target, opened where it is now: not a link; a directory exactly when dir. */
static int target(const char *path, bool dir)
{
	struct stat st;
	/* openat, not open: musl's open adds an fcntl for O_CLOEXEC */
	int fd = openat(AT_FDCWD, path, O_PATH | O_NOFOLLOW | O_CLOEXEC), e;

	if (fd < 0)
		return -errno;
	e = fstat(fd, &st) < 0		  ? -errno
	    : S_ISLNK(st.st_mode)	  ? -ELOOP
	    : S_ISDIR(st.st_mode) && !dir ? -EISDIR
	    : !S_ISDIR(st.st_mode) && dir ? -ENOTDIR
					  : 0;
	if (e < 0) {
		close(fd);
		return e;
	}
	return fd;
}

/* A detached copy of the tree at (dfd, path) made read-only, moved onto to. */
static int attach(int dfd, const char *path, unsigned clone_flags, int to)
{
	int t = open_tree_(dfd, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | clone_flags), e = 0;

	if (t < 0)
		return -errno;
	if (setattr_(t, "", AT_EMPTY_PATH | (clone_flags & AT_RECURSIVE)) < 0 ||
	    move_mount_(t, to) < 0)
		e = -errno;
	close(t);
	return e;
}

/* An empty file, or one holding text, in /dev: the source of a mask (0600, ours). */
static int make_source(char *name, size_t cap, unsigned i, const char *text)
{
	snprintf(name, cap, "/dev/.sbxsh-stage-%u", i);
	int fd = openat(AT_FDCWD, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600),
	    e = 0;
	size_t len = text ? strlen(text) : 0;

	if (fd < 0)
		return -errno;
	errno = EIO; /* a short write sets none */
	if (fchmod(fd, 0600) < 0 || (len && write(fd, text, len) != (ssize_t)len))
		e = -errno;
	if (close(fd) < 0 && e == 0)
		e = -errno;
	return e;
}

/* A file masked by a bind of source i, made first unless *made says it is there. */
static int mask_file(const char *path, unsigned i, const char *text, bool *made)
{
	char src[64];
	int e = 0, to;

	if (*made)
		snprintf(src, sizeof(src), "/dev/.sbxsh-stage-%u", i);
	else if ((e = make_source(src, sizeof(src), i, text)) == 0)
		*made = true;
	if (e < 0)
		return e;
	if ((to = target(path, false)) < 0)
		return to;
	e = attach(AT_FDCWD, src, 0, to);
	close(to);
	return e;
}

static int mask_dir(const char *path)
{
	char at[64];
	int to = target(path, true), e = 0;

	if (to < 0)
		return to;
	/* mounted read-only as a whole: the file system too, not only this mount */
	snprintf(at, sizeof(at), "/proc/self/fd/%d", to);
	if (mount("tmpfs", at, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=0755") < 0)
		e = -errno;
	close(to);
	return e;
}

static int read_only(const char *path)
{
	int to = target(path, true), e;

	if (to < 0)
		return to;
	e = attach(to, "", AT_EMPTY_PATH | AT_RECURSIVE, to);
	close(to);
	return e;
}

int stage_mounts_make(const struct stage_mount *v, size_t n, const char *marker,
		      const char *marker_text, bool dev_ro, const char **failed)
{
	unsigned made = 0;
	bool empty = false; /* source 0, the empty file, is made */
	int e = 0;

	for (size_t i = 0; e == 0 && i < n; i++) {
		*failed = v[i].path;
		switch (v[i].kind) {
		case STAGE_MASK_FILE:
			e = mask_file(v[i].path, 0, NULL, &empty);
			made = empty;
			break;
		case STAGE_MASK_DIR:
			e = mask_dir(v[i].path);
			break;
		case STAGE_RO:
			e = read_only(v[i].path);
			break;
		default:
			e = -EINVAL;
		}
		/* a path to hide gone since sbxsh's plan (a lock or temporary file the host
		 * removed) leaves nothing to hide: the mask is not needed (as for a path that
		 * was not there at the plan) */
		if (e == -ENOENT && v[i].kind != STAGE_RO)
			e = 0;
	}
	if (e == 0 && marker) {
		bool src = false;
		*failed = marker;
		e = mask_file(marker, made, marker_text, &src);
		made += src;
	}
	/* The sources leave /dev (the mounts keep their files), then /dev is read-only. */
	for (unsigned i = 0; i < made; i++) {
		char name[64];
		snprintf(name, sizeof(name), "/dev/.sbxsh-stage-%u", i);
		if (unlink(name) < 0 && e == 0) {
			*failed = "/dev";
			e = -errno;
		}
	}
	if (e == 0 && dev_ro) {
		*failed = "/dev";
		e = setattr_(AT_FDCWD, "/dev", AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	}
	if (e == 0)
		*failed = NULL;
	return e;
}

static bool reached(long e)
{
	return e == EBADF || e == EINVAL || e == ENOENT;
}

bool stage_mounts_supported(void)
{
	/* Each call reaches the kernel's argument checks (EBADF, EINVAL), not ENOSYS nor a
	 * container's EPERM. */
	long a = syscall(SYS_open_tree, -1, "", 0), b = a < 0 ? errno : 0;
	long c = syscall(SYS_move_mount, -1, "", -1, "", 0), d = c < 0 ? errno : 0;
	long x = syscall(SYS_mount_setattr, -1, "", 0, NULL, 0), y = x < 0 ? errno : 0;

	return reached(b) && reached(d) && reached(y);
}
