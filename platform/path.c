/* path — policy path spelling (see path.h).
 *
 * Rules kept: a variable that is unset, empty or relative is an error, never an empty or
 * cwd-relative grant; glob syntax is validated here so the sandbox never sees a broken one;
 * ".." is resolved lexically before symlinks are, so "x/.." is always the directory itself;
 * an unreadable or missing prefix is kept as written, never an error.
 */
#include "platform/path.h"

#include "platform/buf.h"
#include "platform/host.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool is_glob_char(char c)
{
	return c == '*' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}';
}

/* Characters a scan stops at: SP_LIT, the glob characters and '\\' (sb_puts_lit escapes
 * them); SP_SYNTAX, what path_glob_error looks at ('\\', '$', '[', '{', '}'); SP_GLOB, what
 * starts a glob or escapes ('*', '?', '[', '{', '\\'); SP_SLASH, '/'; the NUL all. A table: the
 * default policy's ~350 paths are scanned a character at a time, several times. */
enum { SP_LIT = 1, SP_SYNTAX = 2, SP_GLOB = 4, SP_SLASH = 8 };
static const unsigned char special[256] = {
    ['\0'] = SP_LIT | SP_SYNTAX | SP_GLOB | SP_SLASH,
    ['/'] = SP_SLASH,
    ['*'] = SP_LIT | SP_GLOB,
    ['?'] = SP_LIT | SP_GLOB,
    ['['] = SP_LIT | SP_SYNTAX | SP_GLOB,
    [']'] = SP_LIT,
    ['{'] = SP_LIT | SP_SYNTAX | SP_GLOB,
    ['}'] = SP_LIT | SP_SYNTAX,
    ['\\'] = SP_LIT | SP_SYNTAX | SP_GLOB,
    ['$'] = SP_SYNTAX,
};

const char *path_glob_start(const char *s)
{
	for (;; s++) {
		while (!(special[(unsigned char)*s] & SP_GLOB))
			s++;
		if (!*s)
			return NULL;
		if (*s != '\\')
			return s; /* '*', '?', '[' or '{' */
		if (s[1])
			s++; /* an escaped character */
	}
}

bool path_has_glob(const char *s)
{
	return path_glob_start(s) != NULL;
}

/* Appends s with every glob character and backslash escaped. */
static void sb_puts_lit(struct buf *b, const char *s)
{
	while (*s) {
		const char *e = s; /* a run of plain characters goes in one copy */
		while (!(special[(unsigned char)*e] & SP_LIT))
			e++;
		buf_add(b, s, (size_t)(e - s));
		if (!*e)
			break;
		buf_add(b, "\\", 1);
		buf_add(b, e, 1);
		s = e + 1;
	}
}

char *path_escape(const char *s)
{
	struct buf b = {0};

	sb_puts_lit(&b, s);
	return buf_steal(&b);
}

/* A policy value's characters beside the glob ones: blanks and ',' separate list entries, '$'
 * starts a variable, " ;" a comment. */
static bool is_value_char(char c)
{
	return c == ' ' || c == '\t' || c == ',' || c == '$' || c == ';';
}

char *path_escape_value(const char *s)
{
	struct buf b = {0};

	for (; *s; s++) {
		if (is_glob_char(*s) || *s == '\\' || is_value_char(*s))
			buf_add(&b, "\\", 1);
		buf_add(&b, s, 1);
	}
	return buf_steal(&b);
}

char *path_unescape(const char *s)
{
	char *o = malloc(strlen(s) + 1), *w = o;

	if (!o)
		return NULL;
	for (; *s; s++) {
		if (*s == '\\' && s[1])
			s++;
		*w++ = *s;
	}
	*w = '\0';
	return o;
}

char *path_cat(const char *a, size_t na, const char *b, const char *c)
{
	size_t nb = strlen(b), nc = strlen(c);
	char *o = malloc(na + nb + nc + 1);

	if (!o)
		return NULL;
	memcpy(o, a, na);
	memcpy(o + na, b, nb);
	memcpy(o + na + nb, c, nc + 1);
	return o;
}

