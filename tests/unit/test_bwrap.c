/* test_bwrap — golden bwrap argv: the pure builder (sandbox_argv) from hand-made specs, and
 * the planner (sandbox_plan) from hand-filled profiles over a fixture tree. */
#include <errno.h>
#include <glob.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/sandbox.h"
#include "shell/policy.h"
#include "tap.h"

/* One descriptor for each file bwrap reads for the plan s (however many it hides): 20, 21, … */
static int *fds_for(const struct sandbox_spec *s)
{
	size_t n = sandbox_data_fds(s);
	int *fds = calloc(n + 1, sizeof(*fds));

	if (!fds)
		abort();
	for (size_t i = 0; i < n; i++)
		fds[i] = 20 + (int)i;
	return fds;
}

static char T[256]; /* the fixture root, shown as $T in the goldens */

static char *joined(const struct strv *sv)
{
	size_t n = 1;
	for (size_t i = 0; i < sv->n; i++)
		n += strlen(sv->v[i]) + 1;
	char *s = calloc(1, n), *w = s;
	for (size_t i = 0; i < sv->n; i++)
		w += sprintf(w, "%s%s", i ? " " : "", sv->v[i]);
	/* Replace the fixture root by $T. */
	size_t tl = strlen(T);
	for (char *p; tl && (p = strstr(s, T));) {
		p[0] = '$';
		p[1] = 'T';
		memmove(p + 2, p + tl, strlen(p + tl) + 1);
	}
	return s;
}

static void spec_base(struct sandbox_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->cwd = strdup("/w");
	s->stage = strdup("/lx/sbxsh-stage");
	s->marker = strdup("/lx/sandbox-marker");
	s->inner_shell = strdup("/bin/bash");
	s->profile_name = strdup("[default]");
	s->stage_fd = 7;
	s->unshare_user = true;
	s->unshare_net = true;
	s->new_session = true;
	s->tmp_private = true;
}

static void golden(const struct sandbox_spec *s, const char *want, const char *name)
{
	struct strv out = {0};
	int fds[8] = {10, 11, 12, 13, 14, 15, 16, 17};
	char *argv[] = {"sbxsh", "-c", "true", NULL};

	is_int(sandbox_argv(s, "/usr/bin/bwrap", fds, argv, &out), 0, "%s: builds", name);
	char *got = joined(&out);
	is_str(got, want, "%s: golden argv", name);
	free(got);
	strv_release(&out);
}

#define NS_USER                                                                                    \
	"/usr/bin/bwrap --die-with-parent --as-pid-1 --unshare-user --unshare-pid "                \
	"--unshare-ipc --unshare-uts --unshare-cgroup-try"
#define TAIL   "--chdir /w --setenv SBXSH_SANDBOX 1 --setenv SBXSH_PROFILE [default] "
#define TMPENV "--setenv TMPDIR /tmp --setenv TMP /tmp --setenv TEMP /tmp "
#define STAGE  "--ro-bind /lx/sbxsh-stage /lx/sbxsh-stage --ro-bind-data 10 /lx/sandbox-marker "
#define RUN    "-- /lx/sbxsh-stage --fd=7 -- /bin/bash sbxsh -c true"

