/* policy_load — the policy's layers: embedded default, system files, user files.
 *
 * Rules kept: a file is opened once (O_NOFOLLOW, O_NONBLOCK so a FIFO cannot hang us) and
 * every check — regular file, owner, no group/other write — is made on that descriptor
 * before a byte is parsed; any error in any layer fails the whole load (no partial policy);
 * --config / SBXSH_CONFIG replace only the user layer, never for a login shell, and never
 * when the system says user_config = no.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "platform/buf.h"
#include "shell/policy_impl.h"

#define POLICY_MAX_SIZE (1 << 20)

static int fail_file(struct diag *d, const char *path, int r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_file(struct diag *d, const char *path, int r, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0 || policy_diag(&d->errors, path, 0, "%s", msg) < 0)
		r = -ENOMEM;
	free(msg);
	return r;
}

/* Checks the open descriptor: type, owner, mode. */
static int check_fd(int fd, const char *path, bool user, uid_t owner, struct diag *d)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return fail_file(d, path, -errno, "cannot stat: %s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return fail_file(d, path, -EISDIR,
				 "is a directory; a policy file must be a regular file");
	if (!S_ISREG(st.st_mode))
		return fail_file(d, path, -EINVAL,
				 "is not a regular file (a FIFO, socket or device); a policy file "
				 "must be a regular file");
	if (st.st_uid != owner) {
		if (user)
			return fail_file(d, path, -EPERM,
					 "is owned by uid %u, not by you (uid %u); a user policy "
					 "file must be yours: chown %u '%s'",
					 (unsigned)st.st_uid, (unsigned)owner, (unsigned)owner,
					 path);
		return fail_file(
		    d, path, -EPERM,
		    "is owned by uid %u; a system policy file must be owned by %s: chown %u '%s'",
		    (unsigned)st.st_uid, owner == 0 ? "root" : "its administrator", (unsigned)owner,
		    path);
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return fail_file(d, path, -EPERM,
				 "is writable by group or others; run: chmod go-w '%s'", path);
	if (st.st_size > POLICY_MAX_SIZE)
		return fail_file(d, path, -EFBIG, "is larger than %d bytes", POLICY_MAX_SIZE);
	return 0;
}

static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = 8192, n = 0;
	char *b = malloc(cap);
	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (cap >= POLICY_MAX_SIZE + 1) {
				free(b);
				return -EFBIG;
			}
			char *nb = array_grow(b, &cap, cap + 1, 1);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = -errno;
			free(b);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* Loads one file. optional: a missing file is not an error. */
static int load_file(struct policy *p, const char *path, bool user, bool optional,
		     const struct policy_opts *o, struct diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	int r;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT && optional)
			return 0;
		if (errno == ELOOP)
			return fail_file(d, path, -ELOOP,
					 "is a symbolic link; sbxsh reads policy files only "
					 "directly (replace the link with the file)");
		return fail_file(d, path, -errno, "cannot open: %s%s", strerror(errno),
				 errno == ENOENT   ? " (check the path)"
				 : errno == EACCES ? "; check its permissions"
						   : "");
	}
	r = check_fd(fd, path, user, user ? getuid() : o->sys_owner, d);
	if (r < 0)
		goto out;
	r = read_all(fd, &buf, &len);
	if (r < 0) {
		r = fail_file(d, path, r, "cannot read: %s", strerror(-r));
		goto out;
	}
	r = policy_parse_buffer(p, buf, len, path, user, d);
out:
	free(buf);
	close(fd);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Loads dir/conf.d/ *.ini in name order (a missing conf.d is fine). */
static int load_confd(struct policy *p, const char *dir, bool user, const struct policy_opts *o,
		      struct diag *d)
{
	struct strv names = {0};
	char path[4096];
	int r = 0;
	snprintf(path, sizeof(path), "%s/conf.d", dir);
	DIR *dd = opendir(path);
	if (!dd)
		return errno == ENOENT || errno == ENOTDIR
			   ? 0
			   : fail_file(d, path, -errno, "cannot open directory: %s",
				       strerror(errno));
	struct dirent *e;
	while ((e = readdir(dd))) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] != '.' && n > 4 && strcmp(e->d_name + n - 4, ".ini") == 0 &&
		    (r = strv_push(&names, e->d_name)) < 0)
			break;
	}
	closedir(dd);
	if (names.n)
		qsort(names.v, names.n, sizeof(char *), cmp_str);
	for (size_t i = 0; r == 0 && i < names.n; i++) {
		snprintf(path, sizeof(path), "%s/conf.d/%s", dir, names.v[i]);
		r = load_file(p, path, user, false, o, d);
	}
	strv_release(&names);
	return r;
}

static char *home_dir(const struct policy_opts *o)
{
	const char *h = o->home ? o->home : getenv("HOME");
	if (h && h[0] == '/')
		return strdup(h);
	struct passwd *pw = getpwuid(getuid());
	return strdup(pw && pw->pw_dir ? pw->pw_dir : "/");
}

/* The password database's home, when it is another directory than home (HOME pointing
 * elsewhere): deny_read hides its credential stores too. NULL when the caller named the
 * home (tests) or either cannot be resolved. */
static char *pw_home_dir(const struct policy_opts *o, const char *home)
{
	struct passwd *pw = o->home ? NULL : getpwuid(getuid());
	char *a = NULL, *b = NULL;

	if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/' || !(b = realpath(pw->pw_dir, NULL)))
		return NULL;
	a = realpath(home, NULL);
	if (strcmp(b, "/") == 0 || (a && strcmp(a, b) == 0)) { /* "/": no home at all */
		free(b);
		b = NULL;
	}
	free(a);
	return b;
}