/* The end of the […] set at s ('['), or s itself when it is not one. */
static const char *set_end(const char *s)
{
	const char *e = s + 1;

	if (*e == '!' || *e == '^')
		e++;
	if (*e == ']')
		e++;
	while (*e && *e != ']' && *e != '/')
		e++;
	return *e == ']' ? e : s;
}

const char *path_glob_error(const char *s)
{
	int braces = 0;
	while (!(special[(unsigned char)*s] & SP_SYNTAX)) /* most paths have none */
		s++;
	for (; *s; s++) {
		if (*s == '\\') {
			if (!s[1])
				return "ends with a lone '\\'; write '\\\\' for a backslash";
			s++;
		} else if (*s == '$' && s[1] == '{') {
			const char *e = strchr(s, '}');
			if (!e)
				return "has an unterminated '${'; write ${NAME}";
			s = e;
		} else if (*s == '[') {
			const char *e = set_end(s);
			if (e == s)
				return "has an unterminated '['; close it with ']' or escape it as "
				       "'\\['";
			s = e;
		} else if (*s == '{') {
			braces++;
		} else if (*s == '}') {
			if (--braces < 0)
				return "has a '}' without '{'; escape it as '\\}'";
		}
	}
	if (braces > 0)
		return "has an unterminated '{'; close it with '}' or escape it as '\\{'";
	return NULL;
}

/* The first brace group of pat: *open at its '{', and its top-level commas and closing '}'
 * in cut[] (*ncut of them, the '}' last). false when pat has none (or an unmatched one). */
static bool brace_group(const char *pat, const char **open, const char **cut, size_t *ncut,
			size_t max)
{
	int depth = 0;

	*open = NULL;
	*ncut = 0;
	for (const char *s = pat; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
		} else if (*s == '[') {
			s = set_end(s);
		} else if (*s == '{') {
			if (depth++ == 0)
				*open = s;
		} else if (*open && *s == ',' && depth == 1) {
			if (*ncut + 1 >= max)
				return false;
			cut[(*ncut)++] = s;
		} else if (*open && *s == '}' && --depth == 0) {
			cut[(*ncut)++] = s;
			return true;
		}
	}
	return false;
}

static int brace_expand(const char *pat, struct strv *out, size_t limit)
{
	const char *open, *cut[PATH_BRACE_MAX];
	size_t ncut;
	int r = 0;

	if (!brace_group(pat, &open, cut, &ncut, PATH_BRACE_MAX))
		return out->n >= limit ? -E2BIG : strv_push(out, pat);
	const char *from = open + 1;
	for (size_t i = 0; r == 0 && i < ncut; from = cut[i++] + 1) {
		char *p = NULL;
		if (asprintf(&p, "%.*s%.*s%s", (int)(open - pat), pat, (int)(cut[i] - from), from,
			     cut[ncut - 1] + 1) < 0)
			return -ENOMEM;
		r = brace_expand(p, out, limit);
		free(p);
	}
	return r;
}

int path_brace_expand(const char *pat, struct strv *out)
{
	return brace_expand(pat, out, out->n + PATH_BRACE_MAX);
}

/* 0 when pat's alternatives stay within PATH_BRACE_MAX, else -E2BIG (or -ENOMEM). */
static int brace_count_ok(const char *pat)
{
	struct strv t = {0};
	int r = path_brace_expand(pat, &t);

	strv_release(&t);
	return r;
}

