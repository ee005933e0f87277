/* landlock — the stage's kernel layer under the guard: the sandbox's own system calls make,
 * remove, rename, link and open for writing no name at all (docs/monitor.md "The guard").
 *
 * Rules kept here:
 * - Every such call of the command's is the guard's, which performs it from outside the
 *   sandbox (the front end is under no landlock domain): so the domain grants nothing, and
 *   only a change of a name the kernel would make for the sandbox with no call the guard sees
 *   is refused by it (a core dump's `core`, unlinked then made in the cwd), or one of a call
 *   the filter would miss.
 * - Read, execute, truncate and device ioctls are not handled: a descriptor the guard opened
 *   keeps every right (landlock judges a file when it is opened, by its opener).
 * - Fail closed: a kernel that offers landlock and refuses the domain stops the stage; where
 *   it offers none (or a container's filter hides it) the one known way is closed instead (no
 *   core file: RLIMIT_CORE 0, both).
 */
#include <errno.h>
#include <linux/landlock.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "platform/sandbox.h"

/* landlock_ruleset_attr as of ABI 6 (Linux 6.12): the scopes, which older headers lack. A
 * kernel is given the size its ABI knows. */
struct sbx_ruleset_attr {
	__u64 handled_access_fs;
	__u64 handled_access_net;
	__u64 scoped;
};
#define SBX_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SBX_SCOPE_SIGNAL	       (1ULL << 1)

int sandbox_names_lock(void)
{
	struct sbx_ruleset_attr a = {
	    .handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
				 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
				 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
				 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
				 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM,
	};
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int fd, r = 0;

	/* ENOSYS (not built), EOPNOTSUPP (not enabled), or a container's own filter refusing an
	 * unknown call (EPERM): no landlock to ask for, so the one known way is closed instead */
	if (abi < 1) {
		struct rlimit none = {0, 0};

		return setrlimit(RLIMIT_CORE, &none) < 0 ? -errno : 1;
	}
	/* ABI 1 refuses a rename or link across directories whatever is handled; 2 names it */
	if (abi >= 2)
		a.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	/* ABI 6: no connect or send to an abstract unix socket bound outside the sandbox (a
	 * datagram socket the caller passed reached every abstract name of the caller's network
	 * namespace), no signal to a process outside it (the listen relay, started before) */
	if (abi >= 6)
		a.scoped = SBX_SCOPE_ABSTRACT_UNIX_SOCKET | SBX_SCOPE_SIGNAL;
	fd = (int)syscall(SYS_landlock_create_ruleset, &a,
			  abi >= 6   ? sizeof(a)
			  : abi >= 4 ? offsetof(struct sbx_ruleset_attr, scoped)
				     : offsetof(struct sbx_ruleset_attr, handled_access_net),
			  0);
	if (fd < 0)
		return -errno;
	/* NO_NEW_PRIVS is set (sandbox_caps_drop) */
	if (syscall(SYS_landlock_restrict_self, fd, 0) < 0)
		r = -errno;
	close(fd);
	return r;
}
