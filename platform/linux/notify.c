/* notify — seccomp rules that hand calls to the violation monitor, and the listener's plumbing.
 *
 * Rules this file keeps:
 * - It only ever adds SCMP_ACT_NOTIFY rules: what the monitor sees is answered CONTINUE (or,
 *   for socket(AF_UNIX), refused), so adding a call here never widens anything. A dead monitor
 *   makes the call fail with ENOSYS: fail closed.
 * - Read and write opens are told apart in BPF (masked compares on the flags), so a level that
 *   watches writes does not stop every read.
 * - The listener is never left in the sandbox: the stage sends it and closes its copy.
 */
#include "platform/linux/notify.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/net.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#define N   NOTIFY_NOARG
#define CWD NOTIFY_FD_CWD
#define W   MONITOR_WRITES
#define F   MONITOR_FULL
#define A   MONITOR_ALL

/* name, op, level, dirfd, path, dirfd2, path2, flags, openat2 */
/* clang-format off */
static const struct notify_call calls[] = {
	{ "open", NOP_OPEN, W, CWD, 0, N, N, 1, false },
	{ "openat", NOP_OPEN, W, 0, 1, N, N, 2, false },
	{ "openat2", NOP_OPEN, W, 0, 1, N, N, 2, true },
	{ "creat", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "execve", NOP_EXEC, W, CWD, 0, N, N, N, false },
	{ "execveat", NOP_EXEC, W, 0, 1, N, N, N, false },
	{ "access", NOP_READ, F, CWD, 0, N, N, N, false },
	{ "faccessat", NOP_READ, F, 0, 1, N, N, N, false },
	{ "faccessat2", NOP_READ, F, 0, 1, N, N, N, false },
	{ "chdir", NOP_READ, F, CWD, 0, N, N, N, false },
	{ "readlink", NOP_READ, A, CWD, 0, N, N, N, false },
	{ "readlinkat", NOP_READ, A, 0, 1, N, N, N, false },
	{ "mkdir", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "mkdirat", NOP_WRITE, W, 0, 1, N, N, N, false },
	{ "unlink", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "unlinkat", NOP_WRITE, W, 0, 1, N, N, N, false },
	{ "rmdir", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "rename", NOP_WRITE, W, CWD, 0, CWD, 1, N, false },
	{ "renameat", NOP_WRITE, W, 0, 1, 2, 3, N, false },
	{ "renameat2", NOP_WRITE, W, 0, 1, 2, 3, N, false },
	{ "link", NOP_WRITE, W, CWD, 1, N, N, N, false },
	{ "linkat", NOP_WRITE, W, 2, 3, N, N, N, false },
	{ "symlink", NOP_WRITE, W, CWD, 1, N, N, N, false },
	{ "symlinkat", NOP_WRITE, W, 1, 2, N, N, N, false },
	{ "truncate", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "truncate64", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "utimensat", NOP_WRITE, W, 0, 1, N, N, N, false },
	{ "utime", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "utimes", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "futimesat", NOP_WRITE, W, 0, 1, N, N, N, false },
	{ "chmod", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "fchmodat", NOP_WRITE, W, 0, 1, N, N, N, false },
	{ "chown", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "chown32", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "lchown", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "lchown32", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "fchownat", NOP_WRITE, W, 0, 1, N, N, N, false },
	{ "mknod", NOP_WRITE, W, CWD, 0, N, N, N, false },
	{ "mknodat", NOP_WRITE, W, 0, 1, N, N, N, false },
	{ "socket", NOP_UNIX, W, N, N, N, N, N, false },
};
/* clang-format on */

#undef N
#undef CWD
#undef W
#undef F
#undef A

const struct notify_call *notify_calls(unsigned *n)
{
	*n = sizeof(calls) / sizeof(calls[0]);
	return calls;
}

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

static int add_call(scmp_filter_ctx ctx, const struct notify_call *c, enum monitor_level level,
		    unsigned flags)
{
	int nr = seccomp_syscall_resolve_name(c->name);

	if (nr == __NR_SCMP_ERROR)
		return 0; /* no such call on any architecture libseccomp knows here */
	if (c->op == NOP_UNIX) {
		if (!(flags & NOTIFY_UNIX))
			return 0;
		/* the family is an int: compare the low 32 bits, as the kernel reads it */
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
					SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffUL, AF_UNIX));
	}
	if (level < c->level)
		return 0;
	if (c->op == NOP_OPEN && !c->openat2 && level < MONITOR_FULL)
		return add_write_opens(ctx, nr, c->flags);
	return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
}

