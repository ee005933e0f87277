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
 * - The kernel knobs runc and Docker protect are read-only or masked in every sandbox,
 *   whatever the profile grants: uid 0 mapped to the host's 0 still passes the permission
 *   check of a 0644 sysctl, so only a read-only mount keeps root from writing it.
 */
#include "platform/sandbox.h"

#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <fnmatch.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "paths.h"
#include "platform/buf.h"
#include "platform/linux/canon.h"
#include "platform/linux/stage_mounts.h"
#include "platform/mandatory.h"
#include "platform/path.h"
#include "platform/settings.h"

/* Same-path precedence: a later kind wins. */
enum kind { K_READ, K_WRITE, K_RO, K_HIDE };
enum state { S_NONE, S_RO, S_RW, S_HIDDEN };

struct entry {
	char *path;
	enum kind kind;
};

/* A directory's names as one readdir saw them (glob_push: one read per plan, shared by every
 * pattern whose last component alone holds the wildcards, e.g. ~/.config/opera* and
 * ~/.config/vivaldi*). */
struct dirlist {
	char *dir;
	/* the directory's records as getdents64 gave them (struct linux_dirent64: ino 8, off 8,
	 * reclen 2, type 1, the name NUL-terminated), read straight into one buffer: a /tmp of
	 * ~800 names was ~800 strdups and frees a start, and ~14 reads of musl's 2 KB */
	char *buf;
	size_t len, cap;
	bool unreadable; /* it could not be opened: no match there, as glob(3) without GLOB_ERR */
};

struct plan {
	struct entry *v;
	size_t n, cap;
	struct strv writes; /* effective write roots, canonical, existing directories */
	struct strv *notices, *errors;
	bool made; /* a missing grant's directories were created: the resolver's "absent" is old */
	struct dirlist *dirs;
	size_t ndirs, capdirs;
	struct path_names names; /* "no such name" for the mandatory names' probes */
};

#define PROBE_MAX_DIRS 256 /* subdirectories of a write grant probed for mandatory names */
#define STARSTAR_DEPTH 4   /* directory levels a "**" in the middle of a glob spans */

/* runc's / moby's defaults (oci/defaults.go): ReadonlyPaths, then MaskedPaths. */
static const char *const kernel_ro[] = {
    "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};
static const char *const kernel_masked[] = {
    "/proc/asound",
    "/proc/acpi",
    "/proc/kcore",
    "/proc/keys",
    "/proc/latency_stats",
    "/proc/timer_list",
    "/proc/timer_stats",
    "/proc/sched_debug",
    "/proc/scsi",
    "/sys/firmware",
    "/sys/devices/virtual/powercap",
    /* beyond runc's: 0400 files of root's that uid 0 mapped to 0 reads as their owner — the
     * host's physical page map and the kernel heap's layout (what an exploit grooms) — and
     * the host's trace buffers, debugfs, securityfs and pstore (reading trace_pipe consumes
     * the host's events) */
    "/proc/kpagecount",
    "/proc/kpageflags",
    "/proc/kpagecgroup",
    "/proc/slabinfo",
    "/proc/vmallocinfo",
    "/proc/pagetypeinfo",
    "/sys/kernel/tracing",
    "/sys/kernel/debug",
    "/sys/kernel/security",
    "/sys/fs/pstore",
    /* /proc/slabinfo's second spelling (each cache's objects, 0400), and zram's control
     * directory, whose hot_add (0400) makes a new block device on the host at each read */
    "/sys/kernel/slab",
    "/sys/class/zram-control",
};

/* A directory with no entry (nothing mounted there): nothing to mask, no mount spent. */
static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = d != NULL;

	while (empty && (e = readdir(d)))
		empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
	if (d)
		closedir(d);
	return empty;
}

/* What bwrap's --proc itself binds read-only when it may write there (bubblewrap.c
 * cover_proc_dirs, since 2016): as root (uid 0 mapped to 0, every capability in the new
 * namespace while bwrap mounts) it may, for these three — not for /proc/sys, whose permission
 * check is the sysctl's own. Ours would be a second read-only mount on top (each bind costs
 * bwrap a read of the whole mount table); e2e 0150 checks them read-only. */
static const char *const bwrap_covers[] = {"/proc/bus", "/proc/irq", "/proc/sysrq-trigger"};

#define PCT_MAX 100

const char *const sandbox_hermetic_roots[] = {
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", NULL,
};

