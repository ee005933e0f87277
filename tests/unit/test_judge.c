/* test_judge — the pure judge: hand-built layouts and profiles, verdicts and suggestions. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "platform/sandbox.h"
#include "shell/judge.h"
#include "shell/monitor.h"
#include "session/client/client.h"
#include "shell/report.h"
#include "shell/policy.h"
#include "tests/unit/tap.h"

#define H     "/home/u"
#define USERF "/home/u/.config/sbxsh/sbxsh.ini"

static void add(struct pol_list *l, const char *v, const char *file)
{
	l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n].value = strdup(v);
	l->v[l->n].file = file;
	l->v[l->n].line = 10 + (unsigned)l->n;
	l->n++;
}

static void mnt(struct sandbox_spec *s, enum sbx_mount_op op, const char *src, const char *dst)
{
	s->mounts.v = realloc(s->mounts.v, (s->mounts.n + 1) * sizeof(*s->mounts.v));
	s->mounts.v[s->mounts.n].op = op;
	s->mounts.v[s->mounts.n].src = src ? strdup(src) : NULL;
	s->mounts.v[s->mounts.n].dst = strdup(dst);
	s->mounts.n++;
}

static bool fake_exists(const char *p, void *arg)
{
	(void)arg;
	return !strstr(p, "missing");
}

static struct profile prof;
static struct sandbox_spec spec;
static struct judge_ctx jc;

static void setup(void)
{
	add(&prof.read, "/", "<embedded>");
	add(&prof.deny_read, H "/.aws", "<embedded>");
	add(&prof.deny_read, H "/.config/rclone", USERF);
	add(&prof.deny_read, H "/corp", "/etc/sbxsh/sbxsh.ini");
	add(&prof.read, H "/.aws/config", USERF);
	add(&prof.write, H "/proj", USERF);
	add(&prof.write, H "/dist", USERF);
	add(&prof.deny_write, H "/proj/vendor", USERF);
	add(&prof.ignore_read, H "/.cache/**", USERF);
	add(&prof.ignore_write, H "/scratch", USERF);
	add(&prof.deny_domains, "*.evil.com", USERF);
	add(&prof.ignore_network, "*.noise.com", USERF);
	prof.grant_section = "[dir ~/proj]";
	prof.grant_file = "~/.config/sbxsh/sbxsh.ini";
	mnt(&spec, SBX_M_RO_BIND, "/", "/");
	mnt(&spec, SBX_M_SYMLINK, "usr/lib", "/libx");
	mnt(&spec, SBX_M_HIDE_DIR, NULL, H "/.aws");
	mnt(&spec, SBX_M_RO_BIND, H "/.aws/config", H "/.aws/config");
	mnt(&spec, SBX_M_HIDE_DIR, NULL, H "/.config/rclone");
	mnt(&spec, SBX_M_HIDE_DIR, NULL, H "/corp");
	mnt(&spec, SBX_M_BIND, H "/proj", H "/proj");
	mnt(&spec, SBX_M_RO_BIND, H "/proj/vendor", H "/proj/vendor");
	mnt(&spec, SBX_M_RO_BIND, H "/proj/.git/hooks", H "/proj/.git/hooks");
	mnt(&spec, SBX_M_RO_BIND, H "/proj/.git/config", H "/proj/.git/config");
	mnt(&spec, SBX_M_BIND, "/tmp/granted", "/tmp/granted");
	spec.tmp_private = true; /* a tmpfs on /tmp, in no mount entry */
	jc.prof = &prof;
	jc.spec = &spec;
	jc.home = H;
	jc.sysconfdir = "/etc/sbxsh";
	jc.exists = fake_exists;
}

static int J(enum viol_kind k, const char *p, unsigned f, struct verdict *v)
{
	return judge_path(&jc, k, p, f, v);
}