static void test_pure(void)
{
	struct sandbox_spec s;

	spec_base(&s);
	sbx_mounts_add(&s.mounts, SBX_M_RO_BIND, "/", "/");
	sbx_mounts_add(&s.mounts, SBX_M_BIND, "/w", "/w");
	golden(&s,
	       NS_USER " --unshare-net --new-session --ro-bind / / --dev /dev --proc /proc "
		       "--perms 0700 --tmpfs /tmp --bind /w /w " STAGE TAIL TMPENV RUN,
	       "read /, write /w, private tmp, network none");
	s.bind_fds = (const int[]){12};
	golden(&s,
	       NS_USER " --unshare-net --new-session --ro-bind / / --dev /dev --proc /proc "
		       "--perms 0700 --tmpfs /tmp --bind-fd 12 /w " STAGE TAIL TMPENV RUN,
	       "a write grant by the descriptor the caller checked (--bind-fd)");
	s.bind_fds = NULL;
	s.argv_fd = 9;
	golden(&s,
	       NS_USER " --unshare-net --new-session --ro-bind / / --dev /dev --proc /proc "
		       "--perms 0700 --tmpfs /tmp --bind /w /w " STAGE TAIL TMPENV
		       "-- /lx/sbxsh-stage --fd=7 --argv-fd=9 -- /bin/bash sbxsh",
	       "the shell's arguments after argv[0] in a memory file (--argv-fd): bwrap's limit");
	s.argv_fd = 0;
	s.caller_blocked = 1u << 2 | 1u << 15;
	golden(&s,
	       NS_USER " --unshare-net --new-session --ro-bind / / --dev /dev --proc /proc "
		       "--perms 0700 --tmpfs /tmp --bind /w /w " STAGE TAIL TMPENV
		       "-- /lx/sbxsh-stage --fd=7 --blocked=32772 -- /bin/bash sbxsh -c true",
	       "the signals the caller blocked, for the shell (--blocked)");
	s.caller_blocked = 0;

	s.unshare_net = false;
	s.new_session = false;
	s.tmp_private = false;
	golden(
	    &s,
	    NS_USER
	    " --ro-bind / / --dev /dev --proc /proc --bind /tmp /tmp --bind /w /w " STAGE TAIL RUN,
	    "network open, tmp shared, a terminal");

	/* deny_read: a directory is a read-only tmpfs (remounted last), a file empty data. */
	sbx_mounts_add(&s.mounts, SBX_M_HIDE_DIR, NULL, "/h/.ssh");
	sbx_mounts_add(&s.mounts, SBX_M_HIDE_FILE, NULL, "/h/.netrc");
	sbx_mounts_add(&s.mounts, SBX_M_RO_BIND, "/h/.ssh/known_hosts", "/h/.ssh/known_hosts");
	s.unix_all = true;
	s.git_discovery = true;
	strv_push(&s.env_unset, "SECRET");
	strv_push(&s.env_set, "A=b=c");
	golden(&s,
	       NS_USER
	       " --ro-bind / / --dev /dev --proc /proc --bind /tmp /tmp --bind /w /w "
	       "--tmpfs /h/.ssh --ro-bind-data 11 /h/.netrc "
	       "--ro-bind /h/.ssh/known_hosts /h/.ssh/known_hosts " STAGE
	       "--remount-ro /h/.ssh " TAIL
	       "--setenv GIT_DISCOVERY_ACROSS_FILESYSTEM 1 --unsetenv SECRET --setenv A b=c "
	       "-- /lx/sbxsh-stage --fd=7 --unix-all -- /bin/bash sbxsh -c true",
	       "deny_read dir vs file, a file shown again, env, unix_sockets = all");
	is_int(sandbox_data_fds(&s), 2, "data fds: the marker and one hidden file");
	/* a sanitised settings file: data too, read from the next descriptor, with its text */
	sbx_mounts_add(&s.mounts, SBX_M_DATA_FILE, "registry=x\n", "/h/.npmrc");
	sbx_mounts_add(&s.kernel, SBX_M_HIDE_FILE, NULL, "/proc/kcore");
	is_int(sandbox_data_fds(&s), 4, "data fds: the marker, two hidden files, a settings copy");
	ok(sandbox_data_text(&s, 0) == NULL, "descriptor 0 is the marker's");
	is_str(sandbox_data_text(&s, 1), "", "…1 the empty hidden file");
	is_str(sandbox_data_text(&s, 2), "registry=x\n", "…2 the settings file's text");
	is_str(sandbox_data_text(&s, 3), "", "…3 the masked kernel file, after the mounts");
	ok(sandbox_data_text(&s, 4) == NULL, "…none past the end");
	{
		struct strv out = {0};
		int fds[8] = {10, 11, 12, 13};
		char *argv[] = {"sbxsh", "-c", "true", NULL};
		char *got;

		sandbox_argv(&s, "/usr/bin/bwrap", fds, argv, &out);
		got = joined(&out);
		ok(strstr(got, "--ro-bind-data 11 /h/.netrc ") &&
		       strstr(got, "--ro-bind-data 12 /h/.npmrc ") &&
		       strstr(got, "--ro-bind-data 13 /proc/kcore ") && !strstr(got, "registry"),
		   "the copy is bound read-only from its descriptor, in the same order: %s", got);
		free(got);
		strv_release(&out);
	}
	sandbox_spec_release(&s);

	/* As root: a user namespace with uid 0 mapped to 0; capabilities dropped by bwrap
	 * (SETPCAP kept for the stage to empty the bounding set). Sized /tmp and /dev/shm, /dev
	 * read-only; the kernel knobs after the policy's mounts. */
	spec_base(&s);
	s.root = true;
	s.tmp_size = 1048576;
	s.shm_size = 2097152;
	sbx_mounts_add(&s.mounts, SBX_M_RO_BIND, "/", "/");
	sbx_mounts_add(&s.kernel, SBX_M_RO_BIND, "/proc/sys", "/proc/sys");
	sbx_mounts_add(&s.kernel, SBX_M_HIDE_FILE, NULL, "/proc/kcore");
	sbx_mounts_add(&s.kernel, SBX_M_HIDE_DIR, NULL, "/proc/acpi");
	golden(&s,
	       "/usr/bin/bwrap --die-with-parent --as-pid-1 --unshare-user --uid 0 --gid 0 "
	       "--cap-drop ALL --cap-add CAP_SETPCAP --unshare-pid --unshare-ipc --unshare-uts "
	       "--unshare-cgroup-try --unshare-net --new-session --ro-bind / / --dev /dev "
	       "--size 2097152 --perms 1777 --tmpfs /dev/shm --proc /proc --perms 0700 --size "
	       "1048576 --tmpfs /tmp --ro-bind /proc/sys /proc/sys --ro-bind-data 11 /proc/kcore "
	       "--tmpfs /proc/acpi " STAGE
	       "--remount-ro /proc/acpi --remount-ro /dev " TAIL TMPENV RUN,
	       "root: uid 0 in a user namespace, no capability; sizes; kernel knobs last");
	is_int(sandbox_data_fds(&s), 2, "data fds: the marker and one masked kernel file");
	sandbox_spec_release(&s);

	/* Root with the stage's mounts (stage_mounts): the masks the plan marked stage_ok and no
	 * later bwrap mount overlaps, the marker and /dev's remount go to the stage, in order;
	 * it gets CAP_SYS_ADMIN for them. A hidden directory with a mount beneath it, a mask not
	 * marked (its path a link) and a settings copy stay bwrap's. */
	spec_base(&s);
	s.root = true;
	s.stage_mounts = true;
	s.marker_shown = true;
	s.shm_size = 2097152;
	sbx_mounts_add(&s.mounts, SBX_M_RO_BIND, "/", "/");
	sbx_mounts_add(&s.mounts, SBX_M_HIDE_FILE, NULL, "/etc/shadow");
	s.mounts.v[1].stage_ok = true;
	sbx_mounts_add(&s.mounts, SBX_M_HIDE_FILE, NULL, "/etc/link");
	sbx_mounts_add(&s.mounts, SBX_M_HIDE_DIR, NULL, "/h/.ssh");
	s.mounts.v[3].stage_ok = true;
	sbx_mounts_add(&s.mounts, SBX_M_HIDE_DIR, NULL, "/h/.aws");
	s.mounts.v[4].stage_ok = true;
	sbx_mounts_add(&s.mounts, SBX_M_DATA_FILE, "registry=x\n", "/h/.npmrc");
	s.mounts.v[5].stage_ok = true; /* not a kind the stage makes */
	sbx_mounts_add(&s.mounts, SBX_M_RO_BIND, "/h/.ssh/known_hosts", "/h/.ssh/known_hosts");
	sbx_mounts_add(&s.kernel, SBX_M_RO_BIND, "/proc/sys", "/proc/sys");
	sbx_mounts_add(&s.kernel, SBX_M_HIDE_FILE, NULL, "/proc/kcore");
	sbx_mounts_add(&s.kernel, SBX_M_HIDE_DIR, NULL, "/proc/acpi");
	sbx_mounts_add(&s.kernel, SBX_M_RO_BIND, "/proc/sysrq-trigger", "/proc/sysrq-trigger");
	for (size_t i = 0; i < 3; i++)
		s.kernel.v[i].stage_ok = true;
	golden(
	    &s,
	    "/usr/bin/bwrap --die-with-parent --as-pid-1 --unshare-user --uid 0 --gid 0 "
	    "--cap-drop ALL --cap-add CAP_SETPCAP --cap-add CAP_SYS_ADMIN --unshare-pid "
	    "--unshare-ipc --unshare-uts --unshare-cgroup-try --unshare-net --new-session "
	    "--ro-bind / / --dev /dev --size 2097152 --perms 1777 --tmpfs /dev/shm --proc /proc "
	    "--perms 0700 --tmpfs /tmp --ro-bind-data 10 /etc/link --tmpfs /h/.ssh "
	    "--ro-bind-data 11 /h/.npmrc --ro-bind /h/.ssh/known_hosts /h/.ssh/known_hosts "
	    "--ro-bind /proc/sysrq-trigger /proc/sysrq-trigger "
	    "--ro-bind /lx/sbxsh-stage /lx/sbxsh-stage --remount-ro /h/.ssh " TAIL TMPENV
	    "-- /lx/sbxsh-stage --fd=7 --mask-file=/etc/shadow --mask-dir=/h/.aws "
	    "--ro=/proc/sys --mask-file=/proc/kcore --mask-dir=/proc/acpi "
	    "--marker=/lx/sandbox-marker --profile=[default] --dev-ro -- /bin/bash sbxsh -c true",
	    "root, the stage's mounts: masks and knobs no later bwrap mount overlaps, the marker, "
	    "/dev read-only");
	is_int(sandbox_data_fds(&s), 2, "data fds: the link's mask and the settings copy only");
	ok(!sandbox_data_marker(&s), "descriptor 0 is not the marker's (the stage writes it)");
	is_str(sandbox_data_text(&s, 0), "", "…0 the mask bwrap makes");
	is_str(sandbox_data_text(&s, 1), "registry=x\n", "…1 the settings copy");
	ok(sandbox_data_text(&s, 2) == NULL, "…none past the end");
	/* a later bwrap mount above a mask (here the stage's own bind over a hidden file's path)
	 * keeps that mask bwrap's, so bwrap's order holds */
	free(s.stage);
	s.stage = strdup("/h/.aws/stage");
	{
		struct strv out = {0};
		int fds[8] = {10, 11, 12, 13};
		char *argv[] = {"sbxsh", "-c", "true", NULL};
		char *got;

		sandbox_argv(&s, "/usr/bin/bwrap", fds, argv, &out);
		got = joined(&out);
		ok(strstr(got, " --tmpfs /h/.aws ") && !strstr(got, "--mask-dir=/h/.aws") &&
		       strstr(got, "--remount-ro /h/.aws "),
		   "a hidden directory the stage's bind lands in stays bwrap's: %s", got);
		free(got);
		strv_release(&out);
	}
	/* a marker the mounts do not show as on the host (under the private /tmp, in a write
	 * grant): bwrap's, which makes the file where it is missing */
	s.marker_shown = false;
	ok(sandbox_data_marker(&s), "a marker not shown as on the host is bwrap's");
	s.marker_shown = true;
	/* a marker in a hidden directory: bwrap's (it makes the file there), as before */
	free(s.marker);
	s.marker = strdup("/h/.aws/sandbox-marker");
	ok(sandbox_data_marker(&s), "a marker under a hidden directory is bwrap's");
	is_int(sandbox_data_fds(&s), 3, "…with its data descriptor");
	sandbox_spec_release(&s);

	/* Without a user namespace (a hand-made spec): capabilities dropped by bwrap. No
	 * marker installed: none bound. */
	spec_base(&s);
	s.unshare_user = false;
	free(s.marker);
	s.marker = NULL;
	sbx_mounts_add(&s.mounts, SBX_M_SYMLINK, "usr/bin", "/bin");
	sbx_mounts_add(&s.mounts, SBX_M_RO_BIND, "/usr", "/usr");
	golden(&s,
	       "/usr/bin/bwrap --die-with-parent --as-pid-1 --cap-drop ALL --cap-add CAP_SETPCAP "
	       "--unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --unshare-net "
	       "--new-session --dev /dev --proc /proc --perms 0700 --tmpfs /tmp "
	       "--symlink usr/bin /bin --ro-bind /usr /usr "
	       "--ro-bind /lx/sbxsh-stage /lx/sbxsh-stage " TAIL TMPENV
	       "-- /lx/sbxsh-stage --fd=7 -- /bin/bash sbxsh -c true",
	       "no user namespace (a hand-made spec), hermetic-style mounts, no marker");
	sandbox_spec_release(&s);
}

