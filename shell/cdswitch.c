/* cdswitch — the profile switch on `cd` (docs/sbxsh.1.md, "Profile switch on cd").
 *
 * The channel: a stream socket pair per sandbox; the inner bash (sbxsh.bashrc) holds the inner
 * end, which every command it runs inherits too. Ours has SO_PASSCRED, so each read carries
 * the writer's pid as the kernel saw it (no sandboxed process holds the capability to claim
 * another's). The protocol, shell → front end: "H" once, first thing in the rc (the writer then
 * becomes "the shell": a child of the sandbox's pid 1, nothing else runs yet); "P0" / "P1" at
 * each prompt (1: the shell has jobs); after our 's', its state: bash code, "\0N" and the
 * names of the variables in it, "\0H" and `history N` of the lines typed in it, "\0E". Front end →
 * shell: one byte, 'k' (keep) or 's' (switch: send the state, then exit 0).
 *
 * Rules kept here:
 * - Bytes from any other writer are dropped unread (a command forging "P0" or a state).
 * - The directory is never taken from the shell: the front end reads /proc/<shell>/cwd, and
 *   judges it as `sbxsh -c` started there would (the caller's judge hook). A forged or early
 *   "P0" can only give the sandbox a cd to that directory gives.
 * - The state is code the next shell sources: it comes only from the shell's own writes, goes
 *   to the next sandbox as a sealed memfd (never a file in a directory a sandbox can write),
 *   and the front end adds the new sandbox's own environment after it, so the old profile's
 *   variables (proxy, HISTFILE…) never override the new one's.
 */
#include "shell/cdswitch.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/fdpass.h"
#include "platform/memfile.h"
#include "platform/proc.h"
#include "platform/term.h"
#include "shell/policy.h"
#include "shell/shell.h"

#define STATE_MAX (64u << 20) /* a shell's state beyond this is refused (no switch) */

enum mode { M_IDLE, M_JOBS, M_DUMP, M_DONE };

struct cdsw {
	struct cdsw_hooks h;
	int fd, inner, state_fd;
	bool eof;
	pid_t shell; /* as we see it; 0 until its "H" */
	enum mode mode;
	char *seen, *seen_to; /* the last directory judged, and its verdict */
	int seen_v;
	char *told;   /* the directory a reason to keep was given for */
	char *target; /* the switch's directory */
	char *buf;    /* the state as it comes */
	size_t len, cap;
	bool overflow; /* the state is larger than STATE_MAX: skipped to its end, no switch */
	char last[2];  /* its last two bytes */
	char *code;    /* the state for the next shell, without its tail */
	size_t code_len;
	struct strv names;   /* the variables the state sets */
	struct strv old_env; /* the running sandbox's --setenv names */
};

int cdsw_new(struct cdsw **out, const struct cdsw_hooks *h)
{
	struct cdsw *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->h = *h;
	c->fd = c->inner = c->state_fd = -1;
	*out = c;
	return 0;
}

static void forget_channel(struct cdsw *c)
{
	free(c->seen);
	free(c->seen_to);
	free(c->buf);
	c->seen = c->seen_to = c->buf = NULL;
	c->len = c->cap = 0;
	c->overflow = false;
	c->shell = 0;
	c->mode = M_IDLE;
	c->eof = false;
}

void cdsw_free(struct cdsw *c)
{
	if (!c)
		return;
	forget_channel(c);
	if (c->fd >= 0)
		close(c->fd);
	free(c->told);
	free(c->target);
	free(c->code);
	strv_release(&c->names);
	strv_release(&c->old_env);
	free(c);
}

/* A descriptor above 2, close-on-exec (supervise_run makes it inheritable for bwrap only). */
static int above_stdio(int fd)
{
	if (fd < 0 || fd > 2)
		return fd;
	int n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return n;
}