/* Expands one $VAR / ${VAR} at *pp (pointing at '$'); advances *pp. */
static int expand_var(const char **pp, struct buf *b, char **err)
{
	const char *p = *pp + 1, *name, *end;
	bool braced = *p == '{';
	if (braced)
		p++;
	name = p;
	while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
	       *p == '_')
		p++;
	end = p;
	if (braced && *p != '}') {
		*err = strdup("has an unterminated '${'; write ${NAME}");
		return -EINVAL;
	}
	if (end == name) {
		*err = strdup("has a '$' without a variable name; write \\$ for a literal '$'");
		return -EINVAL;
	}
	char var[256];
	size_t n = (size_t)(end - name) < sizeof(var) - 1 ? (size_t)(end - name) : sizeof(var) - 1;
	memcpy(var, name, n);
	var[n] = '\0';
	const char *val = getenv(var);
	if (!val || !*val) { /* common (deny_read's stores moved by a variable): no asprintf */
		*err =
		    path_cat("uses $", 6, var, ", which is not set; set it or write the path out");
		return -ENXIO;
	}
	/* Kerberos's spelling of a file or directory cache (KRB5CCNAME=FILE:/tmp/x, DIR:/run/…,
	 * KRB5_KTNAME=FILE:/etc/x.keytab, WRFILE:): the path after the type. Its other types
	 * (KEYRING:, KCM:, MEMORY:) are relative, so they name nothing. */
	static const char *const krb_types[] = {"FILE:/", "DIR:/", "WRFILE:/"};
	for (size_t i = 0; b->n == 0 && i < sizeof(krb_types) / sizeof(krb_types[0]); i++)
		if (strncmp(val, krb_types[i], strlen(krb_types[i])) == 0) {
			val += strlen(krb_types[i]) - 1;
			break;
		}
	sb_puts_lit(b, val); /* a value's characters are literal, never glob syntax */
	*pp = braced ? p + 1 : p;
	return 0;
}

/* Copies in to b expanding variables; keeps \ before glob characters, drops it elsewhere. */
static int expand_vars(const char *in, struct buf *b, char **err)
{
	for (const char *p = in; *p;) {
		if (*p == '\\' && p[1]) {
			if (is_glob_char(p[1]) || p[1] == '\\')
				buf_add(b, p, 2);
			else
				buf_add(b, p + 1, 1);
			p += 2;
		} else if (*p == '$') {
			int r = expand_var(&p, b, err);
			if (r < 0)
				return r;
		} else {
			const char *e = p + 1; /* a run of plain characters goes in one copy */
			while (*e && *e != '\\' && *e != '$')
				e++;
			buf_add(b, p, (size_t)(e - p));
			p = e;
		}
	}
	return b->err;
}

/* r is at a '/' followed by a component that stays as it is (not empty, ".", or ".."). */
static bool plain_component(const char *r)
{
	if (r[0] != '/' || !r[1] || r[1] == '/')
		return false;
	if (r[1] != '.')
		return true;
	return r[2] && r[2] != '/' && (r[2] != '.' || (r[3] && r[3] != '/'));
}

void path_normalize(char *p)
{
	char *w;
	const char *r = p;

	/* Nearly every path is already normal: walk it without writing until the first thing to
	 * change ("//", "/./", "/../", a trailing "/"), then compact from there. */
	while (plain_component(r)) {
		r++;
		while (*r && *r != '/')
			r++;
	}
	if (!*r && r != p)
		return;
	w = p + (r - p);
	while (*r) {
		while (*r == '/')
			r++;
		const char *c = r;
		while (*r && *r != '/')
			r++;
		size_t len = (size_t)(r - c);
		if (len == 0 || (len == 1 && c[0] == '.'))
			continue;
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			while (w > p && *--w != '/')
				;
			continue;
		}
		*w++ = '/';
		if (w != c)
			memmove(w, c, len);
		w += len;
	}
	if (w == p)
		*w++ = '/';
	*w = '\0';
}