/* --- the planner over a fixture tree --- */

/* Appends the value head + tail (head is "" or the fixture root). */
static void lval(struct pol_list *l, const char *head, const char *tail)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s%s", head, tail);
	l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n] = (struct pol_value){.value = strdup(buf),
					.file = "test.ini",
					.line = (unsigned)l->n + 1}; /* .absent: not known */
	l->n++;
}

static void lfree(struct pol_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].value);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void prof_release(struct profile *p)
{
	lfree(&p->read);
	lfree(&p->write);
	lfree(&p->deny_read);
	lfree(&p->deny_write);
	lfree(&p->env_unset);
	lfree(&p->env_set);
	free(p->cwd);
	free(p->root);
	memset(p, 0, sizeof(*p));
}

static void prof_base(struct profile *p)
{
	char buf[512];
	memset(p, 0, sizeof(*p));
	snprintf(buf, sizeof(buf), "%s/proj", T);
	p->cwd = strdup(buf);
	p->root = strdup(buf);
	lval(&p->read, "", "/");
	lval(&p->write, T, "/proj");
	lval(&p->deny_read, T, "/home/.ssh");
	lval(&p->deny_read, T, "/home/.netrc");
	lval(&p->deny_read, T, "/home/.aws"); /* does not exist: nothing mounted */
	p->network = NET_NONE;
	p->tmp = TMP_PRIVATE;
}

