/* fuzz_notify — what a notification names: the bytes a command hands a monitored call as a
 * path (read from its memory up to a NUL, PATH_MAX at most), as the monitor and the guard take
 * them: joined to the cwd when relative and normalized (platform/path.c), judged against the
 * mandatory denies (platform/mandatory.c), and escaped before they reach a terminal or the
 * violation log (platform/term.c).
 *
 * Invariants: the normal form is absolute, has no empty, "." or ".." component and no
 * trailing "/", and is a fixed point; another spelling of the same name ("//", "/./",
 * "x/../" inserted) has the same normal form; a protected name below the write grant is
 * refused at any depth whatever the bytes before it; the escaped text holds no control byte
 * (C0, DEL, C1); the violation log's record of the name holds none either, parses back, and
 * gives back a name of ASCII unchanged. */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/mandatory.h"
#include "platform/path.h"
#include "platform/buf.h"
#include "platform/term.h"
#include "session/vlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CWD "/home/u/p"

static void normal_form_ok(const char *p)
{
	char again[PATH_MAX * 2 + 64];
	size_t l = strlen(p);

	if (p[0] != '/' || (l > 1 && p[l - 1] == '/') || strstr(p, "//") || strstr(p, "/./") ||
	    strstr(p, "/../") || (l >= 2 && !strcmp(p + l - 2, "/.")) ||
	    (l >= 3 && !strcmp(p + l - 3, "/..")))
		abort();
	memcpy(again, p, l + 1);
	path_normalize(again);
	if (strcmp(again, p))
		abort();
}

/* p's first component boundary after at most k bytes: where a variant spelling goes */
static size_t boundary(const char *p, size_t k)
{
	size_t i = 0, b = 0;

	for (; p[i] && i <= k; i++)
		if (p[i] == '/')
			b = i;
	return b;
}

static void same_name(const char *norm, const char *raw, size_t k)
{
	static const char *const ins[] = {"/", "/.", "/x/.."};
	char v[PATH_MAX * 2 + 64];
	size_t b = boundary(raw, k), l = strlen(raw);

	for (size_t i = 0; i < sizeof(ins) / sizeof(ins[0]); i++) {
		size_t il = strlen(ins[i]);

		if (b + il + (l - b) + 1 > sizeof(v))
			return;
		memcpy(v, raw, b);
		memcpy(v + b, ins[i], il);
		memcpy(v + b + il, raw + b, l - b + 1);
		path_normalize(v);
		if (strcmp(v, norm))
			abort();
	}
}

static void escaped_ok(const char *s)
{
	static char out[PATH_MAX * 6 + 1];
	const unsigned char *u = (const unsigned char *)out;
	size_t n = sbx_term_escape(out, sizeof(out), s);

	if (n != strlen(out))
		abort();
	for (size_t i = 0; i < n; i++)
		if (u[i] < 0x20 || u[i] == 0x7f ||
		    (u[i] == 0xc2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f))
			abort();
}

/* the name in a violation log record: the line parses back, no raw control byte in it, and
 * a name of ASCII comes back as it was */
static void logged_ok(const char *s)
{
	const struct vlog_record r = {.kind = "write", .path = s, .call = "openat"};
	struct buf b = {0};
	struct vlog_entry e;
	bool ascii = true;

	vlog_format(&b, &r, NULL);
	if (!b.p || b.err)
		abort();
	for (size_t i = 0; i < b.n; i++)
		if ((unsigned char)b.p[i] < 0x20 ? b.p[i] != '\n' || i != b.n - 1
						 : (unsigned char)b.p[i] == 0x7f)
			abort();
	for (const unsigned char *u = (const unsigned char *)s; *u; u++)
		ascii = ascii && *u < 0x80;
	buf_add(&b, "", 1); /* vlog_parse writes at buf[n] */
	if (vlog_parse(b.p, b.n - 1, &e) != 0 || !e.path || (ascii && strcmp(e.path, s)))
		abort();
	buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const grants[] = {CWD};
	static const char *const tails[] = {"/.git/hooks/pre-commit", "/.bashrc", "/.git/config",
					    "/.vscode/settings.json", "/.envrc"};
	const struct mand_ctx mc = {.home = "/home/u", .grants = grants, .ngrants = 1};
	char raw[PATH_MAX], p[PATH_MAX * 2 + 64], deep[PATH_MAX * 3];
	struct mand_hit hit;
	size_t n = size < sizeof(raw) - 1 ? size : sizeof(raw) - 1, k;
	int r;

	memcpy(raw, data, n);
	raw[n] = '\0'; /* read_str: up to the first NUL */
	k = n ? data[0] : 0;

	if (raw[0] == '/')
		strcpy(p, raw);
	else {
		memcpy(p, CWD "/", sizeof(CWD));
		strcpy(p + sizeof(CWD), raw);
	}
	path_normalize(p);
	normal_form_ok(p);
	if (raw[0] == '/')
		same_name(p, raw, k);

	for (int op = MAND_WRITE; op <= MAND_LINK; op++) {
		r = mandatory_check(&mc, p, (enum mand_op)op, &hit);
		if (r < 0 || r > 1 ||
		    (r == 1 && (!hit.rule || hit.lift < MAND_NEVER || hit.lift > MAND_CREATE)))
			abort();
	}

	/* the same bytes as a directory below the grant, a protected name under it */
	if (!strstr(p, "/..") && strlen(p) + sizeof(CWD) + 32 < sizeof(deep)) {
		const char *tail = tails[k % (sizeof(tails) / sizeof(tails[0]))];
		char *q = deep;

		memcpy(q, CWD, sizeof(CWD) - 1);
		q += sizeof(CWD) - 1;
		if (strcmp(p, "/"))
			q = stpcpy(q, p);
		strcpy(q, tail);
		path_normalize(deep);
		if (path_under(deep, CWD) && mandatory_check(&mc, deep, MAND_WRITE, &hit) != 1)
			abort();
	}

	escaped_ok(raw);
	logged_ok(raw);
	return 0;
}
