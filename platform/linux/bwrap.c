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
 * - A write grant is bound from the descriptor the caller opened and checked (--bind-fd),
 *   when it gives one: a grant's path may lie where another sandbox writes, which can turn
 *   it into a link to ~ between the check and bwrap's mount (bwrap then dies, "Race
 *   detected", rather than bind what is at the path by then).
 */
#include "platform/sandbox.h"

#include "platform/buf.h"

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

size_t sandbox_data_fds(const struct sandbox_spec *s)
{
	size_t n = s->marker ? 1 : 0;
	for (size_t i = 0; i < s->mounts.n; i++)
		n += data_op(s->mounts.v[i].op);
	for (size_t i = 0; i < s->kernel.n; i++)
		n += data_op(s->kernel.v[i].op);
	return n;
}

const char *sandbox_data_text(const struct sandbox_spec *s, size_t i)
{
	const struct sbx_mounts *lists[] = {&s->mounts, &s->kernel};
	size_t k = s->marker ? 1 : 0;

	if (s->marker && i == 0)
		return NULL;
	for (size_t l = 0; l < 2; l++)
		for (size_t j = 0; j < lists[l]->n; j++) {
			const struct sbx_mount *m = &lists[l]->v[j];
			if (!data_op(m->op))
				continue;
			if (k++ == i)
				return m->op == SBX_M_DATA_FILE && m->src ? m->src : "";
		}
	return NULL;
}

char *sandbox_marker_text(const struct sandbox_spec *s)
{
	char *t = NULL;
	if (asprintf(&t, SBX_MARKER_MAGIC "1\ninner_shell=%s\nprofile=%s\n", s->inner_shell,
		     s->profile_name ? s->profile_name : "") < 0)
		return NULL;
	return t;
}

static int push_ns(const struct sandbox_spec *s, const char *bwrap, struct strv *out)
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

static int push_mounts(const struct sandbox_spec *s, const int *data_fds, struct strv *out)
{
	size_t di = s->marker ? 1 : 0, bi = 0, i = 0;
	int r = 0;

	if (s->mounts.n && strcmp(s->mounts.v[0].dst, "/") == 0)
		r = push_mount(&s->mounts.v[i++], data_fds, &di, s->bind_fds, &bi, out);
	if (r == 0)
		r = push_base(s, out);
	for (; r == 0 && i < s->mounts.n; i++)
		r = push_mount(&s->mounts.v[i], data_fds, &di, s->bind_fds, &bi, out);
	/* the kernel knobs are never bound writable */
	for (i = 0; r == 0 && i < s->kernel.n; i++)
		r = push_mount(&s->kernel.v[i], data_fds, &di, NULL, &bi, out);
	if (r == 0 && !s->stage_shown)
		r = strv_pushl(out, "--ro-bind", s->stage, s->stage, NULL);
	if (r == 0 && s->marker)
		r = strv_push(out, "--ro-bind-data");
	if (r == 0 && s->marker)
		r = strv_pushf(out, "%d", data_fds[0]);
	if (r == 0 && s->marker)
		r = strv_push(out, s->marker);
	for (i = 0; r == 0 && i < s->mounts.n; i++)
		if (s->mounts.v[i].op == SBX_M_HIDE_DIR)
			r = strv_pushl(out, "--remount-ro", s->mounts.v[i].dst, NULL);
	for (i = 0; r == 0 && i < s->kernel.n; i++)
		if (s->kernel.v[i].op == SBX_M_HIDE_DIR)
			r = strv_pushl(out, "--remount-ro", s->kernel.v[i].dst, NULL);
	if (r == 0 && s->shm_size)
		r = strv_pushl(out, "--remount-ro", "/dev", NULL);
	return r;
}

static int push_env(const struct sandbox_spec *s, struct strv *out)
{
	int r = strv_pushl(out, "--setenv", "SBXSH_SANDBOX", "1", "--setenv", "SBXSH_PROFILE",
			   s->profile_name ? s->profile_name : "[default]", NULL);
	for (const char *const *t = (const char *const[]){"TMPDIR", "TMP", "TEMP", NULL};
	     r == 0 && s->tmp_private && *t; t++)
		r = strv_pushl(out, "--setenv", *t, "/tmp", NULL);
	if (r == 0 && s->git_discovery)
		r = strv_pushl(out, "--setenv", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "1", NULL);
	for (size_t i = 0; r == 0 && i < s->env_unset.n; i++)
		r = strv_pushl(out, "--unsetenv", s->env_unset.v[i], NULL);
	for (size_t i = 0; r == 0 && i < s->env_set.n; i++) {
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
	int r = push_ns(s, bwrap, out);
	if (r == 0)
		r = push_mounts(s, data_fds, out);
	if (r == 0)
		r = strv_pushl(out, "--chdir", s->cwd, NULL);
	if (r == 0)
		r = push_env(s, out);
	if (r == 0)
		r = strv_pushl(out, "--", s->stage, NULL);
	if (r == 0)
		r = strv_pushf(out, "--fd=%d", s->stage_fd);
	if (r == 0 && s->unix_all)
		r = strv_push(out, "--unix-all");
	if (r == 0 && s->pty)
		r = strv_push(out, "--ctty");
	if (r == 0 && s->keep_shell)
		r = strv_push(out, "--keep-shell");
	if (r == 0 && s->chld_ignored)
		r = strv_push(out, "--chld-ign");
	if (r == 0 && s->net_proxy)
		r = strv_push(out, "--net");
	for (size_t i = 0; r == 0 && s->net_proxy && i < s->net_nreach; i++)
		r = strv_pushf(out, "--reach=%u", (unsigned)s->net_reach[i]);
	if (r == 0 && s->net_proxy && s->net_relay)
		r = strv_push(out, "--relay");
	if (r == 0)
		r = strv_pushl(out, "--", s->inner_shell, NULL);
	for (size_t i = 0; r == 0 && shell_argv && shell_argv[i]; i++)
		r = strv_push(out, shell_argv[i]);
	return r;
}