static char *plan(const struct profile *p, bool root, struct strv *notes, struct strv *errs,
		  int *rc)
{
	char home[512];
	snprintf(home, sizeof(home), "%s/home", T);
	struct sandbox_ctx c = {.home = home,
				.stage = "/lx/sbxsh-stage",
				.marker = "/nonexistent/sandbox-marker",
				.inner_shell = "/bin/bash",
				.root = root,
				.tty = false};
	struct sandbox_spec s;
	struct strv out = {0};
	int *fds;
	char *argv[] = {"sh", NULL};

	struct sandbox_req req;

	profile_sandbox_req(p, &req);
	*rc = sandbox_plan(&req, &c, &s, notes, errs);
	if (*rc < 0)
		return NULL;
	s.stage_fd = 9;
	fds = fds_for(&s);
	sandbox_argv(&s, "/usr/bin/bwrap", fds, argv, &out);
	free(fds);
	char *j = joined(&out);
	sandbox_spec_release(&s);
	strv_release(&out);
	/* Only the mounts matter here: cut the fixed head and tail (the kernel knobs, which
	 * depend on the host's /proc, are test_kernel's). */
	char *from = strstr(j, " --ro-bind "), *to = strstr(j, " --ro-bind /proc/");
	if (!to)
		to = strstr(j, " --ro-bind /lx/sbxsh-stage");
	char *m = from && to && to >= from ? strndup(from + 1, (size_t)(to - from - 1)) : strdup(j);
	free(j);
	return m;
}

static void mk(const char *rel, bool dir)
{
	char p[sizeof(T) + 768]; /* T/, then the callers' names (up to 599 bytes) whole */
	snprintf(p, sizeof(p), "%s/%s", T, rel);
	if (dir) {
		mkdir(p, 0755);
	} else {
		FILE *f = fopen(p, "w");
		if (f)
			fclose(f);
	}
}

static void fixture(void)
{
	snprintf(T, sizeof(T), "/var/tmp/test_bwrap.XXXXXX");
	if (!mkdtemp(T))
		snprintf(T, sizeof(T), "/tmp");
	const char *dirs[] = {
	    "home",	"home/.ssh",	    "proj", "proj/.git", "proj/.git/hooks",
	    "proj/sub", "proj/sub/.vscode", "data", "elsewhere", "out-a",
	    NULL};
	const char *files[] = {"home/.netrc",	   "home/.bashrc", "proj/.bashrc",
			       "proj/.git/config", "data/out.bin", NULL};
	for (int i = 0; dirs[i]; i++)
		mk(dirs[i], true);
	for (int i = 0; files[i]; i++)
		mk(files[i], false);
	char a[512], b[512];
	snprintf(a, sizeof(a), "%s/elsewhere", T);
	snprintf(b, sizeof(b), "%s/proj/link", T);
	if (symlink(a, b) < 0)
		perror("symlink");
}

/* The session daemon's directory is hidden from every sandbox (its control socket). */
static void test_session_dir(void)
{
	struct profile p;
	struct strv notes = {0}, errs = {0};
	char run[512], want[600], *old = getenv("XDG_RUNTIME_DIR");
	int rc;

	old = old ? strdup(old) : NULL;
	snprintf(run, sizeof(run), "%s/run", T);
	snprintf(want, sizeof(want), "%s/sbxsh", run);
	mkdir(run, 0700);
	mkdir(want, 0700);
	setenv("XDG_RUNTIME_DIR", run, 1);
	prof_base(&p);
	p.network = NET_OPEN;
	char *m = plan(&p, false, &notes, &errs, &rc);
	snprintf(want, sizeof(want), "--tmpfs $T/run/sbxsh");
	ok(m && strstr(m, want), "the session directory ($XDG_RUNTIME_DIR/sbxsh) is a tmpfs");
	free(m);
	prof_release(&p);
	prof_base(&p);
	lval(&p.write, T, "/run/sbxsh");
	m = plan(&p, false, &notes, &errs, &rc);
	char bind[600];
	snprintf(bind, sizeof(bind), "--bind $T/run/sbxsh");
	ok(m && strstr(m, want) && !strstr(m, bind), "…even with a write grant of it");
	free(m);
	prof_release(&p);
	if (old)
		setenv("XDG_RUNTIME_DIR", old, 1);
	else
		unsetenv("XDG_RUNTIME_DIR");
	free(old);
	strv_release(&notes);
	strv_release(&errs);
}

