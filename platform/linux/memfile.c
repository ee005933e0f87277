/* memfile — the Linux backend of platform/memfile.h: memfd_create and its seals. */
#include "platform/memfile.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

int memfile_open(const char *name, bool sealable)
{
	int fd = memfd_create(name, MFD_CLOEXEC | (sealable ? MFD_ALLOW_SEALING : 0));

	return fd < 0 ? -errno : fd;
}

int memfile_seal(int fd)
{
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0 ||
	    lseek(fd, 0, SEEK_SET) != 0)
		return -errno;
	return 0;
}
