/* judge — one call against the mount layout and the profile: violation or not, and the fix.
 *
 * Rules this file keeps:
 * - Input paths come from inside the sandbox and are untrusted strings: they are only compared
 *   and copied (bounded), never used to open anything; the host is asked one question through
 *   the caller's exists() callback, about the translated path.
 * - The verdict follows the mounts as built (what the kernel enforced), not a re-reading of the
 *   policy; the profile only names the line that decided and the grant to add.
 * - Credential stores and system denies are named, never suggested as a grant.
 */
#include "shell/judge.h"

#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/mandatory.h"
#include "platform/path.h"
#include "platform/sandbox.h"
#include "shell/policy.h"

enum vis { VIS_NONE, VIS_SKELETON, VIS_RO, VIS_RW, VIS_HIDDEN, VIS_PRIVATE };

/* path is dir or under it, component-wise. */
static bool under(const char *path, const char *dir)
{
	if (dir[0] == '/' && dir[1] == '\0')
		return path[0] == '/';
	/* most of the sandbox's mounts differ from a path in its first two characters (the
	 * monitor asks of each mount for each path the shell opens) */
	if (!dir[0])
		return path[0] == '\0' || path[0] == '/';
	if (path[0] != dir[0] || (dir[1] && path[1] != dir[1]))
		return false;
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static size_t depth_of(const char *p)
{
	size_t d = 0;

	for (; *p; p++)
		if (*p == '/' && p[1])
			d++;
	return d;
}

/* ---- glob matching: * ? [..] within a component, ** across, {a,b} alternatives ---- */

static bool match_here(const char *pat, const char *path, int depth);

static bool match_brace(const char *pat, const char *open, const char *path, int depth)
{
	const char *close = open + 1, *alt = open + 1;
	int level = 0;
	char buf[PATH_MAX];

	for (; *close; close++) {
		if (*close == '\\' && close[1])
			close++;
		else if (*close == '{')
			level++;
		else if (*close == '}' && level-- == 0)
			break;
	}
	if (!*close)
		return false;
	level = 0;
	for (const char *q = open + 1; q <= close; q++) {
		if (*q == '\\' && q[1] && q < close) {
			q++;
			continue;
		}
		if (*q == '{')
			level++;
		else if (*q == '}' && q < close)
			level--;
		else if ((*q == ',' && level == 0) || q == close) {
			int k = snprintf(buf, sizeof(buf), "%.*s%.*s%s", (int)(open - pat), pat,
					 (int)(q - alt), alt, close + 1);

			if (k > 0 && (size_t)k < sizeof(buf) && match_here(buf, path, depth + 1))
				return true;
			alt = q + 1;
		}
	}
	return false;
}

static const char *find_brace(const char *pat)
{
	for (; *pat; pat++) {
		if (*pat == '\\' && pat[1])
			pat++;
		else if (*pat == '{')
			return pat;
	}
	return NULL;
}

/* Component-wise: "**" eats zero or more components; others go to fnmatch. */
static bool match_comps(const char *pat, const char *path)
{
	while (*pat == '/')
		pat++;
	while (*path == '/')
		path++;
	if (!*pat)
		return !*path;
	const char *pe = strchr(pat, '/');
	size_t pl = pe ? (size_t)(pe - pat) : strlen(pat);

	if (pl == 2 && pat[0] == '*' && pat[1] == '*') {
		const char *rest = pat + pl;

		for (const char *q = path;;) {
			if (match_comps(rest, q))
				return true;
			q = strchr(q, '/');
			if (!q)
				return false;
			q++;
		}
	}
	if (!*path)
		return false;
	const char *xe = strchr(path, '/');
	size_t xl = xe ? (size_t)(xe - path) : strlen(path);
	char pc[NAME_MAX * 2 + 2], xc[NAME_MAX + 1];

	if (pl >= sizeof(pc) || xl >= sizeof(xc))
		return false;
	memcpy(pc, pat, pl);
	pc[pl] = '\0';
	memcpy(xc, path, xl);
	xc[xl] = '\0';
	if (fnmatch(pc, xc, FNM_PERIOD) != 0)
		return false;
	return match_comps(pat + pl, path + xl);
}

static bool match_here(const char *pat, const char *path, int depth)
{
	const char *b = depth < 8 ? find_brace(pat) : NULL;

	if (b)
		return match_brace(pat, b, path, depth);
	return match_comps(pat, path);
}

bool judge_glob_match(const char *pat, const char *path)
{
	if (pat[0] != '/' || path[0] != '/')
		return false;
	if (!strpbrk(pat, "*?[{\\"))
		return strcmp(pat, path) == 0;
	return match_here(pat, path, 0);
}

bool judge_glob_covers(const char *pat, const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (!strpbrk(pat, "*?[{\\"))
		return under(path, pat);
	if (n >= sizeof(buf))
		return false;
	memcpy(buf, path, n + 1);
	for (;;) {
		if (judge_glob_match(pat, buf))
			return true;
		char *s = strrchr(buf, '/');

		if (!s || s == buf)
			return strcmp(pat, "/") == 0;
		*s = '\0';
	}
}

/* ---- the mount layout ---- */

static bool join(char *out, size_t n, const char *a, const char *rest)
{
	int k;

	if (strcmp(a, "/") == 0)
		k = snprintf(out, n, "%s", *rest ? rest : "/");
	else
		k = snprintf(out, n, "%s%s", a, rest);
	if (k <= 0 || (size_t)k >= n)
		return false;
	path_normalize(out);
	return true;
}

static enum vis vis_profile(const struct judge_ctx *c, const char *p);

/* Where the directories the command renamed took the mounts (judge_moved): per mount of the
 * spec, its destination and source now, NULL where unchanged. */
struct judge_layout {
	size_t n;
	char **dst, **src;
};

static const char *mount_dst(const struct judge_ctx *c, size_t i)
{
	const struct judge_layout *l = c->moved;

	return l && i < l->n && l->dst[i] ? l->dst[i] : c->spec->mounts.v[i].dst;
}

static const char *mount_src(const struct judge_ctx *c, size_t i)
{
	const struct judge_layout *l = c->moved;

	return l && i < l->n && l->src[i] ? l->src[i] : c->spec->mounts.v[i].src;
}

/* How the sandbox shows sandbox path p; the host path behind it goes into host. */
static enum vis vis_of(const struct judge_ctx *c, const char *p, char *host, size_t n, int hops)
{
	const struct sandbox_spec *s = c->spec;
	const struct sbx_mount *m = NULL;
	const char *dst = NULL, *src = NULL;

	if (strlen(p) >= n)
		return VIS_NONE;
	strcpy(host, p);
	if (!s)
		return vis_profile(c, p);
	for (size_t i = 0; i < s->mounts.n; i++) {
		const char *d = mount_dst(c, i);

		if (d && under(p, d)) {
			m = &s->mounts.v[i];
			dst = d;
			src = mount_src(c, i);
		}
	}
	/* The private /tmp is a tmpfs over whatever holds /tmp; only a mount inside it shows
	 * through (a grant under /tmp, bound after it). */
	if (s->tmp_private && under(p, "/tmp") && (!m || !under(dst, "/tmp")))
		return VIS_PRIVATE;
	/* tmp = shared: the host's /tmp, bound writable by bwrap.c (not a spec mount). */
	if (c->prof && c->prof->tmp == TMP_SHARED && !s->tmp_private && under(p, "/tmp") &&
	    (!m || !under(dst, "/tmp")))
		return VIS_RW;
	if (!m) {
		for (size_t i = 0; i < s->mounts.n; i++) {
			const char *d = mount_dst(c, i);

			if (d && under(d, p))
				return VIS_SKELETON;
		}
		return VIS_NONE;
	}
	const char *rest = p + (strcmp(dst, "/") == 0 ? 0 : strlen(dst));

	switch (m->op) {
	case SBX_M_RO_BIND:
	case SBX_M_BIND:
		if (!src || !join(host, n, src, rest))
			return VIS_NONE;
		if (m->op == SBX_M_BIND)
			return (s->tmp_private && s->tmp_host && strcmp(src, s->tmp_host) == 0)
				   ? VIS_PRIVATE
				   : VIS_RW;
		return VIS_RO;
	case SBX_M_HIDE_DIR:
	case SBX_M_HIDE_FILE:
		return VIS_HIDDEN;
	case SBX_M_DATA_FILE: /* a settings file with its secrets removed: read-only */
		return *rest ? VIS_NONE : VIS_RO;
	case SBX_M_SYMLINK: {
		char t[PATH_MAX];

		if (!*rest || !src || hops > 8)
			return VIS_RO; /* the link itself */
		int k;

		if (src[0] == '/')
			k = snprintf(t, sizeof(t), "%s%s", src, rest);
		else
			k = snprintf(t, sizeof(t), "%.*s/%s%s", (int)(strrchr(dst, '/') - dst), dst,
				     src, rest);
		if (k < 0 || (size_t)k >= sizeof(t))
			return VIS_NONE;
		path_normalize(t);
		return vis_of(c, t, host, n, hops + 1);
	}
	}
	return VIS_NONE;
}

/* p with its prefix from (a directory, component-wise) replaced by to; NULL without memory. */
static char *moved_name(const char *p, const char *from, const char *to)
{
	char *r = NULL;

	if (asprintf(&r, "%s%s", to, p + (strcmp(from, "/") == 0 ? 0 : strlen(from))) < 0)
		return NULL;
	return r;
}

int judge_moved(struct judge_ctx *c, const char *from, const char *to, bool exchange)
{
	const struct sandbox_spec *s = c->spec;
	char hf[PATH_MAX], ht[PATH_MAX];
	size_t n = s ? s->mounts.n : 0;
	char **nd = NULL, **ns = NULL;
	bool any = false, hosts;
	int r = -ENOMEM;

	for (size_t i = 0; i < n && !any; i++) {
		const char *d = mount_dst(c, i);

		any = d && ((under(d, from) && strcmp(d, from) != 0) ||
			    (exchange && under(d, to) && strcmp(d, to) != 0));
	}
	if (!any)
		return 0; /* nothing mounted below: the common case, nothing kept */
	/* the host names of both, through the mounts that hold them (not the ones that move) */
	hosts = vis_of(c, from, hf, sizeof(hf), 0) == VIS_RW &&
		vis_of(c, to, ht, sizeof(ht), 0) == VIS_RW;
	if (!c->moved) {
		struct judge_layout *l = calloc(1, sizeof(*l));

		if (!l || !(l->dst = calloc(n, sizeof(char *))) ||
		    !(l->src = calloc(n, sizeof(char *)))) {
			if (l)
				free(l->dst);
			free(l);
			return -ENOMEM;
		}
		l->n = n;
		c->moved = l;
	}
	/* computed from the layout before the move, then applied (an exchange swaps both) */
	if (!(nd = calloc(n, sizeof(char *))) || !(ns = calloc(n, sizeof(char *))))
		goto out;
	for (size_t i = 0; i < n; i++) {
		const char *d = mount_dst(c, i), *sr = mount_src(c, i);
		const char *a = NULL, *b = NULL, *ha = hf, *hb = ht;

		if (d && under(d, from) && strcmp(d, from) != 0)
			a = from, b = to;
		else if (exchange && d && under(d, to) && strcmp(d, to) != 0)
			a = to, b = from, ha = ht, hb = hf;
		if (!a)
			continue;
		if (!(nd[i] = moved_name(d, a, b)))
			goto out;
		/* a mount of the moved tree over itself (a deny, a protected name's read-only
		 * copy): its source moved on the host too */
		if (hosts && sr && sr[0] == '/' && under(sr, ha) &&
		    !(ns[i] = moved_name(sr, ha, hb)))
			goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (nd[i]) {
			free(c->moved->dst[i]);
			c->moved->dst[i] = nd[i];
			nd[i] = NULL;
		}
		if (ns[i]) {
			free(c->moved->src[i]);
			c->moved->src[i] = ns[i];
			ns[i] = NULL;
		}
	}
	r = 1;
out:
	for (size_t i = 0; nd && ns && i < n; i++) {
		free(nd[i]);
		free(ns[i]);
	}
	free(nd);
	free(ns);
	return r;
}

void judge_release(struct judge_ctx *c)
{
	struct judge_layout *l = c->moved;

	for (size_t i = 0; l && i < l->n; i++) {
		free(l->dst[i]);
		free(l->src[i]);
	}
	if (l) {
		free(l->dst);
		free(l->src);
		free(l);
	}
	c->moved = NULL;
}

struct best {
	const struct pol_value *v;
	size_t depth;
	int which; /* 0 grant, 1 deny */
};

static void best_in(const struct pol_list *l, const char *path, int which, struct best *b)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *pat = l->v[i].value;
		size_t d;

		if (!pat || !judge_glob_covers(pat, path))
			continue;
		d = depth_of(pat);
		if (!b->v || d > b->depth || (d == b->depth && which > b->which)) {
			b->v = &l->v[i];
			b->depth = d;
			b->which = which;
		}
	}
}

