/* test_session_ident — session id choice and the session directory's checks. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session/ident.h"
#include "tests/unit/tap.h"

static char base[256];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path) < 0 ? 0 : 0;
}

static void ids(void)
{
	char id[SESS_ID_MAX + 1], *err = NULL;
	char longname[100];

	is_int(sess_id_from("42\n", "x", id, &err), 0, "an audit id is taken");
	is_str(id, "audit-42", "it wins over SBXSH_SESSION");
	is_int(sess_id_from("4294967295\n", "work.1", id, &err), 0, "unset audit id: env");
	is_str(id, "work.1", "SBXSH_SESSION names the session");
	is_int(sess_id_from(NULL, NULL, id, &err), 0, "nothing set");
	is_str(id, "user", "one session per user");
	is_int(sess_id_from("12abc", "", id, &err), 0, "a garbled audit id is ignored");
	is_str(id, "user", "and the empty env too");
	is_int(sess_id_from(NULL, "../x", id, &err), -EINVAL, "a path in SBXSH_SESSION is refused");
	ok(err && strstr(err, "SBXSH_SESSION='../x' is not a session name"),
	   "the message names it: %s", err);
	free(err);
	err = NULL;
	is_int(sess_id_from(NULL, "..", id, &err), -EINVAL, "'..' is refused");
	free(err);
	err = NULL;
	memset(longname, 'a', 65);
	longname[65] = '\0';
	is_int(sess_id_from(NULL, longname, id, &err), -EINVAL, "65 characters are refused");
	free(err);
	err = NULL;
	longname[64] = '\0';
	is_int(sess_id_from(NULL, longname, id, &err), 0, "64 are taken");
	is_int(sess_id_from(NULL, "a b", id, &err), -EINVAL, "a space is refused");
	free(err);
}

static void dirs(void)
{
	char rt[300], p[400], *dir = NULL, *err = NULL;

	snprintf(rt, sizeof(rt), "%s/rt", base);
	mkdir(rt, 0700);
	is_int(sess_dir_at(rt, "/tmp", getuid(), "s1", &dir, &err), 0, "a runtime dir is used");
	snprintf(p, sizeof(p), "%s/sbxsh/s1", rt);
	is_str(dir, p, "at <runtime>/sbxsh/<id>");
	free(dir);
	dir = NULL;
	chmod(p, 0750);
	is_int(sess_dir_at(rt, "/tmp", getuid(), "s1", &dir, &err), -EPERM,
	       "a session dir with group bits is refused");
	ok(err && strstr(err, "run chmod 700"), "with the fix: %s", err);
	free(err);
	err = NULL;
	chmod(p, 0700);
	snprintf(p, sizeof(p), "%s/sbxsh/s2", rt);
	ok(symlink("/tmp", p) == 0, "a link planted at the session dir");
	is_int(sess_dir_at(rt, "/tmp", getuid(), "s2", &dir, &err), -ENOTDIR,
	       "a link in place of the session dir is refused");
	free(err);
	err = NULL;
	chmod(rt, 0777);
	is_int(sess_dir_at(rt, "/tmp", getuid(), "s1", &dir, &err), -EPERM,
	       "a runtime dir writable by others is refused");
	ok(err && strstr(err, "writable by others"), "saying so: %s", err);
	free(err);
	err = NULL;
	chmod(rt, 0700);
	is_int(sess_dir_at(rt, "/tmp", getuid() + 1, "s1", &dir, &err), -EPERM,
	       "a runtime dir of another uid is refused");
	free(err);
	err = NULL;
	is_int(sess_dir_at("rel", "/tmp", getuid(), "s1", &dir, &err), -EINVAL,
	       "a relative runtime dir is refused");
	free(err);
	err = NULL;
	is_int(sess_dir_at(NULL, base, getuid(), "s3", &dir, &err), 0,
	       "no runtime dir: <tmp>/sbxsh-<uid>/<id>");
	snprintf(p, sizeof(p), "%s/sbxsh-%u/s3", base, (unsigned)getuid());
	is_str(dir, p, "the fallback path");
	free(dir);
	dir = NULL;
	is_int(sess_dir_at(NULL, base, getuid(), "../s", &dir, &err), -EINVAL,
	       "a bad id never becomes a path");
	free(err);
}

/* Without XDG_RUNTIME_DIR: /run/user/<uid> when ours; a squatted /tmp/sbxsh-<uid> passed
 * over for ~/.cache/sbxsh-run; when nothing works, one message with the squatter and fix. */
