/* fuzz_vlog — the violation log line parser (sbxsh log reads a file anyone with the user's
 * rights may have edited): never reads past the line, and every field it returns lies
 * inside the buffer and is NUL-terminated there. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "session/vlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	struct vlog_entry e;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (vlog_parse(buf, size, &e) == 0) {
		char *f[] = {e.time,	e.session,	e.command,    e.cmdline, e.cwd,
			     e.profile, e.profile_file, e.profile_at, e.kind,	 e.path,
			     e.host,	e.call,		e.reason,     e.grant};

		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
			if (f[i] && (f[i] < buf || f[i] + strlen(f[i]) > buf + size))
				abort();
	}
	free(buf);
	return 0;
}
