/* fds — descriptor housekeeping a child does before exec. */
#ifndef SBX_FDS_H
#define SBX_FDS_H

/* Closes every descriptor from lowfd up (close_range, with a /proc/self/fd walk where the
 * kernel lacks it). Returns 0 or -errno. Async-signal-safe: for a forked child. */
int sbx_close_from(int lowfd);

#endif
