/* doctor_sshd — `sbxsh doctor --sshd`: reads `sshd -T` and names each setting that lets an
 * ssh session of a sbxsh user reach the host without going through the login shell.
 *
 * Rules kept here:
 * - sshd is run by absolute path with an argv, never a shell string; its output is data,
 *   read line by line with every length bounded;
 * - the parser (doctor_sshd_check) is pure: text in, findings out, so fixture text tests it;
 * - a setting sshd did not print is reported as unknown, never as safe.
 */
#include "shell/doctor_sshd.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "paths.h"

#define OUT_MAX (256 * 1024)

/* The value of the nth line "key value…" (sshd -T prints keys in lowercase), into buf.
 * Returns buf, or NULL when there is no such line. */
static const char *value_of(const char *text, const char *key, size_t nth, char *buf, size_t n)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		size_t len = strcspn(l, "\n");
		if (len <= klen || strncmp(l, key, klen) != 0 || l[klen] != ' ')
			continue;
		if (nth-- > 0)
			continue;
		len -= klen + 1;
		if (len >= n)
			len = n - 1;
		memcpy(buf, l + klen + 1, len);
		buf[len] = '\0';
		return buf;
	}
	return NULL;
}

static struct sshd_finding *add(struct sshd_finding *out, size_t max, size_t *n, int level,
				const char *setting, const char *fmt, ...)
{
	va_list ap;

	if (*n >= max)
		return NULL;
	struct sshd_finding *f = &out[(*n)++];
	f->level = level;
	snprintf(f->setting, sizeof(f->setting), "%s", setting);
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	return f;
}

static const struct flag {
	const char *key, *setting, *safe;
	bool forwarding; /* DisableForwarding yes turns it off */
	int level;	 /* when not safe */
	const char *why;
} flags[] = {
    {"allowtcpforwarding", "AllowTcpForwarding", "no", true, SSHD_BYPASS,
     "TCP forwarding (ssh -L, -R, -D) connects from and to the host's network in sshd, "
     "outside the sandbox and its proxy"},
    {"allowstreamlocalforwarding", "AllowStreamLocalForwarding", "no", true, SSHD_BYPASS,
     "unix socket forwarding reaches the host's sockets (the session daemon's, docker's, "
     "tmux's) in sshd, outside the sandbox"},
    {"allowagentforwarding", "AllowAgentForwarding", "no", true, SSHD_BYPASS,
     "sshd makes the forwarded agent's socket on the host, outside the sandbox"},
    {"x11forwarding", "X11Forwarding", "no", true, SSHD_BYPASS,
     "sshd relays X11 connections on the host, outside the sandbox"},
    {"permittunnel", "PermitTunnel", "no", false, SSHD_BYPASS,
     "tunnel forwarding (ssh -w) gives the client a network device on the host"},
    {"permituserrc", "PermitUserRC", "no", false, SSHD_NOTE,
     "sshd runs ~/.ssh/rc at every login as `sbxsh -c '/bin/sh .ssh/rc'`: sandboxed and "
     "read-only under [profile ssh]; elsewhere the hidden ~/.ssh keeps it from running (a "
     "violation each login)"},
};

static void check_flags(const char *text, struct sshd_finding *out, size_t max, size_t *n)
{
	char v[128], dis[16];
	bool disabled =
	    value_of(text, "disableforwarding", 0, dis, sizeof(dis)) && strcmp(dis, "yes") == 0;

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		const struct flag *f = &flags[i];
		if (f->forwarding && disabled) {
			add(out, max, n, SSHD_OK, f->setting, "off (DisableForwarding yes)");
		} else if (!value_of(text, f->key, 0, v, sizeof(v))) {
			add(out, max, n, SSHD_NOTE, f->setting,
			    "not in sshd -T's output: check it by hand; put `%s %s` in sshd_config",
			    f->setting, f->safe);
		} else if (strcmp(v, f->safe) == 0) {
			add(out, max, n, SSHD_OK, f->setting, "%s", v);
		} else {
			add(out, max, n, f->level, f->setting,
			    "%s: %s; put `%s %s`%s in sshd_config", v, f->why, f->setting, f->safe,
			    f->forwarding ? " (or `DisableForwarding yes`)" : "");
		}
	}
}

