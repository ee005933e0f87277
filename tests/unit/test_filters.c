/* test_filters — the seccomp programs compiled at build time (bpfgen) are exactly what
 * libseccomp makes of the same rule tables now: a stale or mis-generated table fails here.
 * Then the programs themselves, run by a small BPF reader on chosen calls: every ABI refused
 * alike (x32 whole), the socket-family allowlist, the terminal ioctls, and every call a notify
 * program hands the monitor is one its table maps (the monitor refuses any other). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/net.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "platform/linux/filters.h"
#include "platform/linux/notify.h"
#include "platform/sandbox.h"
#include "tests/unit/bpf_run.h"
#include "tests/unit/tap.h"

static void on_segv(int sig)
{
	(void)sig;
	_exit(3);
}

/* sbxsh doctor's IA32 probe (int 0x80 in a child): the child dies of the fault as any program
 * would, whatever SIGSEGV handler the caller has (a sanitizer's, a crash reporter's). */
static void test_ia32_probe(void)
{
	struct sigaction sa = {.sa_handler = on_segv}, old;
	struct sandbox_abis plain, handled;

	sandbox_abis_probe(&plain);
	sigaction(SIGSEGV, &sa, &old);
	sandbox_abis_probe(&handled);
	sigaction(SIGSEGV, &old, NULL);
	if (!plain.ia32) {
		skip("not x86_64", "the IA32 probe");
		return;
	}
	ok(strncmp(plain.ia32, "unknown", 7) != 0, "the IA32 probe answers: %s", plain.ia32);
	is_str(handled.ia32, plain.ia32, "… and the same with a SIGSEGV handler in the caller");
}

/* libseccomp's program for one variant, exported now; *n instructions. */
/* notify -1: the guard's program (monitor = off), variant as main's; 2: the shell filter. */
static struct sock_filter *now(int notify, int variant, size_t *n)
{
	void *c = NULL;
	FILE *f = tmpfile();
	static struct sock_filter buf[8192];
	int r = notify > 1   ? filters_build_shell(&c)
		: notify > 0 ? filters_build(&c, !(variant & 1), variant >> 1,
					     (variant & 1) ? NOTIFY_UNIX : 0)
		: notify < 0 ? filters_build(&c, variant != 0, MONITOR_WRITES, NOTIFY_GUARD)
			     : filters_build(&c, variant != 0, MONITOR_OFF, 0);

	*n = 0;
	if (r < 0 || !f)
		goto out;
	if (seccomp_export_bpf(c, fileno(f)) < 0)
		goto out;
	rewind(f);
	*n = fread(buf, sizeof(buf[0]), sizeof(buf) / sizeof(buf[0]), f);
out:
	if (f)
		fclose(f);
	if (c)
		seccomp_release(c);
	return buf;
}

static void same(const struct sock_fprog *built, int notify, int variant, const char *what)
{
	size_t n;
	struct sock_filter *p = now(notify, variant, &n);

	ok(n > 0 && built->len == n && memcmp(built->filter, p, n * sizeof(*p)) == 0,
	   "%s: the build-time program (%u instructions) is libseccomp's (%zu)", what, built->len,
	   n);
}

/* The build-time syscall numbers are libseccomp's, call by call. */
static void same_numbers(int a, uint32_t arch)
{
	unsigned n, bad = 0;
	const struct notify_call *calls = notify_calls(&n);
	const struct filters_arch *fa = &filters_arches[a];

	for (unsigned i = 0; i < n; i++) {
		int nr = seccomp_syscall_resolve_name_arch(arch, calls[i].name);
		/* i386's socket calls: libseccomp names them by socketcall */
		if (nr < 0 && arch == SCMP_ARCH_X86 && strcmp(calls[i].name, "socket") == 0)
			nr = 359;
		if (nr < 0 && arch == SCMP_ARCH_X86 && strcmp(calls[i].name, "bind") == 0)
			nr = 361;
		bad += fa->nr[i] != (nr < 0 ? -1 : nr);
	}
	int sc = seccomp_syscall_resolve_name_arch(arch, "socketcall");
	ok(fa->arch == arch && bad == 0 && fa->socketcall == (sc < 0 ? -1 : sc) &&
	       n <= FILTERS_CALLS_MAX,
	   "syscall numbers of ABI %d (0x%08x) are libseccomp's", a, arch);
}

/* ---- the programs, run ---- */