/* path matches a proper prefix of pat's components (no braces): a directory there could hold
 * a match. A "**" can stand for any depth, so anything that reaches one is on the way. */
static bool prefix_comps(const char *pat, const char *path)
{
	while (*pat == '/')
		pat++;
	while (*path == '/')
		path++;
	if (!*pat)
		return false;
	if (!*path)
		return true;
	const char *pe = strchr(pat, '/'), *xe = strchr(path, '/');
	size_t pl = pe ? (size_t)(pe - pat) : strlen(pat),
	       xl = xe ? (size_t)(xe - path) : strlen(path);
	char pc[NAME_MAX * 2 + 2], xc[NAME_MAX + 1];

	if (pl == 2 && pat[0] == '*' && pat[1] == '*')
		return true;
	if (pl >= sizeof(pc) || xl >= sizeof(xc))
		return true; /* no real name is that long: fail closed */
	memcpy(pc, pat, pl);
	pc[pl] = '\0';
	memcpy(xc, path, xl);
	xc[xl] = '\0';
	return fnmatch(pc, xc, FNM_PERIOD) == 0 && prefix_comps(pat + pl, path + xl);
}

static bool glob_on_the_way(const char *pat, const char *path)
{
	struct strv alts = {0};
	bool hit = false;

	if (path_brace_expand(pat, &alts) != 0) {
		strv_release(&alts);
		return true; /* fail closed */
	}
	for (size_t i = 0; !hit && i < alts.n; i++)
		hit = prefix_comps(alts.v[i], path);
	strv_release(&alts);
	return hit;
}

