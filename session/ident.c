/* ident — session id and the session directory.
 *
 * Rules kept here:
 * - the id is a short name of [A-Za-z0-9_.-] only: it becomes a path component;
 * - every directory level sbxsh creates is checked on its open descriptor (fstat after
 *   openat with O_NOFOLLOW): a real directory, owned by the user, no group or other bits;
 *   anything else is refused, never repaired, and the message names the path, its owner
 *   and the fix;
 * - without XDG_RUNTIME_DIR: /run/user/<uid> when it is ours, else /tmp/sbxsh-<uid>, else
 *   (someone else made that name first) ~/.cache/sbxsh-run, which no other user can make;
 * - socket paths are checked against sun_path before anything binds or connects.
 */
#include "session/ident.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "platform/proc.h"
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
	unsigned long sid = proc_login_session(0);

	if (sid)
		snprintf(buf, sizeof(buf), "%lu", sid);
	return sess_id_from(buf[0] ? buf : NULL, getenv("SBXSH_SESSION"), id, err);
}

/* "uid N (name)" of the owner of a file sbxsh did not make, for messages. */
static const char *owner_of(uid_t owner, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(owner);

	snprintf(buf, len, "uid %u%s%s%s", (unsigned)owner, pw ? " (" : "", pw ? pw->pw_name : "",
		 pw ? ")" : "");
	return buf;
}

/* A base directory sbxsh does not create: owned by uid and not writable by others, or
 * (shared like /tmp) owned by root and sticky. */