static void test_glob(void)
{
	ok(judge_glob_match("/a/*/c", "/a/b/c"), "* matches one component");
	ok(!judge_glob_match("/a/*/c", "/a/b/x/c"), "* does not cross /");
	ok(judge_glob_match("/a/**/c", "/a/b/x/c"), "** crosses components");
	ok(judge_glob_match("/a/**/c", "/a/c"), "** matches zero components");
	ok(judge_glob_match("/a/{x,y}.txt", "/a/y.txt"), "{a,b} alternatives");
	ok(!judge_glob_match("/a/{x,y}.txt", "/a/z.txt"), "{a,b} only those");
	ok(judge_glob_match("/a/f?[0-9]", "/a/fo7"), "? and [..]");
	ok(judge_glob_match("/a/\\*", "/a/*") && !judge_glob_match("/a/\\*", "/a/b"),
	   "\\ escapes a glob character");
	ok(judge_glob_covers("/a/*", "/a/b/c/d"), "a glob covers what lies under its match");
	ok(judge_glob_covers("/a", "/a/b") && !judge_glob_covers("/a", "/ab"),
	   "a literal covers component-wise");
	ok(judge_glob_covers("/", "/x"), "/ covers everything");
	ok(!judge_glob_match("/a/*", "/a/.hidden"), "* does not match a leading dot");
}

/* The guard's deny_write globs (mand_ctx.deny_glob): a match made later, a directory moved to
 * where one could lie below it, and a more specific grant over it. */
static void test_deny_glob(void)
{
	struct profile p = {0};
	struct judge_ctx c = {.prof = &p, .home = H};
	const struct pol_value *v;

	add(&p.write, H "/proj", USERF);
	add(&p.deny_write, H "/proj/*.lock", USERF);
	add(&p.deny_write, H "/proj/*/{AGENTS,CLAUDE}.md", USERF);
	add(&p.deny_write, H "/proj/vendor", USERF);
	add(&p.write, H "/proj/keep/x.lock", USERF);
	v = judge_deny_glob(&c, H "/proj/new.lock", false);
	ok(v && strcmp(v->value, H "/proj/*.lock") == 0, "a name the glob matches is held");
	ok(judge_deny_glob(&c, H "/proj/sub/CLAUDE.md/x", false) != NULL,
	   "… and what lies below a match (braces expanded)");
	ok(!judge_deny_glob(&c, H "/proj/new.txt", false), "… not another name");
	ok(!judge_deny_glob(&c, H "/proj/a/b/AGENTS.md", false), "… not one at another depth");
	ok(!judge_deny_glob(&c, H "/proj/vendor/x", false),
	   "a literal deny_write is not the glob rule's (the mounts and holds keep it)");
	ok(!judge_deny_glob(&c, H "/proj/keep/x.lock/y", false) &&
	       !judge_deny_glob(&c, H "/proj/keep/x.lock", false),
	   "a more specific write grant lifts it");
	ok(judge_deny_glob(&c, H "/proj/top", true) != NULL,
	   "a directory renamed to where a match could lie below is held");
	ok(!judge_deny_glob(&c, H "/proj/top", false), "… a name made there is not");
	ok(!judge_deny_glob(&c, H "/proj/a/b", true), "… nor a directory renamed deeper");
	ok(!judge_deny_glob(&c, H "/elsewhere/top", true), "… nor one outside the pattern");
	add(&p.deny_write, H "/proj/**/secret.txt", USERF);
	ok(judge_deny_glob(&c, H "/proj/a/b/c", true) != NULL, "… with ** any depth below it");
	ok(judge_deny_glob(&c, H "/proj/a/b/secret.txt", false) != NULL, "** matches at depth");
	for (size_t i = 0; i < p.write.n || i < p.deny_write.n; i++) {
		if (i < p.write.n)
			free(p.write.v[i].value);
		if (i < p.deny_write.n)
			free(p.deny_write.v[i].value);
	}
	free(p.write.v);
	free(p.deny_write.v);
}

