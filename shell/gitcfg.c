/* gitcfg — core.hooksPath as git reads it (git-config(1) "Syntax").
 *
 * Rules this file keeps:
 * - Over-protect rather than miss: every value in every file is taken (not only the one that
 *   wins), includes are followed whatever their condition.
 * - A file git would refuse is read up to its error: what came before is taken.
 */
#include "shell/gitcfg.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CFG_MAX	  (1 << 20) /* a larger config file is read up to there */
#define DEPTH_MAX 10	    /* git's include depth */

struct parser {
	const char *s, *e;
	char section[128];
	char sub[PATH_MAX];
	bool has_sub;
};

static int peek(const struct parser *p)
{
	return p->s < p->e ? (unsigned char)*p->s : -1;
}

/* [section], [section "sub"] or the old [section.sub]: 0, or -1 on a malformed header. */
static int header(struct parser *p)
{
	size_t n = 0;
	int c;

	p->s++; /* '[' */
	p->has_sub = false;
	while ((c = peek(p)) >= 0 && (isalnum(c) || c == '-' || c == '.')) {
		if (n + 1 >= sizeof(p->section))
			return -1;
		p->section[n++] = (char)tolower(c);
		p->s++;
	}
	p->section[n] = '\0';
	if (c == ']') {
		char *dot = strchr(p->section, '.');

		p->s++;
		if (dot) { /* [section.sub]: the subsection is lowercased too */
			*dot = '\0';
			snprintf(p->sub, sizeof(p->sub), "%s", dot + 1);
			p->has_sub = true;
		}
		return n ? 0 : -1;
	}
	if (!isspace(c))
		return -1;
	while ((c = peek(p)) == ' ' || c == '\t')
		p->s++;
	if (c != '"')
		return -1;
	p->s++;
	n = 0;
	while ((c = peek(p)) >= 0 && c != '"' && c != '\n') {
		if (c == '\\' && p->s + 1 < p->e && p->s[1] != '\n') {
			p->s++;
			c = peek(p);
		}
		if (n + 1 >= sizeof(p->sub))
			return -1;
		p->sub[n++] = (char)c;
		p->s++;
	}
	p->sub[n] = '\0';
	if (c != '"' || p->s + 1 >= p->e || p->s[1] != ']')
		return -1;
	p->s += 2;
	p->has_sub = true;
	return 0;
}

/* A value up to its line's end (quotes, escapes, comments, line continuations): into v. */
static int value(struct parser *p, char *v, size_t cap)
{
	size_t n = 0, spaces = 0;
	bool quoted = false;
	int c;

	while ((c = peek(p)) == ' ' || c == '\t')
		p->s++;
	for (; (c = peek(p)) >= 0; p->s++) {
		if (c == '\n' && !quoted)
			break;
		if (c == '\n')
			return -1; /* a quote left open */
		if (!quoted && (c == '#' || c == ';')) {
			while ((c = peek(p)) >= 0 && c != '\n')
				p->s++;
			break;
		}
		if (!quoted && isspace(c)) {
			spaces++;
			continue;
		}
		for (; spaces; spaces--)
			if (n + 1 < cap)
				v[n++] = ' ';
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (c == '\\') {
			if (++p->s >= p->e)
				return -1;
			c = (unsigned char)*p->s;
			if (c == '\n')
				continue; /* a continuation line */
			c = c == 't' ? '\t' : c == 'n' ? '\n' : c == 'b' ? '\b' : c;
			if (c != '\t' && c != '\n' && c != '\b' && c != '"' && c != '\\')
				return -1;
		}
		if (n + 1 < cap)
			v[n++] = (char)c;
	}
	if (quoted)
		return -1;
	v[n] = '\0';
	return 0;
}

