/* monitor — judges the events of one command's monitored calls (platform/monitor_src.h: the
 * source that sees and answers them) and keeps its violations.
 *
 * Rules this file keeps:
 * - Each (kind, flags, sandbox path) is judged once per command (the cache below); no
 *   allocation per event once the cache has grown.
 * - A violation is kept once per (kind, host path), at most MON_VIOL_MAX; more are counted.
 * - The guard's mandatory rules come from here (the profile's grants, the git directories,
 *   the fixed paths: struct mand_ctx); the source only applies them.
 */
#include "shell/monitor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/monitor_src.h"
#include "platform/path.h"
#include "platform/sandbox.h"
#include "shell/policy.h"
#include "shell/gitcfg.h"

#define MON_VC_SLOTS	 256  /* judged (kind, flags, path) kept per command: a cache that */
#define MON_VC_SLOTS_MAX 4096 /* grows from these sizes (a short command touches few pages) */
#define MON_VC_ARENA	 (16 * 1024)
#define MON_VC_ARENA_MAX (256 * 1024)
#define MON_VIOL_MAX	 256 /* violations kept per command; more are counted */

/* What was judged already, by exact (kind, flags, sandbox path): each is judged once per
 * command, whatever the answer (a violation is recorded the first time; a path found missing
 * on the host stays "missing"). Open addressing over an arena of the path bytes, both grown
 * from small (a short command touches a page or two); at their largest, when either fills it
 * starts over empty — a cache, so that costs time only. */
struct vc_slot {
	uint64_t h;
	uint32_t off, len;
	uint16_t flags;
	uint8_t kind, used;
};

struct vcache {
	struct vc_slot *slot;
	size_t nslots, n;
	char *arena;
	size_t used, cap;
};

struct monitor {
	struct mon_src *src; /* sees and answers the calls */
	struct judge_ctx jc;
	struct vcache vc; /* allocated at the first path judged */
	struct mon_viol *viol;
	size_t nviol;
	struct strv roots;
	bool saw_git;
	bool nscd; /* the host runs nscd: glibc's probe of it is a real refusal */
	void (*sink)(const struct mon_viol *v, void *arg);
	void *sink_arg;
	unsigned long dropped; /* mon_stats.dropped */
	/* the guard's rules (docs/monitor.md "The guard") */
	struct mand_ctx mc;
	const char **grants; /* every write grant: one left out would have no rule */
	const char *scratch[2];
	struct strv grant_store; /* the profile's write grants, as plain directories */
	struct strv creates;	 /* mand_ctx.creates: its create grants, plain */
	struct strv gitdirs;	 /* found at start: a .git file's gitdir:, its commondir */
	const char *gitdir_v[16];
	uint16_t *fixed_lcp, *holds_lcp; /* mand_ctx's (NULL: none) */
	struct strv fixed;     /* mand_ctx.fixed: $XDG_CONFIG_HOME/…, $XDG_STATE_HOME/sbxsh */
	struct strv hooks;     /* mand_ctx.hooks (what git's config names), then .bins ($PATH's) */
	struct strv hooknames; /* mand_ctx.hooknames (the global relative core.hooksPath) */
	struct strv links;     /* mand_ctx.links: what the programs and hooks link to */
	struct strv link_seen; /* find_links: the link targets already followed */
	struct strv sourced;   /* mand_ctx.sourced: what the shell start-up files source */
	char *pw_home;	       /* mand_ctx.pw_home */
	/* mand_ctx.holds: deny_write paths missing at start, then hidden or read-only paths in a
	 * write grant; for each, its entry (NULL: none found) and whether deny_read hides it */
	struct strv holds;
	const struct pol_value **hold_of;
	bool *hold_read;
	bool quiet; /* monitor = off: the guard works, nothing is reported */
};

/* The source's kinds and flags are the judge's. */
_Static_assert(MSRC_READ == (int)VK_READ && MSRC_WRITE == (int)VK_WRITE &&
		   MSRC_EXEC == (int)VK_EXEC && MSRC_UNIX == (int)VK_UNIX,
	       "event kinds are viol_kind");
_Static_assert(MSRC_MKDIR == JF_MKDIR && MSRC_TIMES == JF_TIMES && MSRC_REMOVE == JF_REMOVE,
	       "event flags are JF_*");
#define MON_JF (JF_MKDIR | JF_TIMES | JF_REMOVE)

static void on_event(const struct msrc_event *ev, void *arg);

/* The first line of dir/name ("gitdir: X", or a commondir's "X"), made absolute against
 * dir, into sv; nothing when it is not a small regular file. */
static void read_git_link(struct strv *sv, const char *dir, const char *name, const char *prefix)
{
	char p[PATH_MAX], b[PATH_MAX + 16];
	struct stat st;
	ssize_t k;
	int fd;

	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p) || lstat(p, &st) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_size > PATH_MAX)
		return;
	if ((fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return;
	k = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (k <= 0)
		return;
	b[k] = '\0';
	b[strcspn(b, "\n")] = '\0';
	size_t pl = strlen(prefix);
	if (strncmp(b, prefix, pl) != 0 || !b[pl])
		return;
	char *v = b + pl, *c = NULL;
	if (v[0] == '/')
		c = realpath(v, NULL);
	else if (snprintf(p, sizeof(p), "%s/%s", dir, v) < (int)sizeof(p))
		c = realpath(p, NULL);
	if (c && strv_find(sv, c) < 0)
		strv_push(sv, c);
	free(c);
}

/* The git directories the guard protects beyond the `.git` name: what the .git files of the
 * project, the cwd and the write grants point to, and their commondirs (docs/monitor.md). */
/* The directories whose repositories are read at start: the project's root, the cwd and the
 * write grants; *n of them (the caller frees the array, not the names), or NULL. */
static const char **repo_dirs(const struct monitor *m, const struct judge_ctx *jc, size_t *n)
{
	const char **dirs = calloc(m->mc.ngrants + 2, sizeof(*dirs));

	*n = 0;
	if (!dirs)
		return NULL;
	if (jc->prof && jc->prof->root)
		dirs[(*n)++] = jc->prof->root;
	if (jc->spec && jc->spec->cwd)
		dirs[(*n)++] = jc->spec->cwd;
	for (size_t i = 0; i < m->mc.ngrants; i++)
		dirs[(*n)++] = m->grants[i];
	/* once each: the project is usually the cwd and a write grant too, and each is a
	 * repository's stat and three config reads */
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		size_t j = 0;
		while (j < k && strcmp(dirs[j], dirs[i]) != 0)
			j++;
		if (j == k)
			dirs[k++] = dirs[i];
	}
	*n = k;
	return dirs;
}