static void test_reads(void)
{
	struct verdict v;
	char s[1024];

	is_int(J(VK_READ, H "/.aws/credentials", 0, &v), 1,
	       "a hidden credential read is a violation");
	is_int(v.why, VW_CREDENTIAL, "… named a credential store");
	judge_suggest(&jc, &v, s, sizeof(s));
	ok(strstr(s, "credential store") && strstr(s, "~/.aws") && !strstr(s, "read +="),
	   "… never suggested as a grant: %s", s);
	is_int(J(VK_READ, H "/.aws/config", 0, &v), 0,
	       "a file re-granted under a deny is readable");
	is_int(J(VK_READ, H "/.aws/missing", 0, &v), 0, "a hidden path missing on the host is not");
	is_int(J(VK_READ, H "/.config/rclone/rclone.conf", 0, &v), 1, "a user deny_read hides");
	is_int(v.why, VW_DENY_READ, "… named as the user's deny_read");
	judge_suggest(&jc, &v, s, sizeof(s));
	is_str(strstr(s, "[dir"),
	       "[dir ~/proj] in ~/.config/sbxsh/sbxsh.ini: read += "
	       "~/.config/rclone/rclone.conf",
	       "… a deeper read grant, spelled with ~");
	ok(strstr(s, "~/.config/sbxsh/sbxsh.ini:11") != NULL, "… naming the deny's file:line: %s",
	   s);
	is_int(J(VK_READ, H "/.config/rclone", 0, &v), 1, "the denied directory itself");
	judge_suggest(&jc, &v, s, sizeof(s));
	ok(strstr(s, "deny_read -= ~/.config/rclone") && !strstr(s, "read +="),
	   "… a grant at the same depth would lose to the deny: remove the deny: %s", s);
	is_int(J(VK_READ, H "/corp/x", 0, &v), 1, "a system deny hides");
	is_int(v.why, VW_SYSTEM, "… named system policy");
	judge_suggest(&jc, &v, s, sizeof(s));
	ok(strstr(s, "/etc/sbxsh/sbxsh.ini:") && !strstr(s, "+="), "… no grant suggested: %s", s);
	is_int(J(VK_READ, "/proc/1/environ", 0, &v), 0, "/proc is never a violation");
	is_int(J(VK_READ, "/dev/tty", 0, &v), 0, "/dev is never a violation");
	is_int(J(VK_READ, "/sys/kernel", 0, &v), 0, "/sys is never a violation");
	is_int(J(VK_READ, "/libx/libc.so", 0, &v), 0, "a path through a symlink mount translates");
	is_int(J(VK_EXEC, H "/.aws/tool", 0, &v), 1, "an exec of a hidden binary is a violation");
	is_int(v.kind, VK_EXEC, "… of kind exec");
	is_int(J(VK_READ, "relative", 0, &v), -22, "a relative path is refused");
}

