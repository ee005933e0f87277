/* proto — encode and decode session control frames.
 *
 * Rules kept here: the decoder trusts no length (each is checked against what is left and
 * against the bounds in proto.h), never allocates, never reads past n, and refuses anything
 * it does not know (tag, type, version) rather than skipping it.
 */
#include "session/proto.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_TEXT, K_TEXTS, K_PORTS, K_FD, K_PORT, K_COUNTER, K_REFUSAL };

static const struct field {
	uint8_t tag;
	enum kind kind;
	size_t off;  /* of the sess_str / array / uint16_t in struct sess_msg */
	size_t noff; /* of the count, for lists */
	size_t max;  /* list bound */
	int counter;
} fields[] = {
    {T_CMD_ID, K_TEXT, offsetof(struct sess_msg, cmd_id), 0, 0, 0},
    {T_CMDLINE, K_TEXT, offsetof(struct sess_msg, cmdline), 0, 0, 0},
    {T_CWD, K_TEXT, offsetof(struct sess_msg, cwd), 0, 0, 0},
    {T_PROFILE, K_TEXT, offsetof(struct sess_msg, profile), 0, 0, 0},
    {T_PROFILE_FILE, K_TEXT, offsetof(struct sess_msg, profile_file), 0, 0, 0},
    {T_TEXT, K_TEXT, offsetof(struct sess_msg, text), 0, 0, 0},
    {T_ALLOW, K_TEXTS, offsetof(struct sess_msg, allow), offsetof(struct sess_msg, nallow),
     SESS_LIST_MAX, 0},
    {T_DENY, K_TEXTS, offsetof(struct sess_msg, deny), offsetof(struct sess_msg, ndeny),
     SESS_LIST_MAX, 0},
    {T_REACH, K_PORTS, offsetof(struct sess_msg, reach), offsetof(struct sess_msg, nreach),
     SESS_PORTS_MAX, 0},
    {T_LISTEN, K_PORTS, offsetof(struct sess_msg, listen), offsetof(struct sess_msg, nlisten),
     SESS_PORTS_MAX, 0},
    {T_FD, K_FD, offsetof(struct sess_msg, fds), offsetof(struct sess_msg, nfds), SESS_FDS_MAX, 0},
    {T_PORT, K_PORT, offsetof(struct sess_msg, port), 0, 0, 0},
    {T_REFUSAL, K_REFUSAL, offsetof(struct sess_msg, refusals),
     offsetof(struct sess_msg, nrefusals), SESS_REFUSALS_MAX, 0},
    {T_NOTE, K_REFUSAL, offsetof(struct sess_msg, notes), offsetof(struct sess_msg, nnotes),
     SESS_NOTES_MAX, 0},
    {T_UNLISTED, K_PORT, offsetof(struct sess_msg, refusals_more), 0, 0, 0},
    {T_PID, K_COUNTER, 0, 0, 0, SC_PID},
    {T_UPTIME, K_COUNTER, 0, 0, 0, SC_UPTIME},
    {T_SERVED, K_COUNTER, 0, 0, 0, SC_SERVED},
    {T_LIVE, K_COUNTER, 0, 0, 0, SC_LIVE},
    {T_CONNS, K_COUNTER, 0, 0, 0, SC_CONNS},
    {T_ALLOWED, K_COUNTER, 0, 0, 0, SC_ALLOWED},
    {T_REFUSED, K_COUNTER, 0, 0, 0, SC_REFUSED},
    {T_BYTES_UP, K_COUNTER, 0, 0, 0, SC_BYTES_UP},
    {T_BYTES_DOWN, K_COUNTER, 0, 0, 0, SC_BYTES_DOWN},
};

static const uint8_t types[] = {SESS_BEGIN, SESS_END, SESS_STATUS, SESS_STOP,
				SESS_RELAY, SESS_OK,  SESS_ERR,	   SESS_STATUS_REPLY};

static const struct field *field_of(uint8_t tag)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].tag == tag)
			return &fields[i];
	return NULL;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

long sess_frame_len(const void *frame, size_t n)
{
	const uint8_t *p = frame;
	uint32_t len;

	if (n < SESS_HDR_LEN)
		return 0;
	len = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	if (len > SESS_BODY_MAX)
		return -EMSGSIZE;
	if (len < 2)
		return -EPROTO;
	return (long)(SESS_HDR_LEN + len);
}