int gitcfg_parse(const char *text, size_t len,
		 int (*fn)(const char *section, const char *sub, const char *key, const char *value,
			   void *arg),
		 void *arg)
{
	static __thread struct parser p;
	static __thread char v[PATH_MAX];
	char key[128];
	int c, r;

	p.s = text;
	p.e = text + len;
	p.section[0] = '\0';
	p.has_sub = false;
	while ((c = peek(&p)) >= 0) {
		if (isspace(c)) {
			p.s++;
		} else if (c == '#' || c == ';') {
			while ((c = peek(&p)) >= 0 && c != '\n')
				p.s++;
		} else if (c == '[') {
			if (header(&p) < 0)
				return 0;
		} else if (isalpha(c) && p.section[0]) {
			size_t n = 0;

			while ((c = peek(&p)) >= 0 && (isalnum(c) || c == '-')) {
				if (n + 1 >= sizeof(key))
					return 0;
				key[n++] = (char)tolower(c);
				p.s++;
			}
			key[n] = '\0';
			while ((c = peek(&p)) == ' ' || c == '\t')
				p.s++;
			if (c == '=') {
				p.s++;
				if (value(&p, v, sizeof(v)) < 0)
					return 0;
				r = fn(p.section, p.has_sub ? p.sub : NULL, key, v, arg);
			} else if (c < 0 || c == '\n' || c == '#' || c == ';') {
				r = fn(p.section, p.has_sub ? p.sub : NULL, key, NULL, arg);
			} else {
				return 0;
			}
			if (r)
				return r;
		} else {
			return 0;
		}
	}
	return 0;
}

/* ---- the files ---- */

struct walk {
	struct strv *out;
	const char *const *wt; /* the worktrees a relative hooksPath is taken against */
	size_t nwt;
	const char *home;
	struct strv *rel; /* a relative core.hooksPath of the global and system files, or NULL */
	const char *dir;  /* the directory of the file read (an include's base) */
	int depth;
	int err;
};

static int read_file(struct walk *w, const char *path);

/* value made absolute: ~/ and ~user/ expanded, a relative one against base. NULL when it
 * cannot be (no home, an unknown user). Caller frees. */
static char *absolute(const struct walk *w, const char *v, const char *base)
{
	char *s = NULL;

	if (v[0] == '~') {
		const char *rest = v + strcspn(v, "/");
		const char *h = w->home;
		char user[64];

		if (rest > v + 1) {
			struct passwd *pw;

			if ((size_t)(rest - v) >= sizeof(user))
				return NULL;
			memcpy(user, v + 1, (size_t)(rest - v - 1));
			user[rest - v - 1] = '\0';
			h = (pw = getpwnam(user)) ? pw->pw_dir : NULL;
		}
		if (!h || asprintf(&s, "%s%s", h, rest) < 0)
			return NULL;
		return s;
	}
	if (v[0] == '/')
		return strdup(v);
	if (!base || asprintf(&s, "%s/%s", base, v) < 0)
		return NULL;
	return s;
}

static int push_once(struct walk *w, char *p)
{
	int r = 0;

	if (!p)
		return 0;
	if (strv_find(w->out, p) < 0)
		r = strv_push(w->out, p);
	free(p);
	return r;
}

/* A relative hooksPath of the global and system files names a directory in every
 * repository's worktree, nested ones included: pushed once into rel, normalized ("./a//b/" is
 * "a/b"). One with a ".." component names a directory beside or above every worktree: what
 * follows its last ".." is protected as a name at any depth ("../hk" is "hk": a nested
 * repository's ../hk lies in the project, and the guard never meets that repository when the
 * command writes only there). One naming the worktree's parent or an ancestor ("..",
 * "../..") makes that directory the hooks directory: git runs <it>/pre-commit and the other
 * hooks by name, so every hook name is protected at any depth. */
