/* check_bench — the guard's name check of one create (platform/mandatory.c: mandatory_scratch,
 * mandatory_check, mandatory_hooks, as guard.c's check() calls them) ITERATIONS times, with a
 * mand_ctx shaped like the front end's under bench/guard.sh: a home directory and a project
 * (beside it, as guard.sh has it, or with UNDER_HOME below it), $XDG_CONFIG_HOME set to
 * ~/.config (its copies of the home rule's names and the violation log in mand_ctx.fixed),
 * the policy file and the system directory, /dev/shm and /tmp as scratch. Usage:
 * check_bench [ITERATIONS [UNDER_HOME]]. For instructions per check: run it under
 * valgrind --tool=callgrind at two counts and divide the difference (bench/check.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/mandatory.h"

#define W "/var/tmp/sbxsh-bench.XXXXXX"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int under_home = argc > 2 && atoi(argv[2]);
	const char *home = W "/fs/home";
	const char *proj = under_home ? W "/fs/home/proj" : W "/fs/proj";
	size_t nx, nf = 0;
	const char *const *xc = mandatory_xdg_config(&nx);
	const char **fixed = calloc(nx + 1, sizeof(*fixed));
	static const char *const policy[] = {W "/off.ini", "/etc/sbxsh"};
	static const char *const scratch[] = {"/dev/shm", "/tmp"};
	const char *grants[] = {proj, proj}; /* as written and as mounted */
	static char names[512][128];
	char real[256];
	long refused = 0;
	struct mand_hit h;

	if (!fixed || nx >= sizeof(names) / sizeof(names[0]))
		return 1;
	for (size_t i = 0; i < nx; i++) {
		snprintf(names[i], sizeof(names[i]), "%s/.config/%s", home, xc[i]);
		fixed[nf++] = names[i];
	}
	fixed[nf++] = W "/fs/home/.local/state/sbxsh/violations.jsonl";
	struct mand_ctx cx = {.home = home,
			      .grants = grants,
			      .ngrants = 2,
			      .git_config = true,
			      .fixed = fixed,
			      .nfixed = nf,
			      .policy = policy,
			      .npolicy = 2,
			      .scratch = scratch,
			      .nscratch = 2};
	cx.fixed_lcp = mandatory_lcp(fixed, nf);
	snprintf(real, sizeof(real), "%s/c/", proj);
	size_t l = strlen(real);
	for (long i = 0; i < n; i++) {
		/* the name tar or the create loop makes: c/0, c/1, … (no snprintf: not the check's)
		 */
		size_t k = l;
		for (long v = i;; v /= 10) {
			real[k++] = (char)('0' + v % 10);
			if (v < 10)
				break;
		}
		real[k] = '\0';
		if (mandatory_scratch(&cx, real))
			continue;
		refused += mandatory_check(&cx, real, MAND_WRITE, &h) == 1;
		refused += mandatory_hooks(&cx, NULL, 0, real, MAND_WRITE, &h) == 1;
	}
	printf("%ld checks of names in %s (%zu fixed paths): %ld refused\n", n, proj, nf, refused);
	free((void *)cx.fixed_lcp);
	free(fixed);
	return refused != 0;
}
