/* pam_sbxsh — a PAM session module: the login's session daemon starts with the login and stops
 * with it (pam_sbxsh(8)).
 *
 * Rules kept here:
 * - the calling process is sshd's privileged monitor (or login, su): nothing here changes its
 *   credentials, namespaces, seccomp state, signal dispositions or mask. Everything done as
 *   the user happens in a forked child that drops to the user's uid, gid and groups and
 *   execs sbxsh by absolute path with a fresh environment;
 * - the child is waited for by pid, bounded by timeout=; a caller that reaps it first (its
 *   own SIGCHLD handler) only costs the status, never a hang;
 * - never abort, never exit: an error is logged through pam_syslog and the session goes on
 *   (PAM_IGNORE) unless the `required` option asks to fail it.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "platform/fds.h"
#include "platform/proc.h"
#include "paths.h"

#define PAM_SBX_DATA "pam_sbxsh.session"
#define ID_MAX	     64
#define OUT_MAX	     512
#define PAM_SBX_API  __attribute__((visibility("default")))

struct pam_opts {
	bool required, debug;
	const char *sbxsh;  /* the sbxsh binary, absolute */
	const char *config; /* SBXSH_CONFIG for the daemon's settings, or NULL */
	int timeout;	    /* seconds for `sbxsh session start|stop` */
};

struct target {
	uid_t uid;
	gid_t gid;
	char name[256], home[1024];
	gid_t groups[256]; /* looked up before fork: NSS is no business of a forked child */
	int ngroups;
};

/* Returns 0, or -EINVAL for an option it does not know (logged by the caller). */
static int parse_opts(pam_handle_t *pamh, int argc, const char **argv, struct pam_opts *o)
{
	o->required = o->debug = false;
	o->sbxsh = SBX_BINDIR "/sbxsh";
	o->config = NULL;
	o->timeout = 10;
	int rc = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "required") == 0) {
			o->required = true;
		} else if (strcmp(a, "debug") == 0) {
			o->debug = true;
		} else if (strncmp(a, "sbxsh=", 6) == 0 && a[6] == '/') {
			o->sbxsh = a + 6;
		} else if (strncmp(a, "config=", 7) == 0 && a[7] == '/') {
			o->config = a + 7;
		} else if (strncmp(a, "timeout=", 8) == 0 && atoi(a + 8) > 0 &&
			   atoi(a + 8) <= 300) {
			o->timeout = atoi(a + 8);
		} else {
			pam_syslog(pamh, LOG_ERR,
				   "unknown option '%s' (options: required debug sbxsh=/PATH "
				   "config=/PATH timeout=1..300)",
				   a);
			rc = -EINVAL;
		}
	}
	return rc;
}

static int valid_id(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > ID_MAX || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

/* The session id sbxsh will compute in this login: the audit session (set by pam_loginuid,
 * inherited by every process of the login), else a SBXSH_SESSION already in the PAM
 * environment, else a fresh random one. */
static int choose_id(pam_handle_t *pamh, char id[ID_MAX + 1])
{
	unsigned char r[8];
	const char *env = pam_getenv(pamh, "SBXSH_SESSION");
	unsigned long sid = proc_login_session(0);

	if (sid) {
		snprintf(id, ID_MAX + 1, "audit-%lu", sid);
		return 0;
	}
	if (env && valid_id(env)) {
		snprintf(id, ID_MAX + 1, "%s", env);
		return 0;
	}
	if (getentropy(r, sizeof(r)) != 0)
		return -EIO;
	snprintf(id, ID_MAX + 1, "pam-%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3],
		 r[4], r[5], r[6], r[7]);
	return 0;
}

static int get_target(pam_handle_t *pamh, struct target *t)
{
	const char *user = NULL;
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || !user || !*user) {
		pam_syslog(pamh, LOG_ERR, "no user name");
		return -EINVAL;
	}
	if (getpwnam_r(user, &pw, buf, sizeof(buf), &res) != 0 || !res) {
		pam_syslog(pamh, LOG_ERR, "user '%s' is not in the passwd database", user);
		return -ENOENT;
	}
	t->uid = pw.pw_uid;
	t->gid = pw.pw_gid;
	snprintf(t->name, sizeof(t->name), "%s", pw.pw_name);
	snprintf(t->home, sizeof(t->home), "%s",
		 pw.pw_dir && pw.pw_dir[0] == '/' ? pw.pw_dir : "/");
	t->ngroups = (int)(sizeof(t->groups) / sizeof(t->groups[0]));
	if (getgrouplist(t->name, t->gid, t->groups, &t->ngroups) < 0) {
		pam_syslog(pamh, LOG_ERR, "user '%s' is in more than %zu groups", user,
			   sizeof(t->groups) / sizeof(t->groups[0]));
		return -E2BIG;
	}
	return 0;
}

