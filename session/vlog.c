/* vlog — the session's violation log: one JSON object per line, appended; and syslog.
 *
 * Rules kept here: a log that cannot be written (full disk, no directory, no permission, no
 * syslog, a syslog that does not read) never fails or stalls a command or a connection: the
 * record is dropped; every string is escaped to valid JSON whatever bytes it holds (invalid
 * UTF-8 becomes U+FFFD); one write() per record, O_APPEND, so concurrent writers do not
 * interleave within a line; syslog datagrams are sent non-blocking. The parser reads lines a
 * user (or anyone who can write the file) may have edited: bounded, in place, no allocation.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "session/vlog.h"

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;

	if (k == 0 || k > n || s[0] > 0xF4)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] > 0x9F) ||
	    (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] > 0x8F))
		return 0;
	return k;
}

void vlog_json_string(struct buf *b, const char *s)
{
	struct buf *o = b;
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)u);
	char esc[8];

	buf_add(o, "\"", 1);
	for (size_t i = 0; i < n;) {
		unsigned char c = u[i];
		size_t k;
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			buf_add(o, esc, 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			buf_add(o, esc, 6);
			i++;
		} else if (c < 0x80) {
			buf_add(o, (const char *)u + i, 1);
			i++;
		} else if ((k = utf8_len(u + i, n - i)) == 2 && c == 0xc2 && u[i + 1] < 0xa0) {
			/* a C1 control (U+0080-U+009F): escaped, a terminal may act on it */
			snprintf(esc, sizeof(esc), "\\u%04x", u[i + 1]);
			buf_add(o, esc, 6);
			i += 2;
		} else if (k) {
			buf_add(o, (const char *)u + i, k);
			i += k;
		} else {
			buf_add(o, "\\ufffd", 6);
			i++;
		}
	}
	buf_add(o, "\"", 1);
}

void vlog_field(struct buf *b, const char *key, const char *value)
{
	struct buf *o = b;

	buf_add(o, o->n > 1 ? ",\"" : "\"", o->n > 1 ? 2 : 1);
	buf_add(o, key, strlen(key));
	buf_add(o, "\":", 2);
	vlog_json_string(b, value);
}

/* Creates the log's missing parent directories (0700), best effort. */
static void make_parents(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(buf, 0700);
		*s = '/';
	}
}

int vlog_append(const char *path, const char *line, size_t n)
{
	int fd, r = 0;

	if (!path || !*path || strcmp(path, "/dev/null") == 0)
		return 1;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0 && errno == ENOENT) {
		make_parents(path);
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
			  0600);
	}
	if (fd < 0)
		return -errno;
	if (write(fd, line, n) < 0)
		r = -errno; /* dropped: a log that cannot be written never fails anything */
	close(fd);
	return r;
}

static void add_num(struct buf *o, const char *key, long v)
{
	char num[32];

	buf_add(o, o->n > 1 ? ",\"" : "\"", o->n > 1 ? 2 : 1);
	buf_add(o, key, strlen(key));
	snprintf(num, sizeof(num), "\":%ld", v);
	buf_add(o, num, strlen(num));
}

static void opt_field(struct buf *o, const char *key, const char *v)
{
	if (v)
		vlog_field(o, key, v);
}

static void iso_time(char *buf, size_t n, const struct timespec *ts)
{
	struct tm tm;

	gmtime_r(&ts->tv_sec, &tm);
	snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts->tv_nsec / 1000000);
}

void vlog_format(struct buf *b, const struct vlog_record *r, const struct timespec *when)
{
	char t[80], cl[VLOG_CMDLINE_MAX + 1];
	struct timespec now;

	if (!when) {
		clock_gettime(CLOCK_REALTIME, &now);
		when = &now;
	}
	iso_time(t, sizeof(t), when);
	buf_add(b, "{", 1);
	vlog_field(b, "time", t);
	opt_field(b, "session", r->session);
	opt_field(b, "command", r->command);
	if (r->cmdline) {
		snprintf(cl, sizeof(cl), "%s", r->cmdline);
		vlog_field(b, "cmdline", cl);
	}
	opt_field(b, "cwd", r->cwd);
	opt_field(b, "profile", r->profile);
	opt_field(b, "profile_file", r->profile_file);
	opt_field(b, "profile_at", r->profile_at);
	opt_field(b, "kind", r->kind);
	opt_field(b, "path", r->path);
	opt_field(b, "host", r->host);
	if (r->port)
		add_num(b, "port", (long)r->port);
	opt_field(b, "call", r->call);
	if (r->pid)
		add_num(b, "pid", r->pid);
	opt_field(b, "reason", r->reason);
	opt_field(b, "grant", r->grant);
	buf_add(b, "}\n", 2);
}