static int find_gitdirs(struct monitor *m, const struct judge_ctx *jc)
{
	size_t n;
	const char **dirs = repo_dirs(m, jc, &n);

	if (!dirs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		read_git_link(&m->gitdirs, dirs[i], ".git", "gitdir: ");
	free(dirs);
	for (size_t i = 0, k = m->gitdirs.n; i < k; i++)
		read_git_link(&m->gitdirs, m->gitdirs.v[i], "commondir", "");
	for (size_t i = 0; i < m->gitdirs.n && i < 16; i++)
		m->gitdir_v[m->mc.ngitdirs++] = m->gitdirs.v[i];
	m->mc.gitdirs = m->gitdir_v;
	return 0;
}

static char *real_name(const char *p);
static int push_new(struct strv *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Pushes p (absolute, its spelling normalized in place) into sv, canonical and as spelled (a
 * symlink on the way is then a directory holding it), each only where a command could write:
 * in the home directory or a write grant (core.hooksPath = /dev/null turns hooks off). */
static int push_writable_real(struct monitor *m, const char *home, struct strv *sv, char *p,
			      char *c);

static int push_writable(struct monitor *m, const char *home, struct strv *sv, char *p)
{
	return push_writable_real(m, home, sv, p, real_name(p));
}

/* push_writable with p's real_name c already made (freed here). */
static int push_writable_real(struct monitor *m, const char *home, struct strv *sv, char *p,
			      char *c)
{
	const char *v[2] = {c, p};
	int r = 0;

	path_normalize(p);
	for (int k = 0; k < 2 && r == 0; k++) {
		bool in = v[k] && strcmp(v[k], "/") != 0 && home && path_under(v[k], home);

		for (size_t j = 0; v[k] && strcmp(v[k], "/") != 0 && !in && j < m->mc.ngrants; j++)
			in = path_under(v[k], m->grants[j]);
		if (in)
			r = push_new(sv, "%s", v[k]);
	}
	free(c);
	return r;
}

/* A directory of $PATH that is the project's own tooling, which its package managers write
 * (pip into an activated virtualenv, npm into node_modules/.bin): one in the project (direnv's
 * PATH_add), or a virtualenv's or conda environment's bin. real: the directory's real_name. */
static bool own_bin(const struct judge_ctx *jc, const char *real)
{
	/* canonical where it exists (node_modules/.bin is missing before the first install):
	 * real, the directory's real_name */
	char *c = real ? strdup(real) : NULL, p[PATH_MAX];
	bool own;

	if (c)
		path_normalize(c);
	own = c && jc->prof && jc->prof->root && path_under(c, jc->prof->root);

	for (int k = 0; !own && c && k < 2; k++)
		own = snprintf(p, sizeof(p), "%s/../%s", c, k ? "conda-meta" : "pyvenv.cfg") <
			  (int)sizeof(p) &&
		      access(p, F_OK) == 0;
	free(c);
	return own;
}

/* The profile's deny_read (hide) or deny_write entry naming path literally, or NULL (a glob's,
 * a variable's). */
static const struct pol_value *entry_for(const struct judge_ctx *jc, bool hide, const char *path)
{
	const struct pol_list *l = !jc->prof ? NULL
				   : hide    ? &jc->prof->deny_read
					     : &jc->prof->deny_write;

	for (size_t i = 0; l && i < l->n; i++) {
		const char *v = l->v[i].value;
		char *lit = v && v[0] == '/' && !path_has_glob(v) ? path_unescape(v) : NULL;
		char *c = lit ? real_name(lit) : NULL;
		bool same = c && (path_normalize(c), strcmp(c, path) == 0);

		free(lit);
		free(c);
		if (same)
			return &l->v[i];
	}
	return NULL;
}

/* Records the origin of the holds pushed since n0 (v, and whether deny_read hides them), after
 * push returned r. r, or -ENOMEM. */
static int hold_origin(struct monitor *m, int r, size_t n0, const struct pol_value *v, bool read)
{
	if (r != 0 || m->holds.n == n0)
		return r;
	const struct pol_value **o = realloc(m->hold_of, m->holds.n * sizeof(*o));
	bool *rd = o ? realloc(m->hold_read, m->holds.n * sizeof(*rd)) : NULL;

	if (o)
		m->hold_of = o;
	if (!rd)
		return -ENOMEM;
	m->hold_read = rd;
	for (; n0 < m->holds.n; n0++) {
		o[n0] = v;
		rd[n0] = read;
	}
	return 0;
}

/* mand_ctx.deny_glob: the profile's deny_write glob that holds path (judge_deny_glob). */
static const char *deny_glob(void *arg, const char *path, bool dir_to)
{
	const struct monitor *m = arg;
	const struct pol_value *v = judge_deny_glob(&m->jc, path, dir_to);

	return v ? v->value : NULL;
}

/* What the policy's deny_read and deny_write hold where a command could write, for the guard
 * (mand_ctx.holds): the deny_write paths that do not exist (the mounts bind the others
 * read-only; a glob's matches are only what exists at start: docs/sbxsh.ini.5.md), then what
 * the mounts hide or bind read-only inside a write grant (deny_read, deny_write, their globs
 * and variables as the plan expanded them), where no later grant lifts it: the guard's calls
 * are made outside those mounts. */
static int find_denies(struct monitor *m, const struct judge_ctx *jc)
{
	const struct pol_list *l = jc->prof ? &jc->prof->deny_write : NULL;
	int r = 0;

	for (size_t i = 0; l && r == 0 && i < l->n; i++) {
		const char *v = l->v[i].value;
		char *lit = v && v[0] == '/' && !path_has_glob(v) ? path_unescape(v) : NULL;
		struct stat st;
		size_t n0 = m->holds.n;

		if (lit && lstat(lit, &st) < 0 && errno == ENOENT)
			r = push_writable(m, jc->home, &m->holds, lit);
		free(lit);
		r = hold_origin(m, r, n0, &l->v[i], false);
	}
	const struct sandbox_spec *s = jc->spec;
	for (size_t i = 0; s && r == 0 && i < s->mounts.n; i++) {
		const struct sbx_mount *e = &s->mounts.v[i];
		bool hide = e->op == SBX_M_HIDE_FILE || e->op == SBX_M_HIDE_DIR, in = false;
		size_t n0 = m->holds.n;

		if (!hide && !(e->op == SBX_M_RO_BIND && e->src && strcmp(e->src, e->dst) == 0))
			continue;
		for (size_t j = 0; j < s->mounts.n; j++) {
			const struct sbx_mount *b = &s->mounts.v[j];
			if (b->op != SBX_M_BIND)
				continue;
			if (j < i && path_under(e->dst, b->dst) && strcmp(e->dst, b->dst) != 0)
				in = true;
			if (j > i && path_under(b->dst, e->dst)) {
				in = false;
				break;
			}
		}
		if (in)
			r = push_new(&m->holds, "%s", e->dst);
		if (r == 0 && m->holds.n > n0)
			r = hold_origin(m, r, n0, entry_for(jc, hide, e->dst), hide);
	}
	m->mc.holds = (const char *const *)m->holds.v;
	m->mc.nholds = m->holds.n;
	/* a glob holds the names it matches made later too: asked only when there is one */
	for (size_t i = 0; l && i < l->n; i++)
		if (l->v[i].value && l->v[i].value[0] == '/' && path_has_glob(l->v[i].value)) {
			m->mc.deny_glob = deny_glob;
			m->mc.deny_glob_arg = m;
			break;
		}
	return r;
}

static int hooks_links(struct monitor *m, const struct judge_ctx *jc, struct strv *sv,
		       const char *gitdir);

/* mand_ctx.nested_hooks: what the configs of a repository the guard met name (a nested one,
 * a submodule's checkout, whose relative core.hooksPath no config read at start names). */
static char *nested_hooks(void *arg, const char *wt)
{
	struct monitor *m = arg;
	struct strv found = {0}, keep = {0};
	const char *w[1] = {wt};
	char *list = NULL;
	size_t len = 0;

	char g[PATH_MAX];

	if (gitcfg_hooks_dirs(&found, w, 1, m->mc.home, NULL) == 0)
		for (size_t i = 0; i < found.n; i++)
			if (push_writable(m, m->mc.home, &keep, found.v[i]) != 0)
				break;
	strv_release(&found);
	/* what its hooks link to, or its hooks directory when that is a link (the deepest
	 * repositories are met here, not at start) */
	if (snprintf(g, sizeof(g), "%s/.git", wt) < (int)sizeof(g))
		(void)hooks_links(m, &m->jc, &keep, g);
	for (size_t i = 0; i < keep.n; i++)
		len += strlen(keep.v[i]) + 1;
	if (keep.n && (list = malloc(len + 1))) {
		char *o = list;

		for (size_t i = 0; i < keep.n; i++)
			o = stpcpy(o, keep.v[i]) + 1;
		*o = '\0';
	}
	strv_release(&keep);
	return list;
}

/* The hooks directories core.hooksPath names and the files git's configs include, for the
 * repositories of the project, the cwd and the write grants (mand_ctx.hooks); then the
 * absolute directories of $PATH (mand_ctx.bins). */
static int find_hooks(struct monitor *m, const struct judge_ctx *jc)
{
	size_t n, nhooks;
	const char **dirs = repo_dirs(m, jc, &n);
	struct strv found = {0};
	int r;

	if (!dirs)
		return -ENOMEM;
	r = gitcfg_hooks_dirs(&found, dirs, n, jc->home, &m->hooknames);
	free(dirs);
	for (size_t i = 0; r == 0 && i < found.n; i++)
		r = push_writable(m, jc->home, &m->hooks, found.v[i]);
	strv_release(&found);
	nhooks = m->hooks.n;
	/* each directory once (a PATH often names one twice), its real_name made once for both
	 * questions: ~8 readlinks and an access a directory less */
	struct strv seen = {0};
	/* and LD_LIBRARY_PATH's: a library there is loaded by the host's next program that
	 * links one of its name (~/.local/lib under write += ~/.local) */
	for (int v = 0; v < 2; v++)
		for (const char *s = getenv(v ? "LD_LIBRARY_PATH" : "PATH"); r == 0 && s && *s;
		     s += *s == ':') {
			size_t l = strcspn(s, ":");
			char *d =
			    s[0] == '/' ? strndup(s, l) : NULL; /* a relative one is every cwd's */

			if (s[0] == '/' && !d) {
				r = -ENOMEM;
			} else if (d && strv_find(&seen, d) < 0) {
				char *c = real_name(d);

				r = strv_push(&seen, d);
				if (r == 0 && !own_bin(jc, c))
					r = push_writable_real(m, jc->home, &m->hooks, d, c);
				else
					free(c);
			}
			free(d);
			s += l;
		}
	strv_release(&seen);
	m->mc.nested_hooks = nested_hooks;
	m->mc.nested_arg = m;
	m->mc.hooknames = (const char *const *)m->hooknames.v;
	m->mc.nhooknames = m->hooknames.n;
	m->mc.hooks = (const char *const *)m->hooks.v;
	m->mc.nhooks = nhooks;
	m->mc.bins = (const char *const *)m->hooks.v + nhooks;
	m->mc.nbins = m->hooks.n - nhooks;
	return r;
}

/* What link (an entry of dir that is a symbolic link) leads to, for mand_ctx.links: the file,
 * canonical where it exists (else its directory's canonical form and its name: a dangling
 * link's target is not made either), and, outside the project, the tool environment it
 * belongs to — a virtualenv (pipx's, uv's: its bin's parent holds pyvenv.cfg) or an npm
 * package (below node_modules), whose modules the program runs. 0 or -ENOMEM. */
static int push_link(struct monitor *m, const struct judge_ctx *jc, struct strv *sv,
		     const char *dir, const char *link)
{
	char t[PATH_MAX], a[PATH_MAX], *c, *e;
	ssize_t l = readlink(link, t, sizeof(t) - 1);
	int r;

	if (l <= 0)
		return 0;
	t[l] = '\0';
	if (snprintf(a, sizeof(a), "%s%s%s", t[0] == '/' ? "" : dir, t[0] == '/' ? "" : "/", t) >=
	    (int)sizeof(a))
		return 0;
	path_normalize(a);
	/* at start, a target met before (~/.cargo/bin's dozen links to rustup) pushed all it
	 * leads to then: its real_name, push_writable's and the virtualenv probe, each a realpath
	 * of every component, not done again */
	if (sv == &m->links) {
		if (strv_find(&m->link_seen, a) >= 0)
			return 0;
		if (strv_push(&m->link_seen, a) < 0)
			return -ENOMEM;
	}
	if (!(c = real_name(a)))
		return 0;
	path_normalize(c);
	r = push_writable(m, jc->home, sv, c);
	if (r == 0 && !(jc->prof && jc->prof->root && path_under(c, jc->prof->root))) {
		char *nm = strstr(c, "/node_modules/"), *b = strrchr(c, '/');

		if (nm) { /* the package: node_modules/NAME or node_modules/@SCOPE/NAME */
			e = nm + strlen("/node_modules/");
			e += strcspn(e, "/");
			if (nm[strlen("/node_modules/")] == '@' && *e == '/')
				e += 1 + strcspn(e + 1, "/");
			*e = '\0';
			r = push_writable(m, jc->home, sv, c);
		} else if (b && b > c) {
			*b = '\0'; /* the program's directory: a virtualenv's bin? */
			if ((e = strrchr(c, '/')) && strcmp(e, "/bin") == 0 &&
			    snprintf(a, sizeof(a), "%.*s/pyvenv.cfg", (int)(e - c), c) <
				(int)sizeof(a) &&
			    access(a, F_OK) == 0) {
				*e = '\0';
				r = push_writable(m, jc->home, sv, c);
			}
		}
	}
	free(c);
	return r;
}

/* The symbolic links directly in dir (the first 512 of them: every entry is read, only the
 * links count), each as push_link says, into sv. */
static int links_in(struct monitor *m, const struct judge_ctx *jc, struct strv *sv, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX];
	int r = 0, n = 0;

	if (!d)
		return 0;
	while (r == 0 && n < 512 && (e = readdir(d))) {
		struct stat st;

		if (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN)
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p))
			continue;
		if (e->d_type == DT_UNKNOWN && (lstat(p, &st) < 0 || !S_ISLNK(st.st_mode)))
			continue;
		n++;
		r = push_link(m, jc, sv, dir, p);
	}
	closedir(d);
	return r;
}