int path_expand_buf(const char *in, const char *home, const char *root, struct buf *bp, char **err)
{
	int r = 0;
	const char *gerr;
	bool from_var = in[0] == '$';

	buf_reset(bp);
	struct buf b = *bp;
	*err = NULL;
	if (!*in) {
		*err = strdup("is empty");
		return -EINVAL;
	}
	if (in[0] == '~' && in[1] && in[1] != '/') {
		*err = strdup("uses ~user, which is not supported; write the absolute path");
		return -EINVAL;
	}
	if (in[0] == '~') {
		if (!home || home[0] != '/') {
			*err =
			    strdup("starts with '~' but the home directory is unknown; set $HOME");
			return -EINVAL;
		}
		sb_puts_lit(&b, home);
		in++;
	} else if (in[0] != '/' && !from_var) {
		if (!root) {
			*err = strdup("is relative, and there is no project to resolve it in");
			return -ENOENT;
		}
		sb_puts_lit(&b, root);
		buf_puts(&b, "/");
	}
	if ((gerr = path_glob_error(in))) {
		*err = strdup(gerr);
		r = -EINVAL;
		goto out;
	}
	if ((r = expand_vars(in, &b, err)) < 0)
		goto out;
	if (strchr(b.p, '{') && (r = brace_count_ok(b.p)) < 0) {
		if (r != -E2BIG ||
		    asprintf(err,
			     "has more than %d {a,b} combinations; split it into several entries",
			     PATH_BRACE_MAX) < 0)
			*err = NULL;
		goto out;
	}
	if (from_var && b.p[0] != '/') {
		if (asprintf(err,
			     "expands to the relative path '%s'; a path from a variable must be "
			     "absolute",
			     b.p) < 0)
			*err = NULL;
		r = -ENXIO;
		goto out;
	}
	path_normalize(b.p);
out:
	*bp = b;
	return r < 0 ? r : b.err;
}

int path_expand(const char *in, const char *home, const char *root, char **out, char **err)
{
	struct buf b = {0};
	int r = path_expand_buf(in, home, root, &b, err);

	*out = r == 0 ? buf_steal(&b) : NULL;
	buf_free(&b);
	return r == 0 && !*out ? -ENOMEM : r;
}

/* Length of the prefix of abs made of components without unescaped glob characters. */
static size_t literal_prefix(const char *abs)
{
	size_t keep = 0;
	const char *p = abs;
	while (*p) {
		const char *e = p + 1;
		for (; *e && *e != '/'; e++) {
			while (!(special[(unsigned char)*e] & (SP_GLOB | SP_SLASH)))
				e++; /* plain characters */
			if (!*e || *e == '/')
				break;
			if (*e == '\\' && e[1] && e[1] != '/')
				e++; /* an escaped character (a backslash ending a component is one)
				      */
			else if (*e == '*' || *e == '?' || *e == '[' || *e == '{')
				return keep;
		}
		keep = (size_t)(e - abs);
		p = e;
	}
	return keep;
}

/* ---- path_names: a directory's names, read once ---- */

#define NAMES_ASKS 6	/* questions about a directory before it is read (a read costs ~6 calls) */
#define NAMES_MAX  4096 /* names kept a directory; a larger one is not read */

enum names_state { NAMES_UNREAD, NAMES_LISTED, NAMES_MISSING, NAMES_UNKNOWN };

struct path_names_dir {
	char *dir;
	unsigned long hash;
	unsigned asks;
	enum names_state state;
	/* when NAMES_LISTED: the names one after the other, each NUL-terminated, and an open
	 * addressing table of them (offset + 1; 0 is empty), cap a power of two >= 2 names */
	char *buf;
	size_t len, bcap;
	uint32_t *slot;
	size_t cap;
};

static unsigned long hash_str(const char *s, size_t n);

static void names_dir_free(struct path_names_dir *d)
{
	free(d->buf);
	free(d->slot);
	d->buf = NULL;
	d->slot = NULL;
	d->len = d->bcap = d->cap = 0;
}

/* The slot of name in d's table: its own, or the empty one where it would be. */
static uint32_t *names_slot(const struct path_names_dir *d, const char *name, size_t n)
{
	for (size_t i = hash_str(name, n) & (d->cap - 1);; i = (i + 1) & (d->cap - 1))
		if (!d->slot[i] || strcmp(d->buf + d->slot[i] - 1, name) == 0)
			return &d->slot[i];
}

/* d's names in its table; false when out of memory. */
static bool names_index(struct path_names_dir *d, size_t n)
{
	d->cap = 8;
	while (d->cap < 2 * n)
		d->cap *= 2;
	if (!(d->slot = calloc(d->cap, sizeof(*d->slot))))
		return false;
	for (size_t off = 0; off < d->len;) {
		size_t l = strlen(d->buf + off);
		*names_slot(d, d->buf + off, l) = (uint32_t)off + 1;
		off += l + 1;
	}
	return true;
}

