/* seccomp — the stage's syscall filter, as a table (compiled by libseccomp at build time).
 *
 * Rules kept here:
 * - The default is allow; each row refuses one escape with EPERM (clone3 with ENOSYS, so
 *   libc falls back to clone, whose flags the filter can read).
 * - Every ABI the kernel lets a process call into carries the same rows: the native one and
 *   its compat one (x86_64 + i386 through int 0x80; aarch64 + arm): a second syscall table
 *   must not be a way around the first. i386's socketcall(SYS_SOCKET/SOCKETPAIR, args*)
 *   hides its arguments in memory the filter cannot read: refused outright. Any other ABI (x32's
 *   0x40000000 | nr on x86_64, an arch the filter does not hold) is refused whole: EPERM
 *   (libseccomp's bad-arch action), so the refusal is the filter's, not the kernel's lack.
 * - Socket families are an allowlist: inet, inet6, netlink (route and sock_diag only), unix
 *   as granted; socketpair for AF_UNIX only, always (a connected pair reaches no one).
 * - int arguments (the ioctl request, socket's family and protocol, socketcall's call) are
 *   compared on their low 32 bits (SCMP_CMP_MASKED_EQ), or as 64-bit "≥" whose high bits
 *   refuse too: the kernel truncates them to an int, so a plain 64-bit compare is bypassed
 *   by setting high bits.
 * - The filter is installed after NO_NEW_PRIVS and inherited by everything the shell runs.
 * - libseccomp compiles these rules at build time (bpfgen_main.c); filters.c loads the result.
 */
#include "platform/sandbox.h"
#include "platform/linux/filters.h"
#include "platform/linux/notify.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef TIOCVHANGUP
#define TIOCVHANGUP 0x5437
#endif
#ifndef TIOCSRS485
#define TIOCSRS485 0x542F
#endif
/* chattr's ioctls: FS_IOC_SETFLAGS (_IOW('f', 2, long); 4 bytes on i386, FS_IOC32_SETFLAGS),
 * FS_IOC_FSSETXATTR (_IOW('X', 32, struct fsxattr)), FS_IOC_ENABLE_VERITY (_IOW('f', 133,
 * struct fsverity_enable_arg)) */
#define SBX_FS_IOC_SETFLAGS	 0x40086602UL
#define SBX_FS_IOC32_SETFLAGS	 0x40046602UL
#define SBX_FS_IOC_FSSETXATTR	 0x401c5820UL
#define SBX_FS_IOC_ENABLE_VERITY 0x40806685UL
/* _IOWR('T', 0x43, struct serial_iso7816): 40 bytes (Linux 4.20) */
#define SBX_TIOCSISO7816 0xC0285443UL
#ifndef FIOASYNC
#define FIOASYNC 0x5452
#endif
#ifndef O_ASYNC
#define O_ASYNC 020000
#endif

/* Which ABIs a row is for, and when it is left out. */
enum rule_when {
	R_ALL,	    /* every ABI */
	R_UNIX,	    /* every ABI, unless AF_UNIX is granted or (native ABI) the monitor's */
	R_COMPAT,   /* the compat ABI only (its socketcall) */
	R_UNIXPAIR, /* every ABI, unless AF_UNIX is granted (the monitor reports no pair) */
	R_SHELL,    /* every ABI, in the shell filter only (filters_shell) */
};

#define MAXCMP 2
struct rule {
	const char *name; /* resolved per arch by libseccomp; unknown on an arch: skipped */
	uint8_t when;	  /* enum rule_when */
	uint8_t ncmp;
	int err;
	struct scmp_arg_cmp cmp[MAXCMP]; /* all must hold (libseccomp ANDs them) */
};

/* An int argument's low 32 bits equal v; its low 32 bits, masked, equal v; an argument ≥ v
 * compared on all 64 bits (any high bit set counts as large); an argument has v's bits. */
/* clang-format off */
#define LOW32(a, v)	{(a), SCMP_CMP_MASKED_EQ, 0xffffffffUL, (v)}
#define LOW32M(a, m, v)	{(a), SCMP_CMP_MASKED_EQ, (m), (v)}
#define GE64(a, v)	{(a), SCMP_CMP_GE, (v), 0}
#define HAS(a, v)	{(a), SCMP_CMP_MASKED_EQ, (v), (v)}
#define EQ(a, v)	{(a), SCMP_CMP_EQ, (v), 0}
#define R0(n, e)	{(n), R_ALL, 0, (e), {{0}}}
#define R1(n, w, e, c)	{(n), (w), 1, (e), {c}}
#define R2(n, e, c, d)	{(n), R_ALL, 2, (e), {c, d}}
#define R2W(n, w, e, c, d)	{(n), (w), 2, (e), {c, d}}