/* A repository's hooks directory (gitdir/hooks): the links in it, and where it leads when it
 * is a link itself (`ln -s ../.githooks .git/hooks`), into sv. */
static int hooks_links(struct monitor *m, const struct judge_ctx *jc, struct strv *sv,
		       const char *gitdir)
{
	char p[PATH_MAX];
	struct stat st;
	int r;

	if (snprintf(p, sizeof(p), "%s/hooks", gitdir) >= (int)sizeof(p))
		return 0;
	r = links_in(m, jc, sv, p);
	if (r == 0 && lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
		r = push_link(m, jc, sv, gitdir, p);
	return r;
}

/* What a protected program or hook links to (mand_ctx.links): the links in ~/.local/bin, in
 * the directories of $PATH in the home directory or a write grant (mand_ctx.bins), in the
 * hooks directories git's configs name and in the hooks of the git directories of the
 * project, the cwd and the write grants. The name is held by its own rule; the file it
 * leads to is what the host's next `tool` or `git commit` runs (pipx's and uv's tools, npm's
 * global packages, a project's hook script linked into .git/hooks). */
static int find_links(struct monitor *m, const struct judge_ctx *jc)
{
	size_t n;
	const char **dirs = repo_dirs(m, jc, &n);
	char p[PATH_MAX];
	int r = 0;

	if (!dirs)
		return -ENOMEM;
	if (jc->home && snprintf(p, sizeof(p), "%s/.local/bin", jc->home) < (int)sizeof(p))
		r = links_in(m, jc, &m->links, p);
	for (size_t i = 0; r == 0 && i < m->mc.nbins; i++)
		r = links_in(m, jc, &m->links, m->mc.bins[i]);
	for (size_t i = 0; r == 0 && i < m->mc.nhooks; i++)
		r = links_in(m, jc, &m->links, m->mc.hooks[i]);
	for (size_t i = 0; r == 0 && i < n; i++)
		if (snprintf(p, sizeof(p), "%s/.git", dirs[i]) < (int)sizeof(p))
			r = hooks_links(m, jc, &m->links, p);
	for (size_t i = 0; r == 0 && i < m->gitdirs.n; i++)
		r = hooks_links(m, jc, &m->links, m->gitdirs.v[i]);
	free(dirs);
	strv_release(&m->link_seen);
	m->mc.links = (const char *const *)m->links.v;
	m->mc.nlinks = m->links.n;
	return r;
}

/* The password database's home when it is not home (canonical, caller frees), else NULL. */
static char *monitor_pw_home(const char *home)
{
	struct passwd *pw = getpwuid(getuid());
	char *b = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? realpath(pw->pw_dir, NULL) : NULL;

	if (b && (strcmp(b, "/") == 0 || (home && strcmp(b, home) == 0))) {
		free(b);
		b = NULL;
	}
	return b;
}

/* A word of a start-up file's line with its quotes removed and $HOME, ${HOME}, a leading ~/
 * and the file's own simple assignments (vars: "NAME=value" strings) expanded, into out; false
 * when it holds anything else to expand ($(…), `…`, an unknown variable). */
static bool sourced_word(const char *w, size_t wl, const char *home, const struct strv *vars,
			 char *out, size_t n)
{
	size_t o = 0;
	char q = 0;

	if (wl >= 2 && w[0] == '~' && w[1] == '/' && home) {
		o = (size_t)snprintf(out, n, "%s", home);
		w++, wl--;
	}
	for (size_t i = 0; i < wl && o + 1 < n; i++) {
		char ch = w[i];

		if ((ch == '"' || ch == '\'') && (!q || q == ch)) {
			q = q ? 0 : ch;
			continue;
		}
		if (ch == '\\' && q != '\'' && i + 1 < wl) {
			out[o++] = w[++i];
			continue;
		}
		if (ch == '`')
			return false;
		if (ch != '$' || q == '\'')
			out[o++] = ch;
		else {
			const char *v = w + i + 1;
			size_t vl, skip;
			bool br = i + 1 < wl && *v == '{';

			v += br;
			for (vl = 0; i + 1 + br + vl < wl &&
				     (v[vl] == '_' || (v[vl] >= 'A' && v[vl] <= 'Z') ||
				      (v[vl] >= 'a' && v[vl] <= 'z') ||
				      (vl && v[vl] >= '0' && v[vl] <= '9'));
			     vl++)
				;
			if (!vl || (br && (i + 2 + vl >= wl || v[vl] != '}')))
				return false;
			skip = vl + (br ? 2 : 0);
			const char *val = NULL;

			if (vl == 4 && memcmp(v, "HOME", 4) == 0)
				val = home;
			for (size_t k = vars->n; !val && k-- > 0;)
				if (strncmp(vars->v[k], v, vl) == 0 && vars->v[k][vl] == '=')
					val = vars->v[k] + vl + 1;
			if (!val)
				return false;
			o += (size_t)snprintf(out + o, n - o, "%s", val);
			if (o >= n)
				return false;
			i += skip;
		}
	}
	if (q || o + 1 >= n)
		return false;
	out[o] = '\0';
	return out[0] == '/';
}

/* The files one start-up file sources: each word after a `.` or `source` word (a command's
 * name or not: a false find only holds one more file) that names an absolute path once
 * expanded (sourced_word), pushed into sv as push_writable says. One level: what a sourced
 * file sources in turn is not read. */
static int sourced_in(struct monitor *m, const struct judge_ctx *jc, const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	char *buf = NULL;
	struct strv vars = {0};
	int r = 0;
	ssize_t got;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20) ||
	    !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return 0;
	}
	got = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (got < 0) {
		free(buf);
		return 0;
	}
	buf[got] = '\0';
	for (char *line = buf, *next; r == 0 && line && *line; line = next) {
		const char *w[64];
		size_t wl[64], nw = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		/* words: split at blanks and at ; & | ( ) outside quotes */
		for (char *s = line; *s && nw < 64;) {
			while (*s == ' ' || *s == '\t' || *s == ';' || *s == '&' || *s == '|' ||
			       *s == '(' || *s == ')')
				s++;
			if (!*s || *s == '#')
				break;
			char *b = s, q = 0;

			for (; *s && (q || !strchr(" \t;&|()", *s)); s++) {
				if (*s == '\\' && s[1] && q != '\'')
					s++;
				else if ((*s == '"' || *s == '\'') && (!q || q == *s))
					q = q ? 0 : *s;
			}
			w[nw] = b;
			wl[nw++] = (size_t)(s - b);
		}
		for (size_t i = 0; r == 0 && i < nw; i++) {
			char p[PATH_MAX];
			const char *eq = memchr(w[i], '=', wl[i]);

			/* NAME=value, export NAME=value: kept for the words after it */
			if (eq && eq > w[i] &&
			    (i == 0 || (wl[i - 1] == 6 && !memcmp(w[i - 1], "export", 6))) &&
			    (size_t)(eq - w[i]) < wl[i] &&
			    sourced_word(eq + 1, wl[i] - (size_t)(eq + 1 - w[i]), jc->home, &vars,
					 p, sizeof(p))) {
				r = strv_pushf(&vars, "%.*s=%s", (int)(eq - w[i]), w[i], p);
				continue;
			}
			bool dot = (wl[i] == 1 && w[i][0] == '.') ||
				   (wl[i] == 2 && !memcmp(w[i], "\\.", 2)) ||
				   (wl[i] == 6 && !memcmp(w[i], "source", 6));

			struct stat ds;

			/* a file: a directory (`. "$X"` with X the home) is sourced by no shell,
			 * and holding it would hold all below it */
			if (dot && i + 1 < nw &&
			    sourced_word(w[i + 1], wl[i + 1], jc->home, &vars, p, sizeof(p)) &&
			    !(stat(p, &ds) == 0 && S_ISDIR(ds.st_mode)))
				r = push_writable(m, jc->home, &m->sourced, p);
		}
	}
	strv_release(&vars);
	free(buf);
	return r;
}