const struct pol_value *judge_deny_glob(const struct judge_ctx *c, const char *path, bool dir_to)
{
	struct best w = {0};

	if (!c->prof || path[0] != '/')
		return NULL;
	best_in(&c->prof->write, path, 0, &w);
	best_in(&c->prof->deny_write, path, 1, &w);
	if (w.v && w.which == 1 && path_has_glob(w.v->value))
		return w.v;
	for (size_t i = 0; dir_to && i < c->prof->deny_write.n; i++) {
		const char *v = c->prof->deny_write.v[i].value;

		if (v && v[0] == '/' && path_has_glob(v) && glob_on_the_way(v, path))
			return &c->prof->deny_write.v[i];
	}
	return NULL;
}

/* Without a spec: the profile's own most specific rule. */
static enum vis vis_profile(const struct judge_ctx *c, const char *p)
{
	struct best r = {0}, w = {0};

	best_in(&c->prof->read, p, 0, &r);
	best_in(&c->prof->deny_read, p, 1, &r);
	best_in(&c->prof->write, p, 0, &r);
	best_in(&c->prof->write, p, 0, &w);
	best_in(&c->prof->deny_write, p, 1, &w);
	if (r.v && r.which == 1)
		return VIS_HIDDEN;
	if (w.v && w.which == 0)
		return VIS_RW;
	return r.v ? VIS_RO : VIS_NONE;
}

/* ---- mandatory write denies (policy.md) ---- */

/* The mandatory entry a path hits (platform/mandatory.h): a rule no grant lifts, or
 * .git/config. The home rule is the grants' to explain (a grant lifts it). */
static const char *mandatory_of(const struct judge_ctx *c, const char *path, bool *git_config)
{
	const char *g[64];
	struct mand_ctx m = {.home = c->home, .grants = g, .git_config = c->prof->git_config};
	struct mand_hit h;

	if (c->mand) {
		if (mandatory_check(c->mand, path, MAND_WRITE, &h) != 1 ||
		    h.lift == MAND_HOME_GRANT || h.lift == MAND_DENY_WRITE)
			return NULL;
		*git_config = h.lift == MAND_GIT_CONFIG;
		return h.rule;
	}
	if (c->spec) {
		for (size_t i = 0; i < c->spec->mounts.n && m.ngrants < 64; i++)
			if (c->spec->mounts.v[i].op == SBX_M_BIND)
				g[m.ngrants++] = mount_dst(c, i);
	} else {
		for (size_t i = 0; i < c->prof->write.n && m.ngrants < 64; i++)
			if (c->prof->write.v[i].value && !path_has_glob(c->prof->write.v[i].value))
				g[m.ngrants++] = c->prof->write.v[i].value;
	}
	if (mandatory_check(&m, path, MAND_WRITE, &h) != 1 || h.lift == MAND_HOME_GRANT)
		return NULL;
	*git_config = h.lift == MAND_GIT_CONFIG;
	return h.rule;
}

/* ---- verdicts ---- */

static bool ignored(const struct pol_list *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].value && judge_glob_covers(l->v[i].value, path))
			return true;
	return false;
}

static enum viol_why deny_origin(const struct judge_ctx *c, const struct pol_value *v)
{
	if (!v->file || strcmp(v->file, "<embedded>") == 0)
		return VW_CREDENTIAL;
	if (c->sysconfdir && under(v->file, c->sysconfdir))
		return VW_SYSTEM;
	return VW_DENY_READ;
}

static void why_read(const struct judge_ctx *c, struct verdict *v, const char *rp)
{
	struct best b = {0};

	best_in(&c->prof->read, rp, 0, &b);
	best_in(&c->prof->write, rp, 0, &b);
	best_in(&c->prof->deny_read, rp, 1, &b);
	v->rule = b.v;
	v->why = (b.v && b.which == 1) ? deny_origin(c, b.v) : VW_NO_GRANT;
}