/* Every socket family but AF_UNIX 1 (its own row), AF_INET 2, AF_INET6 10 and AF_NETLINK 16:
 * 0, 3, 4-7, 8-9, 11, 12-15 and >= 17 (AF_PACKET, AF_ALG, AF_VSOCK, AF_BLUETOOTH, every
 * family a later kernel adds). */
#define FAMILIES(n) \
	R1(n, R_ALL, EPERM, GE64(0, AF_NETLINK + 1)), \
	R1(n, R_ALL, EPERM, LOW32(0, 0)), \
	R1(n, R_ALL, EPERM, LOW32(0, 3)), \
	R1(n, R_ALL, EPERM, LOW32M(0, 0xfffffffcUL, 4)), \
	R1(n, R_ALL, EPERM, LOW32M(0, 0xfffffffeUL, 8)), \
	R1(n, R_ALL, EPERM, LOW32(0, 11)), \
	R1(n, R_ALL, EPERM, LOW32M(0, 0xfffffffcUL, 12))
/* An inet or inet6 socket's protocol other than 0, ICMP 1 (ping sockets), TCP 6, UDP 17,
 * ICMPv6 58 and MPTCP 262 (Go 1.24 listens with it by default): SCTP, DCCP, UDP-Lite, L2TP,
 * SMC over inet… — kernel code few run, which a distribution's kernel loads as a module at
 * the first socket() of that protocol, for any user. High bits set count as large. AF_INET 2
 * and AF_INET6 10 are one masked comparison (bit 3 left out). */
#define INET46 LOW32M(0, 0xfffffff7UL, AF_INET)
#define INET_PROTOS(n) \
	R2(n, EPERM, INET46, LOW32M(2, 0xfffffffeUL, 2)), \
	R2(n, EPERM, INET46, LOW32M(2, 0xfffffffeUL, 4)), \
	R2(n, EPERM, INET46, LOW32(2, 7)), \
	R2(n, EPERM, INET46, LOW32M(2, 0xfffffff8UL, 8)), \
	R2(n, EPERM, INET46, LOW32(2, 16)), \
	R2(n, EPERM, INET46, LOW32M(2, 0xfffffffeUL, 18)), \
	R2(n, EPERM, INET46, LOW32M(2, 0xfffffffcUL, 20)), \
	R2(n, EPERM, INET46, LOW32M(2, 0xfffffff8UL, 24)), \
	R2(n, EPERM, INET46, LOW32M(2, 0xfffffff0UL, 32)), \
	R2(n, EPERM, INET46, LOW32M(2, 0xfffffff8UL, 48)), \
	R2(n, EPERM, INET46, LOW32M(2, 0xfffffffeUL, 56)), \
	R2(n, EPERM, INET46, LOW32(2, 59)), \
	R2(n, EPERM, INET46, LOW32M(2, 0xfffffffcUL, 60)), \
	R2(n, EPERM, INET46, LOW32M(2, 0xffffffc0UL, 64)), \
	R2(n, EPERM, INET46, LOW32M(2, 0xffffff80UL, 128)), \
	R2(n, EPERM, INET46, LOW32M(2, 0xfffffffcUL, 256)), \
	R2(n, EPERM, INET46, LOW32M(2, 0xfffffffeUL, 260)), \
	R2(n, EPERM, INET46, GE64(2, 263))
/* clang-format on */

