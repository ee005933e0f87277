/* caps — the stage drops every capability, the bounding set included (libcap-ng).
 *
 * Rules kept here:
 * - A capability still held after the drop is an error (fail closed); a bounding set that
 *   cannot be emptied only because CAP_SETPCAP is gone was already emptied by bwrap.
 */
#include <cap-ng.h>
#include <errno.h>
#include <sys/prctl.h>

#include "platform/sandbox.h"

int sandbox_caps_drop(void)
{
	int r = 0;

	capng_clear(CAPNG_SELECT_ALL);
	/* Dropping the bounding set needs CAP_SETPCAP; bwrap already emptied it when we lack
	 * that, so an error is only real if a capability is still there. */
	if (capng_apply(CAPNG_SELECT_ALL) != 0) {
		capng_get_caps_process();
		if (capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE)
			r = -EPERM;
	}
	if (r == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		r = -errno;
	return r;
}
