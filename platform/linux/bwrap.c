/* bwrap — a sandbox spec → the bwrap argv. Pure: no I/O, no globals; golden-tested.
 *
 * Rules kept here:
 * - bwrap is run by the absolute path the caller gives, never looked up on PATH.
 * - Every namespace but the network (network = open) is unshared, the user namespace too
 *   (root is mapped to 0, with --cap-drop ALL: no capability in the host's namespace);
 *   --die-with-parent always.
 * - tmp = private is a fresh 0700 tmpfs on /tmp: the host's /tmp (tmux and X11 sockets,
 *   other commands' files) is never visible, and nothing is left behind, even on SIGKILL.
 *   It and /dev/shm have the spec's size (a full one is ENOSPC for that command only);
 *   /dev itself is remounted read-only, so nothing else there can be filled.
 * - The kernel knobs (/proc/sys, /proc/sysrq-trigger, ...: runc's read-only and masked
 *   paths) are mounted after every grant and deny, so no grant re-opens them.
 * - Mount order is the spec's (shallow first, a deny after the grant it narrows); every
 *   hidden directory is remounted read-only after everything beneath it is mounted, so a
 *   write into it fails instead of vanishing with the sandbox.
 * - The stage and the marker are mounted last, so no grant or deny can hide or replace them
 *   (the stage only when the mounts do not already show it read-only as on the host).
 * - With spec.stage_mounts (root), the masks and read-only self-binds the plan marked
 *   stage_ok and that no later mount bwrap makes overlaps, the marker and /dev's read-only
 *   remount are the stage's (stage_mounts.h: bwrap 0.8 re-reads the whole mount table after
 *   each bind or remount); it makes them after bwrap's mounts, in the same order, holding
 *   CAP_SYS_ADMIN (--cap-add) until it drops every capability.
 * - A write grant is bound from the descriptor the caller opened and checked (--bind-fd),
 *   when it gives one: a grant's path may lie where another sandbox writes, which can turn
 *   it into a link to ~ between the check and bwrap's mount (bwrap then dies, "Race
 *   detected", rather than bind what is at the path by then).
 */
#include "platform/sandbox.h"

#include "platform/buf.h"
#include "platform/linux/canon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sbx_mounts_release(struct sbx_mounts *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].src);
		free(m->v[i].dst);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}