/* The child: becomes the user, then sbxsh. Never returns. */
static _Noreturn void child_exec(const struct target *t, const struct pam_opts *o, int out,
				 char *const argv[], char *const envp[])
{
	sigset_t none;
	int null = open("/dev/null", O_RDWR);

	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL); /* fails harmlessly for KILL, STOP and the RT ones libc keeps */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(126);
	proc_oom_unprotect(); /* sshd runs OOM-exempt; the user's daemon must not */
	sbx_close_from(3);
	if (geteuid() == 0) {
		if (setgroups((size_t)t->ngroups, t->groups) < 0 || setgid(t->gid) < 0 ||
		    setuid(t->uid) < 0) {
			dprintf(2, "cannot become %s (uid %u): %s\n", t->name, (unsigned)t->uid,
				strerror(errno));
			_exit(126);
		}
	}
	if (getuid() != t->uid || geteuid() != t->uid || getgid() != t->gid) {
		dprintf(2,
			"running as uid %u, not as %s (uid %u): the module needs root or the "
			"user itself\n",
			(unsigned)getuid(), t->name, (unsigned)t->uid);
		_exit(126);
	}
	if (chdir(t->home) < 0 && chdir("/") < 0)
		_exit(126);
	execve(o->sbxsh, argv, envp);
	dprintf(2, "cannot run %s: %s\n", o->sbxsh, strerror(errno));
	_exit(127);
}

/* Reads the child's output until EOF or the deadline (ms, CLOCK_MONOTONIC). */
static void read_output(int fd, char *buf, size_t size, long long deadline)
{
	size_t n = 0;

	for (;;) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		long long left = deadline - (ts.tv_sec * 1000LL + ts.tv_nsec / 1000000);
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (left <= 0)
			break;
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		char tmp[256];
		ssize_t k = read(fd, tmp, sizeof(tmp));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		for (ssize_t i = 0; i < k && n + 1 < size; i++)
			buf[n++] = tmp[i] == '\n' ? ' ' : tmp[i];
	}
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
}

/* Waits for pid by pid. Returns its exit status, 128+signal, or -1 when the caller's own
 * handler reaped it (ECHILD) or it did not end in time (then it is killed). */
static int wait_child(pid_t pid, long long deadline)
{
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (r < 0 && errno != EINTR)
			return -1;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ts.tv_sec * 1000LL + ts.tv_nsec / 1000000 >= deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	}
}

static int env_add(char **envp, size_t *n, const char *k, const char *v)
{
	if (!v || asprintf(&envp[*n], "%s=%s", k, v) < 0)
		return v ? -ENOMEM : 0;
	(*n)++;
	return 0;
}

/* Runs `sbxsh session VERB` as the user. Returns sbxsh's exit status (or -1, see
 * wait_child) and its output in out. */
