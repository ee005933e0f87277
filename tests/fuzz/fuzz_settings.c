/* fuzz_settings — the settings sanitisers (platform/settings.h): their input is the user's
 * file, which a sandboxed command may have written (a project's own settings copied there, a
 * poisoned download). The first byte picks the kind. Whatever they keep, they keep within
 * bounds: the output is NUL-terminated, never longer than the input and a newline, and a
 * second pass over it changes nothing (what one pass emits, none would drop: no secret kept
 * by a parse that drifted). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum settings_kind kinds[] = {SETTINGS_NPMRC, SETTINGS_PIP,    SETTINGS_DOCKER,
						   SETTINGS_MAVEN, SETTINGS_GRADLE, SETTINGS_YARNRC,
						   SETTINGS_NIX};
	char *out = NULL, *again = NULL;

	if (size < 1)
		return 0;
	enum settings_kind k = kinds[data[0] % (sizeof(kinds) / sizeof(kinds[0]))];
	if (settings_sanitize(k, (const char *)data + 1, size - 1, &out) < 0) {
		if (out)
			abort();
		return 0;
	}
	size_t n = strlen(out);
	if (n > size)
		abort();
	if (settings_sanitize(k, out, n, &again) < 0 || strcmp(again, out) != 0)
		abort();
	free(again);
	free(out);
	return 0;
}