struct names_fill {
	struct path_names_dir *d;
	size_t n;
};

static int names_add(void *arg, const char *name)
{
	struct names_fill *f = arg;
	struct path_names_dir *d = f->d;
	size_t l = strlen(name) + 1;
	char *nb = f->n < NAMES_MAX ? array_grow(d->buf, &d->bcap, d->len + l, 1) : NULL;

	if (!nb)
		return -ENOMEM; /* or too many: not known */
	d->buf = nb;
	memcpy(d->buf + d->len, name, l);
	d->len += l;
	f->n++;
	return 0;
}

/* Reads d's directory: LISTED (exact listing), MISSING (no such directory), or UNKNOWN. */
static void names_read(struct path_names_dir *d)
{
	struct names_fill f = {d, 0};
	int r = host_dir_names(d->dir, names_add, &f);

	d->state = r == -ENOENT ? NAMES_MISSING : NAMES_UNKNOWN;
	if (r == 1 && names_index(d, f.n))
		d->state = NAMES_LISTED;
	else
		names_dir_free(d);
}

/* The index + 1 of dir's entry in pn, made when it has none; 0 when out of memory. */
static size_t names_dir(struct path_names *pn, const char *dir)
{
	size_t dl = strlen(dir);
	unsigned long h = hash_str(dir, dl);

	if (pn->last < pn->n && pn->v[pn->last].hash == h && strcmp(pn->v[pn->last].dir, dir) == 0)
		return pn->last + 1;
	for (size_t i = pn->n; i-- > 0;)
		if (pn->v[i].hash == h && strcmp(pn->v[i].dir, dir) == 0)
			return i + 1;
	struct path_names_dir *nv = array_grow(pn->v, &pn->cap, pn->n + 1, sizeof(*nv));
	char *k = nv ? strdup(dir) : NULL;
	if (nv)
		pn->v = nv;
	if (!k)
		return 0;
	pn->v[pn->n++] = (struct path_names_dir){.dir = k, .hash = h};
	return pn->n;
}

/* true when the directory dir certainly does not exist, from what pn already knows of its
 * parent (no question asked, nothing read): the parent was read and lacks its name, or the
 * parent is missing (found so, or known so of its own parent, and so on up).
 * ~/.local/share/nvim/site, …/fish/vendor_conf.d and twenty more under a missing ~/.local/share
 * were an lstat each: each directory had its own five questions before its read, and the read of a
 * missing one said nothing of its subdirectories. */
static bool names_dir_absent(const struct path_names *pn, const char *dir, size_t dl)
{
	size_t pl = dl;

	while (pl > 0 && dir[pl - 1] != '/')
		pl--;
	if (dir[0] != '/' || pl == 0 || pl == dl)
		return false;
	const char *name = dir + pl;
	size_t nl = dl - pl;
	if (name[0] == '.' && (nl == 1 || (nl == 2 && name[1] == '.')))
		return false;
	pl = pl > 1 ? pl - 1 : 1; /* the parent: without its last '/', but "/" */
	unsigned long h = hash_str(dir, pl);
	for (size_t i = pn->n; i-- > 0;) {
		const struct path_names_dir *p = &pn->v[i];
		char key[NAME_MAX + 1];

		if (p->hash != h || strncmp(p->dir, dir, pl) != 0 || p->dir[pl])
			continue;
		if (p->state == NAMES_MISSING)
			return true;
		if (p->state == NAMES_UNREAD)
			return names_dir_absent(pn, dir, pl);
		if (p->state != NAMES_LISTED || nl > NAME_MAX)
			return false;
		memcpy(key, name, nl);
		key[nl] = '\0';
		return !*names_slot(p, key, nl);
	}
	return names_dir_absent(pn, dir, pl); /* not asked about yet: its own parent */
}