static int push_rel(struct strv *rel, const char *v)
{
	/* git's hook names (githooks(5), git 2.52) */
	static const char *const hook[] = {"applypatch-msg",
					   "pre-applypatch",
					   "post-applypatch",
					   "pre-commit",
					   "pre-merge-commit",
					   "prepare-commit-msg",
					   "commit-msg",
					   "post-commit",
					   "pre-rebase",
					   "post-checkout",
					   "post-merge",
					   "pre-push",
					   "pre-receive",
					   "update",
					   "proc-receive",
					   "post-receive",
					   "post-update",
					   "reference-transaction",
					   "push-to-checkout",
					   "pre-auto-gc",
					   "post-rewrite",
					   "sendemail-validate",
					   "fsmonitor-watchman",
					   "p4-changelist",
					   "p4-prepare-changelist",
					   "p4-post-changelist",
					   "p4-pre-submit",
					   "post-index-change"};
	bool up = false;
	char n[PATH_MAX];
	size_t o = 0;

	for (const char *s = v; *s;) {
		size_t l = strcspn(s, "/");

		if (l == 2 && s[0] == '.' && s[1] == '.') {
			o = 0; /* beside or above the worktree: what follows, by name */
			up = true;
		} else if (l && !(l == 1 && s[0] == '.')) {
			if (o + l + 2 >= sizeof(n))
				return 0;
			if (o)
				n[o++] = '/';
			memcpy(n + o, s, l);
			o += l;
		}
		s += l;
		s += *s == '/';
	}
	n[o] = '\0';
	for (size_t i = 0; !o && up && i < sizeof(hook) / sizeof(*hook); i++)
		if (strv_find(rel, hook[i]) < 0 && strv_push(rel, hook[i]) < 0)
			return -ENOMEM;
	if (!o || strv_find(rel, n) >= 0)
		return 0;
	return strv_push(rel, n);
}

/* A key whose value is a program git runs (its first word; `!` before an alias's or a
 * credential helper's shell command): section.key, section.*.key (a subsection), or section
 * with any key (an alias, a pager.CMD). */
static bool program_key(const char *section, const char *sub, const char *key)
{
	static const char *const k[][2] = {
	    {"core", "fsmonitor"},	  {"core", "pager"},
	    {"core", "editor"},		  {"core", "sshcommand"},
	    {"core", "askpass"},	  {"core", "gitproxy"},
	    {"sequence", "editor"},	  {"diff", "external"},
	    {"credential", "helper"},	  {"gpg", "program"},
	    {"filter", "clean"},	  {"filter", "smudge"},
	    {"filter", "process"},	  {"merge", "driver"},
	    {"diff", "textconv"},	  {"diff", "command"},
	    {"difftool", "cmd"},	  {"mergetool", "cmd"},
	    {"browser", "cmd"},		  {"man", "cmd"},
	    {"sendemail", "sendmailcmd"}, {"sendemail", "smtpserver"},
	    {"trailer", "command"},	  {"trailer", "cmd"},
	    {"gpg", "defaultkeycommand"}, {"uploadpack", "packobjectshook"}};

	(void)sub;
	if (strcmp(section, "alias") == 0 || strcmp(section, "pager") == 0)
		return true;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strcmp(section, k[i][0]) == 0 && strcmp(key, k[i][1]) == 0)
			return true;
	return false;
}

