/* test_notify — the notify rules and the monitor loop against real processes.
 *
 * A forked child installs a filter with the notify rules (plus NO_NEW_PRIVS), sends the
 * listener over a socketpair, closes its copy, then makes real calls; this process runs the
 * monitor and checks what it saw, judged against a hand-built layout (the child is not in a
 * mount namespace: the layout only decides what counts).
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/audit.h>
#include <linux/net.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/linux/filters.h"
#include "platform/linux/notify.h"
#include "platform/sandbox.h"
#include "shell/monitor.h"
#include "shell/policy.h"
#include "tests/unit/bpf_run.h"
#include "tests/unit/tap.h"

static char S[64];
static char P[6][256];
enum { PROJ, SECRET, OUT, KEY, TOOL, RO };

static void add(struct pol_list *l, const char *v)
{
	l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n].value = strdup(v);
	l->v[l->n].file = "/home/u/.config/sbxsh/sbxsh.ini";
	l->v[l->n].line = (unsigned)l->n + 1;
	l->n++;
}

static void mount_add(struct sandbox_spec *s, enum sbx_mount_op op, const char *src,
		      const char *dst)
{
	s->mounts.v = realloc(s->mounts.v, (s->mounts.n + 1) * sizeof(*s->mounts.v));
	s->mounts.v[s->mounts.n].op = op;
	s->mounts.v[s->mounts.n].src = src ? strdup(src) : NULL;
	s->mounts.v[s->mounts.n].dst = strdup(dst);
	s->mounts.n++;
}

static void touch(const char *p)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	if (fd >= 0)
		close(fd);
}

static void copy(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	close(in);
	close(out);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static bool kernel_has_sync_wakeup(void)
{
	struct utsname u;
	int maj = 0, min = 0;

	return uname(&u) == 0 && sscanf(u.release, "%d.%d", &maj, &min) == 2 &&
	       (maj > 6 || (maj == 6 && min >= 6));
}

/* Forks a child that installs the rules at level and runs fn; returns its pid and the
 * listener (or -1 when the child could not install: *why says). */
static bool use_bpf = true; /* the stage's build-time program; false: libseccomp at run time */

static int install(enum monitor_level level)
{
	struct sock_fprog prog;
	scmp_filter_ctx ctx;
	int fd;

	if (use_bpf) {
		prog = filters_notify[level * 2 + 1];
		return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx || notify_rules_add(ctx, level, NOTIFY_UNIX) < 0 || seccomp_load(ctx) < 0)
		return -1;
	fd = seccomp_notify_fd(ctx);
	return fd;
}

static pid_t spawn(enum monitor_level level, bool userns, int (*fn)(void), int *listener)
{
	int sv[2];
	pid_t pid;

	*listener = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd;

		close(sv[0]);
		if (userns && unshare(CLONE_NEWUSER) < 0)
			_exit(90);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(91);
		fd = install(level);
		if (fd < 0 || notify_fd_send(sv[1], fd) < 0)
			_exit(93);
		close(fd);
		close(sv[1]);
		if (userns) {
			/* As in a sandbox: a program exec'd in the namespace (its memory belongs
			 * to it, so its owner may read it even when it is non-dumpable). */
			char path[PATH_MAX];
			snprintf(path, sizeof(path), "%s/nodump", P[SECRET]);
			char *av[] = {"test_notify", "--nodump", path, NULL};
			execv("/proc/self/exe", av);
			_exit(94);
		}
		_exit(fn());
	}
	close(sv[1]);
	if (pid > 0 && notify_fd_recv(sv[0], listener) < 0)
		*listener = -1;
	close(sv[0]);
	return pid;
}

/* ---- what the children do ---- */

