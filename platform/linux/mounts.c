/* mounts — a resolved profile → the ordered mounts of a bwrap sandbox (reads the file system).
 *
 * Rules kept here:
 * - Every path is canonicalized before it becomes a mount; globs are expanded once, here.
 * - The deepest path wins; on the same path a deny wins over a grant (read < write <
 *   deny_write < deny_read).
 * - A write grant naming a file is widened to its directory (a bind of a file makes
 *   rename-over-it fail with EBUSY), and said so. A write grant inside the project whose
 *   links lead out of it is refused, naming the link.
 * - Nothing that does not exist is mounted: bwrap would create stub files on the host for
 *   it. The mandatory write denies are found by bounded probes, never a whole-tree walk.
 * - A cwd that no grant shows is refused: bwrap would silently start in $HOME instead.
 */
#include "platform/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "platform/linux/canon.h"
#include "platform/path.h"
#include "shell/policy.h"

/* Same-path precedence: a later kind wins. */
enum kind { K_READ, K_WRITE, K_RO, K_HIDE };
enum state { S_NONE, S_RO, S_RW, S_HIDDEN };

struct entry {
	char *path;
	enum kind kind;
};

struct plan {
	struct entry *v;
	size_t n, cap;
	struct strv writes; /* effective write roots, canonical, existing directories */
	struct strv *notices, *errors;
};

/* Names no command may write inside a write grant or the home directory (policy.md). */
static const char *const mandatory[] = {
    ".bashrc",	      ".bash_profile",
    ".bash_login",    ".bash_logout",
    ".profile",	      ".zshrc",
    ".zprofile",      ".zshenv",
    ".zlogin",	      ".config/fish",
    ".config/sbxsh",  ".gitconfig",
    ".gitmodules",    ".git/hooks",
    ".git/config",    ".ssh",
    ".vscode",	      ".idea",
    ".mcp.json",      ".claude/commands",
    ".claude/agents", ".claude/settings*.json",
    ".codex",	      ".gemini",
};

#define PROBE_MAX_DIRS 256 /* subdirectories of a write grant probed for mandatory names */
#define STARSTAR_DEPTH 4   /* directory levels a "**" in the middle of a glob spans */

static const char *const hermetic_roots[] = {
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
};

static int add(struct plan *pl, const char *path, enum kind k)
{
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? pl->cap * 2 : 32;
		struct entry *v = realloc(pl->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		pl->v = v;
		pl->cap = cap;
	}
	if (!(pl->v[pl->n].path = strdup(path)))
		return -ENOMEM;
	pl->v[pl->n++].kind = k;
	return 0;
}

static bool has_glob(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' && s[1])
			s++;
		else if (strchr("*?[{", *s))
			return true;
	}
	return false;
}

static char *unescape(const char *s)
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

// A trailing "/**" (or "/**/*") means the directory itself: a grant of a whole tree.
static void collapse_starstar(char *pat)
{
	size_t n = strlen(pat);

	if (n > 5 && strcmp(pat + n - 5, "/**/*") == 0)
		pat[n - 5] = '\0';
	else if (n > 3 && strcmp(pat + n - 3, "/**") == 0)
		pat[n - 3] = '\0';
}

/* glob(3) on each brace alternative (path_brace_expand: GLOB_BRACE is not in every C
 * library this is built with). */
static int glob_push(const char *pat, struct strv *out)
{
	struct strv alts = {0};
	int r = path_brace_expand(pat, &alts);

	for (size_t a = 0; r == 0 && a < alts.n; a++) {
		glob_t g;
		int gr = glob(alts.v[a], GLOB_NOSORT, NULL, &g);
		if (gr == GLOB_NOMATCH)
			continue;
		if (gr != 0) {
			r = gr == GLOB_NOSPACE ? -ENOMEM : 0;
			continue;
		}
		for (size_t i = 0; r == 0 && i < g.gl_pathc; i++)
			r = strv_push(out, g.gl_pathv[i]);
		globfree(&g);
	}
	strv_release(&alts);
	return r;
}

