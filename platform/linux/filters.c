/* filters — the stage loads its seccomp filter, as libseccomp compiled it at build time
 * (bpfgen_main.c → filters.h): the main rules alone, or with the monitor on, the main rules
 * and the monitor's notify rules in one program.
 *
 * Rules kept here:
 * - NO_NEW_PRIVS is set before the filter, whatever bwrap did.
 * - The notify filter's listener leaves the sandbox and is closed here before anything the
 *   stage runs could inherit it: a listener left inside lets the command answer its own
 *   notifications.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "platform/linux/filters.h"
#include "platform/linux/notify.h"
#include "platform/sandbox.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
/* The guard performs calls: once the front end took one, a signal must not make the kernel
 * restart it (the call would run twice), so the command waits killable only. */
#define NOTIFY_LOAD_FLAGS                                                                          \
	(SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)

static int load(const struct sock_fprog *prog, unsigned flags)
{
	if (!prog->len)
		return -EINVAL;
	long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
	return r < 0 ? -errno : (int)r;
}

int sandbox_seccomp_install(bool unix_all)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	int r = load(&filters_main[unix_all ? 1 : 0], 0);
	return r < 0 ? r : 0;
}

int sandbox_seccomp_install_shell(void)
{
	int r = load(&filters_shell[0], 0);
	return r < 0 ? r : 0;
}

int notify_stage_install(const struct notify_stage *st)
{
	int r = -EINVAL, lfd = -1;
	unsigned v = (unsigned)st->level * 2 + ((st->flags & NOTIFY_UNIX) ? 1 : 0);
	const struct sock_fprog *prog = NULL;

	if (st->flags & NOTIFY_GUARD)
		prog = &filters_guard[(st->flags & NOTIFY_UNIX) ? 0 : 1];
	else if (st->level > MONITOR_OFF && v < sizeof(filters_notify) / sizeof(filters_notify[0]))
		prog = &filters_notify[v];
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		r = -errno;
	else if (prog)
		r = lfd = load(prog, NOTIFY_LOAD_FLAGS);
	/* before 5.19: no WAIT_KILLABLE_RECV (a signal may then re-run a call the guard made) */
	if (r == -EINVAL && prog)
		r = lfd = load(prog, SECCOMP_FILTER_FLAG_NEW_LISTENER);
	if (r >= 0)
		r = notify_fd_send(st->fd, lfd);
	if (lfd >= 0)
		close(lfd);
	close(st->fd);
	return r < 0 ? r : 0;
}