static void check_subsystems(const char *text, struct sshd_finding *out, size_t max, size_t *n)
{
	char v[512];
	size_t i = 0;

	for (; value_of(text, "subsystem", i, v, sizeof(v)); i++) {
		size_t nl = strcspn(v, " ");
		const char *cmd = v[nl] ? v + nl + 1 : "";
		if (strncmp(cmd, "internal-sftp", 13) == 0 && (!cmd[13] || cmd[13] == ' '))
			add(out, max, n, SSHD_BYPASS, "Subsystem",
			    "%.*s internal-sftp: sshd serves it itself, never through the login "
			    "shell, with everything the user can read and write on the host; put "
			    "`Subsystem %.*s /usr/lib/openssh/sftp-server` in sshd_config",
			    (int)nl, v, (int)nl, v);
		else
			add(out, max, n, SSHD_OK, "Subsystem", "%s (runs through the login shell)",
			    v);
	}
	if (i == 0)
		add(out, max, n, SSHD_OK, "Subsystem", "none");
}

static void check_force(const char *text, struct sshd_finding *out, size_t max, size_t *n)
{
	char v[512];

	if (!value_of(text, "forcecommand", 0, v, sizeof(v)) || strcmp(v, "none") == 0)
		add(out, max, n, SSHD_OK, "ForceCommand", "none");
	else if (strncmp(v, "internal-sftp", 13) == 0 && (!v[13] || v[13] == ' '))
		add(out, max, n, SSHD_BYPASS, "ForceCommand",
		    "internal-sftp: sshd serves SFTP itself, never through the login shell; put "
		    "`ForceCommand /usr/lib/openssh/sftp-server` in sshd_config");
	else if (strstr(v, "-c") && strstr(v, "SSH_ORIGINAL_COMMAND") &&
		 !strstr(v, "SSH_ORIGINAL_COMMAND:"))
		/* `sbxsh -c "$SSH_ORIGINAL_COMMAND"`: `ssh host` and `ssh host < script` give it
		 * an empty command string */
		add(out, max, n, SSHD_NOTE, "ForceCommand",
		    "%s: a login without a command (`ssh host`, `ssh host < script`) runs `-c ''`: "
		    "nothing, the script unread; `ForceCommand %.*s ${SSH_ORIGINAL_COMMAND:+-c} "
		    "\"${SSH_ORIGINAL_COMMAND:--l}\"` starts a login shell for those",
		    v, (int)strcspn(v, " "), v);
	else
		add(out, max, n, SSHD_OK, "ForceCommand",
		    "%s (runs as `sbxsh -c` with SSH_ORIGINAL_COMMAND)", v);
}

/* ChrootDirectory's %u, %h and %% (sshd_config(5) TOKENS). Returns 0, or -1 when a token
 * needs what is not known. */
static int expand_chroot(const char *v, const char *user, const char *home, char *buf, size_t n)
{
	size_t o = 0;

	for (; *v && o + 1 < n; v++) {
		const char *s = NULL;
		if (*v != '%') {
			buf[o++] = *v;
			continue;
		}
		v++;
		if (*v == '%')
			s = "%";
		else if (*v == 'u')
			s = user;
		else if (*v == 'h')
			s = home;
		if (!s)
			return -1;
		o += (size_t)snprintf(buf + o, n - o, "%s", s);
		if (o >= n)
			return -1;
	}
	buf[o < n ? o : n - 1] = '\0';
	return 0;
}

static void check_chroot(const char *text, const char *sbxsh_path, const char *user,
			 const char *home, struct sshd_finding *out, size_t max, size_t *n)
{
	char v[512], root[1024], inside[2048];

	if (!value_of(text, "chrootdirectory", 0, v, sizeof(v)) || strcmp(v, "none") == 0) {
		add(out, max, n, SSHD_OK, "ChrootDirectory", "none");
		return;
	}
	if (expand_chroot(v, user, home, root, sizeof(root)) < 0) {
		add(out, max, n, SSHD_NOTE, "ChrootDirectory",
		    "%s: name the user (--user) to look inside it; sbxsh, bwrap and %s must be "
		    "inside the chroot, or its sessions are not sandboxed",
		    v, SBX_LIBEXECDIR);
		return;
	}
	snprintf(inside, sizeof(inside), "%s%s", root, sbxsh_path);
	if (access(inside, X_OK) == 0) {
		add(out, max, n, SSHD_OK, "ChrootDirectory", "%s (holds %s)", root, sbxsh_path);
		return;
	}
	add(out, max, n, SSHD_BYPASS, "ChrootDirectory",
	    "%s holds no %s: logins there cannot start sbxsh, and a ForceCommand internal-sftp "
	    "there is not sandboxed; install sbxsh, bwrap and %s inside it, or put "
	    "`ChrootDirectory none` in sshd_config",
	    root, sbxsh_path, SBX_LIBEXECDIR);
}