#define RET_ALLOW  SECCOMP_RET_ALLOW
#define RET_NOTIFY SECCOMP_RET_USER_NOTIF
#define RET_EPERM  (SECCOMP_RET_ERRNO | 1u)
#define RET_ENOSYS (SECCOMP_RET_ERRNO | 38u)

static uint32_t bpf_run(const struct sock_fprog *p, const struct seccomp_data *d)
{
	return bpf_run_n(p->filter, p->len, d);
}

static uint32_t run(const struct sock_fprog *p, uint32_t arch, int nr, uint64_t a0, uint64_t a1,
		    uint64_t a2)
{
	struct seccomp_data d = {.nr = nr, .arch = arch, .args = {a0, a1, a2}};

	return bpf_run(p, &d);
}

/* Every program of the build: [0..1] main, [2..7] notify; what each grants. */
struct prog {
	const struct sock_fprog *p;
	const char *what;
	bool unix_granted; /* unix_sockets = all */
	bool unix_notify;  /* the native ABI's AF_UNIX goes to the monitor */
};

static size_t progs(struct prog *out)
{
	static char names[8][48];
	size_t n = 0;

	out[n++] = (struct prog){&filters_main[0], "main", false, false};
	out[n++] = (struct prog){&filters_main[1], "main, unix_sockets = all", true, false};
	out[n++] = (struct prog){&filters_guard[0], "guard (off)", false, false};
	out[n++] = (struct prog){&filters_guard[1], "guard (off), unix_sockets = all", true, false};
	for (int v = MONITOR_WRITES * 2; v <= MONITOR_ALL * 2 + 1; v++) {
		snprintf(names[v], sizeof(names[v]), "notify %s%s",
			 notify_level_name((enum monitor_level)(v >> 1)),
			 v & 1 ? "" : ", unix_sockets = all");
		out[n++] = (struct prog){&filters_notify[v], names[v], !(v & 1), v & 1};
	}
	return n;
}

struct abi {
	uint32_t arch;
	int socket, socketpair, ioctl, getuid;
	bool wide; /* 64-bit arguments: high bits the kernel drops are tried too */
};

static const struct abi abis[] = {
    {AUDIT_ARCH_X86_64, 41, 53, 16, 102, true},
    {AUDIT_ARCH_I386, 359, 360, 54, 24, false},
};

/* x32 and an arch the filter does not hold: refused whole, EPERM. */
static void test_other_abis(const struct prog *p)
{
	unsigned bad = 0;

	for (int nr = 0; nr < 1024; nr++) {
		bad += run(p->p, AUDIT_ARCH_X86_64, 0x40000000 | nr, 0, 0, 0) != RET_EPERM;
		bad += run(p->p, AUDIT_ARCH_X86_64, 0x40000000 | nr, 1, 2, 3) != RET_EPERM;
		bad += run(p->p, AUDIT_ARCH_AARCH64, nr, 0, 0, 0) != RET_EPERM;
	}
	is_int(bad, 0, "%s: every x32 call (0x40000000 | nr) and every foreign arch's: EPERM",
	       p->what);
}

/* Calls newer than libseccomp 2.5.4 (457 and up, x86_64's numbers): the harmful ones refused,
 * the harmless ones allowed, every other number up to SECCOMP_CEILING ENOSYS (a later kernel's
 * call), and past it the kernel's own answer (nothing calls there). */
