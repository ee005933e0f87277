/* test_path — path spelling: ~, $VAR, relative to the root, glob checks, canonical form. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/host.h"
#include "platform/path.h"
#include "tests/unit/tap.h"

static void expands(const char *in, const char *want)
{
	char *out = NULL, *err = NULL;
	int r = path_expand(in, "/home/u", "/proj", &out, &err);
	is_int(r, 0, "'%s' expands%s%s", in, err ? ": " : "", err ? err : "");
	is_str(out, want, "'%s' is '%s'", in, want);
	free(out);
	free(err);
}

static void refused(const char *in, const char *msg)
{
	char *out = NULL, *err = NULL;
	int r = path_expand(in, "/home/u", "/proj", &out, &err);
	ok(r < 0 && !out && err && strstr(err, msg), "'%s' is refused: %s", in,
	   err ? err : "(none)");
	free(out);
	free(err);
}

/* path_brace_expand: the alternatives, joined with '|'. */
static void braces(const char *pat, const char *want)
{
	struct strv out = {0};
	char got[1024] = "";
	int r = path_brace_expand(pat, &out);

	for (size_t i = 0; r == 0 && i < out.n; i++) {
		if (i)
			strcat(got, "|");
		strncat(got, out.v[i], sizeof(got) - strlen(got) - 2);
	}
	is_str(r == 0 ? got : "error", want, "braces %s", pat);
	strv_release(&out);
}

static void normal(const char *in, const char *want)
{
	char p[256];

	strcpy(p, in);
	path_normalize(p);
	is_str(p, want, "'%s' normalizes to '%s'", in, want);
}

/* path_names_absent asked n times: the last answer. */
static bool absent_n(struct path_names *pn, const char *dir, const char *name, int n)
{
	bool a = false;

	while (n-- > 0)
		a = path_names_absent(pn, dir, name);
	return a;
}

/* dir's listing is one path_names may trust (host_listing_exact). */
static bool exact(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool e = fd >= 0 && host_listing_exact(fd);

	if (fd >= 0)
		close(fd);
	return e;
}

/* "No such name" from a directory's listing: never for a name an lstat finds. */
static void names(const char *real)
{
	char p[512], f[512];
	struct path_names pn = {0};

	snprintf(p, sizeof(p), "%s/nd", real);
	snprintf(f, sizeof(f), "%s/nd/.there", real);
	ok(mkdir(p, 0700) == 0 && close(open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)) == 0,
	   "a directory holding .there");
	snprintf(f, sizeof(f), "%s/nd/sub", real);
	char l[512], y[512];
	snprintf(l, sizeof(l), "%s/nd/lnk", real);
	snprintf(y, sizeof(y), "%s/nd/sub/y", real);
	ok(mkdir(f, 0700) == 0 && symlink("sub", l) == 0 &&
	       close(open(y, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)) == 0,
	   "…a directory sub holding y, and a link lnk to it");
	bool ex = exact(p);
	ok(!path_names_absent(&pn, p, "x1"),
	   "the first questions about a directory are not answered (an lstat each)");
	is_int(absent_n(&pn, p, "x3", 10), ex,
	       "a later one reads it: a missing name is absent where the listing is exact (%s)",
	       ex ? "it is here" : "not here");
	ok(!path_names_absent(&pn, p, ".there"), "a name it holds is never absent");
	/* a directory below it: its first question answered from the listing read above */
	snprintf(f, sizeof(f), "%s/nd/gone", real);
	is_int(path_names_absent(&pn, f, "x"), ex,
	       "in a directory the read listing lacks, a name is absent at the first question");
	snprintf(f, sizeof(f), "%s/nd/gone2/deeper", real);
	is_int(path_names_absent(&pn, f, "x"), ex, "…and two levels below it");
	snprintf(f, sizeof(f), "%s/nd/lnk", real);
	ok(!path_names_absent(&pn, f, "y") && !absent_n(&pn, f, "y", 10),
	   "in a link to a directory the listing holds, a name there is never absent");
	snprintf(f, sizeof(f), "%s/nd/sub", real);
	ok(!path_names_absent(&pn, f, "y") && !absent_n(&pn, f, "y", 10),
	   "…nor in the directory itself");
	ok(!path_names_absent(&pn, p, ".") && !path_names_absent(&pn, p, "..") &&
	       !path_names_absent(&pn, p, "") && !path_names_absent(&pn, p, "a/b"),
	   "'.', '..', '' and a name with a '/' are not answered");
	snprintf(f, sizeof(f), "%s/nd/missing", real);
	ok(absent_n(&pn, f, "x", 10), "under a missing directory every name is absent");
	snprintf(f, sizeof(f), "%s/nd/.there", real);
	ok(absent_n(&pn, f, "x", 10), "under a file every name is absent (ENOTDIR)");
	snprintf(f, sizeof(f), "%s/nd/.there", real);
	ok(!path_names_absent_path(&pn, f), "path_names_absent_path splits at the last '/'");
	path_names_release(&pn);
	snprintf(f, sizeof(f), "%s/nd/.there", real);
	unlink(f);
	unlink(l);
	unlink(y);
	snprintf(f, sizeof(f), "%s/nd/sub", real);
	rmdir(f);
	rmdir(p);
}