/* Expands pattern into existing paths; a middle "**" spans 0..STARSTAR_DEPTH levels. */
static int expand_glob(const char *pattern, struct strv *out)
{
	char *pat = strdup(pattern);
	int r = pat ? 0 : -ENOMEM;

	if (r == 0)
		collapse_starstar(pat);
	char *ss = pat ? strstr(pat, "/**/") : NULL;
	if (r == 0 && !ss) {
		r = has_glob(pat) ? glob_push(pat, out) : 0;
		if (r == 0 && !has_glob(pat)) {
			char *lit = unescape(pat);
			struct stat st;
			r = !lit ? -ENOMEM : stat(lit, &st) == 0 ? strv_push(out, lit) : 0;
			free(lit);
		}
	}
	for (int d = 0; r == 0 && ss && d <= STARSTAR_DEPTH; d++) {
		char *p = NULL;
		size_t head = (size_t)(ss - pat);
		char mid[4 * STARSTAR_DEPTH + 2] = "/";
		for (int i = 0; i < d; i++)
			strcat(mid, "*/");
		if (asprintf(&p, "%.*s%s%s", (int)head, pat, mid, ss + 4) < 0)
			r = -ENOMEM;
		else
			r = glob_push(p, out);
		free(p);
	}
	free(pat);
	return r;
}

/* Expands one policy value into canonical paths (literal: one, existing or not). Literals
 * come canonical from the policy engine (policy.h); canon re-checks them (write grants,
 * whose links must be judged). */
static int expand(const char *value, bool canon, struct strv *out)
{
	struct strv hits = {0};
	int r = 0;

	if (!has_glob(value) && !canon) {
		char *lit = unescape(value);
		if (!lit)
			return -ENOMEM;
		if (strv_find(out, lit) >= 0) {
			free(lit);
			return 0;
		}
		return strv_push_owned(out, lit);
	}
	if (has_glob(value)) {
		r = expand_glob(value, &hits);
	} else {
		char *lit = unescape(value);
		r = lit ? strv_push_owned(&hits, lit) : -ENOMEM;
	}
	for (size_t i = 0; r == 0 && i < hits.n; i++) {
		char *c = NULL;
		r = canon_path(hits.v[i], &c);
		if (r == 0 && strv_find(out, c) < 0)
			r = strv_push_owned(out, c);
		else
			free(c);
	}
	strv_release(&hits);
	return r;
}

static int add_reads(struct plan *pl, const struct profile *p)
{
	int r = 0;

	for (size_t i = 0;
	     r == 0 && p->hermetic && i < sizeof(hermetic_roots) / sizeof(*hermetic_roots); i++) {
		struct stat st;
		if (lstat(hermetic_roots[i], &st) == 0 && S_ISDIR(st.st_mode))
			r = add(pl, hermetic_roots[i], K_READ);
	}
	for (size_t i = 0; r == 0 && i < p->read.n; i++) {
		struct strv hits = {0};
		r = expand(p->read.v[i].value, true, &hits);
		for (size_t j = 0; r == 0 && j < hits.n; j++) {
			if (p->hermetic && strcmp(hits.v[j], "/") == 0)
				continue; /* hermetic: the system directories replace "/" */
			if (access(hits.v[j], F_OK) == 0)
				r = add(pl, hits.v[j], K_READ);
		}
		strv_release(&hits);
	}
	return r;
}

/* A write grant spelled inside the project must stay inside it once links are resolved. */
static int check_links(struct plan *pl, const struct profile *p, const struct pol_value *v,
		       const char *spelled, const char *canon)
{
	char *lit = strdup(spelled), *link = NULL, *target = NULL;
	int r = 0;

	if (!lit)
		return -ENOMEM;
	if (p->root && canon_under(lit, p->root) && !canon_under(canon, p->root)) {
		canon_first_link(lit, &link);
		if (link)
			target = realpath(link, NULL);
		r = strv_pushf(pl->errors,
			       "%s:%u: write grant %s: the symlink %s leads to %s, outside the "
			       "project %s; grant %s itself if that is meant",
			       v->file, v->line, v->value, link ? link : lit,
			       target ? target : canon, p->root, target ? target : canon);
		r = r ? r : -EPERM;
	}
	free(lit);
	free(link);
	free(target);
	return r;
}