static void squatted(void)
{
	char tq[300], home[300], ru[300], p[400], want[600], *dir = NULL, *err = NULL;
	struct sess_bases b = {0};
	struct stat st;
	uid_t uid = getuid();

	snprintf(tq, sizeof(tq), "%s/tq", base);
	snprintf(home, sizeof(home), "%s/home", base);
	snprintf(ru, sizeof(ru), "%s/ru", base);
	mkdir(tq, 0755);
	mkdir(home, 0700);
	mkdir(ru, 0755);
	snprintf(p, sizeof(p), "%s/ru/%u", base, (unsigned)uid);
	mkdir(p, 0700);
	b.run_user = ru;
	b.tmp = tq;
	b.home = home;
	is_int(sess_dir_in(&b, uid, "s1", &dir, &err), 0, "/run/user/<uid> of ours is used");
	snprintf(want, sizeof(want), "%s/sbxsh/s1", p);
	is_str(dir, want, "at /run/user/<uid>/sbxsh/<id>");
	free(dir);
	dir = NULL;
	chmod(want, 0750);
	is_int(sess_dir_in(&b, uid, "s1", &dir, &err), -EPERM,
	       "a bad level inside /run/user/<uid> is an error, not a silent move to /tmp");
	free(err);
	err = NULL;
	rmdir(want);
	snprintf(want, sizeof(want), "%s/sbxsh", p);
	rmdir(want);
	rmdir(p);

	snprintf(p, sizeof(p), "%s/sbxsh-%u", tq, (unsigned)uid);
	ok(symlink(base, p) == 0, "sbxsh-<uid> in the shared dir squatted with a link");
	is_int(sess_dir_in(&b, uid, "s2", &dir, &err), 0, "a squatted /tmp name is passed over");
	snprintf(want, sizeof(want), "%s/.cache/sbxsh-run/s2", home);
	is_str(dir, want, "for ~/.cache/sbxsh-run/<id>");
	free(dir);
	dir = NULL;
	snprintf(want, sizeof(want), "%s/.cache", home);
	ok(lstat(want, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 077) == 0,
	   "~/.cache made private when missing");
	ok(lstat(p, &st) == 0 && S_ISLNK(st.st_mode), "the squatter's link is left alone");
	chmod(want, 0777);
	is_int(sess_dir_in(&b, uid, "s2", &dir, &err), -EPERM,
	       "a ~/.cache writable by others is refused");
	ok(err && strstr(err, "no session directory") && strstr(err, "sbxsh-") &&
	       strstr(err, "writable by others") && strstr(err, "XDG_RUNTIME_DIR") &&
	       strstr(err, "have root remove"),
	   "the message names both places and the fixes: %s", err);
	free(err);
	err = NULL;
	chmod(want, 0700);
	{
		char real[700], link[700];
		snprintf(real, sizeof(real), "%s/realcache", base);
		snprintf(link, sizeof(link), "%s/home2", base);
		mkdir(real, 0755);
		mkdir(link, 0700);
		strcat(link, "/.cache");
		ok(symlink(real, link) == 0,
		   "a ~/.cache that is the user's link to a dir of theirs");
		snprintf(link, sizeof(link), "%s/home2", base);
		b.home = link;
		is_int(sess_dir_in(&b, uid, "s5", &dir, &err), 0, "…is followed");
		snprintf(real, sizeof(real), "%s/home2/.cache/sbxsh-run/s5", base);
		is_str(dir, real, "…to its sbxsh-run");
		free(dir);
		dir = NULL;
		b.home = home;
	}
	b.home = NULL;
	is_int(sess_dir_in(&b, uid, "s3", &dir, &err), -ENOTDIR, "no home: the squat is an error");
	ok(err && strstr(err, "is not a directory"), "saying what is there: %s", err);
	free(err);
	err = NULL;
	unlink(p);

	if (uid != 0) {
		skip("chown to another uid needs root", "a squatter named by owner");
		return;
	}
	ok(mkdir(p, 0700) == 0 && chown(p, 65534, 65534) == 0, "as root: a dir of uid 65534");
	b.home = home;
	is_int(sess_dir_in(&b, uid, "s4", &dir, &err), 0, "another uid's dir is passed over");
	free(dir);
	dir = NULL;
	b.home = NULL;
	is_int(sess_dir_in(&b, uid, "s4", &dir, &err), -EPERM, "…and an error without a home");
	ok(err && strstr(err, "is owned by uid 65534"), "naming the squatter: %s", err);
	free(err);
	rmdir(p);
}

static void socks(void)
{
	char d[200], *path = NULL, *err = NULL;

	memset(d, 'd', sizeof(d));
	d[0] = '/';
	d[95] = '\0';
	is_int(sess_sock_path(d, "ctl.sock", &path, &err), 0, "104 bytes fit in sun_path");
	free(path);
	d[95] = 'd';
	d[98] = '\0';
	is_int(sess_sock_path(d, "ctl.sock", &path, &err), 0, "107 bytes fit");
	free(path);
	d[98] = 'd';
	d[99] = '\0';
	is_int(sess_sock_path(d, "ctl.sock", &path, &err), -ENAMETOOLONG, "108 bytes do not");
	ok(err && strstr(err, d) && strstr(err, "107-byte limit"),
	   "the error names the path and the limit");
	free(err);
}

int main(void)
{
	snprintf(base, sizeof(base), "/tmp/test_session_ident.%d", (int)getpid());
	mkdir(base, 0755);
	ids();
	dirs();
	squatted();
	socks();
	nftw(base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