/* ok when got matches the extended regular expression re. */
static void unlike_(const char *got, const char *re, const char *name)
{
	regex_t rx;
	bool m = got && regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) == 0;
	bool hit = m && regexec(&rx, got, 0, NULL, 0) == 0;

	if (m)
		regfree(&rx);
	ok(m && !hit, "%s", name);
	if (hit)
		printf("#   got:  '%s'\n#   want no /%s/\n", got ? got : "(null)", re);
}

static void like(const char *got, const char *re, const char *name)
{
	regex_t rx;
	bool m = got && regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) == 0;
	bool hit = m && regexec(&rx, got, 0, NULL, 0) == 0;

	if (m)
		regfree(&rx);
	ok(hit, "%s", name);
	if (!hit)
		printf("#   got:  '%s'\n#   want: /%s/\n", got ? got : "(null)", re);
}

/* -1: the plan's own stage_mounts; 0 or 1: forced (the checks of either path, whatever
 * this kernel offers). */
static int force_stage = -1;

/* The whole argv of a plan (root or not), for the checks that need its head or tail. */
static char *plan_all(const struct profile *p, bool root)
{
	char home[512];
	snprintf(home, sizeof(home), "%s/home", T);
	struct sandbox_ctx c = {.home = home,
				.stage = "/lx/sbxsh-stage",
				.marker = "/nonexistent/sandbox-marker",
				.inner_shell = "/bin/bash",
				.root = root};
	struct sandbox_spec s;
	struct strv out = {0}, notes = {0}, errs = {0};
	char *argv[] = {"sh", NULL}, *j = NULL;
	struct sandbox_req req;

	profile_sandbox_req(p, &req);
	if (sandbox_plan(&req, &c, &s, &notes, &errs) == 0) {
		s.stage_fd = 9;
		if (force_stage >= 0)
			s.stage_mounts = force_stage;
		int *fds = fds_for(&s);
		sandbox_argv(&s, "/usr/bin/bwrap", fds, argv, &out);
		free(fds);
		j = joined(&out);
		sandbox_spec_release(&s);
	}
	strv_release(&out);
	strv_release(&notes);
	strv_release(&errs);
	return j;
}

/* Root gets a user namespace too; /proc/sys is read-only whatever the grants; the sizes. */
static void test_kernel(void)
{
	struct profile p;
	char *m;

	prof_base(&p);
	p.tmp_size = (struct pol_size){3u << 20, 0};
	p.shm_size = (struct pol_size){0, 1};
	lval(&p.write, "", "/proc");
	force_stage = 0;
	m = plan_all(&p, true);
	like(m,
	     "^/usr/bin/bwrap --die-with-parent --as-pid-1 --unshare-user --uid 0 --gid 0 "
	     "--cap-drop ALL ",
	     "root: a user namespace, uid 0 mapped to 0, no capability");
	like(m, " --ro-bind /proc/sys /proc/sys .*--ro-bind /lx/sbxsh-stage ",
	     "/proc/sys read-only, after the grants (write = /proc does not re-open it)");
	like(m, " --perms 0700 --size 3145728 --tmpfs /tmp ", "tmp_size 3M is --size 3145728");
	like(m, " --size [1-9][0-9]* --perms 1777 --tmpfs /dev/shm ",
	     "shm_size 1% is a size for /dev/shm");
	like(m, " --remount-ro /dev ", "/dev is read-only (only /dev/shm can be filled)");
	free(m);
	force_stage = 1;
	m = plan_all(&p, true);
	like(m, " --cap-add CAP_SETPCAP --cap-add CAP_SYS_ADMIN ",
	     "root, the stage's mounts: it gets CAP_SYS_ADMIN for them");
	like(m, " --fd=9 (--[a-z-]+=[^ ]+ )*--ro=/proc/sys ",
	     "…/proc/sys read-only by the stage, after bwrap's mounts (the grant of /proc)");
	like(m, " --dev-ro -- ", "…and /dev");
	unlike_(m, "--remount-ro /dev|--ro-bind /proc/sys", "…not by bwrap");
	free(m);
	force_stage = -1;
	m = plan_all(&p, false);
	like(m, "^/usr/bin/bwrap --die-with-parent --as-pid-1 --unshare-user --unshare-pid ",
	     "a user: a user namespace, no --uid");
	free(m);
	prof_release(&p);
}