/* One word of an environment variable's value naming a file (absolute), pushed into sv as
 * push_writable says; a quoted word ("…", '…') as one. */
static int env_word(struct monitor *m, const struct judge_ctx *jc, struct strv *sv, const char *w,
		    size_t l)
{
	char p[PATH_MAX];

	if (l >= 2 && (w[0] == '"' || w[0] == '\'') && w[l - 1] == w[0])
		w++, l -= 2;
	if (l == 0 || w[0] != '/' || l >= sizeof(p))
		return 0;
	memcpy(p, w, l);
	p[l] = '\0';
	return push_writable(m, jc->home, sv, p);
}

/* The variables that move a tool's directory, and what in it runs code (find_env_named). */
static int env_dirs_named(struct monitor *m, const struct judge_ctx *jc)
{
	int r = 0;

	/* the variables that move a tool's directory, and what in it runs code: the home rule's
	 * ~/.cargo/config.toml, ~/.gradle/init.d … where the variable puts them (the first of
	 * JULIA_DEPOT_PATH's list) */
	static const struct {
		const char *var, *sub[4];
	} dirs[] = {
	    {"CARGO_HOME", {"config.toml", "config"}},
	    {"CURL_HOME", {".curlrc"}},
	    {"GRADLE_USER_HOME", {"init.d", "init.gradle", "init.gradle.kts", "gradle.properties"}},
	    {"JULIA_DEPOT_PATH", {"config"}},
	    {"BASH_COMPLETION_USER_DIR", {"completions"}},
	    {"IPYTHONDIR", {"profile_default/startup", "profile_default/ipython_config.py"}},
	};
	for (size_t i = 0; r == 0 && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		const char *v = getenv(dirs[i].var);
		char p[PATH_MAX];

		for (size_t k = 0; r == 0 && v && v[0] == '/' && k < 4 && dirs[i].sub[k]; k++)
			if (snprintf(p, sizeof(p), "%.*s/%s", (int)strcspn(v, ":"), v,
				     dirs[i].sub[k]) < (int)sizeof(p))
				r = push_writable(m, jc->home, &m->sourced, p);
	}
	return r;
}