/* The name sandbox path p had when the command started, for the policy's rules: under a
 * mount that a renamed directory took along (judge_moved), the name where that mount was;
 * else host, its host path. */
static const char *rule_name(const struct judge_ctx *c, const char *p, const char *host, char *buf,
			     size_t n)
{
	const char *d = NULL;
	size_t at = 0;

	for (size_t i = 0; c->moved && i < c->spec->mounts.n; i++)
		if (mount_dst(c, i) && under(p, mount_dst(c, i)))
			d = mount_dst(c, i), at = i;
	if (!d || !c->moved->dst[at])
		return host;
	int k = snprintf(buf, n, "%s%s", c->spec->mounts.v[at].dst, p + strlen(d));

	return k > 0 && (size_t)k < n ? buf : host;
}

/* p lies in a writable bind (a write grant as mounted), under whatever is bound over it. */
static bool in_bind(const struct judge_ctx *c, const char *p)
{
	for (size_t i = 0; c->spec && i < c->spec->mounts.n; i++)
		if (c->spec->mounts.v[i].op == SBX_M_BIND && mount_dst(c, i) &&
		    under(p, mount_dst(c, i)))
			return true;
	return false;
}

/* vis: how the sandbox shows the path; bound: it lies in a writable bind (in_bind). */
static void why_write(const struct judge_ctx *c, struct verdict *v, enum vis vis, bool bound,
		      const char *rp)
{
	struct best b = {0}, r = {0};

	bool gc = false;

	v->mandatory = mandatory_of(c, v->path, &gc);
	if (v->mandatory) {
		v->why = gc ? VW_GIT_CONFIG : VW_MANDATORY;
		return;
	}
	best_in(&c->prof->deny_read, rp, 1, &r);
	best_in(&c->prof->read, rp, 0, &r);
	if (r.v && r.which == 1 && deny_origin(c, r.v) != VW_DENY_READ) {
		v->rule = r.v;
		v->why = deny_origin(c, r.v);
		return;
	}
	best_in(&c->prof->write, rp, 0, &b);
	best_in(&c->prof->deny_write, rp, 1, &b);
	v->rule = b.v;
	if (b.v && b.which == 1) {
		v->why = VW_DENY_WRITE;
	} else if (b.v && vis == VIS_RO && bound) {
		/* the grant was mounted, and a read-only bind inside it holds the path: a deeper
		 * read grant (a deeper write grant lifts it), or one of sbxsh's own read-only
		 * copies, which no grant lifts */
		struct best d = {0};

		best_in(&c->prof->read, rp, 0, &d);
		v->why = d.v && d.depth > b.depth ? VW_NO_GRANT : VW_MANDATORY;
		if (v->why == VW_MANDATORY)
			v->mandatory = "a read-only copy sbxsh binds inside the write grant";
	} else {
		v->why = b.v ? VW_UNMOUNTED : VW_NO_GRANT;
	}
}

static bool noise(const char *p)
{
	return under(p, "/proc") || under(p, "/dev") || under(p, "/sys");
}

/* Interactive history files in the home directory (and their rewrite temporaries, e.g.
 * bash's "~/.bash_history-PID.tmp", vim's "~/.viminfz.tmp"): a shell, REPL or editor that
 * cannot save history says nothing and loses nothing the command made. And top's mkdir of
 * ~/.config/procps at every start (its toprc, written on `W`, is still reported). */
static bool history_noise(const struct judge_ctx *c, const char *p, unsigned flags)
{
	static const char *const names[] = {
	    ".bash_history",   ".zsh_history",	".python_history", ".node_repl_history",
	    ".sqlite_history", ".psql_history", ".mysql_history",  ".lesshst",
	    ".history",	       ".viminf"};
	size_t hl = c->home ? strlen(c->home) : 0;

	if (!hl || strncmp(p, c->home, hl) != 0 || p[hl] != '/')
		return false;
	if ((flags & JF_MKDIR) && strcmp(p + hl, "/.config/procps") == 0)
		return true;
	if (strchr(p + hl + 1, '/'))
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(p + hl + 1, names[i], strlen(names[i])) == 0)
			return true;
	return false;
}

/* The rehash lock of the shim-based version managers (rbenv, nodenv, goenv, pyenv before 2.0…:
 * ROOT/shims/.NAMEenv-shim, taken before anything else, by every `NAME init -` in a login's
 * profile): the shims directory is a PATH directory the host runs, read-only in the sandbox,
 * and a rehash there changes nothing the command needs. Any other write in it is reported. */
static bool shim_lock_noise(const char *p)
{
	const char *b = strrchr(p, '/');
	size_t n;

	if (!b || b - p < 6 || strncmp(b - 6, "/shims", 6) != 0 || b[1] != '.')
		return false;
	b += 2;
	n = strlen(b);
	if (n < 9 || strcmp(b + n - 5, "-shim") != 0 || strncmp(b + n - 8, "env", 3) != 0)
		return false;
	for (const char *q = b; q < b + n - 8; q++)
		if (*q < 'a' || *q > 'z')
			return false;
	return true;
}

/* Python writes a bytecode cache beside every module it imports where it can, and goes on
 * without one where it cannot: a refused __pycache__ write changes nothing but speed. */
static bool cache_noise(const char *p)
{
	const char *s = strstr(p, "/__pycache__");

	return s && (s[12] == '\0' || s[12] == '/');
}

int judge_path(const struct judge_ctx *c, enum viol_kind kind, const char *sbx_path, unsigned flags,
	       struct verdict *v)
{
	char p[PATH_MAX], rp[PATH_MAX];
	enum vis vis;

