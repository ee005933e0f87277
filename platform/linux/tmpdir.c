/* tmpdir — each command's private TMPDIR on the host, made before and removed after.
 *
 * Rules kept here:
 * - The parent is ours: a real directory (not a link), owned by us, mode 0700; anything
 *   else is refused by name (another user could otherwise rename or plant entries).
 * - The removal never follows a link (openat O_NOFOLLOW | O_DIRECTORY, unlinkat), so a
 *   command that leaves a link to elsewhere gets only the link removed.
 */
#include "platform/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The parent directory: $XDG_RUNTIME_DIR/sbxsh if that is ours, else /tmp/sbxsh-UID. */
static int parent_dir(char *buf, size_t n, char **why)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	if (xdg && xdg[0] == '/' && stat(xdg, &st) == 0 && st.st_uid == getuid())
		snprintf(buf, n, "%s/sbxsh", xdg);
	else
		snprintf(buf, n, "/tmp/sbxsh-%u", (unsigned)getuid());
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		goto bad;
	if (lstat(buf, &st) < 0)
		goto bad;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077)) {
		errno = EPERM;
		if (asprintf(why, "%s must be a directory owned by uid %u with mode 0700 (it is "
				  "not); remove it and retry",
			     buf, (unsigned)getuid()) < 0)
			*why = NULL;
		return -EPERM;
	}
	return 0;
bad:;
	int e = errno;
	if (asprintf(why, "cannot make the temporary directory %s: %s", buf, strerror(e)) < 0)
		*why = NULL;
	return -e;
}

int sandbox_tmp_create(char **out, char **why)
{
	char parent[4096], *path = NULL;
	int r;

	*out = NULL;
	*why = NULL;
	if ((r = parent_dir(parent, sizeof(parent), why)) < 0)
		return r;
	if (asprintf(&path, "%s/tmp.XXXXXX", parent) < 0)
		return -ENOMEM;
	if (!mkdtemp(path)) {
		r = -errno;
		if (asprintf(why, "cannot make a temporary directory in %s: %s", parent,
			     strerror(-r)) < 0)
			*why = NULL;
		free(path);
		return r;
	}
	*out = path;
	return 0;
}

static int remove_at(int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int r = 0;

	if (!d) {
		close(dfd);
		return -errno;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			continue;
		if (errno != EISDIR && errno != EPERM)
			continue;
		int sub = openat(dirfd(d), e->d_name,
				 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || depth > 256) {
			if (sub >= 0)
				close(sub);
			r = -ELOOP;
			continue;
		}
		/* A directory the command made unreadable: give ourselves back access. */
		fchmod(sub, 0700);
		remove_at(sub, depth + 1);
		if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) < 0)
			r = -errno;
	}
	closedir(d);
	return r;
}

int sandbox_tmp_remove(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	fchmod(fd, 0700);
	int r = remove_at(fd, 0);
	if (rmdir(path) < 0 && r == 0)
		r = -errno;
	return r;
}
