/* abi — which system-call interfaces the stage's filter covers, and which the kernel offers
 * (for `sbxsh doctor`). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>

#include "platform/linux/filters.h"
#include "platform/sandbox.h"

static const char *arch_name(uint32_t a)
{
	switch (a) {
	case AUDIT_ARCH_X86_64:
		return "x86_64";
	case AUDIT_ARCH_I386:
		return "i386 (int 0x80)";
	case AUDIT_ARCH_AARCH64:
		return "aarch64";
	case AUDIT_ARCH_ARM:
		return "arm";
	default:
		return "another";
	}
}

#if defined(__x86_64__)
/* IA32 emulation: a child makes i386's getpid (20) through int 0x80; without the emulation
 * the instruction faults (SIGSEGV), which only the child sees: by the default action, not a
 * handler the caller had (a sanitizer's exits 1, read as "unknown"). 1 on, 0 off, -1 unknown. */
static int probe_ia32(void)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		long r;
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); /* no core file if it faults */
		signal(SIGSEGV, SIG_DFL);
		__asm__ volatile("int $0x80"
				 : "=a"(r)
				 : "a"(20L)
				 : "memory", "r8", "r9", "r10", "r11");
		_exit((int)r == (int)getpid() ? 0 : 1);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 1 : WIFSIGNALED(st) ? 0 : -1;
}
#endif

/* Both are probed by making the call (x32's getpid answers ENOSYS where the kernel lacks x32,
 * EPERM under a filter). */
void sandbox_abis_probe(struct sandbox_abis *out)
{
	uint32_t a0 = filters_arches[0].arch, a1 = filters_arches[1].arch;

	if (a0 == a1)
		snprintf(out->covered, sizeof(out->covered),
			 "the filter covers %s; any other ABI is refused (EPERM)", arch_name(a0));
	else
		snprintf(out->covered, sizeof(out->covered),
			 "the filter covers %s and %s alike; any other ABI%s is refused whole "
			 "(EPERM)",
			 arch_name(a0), arch_name(a1), a0 == AUDIT_ARCH_X86_64 ? " (x32)" : "");
	out->ia32 = out->x32 = NULL;
#if defined(__x86_64__)
	int ia32 = probe_ia32();
	out->ia32 = ia32 > 0	? "on: 32-bit programs run here, under the same rules"
		    : ia32 == 0 ? "off: int 0x80 faults here (32-bit programs cannot run)"
				: "unknown (the probe failed)";
	long r = syscall(0x40000000L | SYS_getpid);
	int e = r < 0 ? errno : 0;
	out->x32 = r >= 0	 ? "on in this kernel: the filter refuses every x32 call (EPERM)"
		   : e == ENOSYS ? "off in this kernel (the filter refuses it anyway)"
				 : "refused here already (a seccomp filter: inside a sandbox?)";
#endif
}