	memset(v, 0, offsetof(struct verdict, path));
	v->path[0] = '\0';
	v->kind = kind;
	if (sbx_path[0] != '/')
		return -EINVAL;
	if (strlen(sbx_path) >= sizeof(p))
		return -ENAMETOOLONG;
	strcpy(p, sbx_path);
	path_normalize(p);
	if (noise(p))
		return 0;
	vis = vis_of(c, p, v->path, sizeof(v->path), 0);
	if (vis == VIS_PRIVATE || vis == VIS_RW || vis == VIS_SKELETON)
		return 0;
	if (kind == VK_WRITE) {
		if (cache_noise(p) || history_noise(c, v->path, flags) || shim_lock_noise(v->path))
			return 0;
		if (vis == VIS_RO && (flags & (JF_MKDIR | JF_TIMES)) && c->exists &&
		    c->exists(v->path, c->arg))
			return 0; /* EEXIST, or a time change on a file it can read: nothing written
				   */
		if (ignored(&c->prof->ignore_write, v->path))
			return 0;
		why_write(c, v, vis, in_bind(c, p), rule_name(c, p, v->path, rp, sizeof(rp)));
		return 1;
	}
	if (vis == VIS_RO)
		return 0;
	if (!c->exists || !c->exists(v->path, c->arg))
		return 0; /* missing on the host too: the command's own miss */
	if (ignored(&c->prof->ignore_read, v->path))
		return 0;
	why_read(c, v, rule_name(c, p, v->path, rp, sizeof(rp)));
	return 1;
}

bool judge_ignored_write(const struct judge_ctx *c, const char *path)
{
	return c->prof && ignored(&c->prof->ignore_write, path);
}

bool judge_noise_write(const struct judge_ctx *c, const char *path, unsigned flags)
{
	return cache_noise(path) || history_noise(c, path, flags) || shim_lock_noise(path);
}

void judge_unix(struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->kind = VK_UNIX;
	v->why = VW_UNIX;
	strcpy(v->path, "AF_UNIX");
}

int judge_network(const struct judge_ctx *c, const char *host, unsigned port, struct verdict *v)
{
	memset(v, 0, offsetof(struct verdict, path));
	v->kind = VK_NETWORK;
	v->why = VW_NETWORK;
	if (port)
		snprintf(v->path, sizeof(v->path), "%s:%u", host, port);
	else
		snprintf(v->path, sizeof(v->path), "%s", host);
	for (size_t i = 0; i < c->prof->ignore_network.n; i++) {
		const char *pat = c->prof->ignore_network.v[i].value;

		if (pat && (fnmatch(pat, host, 0) == 0 || fnmatch(pat, v->path, 0) == 0))
			return 0;
	}
	for (size_t i = 0; i < c->prof->deny_domains.n; i++) {
		const char *pat = c->prof->deny_domains.v[i].value;

		if (pat && (fnmatch(pat, host, 0) == 0 || fnmatch(pat, v->path, 0) == 0 ||
			    (pat[0] == '*' && pat[1] == '.' && fnmatch(pat, host, 0) == 0))) {
			v->why = VW_DENY_DOMAIN;
			v->rule = &c->prof->deny_domains.v[i];
			break;
		}
	}
	return 1;
}

bool judge_is_grant_root(const struct judge_ctx *c, const char *sbx_path)
{
	char p[PATH_MAX];

	if (!c->spec || strlen(sbx_path) >= sizeof(p))
		return false;
	strcpy(p, sbx_path);
	path_normalize(p);
	for (size_t i = 0; i < c->spec->mounts.n; i++) {
		const struct sbx_mount *m = &c->spec->mounts.v[i];

		if (m->op == SBX_M_BIND && mount_dst(c, i) && strcmp(mount_dst(c, i), p) == 0 &&
		    !(c->spec->tmp_host && m->src && strcmp(m->src, c->spec->tmp_host) == 0))
			return true;
	}
	return false;
}

char *judge_tilde(const char *home, const char *path, char *buf, size_t n)
{
	if (home && strcmp(home, "/") != 0 && under(path, home))
		snprintf(buf, n, "~%s", path + strlen(home));
	else
		snprintf(buf, n, "%s", path);
	return buf;
}

/* path as judge_tilde spells it, each of the characters in esc after a backslash, into buf. */
static char *tilde_escaped(const char *home, const char *path, const char *esc, char *buf, size_t n)
{
	char t[PATH_MAX];
	size_t w = 0;

	judge_tilde(home, path, t, sizeof(t));
	for (const char *s = t; *s && w + 2 < n; s++) {
		if (strchr(esc, *s))
			buf[w++] = '\\';
		buf[w++] = *s;
	}
	if (n)
		buf[w < n ? w : n - 1] = '\0';
	return buf;
}

char *judge_policy_path(const char *home, const char *path, char *buf, size_t n)
{
	/* path_escape_value's characters: a blank, ',', '$' or ';' left bare made the line name
	 * other paths (`write += ~/notes ~` grants all of ~) */
	return tilde_escaped(home, path, "*?[]{}\\ \t,$;", buf, n);
}

/* A rule's value (glob characters already escaped) as a suggested line spells it: "~/…"
 * under home, the characters a value reads as syntax besides escaped (judge_policy_path). */
static char *rule_line(const char *home, const char *value, char *buf, size_t n)
{
	return tilde_escaped(home, value, " \t,$;", buf, n);
}

