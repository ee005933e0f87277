/* vlog — the session's violation log: one JSON object per line, appended.
 *
 * Rules kept here: a log that cannot be written (full disk, no directory, no permission)
 * never fails a command or a connection: the record is dropped; every string is escaped to
 * valid JSON whatever bytes it holds (invalid UTF-8 becomes U+FFFD); one write() per
 * record, O_APPEND, so concurrent writers do not interleave within a line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "session/sessd.h"
#include "session/vlog.h"

static void add(struct vlog_buf *o, const char *s, size_t n)
{
	if (o->n + n + 1 > o->cap) {
		size_t cap = (o->n + n + 1) * 2;
		char *np = realloc(o->p, cap);
		if (!np)
			return;
		o->p = np;
		o->cap = cap;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
	o->p[o->n] = '\0';
}

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

void vlog_json_string(struct vlog_buf *b, const char *s)
{
	struct vlog_buf *o = b;
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)u);
	char esc[8];

	add(o, "\"", 1);
	for (size_t i = 0; i < n;) {
		unsigned char c = u[i];
		size_t k;
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			add(o, esc, 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			add(o, esc, 6);
			i++;
		} else if (c < 0x80) {
			add(o, (const char *)u + i, 1);
			i++;
		} else if ((k = utf8_len(u + i, n - i))) {
			add(o, (const char *)u + i, k);
			i += k;
		} else {
			add(o, "\\ufffd", 6);
			i++;
		}
	}
	add(o, "\"", 1);
}

void vlog_field(struct vlog_buf *b, const char *key, const char *value)
{
	struct vlog_buf *o = b;

	add(o, o->n > 1 ? ",\"" : "\"", o->n > 1 ? 2 : 1);
	add(o, key, strlen(key));
	add(o, "\":", 2);
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

void vlog_append(const char *path, const char *line, size_t n)
{
	int fd;

	if (!path || !*path || strcmp(path, "/dev/null") == 0)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0 && errno == ENOENT) {
		make_parents(path);
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
			  0600);
	}
	if (fd < 0)
		return;
	if (write(fd, line, n) < 0) {
		/* dropped: a log that cannot be written never fails anything */
	}
	close(fd);
}

void vlog_refusal(const struct cmd *c, const char *host, unsigned port, const char *reason)
{
	struct vlog_buf o = { 0 };
	char when[80], portbuf[16];
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(when, sizeof(when), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
	snprintf(portbuf, sizeof(portbuf), "%u", port);
	add(&o, "{", 1);
	vlog_field(&o, "time", when);
	vlog_field(&o, "session", c->d->o->session);
	vlog_field(&o, "command", c->id);
	vlog_field(&o, "cmdline", c->cmdline);
	vlog_field(&o, "cwd", c->cwd);
	vlog_field(&o, "profile", c->profile);
	vlog_field(&o, "profile_file", c->profile_file);
	vlog_field(&o, "kind", "network");
	vlog_field(&o, "host", host);
	add(&o, ",\"port\":", 8);
	add(&o, portbuf, strlen(portbuf));
	vlog_field(&o, "reason", reason);
	add(&o, "}\n", 2);
	if (o.p)
		vlog_append(c->d->o->log, o.p, o.n);
	free(o.p);
}