static const struct rule rules[] = {
    /* Unix sockets reach host daemons (docker, ssh-agent, tmux) */
    R1("socket", R_UNIX, EPERM, LOW32(0, AF_UNIX)),
    /* Families no command needs, and kernel code few run: raw packets, vsock to the
     * hypervisor (not per network namespace), bluetooth, the crypto API... */
    FAMILIES("socket"),
    /* a pair is AF_UNIX's alone (other families create their sockets, then fail) */
    R1("socketpair", R_ALL, EPERM, GE64(0, AF_UNIX + 1)),
    R1("socketpair", R_ALL, EPERM, LOW32(0, 0)),
    /* ...a stream or seqpacket one: a datagram end may sendto() or connect() any datagram
     * socket it names (/dev/log, journald's), and SOCK_RAW is a datagram one to AF_UNIX
     * (types 2 and 3: the low 4 bits, SOCK_NONBLOCK/SOCK_CLOEXEC above them) */
    R2W("socketpair", R_UNIXPAIR, EPERM, LOW32(0, AF_UNIX), LOW32M(1, 0xeUL, SOCK_DGRAM)),
    INET_PROTOS("socket"),
    /* netlink: routes and addresses (getaddrinfo, ip) and socket lists (ss) only; not audit,
     * uevents (the host's devices), netfilter, xfrm, generic netlink's families */
    R2("socket", EPERM, LOW32(0, AF_NETLINK), GE64(2, NETLINK_SOCK_DIAG + 1)),
    R2("socket", EPERM, LOW32(0, AF_NETLINK), LOW32M(2, 0xfffffffeUL, 2)), /* 2, 3 */
    R2("socket", EPERM, LOW32(0, AF_NETLINK), LOW32(2, 1)),
    /* A lease on a file it can open (the user's own, outside every grant too): while it
     * ignores SIGIO, a host program opening that file for writing waits up to
     * lease-break-time (45 s), and the holder learns when the host opens it */
    R1("fcntl", R_ALL, EPERM, LOW32(1, F_SETLEASE)),
    R1("fcntl64", R_ALL, EPERM, LOW32(1, F_SETLEASE)),
    /* Asynchronous I/O signals (O_ASYNC by F_SETFL or FIOASYNC): a terminal's driver makes its
     * foreground process group the owner, so on the caller's terminal (no relay) the user's
     * next line signals processes outside the sandbox — SIGIO, fatal by default, or any
     * signal F_SETSIG names (SIGKILL). An owner a command names itself is one of its own
     * processes (its pid namespace), but the terminal's is not. */
    R2("fcntl", EPERM, LOW32(1, F_SETFL), HAS(2, O_ASYNC)),
    R2("fcntl64", EPERM, LOW32(1, F_SETFL), HAS(2, O_ASYNC)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, FIOASYNC)),
    /* i386's multiplexed socket(): its family is in memory (direct socket() is filtered) */
    R1("socketcall", R_COMPAT, EPERM, EQ(0, SYS_SOCKET)),
    R1("socketcall", R_COMPAT, EPERM, EQ(0, SYS_SOCKETPAIR)),
    /* The terminal beyond the command's own use of it: typing into the caller's shell
     * (TIOCSTI, TIOCLINUX's paste), a line discipline or a console redirect that outlives the
     * command (TIOCSETD, TIOCCONS), hanging it up (TIOCVHANGUP, vhangup), locking its modes;
     * the VT's keyboard and console ioctls ('K' 0x4B00-0x4BFF: key maps and function-key
     * strings, which type for the user, raw and graphics modes; VT_* 0x5600-0x560F: switching
     * consoles), which a process whose controlling terminal is the VT may use without any
     * capability. */
    R1("ioctl", R_ALL, EPERM, LOW32(1, TIOCSTI)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, TIOCLINUX)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, TIOCSETD)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, TIOCCONS)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, TIOCVHANGUP)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, TIOCSLCKTRMIOS)),
    /* ...a serial line's: its modem lines (TIOCMBIS, TIOCMBIC 0x5416-7, TIOCMSET: dropping DTR
     * hangs the line up, as vhangup), a break held on (TIOCSBRK), the port's settings, RS-485
     * and ISO 7816 modes, all of which stay after the command (TIOCMGET, TCSBRK's timed break
     * and tcdrain stay) */
    R1("ioctl", R_ALL, EPERM, LOW32M(1, 0xfffffffeUL, TIOCMBIS)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, TIOCMSET)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, TIOCSBRK)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, TIOCSSERIAL)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, TIOCSRS485)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, SBX_TIOCSISO7816)),
    /* A file's inode flags (chattr: no-dump, sync, no-atime…), its fsxattr and fs-verity
     * (its content read-only for good): by a descriptor the caller passed for reading they
     * reached the host's file on the caller's mount, where the kernel judges them, as chmod's
     * did before the guard took it (the sandbox's read-only mounts refuse them: EROFS) */
    R1("ioctl", R_ALL, EPERM, LOW32(1, SBX_FS_IOC_SETFLAGS)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, SBX_FS_IOC32_SETFLAGS)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, SBX_FS_IOC_FSSETXATTR)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, SBX_FS_IOC_ENABLE_VERITY)),
    /* ...and two more that outlive the command: exclusive mode (every later open of the
     * caller's terminal is EBUSY: sudo, ssh and pinentry prompts) and TCOOFF (its output
     * stopped: the caller's shell hangs on its next write) */
    R1("ioctl", R_ALL, EPERM, LOW32(1, TIOCEXCL)),
    R1("ioctl", R_ALL, EPERM, LOW32(1, TCXONC)),
    R1("ioctl", R_ALL, EPERM, LOW32M(1, 0xffffff00UL, 0x4B00)),
    R1("ioctl", R_ALL, EPERM, LOW32M(1, 0xfffffff0UL, 0x5600)),
    R0("vhangup", EPERM),
    /* A set-user-ID bit given by a descriptor: the file would run as the caller for anyone
     * on the host (chmod by a name, and fchmod with S_ISGID, which a directory may keep, are
     * the guard's) */
    R1("fchmod", R_ALL, EPERM, HAS(1, S_ISUID)),
    /* New user namespaces: a way back to capabilities and mount rights */
    R1("unshare", R_ALL, EPERM, HAS(0, CLONE_NEWUSER)),
    R1("clone", R_ALL, EPERM, HAS(0, CLONE_NEWUSER)),
    R0("clone3", ENOSYS),
    /* The mount table stays as bwrap made it */
    R0("mount", EPERM),
    R0("umount2", EPERM),
    R0("umount", EPERM),
    R0("pivot_root", EPERM),
    R0("move_mount", EPERM),
    R0("open_tree", EPERM),
    R0("fsopen", EPERM),
    R0("fsconfig", EPERM),
    R0("fsmount", EPERM),
    R0("fspick", EPERM),
    R0("mount_setattr", EPERM),
    R0("setns", EPERM),
    /* Kernel attack surface no command needs */
    R0("keyctl", EPERM),
    R0("add_key", EPERM),
    R0("request_key", EPERM),
    R0("bpf", EPERM),
    R0("perf_event_open", EPERM),
    /* user-mode faults need no privilege (UFFD_USER_MODE_ONLY): a way to stall the kernel
     * mid-copy that exploits of kernel races use */
    R0("userfaultfd", EPERM),
    /* fanotify: unprivileged since 5.13 (FAN_REPORT_FID, inode marks); what inotify tells,
     * through more kernel code */
    R0("fanotify_init", EPERM),
    /* A local descriptor table (x86): unprivileged, used by nothing a command needs (16-bit
     * code, old Wine), the kernel code of several exploits; Docker's default refuses it. */
    R0("modify_ldt", EPERM),
    R0("uselib", EPERM),
    R0("io_uring_setup", EPERM),
    R0("io_uring_enter", EPERM),
    R0("io_uring_register", EPERM),
    R0("kexec_load", EPERM),
    R0("kexec_file_load", EPERM),
    R0("init_module", EPERM),
    R0("finit_module", EPERM),
    R0("delete_module", EPERM),
    /* The shell filter (filters_shell): stacked on the one above in a sandbox whose inner
     * shell may switch profiles on cd (shell/cdswitch.c), whose shell the stage starts as pid
     * 2 of the sandbox's pid namespace. What that shell holds (functions, aliases, traps,
     * PROMPT_COMMAND) goes with it into the next profile's sandbox, so a command must not
     * put code in it: no tracer attaches to it, no write reaches its memory (its
     * /proc/2/mem is the guard's: no write to another process's /proc files). A command
     * still traces its own children. Only there: pid 2 is also what `sbxsh -c PROG` runs,
     * and sanitizers and crash reporters attach to their own process. */
    R2W("ptrace", R_SHELL, EPERM, LOW32(0, PTRACE_ATTACH), LOW32(1, 2)),
    R2W("ptrace", R_SHELL, EPERM, LOW32(0, PTRACE_SEIZE), LOW32(1, 2)),
    R1("process_vm_writev", R_SHELL, EPERM, LOW32(0, 2)),
};

