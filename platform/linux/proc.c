/* proc — the Linux backend of platform/proc.h: signalfd and pidfd. */
#include "platform/proc.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

int proc_sigfd_open(const sigset_t *set)
{
	int fd = signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);

	return fd < 0 ? -errno : fd;
}

int proc_sigfd_read(int fd, struct proc_sig *sig)
{
	struct signalfd_siginfo si;
	ssize_t n = read(fd, &si, sizeof(si));

	if (n != (ssize_t)sizeof(si))
		return n < 0 && errno != EAGAIN ? -errno : 0;
	sig->signo = (int)si.ssi_signo;
	sig->code = si.ssi_code;
	return 1;
}

/* The system calls themselves: the front end is built with a C library (musl) that has no
 * pidfd wrappers. */
int proc_handle_open(pid_t pid)
{
	long fd = syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : (int)fd;
}

int proc_handle_signal(int h, int sig)
{
	return syscall(SYS_pidfd_send_signal, h, sig, NULL, 0) < 0 ? -errno : 0;
}

/* The number in /proc/PID/sessionid, or 0 when unset (4294967295) or unreadable. */
static unsigned long read_sid(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char *end;
	unsigned long v;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	v = strtoul(buf, &end, 10);
	return end == buf || v == 4294967295UL ? 0 : v;
}

unsigned long proc_login_session(pid_t pid)
{
	char path[64];

	if (pid == 0)
		return read_sid("/proc/self/sessionid");
	snprintf(path, sizeof(path), "/proc/%ld/sessionid", (long)pid);
	return read_sid(path);
}

int proc_login_session_others(unsigned long sid)
{
	static long hint; /* the last process found: usually still there, one read */
	DIR *dir;
	struct dirent *e;
	long self = (long)getpid();
	int found = 0;

	if (hint) {
		if (proc_login_session((pid_t)hint) == sid)
			return 1;
		hint = 0;
	}
	if (!(dir = opendir("/proc")))
		return 1;
	while (!found && (e = readdir(dir))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self)
			continue;
		if ((found = proc_login_session((pid_t)pid) == sid))
			hint = pid;
	}
	closedir(dir);
	return found;
}

/* 1 when pid's namespace of kind ns (a name under /proc/PID/ns) is this process's. */
static int same_ns(pid_t pid, const char *ns)
{
	char path[64], self[64], peer[64] = "", mine[64] = "";

	/* a namespace that cannot be read (the peer gone, /proc hidden) is not ours */
	snprintf(path, sizeof(path), "/proc/%ld/ns/%s", (long)pid, ns);
	snprintf(self, sizeof(self), "/proc/self/ns/%s", ns);
	if (pid <= 0 || readlink(path, peer, sizeof(peer) - 1) <= 0 ||
	    readlink(self, mine, sizeof(mine) - 1) <= 0)
		return 0;
	return strcmp(peer, mine) == 0;
}

int proc_same_netns(pid_t pid)
{
	return same_ns(pid, "net");
}

int proc_same_pidns(pid_t pid)
{
	return same_ns(pid, "pid");
}

void proc_oom_unprotect(void)
{
	char buf[16] = "";
	int fd = open("/proc/self/oom_score_adj", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	if (read(fd, buf, sizeof(buf) - 1) > 0 && buf[0] == '-' &&
	    (lseek(fd, 0, SEEK_SET) < 0 || write(fd, "0\n", 2) < 0)) {
		/* left as it was */
	}
	close(fd);
}

/* "Field:\tvalue" of /proc/PID/status, into out (its newline cut); false when missing. */
static bool status_field(pid_t pid, const char *field, char *out, size_t n)
{
	char path[64], line[512];
	size_t fl = strlen(field);
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (strncmp(line, field, fl) == 0 && line[fl] == ':') {
			snprintf(out, n, "%s", line + fl + 1);
			out[strcspn(out, "\n")] = '\0';
			found = true;
		}
	fclose(f);
	return found;
}

pid_t proc_inner_pid(pid_t pid)
{
	char v[256];
	const char *last;

	/* NSpid: the pid in each namespace from ours inwards, tab-separated */
	if (!status_field(pid, "NSpid", v, sizeof(v)) || !(last = strrchr(v, '\t')) || last == v ||
	    strchr(v, '\t') == last)
		return -1;
	char *end;
	long p = strtol(last + 1, &end, 10);
	return *end || p <= 0 ? -1 : (pid_t)p;
}

pid_t proc_parent(pid_t pid)
{
	char v[64];
	char *end;

	if (!status_field(pid, "PPid", v, sizeof(v)))
		return -1;
	long p = strtol(v, &end, 10);
	return end == v || p <= 0 ? -1 : (pid_t)p;
}

int proc_cwd(pid_t pid, char *buf, size_t n)
{
	char proc[64];
	ssize_t k;

	snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)pid);
	if ((k = readlink(proc, buf, n - 1)) < 0)
		return -errno;
	if (k == 0 || buf[0] != '/')
		return -ENOENT;
	buf[k] = '\0';
	if (k > 10 && strcmp(buf + k - 10, " (deleted)") == 0)
		return -ENOENT;
	return 0;
}