static void test_writes(void)
{
	struct verdict v;
	char s[1024];

	is_int(J(VK_WRITE, H "/proj/src/a.c", 0, &v), 0, "a write under a grant is fine");
	is_int(J(VK_WRITE, "/tmp/x", 0, &v), 0, "the private TMPDIR is writable");
	is_int(J(VK_READ, "/tmp/x/y", 0, &v), 0, "… and what is in it the command's own");
	is_int(J(VK_WRITE, "/tmp/granted/x", 0, &v), 0, "a grant bound inside /tmp shows through");
	is_int(J(VK_WRITE, H "/other/out.txt", 0, &v), 1, "a write outside the grants");
	is_int(v.why, VW_NO_GRANT, "… no grant");
	judge_suggest(&jc, &v, s, sizeof(s));
	is_str(s, "[dir ~/proj] in ~/.config/sbxsh/sbxsh.ini: write += ~/other",
	       "… the directory to grant");
	is_int(J(VK_WRITE, H "/proj/.git/hooks/pre-commit", 0, &v), 1, "a write to .git/hooks");
	is_int(v.why, VW_MANDATORY, "… a mandatory deny");
	judge_suggest(&jc, &v, s, sizeof(s));
	ok(strstr(s, ".git/hooks") && !strstr(s, "+="), "… explained, nothing suggested: %s", s);
	is_int(J(VK_WRITE, H "/proj/.git/config", 0, &v), 1, "a write to .git/config");
	judge_suggest(&jc, &v, s, sizeof(s));
	ok(v.why == VW_GIT_CONFIG && strstr(s, "git_config = yes"), "… git_config = yes: %s", s);
	is_int(J(VK_WRITE, H "/.bash_history", 0, &v), 0, "a refused shell history is noise");
	is_int(J(VK_WRITE, H "/.bash_history-123.tmp", 0, &v), 0, "… and its temporary");
	is_int(J(VK_WRITE, H "/sub/.bash_history", 0, &v), 1, "… only in the home directory");
	is_int(J(VK_WRITE, H "/.viminfo", 0, &v), 0, "vim's history (~/.viminfo) is noise");
	is_int(J(VK_WRITE, H "/.viminfz.tmp", 0, &v), 0, "… and its temporary");
	/* (top's mkdir ~/.config/procps itself: e2e 0500; here every path exists but "missing") */
	is_int(J(VK_WRITE, H "/.config/procps/toprc", 0, &v), 1, "top's toprc is still reported");
	is_int(J(VK_WRITE, H "/.config/procps-missing", JF_MKDIR, &v), 1,
	       "… and a mkdir of another name");
	is_int(J(VK_WRITE, H "/.config/procps", 0, &v), 1, "… and a file of procps's name");
	is_int(J(VK_WRITE, H "/.pyenv/shims/.pyenv-shim", 0, &v), 0,
	       "a version manager's rehash lock (pyenv, rbenv…) is noise");
	is_int(J(VK_WRITE, H "/.rbenv/shims/.rbenv-shim", 0, &v), 0, "… rbenv's");
	is_int(J(VK_WRITE, H "/.pyenv/shims/python", 0, &v), 1, "… a shim itself is reported");
	is_int(J(VK_WRITE, H "/.pyenv/shims/tmp.Ab12", 0, &v), 1, "… any other file in shims too");
	is_int(J(VK_WRITE, H "/.pyenv/bin/.pyenv-shim", 0, &v), 1,
	       "… the lock only in a shims dir");
	is_int(J(VK_WRITE, H "/.x/shims/.env-shim", 0, &v), 1, "… with a manager's name");
	is_int(J(VK_WRITE, H "/.x/shims/.Py-env-shim", 0, &v), 1, "… of lower-case letters");
	is_int(J(VK_WRITE, H "/notes.txt", 0, &v), 1, "a file directly in home");
	judge_suggest(&jc, &v, s, sizeof(s));
	ok(strstr(s, "write += ~/notes.txt (the file alone") != NULL,
	   "… is suggested alone, never all of ~: %s", s);
	is_int(J(VK_WRITE, H "/.bashrc", 0, &v), 1, "a write to ~/.bashrc");
	is_int(v.why, VW_MANDATORY, "… a mandatory deny");
	is_int(J(VK_WRITE, H "/proj/vendor/x", 0, &v), 1, "a write under deny_write");
	is_int(v.why, VW_DENY_WRITE, "… named deny_write");
	judge_suggest(&jc, &v, s, sizeof(s));
	ok(strstr(s, "deny_write ~/proj/vendor") != NULL, "… with its value: %s", s);
	is_int(J(VK_WRITE, H "/dist/a.js", 0, &v), 1, "a write grant that was never mounted");
	is_int(v.why, VW_UNMOUNTED, "… says it matched nothing at start");
	is_int(J(VK_WRITE, H "/.aws/credentials", 0, &v), 1, "a write to a credential store");
	judge_suggest(&jc, &v, s, sizeof(s));
	ok(v.why == VW_CREDENTIAL && !strstr(s, "+="), "… never suggested: %s", s);
	is_int(J(VK_WRITE, H "/scratch/x", 0, &v), 0, "ignore_write silences");
	is_int(J(VK_WRITE, "/usr/lib/python3/x/__pycache__/m.cpython-311.pyc.1234", 0, &v), 0,
	       "a refused Python bytecode cache write is noise");
	is_int(J(VK_WRITE, "/usr/lib/python3/x/__pycache__", JF_MKDIR, &v), 0, "… its mkdir too");
	is_int(J(VK_WRITE, "/usr/lib/python3/x/__pycache__x", 0, &v), 1, "… only that directory");
	is_int(J(VK_WRITE, H "/proj", JF_MKDIR, &v), 0, "mkdir of a writable root is fine");
	is_int(J(VK_WRITE, "/usr", JF_MKDIR, &v), 0,
	       "mkdir of a directory that exists meets EEXIST");
	is_int(J(VK_WRITE, "/usr/missing", JF_MKDIR, &v), 1, "mkdir of a new one is a violation");
	is_int(J(VK_WRITE, "/usr/bin/ls", JF_TIMES, &v), 0,
	       "a time change on a readable file is not");
	ok(judge_is_grant_root(&jc, H "/proj"), "a write grant's root is a mount point");
	ok(!judge_is_grant_root(&jc, H "/proj/src") && !judge_is_grant_root(&jc, "/tmp"),
	   "its children and the TMPDIR are not");
}