static int on_entry(const char *section, const char *sub, const char *key, const char *value,
		    void *arg)
{
	struct walk *w = arg;

	if (!value || !value[0])
		return 0;
	/* git 2.52's optional path (a variable whose path is missing is ignored): the same path */
	if (strncmp(value, ":(optional)", 11) == 0 && !*(value += 11))
		return 0;
	if (strcmp(section, "core") == 0 && !sub && strcmp(key, "hookspath") == 0) {
		if (value[0] == '/' || value[0] == '~')
			return (w->err = push_once(w, absolute(w, value, NULL))) ? 1 : 0;
		if (w->rel && (w->err = push_rel(w->rel, value)) != 0)
			return 1;
		for (size_t i = 0; i < w->nwt; i++)
			if ((w->err = push_once(w, absolute(w, value, w->wt[i]))) != 0)
				return 1;
		return 0;
	}
	/* the template directory git init and git clone copy into every new repository (its
	 * hooks/ run there, at the clone's checkout) */
	if (strcmp(section, "init") == 0 && !sub && strcmp(key, "templatedir") == 0)
		return (value[0] == '/' || value[0] == '~') &&
			       (w->err = push_once(w, absolute(w, value, NULL))) != 0
			   ? 1
			   : 0;
	/* a program named by an absolute path (or ~/): the host's next git command runs it */
	if (program_key(section, sub, key)) {
		const char *v = value + strspn(value, " \t!");
		size_t l = strcspn(v, " \t");
		char word[PATH_MAX];

		if ((v[0] != '/' && v[0] != '~') || l >= sizeof(word))
			return 0;
		memcpy(word, v, l);
		word[l] = '\0';
		char *ap = absolute(w, word, NULL);
		struct stat st;

		/* a program is a file: a directory there (`!/proj && make`) would hold all of it */
		if (ap && stat(ap, &st) == 0 && S_ISDIR(st.st_mode)) {
			free(ap);
			return 0;
		}
		return (w->err = push_once(w, ap)) != 0 ? 1 : 0;
	}
	if ((strcmp(section, "include") == 0 && !sub) || strcmp(section, "includeif") == 0) {
		if (strcmp(key, "path") != 0 || w->depth >= DEPTH_MAX)
			return 0;
		char *p = absolute(w, value, w->dir);
		const char *dir = w->dir;

		if (!p)
			return 0;
		/* a file included is git's config as much as the one that includes it; one already
		 * read gives nothing new (and a file including itself or another many times would
		 * make the walk exponential) */
		if (strv_find(w->out, p) >= 0) {
			free(p);
			return 0;
		}
		if ((w->err = strv_push(w->out, p)) != 0) {
			free(p);
			return 1;
		}
		w->depth++;
		read_file(w, p);
		w->depth--;
		w->dir = dir;
		free(p);
		return w->err ? 1 : 0;
	}
	return 0;
}

/* One config file, if it is there and readable (what the user's git reads, read as the
 * front end: the user). */
static int read_file(struct walk *w, const char *path)
{
	char *buf = NULL, *dir = NULL;
	struct stat st;
	ssize_t k;
	size_t n = 0;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto out;
	size_t cap = st.st_size > CFG_MAX ? CFG_MAX : (size_t)st.st_size;
	if (!(buf = malloc(cap + 1)) || !(dir = strdup(path))) {
		w->err = -ENOMEM;
		goto out;
	}
	while (n < cap && (k = read(fd, buf + n, cap - n)) > 0)
		n += (size_t)k;
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	w->dir = slash ? dir : NULL;
	gitcfg_parse(buf, n, on_entry, w);
	w->dir = NULL;
out:
	close(fd);
	free(buf);
	free(dir);
	return w->err;
}

/* GIT_CONFIG_COUNT's GIT_CONFIG_KEY_<n> = GIT_CONFIG_VALUE_<n> in the caller's environment,
 * which the host's git takes as config entries (git-config(1) "ENVIRONMENT"); up to the first
 * pair missing (where git stops with an error). */
static void read_env(struct walk *w)
{
	const char *c = getenv("GIT_CONFIG_COUNT");
	char *end, name[256];
	long n = c && *c ? strtol(c, &end, 10) : 0;

	if (!c || !*c || *end || n <= 0)
		return;
	for (long i = 0; i < n && w->err == 0; i++) {
		char kn[48], vn[48];

		snprintf(kn, sizeof(kn), "GIT_CONFIG_KEY_%ld", i);
		snprintf(vn, sizeof(vn), "GIT_CONFIG_VALUE_%ld", i);
		const char *k = getenv(kn), *v = getenv(vn), *d1, *d2;
		if (!k || !v)
			return;
		d1 = strchr(k, '.'), d2 = strrchr(k, '.');
		if (!d1 || strlen(k) >= sizeof(name))
			continue;
		memcpy(name, k, strlen(k) + 1);
		/* section and key are case-insensitive, a subsection is not */
		for (char *q = name; q < name + (d1 - k); q++)
			*q = (char)tolower((unsigned char)*q);
		for (char *q = name + (d2 - k) + 1; *q; q++)
			*q = (char)tolower((unsigned char)*q);
		name[d1 - k] = '\0';
		name[d2 - k] = '\0';
		on_entry(name, d1 == d2 ? NULL : name + (d1 - k) + 1, name + (d2 - k) + 1, v, w);
	}
}