static int add_write_path(struct plan *pl, const struct pol_value *v, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return strv_pushf(
		    pl->notices,
		    "write grant %s (%s:%u) does not exist; nothing is mounted for it "
		    "(create it first, or grant the directory that will hold it)",
		    path, v->file, v->line);
	if (!S_ISDIR(st.st_mode)) {
		char *dir = strdup(path);
		if (!dir)
			return -ENOMEM;
		*strrchr(dir, '/') = '\0';
		int r = strv_pushf(pl->notices,
				   "write grant %s is a file; its directory %s is writable instead "
				   "(renaming over a mounted file fails with EBUSY)",
				   path, dir[0] ? dir : "/");
		if (r == 0)
			r = add(pl, dir[0] ? dir : "/", K_WRITE);
		if (r == 0 && strv_find(&pl->writes, dir[0] ? dir : "/") < 0)
			r = strv_push(&pl->writes, dir[0] ? dir : "/");
		free(dir);
		return r;
	}
	int r = add(pl, path, K_WRITE);
	if (r == 0 && strv_find(&pl->writes, path) < 0)
		r = strv_push(&pl->writes, path);
	return r;
}

/* The directory a glob's hits would land in: its literal head. */
static char *glob_dir(const char *pat)
{
	char *d = strdup(pat);
	if (!d)
		return NULL;
	for (char *p = d; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (strchr("*?[{", *p)) {
			*p = '\0';
			break;
		}
	}
	char *slash = strrchr(d, '/');
	if (slash)
		*(slash == d ? slash + 1 : slash) = '\0';
	return d;
}

static int add_writes(struct plan *pl, const struct profile *p)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < p->write.n; i++) {
		const struct pol_value *v = &p->write.v[i];
		struct strv hits = {0}; /* as spelled: a glob's hits, or the literal */
		if (has_glob(v->value))
			r = expand_glob(v->value, &hits);
		else
			r = strv_push_owned(&hits, unescape(v->value));
		if (r == 0 && hits.n == 0) {
			char *d = glob_dir(v->value);
			r = d ? strv_pushf(
				    pl->notices,
				    "write grant %s (%s:%u) matches nothing yet, so nothing is "
				    "writable for it; grant the directory %s instead",
				    v->value, v->file, v->line, d)
			      : -ENOMEM;
			free(d);
		}
		/* The policy engine refuses a literal whose links leave the project; a glob's
		 * hits are judged here, each by the path it was matched at. */
		for (size_t j = 0; r == 0 && j < hits.n; j++) {
			char *c = NULL;
			r = canon_path(hits.v[j], &c);
			if (r == 0)
				r = check_links(pl, p, v, hits.v[j], c);
			if (r == 0)
				r = add_write_path(pl, v, c);
			free(c);
		}
		strv_release(&hits);
	}
	return r;
}

static int add_denies(struct plan *pl, const struct pol_list *l, enum kind k)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < l->n; i++) {
		struct strv hits = {0};
		r = expand(l->v[i].value, false, &hits);
		for (size_t j = 0; r == 0 && j < hits.n; j++) {
			struct stat st;
			if (lstat(hits.v[j], &st) == 0)
				r = add(pl, hits.v[j], k);
		}
		strv_release(&hits);
	}
	return r;
}

static bool in_writes(const struct plan *pl, const char *path)
{
	for (size_t i = 0; i < pl->writes.n; i++)
		if (canon_under(path, pl->writes.v[i]))
			return true;
	return false;
}

/* dir/name for a mandatory name (a glob only for .claude/settings*.json). */
static int probe_name(struct plan *pl, const char *dir, const char *name, bool git_config)
{
	char *p = NULL;
	int r = 0;

	if (git_config && strcmp(name, ".git/config") == 0)
		return 0;
	if (!(p = path_cat(dir, strcmp(dir, "/") ? strlen(dir) : 0, "/", name)))
		return -ENOMEM;
	struct strv hits = {0};
	r = strchr(name, '*') ? glob_push(p, &hits) : strv_push(&hits, p);
	for (size_t i = 0; r == 0 && i < hits.n; i++) {
		struct stat st;
		char *c = NULL;
		if (lstat(hits.v[i], &st) < 0)
			continue;
		r = canon_path(hits.v[i], &c);
		if (r == 0 && in_writes(pl, c))
			r = add(pl, c, K_RO);
		free(c);
	}
	strv_release(&hits);
	free(p);
	return r;
}

