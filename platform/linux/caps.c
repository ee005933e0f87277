/* caps — the stage drops every capability, the bounding set included (libcap-ng).
 *
 * Rules kept here:
 * - A capability still held after the drop is an error (fail closed); a bounding set that
 *   cannot be emptied only because CAP_SETPCAP is gone was already emptied by bwrap.
 * - The bounding set is read back: one left there (CAP_SYS_ADMIN, which bwrap leaves the
 *   stage for its mounts) is an error too.
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
	for (int c = 0; r == 0; c++) {
		int in = prctl(PR_CAPBSET_READ, c, 0, 0, 0);
		if (in < 0)
			break; /* EINVAL: past the kernel's last capability */
		if (in > 0)
			r = -EPERM;
	}
	if (r == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		r = -errno;
	return r;
}
