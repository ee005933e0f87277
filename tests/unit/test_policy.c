/* test_policy — the policy engine: layers, trust checks, every bad-input message, inheritance,
 * [dir] matching and project roots, list operations, [limits], the embedded default. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shell/policy.h"
#include "tests/unit/tap.h"

static char T[64], TP[80], sysdir[256], userdir[256];
static struct policy_opts opts;

__attribute__((format(printf, 3, 4))) static void put(const char *path, mode_t mode,
						      const char *fmt, ...)
{
	va_list ap;
	FILE *f = fopen(path, "w");
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
	chmod(path, mode);
}

static void sys_policy(const char *text)
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/sbxsh.ini", sysdir);
	if (text)
		put(p, 0644, "%s", text);
	else
		unlink(p);
}

static void user_policy(const char *text)
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/sbxsh.ini", userdir);
	if (text)
		put(p, 0600, "%s", text);
	else
		unlink(p);
}

/* Loads; on failure returns the first error in *msg (static buffer). */
static int load(struct policy **p, struct diag *d)
{
	diag_release(d);
	*d = (struct diag){0};
	return policy_load(p, &opts, d);
}

static bool has(const struct strv *sv, const char *needle)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strstr(sv->v[i], needle))
			return true;
	return false;
}

static void show(const struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		printf("#   %s\n", sv->v[i]);
}

/* The user file text fails to load with an error holding msg. */
static void user_refused(const char *text, const char *msg, const char *what)
{
	struct policy *p = NULL;
	struct diag d = {0};
	user_policy(text);
	int r = load(&p, &d);
	ok(r < 0 && !p && has(&d.errors, msg), "%s: refused with '%s'", what, msg);
	if (!has(&d.errors, msg))
		show(&d.errors);
	policy_free(p);
	diag_release(&d);
	user_policy(NULL);
}

static const struct pol_value *find(const struct pol_list *l, const char *v)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].value, v) == 0)
			return &l->v[i];
	return NULL;
}

static struct profile *resolve(const char *text_sys, const char *text_user, const char *cwd,
			       struct policy **pp, struct diag *d)
{
	struct profile *pr = NULL;
	sys_policy(text_sys);
	user_policy(text_user);
	*pp = NULL;
	if (load(pp, d) < 0) {
		show(&d->errors);
		return NULL;
	}
	if (profile_resolve(*pp, cwd, &pr, d) < 0)
		show(&d->errors);
	return pr;
}

static void test_default(void)
{
	struct policy *p = NULL;
	struct profile *pr = NULL;
	struct diag d = {0};
	int r = load(&p, &d);
	is_int(r, 0, "the embedded default loads");
	is_int(d.errors.n + d.warnings.n, 0, "with no error and no warning");
	show(&d.errors);
	r = profile_resolve(p, TP, &pr, &d);
	is_int(r, 0, "and resolves");
	char ssh[1024];
	snprintf(ssh, sizeof(ssh), "%s/home/.ssh", T);
	ok(pr && find(&pr->deny_read, ssh), "~/.ssh is hidden by default");
	ok(pr && find(&pr->read, "/"), "/ is readable by default");
	ok(pr && pr->network == NET_PROXY && pr->tmp == TMP_PRIVATE, "network proxy, private tmp");
	ok(pr && find(&pr->allow_domains, "github.com"), "github.com is allowed by default");
	ok(pr && pr->write.n == 1 && strcmp(pr->write.v[0].value, pr->root) == 0,
	   "the project root is writable");
	is_str(policy_settings(p)->inner_shell, "/bin/bash", "inner shell /bin/bash");
	profile_free(pr);
	policy_free(p);
	diag_release(&d);
}

