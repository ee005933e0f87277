/* try-syscall — makes ONE raw system call through one ABI and prints what the kernel (or the
 * sandbox's filter) answered: "ok" or the errno's name ("EPERM"). For the e2e tests of the
 * seccomp filter, which then check exact errno values (bubblewrap's tests/try-syscall.c is
 * the model).
 *
 *   try-syscall ABI CALL [ARG...]
 *
 * ABI:  native; on x86_64 also x86_64, i386 (int 0x80 with 32-bit registers: works from this
 *       64-bit process when the kernel has IA32 emulation) and x32 (0x40000000 | nr).
 * CALL: a name of the table below, or a number.
 * ARG:  a number (0x.. ok, negative ok); s:TEXT a pointer to TEXT; i:N a pointer to an int N;
 *       w:A,B,.. a pointer to words of the ABI's size (socketcall's arguments); pty a terminal
 *       of its own (a new pty's slave, made this process's controlling terminal).
 * Pointers are below 4 GiB (MAP_32BIT), so the i386 ABI can take them. Exit 0 when the call
 * was made (whatever it answered), 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum abi { ABI_NATIVE, ABI_I386, ABI_X32 };

/* name, x86_64 (and x32 unless given), i386, x32 (0: as x86_64) */
static const struct {
	const char *name;
	long x86_64, i386, x32;
} calls[] = {
    {"socket", 41, 359, 0},   {"socketpair", 53, 360, 0}, {"socketcall", -1, 102, -1},
    {"ioctl", 16, 54, 514},   {"mount", 165, 21, 0},	  {"umount2", 166, 52, 0},
    {"unshare", 272, 310, 0}, {"open_tree", 428, 428, 0}, {"getuid", 102, 24, 0},
    {"getpid", 39, 20, 0},    {"ptrace", 101, 26, 521},	  {"process_vm_writev", 311, 348, 540},
    {"keyctl", 250, 288, 0},  {"close", 3, 6, 0},	  {"modify_ldt", 154, 123, 0},
};

static char *arena;
static size_t arena_used;

static void *low_alloc(size_t n)
{
	if (!arena) {
		int fl = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_32BIT
		fl |= MAP_32BIT;
#endif
		arena = mmap(NULL, 65536, PROT_READ | PROT_WRITE, fl, -1, 0);
		if (arena == MAP_FAILED) {
			perror("try-syscall: mmap");
			exit(2);
		}
	}
	n = (n + 15) & ~(size_t)15;
	if (arena_used + n > 65536) {
		fprintf(stderr, "try-syscall: arguments too large\n");
		exit(2);
	}
	arena_used += n;
	return arena + arena_used - n;
}

/* A pty slave that is this process's controlling terminal (TIOCSTI needs one). */
static long make_pty(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), s;
	const char *name;

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 || !(name = ptsname(m))) {
		perror("try-syscall: pty");
		exit(2);
	}
	if (setsid() < 0) { /* a group leader: the call is made by a child */
		pid_t pid = fork();
		int st;

		if (pid < 0) {
			perror("try-syscall: fork");
			exit(2);
		}
		if (pid > 0) {
			waitpid(pid, &st, 0);
			exit(WIFEXITED(st) ? WEXITSTATUS(st) : 2);
		}
		setsid();
	}
	s = open(name, O_RDWR);
	if (s < 0) {
		perror("try-syscall: open pty");
		exit(2);
	}
	return s;
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = s[0] == '-' ? strtol(s, &end, 0) : (long)strtoul(s, &end, 0);
	if (errno || end == s || *end) {
		fprintf(stderr, "try-syscall: %s: not a number\n", s);
		exit(2);
	}
	return v;
}

static long arg(const char *s, enum abi abi)
{
	if (strncmp(s, "s:", 2) == 0)
		return (long)(uintptr_t)strcpy(low_alloc(strlen(s + 2) + 1), s + 2);
	if (strncmp(s, "i:", 2) == 0) {
		int *p = low_alloc(sizeof(int));
		*p = (int)number(s + 2);
		return (long)(uintptr_t)p;
	}
	if (strncmp(s, "w:", 2) == 0) {
		size_t w = abi == ABI_I386 ? 4 : sizeof(long), n = 0;
		char *list = strdup(s + 2), *save = NULL;
		char *p = low_alloc(6 * w);

		for (char *t = strtok_r(list, ",", &save); t && n < 6;
		     t = strtok_r(NULL, ",", &save)) {
			long v = arg(t, abi);
			memcpy(p + n++ * w, &v, w); /* little-endian: the low word */
		}
		free(list);
		return (long)(uintptr_t)p;
	}
	if (strcmp(s, "pty") == 0)
		return make_pty();
	return number(s);
}

#if defined(__x86_64__)
/* i386's entry from a 64-bit process: the kernel reads the low 32 bits of each register. */
static long int80(long nr, const long *a)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a[0]), "c"(a[1]), "d"(a[2]), "S"(a[3]), "D"(a[4])
			 : "memory", "cc", "r8", "r9", "r10", "r11");
	return (int)ret; /* eax, sign-extended: -4095..-1 is an errno */
}
#endif

int main(int argc, char **argv)
{
	enum abi abi = ABI_NATIVE;
	long nr = -1, a[6] = {0}, ret;
	int err = 0;

	if (argc < 3 || argc > 9) {
		fprintf(stderr, "usage: try-syscall native|x86_64|i386|x32 CALL [ARG...]\n");
		return 2;
	}
	if (strcmp(argv[1], "i386") == 0)
		abi = ABI_I386;
	else if (strcmp(argv[1], "x32") == 0)
		abi = ABI_X32;
	else if (strcmp(argv[1], "native") != 0 && strcmp(argv[1], "x86_64") != 0) {
		fprintf(stderr, "try-syscall: %s: not an ABI (native, x86_64, i386, x32)\n",
			argv[1]);
		return 2;
	}
#if !defined(__x86_64__)
	if (abi != ABI_NATIVE || strcmp(argv[1], "x86_64") == 0) {
		fprintf(stderr, "try-syscall: ABI %s exists on x86_64 only\n", argv[1]);
		return 2;
	}
#endif
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (strcmp(calls[i].name, argv[2]) == 0) {
#if defined(__x86_64__)
			nr = abi == ABI_I386			   ? calls[i].i386
			     : abi == ABI_X32 && calls[i].x32 != 0 ? calls[i].x32
								   : calls[i].x86_64;
#else
			nr = -1; /* the table is x86's: give other arches' numbers */
#endif
			if (nr < 0) {
				fprintf(stderr, "try-syscall: no %s in ABI %s\n", argv[2], argv[1]);
				return 2;
			}
		}
	if (nr < 0)
		nr = number(argv[2]);
	if (abi == ABI_X32)
		nr |= 0x40000000L;
	for (int i = 3; i < argc; i++)
		a[i - 3] = arg(argv[i], abi);
#if defined(__x86_64__)
	if (abi == ABI_I386) {
		ret = int80(nr, a);
		if (ret < 0 && ret > -4096)
			err = (int)-ret;
	} else
#endif
	{
		ret = syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (ret == -1)
			err = errno;
	}
	if (!err)
		printf("ok\n");
	else if (strerrorname_np(err))
		printf("%s\n", strerrorname_np(err));
	else
		printf("errno %d\n", err);
	return 0;
}
