/* nested — is this process already inside an sbxsh sandbox? (compat.md 11)
 *
 * The fact used cannot be forged from outside nor removed from inside: the marker is an
 * empty root-owned file on the host that only a sandbox has a read-only mount over (its
 * own mount id differs from its directory's) carrying the magic text. Outside, making
 * that mount needs mount rights, which would already mean no sandbox to escape; inside,
 * unmounting it is refused by seccomp and by the missing capabilities.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/host.h"
#include "platform/sandbox.h"
#include "shell/shell.h"

bool nested_detect(const char *marker, char **inner_shell)
{
	char buf[4097];
	bool nested = false;
	int fd = open(marker, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	*inner_shell = NULL;
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = '\0';
		nested = strncmp(buf, SBX_MARKER_MAGIC, strlen(SBX_MARKER_MAGIC)) == 0 &&
			 host_is_mount_point(fd, marker);
	}
	close(fd);
	const char *sh = nested ? strstr(buf, "\ninner_shell=") : NULL;
	if (sh) {
		sh += strlen("\ninner_shell=");
		if (sh[0] == '/')
			*inner_shell = strndup(sh, strcspn(sh, "\n"));
	}
	return nested;
}
