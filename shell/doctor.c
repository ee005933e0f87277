/* doctor — `sbxsh doctor`: what this machine allows the sandbox, each line "ok" or the fix. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "paths.h"
#include "platform/host.h"
#include "platform/sandbox.h"
#include "shell/commands.h"
#include "shell/doctor_sshd.h"
#include "shell/policy.h"

struct doc {
	int failed;
};

static void line(struct doc *d, int ok, const char *what, const char *detail)
{
	printf("%-5s %-22s %s\n", ok > 0 ? "ok" : ok == 0 ? "FAIL" : "note", what, detail);
	d->failed += ok == 0;
}

/* Runs argv with stdout captured into buf; stderr discarded. Returns the wait status. */
static int run_capture(char *const *argv, char *buf, size_t n)
{
	int p[2], st = -1;

	buf[0] = '\0';
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(p[1], 1);
		dup2(null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	ssize_t got = pid > 0 ? read(p[0], buf, n - 1) : -1;
	buf[got > 0 ? got : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	return st;
}

static long read_sysctl(const char *path)
{
	char b[32] = "";
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	if (!fgets(b, sizeof(b), f))
		b[0] = '\0';
	fclose(f);
	return b[0] ? strtol(b, NULL, 10) : -1;
}

/* Write grants are bound from the descriptor sbxsh opened and checked (--bind-fd): the
 * namespaces probe again, with /tmp bound that way. */
static void check_bind_fd(struct doc *d, char **probe)
{
	char out[256], fdarg[16];
	int fd = open("/tmp", O_RDONLY | O_DIRECTORY), st = -1; /* inherited by the probe */
	char *argv[32];
	size_t n = 0;

	snprintf(fdarg, sizeof(fdarg), "%d", fd);
	for (; probe[n] && strcmp(probe[n], "/bin/true") != 0; n++)
		argv[n] = probe[n];
	argv[n++] = "--bind-fd", argv[n++] = fdarg, argv[n++] = "/tmp";
	argv[n++] = "/bin/true", argv[n] = NULL;
	if (fd >= 0) {
		st = run_capture(argv, out, sizeof(out));
		close(fd);
	}
	line(d, st == 0, "bwrap --bind-fd",
	     st == 0 ? "write grants are bound by descriptor"
		     : "this bwrap lacks --bind-fd, which every write grant needs (sbxsh refuses "
		       "to run commands): install a newer bubblewrap (Debian 12's 0.8.0 has it) "
		       "or set [sbxsh] bwrap to one");
}

static void check_bwrap(struct doc *d, const char *bwrap)
{
	char out[256], msg[512];
	int st = run_capture((char *const[]){(char *)bwrap, "--version", NULL}, out, sizeof(out));

	if (st != 0) {
		snprintf(msg, sizeof(msg),
			 "%s cannot be run; install bubblewrap (apt-get install "
			 "bubblewrap) or set [sbxsh] bwrap",
			 bwrap);
		line(d, 0, "bwrap", msg);
		return;
	}
	snprintf(msg, sizeof(msg), "%s (%s)", bwrap, out);
	line(d, 1, "bwrap", msg);
	/* The real probe: the namespaces every command gets. */
	char *probe[] = {(char *)bwrap,
			 geteuid() ? "--unshare-user" : "--unshare-ipc",
			 "--unshare-pid",
			 "--unshare-net",
			 "--ro-bind",
			 "/",
			 "/",
			 "--dev",
			 "/dev",
			 "--proc",
			 "/proc",
			 "/bin/true",
			 NULL};
	st = run_capture(probe, out, sizeof(out));
	line(d, st == 0, "namespaces",
	     st == 0
		 ? "a sandbox with user, pid and net namespaces starts"
		 : "bwrap cannot create namespaces here: check kernel.unprivileged_userns_clone=1, "
		   "user.max_user_namespaces > 0, AppArmor's userns restriction (below), or a "
		   "container that forbids them");
	if (st == 0)
		check_bind_fd(d, probe);
}

static void check_kernel(struct doc *d)
{
	line(d, host_has_seccomp(), "seccomp",
	     host_has_seccomp() ? "filters available"
				: "the kernel lacks seccomp filters; "
				  "enable CONFIG_SECCOMP_FILTER");
	long abi = host_landlock_abi();
	char msg[128];
	snprintf(msg, sizeof(msg),
		 abi > 0 ? "ABI %ld: the sandbox's own changes of names refused (the guard makes "
			   "them)"
			 : "not available: core files are refused instead (RLIMIT_CORE 0); the "
			   "guard holds the rest",
		 abi);
	line(d, abi > 0 ? 1 : -1, "landlock", msg);
	long t = read_sysctl("/proc/sys/dev/tty/legacy_tiocsti");
	line(d, t == 1 ? -1 : 1, "dev.tty.legacy_tiocsti",
	     t == 1 ? "1: sbxsh blocks TIOCSTI with seccomp; set it to 0 to protect every program"
		    : "TIOCSTI injection disabled or blocked by sbxsh's seccomp filter");
	long y = read_sysctl("/proc/sys/kernel/yama/ptrace_scope");
	snprintf(
	    msg, sizeof(msg), "%ld%s", y,
	    y == 0 ? ": sandboxed processes can trace each other (not outside their pid namespace)"
		   : "");
	line(d, y >= 1 ? 1 : -1, "kernel.yama.ptrace_scope", y < 0 ? "no Yama (fine)" : msg);
	long aa = read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	line(d, aa == 1 ? 0 : 1, "apparmor userns",
	     aa == 1 ? "unprivileged user namespaces are restricted: load an AppArmor profile for "
		       "bwrap (Ubuntu: apparmor-profiles bwrap-userns-restrict) or set "
		       "kernel.apparmor_restrict_unprivileged_userns=0"
		     : "no restriction on user namespaces");
}

/* The ABIs the filter holds, and which others the kernel offers. */
static void check_abis(struct doc *d)
{
	struct sandbox_abis a;

	sandbox_abis_probe(&a);
	line(d, 1, "syscall ABIs", a.covered);
	if (a.ia32)
		line(d, -1, "ia32 emulation", a.ia32);
	if (a.x32)
		line(d, -1, "x32 ABI", a.x32);
}

static void check_install(struct doc *d)
{
	const char *stage = SBX_LIBEXECDIR "/sbxsh-stage",
		   *marker = SBX_LIBEXECDIR "/sandbox-marker";

	line(d, access(stage, X_OK) == 0, "stage",
	     access(stage, X_OK) == 0 ? stage : "sbxsh-stage is missing; reinstall sbxsh");
	line(d, access(marker, R_OK) == 0, "nested marker",
	     access(marker, R_OK) == 0 ? marker
				       : "the sandbox-marker file is missing; reinstall sbxsh "
					 "(without it a sandboxed `sbxsh -c` tries to nest)");
	line(d, -1, "ssh",
	     "internal-sftp and port/agent/X11 forwarding never run the shell: for sandboxed ssh "
	     "users use `Subsystem sftp /usr/lib/openssh/sftp-server` and `DisableForwarding yes` "
	     "(sbxsh doctor --sshd checks sshd's settings)");
}

int cmd_doctor(int argc, char **argv)
{
	struct doc d = {0};
	struct diag dg = {0};
	struct policy *pol = NULL;
	struct policy_opts o = {0};
	const char *bwrap = "/usr/bin/bwrap";

	if (argc >= 2 && strcmp(argv[1], "--sshd") == 0)
		return doctor_sshd(argc, argv);
	if (argc >= 2) {
		fprintf(stderr, "usage: sbxsh doctor [--sshd [--user NAME] [--config FILE]]\n");
		return strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ? 0 : 2;
	}
	if (policy_load(&pol, &o, &dg) == 0) {
		bwrap = policy_settings(pol)->bwrap;
		line(&d, 1, "policy", "loads");
	} else {
		line(&d, 0, "policy", dg.errors.n ? dg.errors.v[0] : "does not load");
	}
	check_bwrap(&d, bwrap);
	check_kernel(&d);
	check_abis(&d);
	check_install(&d);
	policy_free(pol);
	diag_release(&dg);
	printf("%s\n", d.failed
			   ? "sbxsh cannot sandbox commands here until the FAIL lines are fixed"
			   : "sbxsh can sandbox commands here");
	return d.failed ? 1 : 0;
}