static int child_main(void)
{
	char buf[PATH_MAX];
	int fd, dfd, bad = 0;

	for (int i = 0; i < 50; i++) { /* one violation, however often */
		fd = open(P[KEY], O_RDONLY);
		bad |= fd < 0;
		close(fd);
	}
	snprintf(buf, sizeof(buf), "%s/a", P[PROJ]);
	fd = open(buf, O_WRONLY | O_CREAT, 0644); /* granted */
	bad |= (fd < 0) << 1;
	close(fd);
	snprintf(buf, sizeof(buf), "%s/b", P[OUT]);
	fd = open(buf, O_WRONLY | O_CREAT, 0644); /* a write no grant covers */
	close(fd);
	snprintf(buf, sizeof(buf), "%s/missing", P[SECRET]);
	close(open(buf, O_RDONLY)); /* hidden, but missing on the host too */
	close(open("/proc/self/status", O_RDONLY));
	if (chdir(S) < 0)
		bad |= 4;
	close(open("secret/rel", O_RDONLY)); /* relative, after chdir */
	dfd = open(P[SECRET], O_RDONLY | O_DIRECTORY);
	close(openat(dfd, "viafd", O_RDONLY)); /* through a dirfd */
	close(dfd);
	errno = 0;
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	bad |= (fd >= 0 || errno != EPERM) << 3;
	errno = 0; /* the family is an int: high bits in the register must not slip past */
	fd = (int)syscall(SYS_socket, (1L << 32) | AF_UNIX, SOCK_STREAM, 0);
	bad |= (fd >= 0 || errno != EPERM) << 7;
	errno = 0; /* the family is an int: high bits in the register must not slip past */
	fd = (int)syscall(SYS_socket, (1L << 32) | AF_UNIX, SOCK_STREAM, 0);
	bad |= (fd >= 0 || errno != EPERM) << 7;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	bad |= (fd < 0) << 4;
	close(fd);
	snprintf(buf, sizeof(buf), "%s/sub/dir", P[OUT]);
	mkdir(buf, 0755); /* fails ENOENT here; a sandbox would refuse it EROFS */
	close(open(buf, O_WRONLY | O_CREAT, 0644)); /* the same path by another call */
	rmdir(buf);
	errno = 0;
	fd = open((const char *)8, O_RDONLY); /* unreadable path: answered, counted unknown */
	bad |= (errno != EFAULT) << 5;
	/* A path of ~450 bytes across a page boundary: the monitor reads it in three pieces
	 * (256 bytes, the rest of the page, the next page). Then one with no NUL before
	 * unmapped memory: answered, counted unknown. */
	char *pg = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pg != MAP_FAILED) {
		char *lp = pg + 4096 - 300;
		int k = snprintf(lp, 1000, "%s/", P[SECRET]);

		for (int i = 0; i < 200; i++, k += 2)
			memcpy(lp + k, "./", 2);
		strcpy(lp + k, "long");
		close(open(lp, O_RDONLY));
		munmap(pg + 4096, 4096);
		memset(pg + 4096 - 300, 'a', 300);
		errno = 0;
		close(open(pg + 4096 - 300, O_RDONLY));
		bad |= (errno != EFAULT) << 8;
		munmap(pg, 4096);
	}
	pid_t p = fork();
	if (p == 0) {
		execl(P[TOOL], "tool", (char *)NULL); /* a hidden binary */
		_exit(99);
	}
	int st;
	waitpid(p, &st, 0);
	bad |= !(WIFEXITED(st) && WEXITSTATUS(st) == 0) << 6;
	return bad;
}

/* Run as `test_notify --nodump PATH` by spawn() after exec in a user namespace. */
static int child_nodump(const char *path)
{
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return 1;
	close(open(path, O_RDONLY));
	return 0;
}

static int child_nodump_unused(void)
{
	return 95; /* spawn() execs the --nodump child instead */
}

static int nopens = 2000;

static int child_stress(void)
{
	char buf[PATH_MAX];
	int bad = 0;

	snprintf(buf, sizeof(buf), "%s/a", P[PROJ]);
	for (int i = 0; i < nopens; i++) {
		int fd = open(i % 2 ? buf : P[KEY], O_RDONLY);

		bad |= fd < 0;
		close(fd);
	}
	return bad;
}

static int child_writes(void)
{
	char buf[PATH_MAX];

	for (int i = 0; i < 200; i++)
		close(open(P[KEY], O_RDONLY)); /* reads: not notified at this level */
	snprintf(buf, sizeof(buf), "%s/w", P[OUT]);
	close(open(buf, O_WRONLY | O_CREAT, 0644));
	snprintf(buf, sizeof(buf), "%s/a2", P[OUT]);
	close(open(buf, O_RDWR | O_CREAT | O_APPEND, 0644));
	return 0;
}

static int child_dead(void)
{
	int fd, e1, e2;

	errno = 0;
	fd = open(P[KEY], O_WRONLY);
	e1 = errno;
	close(fd);
	errno = 0;
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	e2 = errno;
	return (fd < 0 && e1 == ENOSYS && e2 == ENOSYS) ? 0 : 1;
}

/* 6,000 distinct misses under a grant, relative to the cwd: more paths and bytes than the
 * judged-path cache holds at its largest (it grows, then empties); then the same hidden read
 * three times, and a hidden one through "..". */