static void test_new_calls(const struct prog *p)
{
	static const int allowed[] = {457, 458, 459, 461, 462, 464, 465};
	static const int nosys[] = {460, 463, 466, 468, 469};
	unsigned bad = 0;

	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		bad += run(p->p, AUDIT_ARCH_X86_64, allowed[i], 0, 0, 0) != RET_ALLOW;
	for (size_t i = 0; i < sizeof(nosys) / sizeof(nosys[0]); i++)
		bad += run(p->p, AUDIT_ARCH_X86_64, nosys[i], 0, 0, 0) != RET_ENOSYS;
	bad += run(p->p, AUDIT_ARCH_X86_64, 467, 0, 0, 0) != RET_EPERM; /* open_tree_attr */
	for (int nr = 470; nr <= SECCOMP_CEILING; nr++)
		bad += run(p->p, AUDIT_ARCH_X86_64, nr, 0, 0, 0) != RET_ENOSYS;
	bad += run(p->p, AUDIT_ARCH_X86_64, SECCOMP_CEILING + 1, 0, 0, 0) != RET_ALLOW;
	bad += run(p->p, AUDIT_ARCH_X86_64, 456, 0, 0, 0) != RET_ALLOW; /* futex_requeue */
	/* fanotify_init, any flags, on both ABIs (x86_64 300, i386 338) */
	bad += run(p->p, AUDIT_ARCH_X86_64, 300, 0x200, 0, 0) != RET_EPERM;
	bad += run(p->p, AUDIT_ARCH_I386, 338, 0x200, 0, 0) != RET_EPERM;
	/* modify_ldt (x86_64 154, i386 123) and uselib (134, 86), any arguments */
	bad += run(p->p, AUDIT_ARCH_X86_64, 154, 1, 0, 0) != RET_EPERM;
	bad += run(p->p, AUDIT_ARCH_I386, 123, 0x11, 0, 0) != RET_EPERM;
	bad += run(p->p, AUDIT_ARCH_X86_64, 134, 0, 0, 0) != RET_EPERM;
	bad += run(p->p, AUDIT_ARCH_I386, 86, 0, 0, 0) != RET_EPERM;
	is_int(bad, 0,
	       "%s: new calls refused or allowed by number, 470..%d ENOSYS; fanotify_init, "
	       "modify_ldt, uselib EPERM",
	       p->what, SECCOMP_CEILING);
}

static uint32_t want_socket(const struct prog *p, const struct abi *b, uint64_t fam, bool pair)
{
	if (pair)
		return fam == AF_UNIX ? RET_ALLOW : RET_EPERM; /* a connected pair reaches no one */
	if (fam == AF_INET || fam == AF_INET6 || fam == AF_NETLINK)
		return RET_ALLOW;
	if ((fam & 0xffffffffu) == AF_UNIX && (fam == AF_UNIX || !p->unix_granted)) {
		if (p->unix_granted)
			return RET_ALLOW;
		if (p->unix_notify && b->arch == AUDIT_ARCH_X86_64)
			return RET_NOTIFY; /* the monitor reports and refuses it */
	}
	return RET_EPERM;
}

static void test_families(const struct prog *p)
{
	for (size_t a = 0; a < sizeof(abis) / sizeof(abis[0]); a++) {
		const struct abi *b = &abis[a];
		unsigned bad = 0, cases = 0;

		for (int pair = 0; pair < 2; pair++)
			for (uint64_t f = 0; f < 300; f++)
				for (int hi = 0; hi < (b->wide ? 3 : 1); hi++) {
					uint64_t fam = f | (hi == 1 ? 1ULL << 32 : 0) |
						       (hi == 2 ? 0xffffffff00000000ULL : 0);
					uint32_t want = want_socket(p, b, fam, pair);
					uint32_t got =
					    run(p->p, b->arch, pair ? b->socketpair : b->socket,
						fam, SOCK_STREAM, 0);

					/* a datagram pair (SOCK_RAW is one) only as granted */
					for (uint64_t ty = SOCK_DGRAM;
					     pair && got == RET_ALLOW && ty <= SOCK_RAW; ty++)
						got = run(p->p, b->arch, b->socketpair, fam,
							  ty | SOCK_CLOEXEC |
							      (b->wide ? 1ULL << 32 : 0),
							  0) != (p->unix_granted ? RET_ALLOW
										 : RET_EPERM)
							  ? 0xbad
							  : got;
					got = pair && got == RET_ALLOW &&
						      run(p->p, b->arch, b->socketpair, fam,
							  SOCK_SEQPACKET | SOCK_NONBLOCK,
							  0) != RET_ALLOW
						  ? 0xbad
						  : got;

					cases++;
					if (got != want && bad++ < 3)
						printf("# %s arch %x %s(%#llx): %#x, want %#x\n",
						       p->what, b->arch,
						       pair ? "socketpair" : "socket",
						       (unsigned long long)fam, got, want);
				}
		/* netlink: NETLINK_ROUTE and NETLINK_SOCK_DIAG only */
		for (uint64_t proto = 0; proto < 40; proto++) {
			uint32_t want = proto == 0 || proto == 4 ? RET_ALLOW : RET_EPERM;

			cases++;
			bad += run(p->p, b->arch, b->socket, AF_NETLINK, SOCK_RAW, proto) != want;
			if (b->wide) {
				cases++;
				bad += run(p->p, b->arch, b->socket, AF_NETLINK, SOCK_RAW,
					   proto | 1ULL << 32) != RET_EPERM;
			}
		}
		/* inet, inet6: IP 0, ICMP 1, TCP 6, UDP 17, ICMPv6 58, MPTCP 262 only */
		for (uint64_t proto = 0; proto < 600; proto++)
			for (int fi = 0; fi < 2; fi++) {
				uint32_t want = proto == 0 || proto == 1 || proto == 6 ||
							proto == 17 || proto == 58 || proto == 262
						    ? RET_ALLOW
						    : RET_EPERM;
				uint64_t fam = fi ? AF_INET6 : AF_INET;

				cases++;
				if (run(p->p, b->arch, b->socket, fam, SOCK_STREAM, proto) !=
					want &&
				    bad++ < 3)
					printf("# %s arch %x socket(%llu, proto %llu)\n", p->what,
					       b->arch, (unsigned long long)fam,
					       (unsigned long long)proto);
				if (b->wide) {
					cases++;
					bad += run(p->p, b->arch, b->socket, fam, SOCK_STREAM,
						   proto | 1ULL << 32) != RET_EPERM;
				}
			}
		cases++;
		bad +=
		    run(p->p, b->arch, b->socket, AF_INET, SOCK_STREAM, 0xffffffffULL) != RET_EPERM;
		is_int(bad, 0,
		       "%s, arch %#x: socket families are an allowlist, and inet protocols (%u "
		       "cases: socket, socketpair, high bits, netlink and inet protocols)",
		       p->what, b->arch, cases);
	}
}