/* The other spelling: in a case-folding directory an lstat of "secret" finds "SECRET", so its
 * listing must not be trusted (a credential store found missing would not be hidden). Needs
 * root and a kernel whose tmpfs folds case (6.13): in a mount namespace of its own. */
static void names_casefold(void)
{
	if (geteuid() != 0) {
		skip("a case-folding tmpfs needs root", "a case-folding directory is not trusted");
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		char d[] = "/tmp/sbx-cf.XXXXXX";
		int fl = FS_CASEFOLD_FL, fd;
		struct stat st;
		struct path_names pn = {0};
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 || !mkdtemp(d) ||
		    mount("tmpfs", d, "tmpfs", 0, "casefold") < 0 ||
		    (fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
		    ioctl(fd, FS_IOC_SETFLAGS, &fl) < 0)
			_exit(2); /* no case-folding tmpfs here */
		close(fd);
		char f[64];
		snprintf(f, sizeof(f), "%s/SECRET", d);
		close(open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
		snprintf(f, sizeof(f), "%s/secret", d);
		bool found = lstat(f, &st) == 0;
		bool absent = absent_n(&pn, d, "secret", 10);
		path_names_release(&pn);
		_exit(found && !absent ? 0 : 1);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 2)
		skip("no case-folding tmpfs on this kernel",
		     "a case-folding directory is not trusted");
	else
		ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		   "a case-folding directory's listing is not trusted: 'secret' (found as SECRET "
		   "by lstat) is not said absent");
}