int cdsw_prepare(struct cdsw *c, int *chan_fd, int *state_fd)
{
	int sv[2], r = 0;

	*chan_fd = *state_fd = -1;
	forget_channel(c);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = c->inner = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	c->fd = above_stdio(sv[0]);
	c->inner = above_stdio(sv[1]);
	if (c->fd < 0 || c->inner < 0 || (r = fdpass_want_peer(c->fd)) < 0 ||
	    fcntl(c->fd, F_SETFL, O_NONBLOCK) < 0)
		return r < 0 ? r : -errno;
	if (c->code) {
		if ((r = memfile_open("sbxsh-cd-state", true)) < 0)
			return r;
		if ((c->state_fd = above_stdio(r)) < 0)
			return -errno;
	}
	*chan_fd = c->inner;
	*state_fd = c->state_fd;
	return 0;
}

/* s in single quotes, for bash. */
static void quoted(FILE *f, const char *s, size_t n)
{
	fputc('\'', f);
	for (size_t i = 0; i < n; i++)
		if (s[i] == '\'')
			fputs("'\\''", f);
		else
			fputc(s[i], f);
	fputc('\'', f);
}

static bool any_match(const struct pol_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (fnmatch(l->v[i].value, name, FNM_CASEFOLD) == 0)
			return true;
	return false;
}

/* The --setenv pairs of a bwrap argv: names into *names, "NAME\0VALUE" positions by index. */
static int setenv_names(char *const *argv, struct strv *names)
{
	for (size_t i = 0; argv[i]; i++)
		if (strcmp(argv[i], "--setenv") == 0 && argv[i + 1] && argv[i + 2]) {
			if (strv_find(names, argv[i + 1]) < 0 && strv_push(names, argv[i + 1]) < 0)
				return -ENOMEM;
			i += 2;
		}
	return 0;
}

/* Ours, for the start-up files (read and unset by sbxsh.bashrc or sbxsh.zshenv before the
 * state is sourced): not the state's to set again. A login bash's PROMPT_COMMAND (`. rc`) set
 * again would source the rc file at every prompt, which then forgets the channel (the switch
 * worked once); zsh's ZDOTDIR set again would be sbxsh's directory, not the user's. */
static bool control_var(const char *name)
{
	static const char *const ours[] = {
	    "SBXSH_PROMPT_MARKER", "SBXSH_RC_LATE",  "SBXSH_USER_PROMPT_COMMAND",
	    "SBXSH_USER_ZDOTDIR",  "PROMPT_COMMAND", "ZDOTDIR",
	    "SBXSH_RC_PROFILE",	   "SBXSH_HISTFILE"};

	if (strncmp(name, "SBXSH_CDSW_", 11) == 0)
		return true;
	for (size_t i = 0; i < sizeof(ours) / sizeof(*ours); i++)
		if (strcmp(name, ours[i]) == 0)
			return true;
	return false;
}

/* The state's tail: what the new sandbox's environment says wins. */
static void tail(FILE *f, const struct cdsw *c, char *const *argv, const struct strv *now,
		 const struct profile *prof)
{
	for (size_t i = 0; i < c->names.n; i++)
		if (any_match(&prof->env_unset, c->names.v[i]) &&
		    !any_match(&prof->env_keep, c->names.v[i]))
			fprintf(f, "unset -v %s\n", c->names.v[i]);
	for (size_t i = 0; i < c->old_env.n; i++)
		if (strv_find(now, c->old_env.v[i]) < 0 && !control_var(c->old_env.v[i]))
			fprintf(f, "unset -v %s\n", c->old_env.v[i]);
	for (size_t i = 0; argv[i]; i++)
		if (strcmp(argv[i], "--setenv") == 0 && argv[i + 1] && argv[i + 2]) {
			if (!control_var(argv[i + 1])) {
				fprintf(f, "export %s=", argv[i + 1]);
				quoted(f, argv[i + 2], strlen(argv[i + 2]));
				fputc('\n', f);
			}
			i += 2;
		}
}

static int write_state(struct cdsw *c, char *const *argv, const struct strv *now,
		       const struct profile *prof)
{
	char *t = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&t, &n);

	if (!f)
		return -ENOMEM;
	fwrite(c->code, 1, c->code_len, f);
	tail(f, c, argv, now, prof);
	if (fclose(f) != 0 || !t)
		return -ENOMEM;
	int r = 0;
	for (size_t off = 0; off < n;) {
		ssize_t k = write(c->state_fd, t + off, n - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			r = k < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)k;
	}
	free(t);
	if (r == 0)
		r = memfile_seal(c->state_fd);
	return r;
}

