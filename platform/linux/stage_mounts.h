/* stage_mounts — the mounts the stage makes itself, inside the sandbox, before it drops its
 * capabilities (root's sandbox: bwrap.c says which, sbxsh-stage makes them).
 *
 * Why: bwrap 0.8 reads and parses the whole /proc/self/mountinfo after every bind and
 * remount (~0.15 ms each); root's sandbox needs about twenty of them for the system's
 * secrets and the kernel knobs. The stage makes the same mounts with open_tree, move_mount
 * and mount_setattr, reading no table.
 */
#ifndef SBX_LINUX_STAGE_MOUNTS_H
#define SBX_LINUX_STAGE_MOUNTS_H
#include <stdbool.h>
#include <stddef.h>

enum stage_mount_kind {
	STAGE_MASK_FILE, /* an empty read-only file (0600, the sandbox's uid) over path */
	STAGE_MASK_DIR,	 /* an empty read-only tmpfs (0755) over path */
	STAGE_RO,	 /* path, with everything mounted beneath it, read-only */
};

struct stage_mount {
	enum stage_mount_kind kind;
	const char *path; /* absolute, as the sandbox sees it; no link in its last component */
};

/* Makes v[0..n) in order, then the marker (text bound read-only at marker, when marker is
 * not NULL), then /dev read-only (dev_ro; not recursive, as bwrap's --remount-ro). Every
 * mount is nosuid, nodev and read-only before it is attached. Needs CAP_SYS_ADMIN over the
 * sandbox's mount namespace. Returns 0, or -errno with *failed naming the path. */
int stage_mounts_make(const struct stage_mount *v, size_t n, const char *marker,
		      const char *marker_text, bool dev_ro, const char **failed);

/* The front end: whether this kernel has the calls stage_mounts_make uses (open_tree,
 * move_mount: 5.2; mount_setattr: 5.12) and lets this process make them. */
bool stage_mounts_supported(void);

#endif
