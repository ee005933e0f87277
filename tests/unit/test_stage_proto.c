/* test_stage_proto — the stage's messages: what decodes, and every way one is refused. */
#include <errno.h>
#include <string.h>

#include "platform/stage_proto.h"
#include "tests/unit/tap.h"

static int dec_plain(uint32_t magic, uint32_t kind, int32_t status, size_t len)
{
	struct sbx_stage_msg m = {magic, kind, status};
	struct stage_msg d;

	return stage_msg_decode(&m, len, &d);
}

int main(void)
{
	struct sbx_stage_msg m;
	struct sbx_stage_net n;
	struct stage_msg d;
	uint16_t role[SBX_STAGE_NET_MAX + 1] = {1, 2}, port[SBX_STAGE_NET_MAX + 1] = {3128, 1080};

	stage_msg_encode(&m, SBX_STAGE_EXITED, 0x0100);
	is_int(stage_msg_decode(&m, sizeof(m), &d), SBX_STAGE_EXITED, "EXITED decodes");
	is_int(d.status, 0x0100, "…with its wait status");
	is_int(dec_plain(SBX_STAGE_MAGIC, SBX_STAGE_STARTED, 0, sizeof(m)), SBX_STAGE_STARTED,
	       "STARTED decodes");
	is_int(dec_plain(SBX_STAGE_MAGIC, SBX_STAGE_GO, 7, sizeof(m)), SBX_STAGE_GO, "GO decodes");
	is_int(dec_plain(SBX_STAGE_MAGIC, SBX_STAGE_STOPPED, 0, sizeof(m)), SBX_STAGE_STOPPED,
	       "STOPPED decodes");
	is_int(dec_plain(SBX_STAGE_MAGIC, SBX_STAGE_FAILED, EACCES, sizeof(m)), SBX_STAGE_FAILED,
	       "FAILED decodes");
	is_int(dec_plain(SBX_STAGE_MAGIC, SBX_STAGE_STARTED, 0, 4), -EPROTO,
	       "a message shorter than its head is refused before a field is read");
	is_int(dec_plain(SBX_STAGE_MAGIC, SBX_STAGE_STARTED, 0, sizeof(m) - 1), -EPROTO,
	       "a message one byte short is refused");
	is_int(dec_plain(0x12345678, SBX_STAGE_STARTED, 0, sizeof(m)), -EPROTO, "a wrong magic");
	is_int(dec_plain(SBX_STAGE_MAGIC, 99, 0, sizeof(m)), -EPROTO, "an unknown kind");
	is_int(dec_plain(SBX_STAGE_MAGIC, SBX_STAGE_EXITED, 0x10000, sizeof(m)), -EPROTO,
	       "an EXITED status that is no wait status");
	is_int(dec_plain(SBX_STAGE_MAGIC, SBX_STAGE_EXITED, -1, sizeof(m)), -EPROTO,
	       "…or negative");
	is_int(dec_plain(SBX_STAGE_MAGIC, SBX_STAGE_FAILED, 0, sizeof(m)), -EPROTO,
	       "a FAILED without an errno");

	is_int(stage_net_encode(&n, role, port, 2), 0, "NET encodes two fronts");
	is_int(stage_msg_decode(&n, sizeof(n), &d), SBX_STAGE_NET, "…and decodes");
	ok(d.n == 2 && d.role[1] == 2 && d.port[0] == 3128 && d.port[1] == 1080,
	   "…with its roles and ports");
	is_int(stage_msg_decode(&n, sizeof(n) - 1, &d), -EPROTO, "a NET one byte short");
	is_int(stage_msg_decode(&n, sizeof(m), &d), -EPROTO, "a NET of a plain message's size");
	n.n = SBX_STAGE_NET_MAX + 1;
	is_int(stage_msg_decode(&n, sizeof(n), &d), -EPROTO, "a NET announcing too many fronts");
	is_int(stage_net_encode(&n, role, port, SBX_STAGE_NET_MAX + 1), -EINVAL,
	       "encoding too many fronts is an error");
	return tap_done();
}
