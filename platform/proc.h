/* proc — a handle on a process and a descriptor for signals: what the front end's supervise
 * loop waits on (shell/supervise.c); and what the kernel says of a process: its login
 * session, its network namespace, its OOM protection (the session daemon, the PAM module).
 * The Linux backend (platform/linux/proc.c) uses signalfd, pidfd and /proc; another backend
 * may use kqueue (EVFILT_SIGNAL, EVFILT_PROC) or a self-pipe.
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

/* Process pid's own pid in the innermost pid namespace it is in, when that namespace is below
 * ours (a sandbox's); else -1. */
pid_t proc_inner_pid(pid_t pid);

/* The parent of process pid (as we number it), or -1. */
pid_t proc_parent(pid_t pid);

/* The working directory of process pid into buf[0…n). Returns 0, or -errno (-ENOENT: it was
 * removed, or is not a path this process can name). */
int proc_cwd(pid_t pid, char *buf, size_t n);

/* The login (audit) session of process pid, 0 for this one: a number every process of one
 * login inherits; 0 when unset or unknown. */
unsigned long proc_login_session(pid_t pid);

/* 1 when a process other than this one is in login session sid (processes this user cannot
 * see are not counted), else 0. */
int proc_login_session_others(unsigned long sid);

/* 1 when pid is known to share this process's network namespace, else 0 (gone, hidden, or
 * another). */
int proc_same_netns(pid_t pid);

/* 1 when pid is known to share this process's pid namespace, else 0 (gone, hidden, or
 * another: every sandbox has one of its own, so a process in it never shares sbxsh's). */
int proc_same_pidns(pid_t pid);

/* Takes back a protection from the OOM killer this process inherited (sshd's -1000): not
 * the user's to keep. Best effort. */
void proc_oom_unprotect(void);

#endif