static void test_plan(void)
{
	struct profile p;
	struct strv notes = {0}, errs = {0};
	int rc;
	char *m;

	prof_base(&p);
	m = plan(&p, false, &notes, &errs, &rc);
	is_str(m,
	       "--ro-bind / / --dev /dev --proc /proc --perms 0700 --tmpfs /tmp --bind $T/proj "
	       "$T/proj "
	       "--ro-bind-data 20 $T/home/.netrc --tmpfs $T/home/.ssh "
	       "--ro-bind $T/proj/.bashrc $T/proj/.bashrc --ro-bind $T/proj/.git/config "
	       "$T/proj/.git/config --ro-bind $T/proj/.git/hooks $T/proj/.git/hooks "
	       "--ro-bind $T/proj/sub/.vscode $T/proj/sub/.vscode",
	       "default: / read-only, credentials hidden (file vs dir), project writable, "
	       "mandatory denies (depth 1 too), a missing deny_read mounts nothing");
	free(m);

	p.git_config = true;
	m = plan(&p, false, &notes, &errs, &rc);
	ok(m && !strstr(m, ".git/config"), "git_config = yes leaves .git/config writable");
	free(m);
	p.git_config = false;

	/* A file write grant is widened to its directory, with one notice. */
	lval(&p.write, T, "/data/out.bin");
	strv_release(&notes);
	m = plan(&p, false, &notes, &errs, &rc);
	ok(m && strstr(m, "--bind $T/data $T/data"), "a file grant binds its directory");
	ok(notes.n == 1 && strstr(notes.v[0], "is a file; its directory"), "…and says so once");
	free(m);
	prof_release(&p);

	/* hermetic: system directories instead of /, the project, the home hidden by absence. */
	prof_base(&p);
	p.hermetic = true;
	m = plan(&p, false, &notes, &errs, &rc);
	ok(m && !strstr(m, "--ro-bind / /") && strstr(m, "--ro-bind /usr /usr") &&
	       !strstr(m, "$T/home/.ssh"),
	   "hermetic: no /, /usr shown, hidden paths that are not visible are not mounted");
	free(m);
	prof_release(&p);

	/* Write globs: each match bound; one matching nothing is reported with its directory. */
	prof_base(&p);
	lval(&p.write, T, "/out-*");
	lval(&p.write, T, "/build-*");
	strv_release(&notes);
	m = plan(&p, false, &notes, &errs, &rc);
	ok(m && strstr(m, "--bind $T/out-a $T/out-a"), "a write glob binds its match");
	ok(notes.n == 1 && strstr(notes.v[0], "matches nothing") &&
	       strstr(notes.v[0], "grant the directory"),
	   "an empty write glob is reported with the directory to grant");
	free(m);
	prof_release(&p);

	/* A write grant spelled through a link out of the project is refused, naming it. */
	prof_base(&p);
	lval(&p.write, T, "/proj/link");
	strv_release(&errs);
	m = plan(&p, false, &notes, &errs, &rc);
	is_int(rc, -EPERM, "a write grant through a link out of the project is refused");
	ok(errs.n == 1 && strstr(errs.v[0], "proj/link leads to"), "…naming the link");
	free(m);
	prof_release(&p);

	/* A cwd no grant shows is refused. */
	prof_base(&p);
	p.hermetic = true;
	lfree(&p.write);
	strv_release(&errs);
	m = plan(&p, false, &notes, &errs, &rc);
	is_int(rc, -EPERM, "a cwd outside every grant is refused");
	ok(errs.n == 1 && strstr(errs.v[0], "current directory"), "…with a message naming it");
	free(m);
	/* deny_read on the cwd hides it too. */
	prof_release(&p);
	prof_base(&p);
	lval(&p.deny_read, T, "/proj");
	strv_release(&errs);
	m = plan(&p, false, &notes, &errs, &rc);
	is_int(rc, -EPERM, "a hidden cwd is refused (a deny wins on the same path)");
	free(m);
	prof_release(&p);

	/* tmp shared; network open; root. */
	prof_base(&p);
	p.tmp = TMP_SHARED;
	p.network = NET_OPEN;
	m = plan(&p, true, &notes, &errs, &rc);
	ok(m && strstr(m, "--bind /tmp /tmp") && !strstr(m, "--perms 0700 --tmpfs /tmp"),
	   "tmp = shared binds the host /tmp");
	free(m);
	prof_release(&p);
	test_kernel();
	strv_release(&notes);
	strv_release(&errs);
	test_session_dir();
}

/* The stage is bound only when the mounts do not show it read-only as on the host. */
static bool stage_shown_with(struct profile *p, const char *stage)
{
	char home[512];
	snprintf(home, sizeof(home), "%s/home", T);
	struct sandbox_ctx c = {.home = home, .stage = stage, .inner_shell = "/bin/bash"};
	struct sandbox_spec s;
	struct strv notes = {0}, errs = {0};
	struct sandbox_req req;
	int rc;

	profile_sandbox_req(p, &req);
	rc = sandbox_plan(&req, &c, &s, &notes, &errs);
	bool shown = rc == 0 && s.stage_shown;

	if (shown) { /* and then bwrap gets no bind of it */
		struct strv out = {0};
		int *fds = fds_for(&s);
		char *argv[] = {"sh", NULL}, *j;
		sandbox_argv(&s, "/usr/bin/bwrap", fds, argv, &out);
		free(fds);
		j = joined(&out); /* the fixture root spelled $T */
		shown = !strstr(j, "--ro-bind $T/data/out.bin $T/data/out.bin") &&
			strstr(j, "-- $T/data/out.bin --fd=");
		free(j);
		strv_release(&out);
	}
	if (rc == 0)
		sandbox_spec_release(&s);
	strv_release(&notes);
	strv_release(&errs);
	return shown;
}

static void test_stage_shown(void)
{
	struct profile p;
	char stage[512], link[512];

	snprintf(stage, sizeof(stage), "%s/data/out.bin", T);
	snprintf(link, sizeof(link), "%s/proj/link/../../data/out.bin", T);
	prof_base(&p);
	ok(stage_shown_with(&p, stage), "a stage under read = / is not bound again");
	ok(!stage_shown_with(&p, "/lx/sbxsh-stage"),
	   "…a stage that is not there is (bwrap says so)");
	ok(!stage_shown_with(&p, link), "…nor one spelled through a link");
	lval(&p.write, T, "/data");
	ok(!stage_shown_with(&p, stage), "…under a write grant it is bound read-only");
	prof_release(&p);
	prof_base(&p);
	lval(&p.deny_read, T, "/data");
	ok(!stage_shown_with(&p, stage), "…under a deny_read it is bound (shown again)");
	prof_release(&p);
}

/* env_unset/env_keep: each pattern shape (NAME, NAME*, *NAME, *NAME*, other stars, fnmatch
 * characters), any case, and a name too long for the fast path: the environment's order. */