static int check_base(int fd, const char *path, uid_t uid, int shared, char **err)
{
	struct stat st;
	char who[96];

	if (fstat(fd, &st) < 0)
		return sess_errf(err, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sess_errf(err, -ENOTDIR, "%s is not a directory", path);
	if (shared && st.st_uid == 0 && (st.st_mode & S_ISVTX))
		return 0;
	if (st.st_uid != uid)
		return sess_errf(err, -EPERM,
				 "%s is owned by %s, not by you (uid %u): point "
				 "XDG_RUNTIME_DIR at a directory of your own",
				 path, owner_of(st.st_uid, who, sizeof(who)), (unsigned)uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return sess_errf(err, -EPERM,
				 "%s is writable by others (mode %04o): run chmod go-w %s", path,
				 (unsigned)(st.st_mode & 07777), path);
	return 0;
}

/* Creates name in dirfd (0700) when missing, opens it without following a link, and checks
 * it is ours and private (or, when !private, ours and not writable by others). Returns the
 * open descriptor or a negative errno. A name someone else made is named with its owner. */
static int level(int dirfd, const char *name, const char *path, uid_t uid, int private, char **err)
{
	struct stat st;
	char who[96];
	int fd;

	if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
		return sess_errf(err, -errno, "cannot create %s: %s", path, strerror(errno));
	/* ~/.cache may be the user's link to another disk: followed, and the directory it
	 * leads to is checked; a level sbxsh owns (private) is never a link. */
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (private ? O_NOFOLLOW : 0));
	if (fd < 0) {
		int e = errno;
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid != uid)
			return sess_errf(err, -EPERM, "%s is owned by %s, not by you (uid %u)",
					 path, owner_of(st.st_uid, who, sizeof(who)),
					 (unsigned)uid);
		if (e == ENOTDIR || e == ELOOP) {
			return sess_errf(err, -ENOTDIR,
					 "%s is not a directory (a link or a file): remove it",
					 path);
		}
		return sess_errf(err, -e, "cannot open %s: %s", path, strerror(e));
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return sess_errf(err, -e, "%s: %s", path, strerror(e));
	}
	if (st.st_uid != uid) {
		close(fd);
		return sess_errf(err, -EPERM, "%s is owned by %s, not by you (uid %u)", path,
				 owner_of(st.st_uid, who, sizeof(who)), (unsigned)uid);
	}
	if (private && (st.st_mode & 077)) {
		close(fd);
		return sess_errf(err, -EPERM,
				 "%s has mode %04o; it must be private: run chmod 700 %s", path,
				 (unsigned)(st.st_mode & 07777), path);
	}
	if (!private && (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return sess_errf(err, -EPERM,
				 "%s is writable by others (mode %04o): run chmod go-w %s", path,
				 (unsigned)(st.st_mode & 07777), path);
	}
	return fd;
}

/* <base>[/<mid>]/<l1>/<id>: base must exist (check_base); mid (not private: ~/.cache) and
 * the private l1 and id are made when missing. */
static int make_dir(const char *base, int shared, const char *mid, const char *l1, const char *id,
		    uid_t uid, char **dir, char **err)
{
	char *pm = NULL, *p1 = NULL, *p2 = NULL;
	int bfd = -1, fdm = -1, fd1 = -1, fd2 = -1, rc;

	bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bfd < 0) {
		rc = sess_errf(err, -errno, "%s: %s", base, strerror(errno));
		goto out;
	}
	if ((rc = check_base(bfd, base, uid, shared, err)) < 0)
		goto out;
	if (asprintf(&pm, "%s%s%s", base, mid ? "/" : "", mid ? mid : "") < 0) {
		pm = NULL;
		rc = sess_errf(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (asprintf(&p1, "%s/%s", pm, l1) < 0 || asprintf(&p2, "%s/%s/%s", pm, l1, id) < 0) {
		p2 = NULL;
		rc = sess_errf(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (mid && (fdm = rc = level(bfd, mid, pm, uid, 0, err)) < 0)
		goto out;
	if ((fd1 = rc = level(mid ? fdm : bfd, l1, p1, uid, 1, err)) < 0)
		goto out;
	if ((fd2 = rc = level(fd1, id, p2, uid, 1, err)) < 0)
		goto out;
	*dir = p2;
	p2 = NULL;
	rc = 0;
out:
	if (bfd >= 0)
		close(bfd);
	if (fdm >= 0)
		close(fdm);
	if (fd1 >= 0)
		close(fd1);
	if (fd2 >= 0)
		close(fd2);
	free(pm);
	free(p1);
	free(p2);
	return rc;
}

/* <run_user>/<uid>/sbxsh/<id> when <run_user>/<uid> exists and is ours (logind's runtime
 * directory); -ENOENT (the next place is tried) when it is missing or not ours. */
static int run_user_dir(const char *run_user, uid_t uid, const char *id, char **dir, char **err)
{
	char base[256];
	char *e = NULL;
	int fd, rc;

	if (!run_user ||
	    (size_t)snprintf(base, sizeof(base), "%s/%u", run_user, (unsigned)uid) >= sizeof(base))
		return -ENOENT;
	fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = fd < 0 ? -ENOENT : check_base(fd, base, uid, 0, &e);
	if (fd >= 0)
		close(fd);
	free(e);
	if (rc < 0)
		return -ENOENT;
	return make_dir(base, 0, NULL, "sbxsh", id, uid, dir, err);
}

int sess_dir_in(const struct sess_bases *b, uid_t uid, const char *id, char **dir, char **err)
{
	char l1[32], *etmp = NULL, *ehome = NULL;
	int rc;

	*dir = NULL;
	if (!valid_id(id))
		return sess_errf(err, -EINVAL, "'%.80s' is not a session name", id);
	if (b->runtime && *b->runtime) {
		if (b->runtime[0] != '/')
			return sess_errf(
			    err, -EINVAL,
			    "XDG_RUNTIME_DIR='%s' is not an absolute path: fix or unset it",
			    b->runtime);
		return make_dir(b->runtime, 0, NULL, "sbxsh", id, uid, dir, err);
	}
	if ((rc = run_user_dir(b->run_user, uid, id, dir, err)) != -ENOENT)
		return rc;
	/* /tmp is shared: anyone may have made sbxsh-<uid> first. Such a name is never
	 * repaired or used; the home's own directory is the way out. */
	snprintf(l1, sizeof(l1), "sbxsh-%u", (unsigned)uid);
	rc = make_dir(b->tmp, 1, NULL, l1, id, uid, dir, &etmp);
	if (rc == 0 || !b->home)
		goto out;
	if (b->home[0] != '/') {
		rc = sess_errf(&ehome, -EINVAL, "HOME='%s' is not an absolute path", b->home);
	} else {
		rc = make_dir(b->home, 0, ".cache", SESS_HOME_RUN, id, uid, dir, &ehome);
		if (rc == 0)
			goto out;
	}
	rc = sess_errf(err, rc,
		       "no session directory: %s; and in your home: %s. Set XDG_RUNTIME_DIR to a "
		       "directory of yours with mode 0700 (mkdir -m 700 ~/.run && export "
		       "XDG_RUNTIME_DIR=~/.run), or have root remove %s/%s",
		       etmp ? etmp : "?", ehome ? ehome : "?", b->tmp, l1);
	free(etmp);
	etmp = NULL;
out:
	if (etmp && rc < 0) {
		*err = etmp;
		etmp = NULL;
	}
	free(etmp);
	free(ehome);
	return rc;
}

int sess_dir_at(const char *runtime, const char *tmp, uid_t uid, const char *id, char **dir,
		char **err)
{
	struct sess_bases b = {.runtime = runtime, .tmp = tmp};

	return sess_dir_in(&b, uid, id, dir, err);
}

/* The home of the session directory's last fallback: $HOME, else the password database's. */
static const char *home_dir(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h && h[0] == '/')
		return h;
	pw = getpwuid(getuid());
	return pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
}

int sess_dir(const char *id, char **dir, char **err)
{
	struct sess_bases b = {.runtime = getenv("XDG_RUNTIME_DIR"),
			       .run_user = "/run/user",
			       .tmp = "/tmp",
			       .home = home_dir()};

	return sess_dir_in(&b, getuid(), id, dir, err);
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
