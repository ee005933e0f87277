/* proc — the Linux backend of platform/proc.h: signalfd and pidfd. */
#include "platform/proc.h"

#include <errno.h>
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