static void *at(struct sess_msg *m, size_t off)
{
	return (char *)m + off;
}

/* One length-prefixed text of a T_REFUSAL value at *v (*n left); advances both. */
static int take_text(const uint8_t **v, size_t *n, struct sess_str *s)
{
	size_t len;

	if (*n < 2 || (len = get16(*v)) > *n - 2 || memchr(*v + 2, '\0', len))
		return -EPROTO;
	s->p = (const char *)*v + 2;
	s->n = len;
	*v += 2 + len;
	*n -= 2 + len;
	return 0;
}

/* One T_REFUSAL or T_NOTE into the list f names. */
static int store_refusal(struct sess_msg *m, const struct field *f, const uint8_t *v, size_t n)
{
	size_t *cnt = (size_t *)((char *)m + f->noff);
	struct sess_refusal *r;

	if (*cnt >= f->max || n < 2)
		return -EPROTO;
	r = (struct sess_refusal *)((char *)m + f->off) + *cnt;
	r->port = get16(v);
	v += 2;
	n -= 2;
	if (take_text(&v, &n, &r->host) < 0 || take_text(&v, &n, &r->reason) < 0 ||
	    take_text(&v, &n, &r->grant) < 0 || n != 0)
		return -EPROTO;
	(*cnt)++;
	return 0;
}

/* Stores one field's value v (len n) into m. */
static int store(struct sess_msg *m, const struct field *f, const uint8_t *v, size_t n)
{
	size_t *cnt = f->noff ? at(m, f->noff) : NULL;

	switch (f->kind) {
	case K_TEXT:
	case K_TEXTS: {
		struct sess_str *s = at(m, f->off);
		if (memchr(v, '\0', n))
			return -EPROTO;
		if (f->kind == K_TEXTS) {
			if (*cnt >= f->max)
				return -EPROTO;
			s += (*cnt)++;
		} else if (s->p) {
			return -EPROTO;
		}
		s->p = (const char *)v;
		s->n = n;
		return 0;
	}
	case K_PORTS:
	case K_PORT: {
		uint16_t *port = at(m, f->off);
		if (n != 2 || get16(v) == 0)
			return -EPROTO;
		if (f->kind == K_PORTS) {
			if (*cnt >= f->max)
				return -EPROTO;
			port += (*cnt)++;
		} else if (*port) {
			return -EPROTO;
		}
		*port = get16(v);
		return 0;
	}
	case K_FD: {
		struct sess_fdspec *fs = at(m, f->off);
		if (n != 3 || *cnt >= f->max || v[0] < SESS_FD_HTTP || v[0] > SESS_FD_RELAY)
			return -EPROTO;
		if ((v[0] == SESS_FD_REACH) != (get16(v + 1) != 0))
			return -EPROTO;
		fs[*cnt].role = v[0];
		fs[*cnt].port = get16(v + 1);
		(*cnt)++;
		return 0;
	}
	case K_REFUSAL:
		return store_refusal(m, f, v, n);
	case K_COUNTER:
		if (n != 8 || (m->have_counters & (1u << f->counter)))
			return -EPROTO;
		m->counter[f->counter] = get64(v);
		m->have_counters |= 1u << f->counter;
		return 0;
	}
	return -EPROTO;
}

int sess_decode(const void *frame, size_t n, struct sess_msg *m)
{
	const uint8_t *p = frame;
	long want = sess_frame_len(p, n);
	size_t i;
	bool known = false;

	memset(m, 0, sizeof(*m));
	if (want <= 0 || (size_t)want != n)
		return -EPROTO;
	if (p[SESS_HDR_LEN] != SESS_PROTO_VERSION)
		return -EPROTONOSUPPORT;
	m->type = p[SESS_HDR_LEN + 1];
	for (i = 0; i < sizeof(types); i++)
		known |= types[i] == m->type;
	if (!known)
		return -EPROTO;
	for (i = SESS_HDR_LEN + 2; i < n;) {
		const struct field *f;
		size_t len;
		int rc;

		if (n - i < 3)
			return -EPROTO;
		f = field_of(p[i]);
		len = get16(p + i + 1);
		if (!f || len > SESS_FIELD_MAX || len > n - i - 3)
			return -EPROTO;
		if ((rc = store(m, f, p + i + 3, len)) < 0)
			return rc;
		i += 3 + len;
	}
	return 0;
}

