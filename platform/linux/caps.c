/* caps — the stage drops every capability, the bounding set included (libcap-ng).
 *
 * Rules kept here:
 * - A capability still held after the drop is an error (fail closed); a bounding set that
 *   cannot be emptied only because CAP_SETPCAP is gone was already emptied by bwrap.
 * - Every set is read back (libcap-ng): one left in the bounding set (CAP_SYS_ADMIN, which
 *   bwrap leaves the stage for its mounts) or the ambient set is an error too.
 */
#include <cap-ng.h>
#include <errno.h>
#include <sys/prctl.h>

#include "platform/sandbox.h"

int sandbox_caps_drop(void)
{
	capng_clear(CAPNG_SELECT_ALL);
	/* Dropping the bounding set needs CAP_SETPCAP; bwrap already emptied it when we lack
	 * that, so an error is only real if a capability is still there: read back (the
	 * bounding and ambient sets from one read of /proc/self/status, not a prctl each). */
	(void)capng_apply(CAPNG_SELECT_ALL);
	if (capng_get_caps_process() != 0 ||
	    capng_have_capabilities(CAPNG_SELECT_ALL) != CAPNG_NONE)
		return -EPERM;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -errno;
	return 0;
}