static void test_env_shapes(void)
{
	struct profile p;
	struct strv notes = {0}, errs = {0};
	char longname[400], longvar[420];
	memset(longname, 'A', 300);
	strcpy(longname + 300, "_token");
	snprintf(longvar, sizeof(longvar), "%s=x", longname);
	char *env[] = {"GH_TOKEN=a",	 "my_token=b",	"TOKENX=c",	"AWS_KEY=d",
		       "aws_region=e",	 "MYSECRETS=f", "pgpassword=g", "PGPASSWORD2=h",
		       "BUNDLE_X__Y=i",	 "BUNDLE_X=j",	"XZY=k",	"XY=l",
		       longvar,		 "PATH=/bin",	"SECRET=m",	"NOSECRE=n",
		       "GH_TOKEN=again", NULL};
	const char *pats[] = {"*_TOKEN",     "AWS_*", "*SECRET*", "PGPASSWORD",
			      "BUNDLE_*__*", "X?Y",   NULL};
	char home[512];
	snprintf(home, sizeof(home), "%s/home", T);
	struct sandbox_ctx c = {.home = home,
				.stage = "/lx/sbxsh-stage",
				.marker = "/nonexistent/sandbox-marker",
				.inner_shell = "/bin/bash",
				.environ = env};
	struct sandbox_spec s;
	struct sandbox_req req;

	prof_base(&p);
	for (size_t i = 0; pats[i]; i++)
		lval(&p.env_unset, "", pats[i]);
	lval(&p.env_keep, "", "AWS_REGION");
	profile_sandbox_req(&p, &req);
	int rc = sandbox_plan(&req, &c, &s, &notes, &errs);
	char *j = rc == 0 ? joined(&s.env_unset) : NULL;
	char want[800];
	snprintf(want, sizeof(want),
		 "GH_TOKEN my_token AWS_KEY MYSECRETS pgpassword BUNDLE_X__Y XZY %s SECRET",
		 longname);
	is_str(j, want, "env_unset: each pattern shape, any case, env_keep, a long name");
	free(j);
	if (rc == 0)
		sandbox_spec_release(&s);
	lfree(&p.env_keep);
	prof_release(&p);
	strv_release(&notes);
	strv_release(&errs);
}

/* A deny_read path the resolver found missing (.absent) that the plan itself then creates as a
 * missing write grant's directory is looked at again, and hidden as before. */
static void test_absent_made(void)
{
	struct profile p;
	struct strv notes = {0}, errs = {0};
	char home[512];
	snprintf(home, sizeof(home), "%s/home", T);
	struct sandbox_ctx c = {.home = home,
				.stage = "/lx/sbxsh-stage",
				.marker = "/nonexistent/sandbox-marker",
				.inner_shell = "/bin/bash",
				.make_dirs = true};
	struct sandbox_spec s;
	struct sandbox_req req;
	struct strv out = {0};
	char *argv[] = {"sh", NULL};

	prof_base(&p);
	lval(&p.write, T, "/home/mk/cred");
	lval(&p.deny_read, T, "/home/mk/cred");
	p.deny_read.v[p.deny_read.n - 1].absent = true;
	profile_sandbox_req(&p, &req);
	int rc = sandbox_plan(&req, &c, &s, &notes, &errs);
	char *j = NULL;
	if (rc == 0) {
		int *fds = fds_for(&s);

		s.stage_fd = 9;
		sandbox_argv(&s, "/usr/bin/bwrap", fds, argv, &out);
		free(fds);
		j = joined(&out);
		sandbox_spec_release(&s);
	}
	ok(notes.n >= 1 && strstr(notes.v[0], "did not exist: created it"),
	   "a missing write grant under the home is created");
	ok(j && strstr(j, "--tmpfs $T/home/mk/cred"),
	   "…and the deny_read of the same path, found missing before, hides it");
	free(j);
	strv_release(&out);
	prof_release(&p);
	strv_release(&notes);
	strv_release(&errs);
}