/* Every mandatory name whose first component is entry. */
static int probe_entry(struct plan *pl, const char *dir, const char *entry, bool git_config)
{
	int r = 0;
	size_t n = strlen(entry);

	for (size_t i = 0; r == 0 && i < sizeof(mandatory) / sizeof(*mandatory); i++) {
		const char *m = mandatory[i];
		if (strncmp(m, entry, n) == 0 && (m[n] == '\0' || m[n] == '/'))
			r = probe_name(pl, dir, m, git_config);
	}
	return r;
}

/* One directory: its entries against the mandatory names; optionally its subdirectories
 * (collected, not recursed further: the depth bound). */
static int probe_dir(struct plan *pl, const char *dir, bool git_config, struct strv *subdirs)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (!d)
		return 0;
	while (r == 0 && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_name[0] == '.')
			r = probe_entry(pl, dir, e->d_name, git_config);
		if (r == 0 && subdirs && e->d_type == DT_DIR && subdirs->n < PROBE_MAX_DIRS &&
		    strcmp(e->d_name, ".git") != 0)
			r = strv_pushf(subdirs, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name);
	}
	closedir(d);
	return r;
}

static int add_mandatory(struct plan *pl, const struct profile *p, const struct sandbox_ctx *c)
{
	int r = 0;
	size_t nw = pl->writes.n;

	for (size_t i = 0; r == 0 && i < nw; i++) {
		struct strv subdirs = {0};
		r = probe_dir(pl, pl->writes.v[i], p->git_config, &subdirs);
		for (size_t j = 0; r == 0 && j < subdirs.n; j++)
			r = probe_dir(pl, subdirs.v[j], p->git_config, NULL);
		strv_release(&subdirs);
	}
	if (r == 0 && c->home)
		r = probe_dir(pl, c->home, p->git_config, NULL);
	if (r == 0 && p->root)
		r = probe_entry(pl, p->root, ".git", p->git_config);
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *extra[] = {c->config_file, SBX_SYSCONFDIR "/sbxsh", NULL};
	for (size_t i = 0; r == 0 && i < 2; i++)
		if (extra[i])
			r = probe_name(pl, "/", extra[i] + 1, false);
	if (r == 0 && xdg && xdg[0] == '/') {
		char *d = NULL;
		r = asprintf(&d, "%s/sbxsh", xdg) < 0 ? -ENOMEM : probe_name(pl, "/", d + 1, false);
		free(d);
	}
	return r;
}

/* The session daemon's directories (session/ident.c): hidden from every sandbox, so no
 * command — even with network = open, in the daemon's own namespace — reaches ctl.sock. */
static int add_session_dirs(struct plan *pl)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR"), *home = getenv("HOME");
	char *d[4] = {NULL, NULL, NULL, NULL};
	int r = 0;

	if ((xdg && xdg[0] == '/' && asprintf(&d[0], "%s/sbxsh", xdg) < 0) ||
	    asprintf(&d[1], "/run/user/%u/sbxsh", (unsigned)getuid()) < 0 ||
	    asprintf(&d[2], "/tmp/sbxsh-%u", (unsigned)getuid()) < 0 ||
	    (home && home[0] == '/' && asprintf(&d[3], "%s/.cache/sbxsh-run", home) < 0))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < 4; i++) {
		struct stat st;
		char *c = NULL;
		if (!d[i] || stat(d[i], &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		r = canon_path(d[i], &c);
		if (r == 0)
			r = add(pl, c, K_HIDE);
		else if (r != -ENOMEM)
			r = 0; /* not canonicalizable: not reachable as a path either */
		free(c);
	}
	for (size_t i = 0; i < 4; i++)
		free(d[i]);
	return r;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	unsigned dx = canon_depth(x->path), dy = canon_depth(y->path);

	if (dx != dy)
		return dx < dy ? -1 : 1;
	int c = strcmp(x->path, y->path);
	if (c)
		return c;
	return x->kind > y->kind ? -1 : x->kind < y->kind; /* the winner first */
}

static enum state state_at(const struct entry *done, const enum state *st, size_t n,
			   const char *path)
{
	enum state s = S_NONE;
	unsigned best = 0;
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		unsigned d = canon_depth(done[i].path);
		if (canon_under(path, done[i].path) && (!any || d >= best)) {
			s = st[i];
			best = d;
			any = true;
		}
	}
	return s;
}