static void test_errors(void)
{
	char big[400];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	char longline[500];
	snprintf(longline, sizeof(longline), "[default]\nread = %s\n", big);

	user_refused("[default\n", "without ']'", "syntax error");
	user_refused("just words\n", "expected 'key = value'", "a line that is no key");
	user_refused("[defualt]\n", "unknown section [defualt]; did you mean [default]?",
		     "unknown section");
	user_refused("[default]\nnetwrk = none\n",
		     "unknown key 'netwrk' in [default]; did you mean 'network'?", "unknown key");
	user_refused("[sbxsh]\nnetwork = none\n", "does not belong in [sbxsh]",
		     "a key in the wrong section");
	user_refused("[default]\nhermetic = maybe\n", ":2: hermetic: 'maybe' is not a boolean",
		     "bad boolean");
	user_refused("[default]\nread = $SBX_UNSET_VAR/x\n", "$SBX_UNSET_VAR, which is not set",
		     "unset $VAR");
	user_refused("[default]\nread = /a/{b,c\n", "unterminated '{'", "unterminated {");
	user_refused("[default]\nallow_domains = *\n", "would let every host through", "bare *");
	user_refused("[default]\nallow_domains = *.com\n", "public suffix", "*.com");
	user_refused("[default]\nallow_domains = https://x.com\n", "is a URL", "a URL");
	user_refused("[default]\nallow_domains = x.com/path\n", "holds a path", "a path");
	user_refused("[default]\nallow_domains = intranet\n", "has no dot", "a dotless name");
	user_refused("[default]\nuse = nope\n", ":2: use = nope: no [profile nope]",
		     "use of a missing profile");
	user_refused("[profile a]\nuse = b\n[profile b]\nuse = a\n", "makes a cycle (a -> b -> a)",
		     "a use cycle");
	user_refused("[profile a]\nuse = a\n", "makes a cycle", "a profile using itself");
	user_refused("[limits]\nnetwork = none\n", ":1: [limits] is honoured only in system files",
		     "[limits] in a user file");
	user_refused("[sbxsh]\nuser_config = no\n", "only in system files",
		     "user_config in a user file");
	user_refused(longline, ":2: line longer than", "a very long line");
	user_refused("[default]\nnetwork += open\n", "takes one value", "+= on a scalar");
	user_refused("[default]\nread = a # note\n", "'#' starts a comment only",
		     "an inline # comment");
	user_refused("read = /x\n", "before any section", "a key before any section");
	user_refused("[dir relative/x]\n", "must be absolute", "a relative [dir] pattern");
	user_refused("[dir /a/{b,c}]\n", "not supported in [dir] patterns",
		     "braces in a [dir] pattern");
	user_refused("[dir /a/**/**/**/**/**]\n", "more than 4 '**'",
		     "too many ** in a [dir] pattern");
	user_refused("[default]\nlisten = 99999\n", "not a TCP port", "a bad port");
	user_refused("[default]\nenv_set = novalue\n", "not NAME=value", "a bad env_set");

	/* A NUL byte: written by hand since the text helpers stop at NUL. */
	char path[1024];
	snprintf(path, sizeof(path), "%s/sbxsh.ini", userdir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ok(write(fd, "[default]\nread = /a\0b\n", 22) == 22, "wrote a file holding a NUL byte");
	close(fd);
	struct policy *p = NULL;
	struct diag d = {0};
	ok(load(&p, &d) < 0 && has(&d.errors, ":2: holds a NUL byte"),
	   "a NUL byte is refused with its line");
	policy_free(p);
	diag_release(&d);
	unlink(path);
}

static void test_files(void)
{
	char path[1024];
	struct policy *p = NULL;
	struct diag d = {0};

	sys_policy("[default]\nnetwork = none\n");
	snprintf(path, sizeof(path), "%s/sbxsh.ini", sysdir);
	chmod(path, 0664);
	ok(load(&p, &d) < 0 && has(&d.errors, "writable by group or others; run: chmod go-w"),
	   "a group-writable system file is refused");
	chmod(path, 0646);
	ok(load(&p, &d) < 0 && has(&d.errors, "writable by group or others"),
	   "a world-writable system file is refused");
	chmod(path, 0644);
	if (getuid() == 0) {
		ok(chown(path, 1, 1) == 0, "gave the file to uid 1");
		ok(load(&p, &d) < 0 && has(&d.errors, "is owned by uid 1"),
		   "a system file not owned by its owner is refused");
		ok(chown(path, 0, 0) == 0, "took the file back");
	} else {
		opts.sys_owner = getuid() + 1;
		ok(load(&p, &d) < 0 && has(&d.errors, "is owned by uid"),
		   "a system file not owned by root is refused");
		opts.sys_owner = getuid();
	}
	sys_policy(NULL);

	user_policy("[default]\n");
	snprintf(path, sizeof(path), "%s/sbxsh.ini", userdir);
	chmod(path, 0620);
	ok(load(&p, &d) < 0 && has(&d.errors, "writable by group or others"),
	   "a group-writable user file is refused");
	chmod(path, 0600);
	if (getuid() == 0) {
		ok(chown(path, 1, 1) == 0, "gave the file to uid 1");
		ok(load(&p, &d) < 0 && has(&d.errors, "not by you"),
		   "a user file owned by someone else is refused");
		ok(chown(path, 0, 0) == 0, "took the file back");
		skip("root reads any file", "an unreadable user file is refused");
	} else {
		skip("only root can give a file away",
		     "a user file owned by someone else is refused");
		chmod(path, 0);
		ok(load(&p, &d) < 0 && has(&d.errors, "cannot open: Permission denied"),
		   "an unreadable user file is refused");
		chmod(path, 0600);
	}
	user_policy(NULL);

	mkdir(path, 0700);
	ok(load(&p, &d) < 0 && has(&d.errors, "is a directory"), "a directory is refused");
	rmdir(path);
	mkfifo(path, 0600);
	ok(load(&p, &d) < 0 && has(&d.errors, "is not a regular file"),
	   "a FIFO is refused (and does not hang)");
	unlink(path);
	char target[1024];
	snprintf(target, sizeof(target), "%s/real.ini", T);
	put(target, 0600, "[default]\n");
	ok(symlink(target, path) == 0, "made a symlink");
	ok(load(&p, &d) < 0 && has(&d.errors, "symbolic link"), "a symlinked user file is refused");
	unlink(path);
	ok(load(&p, &d) == 0 && p, "a missing user file is fine");
	policy_free(p);

	opts.user_config = "/nonexistent/sbxsh.ini";
	p = NULL;
	ok(load(&p, &d) < 0 && has(&d.errors, "/nonexistent/sbxsh.ini: cannot open"),
	   "a missing --config file is an error");
	opts.login = true;
	ok(load(&p, &d) == 0, "--config is ignored for a login shell");
	policy_free(p);
	opts.login = false;
	opts.user_config = NULL;
	diag_release(&d);
}

static void test_layers(void)
{
	struct policy *p;
	struct diag d = {0};
	char confd[1024], path[1100];
	snprintf(confd, sizeof(confd), "%s/conf.d", sysdir);
	mkdir(confd, 0755);
	snprintf(path, sizeof(path), "%s/20-b.ini", confd);
	put(path, 0644, "[default]\ntmp = private\nlisten = 8080\n");
	snprintf(path, sizeof(path), "%s/10-a.ini", confd);
	put(path, 0644, "[default]\ntmp = shared\nlisten = 3000\n");
	struct profile *pr =
	    resolve("[default]\nnetwork = none\n",
		    "[default]\nnetwork = open\nlisten += 9000\nlisten -= 3000\n", T, &p, &d);
	ok(pr && pr->network == NET_OPEN, "a user file overrides a system file");
	ok(pr && pr->o_network.line == 2 && strstr(pr->o_network.file, "/.config/sbxsh/sbxsh.ini"),
	   "the origin is the user file, line 2");
	ok(pr && pr->tmp == TMP_PRIVATE, "conf.d files apply in name order");
	ok(pr && pr->listen.n == 2 && find(&pr->listen, "8080") && find(&pr->listen, "9000"),
	   "+= appends, -= removes");
	profile_free(pr);
	policy_free(p);
	unlink(path);
	snprintf(path, sizeof(path), "%s/20-b.ini", confd);
	unlink(path);
	rmdir(confd);

	pr = resolve("[sbxsh]\nuser_config = no\n", "[default]\nnetwork = open\n", T, &p, &d);
	ok(pr && pr->network == NET_PROXY, "user_config = no ignores the user file");
	profile_free(pr);
	policy_free(p);

	user_policy("[default]\nnetwork = none\n");
	snprintf(path, sizeof(path), "%s/other.ini", T);
	put(path, 0600, "[default]\nnetwork = open\n");
	opts.user_config = path;
	sys_policy(NULL);
	p = NULL;
	pr = NULL;
	if (load(&p, &d) == 0)
		profile_resolve(p, T, &pr, &d);
	ok(pr && pr->network == NET_OPEN, "--config replaces the user file");
	opts.user_config = NULL;
	profile_free(pr);
	policy_free(p);
	diag_release(&d);
}

static void test_resolve(void)
{
	struct policy *p;
	struct diag d = {0};
	char dir[1024], pol[8192], want[1024];
	snprintf(dir, sizeof(dir), "%s/src/app/lib", T);
	char cmd[4000];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s %s/src/secret %s/mono/.git %s/mono/pkg", dir, T, T,
		 T);
	ok(system(cmd) == 0, "%s", cmd);
	snprintf(
	    pol, sizeof(pol),
	    "[profile node]\nallow_domains += registry.npmjs.org\nwrite += ~/.npm\n"
	    "[profile web]\nuse = node\nlisten = 3000\n"
	    "[dir %s/src/**]\nnetwork = none\n"
	    "[dir %s/src/*]\nuse = web\nnetwork = proxy\n"
	    "[dir %s/src/secret]\nnetwork = none\nhermetic = yes\n"
	    "[default]\nread = /\n  /extra\nenv_set = A=b c\nenv_set += B=2\nunix_sockets = all\n",
	    T, T, T);
	struct profile *pr = resolve(NULL, pol, dir, &p, &d);
	snprintf(want, sizeof(want), "%s/src/app", T);
	is_str(pr ? pr->root : NULL, want, "the root is what the most specific [dir] matched");
	ok(pr && pr->network == NET_PROXY, "the most specific [dir] wins key by key");
	ok(pr && find(&pr->allow_domains, "registry.npmjs.org"),
	   "use = inherits through two profiles");
	ok(pr && find(&pr->listen, "3000"), "the used profile's own keys apply");
	snprintf(want, sizeof(want), "%s/home/.npm", T);
	ok(pr && find(&pr->write, want), "~ expands in a used profile");
	ok(pr && find(&pr->read, "/extra"), "an indented line continues a list");
	ok(pr && find(&pr->env_set, "A=b c") && find(&pr->env_set, "B=2"), "env_set keeps spaces");
	ok(pr && pr->unix_all, "unix_sockets = all");
	ok(pr && pr->sections.n == 6,
	   "six sections applied (two [default], [dir **], profiles node and web, [dir *])");
	snprintf(want, sizeof(want), "[dir %s/src/*]", T);
	is_str(pr ? pr->grant_section : NULL, want,
	       "a new grant goes to the most specific section");
	profile_free(pr);
	policy_free(p);

	snprintf(dir, sizeof(dir), "%s/src/secret", T);
	pr = resolve(NULL, pol, dir, &p, &d);
	ok(pr && pr->network == NET_NONE && pr->hermetic, "[dir …/secret] beats [dir …/*]");
	ok(pr && !find(&pr->read, "/") && find(&pr->read, "/usr"),
	   "hermetic reads system directories, not /");
	profile_free(pr);
	policy_free(p);

	snprintf(dir, sizeof(dir), "%s/mono/pkg", T);
	pr = resolve(NULL, "[default]\nwrite = . build\n", dir, &p, &d);
	snprintf(want, sizeof(want), "%s/mono", T);
	is_str(pr ? pr->root : NULL, want, "without [dir], the nearest .git marks the root");
	snprintf(want, sizeof(want), "%s/mono/build", T);
	ok(pr && find(&pr->write, want), "relative paths are relative to the root");
	profile_free(pr);
	policy_free(p);

	pr = resolve(NULL, "[sbxsh]\nroot_markers = nothing-here\n", dir, &p, &d);
	ok(pr && !pr->root && pr->write.n == 0,
	   "with no marker outside the home directory, there is no project");
	profile_free(pr);
	policy_free(p);
	diag_release(&d);
}