/* path_names_absent of the directory at index ix - 1 (names_dir's). */
static bool names_absent_at(struct path_names *pn, size_t ix, const char *name)
{
	struct path_names_dir *d;
	size_t nl = 0;

	for (; name[nl]; nl++) /* its length, and no '/' in it */
		if (name[nl] == '/')
			return false;
	if (!nl || (name[0] == '.' && (nl == 1 || (nl == 2 && name[1] == '.'))))
		return false;
	d = &pn->v[ix - 1];
	if (d->state == NAMES_UNREAD && !d->asks && names_dir_absent(pn, d->dir, strlen(d->dir)))
		d->state = NAMES_MISSING;
	pn->last = ix - 1;
	if (d->state == NAMES_UNREAD && ++d->asks >= NAMES_ASKS)
		names_read(d);
	if (d->state == NAMES_MISSING)
		return true;
	if (d->state != NAMES_LISTED)
		return false;
	return !*names_slot(d, name, nl);
}

bool path_names_absent(struct path_names *pn, const char *dir, const char *name)
{
	size_t ix = names_dir(pn, dir);

	return ix && names_absent_at(pn, ix, name); /* out of memory: not known, the caller looks */
}

bool path_names_absent_path(struct path_names *pn, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (!slash || path[0] != '/' || (size_t)(slash - path) >= sizeof(dir))
		return false;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return path_names_absent(pn, dir[0] ? dir : "/", slash + 1);
}

void path_names_release(struct path_names *pn)
{
	for (size_t i = 0; i < pn->n; i++) {
		names_dir_free(&pn->v[i]);
		free(pn->v[i].dir);
	}
	free(pn->v);
	*pn = (struct path_names){0};
}

/* ---- path_cache ---- */

struct path_cache_ent {
	char *key, *val;
	char *esc; /* val with its glob characters escaped, made when first asked for */
	unsigned long hash;
	size_t names_ix; /* val's entry in the cache's path_names (index + 1), 0 when not yet */
	bool missing, absent;
};

static unsigned long hash_str(const char *s, size_t n)
{
	unsigned long h = 1469598103934665603UL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211UL;
	return h;
}

static struct path_cache_ent *cache_find(struct path_cache *c, const char *k, size_t n,
					 unsigned long h)
{
	if (!c->cap)
		return NULL;
	for (size_t i = h & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
		struct path_cache_ent *e = &c->v[i];
		if (!e->key)
			return NULL;
		if (e->hash == h && strncmp(e->key, k, n) == 0 && e->key[n] == '\0')
			return e;
	}
}

/* Puts k[0..n) -> val (taken: freed on failure) in c; the new entry, valid until the next
 * put, or NULL when out of memory. */
static struct path_cache_ent *cache_put(struct path_cache *c, const char *k, size_t n,
					unsigned long h, char *val, bool missing, bool absent)
{
	if ((c->n + 1) * 4 > c->cap * 3) {
		struct path_cache old = *c;
		c->cap = old.cap ? old.cap * 2 : 64;
		c->n = 0;
		if (!(c->v = calloc(c->cap, sizeof(*c->v)))) {
			*c = old;
			free(val);
			return NULL;
		}
		for (size_t i = 0; i < old.cap; i++) {
			struct path_cache_ent *e = &old.v[i];
			if (!e->key)
				continue;
			size_t j = e->hash & (c->cap - 1);
			while (c->v[j].key)
				j = (j + 1) & (c->cap - 1);
			c->v[j] = *e;
			c->n++;
		}
		free(old.v);
	}
	size_t j = h & (c->cap - 1);
	while (c->v[j].key)
		j = (j + 1) & (c->cap - 1);
	char *kk = strndup(k, n);
	if (!kk) {
		free(val);
		return NULL;
	}
	c->v[j] = (struct path_cache_ent){kk, val, NULL, h, 0, missing, absent};
	c->n++;
	return &c->v[j];
}

void path_cache_release(struct path_cache *c)
{
	for (size_t i = 0; c && i < c->cap; i++) {
		if (!c->v[i].key)
			continue; /* an empty slot (a free() each was ~60 instructions) */
		free(c->v[i].key);
		free(c->v[i].val);
		free(c->v[i].esc);
	}
	if (c) {
		free(c->v);
		path_names_release(&c->names);
		*c = (struct path_cache){0};
	}
}

/* The index + 1 of e's directory (its canonical path) in c's path_names, kept in e (not in
 * "/", whose entry is shared by every cache); 0 when out of memory. */