static int run_sbxsh(pam_handle_t *pamh, const struct pam_opts *o, const struct target *t,
		     const char *id, const char *verb, char out[OUT_MAX])
{
	char *argv[] = {(char *)"sbxsh", (char *)"session", (char *)verb, NULL};
	char *envp[10] = {NULL};
	size_t n = 0;
	int p[2] = {-1, -1}, rc = -1;
	struct timespec ts;
	pid_t pid;

	snprintf(out, OUT_MAX, "out of memory");
	if (env_add(envp, &n, "HOME", t->home) < 0 || env_add(envp, &n, "USER", t->name) < 0 ||
	    env_add(envp, &n, "LOGNAME", t->name) < 0 ||
	    env_add(envp, &n, "PATH", "/usr/local/bin:/usr/bin:/bin") < 0 ||
	    env_add(envp, &n, "SBXSH_SESSION", id) < 0 ||
	    env_add(envp, &n, "SBXSH_CONFIG", o->config) < 0 ||
	    env_add(envp, &n, "XDG_RUNTIME_DIR", pam_getenv(pamh, "XDG_RUNTIME_DIR")) < 0 ||
	    env_add(envp, &n, "XDG_STATE_HOME", pam_getenv(pamh, "XDG_STATE_HOME")) < 0)
		goto out;
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(out, OUT_MAX, "pipe: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid == 0)
		child_exec(t, o, p[1], argv, envp);
	close(p[1]);
	p[1] = -1;
	if (pid < 0) {
		snprintf(out, OUT_MAX, "fork: %s", strerror(errno));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	long long deadline = ts.tv_sec * 1000LL + ts.tv_nsec / 1000000 + o->timeout * 1000LL;
	read_output(p[0], out, OUT_MAX, deadline);
	rc = wait_child(pid, deadline);
out:
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	for (size_t i = 0; i < n; i++)
		free(envp[i]);
	return rc;
}

static void free_data(pam_handle_t *pamh, void *data, int status)
{
	(void)pamh;
	(void)status;
	free(data);
}

/* What a failure of this module's own returns: the session goes on unless `required`. */
static int failed(const struct pam_opts *o)
{
	return o->required ? PAM_SESSION_ERR : PAM_IGNORE;
}

static int open_session(pam_handle_t *pamh, const struct pam_opts *o)
{
	struct target t;
	char id[ID_MAX + 1], env[ID_MAX + 32], out[OUT_MAX];
	char *saved;
	int rc;

	if (get_target(pamh, &t) < 0)
		return failed(o);
	if (choose_id(pamh, id) < 0) {
		pam_syslog(pamh, LOG_ERR, "no random bytes for a session id");
		return failed(o);
	}
	snprintf(env, sizeof(env), "SBXSH_SESSION=%s", id);
	if (pam_putenv(pamh, env) != PAM_SUCCESS || !(saved = strdup(id))) {
		pam_syslog(pamh, LOG_ERR, "cannot export SBXSH_SESSION");
		return failed(o);
	}
	if (pam_set_data(pamh, PAM_SBX_DATA, saved, free_data) != PAM_SUCCESS)
		free(saved);
	rc = run_sbxsh(pamh, o, &t, id, "start", out);
	/* The caller's SIGCHLD handler may reap the child: its words still tell. */
	if (rc == 0 || (rc == -1 && strncmp(out, "session ", 8) == 0)) {
		if (o->debug)
			pam_syslog(pamh, LOG_DEBUG, "user %s: %s", t.name, out);
		return PAM_SUCCESS;
	}
	pam_syslog(pamh, LOG_ERR, "user %s, session %s: %s session start %s: %s", t.name, id,
		   o->sbxsh, rc < 0 ? "did not finish" : "failed", out[0] ? out : "(no message)");
	return failed(o);
}

static int close_session(pam_handle_t *pamh, const struct pam_opts *o)
{
	const void *data = NULL;
	const char *id;
	struct target t;
	char out[OUT_MAX];
	int rc;

	if (pam_get_data(pamh, PAM_SBX_DATA, &data) != PAM_SUCCESS || !data)
		data = pam_getenv(pamh, "SBXSH_SESSION");
	id = data;
	if (!id || !valid_id(id)) {
		pam_syslog(pamh, LOG_ERR, "close_session without a session: was open_session run?");
		return failed(o);
	}
	if (get_target(pamh, &t) < 0)
		return failed(o);
	rc = run_sbxsh(pamh, o, &t, id, "stop", out);
	if (rc == 0 || rc == 1 || rc == -1) { /* 1: no daemon ran, nothing to stop */
		if (o->debug)
			pam_syslog(pamh, LOG_DEBUG, "user %s, session %s: stopped%s%s", t.name, id,
				   out[0] ? ": " : "", out);
		return PAM_SUCCESS;
	}
	pam_syslog(pamh, LOG_ERR, "user %s, session %s: %s session stop failed: %s", t.name, id,
		   o->sbxsh, out[0] ? out : "(no message)");
	return failed(o);
}

PAM_SBX_API int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct pam_opts o;

	(void)flags;
	if (parse_opts(pamh, argc, argv, &o) < 0)
		return o.required ? PAM_SESSION_ERR : PAM_IGNORE;
	return open_session(pamh, &o);
}

PAM_SBX_API int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct pam_opts o;

	(void)flags;
	if (parse_opts(pamh, argc, argv, &o) < 0)
		return o.required ? PAM_SESSION_ERR : PAM_IGNORE;
	return close_session(pamh, &o);
}
