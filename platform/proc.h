/* proc — a handle on a process and a descriptor for signals: what the front end's supervise
 * loop waits on (shell/supervise.c). The Linux backend (platform/linux/proc.c) uses signalfd
 * and pidfd; another backend may use kqueue (EVFILT_SIGNAL, EVFILT_PROC) or a self-pipe.
 */
#ifndef SBX_PROC_H
#define SBX_PROC_H
#include <signal.h>
#include <sys/types.h>

/* One signal taken from a proc_sigfd. */
struct proc_sig {
	int signo;
	int code; /* si_code: SI_KERNEL for one the terminal sent */
};

/* A descriptor (close-on-exec, non-blocking) that polls readable while a signal of set is
 * pending; the caller blocks set first. Returns it or -errno. */
int proc_sigfd_open(const sigset_t *set);

/* Takes one pending signal: 1 and *sig, 0 when none is pending, or -errno. */
int proc_sigfd_read(int fd, struct proc_sig *sig);

/* A handle on pid that keeps naming that process once it is reaped and the pid reused
 * (close-on-exec; the caller closes it). Returns it, or -errno (none: the caller falls back
 * to the pid). */
int proc_handle_open(pid_t pid);

/* Sends sig to the process behind handle h. 0 or -errno. */
int proc_handle_signal(int h, int sig);

#endif