/* ---- syslog / journald ---- */

/* Appends v with control characters as '?': one datagram field per line. */
static void add_clean(struct buf *o, const char *v)
{
	for (; v && *v; v++) {
		char c = (unsigned char)*v < 0x20 || *v == 0x7f ? '?' : *v;

		buf_add(o, &c, 1);
	}
}

static void journal_field(struct buf *o, const char *key, const char *v)
{
	if (!v)
		return;
	buf_add(o, key, strlen(key));
	buf_add(o, "=", 1);
	add_clean(o, v);
	buf_add(o, "\n", 1);
}

/* key="value" for syslog's one line, quotes and backslashes escaped. */
static void kv(struct buf *o, const char *key, const char *v)
{
	if (!v)
		return;
	buf_add(o, " ", 1);
	buf_add(o, key, strlen(key));
	buf_add(o, "=\"", 2);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			buf_add(o, "\\", 1);
		add_clean(o, (char[]){*v, 0});
	}
	buf_add(o, "\"", 1);
}

static void summary(struct buf *o, const struct vlog_record *r)
{
	char port[16];

	buf_add(o, "sbxsh violation", 15);
	kv(o, "kind", r->kind);
	kv(o, "path", r->path);
	kv(o, "host", r->host);
	snprintf(port, sizeof(port), "%u", r->port);
	kv(o, "port", r->port ? port : NULL);
	kv(o, "call", r->call);
	kv(o, "command", r->command);
	kv(o, "session", r->session);
	kv(o, "cwd", r->cwd);
	kv(o, "profile", r->profile);
	kv(o, "cmdline", r->cmdline);
}

static int send_dgram(const char *sock, const char *p, size_t n)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd, r = 0;

	if (strlen(sock) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	strcpy(a.sun_path, sock);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&a, sizeof(a)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* LOG_AUTHPRIV (10) | LOG_NOTICE (5): security events, kept with sshd's and sudo's. */
#define VLOG_FACILITY 10
#define VLOG_PRIORITY 5

static int to_journal(const char *sock, const struct vlog_record *r)
{
	struct buf o = {0}, msg = {0};
	char port[16], pid[24];
	int rc;

	summary(&msg, r);
	snprintf(port, sizeof(port), "%u", r->port);
	snprintf(pid, sizeof(pid), "%ld", r->pid);
	journal_field(&o, "MESSAGE", msg.err ? "sbxsh violation" : msg.p);
	journal_field(&o, "PRIORITY", "5");
	journal_field(&o, "SYSLOG_FACILITY", "10");
	journal_field(&o, "SYSLOG_IDENTIFIER", "sbxsh");
	journal_field(&o, "SBXSH_KIND", r->kind);
	journal_field(&o, "SBXSH_PATH", r->path);
	journal_field(&o, "SBXSH_HOST", r->host);
	journal_field(&o, "SBXSH_PORT", r->port ? port : NULL);
	journal_field(&o, "SBXSH_CALL", r->call);
	journal_field(&o, "SBXSH_PID", r->pid ? pid : NULL);
	journal_field(&o, "SBXSH_COMMAND", r->command);
	journal_field(&o, "SBXSH_SESSION", r->session);
	journal_field(&o, "SBXSH_CMDLINE", r->cmdline);
	journal_field(&o, "SBXSH_CWD", r->cwd);
	journal_field(&o, "SBXSH_PROFILE", r->profile);
	journal_field(&o, "SBXSH_PROFILE_FILE", r->profile_file);
	journal_field(&o, "SBXSH_GRANT", r->grant);
	rc = o.err ? o.err : send_dgram(sock, o.p, o.n);
	buf_free(&o);
	buf_free(&msg);
	return rc;
}

static int to_syslog(const char *sock, const struct vlog_record *r)
{
	struct buf o = {0};
	char head[96], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%b %e %H:%M:%S", &tm);
	snprintf(head, sizeof(head), "<%d>%s sbxsh[%ld]: ", VLOG_FACILITY * 8 + VLOG_PRIORITY,
		 stamp, (long)getpid());
	buf_add(&o, head, strlen(head));
	summary(&o, r);
	rc = o.err ? o.err : send_dgram(sock, o.p, o.n);
	buf_free(&o);
	return rc;
}

int vlog_syslog_at(const char *journal, const char *devlog, const struct vlog_record *r)
{
	int rc = -ENOENT;

	if (journal && (rc = to_journal(journal, r)) == 0)
		return 0;
	if (devlog)
		rc = to_syslog(devlog, r);
	return rc;
}

int vlog_write(const char *path, bool use_syslog, const struct vlog_record *r)
{
	struct buf o = {0};
	int rc = 1;

	if (path && *path) {
		vlog_format(&o, r, NULL);
		rc = o.err ? o.err : vlog_append(path, o.p, o.n);
		buf_free(&o);
	}
	if (use_syslog)
		vlog_syslog_at("/run/systemd/journal/socket", "/dev/log", r);
	return rc;
}

/* ---- reading it back ---- */

static char *skip_ws(char *p, char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

static char *put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xC0 | cp >> 6);
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xE0 | cp >> 12);
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else {
		*o++ = (char)(0xF0 | cp >> 18);
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	}
	return o;
}