/* A command renames a directory holding mounts (judge_moved): they are found at their new
 * names, and the new directory under the old name is the grant's. */
static void test_moved(void)
{
	struct verdict v;
	char s[1024];
	struct sandbox_spec sp = spec;
	struct judge_ctx c = jc;

	sp.mounts.v = NULL;
	sp.mounts.n = sp.mounts.cap = 0;
	mnt(&sp, SBX_M_RO_BIND, "/", "/");
	mnt(&sp, SBX_M_BIND, H "/proj", H "/proj");
	mnt(&sp, SBX_M_RO_BIND, H "/proj/vendor/ro", H "/proj/vendor/ro");
	mnt(&sp, SBX_M_HIDE_DIR, NULL, H "/proj/vendor/sec");
	add(&prof.deny_write, H "/proj/vendor/ro", USERF);
	add(&prof.deny_read, H "/proj/vendor/sec", USERF);
	c.spec = &sp;
	is_int(judge_path(&c, VK_WRITE, H "/proj/vendor/ro/f", 0, &v), 1, "before: read-only");
	is_int(judge_moved(&c, H "/proj/src", H "/proj/src2", false), 0,
	       "a directory holding no mount renamed");
	ok(c.moved == NULL, "… keeps nothing");
	is_int(judge_moved(&c, H "/proj/vendor", H "/proj/v2", false), 1,
	       "the directory holding two mounts renamed");
	is_int(judge_path(&c, VK_WRITE, H "/proj/vendor/ro/f", 0, &v), 0,
	       "… a write in a new directory under the old name is no violation");
	is_int(judge_path(&c, VK_READ, H "/proj/vendor/sec/x", 0, &v), 0, "… nor a read there");
	is_int(judge_path(&c, VK_WRITE, H "/proj/v2/ro/f", 0, &v), 1,
	       "… the read-only mount is found where it went");
	is_int(v.why, VW_DENY_WRITE, "… explained by its rule");
	judge_suggest(&c, &v, s, sizeof(s));
	ok(strstr(s, "deny_write ~/proj/vendor/ro") != NULL, "… named: %s", s);
	is_str(v.path, H "/proj/v2/ro/f", "… at its host path now");
	is_int(judge_path(&c, VK_READ, H "/proj/v2/sec/x", 0, &v), 1, "… the hidden one too");
	is_int(v.why, VW_DENY_READ, "… explained by its rule");
	is_int(judge_moved(&c, H "/proj/v2", H "/proj/v3", true), 1,
	       "RENAME_EXCHANGE with another directory");
	is_int(judge_path(&c, VK_WRITE, H "/proj/v3/ro/f", 0, &v), 1, "… the mount went to v3");
	is_int(judge_path(&c, VK_WRITE, H "/proj/v2/ro/f", 0, &v), 0, "… and left v2");
	judge_release(&c);
	ok(c.moved == NULL, "released");
	/* a read-only copy inside a mounted grant is never a grant that matched nothing */
	mnt(&sp, SBX_M_RO_BIND, H "/proj/cfg/p.ini", H "/proj/cfg/p.ini");
	is_int(judge_path(&c, VK_WRITE, H "/proj/cfg/p.ini", 0, &v), 1, "a read-only copy");
	judge_suggest(&c, &v, s, sizeof(s));
	ok(v.why == VW_MANDATORY && strstr(s, "no grant lifts it") && !strstr(s, "matched nothing"),
	   "… the mandatory rule, no grant lifts it: %s", s);
	prof.deny_write.n--;
	prof.deny_read.n--;
	sbx_mounts_release(&sp.mounts);
}