/* What an entry does given the state above it: the mount op, or -1 for nothing. */
static int op_for(enum kind k, enum state above, const char *path, enum state *now)
{
	struct stat st;

	switch (k) {
	case K_READ:
		*now = above == S_RW ? S_RW : S_RO;
		return above == S_NONE || above == S_HIDDEN ? SBX_M_RO_BIND : -1;
	case K_WRITE:
		*now = S_RW;
		return above != S_RW ? SBX_M_BIND : -1;
	case K_RO:
		*now = above == S_HIDDEN ? S_HIDDEN : S_RO;
		return above == S_RW ? SBX_M_RO_BIND : -1;
	case K_HIDE:
		*now = S_HIDDEN;
		if (above != S_RO && above != S_RW)
			return -1;
		return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? SBX_M_HIDE_DIR
								   : SBX_M_HIDE_FILE;
	}
	return -1;
}

/* The sorted entries → mounts. done/st record each distinct path and the state below it. */
static int emit(struct plan *pl, struct sandbox_spec *s, struct entry *done, enum state *st)
{
	size_t nd = 0;
	int r = 0;

	qsort(pl->v, pl->n, sizeof(*pl->v), cmp_entry);
	for (size_t i = 0; r == 0 && i < pl->n; i++) {
		const struct entry *e = &pl->v[i];
		if (nd && strcmp(done[nd - 1].path, e->path) == 0)
			continue; /* same path: the winner came first */
		enum state above = state_at(done, st, nd, e->path), now = above;
		int op = op_for(e->kind, above, e->path, &now);
		bool hide = op == SBX_M_HIDE_DIR || op == SBX_M_HIDE_FILE;
		/* /tmp itself is bwrap.c's to mount (private or shared); only its state counts. */
		if (op >= 0 && strcmp(e->path, "/tmp") != 0)
			r = sbx_mounts_add(&s->mounts, (enum sbx_mount_op)op, hide ? NULL : e->path,
					   e->path);
		done[nd] = *e;
		st[nd++] = now;
	}
	return r < 0 ? r : (int)nd;
}

static int add_symlinks(struct sandbox_spec *s, const struct profile *p)
{
	int r = 0;

	for (size_t i = 0;
	     r == 0 && p->hermetic && i < sizeof(hermetic_roots) / sizeof(*hermetic_roots); i++) {
		char target[4096];
		ssize_t n = readlink(hermetic_roots[i], target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		r = sbx_mounts_add(&s->mounts, SBX_M_SYMLINK, target, hermetic_roots[i]);
	}
	return r;
}

static int check_cwd(struct plan *pl, const struct profile *p, const struct entry *done,
		     const enum state *st, size_t nd)
{
	enum state s = state_at(done, st, nd, p->cwd);

	if (s == S_RO || s == S_RW)
		return 0;
	int r = strv_pushf(pl->errors,
			   "the current directory %s is %s in this profile, so the command would "
			   "not see it; add it to read or write in %s %s, or run the command from "
			   "the project",
			   p->cwd,
			   s == S_HIDDEN ? "hidden (deny_read or the private /tmp)" : "not granted",
			   p->grant_file ? p->grant_file : "~/.config/sbxsh/sbxsh.ini",
			   p->grant_section ? p->grant_section : "[default]");
	return r ? r : -EPERM;
}

static int plan_env(struct sandbox_spec *s, const struct profile *p, const struct sandbox_ctx *c,
		    struct strv *errors)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < p->env_unset.n; i++) {
		const char *pat = p->env_unset.v[i].value;
		for (char *const *e = c->environ; r == 0 && e && *e; e++) {
			const char *eq = strchr(*e, '=');
			char *name = eq ? strndup(*e, (size_t)(eq - *e)) : NULL;
			if (name && fnmatch(pat, name, 0) == 0 &&
			    strv_find(&s->env_unset, name) < 0)
				r = strv_push(&s->env_unset, name);
			free(name);
		}
	}
	for (size_t i = 0; r == 0 && i < p->env_set.n; i++) {
		const struct pol_value *v = &p->env_set.v[i];
		const char *eq = strchr(v->value, '=');
		if (!eq || eq == v->value)
			r = strv_pushf(errors, "%s:%u: env_set %s: want NAME=value", v->file,
				       v->line, v->value) < 0
				? -ENOMEM
				: -EINVAL;
		else
			r = strv_push(&s->env_set, v->value);
	}
	return r;
}

