/* bpf_run — a reader of the classic BPF the seccomp filters are made of, for the unit tests:
 * runs n instructions of f on d and returns the action. An instruction it does not know, or a
 * load outside struct seccomp_data, returns 0xdeadbeef (never an action). */
#ifndef SBX_TEST_BPF_RUN_H
#define SBX_TEST_BPF_RUN_H
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <string.h>

static uint32_t bpf_run_n(const struct sock_filter *f, size_t n, const struct seccomp_data *d)
{
	uint32_t a = 0;
	const unsigned char *mem = (const unsigned char *)d;

	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k + 4 > sizeof(*d))
				return 0xdeadbeef;
			memcpy(&a, mem + i->k, 4);
			break;
		case BPF_LD | BPF_IMM:
			a = i->k;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		case BPF_JMP | BPF_JA:
			pc += i->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += a > i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & i->k) ? i->jt : i->jf;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= i->k;
			break;
		default:
			return 0xdeadbeef; /* an instruction this reader does not know */
		}
	}
	return 0xdeadbeef;
}

#endif