static void test_hermetic(void)
{
	struct sandbox_spec sp = {0};
	struct judge_ctx c = jc;
	struct verdict v;
	char s[1024];

	mnt(&sp, SBX_M_RO_BIND, "/usr", "/usr");
	mnt(&sp, SBX_M_BIND, H "/proj", H "/proj");
	c.spec = &sp;
	is_int(judge_path(&c, VK_READ, H, 0, &v), 0,
	       "a directory bwrap made to hold a mount is not");
	is_int(judge_path(&c, VK_READ, H "/.profile", 0, &v), 1, "a path no mount covers is");
	judge_suggest(&c, &v, s, sizeof(s));
	is_str(s, "[dir ~/proj] in ~/.config/sbxsh/sbxsh.ini: read += ~/.profile", "… read += it");
	is_int(judge_path(&c, VK_READ, H "/.cache/pip/x", 0, &v), 0, "ignore_read ** silences");
	c.spec = NULL;
	is_int(judge_path(&c, VK_READ, H "/.aws/credentials", 0, &v), 1,
	       "without a layout the profile decides (hidden)");
	is_int(judge_path(&c, VK_WRITE, H "/proj/x", 0, &v), 0, "… (writable)");
	for (size_t i = 0; i < sp.mounts.n; i++) {
		free(sp.mounts.v[i].src);
		free(sp.mounts.v[i].dst);
	}
	free(sp.mounts.v);
}

static void test_other(void)
{
	struct verdict v;
	char s[1024];

	is_int(judge_network(&jc, "example.org", 443, &v), 1, "a refused host");
	judge_suggest(&jc, &v, s, sizeof(s));
	is_str(s, "[dir ~/proj] in ~/.config/sbxsh/sbxsh.ini: allow_domains += example.org",
	       "… allow_domains, port 443 left out");
	is_str(v.path, "example.org:443", "… recorded as host:port");
	is_int(judge_network(&jc, "db.example.org", 5432, &v), 1, "another port");
	judge_suggest(&jc, &v, s, sizeof(s));
	ok(strstr(s, "allow_domains += db.example.org:5432") != NULL, "… keeps the port: %s", s);
	is_int(judge_network(&jc, "x.evil.com", 443, &v), 1, "a deny_domains host");
	judge_suggest(&jc, &v, s, sizeof(s));
	ok(v.why == VW_DENY_DOMAIN && strstr(s, "deny_domains *.evil.com"), "… names it: %s", s);
	is_int(judge_network(&jc, "a.noise.com", 443, &v), 0, "ignore_network silences");
	judge_unix(&v);
	judge_suggest(&jc, &v, s, sizeof(s));
	ok(strstr(s, "unix_sockets = all") != NULL, "AF_UNIX suggests unix_sockets: %s", s);
	is_str(judge_tilde(H, H "/x", s, sizeof(s)), "~/x", "~ for paths under home");
	is_str(judge_tilde(H, "/home/uu/x", s, sizeof(s)), "/home/uu/x", "… component-wise");
	is_str(judge_kind_name(VK_NETWORK), "network", "kind names");
}