static int add(struct plan *pl, const char *path, enum kind k)
{
	struct entry *v = array_grow(pl->v, &pl->cap, pl->n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	pl->v = v;
	if (!(pl->v[pl->n].path = strdup(path)))
		return -ENOMEM;
	pl->v[pl->n++].kind = k;
	return 0;
}

static bool has_glob(const char *s)
{
	return path_has_glob(s);
}

static char *unescape(const char *s)
{
	return path_unescape(s);
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

/* pl's listing of dir, read now if it was not; NULL with *err set when out of memory. */
#define DIR_READ (32 * 1024)  /* a large directory's reads */
#define DIR_BIG	 (256 * 1024) /* its buffer: above mallocng's mmap threshold */

static const struct dirlist *dir_list(struct plan *pl, const char *dir, int *err)
{
	for (size_t i = 0; i < pl->ndirs; i++)
		if (strcmp(pl->dirs[i].dir, dir) == 0)
			return &pl->dirs[i];
	struct dirlist *nv = array_grow(pl->dirs, &pl->capdirs, pl->ndirs + 1, sizeof(*nv));
	if (!nv) {
		*err = -ENOMEM;
		return NULL;
	}
	pl->dirs = nv;
	struct dirlist d = {.dir = strdup(dir)};
	/* openat, not open: musl's open adds an fcntl for O_CLOEXEC */
	int fd = d.dir ? openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	d.unreadable = fd < 0;
	/* The first two pages read on the stack, kept at the records' size (most directories
	 * here hold a few names: a small allocation, not a page of mallocng's that is madvised
	 * when freed). One that fills more (a shared /tmp of ~1,000 names) is read straight into
	 * one large buffer, DIR_READ at a time: mallocng maps it whole, a page is touched only
	 * when written, and realloc remaps it rather than copying — a page at a time into a
	 * doubling buffer was ten reads and four copies, ~25 page faults (~10 µs each on a
	 * paravirtualized guest). n <= 0: the end, or an error: as readdir(3), what was read. */
	char page[4096];
	long n = 0;
	for (int i = 0; fd >= 0 && !*err && i < 2; i++) {
		if ((n = syscall(SYS_getdents64, fd, page, sizeof(page))) <= 0)
			break;
		char *nb = array_grow(d.buf, &d.cap, d.len + (size_t)n, 1);
		if (!nb) {
			*err = -ENOMEM;
			break;
		}
		d.buf = nb;
		memcpy(d.buf + d.len, page, (size_t)n);
		d.len += (size_t)n;
	}
	while (fd >= 0 && !*err && n > 0) {
		if (d.cap - d.len < DIR_READ) {
			size_t cap = d.cap < DIR_BIG ? DIR_BIG : d.cap * 2;
			char *nb = cap > d.cap ? realloc(d.buf, cap) : NULL;
			if (!nb) {
				*err = -ENOMEM;
				break;
			}
			d.buf = nb;
			d.cap = cap;
		}
		if ((n = syscall(SYS_getdents64, fd, d.buf + d.len, d.cap - d.len)) > 0)
			d.len += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	if (!d.dir || *err) {
		free(d.dir);
		free(d.buf);
		*err = -ENOMEM;
		return NULL;
	}
	pl->dirs[pl->ndirs++] = d;
	return &pl->dirs[pl->ndirs - 1];
}

static void dirs_release(struct plan *pl)
{
	for (size_t i = 0; i < pl->ndirs; i++) {
		free(pl->dirs[i].dir);
		free(pl->dirs[i].buf);
	}
	free(pl->dirs);
}

/* The hits of pattern component comp (only '*' and '?' special; clen long) in directory
 * buf[0..pos) (pos 0: "/"), then of the components in rest (after a '/'; "" when comp is the
 * last), as musl's glob(3) finds them (do_glob): comp fnmatch'ed with FNM_PERIOD against every
 * name of pl's one read of the directory, "." and ".." included; where components follow, a
 * name readdir says is neither a directory nor a link skipped; a last-component match taken
 * as readdir gave it (an lstat only for a name whose type it did not say); a literal tail
 * after a match lstat'ed. 0 or -ENOMEM. */
static int walk(struct plan *pl, char *buf, size_t pos, const char *comp, size_t clen,
		const char *rest, struct strv *out)
{
	int err = 0;

	buf[pos] = '\0';
	const struct dirlist *d = dir_list(pl, pos ? buf : "/", &err);
	if (!d || d->unreadable)
		return err;
	/* the records stay where they are when a deeper level's read grows pl->dirs */
	const char *rec = d->buf;
	size_t len = d->len;
	char last[PATH_MAX];
	memcpy(last, comp, clen);
	last[clen] = '\0';
	/* what a name must start and end with: most names fail these before fnmatch, which
	 * costs ~1,000 instructions a name */
	size_t pre = strcspn(last, "*?"), suf = 0;
	while (suf < clen && last[clen - 1 - suf] != '*' && last[clen - 1 - suf] != '?')
		suf++;
	/* the next component holding a wildcard, and the literal ones before it */
	const char *next = rest, *lit_end = rest;
	while (*next) {
		size_t l = strcspn(next, "/");
		if (memchr(next, '*', l) || memchr(next, '?', l))
			break;
		lit_end = next + l;
		next += l + (next[l] == '/');
	}
	size_t litlen = (size_t)(lit_end - rest);
	unsigned short reclen;
	for (size_t i = 0; i + 19 < len; i += reclen) {
		memcpy(&reclen, rec + i + 16, sizeof(reclen));
		if (reclen < 20 || i + reclen > len)
			break;
		unsigned char type = (unsigned char)rec[i + 18];
		const char *name = rec + i + 19;
		size_t nl;
		if ((*rest && type != DT_UNKNOWN && type != DT_DIR && type != DT_LNK) ||
		    strncmp(name, last, pre) != 0 || (nl = strlen(name)) < pre + suf ||
		    memcmp(name + nl - suf, last + clen - suf, suf) != 0 ||
		    fnmatch(last, name, FNM_PERIOD) != 0)
			continue;
		if (pos + 1 + nl + 1 + litlen >= PATH_MAX)
			continue;
		size_t at = pos;
		buf[at++] = '/';
		memcpy(buf + at, name, nl);
		at += nl;
		buf[at] = '\0';
		struct stat st;
		if (!*rest) { /* the last component */
			if (type == DT_UNKNOWN && lstat(buf, &st) < 0)
				continue;
			if (strv_push(out, buf) < 0)
				return -ENOMEM;
			continue;
		}
		if (litlen) {
			buf[at++] = '/';
			memcpy(buf + at, rest, litlen);
			at += litlen;
			buf[at] = '\0';
		}
		if (*next) { /* a deeper wildcard */
			size_t nc = strcspn(next, "/");
			int r = walk(pl, buf, at, next, nc, next[nc] ? next + nc + 1 : "", out);
			if (r < 0)
				return r;
		} else if (lstat(buf, &st) == 0 && strv_push(out, buf) < 0) {
			return -ENOMEM;
		}
	}
	return 0;
}

/* pat's hits when its only specials are '*' and '?', in any components (no '\\', '[', ']',
 * '{', '}', no "//" and no trailing '/'): what glob(3) finds (walk), from pl's one read of each
 * directory — /run/user/ was read once for each of five patterns, ~/.local/lib/ five times.
 * Returns 1 when pat is not of that form (glob(3) then), else 0 or -ENOMEM. */
static int glob_walk(struct plan *pl, const char *pat, struct strv *out)
{
	size_t n = strlen(pat);
	char buf[PATH_MAX];

	if (pat[0] != '/' || n >= PATH_MAX || pat[n - 1] == '/' || strstr(pat, "//") ||
	    strpbrk(pat, "\\[]{}") || !strpbrk(pat, "*?"))
		return 1;
	/* the literal components before the first wildcard */
	const char *c = pat + 1, *lit_end = pat;
	while (*c) {
		size_t l = strcspn(c, "/");
		if (memchr(c, '*', l) || memchr(c, '?', l))
			break;
		lit_end = c + l;
		c += l + 1;
	}
	size_t pos = (size_t)(lit_end - pat), nc = strcspn(c, "/");
	memcpy(buf, pat, pos);
	return walk(pl, buf, pos, c, nc, c[nc] ? c + nc + 1 : "", out);
}

/* glob(3) on each brace alternative (path_brace_expand: GLOB_BRACE is not in every C
 * library this is built with). */
static int glob_push(struct plan *pl, const char *pat, struct strv *out)
{
	struct strv alts = {0};
	int r = path_brace_expand(pat, &alts);

	for (size_t a = 0; r == 0 && a < alts.n; a++) {
		if ((r = glob_walk(pl, alts.v[a], out)) <= 0)
			continue;
		r = 0;
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
static int expand_glob(struct plan *pl, const char *pattern, struct strv *out)
{
	char *pat = strdup(pattern);
	int r = pat ? 0 : -ENOMEM;

	if (r == 0)
		collapse_starstar(pat);
	char *ss = pat ? strstr(pat, "/**/") : NULL;
	if (r == 0 && !ss) {
		r = has_glob(pat) ? glob_push(pl, pat, out) : 0;
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
			r = glob_push(pl, p, out);
		free(p);
	}
	free(pat);
	return r;
}

/* Expands one policy value into canonical paths (literal: one, existing or not). Literals
 * come canonical from the policy engine (policy.h); canon re-checks them (write grants,
 * whose links must be judged). */
static int expand(struct plan *pl, const char *value, bool canon, struct strv *out)
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
		r = expand_glob(pl, value, &hits);
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

static int add_reads(struct plan *pl, const struct sandbox_req *p)
{
	int r = 0;

	for (size_t i = 0; r == 0 && p->hermetic && sandbox_hermetic_roots[i]; i++) {
		struct stat st;
		if (lstat(sandbox_hermetic_roots[i], &st) == 0 && S_ISDIR(st.st_mode))
			r = add(pl, sandbox_hermetic_roots[i], K_READ);
	}
	for (size_t i = 0; r == 0 && i < p->read.n; i++) {
		struct strv hits = {0};
		r = expand(pl, p->read.v[i].value, true, &hits);
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
static int check_links(struct plan *pl, const struct sandbox_req *p, const struct pol_value *v,
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
		char *esc = path_escape(target ? target : canon);
		r = strv_pushf(pl->errors,
			       "%s:%u: write grant %s: the symlink %s leads to %s, outside the "
			       "project %s; grant %s itself if that is meant",
			       v->file, v->line, v->value, link ? link : lit,
			       target ? target : canon, p->root, esc ? esc : canon);
		free(esc);
		r = r ? r : -EPERM;
	}
	free(lit);
	free(link);
	free(target);
	return r;
}

/* rel (components after a base, "a/b") starts with the components of name (globs allowed). */
static bool starts_with_name(const char *rel, const char *name)
{
	char r[PATH_MAX];
	size_t nc = 1;

	for (const char *q = name; *q; q++)
		nc += *q == '/';
	snprintf(r, sizeof(r), "%s", rel);
	char *cut = r;
	for (size_t i = 0; cut && i < nc; i++)
		cut = strchr(cut + (i ? 1 : 0), '/');
	if (cut)
		*cut = '\0';
	return fnmatch(name, r, FNM_PATHNAME) == 0;
}

/* Names a missing grant directory may not be created as: the mandatory names
 * (platform/mandatory.h) anywhere below base, a new `.git`, and (home) the paths fixed below
 * the home directory. */
static bool mandatory_rel(const char *rel, bool home)
{
	size_t n, nh;
	const char *const *any = mandatory_names(false, &n), *const *fixed =
								 mandatory_names(true, &nh);

	for (const char *c = rel; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL) {
		if (starts_with_name(c, ".git"))
			return true;
		for (size_t i = 0; i < n; i++)
			if (starts_with_name(c, any[i]))
				return true;
	}
	for (size_t i = 0; home && i < nh; i++)
		if (starts_with_name(rel, fixed[i]))
			return true;
	return false;
}

/* A name that looks like a file's (an extension, or a start-up/history file's ending): a
 * missing grant of it is not made a directory (~/.bash_history must stay a file to be). */
static bool looks_like_file(const char *path)
{
	const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	static const char *const ends[] = {"rc", "history", "hst", "hsts", "info", "lock"};
	size_t n = strlen(b);

	if (strchr(b + 1, '.'))
		return true;
	for (size_t i = 0; i < sizeof(ends) / sizeof(*ends); i++) {
		size_t k = strlen(ends[i]);
		if (n > k && strcmp(b + n - k, ends[i]) == 0)
			return true;
	}
	return false;
}

/* The base a missing grant directory may be created under: the home directory or the project
 * (path strictly below it, no mandatory name on the way), else NULL. */
static const char *creatable_under(const struct sandbox_req *p, const struct sandbox_ctx *c,
				   const char *path)
{
	const char *home = c->home && strcmp(c->home, "/") ? c->home : NULL;
	const char *root = p->root && strcmp(p->root, "/") ? p->root : NULL;
	bool in_home = home && canon_under(path, home) && path[strlen(home)];
	bool in_root = root && canon_under(path, root) && path[strlen(root)];
	const char *base = in_home ? home : in_root ? root : NULL;

	if (!base || looks_like_file(path) ||
	    (in_home && mandatory_rel(path + strlen(home) + 1, true)) ||
	    (in_root && mandatory_rel(path + strlen(root) + 1, false)))
		return NULL;
	return base;
}

/* mkdir -p path below base, 0700, one component at a time from base's descriptor, never
 * following a link (a component swapped for a symlink meanwhile fails with ELOOP/ENOTDIR).
 * Returns 0 or -errno. */
static int make_dirs_below(const char *base, const char *path)
{
	char rel[PATH_MAX];
	int dfd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r = 0;

	if (dfd < 0)
		return -errno;
	snprintf(rel, sizeof(rel), "%s", path + strlen(base) + 1);
	for (char *name = rel, *next; r == 0 && name && *name; name = next) {
		next = strchr(name, '/');
		if (next)
			*next++ = '\0';
		if (mkdirat(dfd, name, 0700) < 0 && errno != EEXIST)
			r = -errno;
		int nfd =
		    r ? -1 : openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (!r && nfd < 0)
			r = -errno;
		close(dfd);
		dfd = nfd;
	}
	if (dfd >= 0)
		close(dfd);
	return r;
}

/* A missing directory grant under the home directory or the project: created (0700) before
 * the sandbox starts, with one notice. 1 when it now exists, 0 when not made, -ENOMEM. */
static int create_missing(struct plan *pl, const struct sandbox_req *p, const struct sandbox_ctx *c,
			  const struct pol_value *v, const char *path)
{
	const char *base = c->make_dirs ? creatable_under(p, c, path) : NULL;
	int e;

	if (!base)
		return 0;
	pl->made = true;
	path_names_release(&pl->names); /* a listing read before is old now */
	if ((e = make_dirs_below(base, path)) < 0)
		return strv_pushf(pl->notices,
				  "write grant %s (%s:%u) does not exist and could not be created "
				  "(%s); nothing is mounted for it",
				  path, v->file, v->line, strerror(-e)) < 0
			   ? -ENOMEM
			   : 0;
	return strv_pushf(pl->notices,
			  "write grant %s (%s:%u) did not exist: created it (mode 0700) so the "
			  "command can write there",
			  path, v->file, v->line) < 0
		   ? -ENOMEM
		   : 1;
}

static int add_write_path(struct plan *pl, const struct sandbox_req *p, const struct sandbox_ctx *c,
			  const struct pol_value *v, const char *path)
{
	struct stat st;
	int made;

	if (stat(path, &st) < 0 && (made = create_missing(pl, p, c, v, path)) <= 0) {
		if (made < 0)
			return made;
		/* A shipped preset's grant of a directory the agent has not made yet: nothing to
		 * say. */
		if (v->file && strcmp(v->file, "<embedded>") == 0)
			return 0;
		return strv_pushf(pl->notices,
				  "write grant %s (%s:%u) does not exist; nothing is "
				  "mounted for it (create it first, or grant the "
				  "directory that will hold it)",
				  path, v->file, v->line);
	}
	if (stat(path, &st) < 0)
		return 0;
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

/* The directory a glob's hits would land in: its literal head (the longest glob-free prefix,
 * still spelled as a pattern). */
static char *glob_dir(const char *pat)
{
	char *d = strdup(pat);
	if (!d)
		return NULL;
	const char *g = path_glob_start(d);
	if (g)
		d[g - d] = '\0';
	char *slash = strrchr(d, '/');
	if (slash)
		*(slash == d ? slash + 1 : slash) = '\0';
	return d;
}

/* The real directory a glob's hits must stay in: its literal head, canonical. */
static int glob_fixed_dir(const char *pat, char **out)
{
	char *d = glob_dir(pat), *lit = d ? unescape(d) : NULL;
	int r = lit ? canon_path(lit, out) : -ENOMEM;

	free(d);
	free(lit);
	return r;
}

/* A glob hit whose real path leaves the pattern's fixed directory came through a link (one a
 * command may have planted, e.g. `ln -s ~ build` under a grant of ~/work/ANY/build): dropped with a
 * notice. Returns 1 to drop, 0 to keep, or -ENOMEM. */
static int glob_hit_leaves(struct plan *pl, const struct pol_value *v, const char *fixed,
			   const char *hit, const char *canon)
{
	char *link = NULL, *esc = NULL;
	int r;

	if (canon_under(canon, fixed) && strcmp(canon, fixed) != 0)
		return 0; /* strictly below: a hit is never the fixed directory itself */
	canon_first_link(hit, &link);
	esc = path_escape(canon);
	r = strv_pushf(pl->notices,
		       "write grant %s (%s:%u): %s leads through the symlink %s to %s, outside %s; "
		       "it is not mounted (grant %s itself if that is meant, or remove the link)",
		       v->value, v->file, v->line, hit, link ? link : hit, canon, fixed,
		       esc ? esc : canon);
	free(link);
	free(esc);
	return r < 0 ? r : 1;
}

static int add_writes(struct plan *pl, const struct sandbox_req *p, const struct sandbox_ctx *ctx)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < p->write.n; i++) {
		const struct pol_value *v = &p->write.v[i];
		struct strv hits = {0}; /* as spelled: a glob's hits, or the literal */
		if (has_glob(v->value))
			r = expand_glob(pl, v->value, &hits);
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
		 * hits are judged here, each by the path it was matched at, and must stay in
		 * the pattern's own fixed directory. */
		char *fixed = NULL;
		if (r == 0 && hits.n && has_glob(v->value))
			r = glob_fixed_dir(v->value, &fixed);
		for (size_t j = 0; r == 0 && j < hits.n; j++) {
			char *c = NULL;
			r = canon_path(hits.v[j], &c);
			if (r == 0)
				r = check_links(pl, p, v, hits.v[j], c);
			/* /tmp itself is the private one: a grant of it does nothing; say so. */
			if (r == 0 && p->tmp_private && strcmp(c, "/tmp") == 0)
				r = strv_pushf(
				    pl->notices,
				    "write grant /tmp (%s:%u) does nothing with tmp = private "
				    "(the command's /tmp is its own); grant a directory under "
				    "/tmp, or set tmp = shared for the host's /tmp",
				    v->file, v->line);
			else if (r == 0 && fixed &&
				 (r = glob_hit_leaves(pl, v, fixed, hits.v[j], c)) == 1)
				r = 0;
			else if (r == 0)
				r = add_write_path(pl, p, ctx, v, c);
			free(c);
		}
		free(fixed);
		strv_release(&hits);
	}
	return r;
}

/* A deny_read hit of another owner that the caller cannot read (nor search, for a
 * directory) is already closed by the kernel's permission check, and the caller cannot
 * chmod it: no mount for it (each costs start-up time; /etc/shadow and the ssh host keys are
 * such hits for everyone but root, whom access() always lets through). */
static bool needs_hide(const char *path, const struct stat *st)
{
	if (S_ISLNK(st->st_mode) || st->st_uid == getuid())
		return true;
	if (S_ISDIR(st->st_mode))
		return access(path, R_OK) == 0 || access(path, X_OK) == 0;
	return access(path, R_OK) == 0;
}

static bool in_writes_(const struct plan *pl, const char *path)
{
	for (size_t i = 0; i < pl->writes.n; i++)
		if (canon_under(path, pl->writes.v[i]))
			return true;
	return false;
}

/* A .git file's target as a canonical directory that looks like a git directory (HEAD, and
 * objects or a commondir), or NULL. what: "gitdir: " for a .git file, "" for a commondir. */
static char *git_link(const char *dir, const char *name, const char *what, bool common)
{
	char p[4096], b[4096];
	struct stat st;
	char *c = NULL;
	FILE *f;

	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p) || lstat(p, &st) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_size >= (off_t)sizeof(b) || !(f = fopen(p, "re")))
		return NULL;
	if (!fgets(b, sizeof(b), f))
		b[0] = '\0';
	fclose(f);
	b[strcspn(b, "\n")] = '\0';
	size_t wl = strlen(what);
	if (strncmp(b, what, wl) != 0 || !b[wl])
		return NULL;
	if (b[wl] == '/')
		snprintf(p, sizeof(p), "%s", b + wl);
	else if (snprintf(p, sizeof(p), "%s/%s", dir, b + wl) >= (int)sizeof(p))
		return NULL;
	if (canon_path(p, &c) < 0)
		return NULL;
	const char *need[] = {common ? "objects" : "HEAD", common ? "refs" : NULL};
	for (size_t i = 0; i < 2; i++)
		if (need[i] && (snprintf(p, sizeof(p), "%s/%s", c, need[i]) >= (int)sizeof(p) ||
				lstat(p, &st) < 0)) {
			free(c);
			return NULL;
		}
	return c;
}

/* A write grant that is a linked worktree or a submodule checkout (its .git a file): its git
 * directory and that one's commondir are writable too, so git add and commit work there
 * (index.lock under .git/worktrees/x). Their config and hooks stay the guard's (by name). */
static int add_git_links(struct plan *pl)
{
	size_t n = pl->writes.n;
	int r = 0;

	for (size_t i = 0; r == 0 && i < n; i++) {
		char *g = git_link(pl->writes.v[i], ".git", "gitdir: ", false);
		char *c = g ? git_link(g, "commondir", "", true) : NULL;
		const char *d[2] = {g, c};

		for (size_t k = 0; r == 0 && k < 2; k++)
			if (d[k] && !in_writes_(pl, d[k])) {
				r = add(pl, d[k], K_WRITE);
				if (r == 0)
					r = strv_push(&pl->writes, d[k]);
			}
		free(g);
		free(c);
	}
	return r;
}

/* One existing deny hit: hidden (K_HIDE, unless the kernel already closes it) or read-only.
 * (A $VARIABLE's value: var_names_sandbox first.) A device or a link in /dev is not hidden: the
 * sandbox's /dev is its own (bwrap's --dev), so it hid no host file, only the sandbox's own device:
 * HISTFILE=/dev/null (history off) made /dev/null an empty read-only file, HISTFILE=/dev/stdout
 * stopped bwrap. (A file or directory there may be the host's, a grant's bind of /dev/shm: hidden.)
 */
static int add_deny_hit(struct plan *pl, const char *path, enum kind k)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return 0;
	if (k == K_HIDE && strncmp(path, "/dev/", 5) == 0 && !strstr(path, "/.") &&
	    (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISLNK(st.st_mode)))
		return 0;
	if (k != K_HIDE || needs_hide(path, &st))
		return add(pl, path, k);
	return 0;
}

/* path is one of dirs, or holds one. */
static bool holds_any(const char *path, const char *const *dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (dirs[i] && canon_under(dirs[i], path))
			return true;
	return false;
}

/* A deny_read value a $VARIABLE named (the caller's environment: $HISTFILE, $GNUPGHOME…) that
 * names the sandbox itself, not a credential of the host's: not hidden. A caller's
 * environment never breaks or weakens the sandbox: HISTFILE=/dev/fd/1 (the front end's
 * /proc/PID/fd/1) stopped bwrap, HISTFILE=/dev/shm made the sandbox's /dev/shm read-only,
 * HISTFILE=/proc or /dev stopped the stage, HISTFILE=/usr hid the inner shell. So: a path
 * in a file system the sandbox makes its own (/proc, /sys, /dev, the private /tmp), but
 * inside a write grant (a host directory bound there); and a directory that is / or a
 * top-level one, one of the system's programs and libraries, or that is or holds the home,
 * the cwd, the project or a write grant. */
static bool var_names_sandbox(const struct plan *pl, const struct sandbox_req *p,
			      const struct sandbox_ctx *c, const char *path, const struct stat *st)
{
	static const char *const own[] = {"/proc", "/sys", "/dev"};
	static const char *const sys[] = {"/usr",   "/bin",   "/sbin",	"/lib",
					  "/lib32", "/lib64", "/libx32"};
	const char *mine[] = {c->home, p->cwd, p->root};

	if (!in_writes_(pl, path)) {
		for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
			if (canon_under(path, own[i]))
				return true;
		if (p->tmp_private && canon_under(path, "/tmp"))
			return true;
	}
	if (!S_ISDIR(st->st_mode))
		return false;
	if (!strchr(path + 1, '/'))
		return true; /* / or a top-level directory */
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (canon_under(path, sys[i]))
			return true;
	return holds_any(path, mine, sizeof(mine) / sizeof(mine[0])) ||
	       holds_any(path, (const char *const *)pl->writes.v, pl->writes.n);
}

static int add_denies(struct plan *pl, const struct sandbox_req *p, const struct sandbox_ctx *c,
		      const struct pol_list *l, enum kind k)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < l->n; i++) {
		const struct pol_value *v = &l->v[i];
		/* a literal the resolver has just found missing (most of the default's credential
		 * stores; absent is said of a literal only): not looked at a second time */
		if (k == K_HIDE && v->absent && !pl->made)
			continue;
		if (!has_glob(v->value)) {
			char *lit = unescape(v->value);
			struct stat st;

			if (lit && v->var && k == K_HIDE &&
			    (lstat(lit, &st) < 0 || var_names_sandbox(pl, p, c, lit, &st))) {
				free(lit);
				continue;
			}
			r = lit ? add_deny_hit(pl, lit, k) : -ENOMEM;
			free(lit);
			continue;
		}
		struct strv hits = {0};
		r = expand(pl, v->value, false, &hits);
		for (size_t j = 0; r == 0 && j < hits.n; j++)
			r = add_deny_hit(pl, hits.v[j], k);
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

/* An agent's directory made read-only inside a write grant (dir, canonical): its data
 * subdirectories that exist stay writable, as the guard lets them be (a link there is not
 * followed: a data name that is a link to elsewhere is no grant). */
static int agent_data_writes(struct plan *pl, const char *dir)
{
	size_t n;
	const char *const *data = mandatory_agent_data(&n);
	int r = 0;

	for (size_t i = 0; r == 0 && i < n; i++) {
		struct stat st;
		char *p = path_cat(dir, strlen(dir), "/", data[i]);
		if (!p)
			return -ENOMEM;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			r = add(pl, p, K_WRITE);
		free(p);
	}
	return r;
}

/* dir/name for a mandatory name (a glob only for .claude/settings*.json). */
static int probe_name(struct plan *pl, const char *dir, const char *name, bool git_config)
{
	char *p = NULL;
	int r = 0;

	if (git_config && strcmp(name, ".git/config") == 0)
		return 0;
	bool glob = strchr(name, '*') != NULL;
	size_t dl = strcmp(dir, "/") ? strlen(dir) : 0, nl = strlen(name);
	char lit[PATH_MAX];
	if (glob || dl + 1 + nl >= sizeof(lit)) {
		/* dir is a real path: as a glob's head its characters are literal
		 * (br[1]/.claude/…) */
		char *edir = glob ? path_escape(dir) : strdup(dir);
		if (!edir ||
		    !(p = path_cat(edir, strcmp(edir, "/") ? strlen(edir) : 0, "/", name))) {
			free(edir);
			return -ENOMEM;
		}
		free(edir);
	} else { /* most names: the path on the stack */
		memcpy(lit, dir, dl);
		lit[dl] = '/';
		memcpy(lit + dl + 1, name, nl + 1);
	}
	struct strv hits = {0};
	char *one[] = {p ? p : lit, NULL};
	if (glob)
		r = glob_push(pl, p, &hits);
	else /* most names: one path, no vector made for it */
		hits = (struct strv){.v = one, .n = 1};
	for (size_t i = 0; r == 0 && i < hits.n; i++) {
		struct stat st;
		char *c = NULL;
		/* most of the ~120 home names do not exist: their directories' listings say so
		 * (a literal's only; a glob's hits come from a listing already) */
		if ((hits.v == one && path_names_absent_path(&pl->names, one[0])) ||
		    lstat(hits.v[i], &st) < 0)
			continue;
		r = canon_path(hits.v[i], &c);
		if (r == 0 && in_writes(pl, c)) {
			r = add(pl, c, K_RO);
			if (r == 0 && S_ISDIR(st.st_mode) && mandatory_agent_dir(name))
				r = agent_data_writes(pl, c);
		}
		free(c);
	}
	if (hits.v != one)
		strv_release(&hits);
	free(p);
	return r;
}

/* Every mandatory name whose first component is entry. */
static int probe_entry(struct plan *pl, const char *dir, const char *entry, bool git_config)
{
	int r = 0;
	size_t n = strlen(entry);

	size_t nm;
	const char *const *mandatory = mandatory_names(false, &nm);

	for (size_t i = 0; r == 0 && i < nm; i++) {
		const char *m = mandatory[i];
		/* the first two characters first: entry is ".x…" (probe_dir's), most names
		 * differ there (~1,200 strncmps a start) */
		if (n >= 2 && (m[0] != entry[0] || m[1] != entry[1]))
			continue;
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

static int add_mandatory(struct plan *pl, const struct sandbox_req *p, const struct sandbox_ctx *c)
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
	size_t nh;
	const char *const *home = mandatory_names(true, &nh);
	for (size_t i = 0; r == 0 && c->home && i < nh; i++)
		r = probe_name(pl, c->home, home[i], false);
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

/* sbxsh's own violation log: full command lines of earlier commands (made before the plan
 * when missing, shell.c: a mount hides only what exists). */
/* A file or directory of sbxsh's own state (the violation log, the interactive shells'
 * histories), hidden when it exists. */
static int add_log(struct plan *pl, const char *log)
{
	struct stat st;
	char *c = NULL;
	int r = 0;

	if (!log || log[0] != '/' || lstat(log, &st) < 0)
		return 0;
	r = canon_path(log, &c);
	if (r == 0)
		r = add(pl, c, K_HIDE);
	else if (r != -ENOMEM)
		r = 0; /* not canonicalizable: not reachable as a path either */
	free(c);
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

/* What an entry does given the state above it: the mount op, or -1 for nothing. A hidden
 * path's kind comes from *ls, lstat's answer (lok) for it: a link is followed (stat), as
 * anything else stat says the same; missing for lstat is missing for stat. */
static int op_for(enum kind k, enum state above, const char *path, const struct stat *ls, bool lok,
		  enum state *now)
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
		if (lok && !S_ISLNK(ls->st_mode))
			return S_ISDIR(ls->st_mode) ? SBX_M_HIDE_DIR : SBX_M_HIDE_FILE;
		return lok && stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? SBX_M_HIDE_DIR
									  : SBX_M_HIDE_FILE;
	}
	return -1;
}

/* A mask the stage may make (bwrap.c): its path is no link (the stage mounts on what it opens
 * without following one; ls, lok: lstat's answer), and it lies outside what bwrap mounts
 * afresh (/dev, /proc, the private /tmp), so it is there in the sandbox as on the host. */
static bool stage_may_mask(const char *path, const struct stat *ls, bool lok)
{
	return lok && !S_ISLNK(ls->st_mode) && !canon_under(path, "/dev") &&
	       !canon_under(path, "/proc") && !canon_under(path, "/tmp");
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
		/* a hidden path looked at once: its kind and whether the stage may mask it (a
		 * stat and an lstat of each were two system calls) */
		struct stat ls;
		bool lok = e->kind == K_HIDE && (above == S_RO || above == S_RW) &&
			   lstat(e->path, &ls) == 0;
		/* a hit of a listing gone since (a lock or temporary file: /etc/gshadow.lock
		 * while useradd runs, a history's .tmp) leaves nothing to hide where the sandbox
		 * is read-only, and bwrap could not make its mount point there: the start
		 * failed (exit 125) */
		bool gone = e->kind == K_HIDE && above == S_RO && !lok && errno == ENOENT;
		int op = gone ? -1 : op_for(e->kind, above, e->path, &ls, lok, &now);
		if (gone)
			now = S_HIDDEN;
		bool hide = op == SBX_M_HIDE_DIR || op == SBX_M_HIDE_FILE;
		/* /tmp itself is bwrap.c's to mount (private or shared); only its state counts. */
		if (op >= 0 && strcmp(e->path, "/tmp") != 0)
			r = sbx_mounts_add(&s->mounts, (enum sbx_mount_op)op, hide ? NULL : e->path,
					   e->path);
		if (r == 0 && op >= 0 && hide && strcmp(e->path, "/tmp") != 0)
			s->mounts.v[s->mounts.n - 1].stage_ok = stage_may_mask(e->path, &ls, lok);
		done[nd] = *e;
		st[nd++] = now;
	}
	return r < 0 ? r : (int)nd;
}

/* A hidden ~/.docker (mount i): its config.json, sanitised, bound read-only inside the empty
 * tmpfs (appended: after the tmpfs, and the deepest mount there for the judge). */
static int docker_config(struct sandbox_spec *s, size_t i, const char *home)
{
	char path[PATH_MAX], *text = NULL, *clean = NULL;
	size_t n;
	int r, k = snprintf(path, sizeof(path), "%s/config.json", s->mounts.v[i].dst);

	if (k < 0 || (size_t)k >= sizeof(path) || settings_kind_of(home, path) != SETTINGS_DOCKER ||
	    settings_read(path, getuid(), &text, &n) < 0)
		return 0;
	r = settings_sanitize(SETTINGS_DOCKER, text, n, &clean);
	free(text);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	r = sbx_mounts_add(&s->mounts, SBX_M_DATA_FILE, clean, path);
	free(clean);
	return r;
}

/* Hidden settings files that also hold secrets (~/.npmrc, pip.conf) become read-only copies
 * with the secrets removed (platform/settings.h). Anything in doubt (a link, another owner,
 * too big, unreadable) stays hidden; only running out of memory fails the plan. */
static int sanitise_settings(struct sandbox_spec *s, const char *home)
{
	for (size_t i = 0; i < s->mounts.n; i++) {
		struct sbx_mount *m = &s->mounts.v[i];
		enum settings_kind k;
		char *text = NULL, *clean = NULL;
		size_t n;
		int r;

		if (m->op == SBX_M_HIDE_DIR) { /* ~/.docker: its config.json shown inside */
			r = docker_config(s, i, home);
			if (r < 0)
				return r;
			continue;
		}
		if (m->op != SBX_M_HIDE_FILE || !(k = settings_kind_of(home, m->dst)))
			continue;
		if (settings_read(m->dst, getuid(), &text, &n) < 0)
			continue;
		r = settings_sanitize(k, text, n, &clean);
		free(text);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			continue;
		m->op = SBX_M_DATA_FILE;
		m->src = clean;
	}
	return 0;
}

static int add_symlinks(struct sandbox_spec *s, const struct sandbox_req *p)
{
	int r = 0;

	for (size_t i = 0; r == 0 && p->hermetic && sandbox_hermetic_roots[i]; i++) {
		char target[4096];
		ssize_t n = readlink(sandbox_hermetic_roots[i], target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		r = sbx_mounts_add(&s->mounts, SBX_M_SYMLINK, target, sandbox_hermetic_roots[i]);
	}
	return r;
}

/* One kernel knob's mount; stage_ok: the stage may make it (a path of the kernel's, no link;
 * a read-only bind only of a directory). */
static int kernel_add(struct sandbox_spec *s, enum sbx_mount_op op, const char *src,
		      const char *dst, bool stage_ok)
{
	int r = sbx_mounts_add(&s->kernel, op, src, dst);
	if (r == 0)
		s->kernel.v[s->kernel.n - 1].stage_ok = stage_ok;
	return r;
}

/* The kernel knobs (kernel_ro, kernel_masked) that exist, after everything else: /proc is
 * always the sandbox's own; /sys only when a grant shows it (and read-only even then). */
static int add_kernel(struct sandbox_spec *s, const struct entry *done, const enum state *st,
		      size_t nd, bool root)
{
	enum state sys = state_at(done, st, nd, "/sys");
	struct stat sb;
	int r = 0;

	if (sys == S_RW)
		r = kernel_add(s, SBX_M_RO_BIND, "/sys", "/sys", true);
	/* Only root needs them: a user's uid fails the kernel's own permission checks on every
	 * knob (0644/0200 files of the host's root; uid 0 mapped to 0 passes them), and what the
	 * masked files show a user (its own keys' names, ACPI and firmware tables it may read) it
	 * can read outside anyway. Each mount costs start-up time. */
	if (!root)
		return r;
	/* A grant under /proc (bound from the host's) comes after bwrap's --proc: then ours
	 * close everything again. */
	bool proc_granted = false;
	for (size_t i = 0; i < nd && !proc_granted; i++)
		proc_granted = canon_under(done[i].path, "/proc");
	for (size_t i = 0; r == 0 && i < sizeof(kernel_ro) / sizeof(*kernel_ro); i++) {
		bool covered = false;
		for (size_t j = 0;
		     !proc_granted && j < sizeof(bwrap_covers) / sizeof(*bwrap_covers); j++)
			covered |= strcmp(kernel_ro[i], bwrap_covers[j]) == 0;
		if (!covered && lstat(kernel_ro[i], &sb) == 0)
			r = kernel_add(s, SBX_M_RO_BIND, kernel_ro[i], kernel_ro[i],
				       S_ISDIR(sb.st_mode));
	}
	for (size_t i = 0; r == 0 && i < sizeof(kernel_masked) / sizeof(*kernel_masked); i++) {
		const char *k = kernel_masked[i];
		if (strncmp(k, "/sys/", 5) == 0 && sys != S_RO && sys != S_RW)
			continue;
		if (lstat(k, &sb) == 0 && !(S_ISDIR(sb.st_mode) && dir_empty(k)))
			r = kernel_add(s, S_ISDIR(sb.st_mode) ? SBX_M_HIDE_DIR : SBX_M_HIDE_FILE,
				       NULL, k, !S_ISLNK(sb.st_mode));
	}
	return r;
}

/* Whether the mounts already show the stage read-only as it is on the host: a real path (no
 * link on the way), outside what bwrap mounts afresh (/dev, /proc, the private /tmp), whose
 * deepest mount is a read-only one of a directory above it. Then bwrap needs no bind of it
 * (each costs bwrap a read of the whole mount table). */
static bool stage_shown(const char *stage, const struct entry *done, const enum state *st,
			size_t nd)
{
	char *real = stage ? realpath(stage, NULL) : NULL;
	bool shown = real && strcmp(real, stage) == 0 && !canon_under(real, "/dev") &&
		     !canon_under(real, "/proc") && !canon_under(real, "/tmp") &&
		     state_at(done, st, nd, real) == S_RO;

	for (size_t i = 0; shown && i < nd; i++)
		shown = strcmp(done[i].path, real) != 0; /* not itself an entry (a deny, a grant) */
	free(real);
	return shown;
}

static int check_cwd(struct plan *pl, const struct sandbox_req *p, const struct entry *done,
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

/* pat (only literals and '*') against s: the common shape of env_unset patterns, matched
 * without fnmatch (~700 instructions a call: the default list against every variable was a
 * third of the front end's work). */
static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Case-insensitive: a credential's name is one whatever its case (npm reads
 * npm_config_//host/:_authToken, shells and CI systems pass lower-case names on). */
static bool star_match(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*pat == '*') {
			star = ++pat;
			resume = s;
		} else if (lower(*pat) == lower(*s)) {
			pat++, s++;
		} else if (star) {
			pat = star;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

/* One env_unset/env_keep pattern, looked at once (not once per pattern and variable): whether
 * it needs fnmatch (a '?', '[' or '\\'), else its shape — most are NAME, NAME*, *NAME or
 * *NAME* — with the literal part lower-cased, matched by compares against the
 * variable's lower-cased name; any other shape goes to star_match. */
enum env_shape { ES_FN, ES_EXACT, ES_PREFIX, ES_SUFFIX, ES_CONTAINS, ES_STAR };

struct env_pat {
	const char *v;
	enum env_shape shape;
	const char *lit; /* in env_pats' block: the literal part, lower-cased */
	size_t len;
};

#define ENV_NAME_FAST 256 /* longer names (rare) go to star_match for every pattern */

static struct env_pat *env_pats(const struct pol_list *l)
{
	size_t room = 0;
	for (size_t i = 0; i < l->n; i++)
		room += strlen(l->v[i].value) + 1;
	struct env_pat *e = calloc(1, (l->n + 1) * sizeof(*e) + room);
	char *w = e ? (char *)(e + l->n + 1) : NULL;

	for (size_t i = 0; e && i < l->n; i++) {
		const char *v = l->v[i].value;
		size_t n = strlen(v), stars = 0;
		bool fn = false;
		for (const char *c = v; *c; c++) {
			fn = fn || *c == '?' || *c == '[' || *c == '\\';
			stars += *c == '*';
		}
		bool head = n && v[0] == '*', tail = n > (size_t)head && v[n - 1] == '*';
		e[i].v = v;
		e[i].shape = fn					    ? ES_FN
			     : stars == 0			    ? ES_EXACT
			     : stars != (size_t)head + (size_t)tail ? ES_STAR
			     : head && tail			    ? ES_CONTAINS
			     : head				    ? ES_SUFFIX
								    : ES_PREFIX;
		if (n == 1 && head) /* "*" alone */
			e[i].shape = ES_CONTAINS, tail = false;
		e[i].lit = w;
		e[i].len = n - (size_t)head - (size_t)tail;
		for (size_t k = 0; k < e[i].len; k++)
			*w++ = lower(v[(size_t)head + k]);
		*w++ = '\0';
	}
	return e;
}

/* low: name lower-cased (len bytes), or NULL when it is longer than ENV_NAME_FAST. */
static bool env_matches(const struct env_pat *e, size_t n, const char *name, const char *low,
			size_t len)
{
	for (size_t i = 0; i < n; i++) {
		const struct env_pat *p = &e[i];
		size_t m = p->len;
		bool hit;
		if (p->shape == ES_FN) {
			hit = fnmatch(p->v, name, FNM_CASEFOLD) == 0;
		} else if (!low || p->shape == ES_STAR) {
			hit = star_match(p->v, name);
		} else if (p->shape == ES_EXACT) {
			hit = len == m && memcmp(low, p->lit, m) == 0;
		} else if (p->shape == ES_PREFIX) {
			hit = len >= m && memcmp(low, p->lit, m) == 0;
		} else if (p->shape == ES_SUFFIX) {
			hit = len >= m && memcmp(low + len - m, p->lit, m) == 0;
		} else { /* names and needles are short: musl's two-way memmem costs more here */
			hit = !m;
			for (size_t k = 0; !hit && k + m <= len; k++)
				hit = low[k] == p->lit[0] && memcmp(low + k, p->lit, m) == 0;
		}
		if (hit)
			return true;
	}
	return false;
}

static bool scheme_char(char c)
{
	c = lower(c);
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '.' || c == '-';
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* s holds a URL with credentials in it: scheme://user:password@host (any scheme), or
 * http(s)://token@host (a token as the user name: git's and GitHub's way). Only the
 * authority counts (up to the first '/', '?' or '#'): https://host/a:b@c holds none. */
static bool url_credentials(const char *s)
{
	for (const char *p = strstr(s, "://"); p; p = strstr(p + 3, "://")) {
		const char *a = p + 3, *at = NULL, *colon = NULL;
		const char *scheme = p;

		while (scheme > s && scheme_char(scheme[-1]))
			scheme--;
		for (const char *c = a; *c && !strchr("/?# \t\n", *c); c++) {
			if (*c == '@')
				at = c;
			else if (*c == ':' && !at && !colon)
				colon = c;
		}
		if (!at || scheme == p)
			continue;
		if (colon && colon < at)
			return true;
		size_t sl = (size_t)(p - scheme);
		if (at > a && ((sl == 4 && !strncasecmp(scheme, "http", 4)) ||
			       (sl == 5 && !strncasecmp(scheme, "https", 5))))
			return true;
	}
	return false;
}

/* An HTTP Authorization header in a value (git's http.extraheader through
 * GIT_CONFIG_PARAMETERS, a curl or CI header variable). */
static bool auth_header(const char *s)
{
	for (const char *p = s; (p = strchr(p, ':')); p++) {
		const char *q = p;
		while (q > s && (q[-1] == ' ' || q[-1] == '\t'))
			q--; /* "Authorization : …" */
		if (q - s >= 13 && !strncasecmp(q - 13, "authorization", 13))
			return true;
	}
	return false;
}

/* user:password@host without a scheme (Go's MySQL DSN user:pass@tcp(host)/db, a proxy's or a
 * remote's credentials pasted bare): a user name at the value's start or after a space, a
 * quote, '=', ',', ';' or '(', a ':', a password with no '/', ':' or space in it, an '@' and a
 * host. A path's '@' (python@3.11 in $PATH) has a '/' before it, not a ':'. */
static bool bare_userinfo(const char *s)
{
	for (const char *at = strchr(s, '@'); at; at = strchr(at + 1, '@')) {
		const char *p = at, *u;

		while (p > s && !strchr("/:@ \t\n\"'=,;", p[-1]))
			p--;
		if (p == at || p == s || p[-1] != ':')
			continue;
		for (u = p - 1;
		     u > s && (isalnum((unsigned char)u[-1]) || strchr("._%+~-", u[-1]));)
			u--;
		if (u == p - 1 || (u > s && !strchr(" \t\n\"'=,;(", u[-1])))
			continue;
		if (isalnum((unsigned char)at[1]) || at[1] == '[')
			return true;
	}
	return false;
}

/* An HTTP authorization's credentials however the variable is named: "Basic " and the base64
 * of user:password, "Bearer " or "token " and 16 or more token characters. */
static bool auth_scheme(const char *s)
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	static const char tok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				  "0123456789-._~+/=";

	for (const char *p = s; *p; p++) {
		if (p > s && isalnum((unsigned char)p[-1]))
			continue;
		if (!strncasecmp(p, "basic ", 6)) {
			unsigned bits = 0, nb = 0;
			bool colon = false;
			const char *t = p + 6, *c;

			for (; *t && (c = strchr(b64, *t)); t++) {
				bits = ((bits << 6) | (unsigned)(c - b64)) & 0xffffu;
				if ((nb += 6) >= 8) {
					nb -= 8;
					colon |= ((bits >> nb) & 0xffu) == ':';
				}
			}
			if (colon)
				return true;
		} else if (!strncasecmp(p, "bearer ", 7) || !strncasecmp(p, "token ", 6)) {
			if (strspn(p + (lower(*p) == 'b' ? 7 : 6), tok) >= 16)
				return true;
		}
	}
	return false;
}

/* A Telegram bot's token bare (123456789:AA…, 33 characters after AA): the bot's whole
 * credential, at a word's start. */
static bool telegram_token(const char *s)
{
	for (const char *c = strchr(s, ':'); c; c = strchr(c + 1, ':')) {
		const char *d = c;
		size_t n = 0;

		while (d > s && isdigit((unsigned char)d[-1]))
			d--;
		if (c - d < 8 || c - d > 10 ||
		    (d > s && (isalnum((unsigned char)d[-1]) || d[-1] == '_' || d[-1] == '-')))
			continue;
		if (c[1] != 'A' || c[2] != 'A')
			continue;
		while (isalnum((unsigned char)c[3 + n]) || c[3 + n] == '_' || c[3 + n] == '-')
			n++;
		if (n >= 33)
			return true;
	}
	return false;
}

/* A URL whose query carries the credential: ?access_token=, ?private_token=, ?api_key=, a
 * password, a presigned S3 or GCS URL's signature, an Azure SAS's sig= (whoever has the URL
 * reads or writes as its owner until it expires); 8 or more characters in the value. */
static bool query_credential(const char *s)
{
	static const char *const names[] = {"access_token",
					    "token",
					    "auth_token",
					    "private_token",
					    "api_key",
					    "apikey",
					    "api-key",
					    "client_secret",
					    "secret",
					    "password",
					    "passwd",
					    "sig",
					    "signature",
					    "x-amz-signature",
					    "x-amz-security-token",
					    "x-goog-signature",
					    "auth"};

	for (const char *u = strstr(s, "://"); u; u = strstr(u + 3, "://")) {
		const char *q = u + 3;

		while (*q && !strchr("? \t\n\"'<>#", *q))
			q++;
		if (*q != '?')
			continue;
		for (const char *p = q + 1; *p && !strchr(" \t\n\"'<>#", *p);) {
			size_t nl = strcspn(p, "=&; \t\n\"'<>#");
			size_t vl = p[nl] == '=' ? strcspn(p + nl + 1, "&; \t\n\"'<>#") : 0;

			for (size_t i = 0; vl >= 8 && i < sizeof(names) / sizeof(*names); i++)
				if (strlen(names[i]) == nl && !strncasecmp(p, names[i], nl))
					return true;
			p += nl + (p[nl] == '=' ? 1 + vl : 0);
			if (*p == '&' || *p == ';')
				p++;
			else if (p[0] != '\0' && !strchr(" \t\n\"'<>#", *p))
				break;
		}
	}
	return false;
}

/* The characters a token's body may hold after its prefix. */
enum tok_chars {
	TC_ALNUM, /* letters and digits */
	TC_TOK,	  /* and - _ */
	TC_DOT,	  /* and - _ . */
	TC_B64,	  /* base64: letters, digits, + / = */
};

static bool tok_char(int c, unsigned cs)
{
	if (isalnum(c))
		return true;
	switch (cs) {
	case TC_TOK:
		return c == '-' || c == '_';
	case TC_DOT:
		return c == '-' || c == '_' || c == '.';
	case TC_B64:
		return c == '+' || c == '/' || c == '=';
	default:
		return false;
	}
}

/* A token of a kind whose prefix names it (GitHub's, GitLab's, Slack's, Anthropic's, OpenAI's
 * and the other model APIs', npm's, Hugging Face's, PyPI's, RubyGems', AWS's, Google's,
 * Stripe's, Vault's, DigitalOcean's, Doppler's, SendGrid's, Shopify's, Atlassian's, Postman's,
 * Databricks', Grafana's, Pulumi's, Linear's, PlanetScale's, Heroku's, Sentry's keys, an age
 * secret key, an Azure connection string's key), at a word's start, with `min` or more of
 * its characters after the prefix. */
static bool known_token(const char *s)
{
	static const struct {
		const char *prefix;
		uint8_t cs, min; /* enum tok_chars; how many after the prefix */
	} k[] = {{"ghp_", TC_ALNUM, 16},      {"gho_", TC_ALNUM, 16},
		 {"ghu_", TC_ALNUM, 16},      {"ghs_", TC_ALNUM, 16},
		 {"ghr_", TC_ALNUM, 16},      {"github_pat_", TC_TOK, 16},
		 {"glpat-", TC_TOK, 16},      {"gldt-", TC_TOK, 16},
		 {"glrt-", TC_TOK, 16},	      {"glptt-", TC_TOK, 16},
		 {"glft-", TC_TOK, 16},	      {"glsoat-", TC_TOK, 16},
		 {"glimt-", TC_TOK, 16},      {"glagent-", TC_TOK, 16},
		 {"gloas-", TC_TOK, 16},      {"glcbt-", TC_TOK, 16},
		 {"xoxb-", TC_TOK, 16},	      {"xoxp-", TC_TOK, 16},
		 {"xoxa-", TC_TOK, 16},	      {"xoxr-", TC_TOK, 16},
		 {"xoxe.", TC_TOK, 16},	      {"xoxe-", TC_TOK, 16},
		 {"xapp-", TC_TOK, 16},	      {"sk-ant-", TC_TOK, 16},
		 {"sk-proj-", TC_TOK, 16},    {"sk-svcacct-", TC_TOK, 16},
		 {"sk-admin-", TC_TOK, 16},   {"sk-", TC_ALNUM, 32},
		 {"sk-or-v1-", TC_ALNUM, 32}, {"sk-lf-", TC_TOK, 32},
		 {"xai-", TC_TOK, 24},	      {"gsk_", TC_ALNUM, 24},
		 {"pplx-", TC_TOK, 24},	      {"r8_", TC_ALNUM, 24},
		 {"tvly-", TC_TOK, 24},	      {"npm_", TC_ALNUM, 16},
		 {"hf_", TC_ALNUM, 16},	      {"pypi-", TC_TOK, 16},
		 {"rubygems_", TC_ALNUM, 16}, {"AKIA", TC_ALNUM, 16},
		 {"ASIA", TC_ALNUM, 16},      {"AIza", TC_TOK, 16},
		 {"ya29.", TC_DOT, 16},	      {"GOCSPX-", TC_TOK, 16},
		 {"sk_live_", TC_ALNUM, 16},  {"rk_live_", TC_ALNUM, 16},
		 {"sk_test_", TC_ALNUM, 16},  {"rk_test_", TC_ALNUM, 16},
		 {"whsec_", TC_ALNUM, 16},    {"hvs.", TC_TOK, 16},
		 {"hvb.", TC_TOK, 16},	      {"hvr.", TC_TOK, 16},
		 {"dop_v1_", TC_ALNUM, 16},   {"doo_v1_", TC_ALNUM, 16},
		 {"dor_v1_", TC_ALNUM, 16},   {"dp.st.", TC_DOT, 16},
		 {"dp.pt.", TC_DOT, 16},      {"dp.sa.", TC_DOT, 16},
		 {"dp.ct.", TC_DOT, 16},      {"SG.", TC_TOK, 20},
		 {"shpat_", TC_ALNUM, 16},    {"shpss_", TC_ALNUM, 16},
		 {"shpca_", TC_ALNUM, 16},    {"shppa_", TC_ALNUM, 16},
		 {"ATATT", TC_TOK, 24},	      {"PMAK-", TC_TOK, 24},
		 {"dapi", TC_ALNUM, 32},      {"glsa_", TC_TOK, 24},
		 {"glc_", TC_TOK, 24},	      {"pul-", TC_ALNUM, 32},
		 {"lin_api_", TC_ALNUM, 16},  {"pscale_tkn_", TC_TOK, 16},
		 {"pscale_pw_", TC_TOK, 16},  {"pscale_oauth_", TC_TOK, 16},
		 {"HRKU-", TC_TOK, 16},	      {"sntrys_", TC_TOK, 24},
		 {"sntryu_", TC_ALNUM, 24},   {"AGE-SECRET-KEY-1", TC_ALNUM, 32},
		 {"AccountKey=", TC_B64, 20}, {"SharedAccessKey=", TC_B64, 20},
		 {"dckr_pat_", TC_TOK, 24},   {"dckr_oat_", TC_TOK, 24},
		 {"figd_", TC_TOK, 32},	      {"pat-na1-", TC_TOK, 32},
		 {"pat-eu1-", TC_TOK, 32},    {"sq0atp-", TC_TOK, 22},
		 {"sq0csp-", TC_TOK, 22},     {"tskey-", TC_TOK, 32},
		 {"nfp_", TC_ALNUM, 32},      {"sbp_", TC_ALNUM, 32},
		 {"rnd_", TC_ALNUM, 24},      {"ntn_", TC_ALNUM, 40},
		 {"secret_", TC_ALNUM, 40},   {"lsv2_pt_", TC_TOK, 32},
		 {"lsv2_sk_", TC_TOK, 32},    {"nvapi-", TC_TOK, 40},
		 {"NRAK-", TC_ALNUM, 27},     {"dt0c01.", TC_DOT, 40},
		 {"CFPAT-", TC_TOK, 40},      {"phx_", TC_ALNUM, 40},
		 {"pnu_", TC_ALNUM, 32},      {"ops_", TC_TOK, 40},
		 {"pcsk_", TC_TOK, 40},	      {"ATBB", TC_ALNUM, 28},
		 {"xkeysib-", TC_TOK, 40},    {"key-", TC_ALNUM, 32},
		 {"atlasv1.", TC_TOK, 40},    {"fm2_", TC_B64, 32},
		 {"fo1_", TC_TOK, 32},	      {"EAA", TC_ALNUM, 90}};

	for (const char *p = s; *p; p++) {
		if (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-'))
			continue;
		for (size_t i = 0; i < sizeof(k) / sizeof(*k); i++) {
			size_t l, n = 0;

			if (*p != k[i].prefix[0]) /* most words: one compare per prefix */
				continue;
			l = strlen(k[i].prefix);
			if (strncmp(p, k[i].prefix, l) != 0)
				continue;
			while (tok_char((unsigned char)p[l + n], k[i].cs))
				n++;
			/* SendGrid's: SG.<22>.<43>; a host name SG.my-long-name.internal is none */
			if (strcmp(k[i].prefix, "SG.") == 0) {
				size_t m = 0;

				if (p[l + n] != '.')
					continue;
				while (tok_char((unsigned char)p[l + n + 1 + m], TC_TOK))
					m++;
				if (m < 20)
					continue;
			}
			if (n >= k[i].min)
				return true;
		}
	}
	return false;
}

/* A URL that is itself the credential (its path or query is the secret: whoever has it
 * posts as its owner): Slack's, Discord's, Microsoft Teams' and Google Chat's incoming
 * webhooks, a Telegram bot's API and file URLs; 16 or more URL characters after the marker. The
 * host in any case, with a trailing dot or a port (HTTPS://HOOKS.SLACK.COM.:443/services/… posts as
 * well), and Discord's versioned API (/api/v10/webhooks/). */
static bool capability_url(const char *s)
{
	static const struct {
		const char *host, *path;
	} mark[] = {{"hooks.slack.com", "/services/"},	   {"hooks.slack.com", "/workflows/"},
		    {"hooks.slack.com", "/triggers/"},	   {"discord.com", "/api/webhooks/"},
		    {"discordapp.com", "/api/webhooks/"},  {".webhook.office.com", "/webhook"},
		    {"outlook.office.com", "/webhook/"},   {"chat.googleapis.com", "/v1/spaces/"},
		    {"api.telegram.org", "/bot"},	   {"api.telegram.org", "/file/bot"},
		    {"hooks.zapier.com", "/hooks/catch/"}, {"maker.ifttt.com", "/trigger/"}};
	static const char url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				  "0123456789-._~/?&=%:+@";
	bool tld = false;

	/* Every host above holds ".com" or ".org", in any case: a value without one (most of
	 * them: PATH, HOME, LANG) holds none of the hosts, and is not searched ten times over
	 * by strcasestr (~1,800 instructions a value). */
	for (const char *d = strchr(s, '.'); d && !tld; d = strchr(d + 1, '.'))
		tld = (lower(d[1]) == 'c' && lower(d[2]) == 'o' && lower(d[3]) == 'm') ||
		      (lower(d[1]) == 'o' && lower(d[2]) == 'r' && lower(d[3]) == 'g');
	for (size_t i = 0; tld && i < sizeof(mark) / sizeof(*mark); i++)
		for (const char *p = s; (p = strcasestr(p, mark[i].host)); p++) {
			const char *q = p + strlen(mark[i].host), *path = mark[i].path;

			q += *q == '.';
			if (*q == ':')
				for (q++; isdigit((unsigned char)*q);)
					q++;
			if (strncmp(path, "/api/", 5) == 0 && strncmp(q, "/api/v", 6) == 0 &&
			    isdigit((unsigned char)q[6])) {
				for (q += 6; isdigit((unsigned char)*q);)
					q++;
				path += 4; /* "/webhooks/" after the version */
			}
			if (strncmp(q, path, strlen(path)) == 0 &&
			    strspn(q + strlen(path), url) >= 16)
				return true;
		}
	return false;
}

/* A PEM private key (-----BEGIN RSA PRIVATE KEY-----, OPENSSH, EC, ENCRYPTED, a PGP private
 * key block): a deploy key passed in a variable. A certificate or a public key is none. */
static bool pem_private_key(const char *s)
{
	for (const char *p = s; (p = strstr(p, "-----BEGIN ")); p++) {
		const char *end = strstr(p + 11, "-----");
		const char *key = strstr(p + 11, "PRIVATE KEY");
		if (end && key && key < end)
			return true;
	}
	return false;
}

/* A signed JSON Web Token at a word's start: eyJ… (a base64url JSON header), a payload and a
 * signature of base64url characters, dot-separated. */
static bool jwt(const char *s)
{
	for (const char *p = s; (p = strstr(p, "eyJ")); p++) {
		size_t part[3] = {0}, i = 0;
		const char *q = p;

		if (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-'))
			continue;
		for (; i < 3; i++, q++) {
			while (tok_char((unsigned char)*q, TC_TOK)) {
				part[i]++;
				q++;
			}
			if (i < 2 && *q != '.')
				break;
		}
		if (i == 3 && part[0] >= 10 && part[1] >= 8 && part[2] >= 16)
			return true;
	}
	return false;
}

/* s as a program may decode it: %XX and JSON's \/ undone (https%3A%2F%2Fu%3Ap%40h,
 * "https:\/\/u:p@h"); NULL when nothing changes or no memory. */
static char *decoded(const char *s)
{
	char *d = strchr(s, '%') || strstr(s, "\\/") ? malloc(strlen(s) + 1) : NULL, *o = d;

	for (const char *p = s; d && *p; p++) {
		int hi, lo;
		if (p[0] == '%' && (hi = hexval(p[1])) >= 0 && (lo = hexval(p[2])) >= 0) {
			*o++ = (char)(hi << 4 | lo);
			p += 2;
		} else if (p[0] == '\\' && p[1] == '/') {
			*o++ = '/';
			p++;
		} else {
			*o++ = *p;
		}
	}
	if (o)
		*o = '\0';
	return d;
}

/* A value with credentials in it, as written or decoded. */
static bool value_credentials(const char *s)
{
	char *d = decoded(s);
	bool r = false;

	for (int k = 0; !r && k < 2; k++) {
		const char *v = k ? d : s;
		r = v && (url_credentials(v) || auth_header(v) || bare_userinfo(v) ||
			  auth_scheme(v) || known_token(v) || pem_private_key(v) || jwt(v) ||
			  capability_url(v) || query_credential(v) || telegram_token(v));
	}
	free(d);
	return r;
}

static int plan_env(struct sandbox_spec *s, const struct sandbox_req *p,
		    const struct sandbox_ctx *c, struct strv *errors)
{
	struct env_pat *unset = env_pats(&p->env_unset), *keep = env_pats(&p->env_keep);
	int r = unset && keep ? 0 : -ENOMEM;

	/* env_unset, except what env_keep names; each name once, in the environment's order. A
	 * value with credentials (a URL's password, an Authorization header) goes whatever its
	 * name, unless env_unset is empty. */
	for (char *const *e = c->environ; r == 0 && e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name = eq ? strndup(*e, (size_t)(eq - *e)) : NULL;
		size_t len = eq ? (size_t)(eq - *e) : 0;
		char low[ENV_NAME_FAST];
		for (size_t k = 0; k < len && len <= sizeof(low); k++)
			low[k] = lower(name[k]);
		const char *lw = len <= sizeof(low) ? low : NULL;
		if (eq && !name)
			r = -ENOMEM;
		else if (name &&
			 (env_matches(unset, p->env_unset.n, name, lw, len) ||
			  (p->env_unset.n && value_credentials(eq + 1))) &&
			 !env_matches(keep, p->env_keep.n, name, lw, len) &&
			 strv_find(&s->env_unset, name) < 0)
			r = strv_push(&s->env_unset, name);
		free(name);
	}
	free(unset);
	free(keep);
	for (size_t i = 0; r == 0 && i < p->env_set.n; i++) {
		const struct pol_value *v = &p->env_set.v[i];
		char *x = NULL;
		const char *eq = strchr(v->value, '=');
		if (!eq || eq == v->value)
			r = strv_pushf(errors, "%s:%u: env_set %s: want NAME=value", v->file,
				       v->line, v->value) < 0
				? -ENOMEM
				: -EINVAL;
		else if ((r = env_expand(v->value, c->environ, &s->env_unset, &x)) == -EINVAL)
			r = strv_pushf(errors, "%s:%u: env_set %s: %s", v->file, v->line, v->value,
				       ENV_EXPAND_HINT) < 0
				? -ENOMEM
				: -EINVAL;
		else if (r == 0)
			r = strv_push_owned(&s->env_set, x);
		x = NULL;
	}
	return r;
}

/* The last NAME=value of v for name, or NULL. */
static const char *env_in(char *const *v, size_t n, const char *name)
{
	const char *found = NULL;
	size_t len = strlen(name);
	for (size_t i = 0; v && (n ? i < n : v[i] != NULL); i++)
		if (!strncmp(v[i], name, len) && v[i][len] == '=')
			found = v[i] + len + 1;
	return found;
}

/* A path under the private /tmp, with no . or .. component and no //, and under no host
 * directory bound there (a link made in one would be made on the host). */
static bool in_private_tmp(const struct sandbox_spec *s, const char *p)
{
	if (!s->tmp_private || !p || strncmp(p, "/tmp/", 5) || !p[5] || strstr(p, "//") ||
	    strstr(p, "/./") || strstr(p, "/../") || !strcmp(p + strlen(p) - 2, "/.") ||
	    !strcmp(p + strlen(p) - 3, "/.."))
		return false;
	for (size_t i = 0; i < s->mounts.n; i++)
		if ((s->mounts.v[i].op == SBX_M_BIND || s->mounts.v[i].op == SBX_M_RO_BIND) &&
		    canon_under(s->mounts.v[i].dst, "/tmp") && canon_under(p, s->mounts.v[i].dst))
			return false;
	return true;
}

/* A tool's home moved into the private /tmp by env_set (sbxsh.ini(5) "Package caches"): the
 * user's own settings in it are still read there, through symlinks to the host's paths as the
 * sandbox sees them (hidden, sanitised or read-only as the policy says). */
static const struct tool_home {
	const char *var, *dflt; /* the variable; its default under the home */
	const char *const files[5];
} tool_homes[] = {
    {"CARGO_HOME", ".cargo", {"config.toml", "config", NULL}},
    {"GRADLE_USER_HOME",
     ".gradle",
     {"gradle.properties", "init.gradle", "init.gradle.kts", "init.d", NULL}},
};

static int tool_links(struct sandbox_spec *s, const struct sandbox_ctx *c,
		      const struct tool_home *t)
{
	const char *dst = env_in(s->env_set.v, s->env_set.n, t->var);
	const char *host = env_in(c->environ, 0, t->var);
	char src[4096], at[4096];
	struct stat st;
	int r = 0;

	if (!in_private_tmp(s, dst) || (!(host && host[0] == '/') && !c->home))
		return 0;
	for (const char *const *f = t->files; r == 0 && *f; f++) {
		int n = host && host[0] == '/'
			    ? snprintf(src, sizeof(src), "%s/%s", host, *f)
			    : snprintf(src, sizeof(src), "%s/%s/%s", c->home, t->dflt, *f);
		if (n < 0 || (size_t)n >= sizeof(src) || lstat(src, &st) < 0 ||
		    snprintf(at, sizeof(at), "%s/%s", dst, *f) >= (int)sizeof(at))
			continue;
		r = sbx_mounts_add(&s->mounts, SBX_M_SYMLINK, src, at);
	}
	return r;
}

static int tool_home_links(struct sandbox_spec *s, const struct sandbox_ctx *c)
{
	int r = 0;
	for (size_t i = 0; r == 0 && i < sizeof(tool_homes) / sizeof(*tool_homes); i++)
		r = tool_links(s, c, &tool_homes[i]);
	return r;
}

static bool holds_git(const struct plan *pl, const struct sandbox_req *p)
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

/* A size as the policy spells it (bytes, or a percentage of the physical memory). */
static unsigned long long size_bytes(const struct pol_size *z)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	unsigned long long mem =
	    pages > 0 && page > 0 ? (unsigned long long)pages * (unsigned long long)page : 0;

	if (!z->pct)
		return z->bytes;
	/* Unknown memory: the smallest size a percentage stands for here, 1 MiB a percent. */
	return mem ? mem / PCT_MAX * z->pct : (unsigned long long)z->pct << 20;
}

static int fill_spec(struct sandbox_spec *s, const struct sandbox_req *p,
		     const struct sandbox_ctx *c)
{
	s->stage_fd = -1;
	s->cwd = strdup(p->cwd);
	s->stage = strdup(c->stage);
	struct stat st;
	if (c->marker && stat(c->marker, &st) == 0 && S_ISREG(st.st_mode) &&
	    !(s->marker = strdup(c->marker)))
		return -ENOMEM;
	s->inner_shell = strdup(c->inner_shell);
	const char *name = p->name ? p->name : "[default]";
	const char *close = strchr(name, ']');
	s->profile_name = strndup(name, close ? (size_t)(close - name) + 1 : strlen(name));
	s->tmp_private = p->tmp_private;
	s->tmp_size = size_bytes(&p->tmp_size);
	s->shm_size = size_bytes(&p->shm_size);
	s->unshare_user = true;
	s->root = c->root;
	s->unshare_net = !p->net_open;
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
	dirs_release(pl);
	path_names_release(&pl->names);
}

int sandbox_plan(const struct sandbox_req *p, const struct sandbox_ctx *c, struct sandbox_spec *out,
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
		r = add_writes(&pl, p, c);
	if (r == 0)
		r = add_git_links(&pl);
	if (r == 0)
		r = add_denies(&pl, p, c, &p->deny_read, K_HIDE);
	if (r == 0)
		r = add_denies(&pl, p, c, &p->deny_write, K_RO);
	if (r == 0)
		r = add_mandatory(&pl, p, c);
	if (r == 0)
		r = add_session_dirs(&pl);
	if (r == 0)
		r = add_log(&pl, c->log);
	if (r == 0)
		r = add_log(&pl, c->shell_state);
	/* The private /tmp hides the host's: grants beneath it are mounted on top. */
	if (r == 0)
		r = add(&pl, "/tmp", p->tmp_private ? K_HIDE : K_WRITE);
	if (r == 0)
		r = (st = calloc(pl.n + 1, sizeof(*st))) && (done = calloc(pl.n + 1, sizeof(*done)))
			? 0
			: -ENOMEM;
	if (r == 0)
		r = add_symlinks(out, p);
	int nd = r == 0 ? emit(&pl, out, done, st) : r;
	r = nd < 0 ? nd : 0;
	if (r == 0)
		r = sanitise_settings(out, c->home);
	if (r == 0)
		r = check_cwd(&pl, p, done, st, (size_t)nd);
	if (r == 0)
		r = add_kernel(out, done, st, (size_t)nd, c->root);
	if (r == 0)
		out->stage_shown = stage_shown(out->stage, done, st, (size_t)nd);
	/* the stage binds the marker where it finds it; bwrap makes it where it is not */
	if (r == 0)
		out->marker_shown = stage_shown(out->marker, done, st, (size_t)nd);
	/* Root's masks are the stage's (bwrap.c, stage_mounts.h): as root, uid 0 is bwrap's own
	 * in the sandbox's user namespace, so what bwrap leaves the stage holds over the
	 * sandbox's mounts. A user's uid is mapped in a second namespace (bwrap's devpts), whose
	 * capabilities do not reach them: bwrap makes a user's. */
	if (r == 0)
		out->stage_mounts = c->root && stage_mounts_supported();
	if (r == 0)
		r = plan_env(out, p, c, errors);
	if (r == 0)
		r = tool_home_links(out, c);
	if (r == 0)
		out->git_discovery = holds_git(&pl, p);
	free(st);
	free(done);
	plan_release(&pl);
	if (r < 0)
		sandbox_spec_release(out);
	return r;
}