/* The project root rule of policy.md: markers below ~ only, never /, the cwd only below ~
 * outside its dot-directories, otherwise no project (and one notice naming the fix). */
static void root_case(const char *sub, const char *want_root, const char *desc)
{
	struct policy *p = NULL;
	struct diag d = {0};
	char dir[1024], want[1024];

	if (sub[0] == '+')
		snprintf(dir, sizeof(dir), "%s/%s", T, sub + 1);
	else
		snprintf(dir, sizeof(dir), "%s", sub);
	if (want_root && want_root[0] == '+')
		snprintf(want, sizeof(want), "%s/%s", T, want_root + 1);
	struct profile *pr = resolve(NULL, NULL, dir, &p, &d);
	if (want_root)
		is_str(pr ? pr->root : NULL, want_root[0] == '+' ? want : want_root, "%s", desc);
	else
		ok(pr && !pr->root && pr->write.n == 0 && d.warnings.n == 1 &&
		       has(&d.warnings, "grants nothing"),
		   "%s", desc);
	show(&d.warnings);
	profile_free(pr);
	policy_free(p);
	diag_release(&d);
}

static void test_roots(void)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/home/scratch/x %s/home/.config/x %s/home/repo/.git %s/home/repo/a/b "
		 "%s/opt/x %s/home/.git",
		 T, T, T, T, T, T);
	ok(system(cmd) == 0, "%s", cmd);
	root_case("+home/scratch/x", "+home/scratch/x", "below ~ with no marker: the cwd");
	root_case("+home/repo/a/b", "+home/repo", "below ~: the nearest .git");
	root_case("+home", NULL, "~ itself (even with ~/.git) is no project");
	root_case("+home/.config/x", NULL, "a dot-directory of ~ is no project");
	root_case("+opt/x", NULL, "outside ~ with no marker: no project");
	root_case("/", NULL, "/ is no project");

	struct policy *p = NULL;
	struct diag d = {0};
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/opt/x", T);
	struct profile *pr = resolve(NULL, NULL, dir, &p, &d);
	ok(pr && pr->no_project && strcmp(pr->no_project, "[dir ") > 0 &&
	       strstr(pr->no_project, "/opt/x] write = ."),
	   "no project: the line that would make it one");
	ok(has(&d.warnings, "[dir ") && has(&d.warnings, "/opt/x] write = ."),
	   "the notice names that line");
	profile_free(pr);
	policy_free(p);
	diag_release(&d);
	snprintf(dir, sizeof(dir), "%s/home/scratch/x", T);
	pr = resolve(NULL, "[default]\ndeny_read += secret\n", dir, &p, &d);
	profile_free(pr);
	policy_free(p);
	diag_release(&d);
	snprintf(dir, sizeof(dir), "%s/home/.config/x", T);
	pr = resolve(NULL, "[default]\ndeny_read += secret\nwrite += out\n", dir, &p, &d);
	snprintf(cmd, sizeof(cmd), "%s/home/.config/x/secret", T);
	ok(pr && find(&pr->deny_read, cmd) && pr->write.n == 0 && d.warnings.n == 1,
	   "no project: a relative deny applies to the cwd, a relative grant to nothing (once)");
	profile_free(pr);
	policy_free(p);
	diag_release(&d);
	snprintf(cmd, sizeof(cmd),
		 "rm -rf %s/home/scratch %s/home/.config/x %s/home/repo %s/opt "
		 "%s/home/.git",
		 T, T, T, T, T);
	ok(system(cmd) == 0, "%s", cmd);
}