static size_t ent_names_ix(struct path_cache *c, struct path_cache_ent *e)
{
	size_t ix = e->names_ix;

	if (!ix && (ix = names_dir(&c->names, e->val)) && e->key[1])
		e->names_ix = ix;
	return ix;
}

/* path_names_absent of e's directory. */
static bool ent_names_absent(struct path_cache *c, struct path_cache_ent *e, const char *name)
{
	size_t ix = ent_names_ix(c, e);

	return ix && names_absent_at(&c->names, ix, name);
}

/* true when e's directory has been read (or found missing): asking it costs no system call
 * and counts for nothing */
static bool ent_names_read(struct path_cache *c, struct path_cache_ent *e)
{
	size_t ix = ent_names_ix(c, e);

	return ix && c->names.v[ix - 1].state != NAMES_UNREAD;
}

/* The canonical form of the literal directory path p[0..n) (normalized, absolute) as c's
 * entry (valid until c's next put; its strings until c is released): val, whether it exists
 * (!missing), and whether an lstat found nothing there (absent: it or a parent; not said for a
 * link realpath could not follow). One lstat per directory not yet in the cache. NULL when
 * out of memory. */
static struct path_cache_ent *canon_prefix(const char *p, size_t n, struct path_cache *c)
{
	static char root[] = "/";
	static struct path_cache_ent root_ent = {root, root, root, 0, 0, false, false};
	unsigned long h = hash_str(p, n);
	struct path_cache_ent *e;
	char *cand;
	bool pmiss, pabsent, missing, absent;
	struct stat st;

	if (n <= 1)
		return &root_ent;
	if ((e = cache_find(c, p, n, h)))
		return e;
	size_t cut = n;
	while (cut > 0 && p[cut - 1] != '/')
		cut--;
	if (!(e = canon_prefix(p, cut > 1 ? cut - 1 : 1, c)))
		return NULL;
	pmiss = e->missing, pabsent = e->absent;
	/* the parent's value "/" and the last component, unescaped (p is not NUL-terminated at
	 * n) */
	size_t hl = strcmp(e->val, "/") ? strlen(e->val) : 0;
	if (!(cand = malloc(hl + (n - cut) + 2)))
		return NULL;
	char *w = cand + hl + 1;
	memcpy(cand, e->val, hl);
	cand[hl] = '/';
	for (size_t i = cut; i < n; i++) {
		if (p[i] == '\\' && i + 1 < n)
			i++;
		*w++ = p[i];
	}
	*w = '\0';
	/* a name the parent's listing lacks: what the lstat would say, without it */
	absent =
	    pabsent || (!pmiss && (ent_names_absent(c, e, cand + hl + 1) || lstat(cand, &st) < 0));
	missing = pmiss || absent;
	if (!missing && S_ISLNK(st.st_mode)) {
		char *real = realpath(cand, NULL);
		if (real) {
			free(cand);
			cand = real;
		} else {
			missing = true;
		}
	}
	return cache_put(c, p, n, h, cand, missing, absent);
}

/* A literal path's canonical form, its parent from c, then one look at the last component;
 * an entry in c only when it exists (most values are leaves that do not, each asked about
 * once: the entry's key, value and escaped value were three allocations and frees a value).
 * Returns 0 and *out, 1 when the last component is a link (the caller then resolves it the
 * cached way), or -ENOMEM. */