static int child_many(void)
{
	char buf[PATH_MAX];

	if (chdir(P[PROJ]) < 0)
		return 1;
	for (int i = 0; i < 6000; i++) {
		snprintf(buf, sizeof(buf),
			 "missing-%d-with-a-name-long-enough-to-fill-the-arena-%d", i, i);
		close(open(buf, O_RDONLY));
	}
	for (int i = 0; i < 3; i++)
		close(open(P[KEY], O_RDONLY));
	close(open("../secret/rel", O_RDONLY));
	return 0;
}

/* Holds the filter without a call: the monitor's thread waits in RECV meanwhile. */
static int child_idle(void)
{
	sleep(30);
	return 0;
}

/* ---- checks ---- */

static const struct mon_viol *find(struct monitor *m, enum viol_kind k, const char *path)
{
	size_t n;
	const struct mon_viol *v = monitor_violations(m, &n);

	for (size_t i = 0; i < n; i++)
		if (v[i].kind == k && strcmp(v[i].path, path) == 0)
			return &v[i];
	return NULL;
}

static int count(struct monitor *m, enum viol_kind k, const char *path)
{
	size_t n, c = 0;
	const struct mon_viol *v = monitor_violations(m, &n);

	for (size_t i = 0; i < n; i++)
		c += v[i].kind == k && strcmp(v[i].path, path) == 0;
	return (int)c;
}

static int run(struct judge_ctx *jc, enum monitor_level lvl, bool userns, int (*fn)(void),
	       struct monitor **mp)
{
	int lis, st = -1;
	pid_t pid = spawn(lvl, userns, fn, &lis);