static void test_limits(void)
{
	struct policy *p;
	struct diag d = {0};
	char sys[4096], usr[4096], want[1024];
	snprintf(sys, sizeof(sys),
		 "[limits]\nnetwork = proxy\nallow_domains = *.example.com github.com\nwrite = "
		 "%s\ndeny_read = %s/vault\n",
		 T, T);
	snprintf(usr, sizeof(usr),
		 "[default]\nnetwork = open\nallow_domains += a.example.com evil.org\nwrite += "
		 "/srv/x %s/vault/y\nread += %s/vault/key\n",
		 T, T);
	struct profile *pr = resolve(sys, usr, TP, &p, &d);
	ok(pr && pr->network == NET_PROXY, "[limits] network lowers a user's open to proxy");
	ok(pr && find(&pr->allow_domains, "a.example.com") && !find(&pr->allow_domains, "evil.org"),
	   "a user domain outside [limits] allow_domains is dropped");
	ok(pr && find(&pr->allow_domains, "github.com"), "system domains are kept");
	ok(pr && !find(&pr->write, "/srv/x"),
	   "a user write grant outside [limits] write is dropped");
	snprintf(want, sizeof(want), "%s/vault", T);
	ok(pr && find(&pr->deny_read, want), "[limits] deny_read is always hidden");
	snprintf(want, sizeof(want), "%s/vault/key", T);
	ok(pr && !find(&pr->read, want), "a user read grant cannot re-open a [limits] deny_read");
	is_int(d.warnings.n, 5, "one warning per dropped grant");
	ok(has(&d.warnings, "evil.org' dropped") && has(&d.warnings, "sbxsh.ini:3:"),
	   "the warning names the grant and its line");
	show(&d.warnings);
	ok(d.errors.n == 0, "limits are never fatal");
	profile_free(pr);
	policy_free(p);
	diag_release(&d);
	sys_policy(NULL);
}