int cdsw_argv_ready(struct cdsw *c, char *const *argv, const struct profile *prof)
{
	struct strv now = {0};
	int r = setenv_names(argv, &now);

	if (r == 0 && c->state_fd >= 0)
		r = write_state(c, argv, &now, prof);
	if (r < 0) {
		strv_release(&now);
		return r;
	}
	strv_release(&c->old_env);
	c->old_env = now;
	free(c->code); /* in the memfd now */
	c->code = NULL;
	c->code_len = 0;
	strv_release(&c->names);
	return 0;
}

void cdsw_started(struct cdsw *c)
{
	/* supervise_run closed both (they were in its keep list) */
	c->inner = c->state_fd = -1;
}

int cdsw_poll_fd(void *arg)
{
	struct cdsw *c = arg;

	return c->eof ? -1 : c->fd;
}

/* The first writer is the shell when it is pid 2 of its pid namespace (the stage's first
 * child) and its parent pid 1 (the stage). */
static bool is_stage_child(pid_t pid)
{
	pid_t pp;

	return proc_inner_pid(pid) == 2 && (pp = proc_parent(pid)) > 1 && proc_inner_pid(pp) == 1;
}

static void reply(struct cdsw *c, char ch)
{
	while (send(c->fd, &ch, 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno == EINTR)
		;
}

static void say_once(struct cdsw *c, const char *cwd, const char *text)
{
	if (c->told && strcmp(c->told, cwd) == 0)
		return;
	char safe[PATH_MAX * 2];
	size_t n = sbx_term_escape(safe, sizeof(safe) - 1, text);

	safe[n] = '\n'; /* text is one line without its newline: escaped whole */
	safe[n + 1] = 0;
	free(c->told);
	c->told = strdup(cwd);
	c->h.say(c->h.arg, safe);
}

/* The shell is at its prompt; jobs: it has some. Reads its cwd and answers. */
static void at_prompt(struct cdsw *c, bool jobs)
{
	char cwd[PATH_MAX], *line = NULL;

	if (proc_cwd(c->shell, cwd, sizeof(cwd)) < 0) {
		reply(c, 'k'); /* unknown, or removed under the shell: nothing to judge */
		return;
	}
	if (!c->seen || strcmp(c->seen, cwd) != 0) {
		free(c->seen);
		free(c->seen_to);
		c->seen_to = NULL;
		c->seen = strdup(cwd);
		c->seen_v = c->seen ? c->h.judge(c->h.arg, cwd, &c->seen_to) : 0;
	}
	if (c->seen_v == 0) {
		free(c->told);
		c->told = NULL;
		reply(c, 'k');
		return;
	}
	const char *to = c->seen_to ? c->seen_to : "another profile";
	if (c->seen_v < 0 &&
	    asprintf(&line, "sbxsh: cd: no sandbox for %s: %s; this shell keeps its profile", cwd,
		     to) >= 0)
		say_once(c, cwd, line);
	else if (c->seen_v > 0 && jobs &&
		 asprintf(&line,
			  "sbxsh: cd: %s applies here, but this shell keeps its profile while it "
			  "has jobs (see `jobs`); once they end, the next prompt switches",
			  to) >= 0)
		say_once(c, cwd, line);
	free(line);
	if (c->seen_v < 0 || jobs || !(c->target = strdup(cwd))) {
		reply(c, 'k');
		return;
	}
	c->mode = M_DUMP;
	c->len = 0;
	c->last[0] = c->last[1] = 1;
	reply(c, 's');
}

/* One line of `history N`: "%5d  text" ('*' for the second space of a modified entry) starts
 * an entry, in single quotes; any other line continues the open one (a multi-line entry). */
static void hist_line(FILE *f, const char *l, size_t n, bool *open)
{
	size_t i = 0;

	while (i < n && l[i] == ' ')
		i++;
	size_t d = i;
	while (i < n && l[i] >= '0' && l[i] <= '9')
		i++;
	bool head = i > d && i + 1 < n && (l[i] == ' ' || l[i] == '*') && l[i + 1] == ' ';
	if (head) {
		if (*open)
			fputc('\'', f);
		fputs(" '", f);
		*open = true;
		l += i + 2, n -= i + 2;
	} else if (*open) {
		fputc('\n', f);
	} else {
		return;
	}
	for (size_t k = 0; k < n; k++)
		if (l[k] == '\'')
			fputs("'\\''", f);
		else
			fputc(l[k], f);
}

/* The whole state came: the code for the next shell, the names, the history as an array. */
static void state_done(struct cdsw *c)
{
	char *p = c->buf, *end = c->buf + c->len - 2, *t = NULL;
	size_t n = 0;
	char *z = memchr(p, 0, (size_t)(end - p) + 1);
	FILE *f = open_memstream(&t, &n);

	if (!f) {
		c->mode = M_IDLE; /* no switch: the shell hears k and stays */
		reply(c, 'k');
		return;
	}
	fwrite(p, 1, (size_t)(z - p), f);
	bool open = false;
	fputs("\n__sbxsh_hist=(", f);
	while (z && z < end) {
		char tag = z[1], *s = z + 2, *e;
		if (s > end)
			break;
		e = memchr(s, 0, (size_t)(end - s) + 1);
		if (!e)
			e = end;
		for (char *l = s; tag && l < e;) {
			char *nl = memchr(l, '\n', (size_t)(e - l));
			size_t ll = nl ? (size_t)(nl - l) : (size_t)(e - l);
			if (tag == 'N' && ll) {
				char *nm = strndup(l, ll);
				if (!nm || strv_push_owned(&c->names, nm) < 0)
					free(nm);
			} else if (tag == 'H') {
				hist_line(f, l, ll, &open);
			}
			l += ll + 1;
		}
		z = e < end ? e : NULL;
	}
	if (open)
		fputc('\'', f);
	fputs(")\n", f);
	if (fclose(f) != 0 || !t) {
		free(t);
		c->mode = M_IDLE;
		reply(c, 'k');
		return;
	}
	c->code = t;
	c->code_len = n;
	c->mode = M_DONE;
	supervise_keep_relay(true);
	reply(c, 'x'); /* the shell exits on this */
}

static void feed(struct cdsw *c, const char *d, size_t n);

static void take_dump(struct cdsw *c, const char *d, size_t n)
{
	/* A state starts with `declare`: a "P" first is the shell's next prompt, so it never
	 * got our s (a command holding the channel read it): answer that prompt instead. */
	if (c->len == 0 && !c->overflow && d[0] == 'P') {
		c->mode = M_IDLE;
		free(c->target);
		c->target = NULL;
		feed(c, d, n);
		return;
	}
	if (n >= 2)
		memcpy(c->last, d + n - 2, 2);
	else
		c->last[0] = c->last[1], c->last[1] = d[0];
	if (c->last[0] == 0 && c->last[1] == 'A') { /* the shell gave up waiting for our x */
		c->mode = M_IDLE;
		c->overflow = false;
		c->len = 0;
		free(c->target);
		c->target = NULL;
		return;
	}
	if (c->overflow || c->len + n > STATE_MAX) {
		c->overflow = true;
		if (c->last[0] == 0 && c->last[1] == 'E') {
			/* too large to carry: the shell stays where it is */
			c->mode = M_IDLE;
			c->overflow = false;
			c->len = 0;
			free(c->target);
			c->target = NULL;
			reply(c, 'k');
		}
		return;
	}
	if (c->len + n > c->cap) {
		size_t cap = c->cap ? c->cap : 65536;
		while (cap < c->len + n)
			cap *= 2;
		char *b = realloc(c->buf, cap);
		if (!b) {
			c->overflow = true;
			return;
		}
		c->buf = b;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, d, n);
	c->len += n;
	if (c->len >= 2 && c->buf[c->len - 2] == 0 && c->buf[c->len - 1] == 'E')
		state_done(c);
}

/* After our x the shell exits, or, when it did not get the x (a command holding the channel
 * read it), says "\0A" and stays: then no switch is pending, and its exit is an exit. */
static size_t after_done(struct cdsw *c, const char *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool gave_up = c->last[1] == 0 && d[i] == 'A';
		c->last[0] = c->last[1];
		c->last[1] = d[i];
		if (!gave_up)
			continue;
		free(c->code);
		c->code = NULL;
		c->code_len = 0;
		strv_release(&c->names);
		cdsw_reset(c);
		return i + 1;
	}
	return n;
}