int notify_rules_add(scmp_filter_ctx ctx, enum monitor_level level, unsigned flags)
{
	int r = 0;

	if (level == MONITOR_OFF)
		return 0;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && r == 0; i++) {
		r = add_call(ctx, &calls[i], level, flags);
		if (r == -EDOM || r == -EOPNOTSUPP)
			r = 0; /* the call does not exist on one of ctx's architectures */
	}
	return r;
}

int notify_fd_send(int sock, int fd)
{
	char byte = 'L';
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *cm;

	memset(u.buf, 0, sizeof(u.buf));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	while (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int notify_fd_recv(int sock, int *fd)
{
	char byte;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *cm;
	ssize_t n;

	*fd = -1;
	while ((n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC)) < 0)
		if (errno != EINTR)
			return -errno;
	cm = CMSG_FIRSTHDR(&mh);
	if (n != 1 || byte != 'L' || !cm || cm->cmsg_level != SOL_SOCKET ||
	    cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(sizeof(int))) {
		/* a truncated or foreign message: close whatever came with it */
		for (; cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
				int x;
				size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

				for (size_t i = 0; i < k; i++) {
					memcpy(&x, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
					close(x);
				}
			}
		return -EBADMSG;
	}
	memcpy(fd, CMSG_DATA(cm), sizeof(int));
	return 0;
}

int notify_listener_setup(int fd)
{
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -errno;
	/* Without it a 2-CPU machine bounces the waker and the handler across CPUs (1-3 s per
	 * 50,000 opens instead of ~0.5 s); an old kernel answers EINVAL/ENOTTY: run without.
	 * The flags are the ioctl's argument itself, not a pointer to them. */
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		  (unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) == 0)
		return 1;
	return errno == EINVAL || errno == ENOTTY ? 0 : -errno;
}

static const char *const level_names[] = {"off", "writes", "full", "all"};

const char *notify_level_name(enum monitor_level l)
{
	return (unsigned)l < 4 ? level_names[l] : "?";
}

int notify_level_parse(const char *s)
{
	static const struct {
		const char *s;
		int l;
	} t[] = {{"off", MONITOR_OFF}, {"no", MONITOR_OFF},	   {"false", MONITOR_OFF},
		 {"0", MONITOR_OFF},   {"writes", MONITOR_WRITES}, {"full", MONITOR_FULL},
		 {"on", MONITOR_FULL}, {"yes", MONITOR_FULL},	   {"true", MONITOR_FULL},
		 {"1", MONITOR_FULL}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(s, t[i].s) == 0)
			return t[i].l;
	return -1;
}

char *notify_env_format(char *buf, size_t n, int fd, enum monitor_level level, unsigned flags)
{
	snprintf(buf, n, "%d:%d:%u", fd, (int)level, flags);
	return buf;
}

int notify_stage_parse(struct notify_stage *st)
{
	const char *v = getenv(NOTIFY_ENV);
	char *end;
	long fd, lvl;
	unsigned long fl;

	st->fd = -1;
	st->level = MONITOR_OFF;
	st->flags = 0;
	if (!v)
		return 0;
	fd = strtol(v, &end, 10);
	if (*end != ':' || fd < 3 || fd > 65535)
		goto bad;
	lvl = strtol(end + 1, &end, 10);
	if (*end != ':' || lvl <= MONITOR_OFF || lvl > MONITOR_FULL)
		goto bad;
	fl = strtoul(end + 1, &end, 10);
	if (*end || fl > NOTIFY_UNIX)
		goto bad;
	unsetenv(NOTIFY_ENV);
	st->fd = (int)fd;
	st->level = (enum monitor_level)lvl;
	st->flags = (unsigned)fl;
	return 0;
bad:
	unsetenv(NOTIFY_ENV);
	return -EINVAL;
}

/* ---- the stage's filter, as BPF built by hand ----
 * libseccomp takes ~0.4 ms per command to build the same rules for three ABIs; this takes
 * microseconds. tests/unit/test_notify.c runs both programs on the same inputs and checks
 * they agree. */

#define X32_BIT	  0x40000000u
#define ARG_LO(i) ((uint32_t)(offsetof(struct seccomp_data, args) + 8 * (i) + ARG_LO_OFF))
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO_OFF 0
#else
#define ARG_LO_OFF 4
#endif

struct bpf_prog {
	struct sock_filter *v;
	size_t n, cap;
	bool full; /* ran out of room */
};

static void emit(struct bpf_prog *p, uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
	if (p->n >= p->cap) {
		p->full = true;
		return;
	}
	p->v[p->n++] = (struct sock_filter){code, jt, jf, k};
}

/* if (nr == nr_) { A = arg; if (test) return NOTIFY; } A = nr */
static void emit_arg_check(struct bpf_prog *p, uint32_t nr, unsigned arg, uint16_t test, uint32_t k)
{
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 4);
	emit(p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg), 0, 0);
	emit(p, BPF_JMP | test | BPF_K, k, 0, 1);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
	emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
}

