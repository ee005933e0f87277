/* filters — the stage's seccomp programs, compiled by libseccomp at build time (bpfgen). */
#ifndef SBX_FILTERS_H
#define SBX_FILTERS_H
#include <linux/filter.h>

/* The main filter: [0] refuses AF_UNIX sockets, [1] leaves them (unix_sockets = all, or the
 * monitor refuses and reports them). */
extern const struct sock_fprog filters_main[2];
/* The monitor's notify filter: [level * 2 + (flags & NOTIFY_UNIX)]; len 0 for MONITOR_OFF. */
extern const struct sock_fprog filters_notify[8];

#endif