static void feed(struct cdsw *c, const char *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (c->mode == M_DUMP) {
			take_dump(c, d + i, n - i);
			return;
		}
		if (c->mode == M_DONE) {
			i += after_done(c, d + i, n - i) - 1; /* the rest, if any, as at a prompt */
			continue;
		}
		if (c->mode == M_JOBS) {
			c->mode = M_IDLE;
			if (d[i] == '0' || d[i] == '1')
				at_prompt(c, d[i] == '1');
		} else if (d[i] == 'P') {
			c->mode = M_JOBS;
		}
	}
}

/* The writer of one read (pid, as the kernel saw it): the shell, or (its first word) the
 * stage's child. */
static bool from_shell(struct cdsw *c, pid_t pid)
{
	if (c->shell == 0 && pid > 0 && is_stage_child(pid))
		c->shell = pid;
	return pid > 0 && pid == c->shell;
}

void cdsw_ready(void *arg, short revents)
{
	struct cdsw *c = arg;
	char d[16384];

	(void)revents;
	for (int i = 0; i < 64; i++) {
		struct fdpass_in got = {0}; /* a descriptor sent here is closed */
		ssize_t n = fdpass_recv(c->fd, d, sizeof(d), FDPASS_NONBLOCK, &got);
		if (n == -EAGAIN)
			return;
		if (n <= 0) {
			c->eof = true; /* every inner end is closed */
			return;
		}
		if (from_shell(c, got.pid))
			feed(c, d, (size_t)n);
	}
}

