/* notify_rules — the monitor's calls as libseccomp NOTIFY rules. Used at build time
 * (bpfgen compiles them into filters.h) and by tests; the stage itself never links
 * libseccomp.
 *
 * Rules kept here:
 * - int arguments (socket's family) are compared on their low 32 bits, as the kernel reads
 *   them; open flags are tested bit by bit (libseccomp has no "masked !=").
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <seccomp.h>

#include "platform/linux/filters.h"
#include "platform/linux/notify.h"

/* One NOTIFY rule per write bit: libseccomp ORs rules of one call, and has no "masked !=". */
static int add_write_opens(scmp_filter_ctx ctx, int nr, unsigned arg)
{
	static const unsigned bits[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND};
	int r = 0;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]) && r == 0; i++) {
		struct scmp_arg_cmp c = SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, bits[i], bits[i]);

		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1, c);
	}
	return r;
}

/* ctx holds the native ABI alone (filters_build's native half): a pseudo number (a call
 * only other ABIs have, stat64) would be a row that never matches. */
static bool native_only(scmp_filter_ctx ctx)
{
	uint32_t c = sandbox_seccomp_compat_arch();

	return seccomp_arch_exist(ctx, seccomp_arch_native()) == 0 &&
	       (!c || seccomp_arch_exist(ctx, c) != 0);
}

static int add_call(scmp_filter_ctx ctx, const struct notify_call *c, enum monitor_level level,
		    unsigned flags)
{
	int nr = seccomp_syscall_resolve_name(c->name);

	if (nr == __NR_SCMP_ERROR || (nr < 0 && native_only(ctx)))
		return 0; /* no such call on any architecture ctx holds */
	if (c->op == NOP_UNIX) {
		if (!(flags & NOTIFY_UNIX))
			return 0;
		/* the family is an int: compare the low 32 bits, as the kernel reads it */
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
					SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffUL, AF_UNIX));
	}
	if (level < c->level || ((flags & NOTIFY_GUARD) && !notify_guarded(c)))
		return 0;
	/* the sandbox's own rule refuses clone(CLONE_NEWUSER): the two must not overlap */
	if (c->op == NOP_NOTE && strcmp(c->name, "clone") == 0)
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
					SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, 0));
	/* fchmod with every mode: a descriptor may be a device node (the caller's terminal on
	 * 0-2, which 0644 opened to every local user; as root the host's /dev/null, which 0600
	 * closed to every other user), and BPF cannot tell a descriptor's file type. The guard
	 * refuses a device node's and performs the rest (tar as root fchmods each file: one round
	 * trip more, beside the utimensat it makes already). */
	if (c->op == NOP_OPEN && !c->openat2 && level < MONITOR_FULL)
		return add_write_opens(ctx, nr, c->flags);
	if (c->op == NOP_READ && c->flags != NOTIFY_NOARG) /* not fstat's "" + AT_EMPTY_PATH */
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
					SCMP_CMP(c->flags, SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, 0));
	return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
}

int notify_rules_add(scmp_filter_ctx ctx, enum monitor_level level, unsigned flags)
{
	unsigned ncalls;
	const struct notify_call *calls = notify_calls(&ncalls);
	int r = 0;

	if (level == MONITOR_OFF)
		return 0;
	for (size_t i = 0; i < ncalls && r == 0; i++) {
		r = add_call(ctx, &calls[i], level, flags);
		if (r == -EDOM || r == -EOPNOTSUPP)
			r = 0; /* the call does not exist on one of ctx's architectures */
	}
	return r;
}