static void test_socketcall(const struct prog *p)
{
	int sc = filters_arches[1].socketcall;
	unsigned bad = 0;

	if (sc < 0) {
		skip("no socketcall in the compat ABI", "%s: i386 socketcall", p->what);
		return;
	}
	bad += run(p->p, AUDIT_ARCH_I386, sc, SYS_SOCKET, 0x1000, 0) != RET_EPERM;
	bad += run(p->p, AUDIT_ARCH_I386, sc, SYS_SOCKETPAIR, 0x1000, 0) != RET_EPERM;
	/* bind goes to the guard (which refuses the multiplexed one): a socketpair's end can be
	 * bound to a path */
	bool bind_guarded = p->p != &filters_main[0] && p->p != &filters_main[1];

	bad += run(p->p, AUDIT_ARCH_I386, sc, SYS_BIND, 0x1000, 0) !=
	       (bind_guarded ? RET_NOTIFY : RET_ALLOW);
	bad += bind_guarded && run(p->p, AUDIT_ARCH_I386, 361, 3, 0x1000, 110) != RET_NOTIFY;
	bad += bind_guarded && run(p->p, AUDIT_ARCH_X86_64, 49, 3, 0x1000, 110) != RET_NOTIFY;
	bad += !bind_guarded && run(p->p, AUDIT_ARCH_X86_64, 49, 3, 0x1000, 110) != RET_ALLOW;
	for (uint64_t call = SYS_CONNECT; call <= SYS_SENDMMSG; call++)
		bad += call != SYS_SOCKETPAIR &&
		       run(p->p, AUDIT_ARCH_I386, sc, call, 0x1000, 0) != RET_ALLOW;
	is_int(bad, 0,
	       "%s: i386 socketcall: SYS_SOCKET and SYS_SOCKETPAIR refused, SYS_BIND %s, the rest "
	       "not",
	       p->what, bind_guarded ? "and bind to the guard" : "not");
}