int main(void)
{
	setenv("SBX_T_DIR", "/var/t", 1);
	setenv("SBX_T_REL", "rel/dir", 1);
	unsetenv("SBX_T_UNSET");
	braces("/a/b", "/a/b");
	braces("/a/{x,y}/c", "/a/x/c|/a/y/c");
	braces("/{a,b}{1,2}", "/a1|/a2|/b1|/b2");
	braces("/a/{x,{y,z}w}", "/a/x|/a/yw|/a/zw");
	braces("/a/{,.}rc", "/a/rc|/a/.rc");
	braces("/a/\\{x,y}", "/a/\\{x,y}");
	braces("/a/[{]x,y}", "/a/[{]x,y}");
	braces("/a/{[,]x,y}", "/a/[,]x|/a/y");
	braces("/a/{x}", "/a/x");
	{
		struct strv out = {0};
		int r = path_brace_expand("/{0,1,2,3}{0,1,2,3}{0,1,2,3}{0,1,2,3}{0,1}", &out);
		ok(r == -E2BIG, "512 combinations are refused (-E2BIG), got %d", r);
		strv_release(&out);
		r = path_brace_expand("/{0,1,2,3}{0,1,2,3}{0,1,2,3}{0,1,2,3}", &out);
		ok(r == 0 && out.n == 256, "256 combinations are expanded");
		strv_release(&out);
	}
	refused("/{0,1,2,3}{0,1,2,3}{0,1,2,3}{0,1,2,3}{0,1}",
		"has more than 256 {a,b} combinations; split it into several entries");
	normal("/a/b/c", "/a/b/c");
	normal("//a/./b/../c//", "/a/c");
	normal("/..", "/");
	normal("/", "/");
	normal("//", "/");
	normal("/a/b/", "/a/b");
	normal("/a//b", "/a/b");
	normal("/a/./b", "/a/b");
	normal("/a/.", "/a");
	normal("/a/..", "/");
	normal("/a/b/../../..", "/");
	normal("/.hidden/..x/.../x.", "/.hidden/..x/.../x.");
	normal("/a/../b/./c", "/b/c");
	expands("~", "/home/u");
	expands("~/.ssh", "/home/u/.ssh");
	expands("$SBX_T_DIR/x", "/var/t/x");
	expands("${SBX_T_DIR}y", "/var/ty");
	/* Kerberos's FILE:/DIR:/WRFILE: before a path: the path; other types and a FILE: past
	 * the start are the value as written */
	setenv("SBX_T_KRB", "FILE:/tmp/tkt_1000", 1);
	expands("$SBX_T_KRB", "/tmp/tkt_1000");
	setenv("SBX_T_KRB", "DIR:/run/user/1000/krb", 1);
	expands("$SBX_T_KRB/tkt", "/run/user/1000/krb/tkt");
	setenv("SBX_T_KRB", "WRFILE:/etc/k.keytab", 1);
	expands("${SBX_T_KRB}", "/etc/k.keytab");
	setenv("SBX_T_KRB", "KEYRING:persistent:1000", 1);
	refused("$SBX_T_KRB", "relative path 'KEYRING:persistent:1000'");
	setenv("SBX_T_KRB", "FILE:/x", 1);
	expands("/a/$SBX_T_KRB", "/a/FILE:/x");
	expands(".", "/proj");
	expands("src/../lib/./x/", "/proj/lib/x");
	expands("/a//b/../c", "/a/c");
	expands("/a/*.txt", "/a/*.txt");
	expands("/a/{x,y}/[ab]?", "/a/{x,y}/[ab]?");
	expands("/a/\\*lit", "/a/\\*lit");
	expands("/a/\\$HOME", "/a/$HOME");
	expands("../sib", "/sib");
	refused("$SBX_T_UNSET/x", "not set");
	refused("${SBX_T_UNSET}", "not set");
	refused("$SBX_T_REL/x", "must be absolute");
	refused("${SBX_T_DIR", "unterminated '${'");
	refused("/a/{x,y", "unterminated '{'");
	refused("/a/[ab", "unterminated '['");
	refused("/a/b}", "without '{'");
	refused("/a/b\\", "lone '\\'");
	refused("~bob/x", "~user");
	refused("$/x", "without a variable name");
	refused("", "empty");

	ok(path_has_glob("/a/*") && !path_has_glob("/a/\\*") && !path_has_glob("/a/b"),
	   "path_has_glob sees unescaped globs only");
	ok(path_has_glob("/a/[b]") && path_has_glob("/a/{b,c}") && path_has_glob("/a/?") &&
	       !path_has_glob("/a/b]") && !path_has_glob("/a/\\[b\\]"),
	   "one glob definition: * ? [ { start a glob");
	{
		/* the scans stop at the right character (a table of specials, not a test each) */
		const char *g = "/ab/c\\*d/e?f";
		ok(path_glob_start(g) == g + 10 && path_glob_start("/a\\") == NULL &&
		       path_glob_start("/a\\\\*") != NULL && path_glob_start("") == NULL &&
		       path_glob_start("{") != NULL,
		   "path_glob_start: the first unescaped glob character, none after a lone '\\'");
		ok(path_glob_error("/plain/path.txt") == NULL &&
		       path_glob_error("/a/$HOME/b") == NULL &&
		       path_glob_error("/long/plain/prefix/x}") != NULL &&
		       path_glob_error("/long/plain/prefix/x[") != NULL &&
		       path_glob_error("/long/plain/prefix/x\\") != NULL,
		   "path_glob_error finds an error after a long plain run");
		char *e = path_escape("/home/plain user/x]"), *f = path_escape("/plain");
		is_str(e, "/home/plain user/x\\]", "path_escape: a plain run, then ']'");
		is_str(f, "/plain", "path_escape: a plain path unchanged");
		free(e);
		free(f);
	}
	{
		char *e = path_escape("/x/br[1]/a*b?{c}\\d"), *u = e ? path_unescape(e) : NULL;
		is_str(e, "/x/br\\[1\\]/a\\*b\\?\\{c\\}\\\\d",
		       "path_escape escapes * ? [ ] { } \\");
		is_str(u, "/x/br[1]/a*b?{c}\\d", "path_unescape undoes it");
		free(e);
		free(u);
		e = path_escape_value("/h/notes ~/a,b$HOME\tc ;d[1]");
		u = e ? path_unescape(e) : NULL;
		is_str(e, "/h/notes\\ ~/a\\,b\\$HOME\\\tc\\ \\;d\\[1\\]",
		       "path_escape_value escapes blanks, ',', '$', ';' and the glob characters");
		is_str(u, "/h/notes ~/a,b$HOME\tc ;d[1]", "… path_unescape undoes it");
		free(e);
		free(u);
		char *out = NULL, *err = NULL;
		setenv("SBX_T_BR", "/v/s[1]", 1);
		is_int(path_expand("$SBX_T_BR/x", NULL, "/", &out, &err), 0,
		       "a bracketed $VAR expands");
		is_str(out, "/v/s\\[1\\]/x", "…its value literal (escaped)");
		free(out);
		is_int(path_expand("./b", "/h", "/p/br[1]", &out, &err), 0,
		       "a bracketed root expands");
		is_str(out, "/p/br\\[1\\]/b", "…literal too");
		free(out);
		is_int(path_expand("~/k", "/h[x]", "/", &out, &err), 0, "a bracketed home expands");
		is_str(out, "/h\\[x\\]/k", "…literal too");
		free(out);
		is_int(path_expand(".", "/h", NULL, &out, &err), -ENOENT,
		       "no project: '.' has no root");
		free(err);
	}
	ok(path_under("/a/b", "/a") && path_under("/a", "/a") && !path_under("/ab", "/a") &&
	       path_under("/x", "/"),
	   "path_under is component-wise");

	char tmpl[] = "/tmp/sbx-path.XXXXXX", *c = NULL, want[256], link[256];
	char *d = mkdtemp(tmpl), *real = realpath(d, NULL);
	snprintf(link, sizeof(link), "%s/link", d);
	ok(symlink(real, link) == 0, "made a symlink to the scratch dir");
	snprintf(want, sizeof(want), "%s/link/missing/more", d);
	is_int(path_canon(want, &c), 0, "canon of a missing suffix succeeds");
	snprintf(want, sizeof(want), "%s/missing/more", real);
	is_str(c, want, "the symlink is resolved and the missing suffix re-appended");
	free(c);
	snprintf(want, sizeof(want), "%s/link/*/x", d);
	path_canon(want, &c);
	snprintf(want, sizeof(want), "%s/*/x", real);
	is_str(c, want, "a glob component is kept as written after the resolved prefix");
	free(c);
	struct path_cache pc = {0};
	char *c1 = NULL, *c2 = NULL;
	snprintf(want, sizeof(want), "%s/link/a/b", d);
	path_canon_cached(want, &pc, &c1);
	path_canon_cached(want, &pc, &c2);
	snprintf(want, sizeof(want), "%s/a/b", real);
	ok(c1 && c2 && strcmp(c1, want) == 0 && strcmp(c2, want) == 0,
	   "a cached canon gives the same answer twice");
	ok(pc.n >= 2, "the cache remembers the directories it looked at");
	free(c1);
	free(c2);
	path_cache_release(&pc);
	path_canon("/", &c);
	is_str(c, "/", "canon of / is /");
	free(c);
	char br[300], brl[300], *ebr = NULL;
	snprintf(br, sizeof(br), "%s/br[1]", real);
	snprintf(brl, sizeof(brl), "%s/blink", d);
	ok(mkdir(br, 0700) == 0 && symlink(br, brl) == 0, "a directory br[1] and a link to it");
	snprintf(want, sizeof(want), "%s/blink/x", d);
	ebr = path_escape(want);
	path_canon(ebr, &c);
	free(ebr);
	snprintf(want, sizeof(want), "%s/br\\[1\\]/x", real);
	is_str(c, want, "a link resolved to a bracketed name comes back escaped");
	free(c);
	snprintf(want, sizeof(want), "%s/br\\[1\\]/*", real);
	path_canon(want, &c);
	is_str(c, want, "an escaped component is literal: canonicalized, the glob after it kept");
	free(c);
	names(real);
	names_casefold();
	unlink(brl);
	rmdir(br);
	unlink(link);
	rmdir(d);
	free(real);
	return tap_done();
}