/* Calls newer than libseccomp's table may be, by their numbers: since 424 every ABI numbers a
 * new call alike (x86_64, i386, aarch64, arm: asm-generic's table). Each row is added by name
 * where this libseccomp knows it (every ABI), else by number on the native ABI (libseccomp
 * names a compat ABI's calls through the native one's names only). err 0: allowed. The
 * attribute calls answer ENOSYS, so libc and tools fall back to the older calls the guard
 * performs (setxattr, removexattr) or that act on a descriptor; open_tree_attr is refused as
 * open_tree is. */
static const struct newcall {
	const char *name;
	int nr, err;
} newcalls[] = {
    {"statmount", 457, 0},	    {"listmount", 458, 0},
    {"lsm_get_self_attr", 459, 0},  {"lsm_set_self_attr", 460, ENOSYS},
    {"lsm_list_modules", 461, 0},   {"mseal", 462, 0},
    {"setxattrat", 463, ENOSYS},    {"getxattrat", 464, 0},
    {"listxattrat", 465, 0},	    {"removexattrat", 466, ENOSYS},
    {"open_tree_attr", 467, EPERM}, {"file_getattr", 468, ENOSYS},
    {"file_setattr", 469, ENOSYS},
};

/* The highest native number this libseccomp names (456 for 2.5.4 on x86_64). */
static int highest_known(void)
{
	int top = -1;

	for (int nr = 0; nr <= SECCOMP_CEILING; nr++) {
		char *s = seccomp_syscall_resolve_num_arch(seccomp_arch_native(), nr);

		if (s)
			top = nr;
		free(s);
	}
	return top;
}

