/* filters — the stage's seccomp programs, compiled by libseccomp at build time (bpfgen). */
#ifndef SBX_FILTERS_H
#define SBX_FILTERS_H
#include <linux/filter.h>
#include <stdbool.h>
#include <stdint.h>

/* The main filter (monitor off): [0] refuses AF_UNIX sockets, [1] leaves them
 * (unix_sockets = all). */
extern const struct sock_fprog filters_main[2];
/* With the monitor on, the one filter: the main rules and the notify rules,
 * [level * 2 + (flags & NOTIFY_UNIX)]; len 0 for MONITOR_OFF. With NOTIFY_UNIX the native
 * ABI's socket(AF_UNIX) notifies (the monitor refuses and reports it), the compat ABI's is
 * refused by the filter; without, AF_UNIX is granted (unix_sockets = all). */
extern const struct sock_fprog filters_notify[8];
/* monitor = off: the main rules and only the guard's calls (NOTIFY_GUARD at the writes level):
 * [0] AF_UNIX refused by the filter, [1] granted (unix_sockets = all). */
extern const struct sock_fprog filters_guard[2];
/* Stacked on the one above where the inner shell may switch profiles on cd (--keep-shell):
 * no ptrace attach of pid 2 (the shell), no process_vm_writev into it (seccomp.c, R_SHELL). */
extern const struct sock_fprog filters_shell[1];

/* The monitor's syscall numbers, resolved by libseccomp at build time so the front end does
 * not link it: [0] the native ABI, [1] the compat one the filters hold (x86 beside x86_64,
 * arm beside aarch64; else the native one again). nr[i] is the number of notify_calls()[i]
 * (filters_nr), -1 where the ABI lacks it; socketcall is -1 where the ABI has none. */
#define FILTERS_CALLS_MAX 64
struct filters_arch {
	uint32_t arch; /* AUDIT_ARCH_* as seccomp_data.arch holds it */
	int16_t socketcall;
	int16_t nr[FILTERS_CALLS_MAX];
};
extern const struct filters_arch filters_arches[2];

/* The highest syscall number the filter judges: above the highest one the build's libseccomp
 * names, every native number up to this one is ENOSYS but for the new calls known harmless
 * (seccomp.c, newcalls). 512 and up are x86_64's x32 numbers, which no common call takes. */
#define SECCOMP_CEILING 511

/* Build time and tests (seccomp.c, with libseccomp): */
/* The compat ABI beside the native one (SCMP_ARCH_X86 on x86_64, SCMP_ARCH_ARM on
 * aarch64), or 0. */
uint32_t sandbox_seccomp_compat_arch(void);
/* A call's number in one ABI as the filter holds it (i386's direct socket calls included,
 * which libseccomp names by socketcall), or -1. */
int filters_nr(uint32_t arch, const char *name);
/* One whole program (a libseccomp context, *ctx; caller releases): the main rules on every
 * ABI (AF_UNIX refused unless unix_all), and with level > MONITOR_OFF the notify rules of
 * notify_rules_add (nflags: NOTIFY_UNIX, the native ABI's AF_UNIX to the monitor). The
 * ABIs are built apart and merged: a row may be one ABI's only. 0 or -errno. */
int filters_build(void **ctx, bool unix_all, int level, unsigned nflags);
/* The shell filter's program (filters_shell), on every ABI. */
int filters_build_shell(void **ctx);

#endif
