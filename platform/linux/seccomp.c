/* seccomp — the stage's syscall filter, as a table (compiled by libseccomp at build time).
 *
 * Rules kept here:
 * - The default is allow; each row refuses one escape with EPERM (clone3 with ENOSYS, so
 *   libc falls back to clone, whose flags the filter can read).
 * - Every native arch and its compat ABIs carry the same rows (x86_64 + x86 + x32): the
 *   32-bit syscall table must not be a way around the 64-bit one. Other arches are killed.
 * - int arguments (the ioctl request, socket's family, socketcall's call) are compared on
 *   their low 32 bits (SCMP_CMP_MASKED_EQ): the kernel truncates them to an int, so a plain
 *   64-bit compare is bypassed by setting high bits.
 * - The filter is installed after NO_NEW_PRIVS and inherited by everything the shell runs.
 * - libseccomp compiles these rules at build time (bpfgen_main.c); filters.c loads the result.
 */
#include "platform/sandbox.h"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

enum arg_test {
	ANY,	  /* the call itself */
	A0_LOW32, /* first argument's low 32 bits equal val (an int argument) */
	A0_HAS,	  /* first argument has the bits of val */
	A1_LOW32, /* second argument's low 32 bits equal val */
};

struct rule {
	const char *name; /* resolved per arch by libseccomp; unknown on an arch: skipped */
	enum arg_test test;
	unsigned long val;
	int err;
	bool unix_rule; /* lifted by unix_sockets = all */
};

static const struct rule rules[] = {
    /* Unix sockets reach host daemons (docker, ssh-agent, tmux) */
    {"socket", A0_LOW32, AF_UNIX, EPERM, true},
    /* Terminal injection into the caller's shell */
    {"ioctl", A1_LOW32, TIOCSTI, EPERM, false},
    {"ioctl", A1_LOW32, TIOCLINUX, EPERM, false},
    /* New user namespaces: a way back to capabilities and mount rights */
    {"unshare", A0_HAS, CLONE_NEWUSER, EPERM, false},
    {"clone", A0_HAS, CLONE_NEWUSER, EPERM, false},
    {"clone3", ANY, 0, ENOSYS, false},
    /* The mount table stays as bwrap made it */
    {"mount", ANY, 0, EPERM, false},
    {"umount2", ANY, 0, EPERM, false},
    {"pivot_root", ANY, 0, EPERM, false},
    {"move_mount", ANY, 0, EPERM, false},
    {"open_tree", ANY, 0, EPERM, false},
    {"fsopen", ANY, 0, EPERM, false},
    {"fsconfig", ANY, 0, EPERM, false},
    {"fsmount", ANY, 0, EPERM, false},
    {"fspick", ANY, 0, EPERM, false},
    {"mount_setattr", ANY, 0, EPERM, false},
    {"setns", ANY, 0, EPERM, false},
    /* Kernel attack surface no command needs */
    {"keyctl", ANY, 0, EPERM, false},
    {"add_key", ANY, 0, EPERM, false},
    {"request_key", ANY, 0, EPERM, false},
    {"bpf", ANY, 0, EPERM, false},
    {"perf_event_open", ANY, 0, EPERM, false},
    {"io_uring_setup", ANY, 0, EPERM, false},
    {"io_uring_enter", ANY, 0, EPERM, false},
    {"io_uring_register", ANY, 0, EPERM, false},
    {"kexec_load", ANY, 0, EPERM, false},
    {"kexec_file_load", ANY, 0, EPERM, false},
    {"init_module", ANY, 0, EPERM, false},
    {"finit_module", ANY, 0, EPERM, false},
    {"delete_module", ANY, 0, EPERM, false},
};

static int add_rule(scmp_filter_ctx ctx, const struct rule *r)
{
	int nr = seccomp_syscall_resolve_name(r->name);
	uint32_t act = SCMP_ACT_ERRNO((uint32_t)r->err);

	if (nr == __NR_SCMP_ERROR)
		return 0;
	switch (r->test) {
	case ANY:
		return seccomp_rule_add(ctx, act, nr, 0);
	case A0_LOW32:
		return seccomp_rule_add(ctx, act, nr, 1,
					SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffUL, r->val));
	case A0_HAS:
		return seccomp_rule_add(ctx, act, nr, 1,
					SCMP_A0(SCMP_CMP_MASKED_EQ, r->val, r->val));
	case A1_LOW32:
		return seccomp_rule_add(ctx, act, nr, 1,
					SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, r->val));
	}
	return -EINVAL;
}

/* 32-bit x86 may create sockets through socketcall(SYS_SOCKET, args*), whose domain sits in
 * memory the filter cannot read: refuse that form outright (direct socket() is filtered). */
static int add_socketcall(scmp_filter_ctx ctx)
{
	int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86, "socketcall");

	if (nr == __NR_SCMP_ERROR || seccomp_arch_exist(ctx, SCMP_ARCH_X86) != 0)
		return 0;
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
				SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffUL, 1));
}

int sandbox_seccomp_prepare(void *ctx)
{
	/* A binary tree over syscall numbers, not a chain: the kernel runs the program once per
	 * syscall number and ABI when it loads it (its allow cache), so a chain's length was
	 * paid ~900 times per load: ~280 µs a filter on the VM measured, ~56 µs as a tree. */
	int r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);

	if (r < 0)
		return r;

	if (seccomp_arch_native() == SCMP_ARCH_X86_64) {
		r = seccomp_arch_add(ctx, SCMP_ARCH_X86);
		if (r == 0 || r == -EEXIST)
			r = seccomp_arch_add(ctx, SCMP_ARCH_X32);
		if (r == -EEXIST)
			r = 0;
	}
	return r;
}

int sandbox_seccomp_rules(void *ctx, bool unix_all)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < sizeof(rules) / sizeof(rules[0]); i++)
		if (!(rules[i].unix_rule && unix_all))
			r = add_rule(ctx, &rules[i]);
	if (r == 0 && !unix_all)
		r = add_socketcall(ctx);
	return r;
}