/* Options that load a file (find_env_named). */
static int env_opts_named(struct monitor *m, const struct judge_ctx *jc)
{
	static const char *const opts[] = {"NODE_OPTIONS", "RUBYOPT", "JAVA_TOOL_OPTIONS",
					   "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS"};
	int r = 0;

	/* options that load a file: node's --require/-r/--import/--loader, ruby's -r, the JVM's
	 * -javaagent:FILE[=…] and -agentpath:FILE[=…] */
	for (size_t i = 0; r == 0 && i < sizeof(opts) / sizeof(opts[0]); i++) {
		const char *v = getenv(opts[i]);
		bool arg = false; /* the word before took this one as its file */

		for (; r == 0 && v && *v;) {
			size_t l;
			const char *w, *e;

			v += strspn(v, " \t");
			l = strcspn(v, " \t");
			w = v;
			v += l;
			if (l == 0)
				break;
			if (arg) {
				arg = false;
				r = env_word(m, jc, &m->sourced, w, l);
				continue;
			}
			static const char *const pre[] = {
			    "--require=",  "--import=",	  "--loader=", "--experimental-loader=",
			    "-javaagent:", "-agentpath:", "-r"};
			static const char *const take[] = {"--require", "-r", "--import",
							   "--loader", "--experimental-loader"};
			for (size_t k = 0; k < sizeof(take) / sizeof(take[0]); k++)
				if (strlen(take[k]) == l && memcmp(w, take[k], l) == 0)
					arg = true;
			for (size_t k = 0; !arg && k < sizeof(pre) / sizeof(pre[0]); k++) {
				size_t pl = strlen(pre[k]);

				if (l > pl && memcmp(w, pre[k], pl) == 0) {
					e = memchr(w + pl, '=', l - pl); /* an agent's options */
					r = env_word(
					    m, jc, &m->sourced, w + pl,
					    (size_t)((e && pl > 2 && w[pl - 1] == ':' ? e : w + l) -
						     (w + pl)));
					break;
				}
			}
		}
	}
	return r;
}

/* What the caller's environment names as code the host runs by itself (mand_ctx.sourced): a
 * file every bash, sh, python, readline, git, less, ripgrep, npm or pip start reads (BASH_ENV,
 * ENV, PYTHONSTARTUP, INPUTRC, GIT_CONFIG_GLOBAL …: the whole value), the program an editor,
 * pager, askpass or preprocessor variable starts (EDITOR, PAGER, SUDO_ASKPASS, LESSOPEN …:
 * the first word, after less's `|`), the libraries LD_PRELOAD loads into every program, and
 * the modules and agents NODE_OPTIONS, RUBYOPT and the JVM's option variables load. In the
 * home directory or a write grant (a dotfiles repository that is the project): the host's
 * next shell or tool of that environment runs what a command wrote there. */
static int find_env_named(struct monitor *m, const struct judge_ctx *jc)
{
	static const char *const files[] = {"BASH_ENV",
					    "ENV",
					    "PYTHONSTARTUP",
					    "INPUTRC",
					    "GIT_CONFIG_GLOBAL",
					    "GIT_CONFIG_SYSTEM",
					    "RIPGREP_CONFIG_PATH",
					    "LESSKEY",
					    "LESSKEYIN",
					    "LESSKEY_SYSTEM",
					    "LESSKEYIN_SYSTEM",
					    "MYVIMRC",
					    "SCREENRC",
					    "WGETRC",
					    "NPM_CONFIG_USERCONFIG",
					    "npm_config_userconfig",
					    "NPM_CONFIG_GLOBALCONFIG",
					    "npm_config_globalconfig",
					    "PIP_CONFIG_FILE",
					    "UV_CONFIG_FILE",
					    "BASH_COMPLETION_USER_FILE",
					    "ZSH_COMPDUMP",
					    "GIT_TEMPLATE_DIR"};
	static const char *const progs[] = {"EDITOR",	   "VISUAL",	      "SUDO_EDITOR",
					    "FCEDIT",	   "PAGER",	      "MANPAGER",
					    "GIT_EDITOR",  "GIT_PAGER",	      "GIT_SEQUENCE_EDITOR",
					    "GIT_SSH",	   "GIT_SSH_COMMAND", "GIT_ASKPASS",
					    "SSH_ASKPASS", "SUDO_ASKPASS",    "BROWSER",
					    "TERMINAL",	   "SYSTEMD_PAGER",   "SYSTEMD_EDITOR",
					    "LESSOPEN",	   "LESSCLOSE",	      "SHELL",
					    "LUA_INIT",	   "LUA_INIT_5_4",    "LUA_INIT_5_3",
					    "LUA_INIT_5_2"};
	int r = 0;

	for (size_t i = 0; r == 0 && i < sizeof(files) / sizeof(files[0]); i++) {
		const char *v = getenv(files[i]);
		char p[PATH_MAX];

		if (v && v[0] == '/' && snprintf(p, sizeof(p), "%s", v) < (int)sizeof(p))
			r = push_writable(m, jc->home, &m->sourced, p);
	}
	if (r == 0)
		r = env_dirs_named(m, jc);
	for (size_t i = 0; r == 0 && i < sizeof(progs) / sizeof(progs[0]); i++) {
		const char *v = getenv(progs[i]);

		if (!v)
			continue;
		/* less's input preprocessor: `|cmd %s`, `||cmd %s`, `|-cmd`, `-cmd`; Lua's @FILE */
		v += strspn(v, " \t|-@");
		r = env_word(m, jc, &m->sourced, v, strcspn(v, " \t"));
	}
	/* LD_PRELOAD: a list, by blanks or colons */
	for (const char *v = getenv("LD_PRELOAD"); r == 0 && v && *v;) {
		size_t l;

		v += strspn(v, " \t:");
		l = strcspn(v, " \t:");
		r = env_word(m, jc, &m->sourced, v, l);
		v += l;
	}
	if (r == 0)
		r = env_opts_named(m, jc);
	return r;
}

