/* ident — session id and the session directory.
 *
 * Rules kept here:
 * - the id is a short name of [A-Za-z0-9_.-] only: it becomes a path component;
 * - every directory level sbxsh creates is checked on its open descriptor (fstat after
 *   openat with O_NOFOLLOW): a real directory, owned by the user, no group or other bits;
 *   anything else is refused, never repaired, and the message names the path and the fix;
 * - socket paths are checked against sun_path before anything binds or connects.
 */
#include "session/ident.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "session/errf.h"

static int valid_id(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > SESS_ID_MAX || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

/* The audit id is a decimal number; anything else is ignored as unset. */
static int audit_id(const char *audit, char id[SESS_ID_MAX + 1])
{
	char buf[32];
	size_t n;

	if (!audit)
		return 0;
	n = strcspn(audit, "\n");
	if (n == 0 || n >= sizeof(buf) || strspn(audit, "0123456789") != n)
		return 0;
	memcpy(buf, audit, n);
	buf[n] = '\0';
	if (strcmp(buf, SESS_NO_AUDIT) == 0)
		return 0;
	snprintf(id, SESS_ID_MAX + 1, "audit-%s", buf);
	return 1;
}

int sess_id_from(const char *audit, const char *env, char id[SESS_ID_MAX + 1], char **err)
{
	if (audit_id(audit, id))
		return 0;
	if (env && *env) {
		if (!valid_id(env))
			return sess_errf(
			    err, -EINVAL,
			    "SBXSH_SESSION='%.80s' is not a session name: use 1 to %d of "
			    "the characters A-Z a-z 0-9 _ . - (or unset it)",
			    env, SESS_ID_MAX);
		snprintf(id, SESS_ID_MAX + 1, "%s", env);
		return 0;
	}
	snprintf(id, SESS_ID_MAX + 1, "user");
	return 0;
}

int sess_id(char id[SESS_ID_MAX + 1], char **err)
{
	char buf[32] = "";
	int fd = open("/proc/self/sessionid", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	return sess_id_from(buf[0] ? buf : NULL, getenv("SBXSH_SESSION"), id, err);
}

/* A base directory sbxsh does not create: owned by uid and not writable by others, or
 * (shared like /tmp) owned by root and sticky. */
static int check_base(int fd, const char *path, uid_t uid, int shared, char **err)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return sess_errf(err, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sess_errf(err, -ENOTDIR, "%s is not a directory", path);
	if (shared && st.st_uid == 0 && (st.st_mode & S_ISVTX))
		return 0;
	if (st.st_uid != uid)
		return sess_errf(err, -EPERM,
				 "%s is owned by uid %u, not by you (uid %u): point "
				 "XDG_RUNTIME_DIR at a directory of your own",
				 path, (unsigned)st.st_uid, (unsigned)uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return sess_errf(err, -EPERM,
				 "%s is writable by others (mode %04o): run chmod go-w %s", path,
				 (unsigned)(st.st_mode & 07777), path);
	return 0;
}

/* Creates name in dirfd (0700) when missing, opens it without following a link, and checks
 * it is ours and private. Returns the open descriptor or a negative errno. */
static int private_level(int dirfd, const char *name, const char *path, uid_t uid, char **err)
{
	struct stat st;
	int fd;

	if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
		return sess_errf(err, -errno, "cannot create %s: %s", path, strerror(errno));
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == ENOTDIR || e == ELOOP)
			return sess_errf(err, -ENOTDIR,
					 "%s is not a directory (a link or a file): remove it",
					 path);
		return sess_errf(err, -e, "cannot open %s: %s", path, strerror(e));
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return sess_errf(err, -e, "%s: %s", path, strerror(e));
	}
	if (st.st_uid != uid) {
		close(fd);
		return sess_errf(err, -EPERM,
				 "%s is owned by uid %u, not by you (uid %u): remove it or set "
				 "SBXSH_SESSION",
				 path, (unsigned)st.st_uid, (unsigned)uid);
	}
	if (st.st_mode & 077) {
		close(fd);
		return sess_errf(err, -EPERM,
				 "%s has mode %04o; it must be private: run chmod 700 %s", path,
				 (unsigned)(st.st_mode & 07777), path);
	}
	return fd;
}

static int make_dir(const char *base, int shared, const char *l1, const char *id, uid_t uid,
		    char **dir, char **err)
{
	char *p1 = NULL, *p2 = NULL;
	int bfd = -1, fd1 = -1, fd2 = -1, rc;

	bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bfd < 0) {
		rc = sess_errf(err, -errno, "%s: %s", base, strerror(errno));
		goto out;
	}
	if ((rc = check_base(bfd, base, uid, shared, err)) < 0)
		goto out;
	if (asprintf(&p1, "%s/%s", base, l1) < 0 || asprintf(&p2, "%s/%s/%s", base, l1, id) < 0) {
		p2 = NULL;
		rc = sess_errf(err, -ENOMEM, "out of memory");
		goto out;
	}
	if ((fd1 = rc = private_level(bfd, l1, p1, uid, err)) < 0)
		goto out;
	if ((fd2 = rc = private_level(fd1, id, p2, uid, err)) < 0)
		goto out;
	*dir = p2;
	p2 = NULL;
	rc = 0;
out:
	if (bfd >= 0)
		close(bfd);
	if (fd1 >= 0)
		close(fd1);
	if (fd2 >= 0)
		close(fd2);
	free(p1);
	free(p2);
	return rc;
}

int sess_dir_at(const char *runtime, const char *tmp, uid_t uid, const char *id, char **dir,
		char **err)
{
	char l1[32];

	*dir = NULL;
	if (!valid_id(id))
		return sess_errf(err, -EINVAL, "'%.80s' is not a session name", id);
	if (runtime && *runtime) {
		if (runtime[0] != '/')
			return sess_errf(
			    err, -EINVAL,
			    "XDG_RUNTIME_DIR='%s' is not an absolute path: fix or unset it",
			    runtime);
		return make_dir(runtime, 0, "sbxsh", id, uid, dir, err);
	}
	snprintf(l1, sizeof(l1), "sbxsh-%u", (unsigned)uid);
	return make_dir(tmp, 1, l1, id, uid, dir, err);
}

int sess_dir(const char *id, char **dir, char **err)
{
	return sess_dir_at(getenv("XDG_RUNTIME_DIR"), "/tmp", getuid(), id, dir, err);
}

int sess_sock_path(const char *dir, const char *name, char **path, char **err)
{
	struct sockaddr_un sun;
	char *p = NULL;

	*path = NULL;
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return sess_errf(err, -ENOMEM, "out of memory");
	if (strlen(p) >= sizeof(sun.sun_path)) {
		int rc =
		    sess_errf(err, -ENAMETOOLONG,
			      "the session socket path %s is %zu bytes, past the %zu-byte limit "
			      "of unix sockets: point XDG_RUNTIME_DIR at a shorter path",
			      p, strlen(p), sizeof(sun.sun_path) - 1);
		free(p);
		return rc;
	}
	*path = p;
	return 0;
}