/* The embedded default: its sections, as policygen made them at build time. */
int policy_load_builtin(struct policy *p)
{
	if (!policy_intern(p, policy_embedded_file))
		return -ENOMEM;
	p->nsys = p->files.n;
	struct section *ns =
	    array_grow(p->secs, &p->cap, p->nsecs + policy_default_nsecs, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	p->secs = ns;
	memcpy(p->secs + p->nsecs, policy_default_secs, policy_default_nsecs * sizeof(*p->secs));
	p->nsecs += policy_default_nsecs;
	return 0;
}

static int policy_new(struct policy **out, const struct policy_opts *o, struct diag *d)
{
	struct policy *p = calloc(1, sizeof(*p));
	*out = NULL;
	if (!p || !(p->home = home_dir(o))) {
		free(p);
		return -ENOMEM;
	}
	p->pw_home = pw_home_dir(o, p->home);
	*out = p;
	p->quiet_no_project = o->quiet_no_project;
	if (o->preset && *o->preset && !(p->preset = strdup(o->preset)))
		return -ENOMEM;
	for (size_t i = 0; i < o->nextra_write; i++)
		if (strv_push(&p->extra_write, o->extra_write[i]) < 0)
			return -ENOMEM;
	if (o->nextra_write &&
	    !(p->extra_origin = strdup(o->extra_origin ? o->extra_origin : "sbxsh")))
		return -ENOMEM;
	(void)d; /* the embedded default was checked when sbxsh was built (policygen) */
	return policy_load_builtin(p);
}

/* true when the system layers say user_config = no ([sbxsh] or [limits]). */
static bool users_allowed(const struct policy *p)
{
	bool allowed = true;
	for (size_t i = 0; i < p->nsecs; i++) {
		const struct section *s = &p->secs[i];
		for (size_t j = 0; j < s->nops; j++)
			if (s->ops[j].key == K_USER_CONFIG && !s->user)
				allowed = policy_bool(s->ops[j].tokens.v[0]) == 1;
	}
	return allowed;
}

static int load_user(struct policy *p, const struct policy_opts *o, struct diag *d)
{
	char dir[4096], path[4200];
	int r;
	if (o->user_config && !o->login) {
		if (!(p->user_file = strdup(o->user_config)))
			return -ENOMEM;
		return load_file(p, o->user_config, true, false, o, d);
	}
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (xdg && xdg[0] == '/')
		snprintf(dir, sizeof(dir), "%s/sbxsh", xdg);
	else
		snprintf(dir, sizeof(dir), "%s/.config/sbxsh", p->home);
	snprintf(path, sizeof(path), "%s/sbxsh.ini", dir);
	if (!(p->user_file = strdup(path)))
		return -ENOMEM;
	if ((r = load_file(p, path, true, true, o, d)) < 0)
		return r;
	return load_confd(p, dir, true, o, d);
}

/* A load's last step: p (when r is 0) finished and handed to *out, else freed. */
static int hand_over(struct policy *p, int r, struct policy **out, struct diag *d)
{
	if (r == 0)
		r = policy_finish(p, d);
	if (r == 0)
		*out = p;
	else
		policy_free(p);
	return r;
}

int policy_load(struct policy **out, const struct policy_opts *o, struct diag *d)
{
	struct policy *p = NULL;
	char dir[4096], path[4200];
	int r;

	*out = NULL;
	snprintf(dir, sizeof(dir), "%s/sbxsh", o->sysconfdir ? o->sysconfdir : SBX_SYSCONFDIR);
	snprintf(path, sizeof(path), "%s/sbxsh.ini", dir);
	if ((r = policy_new(&p, o, d)) < 0)
		goto out;
	if ((r = load_file(p, path, false, true, o, d)) < 0)
		goto out;
	if ((r = load_confd(p, dir, false, o, d)) < 0)
		goto out;
	if (!o->no_user && users_allowed(p))
		r = load_user(p, o, d);
out:
	return hand_over(p, r, out, d);
}

int policy_load_string(struct policy **out, const char *buf, size_t len, const char *name,
		       const struct policy_opts *o, struct diag *d)
{
	struct policy *p = NULL;
	int r;
	*out = NULL;
	if ((r = policy_new(&p, o, d)) == 0)
		r = policy_parse_buffer(p, buf, len, name, true, d);
	return hand_over(p, r, out, d);
}

int policy_check_files(char *const *files, size_t n, const struct policy_opts *o, struct diag *d)
{
	struct policy *p = NULL;
	int r = policy_new(&p, o, d), bad = r;
	for (size_t i = 0; r == 0 && i < n; i++) {
		int e = load_file(p, files[i], true, false, o, d);
		if (e == -ENOMEM)
			r = e;
		else if (e < 0)
			bad = e;
	}
	if (r == 0 && bad == 0)
		r = policy_finish(p, d);
	policy_free(p);
	return r ? r : bad;
}

const struct settings *policy_settings(const struct policy *p)
{
	return &p->set;
}

void policy_free(struct policy *p)
{
	if (!p)
		return;
	policy_sections_free(p);
	strv_release(&p->files);
	free(p->set.inner_shell);
	free(p->set.prompt_marker);
	free(p->set.bwrap);
	free(p->set.log);
	policy_list_release(&p->set.root_markers);
	free(p->home);
	free(p->pw_home);
	free(p->user_file);
	free(p->preset);
	free(p->extra_origin);
	strv_release(&p->extra_write);
	free(p);
}

void diag_release(struct diag *d)
{
	strv_release(&d->errors);
	strv_release(&d->warnings);
}