static void test_ioctls(const struct prog *p)
{
	static const uint32_t refused[] = {TIOCSTI,
					   0x541C /* TIOCLINUX */,
					   TIOCSETD,
					   TIOCCONS,
					   0x5437 /* TIOCVHANGUP */,
					   TIOCSLCKTRMIOS,
					   0x4B00,
					   0x4B33 /* KDGKBTYPE */,
					   0x4B47 /* KDSKBENT */,
					   0x4B49 /* KDSKBSENT */,
					   0x4B4E /* KDSIGACCEPT */,
					   0x4BFF,
					   0x5600,
					   0x5606 /* VT_ACTIVATE */,
					   0x560F,
					   0x5452 /* FIOASYNC */,
					   TIOCMBIS,
					   TIOCMBIC,
					   TIOCMSET,
					   TIOCSBRK,
					   TIOCSSERIAL,
					   0x542F /* TIOCSRS485 */,
					   0xC0285443 /* TIOCSISO7816 */,
					   0x40086602 /* FS_IOC_SETFLAGS */,
					   0x40046602 /* FS_IOC32_SETFLAGS */,
					   0x401c5820 /* FS_IOC_FSSETXATTR */,
					   0x40806685 /* FS_IOC_ENABLE_VERITY */};
	static const uint32_t allowed[] = {TCGETS,
					   TCSETS,
					   TIOCGWINSZ,
					   TIOCSWINSZ,
					   TIOCSPGRP,
					   TIOCGPGRP,
					   TIOCSCTTY,
					   FIONREAD,
					   TIOCGETD,
					   0x5610,
					   0x4C00,
					   0x80044B01,
					   0xC0045600,
					   TIOCMGET,
					   TCSBRK,
					   TIOCCBRK,
					   TIOCGSERIAL,
					   0x542E /* TIOCGRS485 */,
					   0x80086601 /* FS_IOC_GETFLAGS */,
					   0x801c581f /* FS_IOC_FSGETXATTR */};
	unsigned bad = 0;

	for (size_t a = 0; a < sizeof(abis) / sizeof(abis[0]); a++) {
		const struct abi *b = &abis[a];

		for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
			bad += run(p->p, b->arch, b->ioctl, 0, refused[i], 0) != RET_EPERM;
			bad += b->wide && run(p->p, b->arch, b->ioctl, 0,
					      refused[i] | 0xabcd00000000ULL, 0) != RET_EPERM;
		}
		for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
			bad += run(p->p, b->arch, b->ioctl, 0, allowed[i], 0) != RET_ALLOW;
		/* the old socketcall rule resolved 102 as a native number: getuid */
		bad += run(p->p, b->arch, b->getuid, 1, 0, 0) != RET_ALLOW;
	}
	is_int(bad, 0,
	       "%s: terminal ioctls beyond the command's own refused (also with high bits), "
	       "ordinary ones and getuid(1) not",
	       p->what);
}

/* fcntl(F_SETLEASE) refused on each ABI (fcntl, and i386's fcntl64), other commands not. */
static void test_leases(const struct prog *p)
{
	static const struct {
		uint32_t arch;
		int nr;
		bool wide;
	} calls[] = {{AUDIT_ARCH_X86_64, 72, true},
		     {AUDIT_ARCH_I386, 55, false},
		     {AUDIT_ARCH_I386, 221, false}};
	static const uint64_t allowed[] = {1 /* F_GETFD */,
					   3 /* F_GETFL */,
					   4 /* F_SETFL */,
					   6 /* F_SETLK */,
					   7 /* F_SETLKW */,
					   1025 /* F_GETLEASE */,
					   1026 /* F_NOTIFY */};
	unsigned bad = 0;

	for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]); c++) {
		bad +=
		    run(p->p, calls[c].arch, calls[c].nr, 3, 1024 /* F_SETLEASE */, 0) != RET_EPERM;
		bad += calls[c].wide && run(p->p, calls[c].arch, calls[c].nr, 3,
					    1024 | 0xabcd00000000ULL, 0) != RET_EPERM;
		for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
			bad += run(p->p, calls[c].arch, calls[c].nr, 3, allowed[i], 0) != RET_ALLOW;
		/* F_SETFL with O_ASYNC (SIGIO to a terminal's foreground group), alone or with
		 * other flags and high bits in the command; without it, and F_GETFL with it, not */
		bad += run(p->p, calls[c].arch, calls[c].nr, 3, 4, 020000) != RET_EPERM;
		bad += run(p->p, calls[c].arch, calls[c].nr, 3, 4, 020000 | 04000 | 02000) !=
		       RET_EPERM;
		bad += calls[c].wide && run(p->p, calls[c].arch, calls[c].nr, 3,
					    4 | 0xabcd00000000ULL, 020000) != RET_EPERM;
		bad += run(p->p, calls[c].arch, calls[c].nr, 3, 4, 04000 | 02000) != RET_ALLOW;
		bad += run(p->p, calls[c].arch, calls[c].nr, 3, 3, 020000) != RET_ALLOW;
	}
	is_int(bad, 0,
	       "%s: fcntl(F_SETLEASE) and F_SETFL with O_ASYNC refused on each ABI (also with "
	       "high bits), other fcntl commands not",
	       p->what);
}