const char *judge_kind_name(enum viol_kind k)
{
	static const char *const names[] = {"read", "write", "exec", "unix", "network"};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

/* ---- suggestions ---- */

/* The user's file a grant goes in, as the user reads it ("~/…"; into f). */
static const char *grant_file(const struct judge_ctx *c, char *f, size_t n)
{
	return c->prof->grant_file ? judge_tilde(c->home, c->prof->grant_file, f, n)
				   : "~/.config/sbxsh/sbxsh.ini";
}

static const char *grant_where(const struct judge_ctx *c, char *buf, size_t n)
{
	const struct profile *p = c->prof;
	char f[PATH_MAX];

	if (snprintf(buf, n, "%s in %s", p->grant_section ? p->grant_section : "[default]",
		     grant_file(c, f, sizeof(f))) < 0)
		buf[0] = '\0';
	return buf;
}

/* The section head ("[profile claude-code]") line `line` of the embedded default lies in, into
 * buf; "" when none. */
static const char *embedded_section(unsigned line, char *buf, size_t n)
{
	const char *s = policy_default_ini;

	buf[0] = '\0';
	for (unsigned l = 1; *s && l <= line; l++) {
		size_t len = strcspn(s, "\n");

		if (s[0] == '[' && len < n)
			snprintf(buf, n, "%.*s", (int)len, s);
		s += len + (s[len] == '\n');
	}
	return buf;
}

/* Where a value came from: "file:line", or for the embedded default (etc/sbxsh.ini) its
 * section and line ("the default policy's [profile claude-code], line 177": a preset's rule
 * names the preset). */
static const char *origin(const struct judge_ctx *c, const struct pol_value *v, char *buf, size_t n)
{
	char f[PATH_MAX];

	if (!v || !v->file)
		snprintf(buf, n, "the default policy");
	else if (strcmp(v->file, "<embedded>") == 0) {
		char sec[256];

		snprintf(buf, n, "the default policy's %s, line %u",
			 *embedded_section(v->line, sec, sizeof(sec)) ? sec : "file", v->line);
	} else
		snprintf(buf, n, "%s:%u", judge_tilde(c->home, v->file, f, sizeof(f)), v->line);
	return buf;
}

static void dir_of(const char *path, char *buf, size_t n)
{
	const char *s = strrchr(path, '/');

	if (!s || s == path)
		snprintf(buf, n, "/");
	else
		snprintf(buf, n, "%.*s", (int)(s - path), path);
}

/* A path hidden where no grant should be suggested: a credential store, or a system deny. */
static void no_grant(const struct judge_ctx *c, const struct verdict *v, const char *rule,
		     char *buf, size_t n)
{
	char o[PATH_MAX];

	if (v->why == VW_CREDENTIAL)
		snprintf(buf, n,
			 "a credential store hidden by deny_read %s (%s); sbxsh does not "
			 "suggest a grant for it",
			 rule, origin(c, v->rule, o, sizeof(o)));
	else
		snprintf(buf, n,
			 "hidden by deny_read %s (%s, system policy); a user file cannot "
			 "grant it",
			 rule, origin(c, v->rule, o, sizeof(o)));
}

/* Where the host runs code from: the system's programs, libraries and configuration (cron,
 * systemd units, profile.d, sudoers, ld.so.preload: as root each runs what is written there),
 * the home's programs, and below, every directory of $PATH. */
static const struct {
	const char *dir, *why;
} code_dirs[] = {
    {"/etc", "the system's configuration: cron, systemd, profile.d, sudoers and ld.so.preload "
	     "run what is written there"},
    {"/usr", "the system's programs and libraries"},
    {"/bin", "the system's programs"},
    {"/sbin", "the system's programs"},
    {"/lib", "the system's libraries"},
    {"/lib32", "the system's libraries"},
    {"/lib64", "the system's libraries"},
    {"/libx32", "the system's libraries"},
    {"/boot", "the kernel and its boot loader"},
    {"/var/spool/cron", "crontabs"},
    {"/var/spool/at", "at jobs"},
    {"/var/lib/dpkg", "the package manager's scripts"},
    {"/run/systemd", "systemd's transient units"},
};

/* A grant of g hands the sandbox x: g at or below x, or above it where no mandatory deny holds
 * x whatever the grants (~/.local/bin; with the guard, a directory of $PATH in the home). */
static bool hands(const struct judge_ctx *c, const char *g, const char *x)
{
	bool gc;

	return under(g, x) || (under(x, g) && !mandatory_of(c, x, &gc));
}

/* Whether a grant of g (a host path) hands the sandbox a place the host runs code from: g at,
 * below or above one. The reason into buf ("~/bin: a directory on $PATH") and true. A
 * directory of $PATH in the project (already granted) or a virtualenv's or conda
 * environment's bin (its package manager installs there) does not count, as for the guard. */
static bool runs_code(const struct judge_ctx *c, const char *g, char *buf, size_t n)
{
	const char *path = getenv("PATH"), *last = strrchr(g, '/');
	char d[PATH_MAX], td[PATH_MAX];

	for (size_t i = 0; i < sizeof(code_dirs) / sizeof(code_dirs[0]); i++)
		if (hands(c, g, code_dirs[i].dir)) {
			snprintf(buf, n, "%s: %s", code_dirs[i].dir, code_dirs[i].why);
			return true;
		}
	for (int k = 0; c->home && k < 2; k++) {
		snprintf(d, sizeof(d), "%s/%s", c->home, k ? ".local/bin" : "bin");
		if (hands(c, g, d)) {
			snprintf(buf, n, "%s: the home's programs",
				 judge_tilde(c->home, d, td, sizeof(td)));
			return true;
		}
	}
	for (const char *s = path; s && *s; s += *s == ':') {
		size_t l = strcspn(s, ":");
		bool own = false;

		if (s[0] == '/' && l < sizeof(d)) {
			snprintf(d, sizeof(d), "%.*s", (int)l, s);
			while (strlen(d) > 1 && d[strlen(d) - 1] == '/')
				d[strlen(d) - 1] = '\0';
			own = c->prof && c->prof->root && under(d, c->prof->root);
			for (int k = 0; !own && c->exists && k < 2; k++)
				own = snprintf(td, sizeof(td), "%s/../%s", d,
					       k ? "conda-meta" : "pyvenv.cfg") < (int)sizeof(td) &&
				      c->exists(td, c->arg);
			if (!own && hands(c, g, d)) {
				snprintf(buf, n, "%s: a directory on $PATH",
					 judge_tilde(c->home, d, td, sizeof(td)));
				return true;
			}
		}
		s += l;
	}
	/* a bin or sbin anywhere (another user's ~/bin, /srv/app/bin): programs someone runs */
	if (last && (strcmp(last, "/bin") == 0 || strcmp(last, "/sbin") == 0)) {
		snprintf(buf, n, "%s: a directory of programs",
			 judge_tilde(c->home, g, td, sizeof(td)));
		return true;
	}
	return false;
}

/* No grant suggested for g: why, and what to do instead. */
static void no_code_grant(const char *why, char *buf, size_t n)
{
	snprintf(buf, n,
		 "no grant suggested: %s. A command that may write there runs its code outside "
		 "the sandbox the next time the host starts it; make this change outside sbxsh "
		 "(have the command write it in the project, read it, and copy it there yourself)",
		 why);
}

/* What suggest_write's steps share: the verdict; where a grant goes; the deciding rule as the
 * user reads it (rule) and as a line spells it (line); the directory written in (d) and its
 * policy spelling (td). */
struct wsug {
	const struct judge_ctx *c;
	const struct verdict *v;
	const char *where, *rule, *line, *d, *td;
};

/* The home rule: a grant of the dot-entry, or of the shallowest directory below it on the way
 * to d that holds no place the host runs code from; none when every one holds one. */
static void write_home(const struct wsug *s, char *buf, size_t n)
{
	const struct judge_ctx *c = s->c;
	const char *d = s->d, *td = s->td, *r = td + 2, *sl = strchr(r, '/');
	char e[PATH_MAX], eh[PATH_MAX + 8], why[PATH_MAX + 200];

	/* ~/.entry: the first component below home */
	snprintf(e, sizeof(e), "~/%.*s", sl ? (int)(sl - r) : (int)strlen(r), r);
	if (strcmp(td, "~") == 0) {
		judge_tilde(c->home, s->v->path, e, sizeof(e));
		snprintf(eh, sizeof(eh), "%s", s->v->path);
	} else {
		size_t hl = strlen(c->home);

		snprintf(eh, sizeof(eh), "%.*s", (int)(hl + 1 + strcspn(d + hl + 1, "/")), d);
	}
	/* the dot-entry holds a place the host runs code from: the shallowest directory on the
	 * way to the one written in that holds none (a grant below the dot-entry lifts the rule
	 * as well) */
	while (runs_code(c, eh, why, sizeof(why))) {
		size_t l = strlen(eh);

		if (strcmp(td, "~") == 0 || !under(d, eh) || strcmp(d, eh) == 0) {
			no_code_grant(why, buf, n);
			return;
		}
		snprintf(eh + l, sizeof(eh) - l, "%.*s", (int)strcspn(d + l + 1, "/") + 1, d + l);
		judge_policy_path(c->home, eh, e, sizeof(e));
	}
	snprintf(
	    buf, n,
	    "the home rule: a grant of ~ never covers ~/.* or ~/bin; to allow: %s: write += %s",
	    s->where, e);
}

/* deny_write: a deeper grant where it holds no place the host runs code from, else the line
 * to take out (of the user's file: a preset's is lifted by a section of the same name there,
 * which applies after the shipped file). */
static void write_deny_write(const struct wsug *s, char *buf, size_t n)
{
	const struct judge_ctx *c = s->c;
	const struct pol_value *rv = s->v->rule;
	char o[PATH_MAX], why[PATH_MAX + 200];
	bool deeper = rv && depth_of(s->d) > depth_of(rv->value);

	if (deeper && runs_code(c, s->d, why, sizeof(why)))
		no_code_grant(why, buf, n);
	else if (deeper)
		snprintf(buf, n, "read-only by deny_write %s (%s); to allow: %s: write += %s",
			 s->rule, origin(c, rv, o, sizeof(o)), s->where, s->td);
	else if (rv && rv->file && strcmp(rv->file, "<embedded>") == 0) {
		char sec[256], f[PATH_MAX];

		embedded_section(rv->line, sec, sizeof(sec));
		snprintf(buf, n,
			 "read-only by deny_write %s (%s); to lift it: %s in %s: deny_write -= %s",
			 s->rule, origin(c, rv, o, sizeof(o)), sec[0] ? sec : "[default]",
			 grant_file(c, f, sizeof(f)), s->line);
	} else
		snprintf(buf, n,
			 "read-only by deny_write %s (%s); remove it there: deny_write -= %s",
			 s->rule, origin(c, rv, o, sizeof(o)), s->line);
}

/* A create grant: what it keeps, and the lines that lift it (a preset's by a section of the
 * same name in the user's file, which applies after it). */
static void write_create(const struct wsug *s, char *buf, size_t n)
{
	const struct judge_ctx *c = s->c;
	const struct verdict *v = s->v;
	char sec[256], f[PATH_MAX], o[PATH_MAX], wh[PATH_MAX + 300];

	snprintf(wh, sizeof(wh), "%s", s->where);
	if (v->rule && v->rule->file && strcmp(v->rule->file, "<embedded>") == 0 &&
	    *embedded_section(v->rule->line, sec, sizeof(sec)))
		snprintf(wh, sizeof(wh), "%s in %s", sec, grant_file(c, f, sizeof(f)));
	char *lit = v->rule ? path_unescape(v->rule->value) : NULL;
	bool inside = lit && under(v->path, lit) && strcmp(v->path, lit) != 0;

	free(lit);
	snprintf(buf, n,
		 inside ? "create grant %s (%s): a command changes only what it made there "
			  "itself, and this command did not make it (another command's "
			  "file, which an agent may source in a wider sandbox); make a new "
			  "file instead. To let every command change every file there: %s: "
			  "create -= %s, then write += %s"
			: "create grant %s (%s): its directory and the directories holding "
			  "it are not removed, renamed or changed (the names in it are what "
			  "later commands source). To lift it: %s: create -= %s, then "
			  "write += %s",
		 s->rule, origin(c, v->rule, o, sizeof(o)), wh, s->line, s->line);
}

/* A write grant that matched nothing at start: make what it names, then run it again. */
static void write_unmounted(const struct wsug *s, char *buf, size_t n)
{
	const struct pol_value *rv = s->v->rule;
	char made[PATH_MAX], o[PATH_MAX];
	char *lit = rv && !path_has_glob(rv->value) ? path_unescape(rv->value) : NULL;

	judge_tilde(s->c->home, lit ? lit : s->d, made, sizeof(made));
	free(lit);
	snprintf(buf, n,
		 "write grant %s (%s) matched nothing when the command started "
		 "(a grant covers what exists); create %s first and run it again",
		 s->rule, origin(s->c, rv, o, sizeof(o)), made);
}

/* At or below what a deny_read hides (the guard's refusal): as the read would be told when a
 * credential or system deny hides it, else the line to take out. */
static void write_deny_read(const struct wsug *s, char *buf, size_t n)
{
	const struct judge_ctx *c = s->c;
	char o[PATH_MAX];

	if (s->v->rule && deny_origin(c, s->v->rule) != VW_DENY_READ) {
		struct verdict w = *s->v;

		w.why = deny_origin(c, s->v->rule);
		no_grant(c, &w, s->rule, buf, n);
	} else
		snprintf(buf, n,
			 "hidden by deny_read %s (%s): nothing is written where it hides; "
			 "to allow it, remove it there: deny_read -= %s",
			 s->rule, origin(c, s->v->rule, o, sizeof(o)), s->line);
}

/* No grant covers it: a grant of its directory (of the file alone in / or home), the line
 * that makes the cwd a project, or none where that hands out a place the host runs code from. */
static void write_plain(const struct wsug *s, char *buf, size_t n)
{
	const struct judge_ctx *c = s->c;
	const struct profile *p = c->prof;
	const char *path = s->v->path, *d = s->d;
	bool top = strcmp(d, "/") == 0 || (c->home && strcmp(d, c->home) == 0);
	char why[PATH_MAX + 200];

	if (runs_code(c, top ? path : d, why, sizeof(why)))
		no_code_grant(why, buf, n);
	else if (!p->root && p->no_project && p->cwd && under(path, p->cwd) &&
		 strcmp(p->cwd, "/") != 0) {
		/* no project: the line that makes the cwd one */
		const char *np = p->no_project, *tail = strstr(np, "] write = .");
		char f[PATH_MAX];

		snprintf(buf, n, "%.*s in %s: write = . (there is no project here)",
			 tail ? (int)(tail - np) + 1 : (int)strlen(np), np,
			 grant_file(c, f, sizeof(f)));
	} else if (top) {
		char tp[PATH_MAX];

		snprintf(buf, n,
			 "%s: write += %s (the file alone: a grant of %s would open all of it)",
			 s->where, judge_policy_path(c->home, path, tp, sizeof(tp)), s->td);
	} else
		snprintf(buf, n, "%s: write += %s", s->where, s->td);
}

static char *suggest_write(const struct judge_ctx *c, const struct verdict *v, const char *where,
			   char *buf, size_t n)
{
	char d[PATH_MAX], td[PATH_MAX], rv[PATH_MAX], rl[PATH_MAX];
	struct wsug s = {
	    .c = c,
	    .v = v,
	    .where = where,
	    .rule = v->rule ? judge_tilde(c->home, v->rule->value, rv, sizeof(rv)) : "",
	    .line = v->rule ? rule_line(c->home, v->rule->value, rl, sizeof(rl)) : "",
	    .d = d,
	    .td = td,
	};

	dir_of(v->path, d, sizeof(d));
	judge_policy_path(c->home, d, td, sizeof(td));
	switch (v->why) {
	case VW_MANDATORY:
		snprintf(buf, n,
			 "a mandatory deny (%s): sbxsh never lets a sandboxed command "
			 "write it and no grant lifts it; make this change outside sbxsh",
			 v->mandatory);
		break;
	case VW_GIT_CONFIG:
		snprintf(buf, n,
			 "a mandatory deny (%s); to allow: %s: git_config = yes (then a command "
			 "can set core.fsmonitor or core.hooksPath, which git runs on the host)",
			 v->mandatory, where);
		break;
	case VW_HOME:
		write_home(&s, buf, n);
		break;
	case VW_DENY_WRITE:
		write_deny_write(&s, buf, n);
		break;
	case VW_CREATE:
		write_create(&s, buf, n);
		break;
	case VW_UNMOUNTED:
		write_unmounted(&s, buf, n);
		break;
	case VW_CREDENTIAL:
	case VW_SYSTEM:
		no_grant(c, v, s.rule, buf, n);
		break;
	case VW_DENY_READ:
		write_deny_read(&s, buf, n);
		break;
	default:
		write_plain(&s, buf, n);
		break;
	}
	return buf;
}

static char *suggest_read(const struct judge_ctx *c, const struct verdict *v, const char *where,
			  char *buf, size_t n)
{
	char tp[PATH_MAX], rv[PATH_MAX], o[PATH_MAX], rl[PATH_MAX];
	const char *rule = v->rule ? judge_tilde(c->home, v->rule->value, rv, sizeof(rv)) : "";
	const char *line = v->rule ? rule_line(c->home, v->rule->value, rl, sizeof(rl)) : "";

	judge_policy_path(c->home, v->path, tp, sizeof(tp));
	switch (v->why) {
	case VW_CREDENTIAL:
	case VW_SYSTEM:
		no_grant(c, v, rule, buf, n);
		break;
	case VW_DENY_READ:
		if (v->rule && depth_of(v->path) <= depth_of(v->rule->value))
			snprintf(buf, n,
				 "hidden by deny_read %s (%s); remove it there: deny_read -= %s",
				 rule, origin(c, v->rule, o, sizeof(o)), line);
		else
			snprintf(
			    buf, n,
			    "hidden by deny_read %s (%s); a deeper grant shows it: %s: read += %s",
			    rule, origin(c, v->rule, o, sizeof(o)), where, tp);
		break;
	default:
		snprintf(buf, n, "%s: read += %s", where, tp);
		break;
	}
	return buf;
}

static char *suggest_network(const struct judge_ctx *c, const struct verdict *v, const char *where,
			     char *buf, size_t n)
{
	char o[PATH_MAX], host[PATH_MAX];
	const char *colon = strrchr(v->path, ':');

	snprintf(host, sizeof(host), "%s", v->path);
	if (colon && (strcmp(colon, ":443") == 0 || strcmp(colon, ":80") == 0) &&
	    !strchr(colon + 1, ']'))
		host[colon - v->path] = '\0';
	if (v->why == VW_DENY_DOMAIN)
		snprintf(buf, n, "refused by deny_domains %s (%s)", v->rule ? v->rule->value : "",
			 origin(c, v->rule, o, sizeof(o)));
	else
		snprintf(buf, n, "%s: allow_domains += %s", where, host);
	return buf;
}

char *judge_suggest(const struct judge_ctx *c, const struct verdict *v, char *buf, size_t n)
{
	char where[PATH_MAX];

	grant_where(c, where, sizeof(where));
	switch (v->kind) {
	case VK_WRITE:
		return suggest_write(c, v, where, buf, n);
	case VK_READ:
	case VK_EXEC:
		return suggest_read(c, v, where, buf, n);
	case VK_NETWORK:
		return suggest_network(c, v, where, buf, n);
	case VK_UNIX:
		/* a socket path is refused at load (policy_parse.c): only all grants */
		snprintf(buf, n, "%s: unix_sockets = all (every unix socket the sandbox can name)",
			 where);
		return buf;
	}
	buf[0] = '\0';
	return buf;
}
