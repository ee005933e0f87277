/* fds — descriptor housekeeping on Linux: close_range(2), which not every C library wraps. */
#include "platform/fds.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int sbx_close_from(int lowfd)
{
	struct rlimit rl;

	if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -errno;
	/* before 5.9: every descriptor below the limit */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	for (rlim_t fd = (rlim_t)lowfd; fd < rl.rlim_cur && fd < 65536; fd++)
		close((int)fd);
	return 0;
}