/* The monitor answers EPERM to what its table cannot map: nothing a notify program hands it
 * may be outside the table. */
static void test_notified_mapped(const struct prog *p)
{
	static const uint64_t argv[] = {0,	1,	 2,	   3,	       0x41,	      0x242,
					0x1000, 0x80000, 0x200000, 0x10000000, 0x1ffffffffULL};
	unsigned bad = 0, notified = 0;

	for (int a = 0; a < 2; a++)
		for (int nr = 0; nr < 512; nr++) {
			bool mapped = filters_arches[a].socketcall == nr;

			for (unsigned i = 0; i < FILTERS_CALLS_MAX; i++)
				mapped |= filters_arches[a].nr[i] == nr;
			for (size_t v = 0; v < sizeof(argv) / sizeof(argv[0]); v++) {
				uint32_t got =
				    run(p->p, abis[a].arch, nr, argv[v], argv[v], argv[v]);

				notified += got == RET_NOTIFY;
				if (got == RET_NOTIFY && !mapped && bad++ < 3)
					printf("# %s: arch %x nr %d notifies, not in the table\n",
					       p->what, abis[a].arch, nr);
			}
		}
	is_int(bad, 0, "%s: every call it notifies (%u cases) is in the monitor's table", p->what,
	       notified);
}

/* monitor = off: the guard's program notifies exactly the calls the guard needs (an open for
 * writing, not one for reading; no exec, no time call) and lets the rest through. */
static void test_guard_calls(void)
{
	unsigned n, bad = 0, cases = 0;
	const struct notify_call *c = notify_calls(&n);
	const uint32_t arch = filters_arches[0].arch;

	for (unsigned i = 0; i < n; i++) {
		int nr = filters_arches[0].nr[i];
		uint64_t fl = c[i].op == NOP_OPEN ? O_WRONLY | O_CREAT : 0;
		uint32_t want = notify_guarded(&c[i]) ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ALLOW;

		if (nr < 0 || c[i].op == NOP_UNIX || c[i].openat2)
			continue;
		struct seccomp_data d = {.nr = nr, .arch = arch};
		bool fchmod = strcmp(c[i].name, "fchmod") == 0;
		if (c[i].flags != NOTIFY_NOARG)
			d.args[c[i].flags] = fl;
		if (fchmod) { /* notified with every mode: a descriptor may be a device node's */
			static const unsigned notify[] = {0644, 0600, 0664, 0444, 0,	 0755,
							  0744, 0645, 0654, 0646, 01644, 02644,
							  0100, 010,  01,   02,	  01000};

			for (size_t k = 0; k < sizeof(notify) / sizeof(notify[0]); k++) {
				d.args[1] = notify[k];
				cases++;
				bad += bpf_run(&filters_guard[1], &d) != SECCOMP_RET_USER_NOTIF;
			}
			d.args[1] = 02755;
		}
		cases++;
		if (bpf_run(&filters_guard[1], &d) != want) {
			bad++;
			printf("# %s: 0x%x\n", c[i].name, bpf_run(&filters_guard[1], &d));
		}
		if (c[i].op == NOP_OPEN) {
			d.args[c[i].flags] = O_RDONLY;
			cases++;
			bad += bpf_run(&filters_guard[1], &d) != SECCOMP_RET_ALLOW;
		}
	}
	is_int(bad, 0,
	       "guard filter: the guard's calls notify, the rest (reads, exec, time) pass "
	       "(%u cases)",
	       cases);
	unsigned g = 0;
	for (unsigned i = 0; i < n; i++)
		g += notify_guarded(&c[i]) &&
		     (strcmp(c[i].name, "execve") == 0 || strcmp(c[i].name, "utimensat") == 0);
	is_int(g, 0, "… exec and utimensat are not the guard's");
}

/* The shell filter: no attach of pid 2 (its low 32 bits), no write into it, on both ABIs;
 * the calls beside them, and every other filter, leave pid 2 alone (sanitizers attach to
 * their own process in `sbxsh -c PROG`). */