/* What the user's shell start-up files source (mand_ctx.sourced): rustup's ~/.cargo/env,
 * nvm.sh, sdkman-init.sh, ghcup's env — a file below a tool's directory, which a grant of that
 * directory (write += ~/.cargo) handed over, run by the host's next shell. The start-up files
 * themselves are held by name. */
static int find_sourced(struct monitor *m, const struct judge_ctx *jc)
{
	static const char *const rc[] = {".bashrc",   ".bash_profile", ".bash_login",
					 ".profile",  ".bash_aliases", ".zshenv",
					 ".zprofile", ".zshrc",	       ".zlogin",
					 ".kshrc",    ".mkshrc",       ".config/fish/config.fish"};
	const char *zd = getenv("ZDOTDIR");
	char p[PATH_MAX];
	int r = 0;

	for (size_t i = 0; r == 0 && jc->home && i < sizeof(rc) / sizeof(rc[0]); i++)
		if (snprintf(p, sizeof(p), "%s/%s", jc->home, rc[i]) < (int)sizeof(p))
			r = sourced_in(m, jc, p);
	for (size_t i = 5; r == 0 && zd && zd[0] == '/' && i < 9; i++)
		if (snprintf(p, sizeof(p), "%s/%s", zd, rc[i]) < (int)sizeof(p))
			r = sourced_in(m, jc, p);
	if (r == 0)
		r = find_env_named(m, jc);
	m->mc.sourced = (const char *const *)m->sourced.v;
	m->mc.nsourced = m->sourced.n;
	return r;
}

/* A path as the guard checks it: canonical where it exists, else its directory's canonical
 * form and its name, else as spelled (absolute). NULL when none. Caller frees. */
static char *real_name(const char *p)
{
	char *c = p && p[0] != '~' ? realpath(p, NULL) : NULL, *d, *s;

	if (c || !p || !(d = strdup(p)))
		return c;
	s = strrchr(d, '/');
	if (s && s != d) {
		*s = '\0';
		c = realpath(d, NULL);
		*s = '/';
	}
	if (c && asprintf(&s, "%s%s", c, strrchr(d, '/')) < 0)
		s = NULL;
	else if (!c)
		s = d[0] == '/' ? strdup(d) : NULL;
	free(c);
	free(d);
	return s;
}

/* Pushes the path fmt makes, normalized, unless sv holds it. 0 or -ENOMEM. */
static int push_new(struct strv *sv, const char *fmt, ...)
{
	char *p = NULL;
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (k < 0)
		return -ENOMEM;
	path_normalize(p);
	if (strv_find(sv, p) >= 0) {
		free(p);
		return 0;
	}
	return strv_push_owned(sv, p);
}

/* $XDG_CONFIG_HOME's, $XDG_DATA_HOME's, $XDG_STATE_HOME's and $XDG_CACHE_HOME's copies of the home
 * rule's fixed paths, canonical where the directory exists (the guard checks real names); then
 * sbxsh's policy as this command was started with (mand_ctx.policy): its user file (--config,
 * SBXSH_CONFIG) and the system directory. */
static int find_fixed(struct monitor *m, const struct judge_ctx *jc)
{
	static const char *const state[] = {"sbxsh", "mise", "nvim/trust"};
	size_t ncfg, ndat, ncac, nfixed;
	const char *const *cfg = mandatory_xdg_config(&ncfg);
	const char *const *dat = mandatory_xdg_data(&ndat);
	const char *const *cac = mandatory_xdg_cache(&ncac);
	const struct {
		const char *dir;
		const char *const *v;
		size_t n;
	} xdg[4] = {{getenv("XDG_CONFIG_HOME"), cfg, ncfg},
		    {getenv("XDG_STATE_HOME"), state, sizeof(state) / sizeof(state[0])},
		    {getenv("XDG_DATA_HOME"), dat, ndat},
		    {getenv("XDG_CACHE_HOME"), cac, ncac}};
	/* the user file loaded (--config, SBXSH_CONFIG or the default), SBXSH_CONFIG's even when
	 * --config won (the next command without --config loads it), the system directory */
	const char *pol[3] = {jc->prof ? jc->prof->grant_file : NULL, getenv("SBXSH_CONFIG"),
			      jc->sysconfdir};
	int r = 0;

	/* each canonical and as spelled: a symlink on the way, inside a write grant, is then a
	 * directory holding one (never removed or replaced by another link) */
	for (int k = 0; k < 8 && r == 0; k++) {
		const char *v = xdg[k % 4].dir;
		char *rp = k < 4 && v && v[0] == '/' ? realpath(v, NULL) : NULL;
		const char *d = rp ? rp : v;

		for (size_t i = 0; d && d[0] == '/' && i < xdg[k % 4].n && r == 0; i++)
			r = push_new(&m->fixed, "%s/%s", d, xdg[k % 4].v[i]);
		free(rp);
	}
	/* the violation log where [sbxsh] log puts it (the default lies in $XDG_STATE_HOME/sbxsh,
	 * above): a link, a directory or a FIFO made at a missing one would take the record */
	if (r == 0 && jc->log && jc->log[0] == '/') {
		char *c = real_name(jc->log);

		r = push_new(&m->fixed, "%s", jc->log);
		if (r == 0 && c)
			r = push_new(&m->fixed, "%s", c);
		free(c);
	}
	nfixed = m->fixed.n;
	for (size_t i = 0; i < 3 && r == 0; i++) {
		char *c = pol[i] && pol[i][0] ? real_name(pol[i]) : NULL, *cwd = NULL;

		if (c)
			r = push_new(&m->fixed, "%s", c);
		free(c);
		if (r == 0 && pol[i] && pol[i][0] && pol[i][0] != '~' &&
		    (pol[i][0] == '/' || (cwd = getcwd(NULL, 0))))
			r = push_new(&m->fixed, "%s%s%s", cwd ? cwd : "", cwd ? "/" : "", pol[i]);
		free(cwd);
	}
	m->mc.fixed = (const char *const *)m->fixed.v;
	m->mc.nfixed = nfixed;
	m->mc.policy = (const char *const *)m->fixed.v + nfixed;
	m->mc.npolicy = m->fixed.n - nfixed;
	return r;
}