/* a/b into o, or "" when it does not fit */
static void join(char *o, size_t cap, const char *a, const char *b)
{
	if (snprintf(o, cap, "%s%s%s", a, a[0] ? "/" : "", b) >= (int)cap)
		o[0] = '\0';
}

/* The git directory of worktree d (d/.git, or what a .git file's gitdir: names), and its
 * commondir, into g and c ("" when none). */
static void git_dirs(const char *d, char *g, char *c, size_t cap)
{
	char p[PATH_MAX], b[PATH_MAX];
	struct stat st;
	ssize_t k;
	int fd;

	g[0] = c[0] = '\0';
	if (snprintf(p, sizeof(p), "%s/.git", d) >= (int)sizeof(p) || stat(p, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		join(g, cap, "", p);
	} else if (S_ISREG(st.st_mode) &&
		   (fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) >= 0) {
		k = read(fd, b, sizeof(b) - 1);
		close(fd);
		b[k > 0 ? k : 0] = '\0';
		b[strcspn(b, "\r\n")] = '\0';
		if (strncmp(b, "gitdir: ", 8) != 0 || !b[8])
			return;
		join(g, cap, b[8] == '/' ? "" : d, b + 8);
	}
	if (!g[0] || snprintf(p, sizeof(p), "%s/commondir", g) >= (int)sizeof(p) ||
	    (fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
		return;
	k = read(fd, b, sizeof(b) - 1);
	close(fd);
	b[k > 0 ? k : 0] = '\0';
	b[strcspn(b, "\r\n")] = '\0';
	if (b[0])
		join(c, cap, b[0] == '/' ? "" : g, b);
}

int gitcfg_hooks_dirs(struct strv *out, const char *const *wt, size_t n, const char *home,
		      struct strv *rel)
{
	char g[PATH_MAX], c[PATH_MAX], f[PATH_MAX + 32];
	const char *xdg = getenv("XDG_CONFIG_HOME"), *glob = getenv("GIT_CONFIG_GLOBAL"),
		   *sys = getenv("GIT_CONFIG_SYSTEM");
	struct walk w = {.out = out, .home = home};
	const char **rep = calloc(n + 1, sizeof(*rep));
	size_t k = 0;

	if (!rep)
		return -ENOMEM;
	/* the repositories among them, each read with its own worktree */
	for (size_t i = 0; i < n && w.err == 0; i++) {
		git_dirs(wt[i], g, c, sizeof(g));
		if (!g[0])
			continue;
		rep[k++] = wt[i];
		w.wt = &wt[i];
		w.nwt = 1;
		if (snprintf(f, sizeof(f), "%s/config", g) < (int)sizeof(f))
			read_file(&w, f);
		if (snprintf(f, sizeof(f), "%s/config.worktree", g) < (int)sizeof(f))
			read_file(&w, f);
		if (c[0] && snprintf(f, sizeof(f), "%s/config", c) < (int)sizeof(f))
			read_file(&w, f);
	}
	/* the global and system files: a relative value is every repository's */
	w.wt = rep;
	w.nwt = k;
	w.rel = rel;
	if (glob && glob[0])
		read_file(&w, glob);
	else if (home && snprintf(f, sizeof(f), "%s/.gitconfig", home) < (int)sizeof(f))
		read_file(&w, f);
	if (xdg && xdg[0] == '/' ? snprintf(f, sizeof(f), "%s/git/config", xdg) < (int)sizeof(f)
	    : home ? snprintf(f, sizeof(f), "%s/.config/git/config", home) < (int)sizeof(f)
		   : false)
		read_file(&w, f);
	read_file(&w, sys && sys[0] ? sys : "/etc/gitconfig");
	read_env(&w);
	free(rep);
	return w.err;
}