	*mp = NULL;
	if (pid < 0 || lis < 0) {
		if (pid > 0)
			waitpid(pid, &st, 0);
		return -1;
	}
	int su = notify_listener_setup(lis);
	ok(su >= 0, "listener set up (sync wake-up %s)", su == 1 ? "on" : "not in this kernel");
	if (kernel_has_sync_wakeup())
		is_int(su, 1, "… the kernel (6.6+) takes the sync wake-up flag");
	if (monitor_new(mp, lis, jc) < 0)
		return -1;
	monitor_set_level(*mp, lvl);
	if (monitor_start(*mp) < 0)
		return -1;
	waitpid(pid, &st, 0);
	monitor_stop(*mp);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void setup(struct profile *prof, struct sandbox_spec *spec, struct judge_ctx *jc)
{
	char buf[PATH_MAX];

	snprintf(S, sizeof(S), "/tmp/sbx-notify.XXXXXX");
	if (!mkdtemp(S))
		exit(1);
	snprintf(P[PROJ], sizeof(P[0]), "%s/proj", S);
	snprintf(P[SECRET], sizeof(P[0]), "%s/secret", S);
	snprintf(P[OUT], sizeof(P[0]), "%s/out", S);
	snprintf(P[KEY], sizeof(P[0]), "%s/secret/key", S);
	snprintf(P[TOOL], sizeof(P[0]), "%s/secret/tool", S);
	snprintf(P[RO], sizeof(P[0]), "%s/ro", S);
	mkdir(P[PROJ], 0755);
	mkdir(P[SECRET], 0755);
	/* read-only, as a sandbox's mount would make it: the guard performs the writes with no
	 * capability, so they fail here (EACCES) and the failures are judged */
	mkdir(P[OUT], 0555);
	touch(P[KEY]);
	copy("/bin/true", P[TOOL]);
	for (const char *f = "rel\0viafd\0nodump\0long\0"; *f; f += strlen(f) + 1) {
		snprintf(buf, sizeof(buf), "%s/%s", P[SECRET], f);
		touch(buf);
	}
	memset(prof, 0, sizeof(*prof));
	add(&prof->read, "/");
	add(&prof->deny_read, P[SECRET]);
	add(&prof->write, P[PROJ]);
	prof->grant_section = "[dir /x]";
	prof->grant_file = "~/.config/sbxsh/sbxsh.ini";
	memset(spec, 0, sizeof(*spec));
	mount_add(spec, SBX_M_RO_BIND, "/", "/");
	mount_add(spec, SBX_M_BIND, P[PROJ], P[PROJ]);
	mount_add(spec, SBX_M_HIDE_DIR, NULL, P[SECRET]);
	memset(jc, 0, sizeof(*jc));
	jc->prof = prof;
	jc->spec = spec;
	jc->exists = monitor_host_exists;
}

static void test_main(struct judge_ctx *jc)
{
	struct monitor *m;
	char buf[PATH_MAX];
	int rc = run(jc, MONITOR_FULL, false, child_main, &m);
	size_t n;

	if (rc < 0 || !m) {
		skip("seccomp user notification unavailable", "the monitor sees the calls");
		monitor_free(m);
		return;
	}
	is_int(rc, 0,
	       "the child's calls behaved (AF_UNIX refused EPERM, also with high bits set; AF_INET "
	       "allowed; exec ran)");
	is_int(count(m, VK_READ, P[KEY]), 1, "a hidden read is reported once for 50 opens");
	snprintf(buf, sizeof(buf), "%s/b", P[OUT]);
	ok(find(m, VK_WRITE, buf) != NULL, "a write outside the grants is reported");
	snprintf(buf, sizeof(buf), "%s/a", P[PROJ]);
	ok(!find(m, VK_WRITE, buf), "a write under a grant is not");
	snprintf(buf, sizeof(buf), "%s/missing", P[SECRET]);
	ok(!find(m, VK_READ, buf), "a hidden path missing on the host too is not");
	ok(!find(m, VK_READ, "/proc/self/status"), "/proc is not");
	snprintf(buf, sizeof(buf), "%s/rel", P[SECRET]);
	ok(find(m, VK_READ, buf) != NULL, "a relative path after chdir is resolved");
	snprintf(buf, sizeof(buf), "%s/viafd", P[SECRET]);
	ok(find(m, VK_READ, buf) != NULL, "openat with a dirfd is resolved");
	ok(find(m, VK_UNIX, "AF_UNIX") != NULL, "socket(AF_UNIX) is reported");
	snprintf(buf, sizeof(buf), "%s/sub/dir", P[OUT]);
	ok(find(m, VK_WRITE, buf) != NULL, "mkdir outside the grants is reported");
	is_int(count(m, VK_WRITE, buf), 1, "… once, though open and rmdir named it too");
	ok(find(m, VK_EXEC, P[TOOL]) != NULL, "an exec of a hidden binary is reported");
	snprintf(buf, sizeof(buf), "%s/long", P[SECRET]);
	ok(find(m, VK_READ, buf) != NULL,
	   "a path of ~450 bytes across a page boundary is read whole");
	ok(monitor_stats(m).unknown >= 1, "an unreadable path is counted unknown, not waited on");
	const struct mon_viol *v = find(m, VK_READ, P[KEY]);
	ok(v && v->why == VW_DENY_READ && strncmp(v->call, "open", 4) == 0 && v->pid > 0,
	   "the record names why, the call and the pid");
	monitor_violations(m, &n);
	printf("# %zu violations\n", n);
	monitor_free(m);
}

static void test_nodump(struct judge_ctx *jc)
{
	struct monitor *m;
	char buf[PATH_MAX];
	int rc = run(jc, MONITOR_FULL, true, child_nodump_unused, &m);

	if (rc == 90 || !m) {
		skip("no user namespaces here", "a non-dumpable process in a user namespace");
		monitor_free(m);
		return;
	}
	is_int(rc, 0, "a non-dumpable child in a user namespace ran");
	snprintf(buf, sizeof(buf), "%s/nodump", P[SECRET]);
	ok(find(m, VK_READ, buf) != NULL, "its hidden read is still read and reported");
	monitor_free(m);
}

static void test_stress(struct judge_ctx *jc)
{
	int fds = count_fds(), lis[16];
	pid_t pids[16];
	struct monitor *ms[16];
	bool good = true;
	unsigned long total = 0;

	for (int i = 0; i < 16; i++) {
		pids[i] = spawn(MONITOR_FULL, false, child_stress, &lis[i]);
		good &= pids[i] > 0 && lis[i] >= 0 && notify_listener_setup(lis[i]) >= 0 &&
			monitor_new(&ms[i], lis[i], jc) == 0 && monitor_start(ms[i]) == 0;
	}
	ok(good, "16 monitored children started");
	for (int i = 0; i < 16; i++) {
		int st;

		waitpid(pids[i], &st, 0);
		good &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
		monitor_stop(ms[i]);
		total += monitor_stats(ms[i]).notifications;
		good &= count(ms[i], VK_READ, P[KEY]) == 1;
		monitor_free(ms[i]);
	}
	ok(good, "16 x %d opens all answered, each child's hidden read reported once", nopens);
	ok(total >= 16UL * (unsigned long)nopens, "every open notified (%lu)", total);
	is_int(count_fds(), fds, "no descriptor leaked");
}

static void test_writes(struct judge_ctx *jc)
{
	struct monitor *m;
	char buf[PATH_MAX];
	int rc;

	use_bpf = false; /* this one through libseccomp's rules (notify_rules_add) */
	rc = run(jc, MONITOR_WRITES, false, child_writes, &m);
	use_bpf = true;

	if (rc < 0 || !m) {
		skip("seccomp user notification unavailable", "monitor = writes");
		return;
	}
	is_int(rc, 0, "the writes-level child ran");
	ok(monitor_stats(m).notifications < 20, "read opens are not notified at writes (%lu)",
	   monitor_stats(m).notifications);
	snprintf(buf, sizeof(buf), "%s/w", P[OUT]);
	ok(find(m, VK_WRITE, buf) != NULL, "an O_WRONLY|O_CREAT open is");
	snprintf(buf, sizeof(buf), "%s/a2", P[OUT]);
	ok(find(m, VK_WRITE, buf) != NULL, "an O_RDWR|O_APPEND open is");
	ok(!find(m, VK_READ, P[KEY]), "no read is reported at writes");
	monitor_free(m);
}

static void test_dead(void)
{
	int lis, st;
	pid_t pid = spawn(MONITOR_FULL, false, child_dead, &lis);

	if (pid < 0 || lis < 0) {
		skip("seccomp user notification unavailable", "a dead monitor fails closed");
		return;
	}
	close(lis); /* the monitor is gone before the child's first call */
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "with the monitor gone, a write open and socket(AF_UNIX) fail with ENOSYS");
}