int monitor_new(struct monitor **out, int listener, const struct judge_ctx *jc)
{
	struct monitor *m = calloc(1, sizeof(*m));
	int r = -ENOMEM;

	*out = NULL;
	if (!m)
		goto out;
	/* the source takes the listener, also on error; it reads m->mc once it serves */
	if ((r = msrc_new(&m->src, listener, &m->mc, on_event, m)) < 0)
		goto out;
	r = -ENOMEM;
	m->jc = *jc;
	m->viol = calloc(MON_VIOL_MAX, sizeof(*m->viol));
	if (!m->viol)
		goto out;
	m->mc.home = jc->home;
	m->mc.pw_home = m->pw_home = monitor_pw_home(jc->home);
	m->mc.git_config = jc->prof && jc->prof->git_config;
	m->mc.recovery = jc->spec ? jc->spec->recovery : NULL;
	/* the sandbox's own tmpfs mounts (platform/linux/bwrap.c): /dev/shm always, /tmp when
	 * private */
	m->scratch[m->mc.nscratch++] = "/dev/shm";
	if (jc->spec && jc->spec->tmp_private)
		m->scratch[m->mc.nscratch++] = "/tmp";
	m->mc.scratch = m->scratch;
	/* the grants as written (the mounts merge nested ones: ~/.cache under ~ is one bind, and
	 * the home rule wants the grant that names it) and as mounted; a glob by its fixed part */
	for (size_t i = 0; jc->prof && i < jc->prof->write.n; i++) {
		const char *v = jc->prof->write.v[i].value;
		size_t l = v ? strcspn(v, "*?[{\\") : 0;

		while (l > 0 && v[l] && v[l - 1] != '/')
			l--;
		if (v && v[0] == '/' && l > 0 && strv_pushf(&m->grant_store, "%.*s", (int)l, v) < 0)
			goto out;
	}
	m->grants =
	    calloc(m->grant_store.n + (jc->spec ? jc->spec->mounts.n : 0) + 1, sizeof(*m->grants));
	if (!m->grants)
		goto out;
	m->mc.grants = m->grants;
	for (size_t i = 0; i < m->grant_store.n; i++)
		m->grants[m->mc.ngrants++] = m->grant_store.v[i];
	for (size_t i = 0; jc->prof && i < jc->prof->create.n; i++) {
		const char *v = jc->prof->create.v[i].value;
		char *lit = v && v[0] == '/' && !path_has_glob(v) ? path_unescape(v) : NULL;

		r = lit ? strv_push(&m->creates, lit) : -ENOMEM;
		free(lit);
		if (r < 0)
			goto out;
	}
	r = -ENOMEM;
	m->mc.creates = (const char *const *)m->creates.v;
	m->mc.ncreates = m->creates.n;
	for (size_t i = 0; jc->spec && i < jc->spec->mounts.n; i++)
		if (jc->spec->mounts.v[i].op == SBX_M_BIND)
			m->grants[m->mc.ngrants++] = jc->spec->mounts.v[i].dst;
	if (find_gitdirs(m, jc) < 0 || find_fixed(m, jc) < 0 || find_hooks(m, jc) < 0 ||
	    find_links(m, jc) < 0 || find_sourced(m, jc) < 0 || find_denies(m, jc) < 0)
		goto out;
	/* a speed-up only: without them (no memory) the checks walk every entry */
	m->mc.fixed_lcp = m->fixed_lcp = mandatory_lcp(m->mc.fixed, m->mc.nfixed);
	m->mc.holds_lcp = m->holds_lcp = mandatory_lcp(m->mc.holds, m->mc.nholds);
	m->jc.mand = &m->mc; /* the judge names what the guard refuses, by the same rules */
	m->jc.moved = NULL;
	m->nscd = monitor_host_exists("/var/run/nscd/socket", NULL);
	*out = m;
	return 0;
out:
	if (m)
		monitor_free(m);
	else if (listener >= 0)
		close(listener);
	return r;
}

/* ---- recording ---- */

static size_t vc_probe(const struct vcache *c, uint64_t h, enum viol_kind k, unsigned flags,
		       const char *path, size_t len)
{
	size_t i = (size_t)(h ^ h >> 32) % c->nslots;

	for (;; i = (i + 1) % c->nslots) {
		const struct vc_slot *s = &c->slot[i];

		if (!s->used || (s->h == h && s->len == len && s->kind == k && s->flags == flags &&
				 memcmp(c->arena + s->off, path, len) == 0))
			return i;
	}
}

static void vc_clear(struct vcache *c)
{
	memset(c->slot, 0, c->nslots * sizeof(*c->slot));
	c->n = c->used = 0;
}

/* Room for one more entry of len bytes: grown, or emptied at the largest size. */
static bool vc_room(struct vcache *c, size_t len)
{
	if ((c->n + 1) * 2 > c->nslots) {
		struct vc_slot *ns =
		    c->nslots < MON_VC_SLOTS_MAX ? calloc(c->nslots * 2, sizeof(*ns)) : NULL;

		if (ns) {
			struct vcache old = *c;

			c->slot = ns;
			c->nslots *= 2;
			for (size_t i = 0; i < old.nslots; i++) {
				uint64_t h = old.slot[i].h;
				size_t j = (size_t)(h ^ h >> 32) % c->nslots;

				if (!old.slot[i].used)
					continue;
				while (c->slot[j].used)
					j = (j + 1) % c->nslots;
				c->slot[j] = old.slot[i];
			}
			free(old.slot);
		} else {
			vc_clear(c);
		}
	}
	if (len > c->cap - c->used) {
		size_t cap = c->cap;
		char *na;

		while (cap < MON_VC_ARENA_MAX && len > cap - c->used)
			cap *= 2;
		if (len <= cap - c->used && (na = realloc(c->arena, cap))) {
			c->arena = na;
			c->cap = cap;
		} else {
			vc_clear(c);
		}
	}
	return len <= c->cap - c->used;
}

/* true when (kind, flags, path) was judged already; remembers it otherwise. */
static bool vc_seen(struct monitor *m, enum viol_kind k, unsigned flags, const char *path)
{
	struct vcache *c = &m->vc;
	size_t len = strlen(path), i;
	uint64_t h = 1469598103934665603ULL ^ ((uint64_t)k << 16 | flags);

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)path[i]) * 1099511628211ULL;
	if (!c->slot) {
		c->slot = calloc(MON_VC_SLOTS, sizeof(*c->slot));
		c->arena = malloc(MON_VC_ARENA);
		if (!c->slot || !c->arena) {
			free(c->slot);
			free(c->arena);
			c->slot = NULL;
			c->arena = NULL;
			return false; /* no memory: judge every time */
		}
		c->nslots = MON_VC_SLOTS;
		c->cap = MON_VC_ARENA;
	}
	i = vc_probe(c, h, k, flags, path, len);
	if (c->slot[i].used)
		return true;
	if (!vc_room(c, len))
		return false;
	i = vc_probe(c, h, k, flags, path, len);
	memcpy(c->arena + c->used, path, len);
	c->slot[i] = (struct vc_slot){.h = h,
				      .off = (uint32_t)c->used,
				      .len = (uint32_t)len,
				      .flags = (uint16_t)flags,
				      .kind = (uint8_t)k,
				      .used = 1};
	c->used += len;
	c->n++;
	return false;
}

/* The command's violations are kept once per (kind, host path), whatever call led there. */
static bool kept(const struct monitor *m, enum viol_kind k, const char *host_path)
{
	for (size_t i = 0; i < m->nviol; i++)
		if (m->viol[i].kind == k && strcmp(m->viol[i].path, host_path) == 0)
			return true;
	return false;
}

static void keep(struct monitor *m, const struct verdict *v, const char *call, pid_t pid)
{
	struct mon_viol *x;

	if (m->nviol >= MON_VIOL_MAX) {
		m->dropped++;
		return;
	}
	x = &m->viol[m->nviol];
	x->path = strdup(v->path);
	if (!x->path) {
		m->dropped++;
		return;
	}
	x->kind = v->kind;
	x->why = v->why;
	x->rule = v->rule;
	x->mandatory = v->mandatory;
	x->call = call;
	x->pid = pid;
	m->nviol++;
	if (m->sink)
		m->sink(x, m->sink_arg);
}