static int canon_leaf(const char *work, size_t len, struct path_cache *c, char **out, bool *absent)
{
	size_t cut = len;
	while (cut > 0 && work[cut - 1] != '/')
		cut--;
	struct path_cache_ent *e = canon_prefix(work, cut > 1 ? cut - 1 : 1, c);
	if (!e || (!e->esc && !(e->esc = path_escape(e->val))))
		return -ENOMEM;
	/* the last component unescaped, as canon_prefix reads it */
	char leaf[NAME_MAX + 1], *w = leaf;
	if (len - cut > NAME_MAX)
		return 1;
	for (size_t i = cut; i < len; i++) {
		if (work[i] == '\\' && i + 1 < len)
			i++;
		*w++ = work[i];
	}
	*w = '\0';
	bool gone = e->absent;
	struct stat st;
	if (!e->missing) {
		/* the parent's canonical path and the leaf: what the lstat looks at */
		size_t hl = strcmp(e->val, "/") ? strlen(e->val) : 0, ll = (size_t)(w - leaf);
		char cand[PATH_MAX];
		if (hl + 1 + ll >= sizeof(cand))
			return 1;
		memcpy(cand, e->val, hl);
		cand[hl] = '/';
		memcpy(cand + hl + 1, leaf, ll + 1);
		/* already in c (a parent of an earlier path): the cached way, without a second
		 * lstat; looked for first unless the directory's listing answers (a question to
		 * an unread listing counts towards reading it) */
		bool read = ent_names_read(c, e), hashed = !read;
		unsigned long h = read ? 0 : hash_str(work, len);
		if (!read && cache_find(c, work, len, h))
			return 1;
		gone = ent_names_absent(c, e, leaf);
		if (!gone && !hashed && cache_find(c, work, len, h = hash_str(work, len)))
			return 1;
		gone = gone || lstat(cand, &st) < 0;
		if (!gone && S_ISLNK(st.st_mode))
			return 1;
		if (!gone) { /* it exists (rare): an entry, as a parent of later paths */
			char *v = strdup(cand);
			struct path_cache_ent *le =
			    v ? cache_put(c, work, len, h, v, false, false) : NULL;
			if (!le || !(le->esc = path_escape(le->val)) || !(*out = strdup(le->esc)))
				return -ENOMEM;
			return 0;
		}
	}
	/* the parent's escaped form, '/', the leaf escaped (path_escape's characters) */
	const char *head = strcmp(e->esc, "/") ? e->esc : "";
	size_t hl = strlen(head);
	char *o = malloc(hl + 2 * (size_t)(w - leaf) + 2);
	if (!o)
		return -ENOMEM;
	memcpy(o, head, hl);
	char *p = o + hl;
	*p++ = '/';
	for (const char *q = leaf; *q; q++) {
		if (is_glob_char(*q) || *q == '\\')
			*p++ = '\\';
		*p++ = *q;
	}
	*p = '\0';
	*out = o;
	if (absent)
		*absent = gone;
	return 0;
}

/* path_canon_absent, of abs normalized first unless it is (normal). */
static int canon_in(const char *abs, bool normal, struct path_cache *c, char **out, bool *absent)
{
	struct path_cache local = {0};
	struct path_cache_ent *e;
	size_t len = strlen(abs);
	char small[512], *copy = NULL;
	const char *work = abs;
	int r = -ENOMEM;

	*out = NULL;
	if (absent)
		*absent = false;
	if (!normal) {
		if (!(copy = len < sizeof(small) ? small : malloc(len + 1)))
			return -ENOMEM;
		memcpy(copy, abs, len + 1);
		path_normalize(copy);
		len = strlen(copy);
		work = copy;
	}
	size_t lit = literal_prefix(work);
	if (c && lit == len && len > 1 && (r = canon_leaf(work, len, c, out, absent)) <= 0)
		goto done;
	r = -ENOMEM;
	if ((e = canon_prefix(work, lit, c ? c : &local)) &&
	    (e->esc || (e->esc = path_escape(e->val)))) { /* a real name's characters are literal */
		const char *head = strcmp(e->esc, "/") || !work[lit] ? e->esc : "";
		if ((*out = path_cat(head, strlen(head), work + lit, "")))
			r = 0;
		if (absent)
			*absent = r == 0 && e->absent && !work[lit];
	}
done:
	if (!c)
		path_cache_release(&local);
	if (copy != small)
		free(copy);
	return r;
}

int path_canon_absent(const char *abs, struct path_cache *c, char **out, bool *absent)
{
	return canon_in(abs, true, c, out, absent);
}

int path_canon_cached(const char *abs, struct path_cache *c, char **out)
{
	return canon_in(abs, false, c, out, NULL);
}

int path_canon(const char *abs, char **out)
{
	return path_canon_cached(abs, NULL, out);
}

bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}
