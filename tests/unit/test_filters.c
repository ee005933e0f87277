/* test_filters — the seccomp programs compiled at build time (bpfgen) are exactly what
 * libseccomp makes of the same rule tables now: a stale or mis-generated table fails here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/filter.h>
#include <seccomp.h>

#include "platform/linux/filters.h"
#include "platform/linux/notify.h"
#include "platform/sandbox.h"
#include "tests/unit/tap.h"

/* libseccomp's program for one variant, exported now; *n instructions. */
static struct sock_filter *now(bool notify, int variant, size_t *n)
{
	void *c = NULL;
	FILE *f = tmpfile();
	static struct sock_filter buf[8192];
	int r = notify ? filters_build(&c, !(variant & 1), variant >> 1,
				       (variant & 1) ? NOTIFY_UNIX : 0)
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

static void same(const struct sock_fprog *built, bool notify, int variant, const char *what)
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
		bad += fa->nr[i] != (nr < 0 ? -1 : nr);
	}
	int sc = seccomp_syscall_resolve_name_arch(arch, "socketcall");
	ok(fa->arch == arch && bad == 0 && fa->socketcall == (sc < 0 ? -1 : sc) &&
	       n <= FILTERS_CALLS_MAX,
	   "syscall numbers of ABI %d (0x%08x) are libseccomp's", a, arch);
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
	same_numbers(0, seccomp_arch_native());
	same_numbers(1, sandbox_seccomp_compat_arch() ? sandbox_seccomp_compat_arch()
						      : seccomp_arch_native());
	return tap_done();
}
