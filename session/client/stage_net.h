/* stage_net — the command's network front inside the sandbox, made by the stage before the
 * command runs (plain C: the stage links no event loop). */
#ifndef SBX_SESS_STAGE_NET_H
#define SBX_SESS_STAGE_NET_H
#include <stddef.h>
#include <stdint.h>

#include "session/client/client.h"

#define SESS_HTTP_PORT	3128
#define SESS_SOCKS_PORT 1080
/* 2 fronts and every reach port on two families, plus the relay */
#define SESS_STAGE_FDS_MAX (2 * 2 + 2 * SESS_PORTS_MAX + 1)

/* In the sandbox's network namespace (loopback up): listens on 127.0.0.1:3128 (HTTP and
 * CONNECT) and 127.0.0.1:1080 (SOCKS5), on 127.0.0.1:PORT for each reach port, each also on
 * [::1] when the namespace has IPv6; when nlisten, forks the listen relay (sess_relay_serve)
 * on a socketpair. Fills fds[0..*nfds) (SESS_STAGE_FDS_MAX entries; close-on-exec) for
 * the front end to pass on to the daemon with sess_begin; the stage closes its copies after
 * sending them, so nothing in the sandbox holds a listener but the daemon. Returns 0, or a
 * negative errno with *err (caller frees) naming the port; nothing is left open then. */
int sess_stage_listen(const uint16_t *reach, size_t nreach, size_t nlisten, struct sess_fd *fds,
		      size_t *nfds, char **err);

#endif