static void judge_one(struct monitor *m, enum viol_kind kind, unsigned jf, const char *path,
		      const char *call, pid_t pid)
{
	struct verdict v;

	if (kind == VK_EXEC) {
		const char *b = strrchr(path, '/');

		if (b && strcmp(b + 1, "git") == 0)
			m->saw_git = true;
	}
	if ((jf & JF_REMOVE) && judge_is_grant_root(&m->jc, path) && strv_find(&m->roots, path) < 0)
		strv_push(&m->roots, path);
	if (vc_seen(m, kind, jf, path))
		return;
	if (judge_path(&m->jc, kind, path, jf, &v) == 1 && !kept(m, kind, v.path))
		keep(m, &v, call, pid);
}

/* A refusal by the guard is a violation naming the rule (docs/monitor.md). */
static void guard_report(struct monitor *m, const struct msrc_event *ref, const char *call,
			 pid_t pid)
{
	struct verdict v;

	if (m->quiet || judge_ignored_write(&m->jc, ref->path) ||
	    judge_noise_write(&m->jc, ref->path, ref->flags & MON_JF))
		return;
	memset(&v, 0, sizeof(v));
	v.kind = VK_WRITE;
	v.why = ref->hit->lift == MAND_GIT_CONFIG   ? VW_GIT_CONFIG
		: ref->hit->lift == MAND_HOME_GRANT ? VW_HOME
						    : VW_MANDATORY;
	v.mandatory = ref->hit->rule;
	for (size_t i = 0; ref->hit->lift == MAND_CREATE && i < m->creates.n; i++)
		if (ref->hit->rule == m->creates.v[i]) {
			v.why = VW_CREATE;
			v.mandatory = NULL;
			v.rule = m->jc.prof && i < m->jc.prof->create.n ? &m->jc.prof->create.v[i]
									: NULL;
		}
	for (size_t i = 0; ref->hit->lift == MAND_DENY_WRITE && i < m->holds.n; i++)
		if (ref->hit->rule == m->holds.v[i]) { /* the path, or a directory holding it */
			bool word = !m->hold_read[i] && m->hold_of[i];
			/* at or below what a deny_read hides: that line's, which lifts it */
			bool hid = m->hold_read[i] && m->hold_of[i] &&
				   path_under(ref->path, m->holds.v[i]);

			v.why = hid ? VW_DENY_READ : word ? VW_DENY_WRITE : VW_MANDATORY;
			v.mandatory =
			    word || hid ? NULL
			    : m->hold_read[i]
				? "a path deny_read hides, or a directory holding one"
				: "a path deny_write makes read-only, or a directory holding one";
			v.rule = m->hold_of[i];
		}
	/* a deny_write glob's match made after the start (mand_ctx.deny_glob): the rule is
	 * the pattern itself */
	for (size_t i = 0;
	     ref->hit->lift == MAND_DENY_WRITE && m->jc.prof && i < m->jc.prof->deny_write.n; i++)
		if (ref->hit->rule == m->jc.prof->deny_write.v[i].value) {
			v.why = VW_DENY_WRITE;
			v.mandatory = NULL;
			v.rule = &m->jc.prof->deny_write.v[i];
		}
	snprintf(v.path, sizeof(v.path), "%s", ref->path);
	if (!kept(m, VK_WRITE, v.path))
		keep(m, &v, call, pid);
}

/* A refused socket(AF_UNIX). glibc asks nscd on every passwd/group lookup: where the host runs
 * no nscd that refusal changes nothing, so it is noise. */
static void unix_report(struct monitor *m, const struct msrc_event *ev)
{
	struct verdict v;

	if ((ev->flags & MSRC_NSCD) && !m->nscd)
		return;
	judge_unix(&v);
	if (!kept(m, VK_UNIX, v.path))
		keep(m, &v, ev->call, ev->pid);
}

/* The source's events, on its serving thread. */
static void on_event(const struct msrc_event *ev, void *arg)
{
	struct monitor *m = arg;

	switch (ev->kind) {
	case MSRC_UNIX:
		unix_report(m, ev);
		break;
	case MSRC_REFUSED:
		guard_report(m, ev, ev->call, ev->pid);
		break;
	case MSRC_MOVED: /* the mounts went with the directory: what was judged may judge otherwise
			  */
		if (judge_moved(&m->jc, ev->path, ev->to, ev->flags & MSRC_EXCHANGE) > 0 &&
		    m->vc.slot)
			vc_clear(&m->vc);
		break;
	default:
		judge_one(m, (enum viol_kind)ev->kind, ev->flags & MON_JF, ev->path, ev->call,
			  ev->pid);
		break;
	}
}

/* ---- the source's, as the front end uses it ---- */

void monitor_set_level(struct monitor *m, unsigned level)
{
	msrc_set_level(m->src, (enum monitor_level)level);
}

void monitor_set_quiet(struct monitor *m)
{
	m->quiet = true;
	msrc_set_quiet(m->src);
}

int monitor_start(struct monitor *m)
{
	return msrc_start(m->src);
}

void monitor_set_boot(struct monitor *m, int sock)
{
	msrc_set_boot(m->src, sock);
}

int monitor_poll_fd(const struct monitor *m)
{
	return msrc_poll_fd(m->src);
}

void monitor_ready(struct monitor *m, short revents)
{
	msrc_ready(m->src, revents);
}

void monitor_stop(struct monitor *m)
{
	if (m)
		msrc_stop(m->src);
}

/* ---- results ---- */

void monitor_set_sink(struct monitor *m, void (*fn)(const struct mon_viol *v, void *arg), void *arg)
{
	m->sink = fn;
	m->sink_arg = arg;
}

const struct mon_viol *monitor_violations(const struct monitor *m, size_t *n)
{
	*n = m->nviol;
	return m->viol;
}

struct mon_stats monitor_stats(const struct monitor *m)
{
	const struct msrc_stats *st = msrc_stats(m->src);

	return (struct mon_stats){
	    .notifications = st->notifications, .unknown = st->unknown, .dropped = m->dropped};
}

const struct strv *monitor_root_removals(const struct monitor *m)
{
	return &m->roots;
}

bool monitor_saw_git(const struct monitor *m)
{
	return m->saw_git;
}

void monitor_free(struct monitor *m)
{
	if (!m)
		return;
	msrc_free(m->src); /* first: its thread may still call on_event */
	judge_release(&m->jc);
	for (size_t i = 0; m->viol && i < m->nviol; i++)
		free(m->viol[i].path);
	free(m->viol);
	free(m->vc.slot);
	free(m->vc.arena);
	strv_release(&m->grant_store);
	strv_release(&m->creates);
	free(m->grants);
	strv_release(&m->gitdirs);
	strv_release(&m->hooks);
	strv_release(&m->hooknames);
	strv_release(&m->links);
	strv_release(&m->link_seen);
	strv_release(&m->sourced);
	free(m->pw_home);
	strv_release(&m->holds);
	free(m->hold_of);
	free(m->hold_read);
	strv_release(&m->fixed);
	free(m->fixed_lcp);
	free(m->holds_lcp);
	strv_release(&m->roots);
	free(m);
}

bool monitor_host_exists(const char *path, void *arg)
{
	struct stat st;

	(void)arg;
	return fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}