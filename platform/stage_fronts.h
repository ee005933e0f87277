/* stage_fronts — what the stage (platform/linux/stage_main.c) needs from the network layer
 * above it for network = proxy: the command's fronts, made in the sandbox's namespace before
 * the command runs. Declared here, provided by session/client/stage_net.c, which the stage links:
 * the stage's one call upwards, inverted so that no platform file includes a session header.
 */
#ifndef SBX_STAGE_FRONTS_H
#define SBX_STAGE_FRONTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STAGE_REACH_MAX 32 /* reach ports at most: session/proto.h SESS_PORTS_MAX */

/* One front: a descriptor (close-on-exec) and how the daemon uses it. */
struct stage_front {
	int fd;
	uint16_t role; /* session/proto.h's enum sess_fd_role, as struct sbx_stage_net sends it */
	uint16_t port; /* a reach port's number, else 0 */
};

/* Listens on the fronts (the HTTP and SOCKS5 proxies, each reach port; the listen relay when
 * relay) and fills out[0..*n) (SBX_STAGE_NET_MAX entries). Returns 0, or a negative errno
 * with *err (caller frees) naming the port; nothing is left open then. */
int stage_fronts_make(const uint16_t *reach, size_t nreach, bool relay, struct stage_front *out,
		      size_t *n, char **err);

#endif
