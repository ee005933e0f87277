/* filters — the stage's seccomp programs, compiled by libseccomp at build time (bpfgen). */
#ifndef SBX_FILTERS_H
#define SBX_FILTERS_H
#include <linux/filter.h>
#include <stdint.h>

/* The main filter: [0] refuses AF_UNIX sockets, [1] leaves them (unix_sockets = all, or the
 * monitor refuses and reports them). */
extern const struct sock_fprog filters_main[2];
/* With the monitor on, the one filter: the main rules of filters_main[1] (AF_UNIX is the
 * monitor's) and its notify rules, [level * 2 + (flags & NOTIFY_UNIX)]; len 0 for
 * MONITOR_OFF. */
extern const struct sock_fprog filters_notify[8];

/* The monitor's syscall numbers, resolved by libseccomp at build time so the front end does
 * not link it: [0] the native ABI, [1] the second one the filters hold (x86 beside x86_64;
 * else the native one again). nr[i] is the number of notify_calls()[i], -1 where the ABI
 * lacks it; socketcall is -1 where the ABI has none. */
#define FILTERS_CALLS_MAX 64
struct filters_arch {
	uint32_t arch; /* AUDIT_ARCH_* as seccomp_data.arch holds it */
	int16_t socketcall;
	int16_t nr[FILTERS_CALLS_MAX];
};
extern const struct filters_arch filters_arches[2];

#endif