static const struct newcall *newcall_of(int nr)
{
	for (size_t i = 0; i < sizeof(newcalls) / sizeof(newcalls[0]); i++)
		if (newcalls[i].nr == nr)
			return &newcalls[i];
	return NULL;
}

/* The new calls' rows, and on the native ABI every number above the highest this libseccomp
 * names, up to SECCOMP_CEILING: ENOSYS (a later kernel's call, which no row can judge), but
 * for the new calls known harmless. */
static int newcall_rules(scmp_filter_ctx ctx, bool compat)
{
	int r = 0, top = compat ? SECCOMP_CEILING : highest_known();

	for (size_t i = 0; r == 0 && i < sizeof(newcalls) / sizeof(newcalls[0]); i++) {
		const struct newcall *c = &newcalls[i];
		int nr = seccomp_syscall_resolve_name(c->name);

		if (c->err && nr != __NR_SCMP_ERROR) {
			r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)c->err), nr, 0);
			r = r == -EDOM || r == -EOPNOTSUPP ? 0 : r;
		}
	}
	for (int nr = top + 1; r == 0 && nr <= SECCOMP_CEILING; nr++) {
		const struct newcall *c = newcall_of(nr);

		if (!c || (c->err && seccomp_syscall_resolve_name(c->name) == __NR_SCMP_ERROR))
			r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)(c ? c->err : ENOSYS)),
					     nr, 0);
	}
	return r;
}

/* The one ABI the native one has beside it (0: none): x86_64's i386, aarch64's arm. */
uint32_t sandbox_seccomp_compat_arch(void)
{
	switch (seccomp_arch_native()) {
	case SCMP_ARCH_X86_64:
		return SCMP_ARCH_X86;
	case SCMP_ARCH_AARCH64:
		return SCMP_ARCH_ARM;
	default:
		return 0;
	}
}

/* ctx holds the compat ABI only (filters_build makes one context per ABI). */
static bool is_compat(scmp_filter_ctx ctx)
{
	uint32_t c = sandbox_seccomp_compat_arch();

	return c && seccomp_arch_exist(ctx, c) == 0 &&
	       seccomp_arch_exist(ctx, seccomp_arch_native()) != 0;
}

static int add_rule(scmp_filter_ctx ctx, const struct rule *r)
{
	/* the native numbering, or a pseudo number: libseccomp translates by name per ABI */
	int nr = seccomp_syscall_resolve_name(r->name);
	int rc;

	if (nr == __NR_SCMP_ERROR || (nr < 0 && !is_compat(ctx)))
		return 0; /* a pseudo number: no such call in the native ABI */
	rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO((uint32_t)r->err), nr, r->ncmp, r->cmp);
	return rc == -EDOM || rc == -EOPNOTSUPP ? 0 : rc; /* the ABI lacks the call */
}

int sandbox_seccomp_prepare(void *ctx)
{
	/* A binary tree over syscall numbers, not a chain: the kernel runs the program once per
	 * syscall number and ABI when it loads it (its allow cache), so a chain's length was
	 * paid ~900 times per load: ~280 µs a filter on the VM measured, ~56 µs as a tree. */
	int r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);

	/* an ABI the program does not hold (x32 on x86_64) is refused whole, never run */
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM));
	return r;
}

/* unix_skip: leave out the socket(AF_UNIX) rows (granted, or the monitor's); unix_all:
 * AF_UNIX granted (unix_sockets = all). shell: the R_SHELL rows alone (the shell filter),
 * else every row but those. */
