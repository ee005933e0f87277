/* caps — the stage drops every capability, the bounding set included (libcap-ng).
 *
 * Rules kept here:
 * - A capability still held after the drop is an error (fail closed); a bounding set that
 *   cannot be emptied only because CAP_SETPCAP is gone was already emptied by bwrap.
 * - The bounding set is read back: one left there (CAP_SYS_ADMIN, which bwrap leaves the
 *   stage for its mounts) is an error too.
 * - Few system calls (each is a hypervisor exit on a paravirtualized guest): the bounding set
 *   is asked once per capability and only what is still there is dropped and asked again
 *   (bwrap leaves two), instead of libcap-ng's blind drop of all ~41 and its three reads of
 *   /proc/PID/status for CAPNG_SELECT_BOUNDS; the other sets are libcap-ng's one capset.
 */
#include <cap-ng.h>
#include <errno.h>
#include <sys/prctl.h>

#include "platform/sandbox.h"

/* Empties the bounding set, before the capset below takes CAP_SETPCAP (dropping needs it). */
static int bounding_drop(void)
{
	for (int c = 0;; c++) {
		int in = prctl(PR_CAPBSET_READ, c, 0, 0, 0);
		if (in < 0)
			return errno == EINVAL && c > 0 ? 0 : -errno; /* past the kernel's last */
		if (in == 0)
			continue;
		/* still there: dropped, or the drop failed because bwrap already took
		 * CAP_SETPCAP — then the read-back says it is still held */
		(void)prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) != 0)
			return -EPERM;
	}
}

int sandbox_caps_drop(void)
{
	int r = bounding_drop();

	/* effective, permitted and inheritable: one capset; ambient follows permitted down */
	capng_clear(CAPNG_SELECT_CAPS);
	if (r == 0 && capng_apply(CAPNG_SELECT_CAPS) != 0) {
		capng_get_caps_process();
		if (capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE)
			r = -EPERM;
	}
	/* ambient: emptied by the capset above; said once more (EINVAL: a kernel without) */
	if (r == 0 && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 &&
	    errno != EINVAL)
		r = -errno;
	if (r == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		r = -errno;
	return r;
}
