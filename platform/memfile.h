/* memfile — a file in memory, for handing bytes to another program by descriptor (never a
 * file in a directory a sandbox could write): bwrap's data files (shell/shell.c), the cd
 * switch's state (shell/cdswitch.c). Linux: a memfd (platform/linux/memfile.c). */
#ifndef SBX_MEMFILE_H
#define SBX_MEMFILE_H
#include <stdbool.h>

/* An empty memory file, close-on-exec, opened for reading and writing; name is for
 * /proc/PID/fd only. sealable: memfile_seal may make it read-only for good. Returns the
 * descriptor or -errno. */
int memfile_open(const char *name, bool sealable);

/* Makes the memory file fd read-only for good (no write, no growth or shrink, no further
 * change of that) and puts its offset back at 0. Returns 0 or -errno. */
int memfile_seal(int fd);

#endif