const char *cdsw_target(const struct cdsw *c, int wstatus)
{
	if (c->mode != M_DONE || !c->code || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
		return NULL;
	return c->target;
}

void cdsw_reset(struct cdsw *c)
{
	free(c->target);
	c->target = NULL;
	c->mode = M_IDLE;
	supervise_keep_relay(false);
}

static bool list_same(const struct pol_list *a, const struct pol_list *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].value, b->v[i].value) != 0)
			return false;
	return true;
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool cdsw_profile_same(const struct profile *a, const struct profile *b)
{
	const struct pol_list *la[] = {&a->read,	  &a->deny_read,      &a->write,
				       &a->deny_write,	  &a->unix_sockets,   &a->listen,
				       &a->env_unset,	  &a->env_keep,	      &a->env_set,
				       &a->allow_domains, &a->deny_domains,   &a->ignore_read,
				       &a->ignore_write,  &a->ignore_network, &a->create};
	const struct pol_list *lb[] = {&b->read,	  &b->deny_read,      &b->write,
				       &b->deny_write,	  &b->unix_sockets,   &b->listen,
				       &b->env_unset,	  &b->env_keep,	      &b->env_set,
				       &b->allow_domains, &b->deny_domains,   &b->ignore_read,
				       &b->ignore_write,  &b->ignore_network, &b->create};

	for (size_t i = 0; i < sizeof(la) / sizeof(*la); i++)
		if (!list_same(la[i], lb[i]))
			return false;
	if (!str_same(a->root, b->root) || a->sections.n != b->sections.n)
		return false;
	for (size_t i = 0; i < a->sections.n; i++)
		if (strcmp(a->sections.v[i], b->sections.v[i]) != 0)
			return false;
	return a->hermetic == b->hermetic && a->git_config == b->git_config &&
	       a->unix_all == b->unix_all && a->tmp == b->tmp && a->network == b->network &&
	       a->on_violation == b->on_violation && a->tmp_size.bytes == b->tmp_size.bytes &&
	       a->tmp_size.pct == b->tmp_size.pct && a->shm_size.bytes == b->shm_size.bytes &&
	       a->shm_size.pct == b->shm_size.pct;
}