static void test_shell(void)
{
	static const struct {
		uint32_t arch;
		int ptrace, vmw;
		bool wide;
	} ab[] = {{AUDIT_ARCH_X86_64, 101, 311, true}, {AUDIT_ARCH_I386, 26, 348, false}};
	const struct sock_fprog *sh = &filters_shell[0];
	unsigned bad = 0, allowed = 0;

	for (size_t a = 0; a < sizeof(ab) / sizeof(ab[0]); a++) {
		uint32_t arch = ab[a].arch;

		for (int hi = 0; hi < (ab[a].wide ? 2 : 1); hi++) {
			uint64_t h = hi ? 0x100000000ull : 0;

			bad += run(sh, arch, ab[a].ptrace, h | 16, h | 2, 0) != RET_EPERM;
			bad += run(sh, arch, ab[a].ptrace, h | 0x4206, h | 2, 0) != RET_EPERM;
			bad += run(sh, arch, ab[a].vmw, h | 2, 0, 0) != RET_EPERM;
		}
		allowed += run(sh, arch, ab[a].ptrace, 16, 3, 0) == RET_ALLOW;
		allowed += run(sh, arch, ab[a].ptrace, 0x4206, 1000, 0) == RET_ALLOW;
		allowed += run(sh, arch, ab[a].ptrace, 0 /* TRACEME */, 0, 0) == RET_ALLOW;
		allowed += run(sh, arch, ab[a].ptrace, 2 /* PEEKDATA */, 2, 0) == RET_ALLOW;
		allowed += run(sh, arch, ab[a].vmw, 3, 0, 0) == RET_ALLOW;
		allowed += run(sh, arch, ab[a].ptrace - 1, 2, 2, 0) == RET_ALLOW;
		for (size_t i = 0; i < sizeof(filters_main) / sizeof(filters_main[0]); i++)
			allowed += run(&filters_main[i], arch, ab[a].ptrace, 16, 2, 0) == RET_ALLOW;
		allowed += run(&filters_guard[0], arch, ab[a].ptrace, 0x4206, 2, 0) == RET_ALLOW;
		allowed += run(&filters_notify[MONITOR_ALL * 2 + 1], arch, ab[a].vmw, 2, 0, 0) ==
			   RET_ALLOW;
	}
	is_int(bad, 0,
	       "shell filter: ptrace ATTACH/SEIZE of pid 2 and process_vm_writev into it "
	       "refused (x86_64 with high bits, i386)");
	is_int(allowed, 2 * 10,
	       "…another pid, TRACEME, PEEKDATA, another call, and the other "
	       "filters are left alone");
	bad = 0;
	for (int nr = 0; nr < 1024; nr++)
		bad += run(sh, AUDIT_ARCH_X86_64, 0x40000000 | nr, 0, 0, 0) != RET_EPERM;
	is_int(bad, 0, "shell filter: x32 refused whole too");
}

int main(void)
{
	char what[64];

	same(&filters_main[0], false, 0, "main filter, AF_UNIX refused");
	same(&filters_main[1], false, 1, "main filter, AF_UNIX left to the monitor or allowed");
	for (int v = MONITOR_WRITES * 2; v <= MONITOR_ALL * 2 + 1; v++) {
		snprintf(what, sizeof(what), "notify filter, level %s%s",
			 notify_level_name((enum monitor_level)(v >> 1)), v & 1 ? ", AF_UNIX" : "");
		same(&filters_notify[v], true, v, what);
	}
	ok(filters_notify[0].len == 0 && filters_notify[1].len == 0,
	   "monitor off has no notify program");
	same(&filters_guard[0], -1, 0, "guard filter (off), AF_UNIX refused");
	same(&filters_guard[1], -1, 1, "guard filter (off), AF_UNIX allowed");
	same(&filters_shell[0], 2, 0, "shell filter");
	test_guard_calls();
	test_ia32_probe();
	same_numbers(0, seccomp_arch_native());
	same_numbers(1, sandbox_seccomp_compat_arch() ? sandbox_seccomp_compat_arch()
						      : seccomp_arch_native());

	if (seccomp_arch_native() != SCMP_ARCH_X86_64) {
		skip("this build is not x86_64", "the programs, run on x86 inputs");
		return tap_done();
	}
	test_shell();
	struct prog p[10];
	size_t n = progs(p);
	for (size_t i = 0; i < n; i++) {
		test_other_abis(&p[i]);
		test_new_calls(&p[i]);
		test_families(&p[i]);
		test_socketcall(&p[i]);
		test_ioctls(&p[i]);
		test_leases(&p[i]);
		if (p[i].p != &filters_main[0] && p[i].p != &filters_main[1])
			test_notified_mapped(&p[i]);
	}
	return tap_done();
}