size_t doctor_sshd_check(const char *text, const char *sbxsh_path, const char *user,
			 const char *home, struct sshd_finding *out, size_t max)
{
	size_t n = 0;

	check_subsystems(text, out, max, &n);
	check_force(text, out, max, &n);
	check_flags(text, out, max, &n);
	check_chroot(text, sbxsh_path, user, home, out, max, &n);
	return n;
}

/* --- the command --- */

/* Reads all of fd into a NUL-terminated buffer (caller frees), at most OUT_MAX bytes. */
static char *slurp(int fd)
{
	size_t n = 0;
	char *buf = malloc(OUT_MAX + 1);
	ssize_t r;

	if (!buf)
		return NULL;
	while (n < OUT_MAX && (r = read(fd, buf + n, OUT_MAX - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return buf;
}

static const char *find_sshd(void)
{
	static const char *const paths[] = {"/usr/sbin/sshd", "/usr/local/sbin/sshd", "/sbin/sshd"};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

/* Runs sshd -T; returns its output (caller frees) or NULL with the reason in err. */
static char *run_sshd_t(const char *config, const char *user, char *err, size_t errn)
{
	const char *sshd = find_sshd();
	char ctx[512], *argv[8], *out = NULL, *errtext = NULL;
	int po[2] = {-1, -1}, pe[2] = {-1, -1}, st = 0, k = 0;

	if (!sshd) {
		snprintf(err, errn,
			 "no sshd in /usr/sbin, /usr/local/sbin or /sbin "
			 "(apt-get install openssh-server), or pass its output with --from");
		return NULL;
	}
	argv[k++] = (char *)sshd;
	argv[k++] = "-T";
	if (config) {
		argv[k++] = "-f";
		argv[k++] = (char *)config;
	}
	if (user) {
		snprintf(ctx, sizeof(ctx), "user=%s,host=localhost,addr=127.0.0.1", user);
		argv[k++] = "-C";
		argv[k++] = ctx;
	}
	argv[k] = NULL;
	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
		snprintf(err, errn, "pipe: %s", strerror(errno));
		goto out;
	}
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0 || dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0)
			_exit(127);
		execv(sshd, argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	if (pid < 0) {
		snprintf(err, errn, "fork: %s", strerror(errno));
		goto out;
	}
	out = slurp(po[0]); /* sshd -T writes a few KiB: stderr cannot fill its pipe first */
	errtext = slurp(pe[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!out || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		if (errtext)
			errtext[strcspn(errtext, "\n")] = '\0';
		snprintf(err, errn, "%s -T%s%s failed: %s", sshd, config ? " -f " : "",
			 config ? config : "", errtext && *errtext ? errtext : "no message");
		free(out);
		out = NULL;
	}
out:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	free(errtext);
	return out;
}

static char *read_from(const char *path, char *err, size_t errn)
{
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	char *text;

	if (fd < 0) {
		snprintf(err, errn, "%s: %s", path, strerror(errno));
		return NULL;
	}
	text = slurp(fd);
	if (fd != 0)
		close(fd);
	if (!text)
		snprintf(err, errn, "out of memory");
	return text;
}

static void print(int level, const char *what, const char *detail)
{
	printf("%-5s %-22s %s\n",
	       level == SSHD_OK	      ? "ok"
	       : level == SSHD_BYPASS ? "FAIL"
				      : "note",
	       what, detail);
}

/* /etc/shells and the user's login shell: what they mean for a sbxsh login (compat.md 9). */
static int check_shells(const char *sbxsh, const char *user, bool forced)
{
	char line[1024], msg[1024];
	FILE *f = fopen("/etc/shells", "re");
	bool listed = false;
	int bypass = 0;

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		listed |= strcmp(line, sbxsh) == 0;
	}
	if (f)
		fclose(f);
	print(SSHD_NOTE, "/etc/shells",
	      listed ? "lists sbxsh: its users may chsh to another shell (outside the sandbox) "
		       "and services that check /etc/shells accept them"
		     : "does not list sbxsh: it is a restricted shell (its users cannot chsh "
		       "away; ftp daemons and some su setups refuse them); add it to let them");
	struct passwd *pw = user ? getpwnam(user) : NULL;
	if (user && !pw) {
		snprintf(msg, sizeof(msg), "no user %s", user);
		print(SSHD_NOTE, "login shell", msg);
	} else if (pw) {
		bool ours = strcmp(pw->pw_shell, sbxsh) == 0;
		if (ours)
			snprintf(msg, sizeof(msg), "%s's is %s", user, pw->pw_shell);
		else if (forced)
			snprintf(msg, sizeof(msg),
				 "%s's is %s, which runs the ForceCommand and so starts first, "
				 "outside the sandbox (bash reads ~/.bashrc when sshd starts it): "
				 "run chsh -s %s %s",
				 user, pw->pw_shell, sbxsh, user);
		else
			snprintf(msg, sizeof(msg),
				 "%s's is %s: their ssh sessions are not sandboxed; run chsh -s %s "
				 "%s",
				 user, pw->pw_shell, sbxsh, user);
		print(ours ? SSHD_OK : SSHD_BYPASS, "login shell", msg);
		bypass = !ours;
	}
	return bypass;
}

static void usage(FILE *f)
{
	fputs("usage: sbxsh doctor --sshd [--user NAME] [--config SSHD_CONFIG] [--from FILE|-]\n"
	      "  reads `sshd -T` (for NAME: -C user=NAME,host=localhost,addr=127.0.0.1) and names\n"
	      "  each setting that lets an ssh session bypass the sandbox, with the line to put\n"
	      "  in sshd_config; --from reads saved `sshd -T` output instead (- for stdin).\n"
	      "  Exit status: 0 nothing bypasses; 1 something does; 2 usage; 125 sshd -T "
	      "failed.\n",
	      f);
}

int doctor_sshd(int argc, char **argv)
{
	const char *user = NULL, *config = NULL, *from = NULL, *sbxsh = SBX_BINDIR "/sbxsh";
	struct sshd_finding fs[32];
	char err[1024];
	char *text;
	int bypass = 0;

	for (int i = 2; i < argc; i++) {
		const char **slot = strcmp(argv[i], "--user") == 0     ? &user
				    : strcmp(argv[i], "--config") == 0 ? &config
				    : strcmp(argv[i], "--from") == 0   ? &from
								       : NULL;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		}
		if (!slot || i + 1 >= argc) {
			fprintf(stderr, "sbxsh: doctor --sshd: %s '%s'\n",
				slot ? "a value is missing after" : "unknown option", argv[i]);
			usage(stderr);
			return 2;
		}
		*slot = argv[++i];
	}
	text =
	    from ? read_from(from, err, sizeof(err)) : run_sshd_t(config, user, err, sizeof(err));
	if (!text) {
		fprintf(stderr, "sbxsh: doctor --sshd: %s\n", err);
		return 125;
	}
	struct passwd *pw = user ? getpwnam(user) : NULL;
	size_t n = doctor_sshd_check(text, sbxsh, user, pw ? pw->pw_dir : NULL, fs, 32);
	for (size_t i = 0; i < n; i++) {
		print(fs[i].level, fs[i].setting, fs[i].text);
		bypass |= fs[i].level == SSHD_BYPASS;
	}
	char fc[512];
	bool forced = value_of(text, "forcecommand", 0, fc, sizeof(fc)) && strstr(fc, "sbxsh");
	bypass |= check_shells(sbxsh, user, forced);
	free(text);
	printf("%s\n", bypass ? "ssh sessions can bypass the sandbox until the FAIL lines are fixed"
			      : "ssh sessions of sbxsh users go through the sandbox");
	return bypass ? 1 : 0;
}
