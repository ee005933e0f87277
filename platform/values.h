/* values — a configured value with the place it came from, the form in which the policy
 * hands its lists to the layers below (platform/sandbox.h's request); shell/policy.h makes
 * them. No functions: plain data.
 */
#ifndef SBX_VALUES_H
#define SBX_VALUES_H
#include <stdbool.h>
#include <stddef.h>

/* One value with the place it came from. */
struct pol_value {
	char
	    *value; /* owned; expanded: paths absolute (glob characters kept), domains lowercased */
	const char *file; /* interned, owned by the struct policy; "<embedded>" for the default */
	unsigned line;
	unsigned hash; /* of value (shell/profile.c list_add: a list's duplicates found by it) */
	bool absent;   /* a path the resolver's lstat just found missing (path_canon_absent): the
			* plan made right after it skips its own lstat; false when not known */
	bool var;      /* a $VARIABLE's value named it (the caller's environment), no literal
			* of the policy did (platform/linux/mounts.c var_names_sandbox) */
};

struct pol_list {
	struct pol_value *v;
	size_t n, cap;
	/* shell/profile.c's duplicate index: open addressing on hash, slots hold an index + 1.
	 * Trusted only while ixn == n (ixn is set to SIZE_MAX by anything that removes a value;
	 * code that changes v another way sets it so too, or leaves n != ixn). */
	unsigned *ix;
	size_t ixcap, ixn;
};

/* A tmpfs size: bytes, or a percentage of the physical memory (pct 1-100, bytes 0). */
struct pol_size {
	unsigned long long bytes;
	unsigned pct;
};

#endif