/* m names path as a whole argument ($T spelling). */
static bool names_path(const char *m, const char *path)
{
	size_t n = strlen(path);
	for (const char *p = m; (p = strstr(p, path)); p += n)
		if ((p == m || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/* The base profile's plan with deny_read PAT (the argv joined, $T for the fixture root; NULL:
 * refused, *rc) and glob(3)'s answer for the same pattern: the oracle (true: g holds hits, to
 * be globfree'd). */
static char *plan_glob(const char *pat, int *rc, glob_t *g, bool *hits)
{
	struct profile pr;
	struct strv notes = {0}, errs = {0};
	char p[600];

	prof_base(&pr);
	lval(&pr.deny_read, T, pat);
	char *m = plan(&pr, false, &notes, &errs, rc);
	snprintf(p, sizeof(p), "%s%s", T, pat);
	*hits = glob(p, GLOB_NOSORT, NULL, g) == 0;
	prof_release(&pr);
	strv_release(&notes);
	strv_release(&errs);
	return m;
}

/* deny_read globs whose last component alone has wildcards are matched against one read of
 * their directory (mounts.c glob_walk): the same names glob(3) finds, dot names only when the
 * pattern starts with a dot, '?' one character, and one directory shared by several patterns
 * (the oracle is glob(3) itself). */
static void test_glob_shared(void)
{
	const char *names[] = {"a.lease", ".b.lease", "c.leasex", "shadow", "shadow-",
			       "gshadow", "xhadow",   "d.lease",  NULL};
	const char *pats[] = {"/gl/*.lease", "/gl/.*.lease", "/gl/?hadow", "/gl/shadow*",
			      "/gl/*a*",     "/gl-none/*",   NULL};
	char p[600];
	mk("gl", true);
	for (int i = 0; names[i]; i++) {
		snprintf(p, sizeof(p), "gl/%s", names[i]);
		mk(p, false);
	}
	for (int i = 0; pats[i]; i++) {
		int rc;
		glob_t g;
		bool gr;
		char *m = plan_glob(pats[i], &rc, &g, &gr);
		size_t want = gr ? g.gl_pathc : 0, got = 0, found = 0;
		for (int j = 0; names[j]; j++) {
			snprintf(p, sizeof(p), "$T/gl/%s", names[j]);
			got += m && names_path(m, p);
		}
		for (size_t j = 0; j < want; j++) {
			snprintf(p, sizeof(p), "$T%s", g.gl_pathv[j] + strlen(T));
			found += m && names_path(m, p);
		}
		ok(rc == 0 && got == want && found == want,
		   "deny_read %s hides glob(3)'s %zu hit(s)", pats[i], want);
		if (gr)
			globfree(&g);
		free(m);
	}
}

/* deny_read globs with wildcards in a middle component (as /run/user/UID/containers/auth.json
 * with a '*' for UID) are matched against pl's one read of each directory too (mounts.c glob_walk):
 * the same hits glob(3) finds — a dot name only for a dot pattern (".*" takes "." and ".." as
 * well), a regular file never a directory on the way, a link to a directory followed, a literal
 * tail that must exist, two wildcard levels — as canonical paths (the oracle is glob(3) and
 * realpath). */
static void test_glob_middle(void)
{
	const char *dirs[] = {"gm",
			      "gm/u1",
			      "gm/u1/containers",
			      "gm/u2",
			      "gm/u2/containers",
			      "gm/.u3",
			      "gm/.u3/containers",
			      "gm/u4",
			      "gm/u4/x",
			      "gm/u4/x/y",
			      "gm/u5",
			      "gm/u5/containers",
			      NULL};
	const char *files[] = {"gm/u1/containers/auth.json",
			       "gm/.u3/containers/auth.json",
			       "gm/u4/x/y/k1",
			       "gm/u4/x/y/k22",
			       "gm/u5/containers/auth.json",
			       "gm/plain",
			       NULL};
	const char *pats[] = {"/gm/*/containers/auth.json",
			      "/gm/.*/containers/auth.json",
			      "/gm/*/*/y/k?",
			      "/gm/u?/containers/*",
			      "/gm/*/containers",
			      "/gm/*/nothing/*",
			      "/gm-none/*/x",
			      NULL};
	char p[600];
	for (int i = 0; dirs[i]; i++)
		mk(dirs[i], true);
	for (int i = 0; files[i]; i++)
		mk(files[i], false);
	snprintf(p, sizeof(p), "%s/gm/lnk", T);
	ok(symlink("u5", p) == 0, "a link to a directory among the names");
	for (int i = 0; pats[i]; i++) {
		struct strv want = {0};
		int rc;
		glob_t g;
		bool gr;
		char *m = plan_glob(pats[i], &rc, &g, &gr);
		for (size_t j = 0; gr && j < g.gl_pathc; j++) {
			char *c = realpath(g.gl_pathv[j], NULL);
			if (c && strv_find(&want, c) < 0)
				strv_push(&want, c);
			free(c);
		}
		size_t found = 0, shown = 0;
		for (size_t j = 0; j < want.n; j++) {
			snprintf(p, sizeof(p), "$T%s", want.v[j] + strlen(T));
			found += m && names_path(m, p);
		}
		for (const char *q = m; q && (q = strstr(q, "$T/gm")); q++)
			shown++;
		ok(rc == 0 && found == want.n && shown == want.n,
		   "deny_read %s hides glob(3)'s %zu hit(s) and nothing else (%zu, %zu)", pats[i],
		   want.n, found, shown);
		if (gr)
			globfree(&g);
		free(m);
		strv_release(&want);
	}
}

/* A directory past two pages of records (mounts.c dir_list then reads it straight into one
 * large buffer, grown past its first size here: 2,500 names of ~100 bytes): every hit of a
 * glob there is found, the first, the last and those between (the oracle is glob(3)). */
static void test_glob_big_dir(void)
{
	char p[600];
	size_t made = 0;
	mk("big", true);
	for (int i = 0; i < 2500; i++) {
		if (i % 113 == 0 || i == 2499)
			snprintf(p, sizeof(p), "big/key-%05d", i);
		else
			snprintf(p, sizeof(p), "big/entry-%05d-%s", i,
				 "padding-padding-padding-padding-padding-padding-padding-padding-"
				 "padding-padding");
		mk(p, false);
		made++;
	}
	int rc;
	glob_t g;
	bool gr;
	char *m = plan_glob("/big/key-*", &rc, &g, &gr);
	size_t want = gr ? g.gl_pathc : 0, found = 0;
	for (size_t j = 0; j < want; j++) {
		snprintf(p, sizeof(p), "$T%s", g.gl_pathv[j] + strlen(T));
		found += m && names_path(m, p);
	}
	ok(rc == 0 && made == 2500 && want == 24 && found == want,
	   "deny_read of a glob in a directory of 2,500 names hides all %zu of glob(3)'s hits "
	   "(found %zu)",
	   want, found);
	if (gr)
		globfree(&g);
	free(m);
}

int main(void)
{
	fixture();
	test_pure();
	test_plan();
	test_env_shapes();
	test_absent_made();
	test_stage_shown();
	test_glob_shared();
	test_glob_middle();
	test_glob_big_dir();
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", T);
	if (strncmp(T, "/var/tmp/test_bwrap.", 20) == 0 && system(cmd) != 0)
		printf("# could not remove %s\n", T);
	return tap_done();
}