static void put(struct buf *b, uint8_t tag, const void *v, size_t n)
{
	uint8_t head[3] = {tag, (uint8_t)(n >> 8), (uint8_t)n};

	if (n > SESS_FIELD_MAX && !b->err)
		b->err = -E2BIG;
	buf_add(b, head, 3);
	buf_add(b, v, n);
}

static void put_text(struct buf *b, uint8_t tag, struct sess_str s)
{
	if (!s.p)
		return;
	if (memchr(s.p, '\0', s.n) && !b->err)
		b->err = -EINVAL;
	put(b, tag, s.p, s.n);
}

static void put16(struct buf *b, uint8_t tag, uint16_t v)
{
	uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};
	put(b, tag, x, 2);
}

static void put_refusal(struct buf *b, uint8_t tag, const struct sess_refusal *r)
{
	const struct sess_str *t[3] = {&r->host, &r->reason, &r->grant};
	uint8_t x[2 + 3 * (2 + SESS_REFUSAL_TEXT)];
	size_t n = 0;

	x[n++] = (uint8_t)(r->port >> 8);
	x[n++] = (uint8_t)r->port;
	for (int i = 0; i < 3; i++) {
		size_t len = t[i]->p ? t[i]->n : 0;
		if ((len > SESS_REFUSAL_TEXT || (len && memchr(t[i]->p, '\0', len))) && !b->err)
			b->err = -EINVAL;
		if (b->err)
			return;
		x[n++] = (uint8_t)(len >> 8);
		x[n++] = (uint8_t)len;
		if (len)
			memcpy(x + n, t[i]->p, len);
		n += len;
	}
	put(b, tag, x, n);
}

static void put_field(struct buf *b, const struct sess_msg *m, const struct field *f)
{
	const void *base = (const char *)m + f->off;
	size_t cnt = f->noff ? *(const size_t *)((const char *)m + f->noff) : 0;

	if (f->noff && cnt > f->max && !b->err)
		b->err = -E2BIG;
	for (size_t i = 0; f->noff && i < cnt && !b->err; i++) {
		if (f->kind == K_TEXTS)
			put_text(b, f->tag, ((const struct sess_str *)base)[i]);
		else if (f->kind == K_PORTS)
			put16(b, f->tag, ((const uint16_t *)base)[i]);
		else if (f->kind == K_REFUSAL)
			put_refusal(b, f->tag, (const struct sess_refusal *)base + i);
		else {
			const struct sess_fdspec *fs = (const struct sess_fdspec *)base + i;
			uint8_t x[3] = {fs->role, (uint8_t)(fs->port >> 8), (uint8_t)fs->port};
			put(b, f->tag, x, 3);
		}
	}
	if (f->kind == K_TEXT)
		put_text(b, f->tag, *(const struct sess_str *)base);
	else if (f->kind == K_PORT && *(const uint16_t *)base)
		put16(b, f->tag, *(const uint16_t *)base);
	else if (f->kind == K_COUNTER && (m->have_counters & (1u << f->counter))) {
		uint8_t x[8];
		for (int i = 0; i < 8; i++)
			x[i] = (uint8_t)(m->counter[f->counter] >> (56 - 8 * i));
		put(b, f->tag, x, 8);
	}
}

int sess_encode(const struct sess_msg *m, struct buf *b)
{
	uint8_t head[SESS_HDR_LEN + 2] = {[SESS_HDR_LEN] = SESS_PROTO_VERSION,
					  [SESS_HDR_LEN + 1] = m->type};
	uint8_t *p;
	size_t body;

	buf_reset(b);
	b->max = SESS_HDR_LEN + SESS_BODY_MAX;
	buf_add(b, head, sizeof(head));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		put_field(b, m, &fields[i]);
	if (b->err)
		return b->err;
	body = b->n - SESS_HDR_LEN;
	p = (uint8_t *)b->p;
	p[0] = (uint8_t)(body >> 24);
	p[1] = (uint8_t)(body >> 16);
	p[2] = (uint8_t)(body >> 8);
	p[3] = (uint8_t)body;
	return 0;
}

struct sess_str sess_s(const char *s)
{
	struct sess_str r = {s, s ? strlen(s) : 0};
	return r;
}

size_t sess_fds_expected(const struct sess_msg *m)
{
	if (m->type == SESS_RELAY)
		return 1;
	return m->type == SESS_BEGIN ? m->nfds : 0;
}
