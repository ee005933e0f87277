/* stage_proto — the stage ↔ front end messages (platform/sandbox.h's struct sbx_stage_msg and
 * struct sbx_stage_net) as bytes: one encoder and one decoder both ends use.
 *
 * The stage's bytes come from inside the sandbox: the decoder checks the length before it
 * reads a field, then the magic, the kind, and every count against its limit.
 */
#ifndef SBX_STAGE_PROTO_H
#define SBX_STAGE_PROTO_H
#include <stddef.h>
#include <stdint.h>

#include "platform/sandbox.h"

/* One decoded message. net is filled for SBX_STAGE_NET only. */
struct stage_msg {
	uint32_t kind; /* enum sbx_stage_kind */
	int32_t
	    status; /* EXITED: a wait status (0..0xffff); FAILED: an errno (> 0); GO: 0 or not */
	uint32_t n; /* NET: descriptors announced (≤ SBX_STAGE_NET_MAX) */
	uint16_t role[SBX_STAGE_NET_MAX], port[SBX_STAGE_NET_MAX];
};

/* Decodes buf[0..len). Returns the kind (> 0) with *out filled, or -EPROTO for a message of
 * the wrong length, magic, kind or range. */
int stage_msg_decode(const void *buf, size_t len, struct stage_msg *out);

/* Encodes a plain message (any kind but NET) into *out. */
void stage_msg_encode(struct sbx_stage_msg *out, uint32_t kind, int32_t status);

/* Encodes the NET message for n fronts (n ≤ SBX_STAGE_NET_MAX). Returns 0 or -EINVAL. */
int stage_net_encode(struct sbx_stage_net *out, const uint16_t *role, const uint16_t *port,
		     size_t n);

#endif