static void test_check_files(void)
{
	struct diag d = {0};
	char a[1024], b[1024];
	snprintf(a, sizeof(a), "%s/a.ini", T);
	snprintf(b, sizeof(b), "%s/b.ini", T);
	put(a, 0600, "[default]\nnetwork = none\n");
	put(b, 0600, "[default]\nnetwork = nope\n[sbxh]\n");
	char *files[] = {a, b};
	is_int(policy_check_files(files, 1, &opts, &d), 0, "--check of a valid file");
	ok(policy_check_files(files, 2, &opts, &d) < 0 && d.errors.n == 2,
	   "--check reports every error of every file");
	show(&d.errors);
	diag_release(&d);
	unlink(a);
	unlink(b);
}

int main(void)
{
	char cmd[1200];
	strcpy(T, "/tmp/sbx-policy.XXXXXX");
	if (!mkdtemp(T))
		return 1;
	snprintf(sysdir, sizeof(sysdir), "%s/etc/sbxsh", T);
	snprintf(userdir, sizeof(userdir), "%s/home/.config/sbxsh", T);
	snprintf(TP, sizeof(TP), "%s/proj", T);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s %s %s/.git", sysdir, userdir, TP);
	ok(system(cmd) == 0, "%s", cmd);
	char etc[256], home[256], xdg[300];
	snprintf(etc, sizeof(etc), "%s/etc", T);
	snprintf(home, sizeof(home), "%s/home", T);
	snprintf(xdg, sizeof(xdg), "%s/.config", home);
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	unsetenv("SBX_UNSET_VAR");
	opts = (struct policy_opts){.sysconfdir = etc, .sys_owner = getuid(), .home = home};

	test_default();
	test_errors();
	test_files();
	test_layers();
	test_resolve();
	test_roots();
	test_limits();
	test_check_files();

	snprintf(cmd, sizeof(cmd), "rm -rf %s", T);
	ok(system(cmd) == 0, "%s", cmd);
	return tap_done();
}