static void test_many(struct judge_ctx *jc)
{
	struct monitor *m;
	char buf[PATH_MAX];
	int rc = run(jc, MONITOR_FULL, false, child_many, &m);

	if (rc < 0 || !m) {
		skip("seccomp user notification unavailable", "the judged-path cache filled");
		return;
	}
	is_int(rc, 0, "the child of 6,000 misses ran");
	ok(monitor_stats(m).notifications > 6000, "… each one notified (%lu)",
	   monitor_stats(m).notifications);
	is_int(count(m, VK_READ, P[KEY]), 1, "a hidden read is still reported once");
	snprintf(buf, sizeof(buf), "%s/rel", P[SECRET]);
	ok(find(m, VK_READ, buf) != NULL,
	   "a relative hidden read through the cwd cache is reported");
	snprintf(buf, sizeof(buf), "%s/missing-5999-with-a-name-long-enough-to-fill-the-arena-5999",
		 P[PROJ]);
	ok(!find(m, VK_READ, buf), "misses under a grant are not");
	monitor_free(m);
}

/* monitor_stop while a process still holds the filter: the thread is in a RECV that nothing
 * will end but monitor_stop's signal. (A hang here ends in the alarm: the suite fails.) */
static void test_stop_live(struct judge_ctx *jc)
{
	struct monitor *m = NULL;
	int lis, st;
	pid_t pid = spawn(MONITOR_FULL, false, child_idle, &lis);

	if (pid < 0 || lis < 0) {
		skip("seccomp user notification unavailable", "monitor_stop ends a waiting thread");
		return;
	}
	alarm(20);
	ok(monitor_new(&m, lis, jc) == 0 && monitor_start(m) == 0, "a thread serves a listener");
	usleep(100 * 1000); /* let it reach its RECV */
	monitor_stop(m);
	alarm(0);
	ok(waitpid(pid, &st, WNOHANG) == 0, "monitor_stop returned while the process still runs");
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	monitor_free(m);
}

/* ---- the build-time program against libseccomp at run time, on the same inputs ---- */

static uint32_t bpf_run(const struct sock_filter *f, size_t n, const struct seccomp_data *d)
{
	return bpf_run_n(f, n, d);
}

static size_t libseccomp_prog(enum monitor_level lvl, struct sock_filter *out, size_t cap)
{
	scmp_filter_ctx c = seccomp_init(SCMP_ACT_ALLOW), x86 = seccomp_init(SCMP_ACT_ALLOW);
	FILE *f = tmpfile();
	size_t n = 0;

	/* as filters_build: one context per ABI; x86's AF_UNIX is the main rules' (no x32) */
	seccomp_arch_add(x86, SCMP_ARCH_X86);
	seccomp_arch_remove(x86, SCMP_ARCH_NATIVE);
	notify_rules_add(c, lvl, NOTIFY_UNIX);
	notify_rules_add(x86, lvl, 0);
	seccomp_merge(c, x86);
	seccomp_export_bpf(c, fileno(f));
	rewind(f);
	n = fread(out, sizeof(*out), cap, f);
	fclose(f);
	seccomp_release(c);
	return n;
}