int sbx_mounts_add(struct sbx_mounts *m, enum sbx_mount_op op, const char *src, const char *dst)
{
	struct sbx_mount *v = array_grow(m->v, &m->cap, m->n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	m->v = v;
	struct sbx_mount *e = &m->v[m->n];
	e->op = op;
	e->src = src ? strdup(src) : NULL;
	e->dst = strdup(dst);
	e->stage_ok = false;
	if ((src && !e->src) || !e->dst) {
		free(e->src);
		free(e->dst);
		return -ENOMEM;
	}
	m->n++;
	return 0;
}

void sandbox_spec_release(struct sandbox_spec *s)
{
	sbx_mounts_release(&s->mounts);
	sbx_mounts_release(&s->kernel);
	free(s->cwd);
	free(s->stage);
	free(s->marker);
	free(s->inner_shell);
	free(s->profile_name);
	free(s->tmp_host);
	strv_release(&s->env_unset);
	strv_release(&s->env_set);
	memset(s, 0, sizeof(*s));
	s->stage_fd = -1;
}

static bool data_op(enum sbx_mount_op op)
{
	return op == SBX_M_HIDE_FILE || op == SBX_M_DATA_FILE;
}

/* Which mounts the stage makes (spec.stage_mounts): m[i] for mounts.v[i], k[i] for
 * kernel.v[i]; marker, dev_ro; any: the stage has something to mount. */
struct staging {
	bool *m, *k;
	bool marker, dev_ro, any;
};

static bool overlap(const char *a, const char *b)
{
	return canon_under(a, b) || canon_under(b, a);
}

static bool stage_kind(const struct sbx_mount *e)
{
	return e->stage_ok && (e->op == SBX_M_HIDE_FILE || e->op == SBX_M_HIDE_DIR ||
			       (e->op == SBX_M_RO_BIND && e->src && strcmp(e->src, e->dst) == 0));
}

static void staging_release(struct staging *g)
{
	free(g->m);
	free(g->k);
	memset(g, 0, sizeof(*g));
}

/* The stage mounts after bwrap: a mount is its only if every later mount overlapping it
 * (at, above or beneath its path) is the stage's too, so the order of overlapping mounts
 * stays the spec's. The marker is the stage's where the mounts show it as on the host
 * (marker_shown) and no hidden directory holds it (else bwrap makes the file), and the
 * stage's bind (when bwrap makes one) is bwrap's. 0 or -ENOMEM. */
static int staging(const struct sandbox_spec *s, struct staging *g)
{
	size_t nm = s->mounts.n, n = nm + s->kernel.n;

	memset(g, 0, sizeof(*g));
	if (!(g->m = calloc(nm + 1, sizeof(bool))) ||
	    !(g->k = calloc(s->kernel.n + 1, sizeof(bool)))) {
		staging_release(g);
		return -ENOMEM;
	}
	if (!s->stage_mounts)
		return 0;
	g->marker = s->marker && s->marker_shown;
	for (size_t i = 0; g->marker && i < n; i++) {
		const struct sbx_mount *e = i < nm ? &s->mounts.v[i] : &s->kernel.v[i - nm];
		g->marker = !(e->op == SBX_M_HIDE_DIR && canon_under(s->marker, e->dst));
	}
	for (size_t i = n; i-- > 0;) {
		const struct sbx_mount *e = i < nm ? &s->mounts.v[i] : &s->kernel.v[i - nm];
		bool ok = stage_kind(e) && !(!s->stage_shown && overlap(s->stage, e->dst)) &&
			  !(s->marker && !g->marker && overlap(s->marker, e->dst));
		for (size_t j = i + 1; ok && j < n; j++) {
			const struct sbx_mount *l = j < nm ? &s->mounts.v[j] : &s->kernel.v[j - nm];
			ok = !overlap(l->dst, e->dst) || (j < nm ? g->m[j] : g->k[j - nm]);
		}
		*(i < nm ? &g->m[i] : &g->k[i - nm]) = ok;
		g->any |= ok;
	}
	g->dev_ro = s->shm_size != 0;
	g->any |= g->marker || g->dev_ro;
	return 0;
}

/* Whether bwrap reads data for mount i of list l (0: mounts, 1: kernel). */
static bool bwrap_data(const struct staging *g, const struct sbx_mount *m, size_t l, size_t i)
{
	return data_op(m->op) && !(l ? g->k[i] : g->m[i]);
}

/* The marker is bwrap's: no stage mounts, or a hidden directory holds it. */
static bool marker_by_bwrap(const struct sandbox_spec *s, const struct staging *g)
{
	return s->marker && !g->marker;
}

bool sandbox_data_marker(const struct sandbox_spec *s)
{
	struct staging g;
	bool r;

	if (staging(s, &g) < 0)
		return s->marker != NULL;
	r = marker_by_bwrap(s, &g);
	staging_release(&g);
	return r;
}

size_t sandbox_data_fds(const struct sandbox_spec *s)
{
	struct staging g;
	size_t n;

	if (staging(s, &g) < 0)
		return 0;
	n = marker_by_bwrap(s, &g);
	for (size_t i = 0; i < s->mounts.n; i++)
		n += bwrap_data(&g, &s->mounts.v[i], 0, i);
	for (size_t i = 0; i < s->kernel.n; i++)
		n += bwrap_data(&g, &s->kernel.v[i], 1, i);
	staging_release(&g);
	return n;
}

const char *sandbox_data_text(const struct sandbox_spec *s, size_t i)
{
	const struct sbx_mounts *lists[] = {&s->mounts, &s->kernel};
	const char *t = NULL;
	struct staging g;
	size_t k;

	if (staging(s, &g) < 0)
		return NULL;
	k = marker_by_bwrap(s, &g);
	for (size_t l = 0; !t && (k == 0 || i != 0) && l < 2; l++)
		for (size_t j = 0; !t && j < lists[l]->n; j++) {
			const struct sbx_mount *m = &lists[l]->v[j];
			if (bwrap_data(&g, m, l, j) && k++ == i)
				t = m->op == SBX_M_DATA_FILE && m->src ? m->src : "";
		}
	staging_release(&g);
	return t;
}

char *sandbox_marker_format(const char *inner_shell, const char *profile_name)
{
	char *t = NULL;
	if (asprintf(&t, SBX_MARKER_MAGIC "1\ninner_shell=%s\nprofile=%s\n", inner_shell,
		     profile_name ? profile_name : "") < 0)
		return NULL;
	return t;
}

char *sandbox_marker_text(const struct sandbox_spec *s)
{
	return sandbox_marker_format(s->inner_shell, s->profile_name);
}

static int push_ns(const struct sandbox_spec *s, const struct staging *g, const char *bwrap,
		   struct strv *out)
{
	int r = strv_pushl(out, bwrap, "--die-with-parent", "--as-pid-1", NULL);
	if (r == 0 && s->unshare_user)
		r = strv_push(out, "--unshare-user");
	if (r == 0 && s->unshare_user && s->root)
		r = strv_pushl(out, "--uid", "0", "--gid", "0", NULL);
	if (r == 0 && (s->root || !s->unshare_user))
		/* As root, CAP_SETPCAP is kept for the stage alone: it empties the bounding set
		 * with it, then drops it with the rest before the shell runs. */
		r = strv_pushl(out, "--cap-drop", "ALL", "--cap-add", "CAP_SETPCAP", NULL);
	/* The stage's own mounts (staging): it drops this one with the rest before the shell. */
	if (r == 0 && g->any)
		r = strv_pushl(out, "--cap-add", "CAP_SYS_ADMIN", NULL);
	if (r == 0)
		r = strv_pushl(out, "--unshare-pid", "--unshare-ipc", "--unshare-uts",
			       "--unshare-cgroup-try", NULL);
	if (r == 0 && s->unshare_net)
		r = strv_push(out, "--unshare-net");
	if (r == 0 && s->new_session)
		r = strv_push(out, "--new-session");
	return r;
}

/* /dev, /proc and /tmp: right after the root's own mount (if "/" is granted), before any
 * deeper grant, so a grant under /tmp lands on the private TMPDIR's view. */
/* --size BYTES for the next --tmpfs (none for 0: a hand-made spec). */
static int push_size(unsigned long long bytes, struct strv *out)
{
	int r = bytes ? strv_push(out, "--size") : 0;
	return r == 0 && bytes ? strv_pushf(out, "%llu", bytes) : r;
}

static int push_base(const struct sandbox_spec *s, struct strv *out)
{
	int r = strv_pushl(out, "--dev", "/dev", NULL);
	/* bwrap's /dev is one tmpfs of half the memory; /dev/shm gets its own, of shm_size
	 * (and /dev is remounted read-only at the end). */
	if (r == 0 && s->shm_size)
		r = push_size(s->shm_size, out);
	if (r == 0 && s->shm_size)
		r = strv_pushl(out, "--perms", "1777", "--tmpfs", "/dev/shm", NULL);
	if (r == 0)
		r = strv_pushl(out, "--proc", "/proc", NULL);
	/* The private TMPDIR is a fresh tmpfs: nobody else's, gone with the sandbox, and no
	 * host directory to make or remove (an rmdir on a discard-mounted disk costs I/O). */
	if (r == 0 && s->tmp_private)
		r = strv_pushl(out, "--perms", "0700", NULL);
	if (r == 0 && s->tmp_private)
		r = push_size(s->tmp_size, out);
	if (r == 0)
		r = s->tmp_private ? strv_pushl(out, "--tmpfs", "/tmp", NULL)
				   : strv_pushl(out, "--bind", "/tmp", "/tmp", NULL);
	return r;
}

static int push_mount(const struct sbx_mount *m, const int *data_fds, size_t *di,
		      const int *bind_fds, size_t *bi, struct strv *out)
{
	int r;

	switch (m->op) {
	case SBX_M_RO_BIND:
		return strv_pushl(out, "--ro-bind", m->src, m->dst, NULL);
	case SBX_M_BIND:
		if (!bind_fds)
			return strv_pushl(out, "--bind", m->src, m->dst, NULL);
		r = strv_pushl(out, "--bind-fd", NULL);
		if (r == 0)
			r = strv_pushf(out, "%d", bind_fds[(*bi)++]);
		return r ? r : strv_push(out, m->dst);
	case SBX_M_HIDE_DIR:
		return strv_pushl(out, "--tmpfs", m->dst, NULL);
	case SBX_M_HIDE_FILE:
	case SBX_M_DATA_FILE:
		r = strv_push(out, "--ro-bind-data");
		if (r == 0)
			r = strv_pushf(out, "%d", data_fds[(*di)++]);
		return r ? r : strv_push(out, m->dst);
	case SBX_M_SYMLINK:
		return strv_pushl(out, "--symlink", m->src, m->dst, NULL);
	}
	return -EINVAL;
}

static int push_mounts(const struct sandbox_spec *s, const struct staging *g, const int *data_fds,
		       struct strv *out)
{
	bool by_bwrap = marker_by_bwrap(s, g);
	size_t di = by_bwrap ? 1 : 0, bi = 0, i = 0;
	int r = 0;

	if (s->mounts.n && strcmp(s->mounts.v[0].dst, "/") == 0)
		r = push_mount(&s->mounts.v[i++], data_fds, &di, s->bind_fds, &bi, out);
	if (r == 0)
		r = push_base(s, out);
	for (; r == 0 && i < s->mounts.n; i++)
		if (!g->m[i])
			r = push_mount(&s->mounts.v[i], data_fds, &di, s->bind_fds, &bi, out);
	/* the kernel knobs are never bound writable */
	for (i = 0; r == 0 && i < s->kernel.n; i++)
		if (!g->k[i])
			r = push_mount(&s->kernel.v[i], data_fds, &di, NULL, &bi, out);
	if (r == 0 && !s->stage_shown)
		r = strv_pushl(out, "--ro-bind", s->stage, s->stage, NULL);
	if (r == 0 && by_bwrap)
		r = strv_push(out, "--ro-bind-data");
	if (r == 0 && by_bwrap)
		r = strv_pushf(out, "%d", data_fds[0]);
	if (r == 0 && by_bwrap)
		r = strv_push(out, s->marker);
	for (i = 0; r == 0 && i < s->mounts.n; i++)
		if (s->mounts.v[i].op == SBX_M_HIDE_DIR && !g->m[i])
			r = strv_pushl(out, "--remount-ro", s->mounts.v[i].dst, NULL);
	for (i = 0; r == 0 && i < s->kernel.n; i++)
		if (s->kernel.v[i].op == SBX_M_HIDE_DIR && !g->k[i])
			r = strv_pushl(out, "--remount-ro", s->kernel.v[i].dst, NULL);
	if (r == 0 && s->shm_size && !g->dev_ro)
		r = strv_pushl(out, "--remount-ro", "/dev", NULL);
	return r;
}

/* The stage's own mounts, in the spec's order (stage_main.c, stage_mounts.h). */
static int push_stage_mounts(const struct sandbox_spec *s, const struct staging *g,
			     struct strv *out)
{
	const struct sbx_mounts *lists[] = {&s->mounts, &s->kernel};
	int r = 0;

	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; r == 0 && i < lists[l]->n; i++) {
			const struct sbx_mount *m = &lists[l]->v[i];
			if (!(l ? g->k[i] : g->m[i]))
				continue;
			r = strv_pushf(out, "--%s=%s",
				       m->op == SBX_M_HIDE_FILE	 ? "mask-file"
				       : m->op == SBX_M_HIDE_DIR ? "mask-dir"
								 : "ro",
				       m->dst);
		}
	if (r == 0 && g->marker)
		r = strv_pushf(out, "--marker=%s", s->marker);
	if (r == 0 && g->marker)
		r = strv_pushf(out, "--profile=%s", s->profile_name ? s->profile_name : "");
	if (r == 0 && g->dev_ro)
		r = strv_push(out, "--dev-ro");
	return r;
}