/* The session daemon's refusals for this command, from its END reply, into the summary. */
static void test_report_network(void)
{
	char out[4096];
	FILE *err = tmpfile();
	struct monitor *m = NULL;
	static struct sess_refusals rs = {
	    .v = {{"example.org", "not in allow_domains", "", 443},
		  {"example.org", "not in allow_domains", "", 443},
		  {"a.noise.com", "", "", 443},
		  {"db.internal", "",
		   "[dir ~/proj] in ~/.config/sbxsh/sbxsh.ini: allow_domains += "
		   "db.internal:5432",
		   5432}},
	    .n = 4};
	struct report_ctx rc = {
	    .jc = &jc, .mode = VIOL_FAIL, .command = "c-A", .session = "s", .refusals = &rs};
	size_t n;
	int st;

	ok(monitor_new(&m, -1, &jc) == 0, "a monitor that saw nothing");
	st = report_finish(&rc, m, 0, err);
	rewind(err);
	n = fread(out, 1, sizeof(out) - 1, err);
	out[n] = '\0';
	is_int(st, REPORT_EXIT_VIOLATION << 8,
	       "a proxy refusal of this command fails it (exit 122)");
	ok(strstr(out, "sbxsh: 2 violations\n") != NULL,
	   "counted once each, ignore_network applied: %s", out);
	ok(strstr(out, "network db.internal:5432 (refused by the proxy): to allow, [dir ~/proj] in "
		       "~/.config/sbxsh/sbxsh.ini: allow_domains += db.internal:5432") != NULL,
	   "… the daemon's own offer used when it made one");
	/* the daemon offers none where no line lifts the refusal (an allowed name resolving to a
	 * guarded address, a Host mismatch, a name no pattern spells): none is guessed here */
	ok(strstr(out, "network example.org:443 (not in allow_domains)\n") != NULL,
	   "… and no line where the daemon offered none");
	/* one line per host:port and reason: a mismatch does not hide a fronted name after it */
	static struct sess_refusals two = {
	    .v = {{"good.example", "Host header does not match the request target", "", 80},
		  {"good.example", "TLS server name evil.example does not match the tunnel's host",
		   "", 80}},
	    .n = 2};
	FILE *e3 = tmpfile();
	rc.refusals = &two;
	report_finish(&rc, m, 0, e3);
	n = (size_t)ftell(e3);
	rewind(e3);
	n = fread(out, 1, n < sizeof(out) - 1 ? n : sizeof(out) - 1, e3);
	out[n] = '\0';
	ok(strstr(out, "sbxsh: 2 violations\n") &&
	       strstr(out, "network good.example:80 (Host header does not match") &&
	       strstr(out, "network good.example:80 (TLS server name evil.example"),
	   "two refusals of one host:port for two reasons are two lines: %s", out);
	fclose(e3);
	rc.refusals = &rs;
	rs.more = 3;
	rewind(err);
	st = report_finish(&rc, m, 0, err);
	n = (size_t)ftell(err);
	rewind(err);
	n = fread(out, 1, n < sizeof(out) - 1 ? n : sizeof(out) - 1, err);
	out[n] = '\0';
	ok(strstr(out, "sbxsh: 5 violations\n") && strstr(out, "(3 more not listed)"),
	   "refusals the daemon did not list are counted: %s", out);
	rs.more = 0;
	rc.mode = VIOL_WARN;
	rewind(err);
	is_int(report_finish(&rc, m, 3 << 8, err), 3 << 8, "a failing command keeps its status");
	rc.refusals = NULL;
	is_int(report_finish(&rc, m, 0, err), 0, "no violation: the status is the command's");
	/* notes: upstream failures, printed, never counted, never changing the status */
	static struct sess_refusals notes = {
	    .notes = {{"nothere.invalid", "no such name (resolved by the session proxy)", "", 443},
		      {"fd77::2", "connection refused", "", 81}},
	    .nnotes = 2};
	FILE *e2 = tmpfile();
	rc.refusals = &notes;
	rc.mode = VIOL_FAIL;
	is_int(report_finish(&rc, m, 0, e2), 0, "notes alone: the status is the command's");
	n = (size_t)ftell(e2);
	rewind(e2);
	n = fread(out, 1, n < sizeof(out) - 1 ? n : sizeof(out) - 1, e2);
	out[n] = '\0';
	is_str(out,
	       "sbxsh: note: nothere.invalid:443 could not be reached: no such name (resolved by "
	       "the session proxy)\n"
	       "sbxsh: note: [fd77::2]:81 could not be reached: connection refused\n",
	       "one note line per host, an IPv6 address in brackets, no violation line");
	fclose(e2);
	monitor_free(m);
	fclose(err);
}

int main(void)
{
	setup();
	test_report_network();
	test_glob();
	test_deny_glob();
	test_reads();
	test_writes();
	test_moved();
	test_hermetic();
	test_other();
	return tap_done();
}