static char *read_u4(char *p, char *end, unsigned *cp)
{
	int v = 0;

	if (end - p < 4)
		return NULL;
	for (int i = 0; i < 4; i++) {
		int h = hexval(p[i]);

		if (h < 0)
			return NULL;
		v = v * 16 + h;
	}
	*cp = (unsigned)v;
	return p + 4;
}

/* A "\u" escape at p (after the backslash and u): a surrogate pair or one unit. */
static char *unicode_esc(char *p, char *end, char **o)
{
	unsigned cp, lo;

	if (!(p = read_u4(p, end, &cp)))
		return NULL;
	if (cp >= 0xD800 && cp < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
	    read_u4(p + 2, end, &lo) && lo >= 0xDC00 && lo < 0xE000) {
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
		p += 6;
	} else if (cp >= 0xD800 && cp < 0xE000) {
		cp = 0xFFFD;
	}
	*o = put_utf8(*o, cp);
	return p;
}

/* Decodes the string whose opening quote is at p, in place; *out is its start. */
static char *parse_str(char *p, char *end, char **out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	char *o;

	if (p >= end || *p != '"')
		return NULL;
	o = *out = ++p;
	while (p < end && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p != '\\') {
			*o++ = *p++;
			continue;
		}
		if (++p >= end)
			return NULL;
		const char *k = strchr(from, *p);

		if (*p == 'u') {
			if (!(p = unicode_esc(p + 1, end, &o)))
				return NULL;
		} else if (k && *p) {
			*o++ = to[k - from];
			p++;
		} else {
			return NULL;
		}
	}
	if (p >= end)
		return NULL;
	*o = '\0';
	return p + 1;
}

static char *parse_int(char *p, char *end, long *v)
{
	long x = 0;
	bool neg = p < end && *p == '-';

	p += neg;
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (x > (LONG_MAX - 9) / 10)
			return NULL;
		x = x * 10 + (*p - '0');
	}
	*v = neg ? -x : x;
	return p;
}

#define F(name)                                                                                    \
	{                                                                                          \
#name, offsetof(struct vlog_entry, name)                                           \
	}
static const struct {
	const char *key;
	size_t off;
} entry_fields[] = {
    F(time),	   F(session), F(command), F(cmdline), F(cwd),	F(profile), F(profile_file),
    F(profile_at), F(kind),    F(path),	   F(host),    F(call), F(reason),  F(grant),
};
#undef F

static void set_field(struct vlog_entry *e, const char *key, char *sv, long nv, bool is_str)
{
	if (!is_str) {
		if (strcmp(key, "port") == 0)
			e->port = nv;
		else if (strcmp(key, "pid") == 0)
			e->pid = nv;
		return;
	}
	for (size_t i = 0; i < sizeof(entry_fields) / sizeof(entry_fields[0]); i++)
		if (strcmp(key, entry_fields[i].key) == 0)
			*(char **)((char *)e + entry_fields[i].off) = sv;
}

int vlog_parse(char *buf, size_t n, struct vlog_entry *e)
{
	char *p = buf, *end = buf + n;

	memset(e, 0, sizeof(*e));
	p = skip_ws(p, end);
	if (p >= end || *p++ != '{')
		return -EINVAL;
	p = skip_ws(p, end);
	if (p < end && *p == '}')
		return skip_ws(p + 1, end) == end ? 0 : -EINVAL;
	for (;;) {
		char *key, *sv = NULL;
		long nv = 0;
		bool is_str;

		p = skip_ws(p, end);
		if (!(p = parse_str(p, end, &key)))
			return -EINVAL;
		p = skip_ws(p, end);
		if (p >= end || *p++ != ':')
			return -EINVAL;
		p = skip_ws(p, end);
		is_str = p < end && *p == '"';
		p = is_str ? parse_str(p, end, &sv) : parse_int(p, end, &nv);
		if (!p)
			return -EINVAL;
		set_field(e, key, sv, nv, is_str);
		p = skip_ws(p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		if (p < end && *p == '}')
			return skip_ws(p + 1, end) == end ? 0 : -EINVAL;
		return -EINVAL;
	}
}