static int push_env(const struct sandbox_spec *s, struct strv *out)
{
	int r = s->host_env
		    ? 0
		    : strv_pushl(out, "--setenv", "SBXSH_SANDBOX", "1", "--setenv", "SBXSH_PROFILE",
				 s->profile_name ? s->profile_name : "[default]", NULL);
	for (const char *const *t = (const char *const[]){"TMPDIR", "TMP", "TEMP", NULL};
	     r == 0 && s->tmp_private && *t; t++)
		if (!s->host_env || getenv(*t))
			r = strv_pushl(out, "--setenv", *t, "/tmp", NULL);
	if (r == 0 && s->git_discovery && !s->host_env)
		r = strv_pushl(out, "--setenv", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "1", NULL);
	for (size_t i = 0; r == 0 && i < s->env_unset.n; i++)
		r = strv_pushl(out, "--unsetenv", s->env_unset.v[i], NULL);
	for (size_t i = 0; r == 0 && !s->host_env && i < s->env_set.n; i++) {
		const char *kv = s->env_set.v[i], *eq = strchr(kv, '=');
		if (!eq || eq == kv)
			continue; /* sandbox_plan refuses these; never pass half a pair */
		char *name = strndup(kv, (size_t)(eq - kv));
		r = name ? strv_pushl(out, "--setenv", name, eq + 1, NULL) : -ENOMEM;
		free(name);
	}
	return r;
}