static void test_bpf_equivalence(void)
{
	static const uint32_t archs[] = {AUDIT_ARCH_X86_64, AUDIT_ARCH_I386};
	static const uint64_t argv[] = {0, O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, O_PATH,
					O_CLOEXEC | 0, AF_UNIX, AF_INET, SYS_SOCKET, SYS_CONNECT,
					/* high bits the kernel drops: the argument is an int */
					(1ULL << 32) | AF_UNIX, (1ULL << 32) | O_WRONLY};
	static struct sock_filter theirs[4096];

	for (int lvl = MONITOR_WRITES; lvl <= MONITOR_ALL; lvl++) {
		size_t nt = libseccomp_prog((enum monitor_level)lvl, theirs, 4096);
		const struct sock_filter *mine = filters_notify[lvl * 2 + 1].filter;
		size_t nm = filters_notify[lvl * 2 + 1].len;
		unsigned long cases = 0, diff = 0;

		ok(nm > 0 && nt > 0, "%s: both programs built (%zu and %zu instructions)",
		   notify_level_name((enum monitor_level)lvl), nm, nt);
		for (size_t a = 0; a < 2; a++)
			for (uint32_t nr = 0; nr < 1100; nr++)
				for (size_t v = 0; v < sizeof(argv) / sizeof(argv[0]); v++) {
					struct seccomp_data d = {.arch = archs[a]};
					uint32_t x, y;

					d.nr = (int)(nr < 600 ? nr : (nr - 600) | 0x40000000u);
					if (a == 1 && nr >= 600)
						continue;
					for (int k = 0; k < 6; k++)
						d.args[k] = argv[v];
					x = bpf_run(mine, nm, &d);
					y = bpf_run(theirs, nt, &d);
					cases++;
					if ((x == SECCOMP_RET_USER_NOTIF) !=
						(y == SECCOMP_RET_USER_NOTIF) ||
					    x == 0xdeadbeef) {
						if (diff++ < 5)
							printf("# arch %x nr %#x arg %#llx: mine "
							       "%#x libseccomp %#x\n",
							       archs[a], d.nr,
							       (unsigned long long)argv[v], x, y);
					}
				}
		is_int(diff, 0,
		       "%s: the build-time filter notifies exactly what libseccomp's does (%lu "
		       "cases, x86-64, x32, x86)",
		       notify_level_name((enum monitor_level)lvl), cases);
	}
}

static void test_rules(void)
{
	scmp_filter_ctx c = seccomp_init(SCMP_ACT_ALLOW);

	ok(c && seccomp_arch_add(c, SCMP_ARCH_X86) == 0, "a filter for x86-64 and x86");
	is_int(notify_rules_add(c, MONITOR_FULL, NOTIFY_UNIX), 0, "full rules add on both arches");
	seccomp_release(c);
	c = seccomp_init(SCMP_ACT_ALLOW);
	seccomp_arch_add(c, SCMP_ARCH_X86);
	is_int(notify_rules_add(c, MONITOR_WRITES, 0), 0, "writes rules add (flag-masked opens)");
	is_int(notify_rules_add(c, MONITOR_OFF, NOTIFY_UNIX), 0, "off adds nothing");
	seccomp_release(c);
	is_int(notify_level_parse("writes"), MONITOR_WRITES, "level names parse");
	is_int(notify_level_parse("bogus"), -1, "an unknown level is refused");
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--nodump") == 0)
		return child_nodump(argv[2]);

	static struct profile prof; /* fixtures live as long as the program */
	static struct sandbox_spec spec;
	static struct judge_ctx jc;
	const char *e = getenv("SBX_NOTIFY_OPENS");

	if (e)
		nopens = atoi(e);
	signal(SIGPIPE, SIG_IGN);
	setup(&prof, &spec, &jc);
	test_rules();
	test_bpf_equivalence();
	test_main(&jc);
	test_nodump(&jc);
	test_writes(&jc);
	test_stress(&jc);
	test_dead();
	test_many(&jc);
	test_stop_live(&jc);
	{
		char cmd[PATH_MAX];
		pid_t p = fork();

		if (p == 0) {
			snprintf(cmd, sizeof(cmd), "%s", S);
			execl("/bin/rm", "rm", "-rf", cmd, (char *)NULL);
			_exit(1);
		}
		waitpid(p, NULL, 0);
	}
	return tap_done();
}
