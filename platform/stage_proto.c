/* stage_proto — the stage's messages, encoded and checked (stage_proto.h). */
#include "platform/stage_proto.h"

#include <errno.h>
#include <string.h>

void stage_msg_encode(struct sbx_stage_msg *out, uint32_t kind, int32_t status)
{
	memset(out, 0, sizeof(*out));
	out->magic = SBX_STAGE_MAGIC;
	out->kind = kind;
	out->status = status;
}

int stage_net_encode(struct sbx_stage_net *out, const uint16_t *role, const uint16_t *port,
		     size_t n)
{
	if (n > SBX_STAGE_NET_MAX)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->magic = SBX_STAGE_MAGIC;
	out->kind = SBX_STAGE_NET;
	out->n = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		out->fd[i].role = role[i];
		out->fd[i].port = port[i];
	}
	return 0;
}

static int decode_net(const void *buf, size_t len, struct stage_msg *out)
{
	struct sbx_stage_net m;

	if (len != sizeof(m))
		return -EPROTO;
	memcpy(&m, buf, sizeof(m));
	if (m.n > SBX_STAGE_NET_MAX)
		return -EPROTO;
	out->n = m.n;
	for (size_t i = 0; i < m.n; i++) {
		out->role[i] = m.fd[i].role;
		out->port[i] = m.fd[i].port;
	}
	return SBX_STAGE_NET;
}

int stage_msg_decode(const void *buf, size_t len, struct stage_msg *out)
{
	uint32_t head[2];
	struct sbx_stage_msg m;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(head))
		return -EPROTO;
	memcpy(head, buf, sizeof(head));
	if (head[0] != SBX_STAGE_MAGIC)
		return -EPROTO;
	out->kind = head[1];
	if (head[1] == SBX_STAGE_NET)
		return decode_net(buf, len, out);
	if (len != sizeof(m))
		return -EPROTO;
	memcpy(&m, buf, sizeof(m));
	out->status = m.status;
	switch (m.kind) {
	case SBX_STAGE_STARTED:
	case SBX_STAGE_GO:
	case SBX_STAGE_STOPPED:
		return (int)m.kind;
	case SBX_STAGE_EXITED:
		return m.status >= 0 && m.status <= 0xffff ? (int)m.kind : -EPROTO;
	case SBX_STAGE_FAILED:
		return m.status > 0 ? (int)m.kind : -EPROTO;
	default:
		return -EPROTO;
	}
}