int sandbox_argv(const struct sandbox_spec *s, const char *bwrap, const int *data_fds,
		 char *const *shell_argv, struct strv *out)
{
	struct staging g;
	int r = staging(s, &g);

	if (r == 0)
		r = push_ns(s, &g, bwrap, out);
	if (r == 0)
		r = push_mounts(s, &g, data_fds, out);
	if (r == 0)
		r = strv_pushl(out, "--chdir", s->cwd, NULL);
	if (r == 0)
		r = push_env(s, out);
	if (r == 0)
		r = strv_pushl(out, "--", s->stage, NULL);
	if (r == 0)
		r = strv_pushf(out, "--fd=%d", s->stage_fd);
	if (r == 0)
		r = push_stage_mounts(s, &g, out);
	staging_release(&g);
	if (r == 0 && s->unix_all)
		r = strv_push(out, "--unix-all");
	if (r == 0 && s->pty)
		r = strv_push(out, "--ctty");
	if (r == 0 && s->keep_shell)
		r = strv_push(out, "--keep-shell");
	if (r == 0 && s->chld_ignored)
		r = strv_push(out, "--chld-ign");
	if (r == 0 && s->caller_blocked)
		r = strv_pushf(out, "--blocked=%u", s->caller_blocked);
	if (r == 0 && s->net_proxy)
		r = strv_push(out, "--net");
	for (size_t i = 0; r == 0 && s->net_proxy && i < s->net_nreach; i++)
		r = strv_pushf(out, "--reach=%u", (unsigned)s->net_reach[i]);
	if (r == 0 && s->net_proxy && s->net_relay)
		r = strv_push(out, "--relay");
	if (r == 0 && s->argv_fd > 0)
		r = strv_pushf(out, "--argv-fd=%d", s->argv_fd);
	if (r == 0)
		r = strv_pushl(out, "--", s->inner_shell, NULL);
	/* argv[0] always; the rest here or in argv_fd */
	for (size_t i = 0; r == 0 && shell_argv && shell_argv[i] && (i == 0 || s->argv_fd <= 0);
	     i++)
		r = strv_push(out, shell_argv[i]);
	return r;
}
