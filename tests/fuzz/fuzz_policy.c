/* fuzz_policy — bytes as a user policy file, through the same parse, finish and resolve path
 * as a real load (no file checks), then printed; every byte inih and our reader see. */
#include <stdint.h>
#include <stdio.h>

#include "shell/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct policy_opts o = {.sys_owner = 0, .home = "/home/fuzz"};
	struct diag d = {0};
	struct policy *p = NULL;
	struct profile *pr = NULL;
	static const char *const cwds[] = {"/home/fuzz/src/app/lib", "/", "/tmp"};

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (policy_load_string(&p, (const char *)data, size, "<fuzz>", &o, &d) == 0) {
		for (size_t i = 0; i < sizeof(cwds) / sizeof(cwds[0]); i++) {
			if (profile_resolve(p, cwds[i], &pr, &d) == 0 && devnull)
				profile_print(devnull, p, pr);
			profile_free(pr);
			pr = NULL;
		}
	}
	policy_free(p);
	diag_release(&d);
	return 0;
}