static bool holds_git(const struct plan *pl, const struct profile *p)
{
	char buf[4096];

	if (p->root && snprintf(buf, sizeof(buf), "%s/.git", p->root) < (int)sizeof(buf) &&
	    access(buf, F_OK) == 0)
		return true;
	for (size_t i = 0; i < pl->writes.n; i++)
		if (snprintf(buf, sizeof(buf), "%s/.git", pl->writes.v[i]) < (int)sizeof(buf) &&
		    access(buf, F_OK) == 0)
			return true;
	return false;
}

static int fill_spec(struct sandbox_spec *s, const struct profile *p, const struct sandbox_ctx *c)
{
	s->stage_fd = -1;
	s->cwd = strdup(p->cwd);
	s->stage = strdup(c->stage);
	struct stat st;
	if (c->marker && stat(c->marker, &st) == 0 && S_ISREG(st.st_mode) &&
	    !(s->marker = strdup(c->marker)))
		return -ENOMEM;
	s->inner_shell = strdup(c->inner_shell);
	const char *name = p->sections.n ? p->sections.v[p->sections.n - 1] : "[default]";
	const char *close = strchr(name, ']');
	s->profile_name = strndup(name, close ? (size_t)(close - name) + 1 : strlen(name));
	s->tmp_private = p->tmp == TMP_PRIVATE;
	s->unshare_user = !c->root;
	s->unshare_net = p->network != NET_OPEN;
	s->new_session = !c->tty;
	s->unix_all = p->unix_all;
	return s->cwd && s->stage && s->inner_shell && s->profile_name ? 0 : -ENOMEM;
}

static void plan_release(struct plan *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->v[i].path);
	free(pl->v);
	strv_release(&pl->writes);
}

int sandbox_plan(const struct profile *p, const struct sandbox_ctx *c, struct sandbox_spec *out,
		 struct strv *notices, struct strv *errors)
{
	struct plan pl = {.notices = notices, .errors = errors};
	enum state *st = NULL;
	struct entry *done = NULL; /* borrowed paths, owned by pl */
	int r;

	memset(out, 0, sizeof(*out));
	r = fill_spec(out, p, c);
	if (r == 0)
		r = add_reads(&pl, p);
	if (r == 0)
		r = add_writes(&pl, p);
	if (r == 0)
		r = add_denies(&pl, &p->deny_read, K_HIDE);
	if (r == 0)
		r = add_denies(&pl, &p->deny_write, K_RO);
	if (r == 0)
		r = add_mandatory(&pl, p, c);
	if (r == 0)
		r = add_session_dirs(&pl);
	/* The private /tmp hides the host's: grants beneath it are mounted on top. */
	if (r == 0)
		r = add(&pl, "/tmp", p->tmp == TMP_PRIVATE ? K_HIDE : K_WRITE);
	if (r == 0)
		r = (st = calloc(pl.n + 1, sizeof(*st))) && (done = calloc(pl.n + 1, sizeof(*done)))
			? 0
			: -ENOMEM;
	if (r == 0)
		r = add_symlinks(out, p);
	int nd = r == 0 ? emit(&pl, out, done, st) : r;
	r = nd < 0 ? nd : 0;
	if (r == 0)
		r = check_cwd(&pl, p, done, st, (size_t)nd);
	if (r == 0)
		r = plan_env(out, p, c, errors);
	if (r == 0)
		out->git_discovery = holds_git(&pl, p);
	free(st);
	free(done);
	plan_release(&pl);
	if (r < 0)
		sandbox_spec_release(out);
	return r;
}