static void emit_call(struct bpf_prog *p, const struct notify_call *c, uint32_t arch, int nr,
		      enum monitor_level level, unsigned flags)
{
	if (c->op == NOP_UNIX) {
		if (flags & NOTIFY_UNIX)
			emit_arg_check(p, (uint32_t)nr, 0, BPF_JEQ, AF_UNIX);
		return;
	}
	if (level < c->level)
		return;
	if (c->op == NOP_OPEN && !c->openat2 && level < MONITOR_FULL) {
		emit_arg_check(p, (uint32_t)nr, c->flags, BPF_JSET, NOTIFY_OPEN_WRITE_FLAGS);
		return;
	}
	(void)arch;
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
}

/* The checks of one ABI, starting with A = nr; ends with RET ALLOW. */
static void emit_block(struct bpf_prog *p, uint32_t scmp_arch, enum monitor_level level,
		       unsigned flags)
{
	emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		int nr = seccomp_syscall_resolve_name_arch(scmp_arch, calls[i].name);

		if (nr < 0 && scmp_arch == SCMP_ARCH_X86 && calls[i].op == NOP_UNIX)
			nr = 359; /* x86's direct socket(2), which libseccomp names a pseudo-call */
		if (nr >= 0)
			emit_call(p, &calls[i], scmp_arch, nr, level, flags);
	}
	if (scmp_arch == SCMP_ARCH_X86 && (flags & NOTIFY_UNIX)) /* socketcall(SYS_SOCKET, …) */
		emit_arg_check(p, 102, 0, BPF_JEQ, SYS_SOCKET);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
}

int notify_bpf_build(enum monitor_level level, unsigned flags, struct sock_filter *buf, size_t cap,
		     size_t *len)
{
	struct bpf_prog main = {buf, 0, cap, false}, b[3];
	struct sock_filter blk[3][512];
	uint32_t native = seccomp_arch_native();
	bool x86_64 = native == SCMP_ARCH_X86_64;
	const uint32_t archs[3] = {native, SCMP_ARCH_X32, SCMP_ARCH_X86};
	size_t nb = x86_64 ? 3 : 1;

	for (size_t i = 0; i < nb; i++) {
		b[i] = (struct bpf_prog){blk[i], 0, 512, false};
		emit_block(&b[i], archs[i], level, flags);
		if (b[i].full)
			return -E2BIG;
	}
	/* header (x86-64): 0 A = arch; 1 native? else → 6; 2 A = nr; 3 x32 bit? → 5 : 4;
	 * 4 → native block (9); 5 → x32 block; 6 x86? else → 8; 7 → x86 block; 8 allow.
	 * A jump's target is its own index + 1 + k. */
	emit(&main, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
	emit(&main, BPF_JMP | BPF_JEQ | BPF_K, native, 0, x86_64 ? 4 : 1);
	if (x86_64) {
		emit(&main, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
		emit(&main, BPF_JMP | BPF_JSET | BPF_K, X32_BIT, 1, 0);
		emit(&main, BPF_JMP | BPF_JA, 9 - 5, 0, 0);
		emit(&main, BPF_JMP | BPF_JA, (uint32_t)(9 + b[0].n - 6), 0, 0);
		emit(&main, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 1);
		emit(&main, BPF_JMP | BPF_JA, (uint32_t)(9 + b[0].n + b[1].n - 8), 0, 0);
	} else {
		emit(&main, BPF_JMP | BPF_JA, 1, 0, 0); /* 2 → block (4); 3 allow */
	}
	emit(&main, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0); /* other ABIs: the main filter */
	for (size_t i = 0; i < nb; i++)
		for (size_t k = 0; k < b[i].n; k++)
			emit(&main, b[i].v[k].code, b[i].v[k].k, b[i].v[k].jt, b[i].v[k].jf);
	if (main.full)
		return -E2BIG;
	*len = main.n;
	return 0;
}

int notify_stage_install(const struct notify_stage *st)
{
	struct sock_filter f[2048];
	struct sock_fprog prog = {0};
	size_t n = 0;
	int r, lfd = -1;

	r = notify_bpf_build(st->level, st->flags, f, sizeof(f) / sizeof(f[0]), &n);
	if (r == 0) {
		prog.len = (unsigned short)n;
		prog.filter = f;
		lfd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				   SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		r = lfd < 0 ? -errno : 0;
	}
	if (r == 0)
		r = notify_fd_send(st->fd, lfd);
	if (lfd >= 0)
		close(lfd);
	close(st->fd);
	return r;
}
