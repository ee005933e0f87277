/* fuzz_stage — the stage's messages (platform/stage_proto.h). Invariants: a message decodes
 * to a known kind or -EPROTO; a NET message's count is within its limit; what decodes
 * encodes back to the same bytes (a NET message: its header and its announced entries). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/stage_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct stage_msg m;
	int k = stage_msg_decode(data, size, &m);

	if (k == -EPROTO)
		return 0;
	if (k < SBX_STAGE_STARTED || k > SBX_STAGE_STOPPED)
		abort();
	if (k == SBX_STAGE_NET) {
		struct sbx_stage_net e;
		if (m.n > SBX_STAGE_NET_MAX || size != sizeof(e) ||
		    stage_net_encode(&e, m.role, m.port, m.n) != 0 ||
		    memcmp(&e, data, offsetof(struct sbx_stage_net, fd) + m.n * sizeof(e.fd[0])) !=
			0)
			abort();
		return 0;
	}
	struct sbx_stage_msg e;
	stage_msg_encode(&e, (uint32_t)k, m.status);
	if (size != sizeof(e) || memcmp(&e, data, sizeof(e)) != 0)
		abort();
	if (k == SBX_STAGE_EXITED && (m.status < 0 || m.status > 0xffff))
		abort();
	return 0;
}