static int rules_add(void *ctx, bool unix_skip, bool unix_all, bool shell)
{
	bool compat = is_compat(ctx);
	int r = 0;

	for (size_t i = 0; r == 0 && i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct rule *x = &rules[i];

		if ((x->when == R_SHELL) != shell || (x->when == R_UNIX && unix_skip) ||
		    (x->when == R_UNIXPAIR && unix_all) || (x->when == R_COMPAT && !compat))
			continue;
		r = add_rule(ctx, x);
	}
	return r == 0 && !shell ? newcall_rules(ctx, compat) : r;
}

int sandbox_seccomp_rules(void *ctx, bool unix_all)
{
	return rules_add(ctx, unix_all, unix_all, false);
}

/* i386's direct socket calls (kernel 4.3+), which libseccomp resolves to socketcall's
 * multiplexed pseudo numbers (its rules still land on them): the ABI's fixed numbers. */
static const struct {
	const char *name;
	int nr;
} x86_socket_calls[] = {
    {"socket", 359},	  {"socketpair", 360},	{"bind", 361},	     {"connect", 362},
    {"listen", 363},	  {"accept4", 364},	{"getsockopt", 365}, {"setsockopt", 366},
    {"getsockname", 367}, {"getpeername", 368}, {"sendto", 369},     {"sendmsg", 370},
    {"recvfrom", 371},	  {"recvmsg", 372},	{"shutdown", 373},
};

int filters_nr(uint32_t arch, const char *name)
{
	int nr = seccomp_syscall_resolve_name_arch(arch, name);

	for (size_t i = 0; nr < 0 && arch == SCMP_ARCH_X86 &&
			   i < sizeof(x86_socket_calls) / sizeof(x86_socket_calls[0]);
	     i++)
		if (strcmp(x86_socket_calls[i].name, name) == 0)
			nr = x86_socket_calls[i].nr;
	return nr < 0 ? -1 : nr;
}

/* One ABI's context: native (seccomp_init's) or compat only. */
static scmp_filter_ctx abi_ctx(uint32_t arch)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r = ctx ? sandbox_seccomp_prepare(ctx) : -ENOMEM;

	if (r == 0 && arch != seccomp_arch_native()) {
		r = seccomp_arch_add(ctx, arch);
		if (r == 0)
			r = seccomp_arch_remove(ctx, seccomp_arch_native());
	}
	if (r < 0 && ctx) {
		seccomp_release(ctx);
		ctx = NULL;
	}
	return ctx;
}

/* The rows of one ABI. AF_UNIX not granted with the monitor on: the native ABI's socket(AF_UNIX)
 * notifies (the monitor reports it, and its answer is EPERM whatever else), every other ABI's
 * is refused here. */
static int abi_rules(scmp_filter_ctx ctx, bool compat, bool unix_all, int level, unsigned nflags)
{
	bool unix_notify = !compat && (nflags & NOTIFY_UNIX);
	int r;

	if (level < 0) /* the shell filter */
		return rules_add(ctx, false, false, true);
	r = rules_add(ctx, unix_all || unix_notify, unix_all, false);

	if (r == 0 && level > MONITOR_OFF)
		r = notify_rules_add(ctx, (enum monitor_level)level,
				     compat ? nflags & ~NOTIFY_UNIX : nflags);
	return r;
}

/* level -1: the shell filter (the R_SHELL rows). */
static int build(void **out, bool unix_all, int level, unsigned nflags)
{
	uint32_t compat = sandbox_seccomp_compat_arch();
	scmp_filter_ctx ctx = abi_ctx(seccomp_arch_native()), cc = NULL;
	int r = ctx ? abi_rules(ctx, false, unix_all, level, nflags) : -ENOMEM;

	if (r == 0 && compat) {
		cc = abi_ctx(compat);
		r = cc ? abi_rules(cc, true, unix_all, level, nflags) : -ENOMEM;
		if (r == 0)
			r = seccomp_merge(ctx, cc);
		if (r == 0)
			cc = NULL; /* merged: released by libseccomp */
	}
	if (cc)
		seccomp_release(cc);
	if (r < 0 && ctx) {
		seccomp_release(ctx);
		ctx = NULL;
	}
	*out = ctx;
	return r;
}

int filters_build(void **out, bool unix_all, int level, unsigned nflags)
{
	return build(out, unix_all, level < MONITOR_OFF ? MONITOR_OFF : level, nflags);
}

int filters_build_shell(void **out)
{
	return build(out, false, -1, 0);
}
