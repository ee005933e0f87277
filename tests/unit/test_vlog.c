/* test_vlog — the violation log: JSON escaping, the writer and reader, syslog/journald. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session/vlog.h"
#include "tests/unit/tap.h"

static char D[64];

static const struct vlog_record rec = {
    .session = "42",
    .command = "c-1",
    .cmdline = "cat ~/.aws/credentials \"q\" \\ \t\x01 caf\xc3\xa9 bad\xff",
    .cwd = "/home/u/src/app",
    .profile = "[dir ~/src/*]",
    .profile_file = "~/.config/sbxsh/sbxsh.ini",
    .profile_at = "[dir ~/src/*] /home/u/.config/sbxsh/sbxsh.ini:4",
    .kind = "read",
    .path = "/home/u/.aws/credentials",
    .call = "openat",
    .pid = 1234,
    .reason = "credential store",
    .grant = "named, not granted",
};

static int bind_dgram(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	return fd;
}

static char *json(const char *s)
{
	struct buf b = {0};

	vlog_json_string(&b, s);
	return b.p;
}

/* JSON escaping of fields, and appending with parents made. */
static void test_json_append(void)
{
	char *s, path[128], got[256];
	struct buf b = {0};
	int fd;
	ssize_t n;

	is_str(s = json("plain"), "\"plain\"", "plain text is quoted");
	free(s);
	is_str(s = json("a\"b\\c"), "\"a\\\"b\\\\c\"", "quote and backslash escaped");
	free(s);
	is_str(s = json("a\nb\tc\x1b"), "\"a\\u000ab\\u0009c\\u001b\"", "control bytes escaped");
	free(s);
	is_str(s = json("caf\xc3\xa9"), "\"caf\xc3\xa9\"", "valid UTF-8 kept");
	free(s);
	is_str(s = json("a\xc2\x9b"
			"2J\x7f\xc2\xa0"),
	       "\"a\\u009b2J\\u007f\xc2\xa0\"", "a C1 control (CSI) and DEL escaped, U+00A0 kept");
	free(s);
	is_str(s = json("x\xff"
			"y\xc3"),
	       "\"x\\ufffdy\\ufffd\"", "invalid UTF-8 becomes U+FFFD");
	free(s);
	is_str(s = json("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"",
	       "a surrogate is not valid UTF-8");
	free(s);
	is_str(s = json(NULL), "\"\"", "NULL is the empty string");
	free(s);
	vlog_field(&b, "a", "1");
	vlog_field(&b, "b", "2");
	is_str(b.p, "\"a\":\"1\",\"b\":\"2\"", "fields are comma-separated");
	free(b.p);

	snprintf(path, sizeof(path), "/tmp/test_session_vlog.%d/deep/v.jsonl", (int)getpid());
	vlog_append(path, "{}\n", 3);
	vlog_append(path, "{}\n", 3);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, got, sizeof(got) - 1) : -1;
	got[n > 0 ? n : 0] = '\0';
	is_str(got, "{}\n{}\n", "records are appended, parents made");
	if (fd >= 0)
		close(fd);
	is_int(vlog_append("/proc/nonexistent/x", "{}\n", 3), -ENOENT,
	       "an unwritable log is an error the caller may ignore");
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

static void test_roundtrip(void)
{
	struct buf b = {0};
	struct vlog_entry e;
	struct timespec t = {.tv_sec = 1764446400, .tv_nsec = 5000000};

	vlog_format(&b, &rec, &t);
	ok(b.p && b.n > 0 && b.p[b.n - 1] == '\n' && !memchr(b.p, '\n', b.n - 1),
	   "one record is one line");
	ok(b.p && strstr(b.p, "\"time\":\"2025-11-29T20:00:00.005Z\"") != NULL, "UTC time, ms");
	ok(b.p && strstr(b.p, "\\ufffd") && strstr(b.p, "\\u0001") && strstr(b.p, "caf\xc3\xa9"),
	   "control bytes and invalid UTF-8 escaped, valid UTF-8 kept");
	is_int(vlog_parse(b.p, b.n, &e), 0, "the line parses back");
	is_str(e.path, rec.path, "path");
	is_str(e.kind, "read", "kind");
	is_str(e.call, "openat", "call");
	is_int(e.pid, 1234, "pid");
	is_str(e.session, "42", "session");
	is_str(e.command, "c-1", "command");
	is_str(e.cwd, rec.cwd, "cwd");
	is_str(e.profile, rec.profile, "profile");
	is_str(e.profile_at, rec.profile_at, "profile with file:line");
	ok(e.cmdline && strncmp(e.cmdline, "cat ~/.aws/credentials \"q\" \\ \t\x01 caf\xc3\xa9 bad",
				40) == 0,
	   "cmdline with quotes, backslash, tab");
	free(b.p);
}

static void test_parse_bad(void)
{
	static const char *bad[] = {"",
				    "{",
				    "{\"a\":}",
				    "{\"a\":\"x}",
				    "[1]",
				    "{\"a\":1,}",
				    "{\"a\":\"\\q\"}",
				    "{\"a\":\"\\u12\"}",
				    "{\"a\":tru}",
				    "{\"a\":1} x",
				    "{\"a\":99999999999999999999}"};
	struct vlog_entry e;
	char buf[128];
	bool all = true;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = strlen(bad[i]);

		memcpy(buf, bad[i], n + 1);
		all &= vlog_parse(buf, n, &e) == -EINVAL;
	}
	ok(all, "malformed lines are refused");
	strcpy(buf, "{\"kind\":\"x\\ud83d\\ude00\\ud800\",\"new\":\"k\",\"port\":443}");
	is_int(vlog_parse(buf, strlen(buf), &e), 0, "unknown keys are skipped");
	is_str(e.kind, "x\xf0\x9f\x98\x80\xef\xbf\xbd",
	       "surrogate pairs decode, a lone one is U+FFFD");
	is_int(e.port, 443, "numbers");
}

static void test_append(void)
{
	char path[128], line[4096];
	FILE *f;
	int n = 0, good = 0;

	snprintf(path, sizeof(path), "%s/state/sbxsh/violations.jsonl", D);
	for (int k = 0; k < 8; k++) {
		if (fork() == 0) {
			for (int i = 0; i < 200; i++)
				vlog_write(path, false, &rec);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		struct vlog_entry e;

		n++;
		good += vlog_parse(line, strlen(line), &e) == 0 && e.pid == 1234;
	}
	if (f)
		fclose(f);
	is_int(n, 1600, "8 writers x 200 records: every one appended (parents made)");
	is_int(good, 1600, "… each a whole line");
	struct stat st;
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "the log is 0600");
	snprintf(path, sizeof(path), "%s/state", D);
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0700, "its new directories 0700");
	is_int(vlog_write("/dev/full", false, &rec), -ENOSPC, "a full disk: ENOSPC, and on");
	is_int(vlog_write("/proc/nonexistent/x/log", false, &rec), -ENOENT,
	       "an unwritable path: ENOENT, and on");
	is_int(vlog_write(NULL, false, &rec), 1, "no path: nothing written");
}

static void test_syslog(void)
{
	char jp[128], sp[128], buf[8192];
	int j, s;
	ssize_t n;

	snprintf(jp, sizeof(jp), "%s/journal", D);
	snprintf(sp, sizeof(sp), "%s/devlog", D);
	j = bind_dgram(jp);
	s = bind_dgram(sp);
	ok(j >= 0 && s >= 0, "fake journald and syslog sockets");
	is_int(vlog_syslog_at(jp, sp, &rec), 0, "sent to journald");
	n = recv(j, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	buf[n > 0 ? n : 0] = '\0';
	ok(strstr(buf, "SYSLOG_FACILITY=10\n") && strstr(buf, "SBXSH_KIND=read\n") &&
	       strstr(buf, "SBXSH_PATH=/home/u/.aws/credentials\n") &&
	       strstr(buf, "SYSLOG_IDENTIFIER=sbxsh\n"),
	   "journald gets structured fields (authpriv)");
	ok(!strstr(buf, "\t") && !strstr(buf, "\x01"), "… no control bytes inside a field");
	is_int(vlog_syslog_at("/nonexistent/journal", sp, &rec), 0, "no journald: syslog");
	n = recv(s, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	buf[n > 0 ? n : 0] = '\0';
	ok(strncmp(buf, "<85>", 4) == 0 && strstr(buf, " kind=\"read\"") &&
	       strstr(buf, "path=\"/home/u/.aws/credentials\"") && strstr(buf, "\\\"q\\\""),
	   "syslog gets <authpriv.notice> and key=\"value\" pairs: %.60s", buf);
	ok(vlog_syslog_at(NULL, "/nonexistent/devlog", &rec) < 0,
	   "no syslog at all: an error code only");
	int sent = 0, r = 0;
	for (int i = 0; i < 5000 && r == 0; i++, sent++)
		r = vlog_syslog_at(NULL, sp, &rec); /* nobody reads: the queue fills */
	ok(r == -EAGAIN || r == -ENOBUFS || r == 0,
	   "a syslog that does not read never blocks (%d sent)", sent);
	close(j);
	close(s);
}

int main(void)
{
	snprintf(D, sizeof(D), "/tmp/sbx-vlog.XXXXXX");
	if (!mkdtemp(D))
		return 1;
	test_json_append();
	test_roundtrip();
	test_parse_bad();
	test_append();
	test_syslog();
	if (fork() == 0) {
		execl("/bin/rm", "rm", "-rf", D, (char *)NULL);
		_exit(1);
	}
	wait(NULL);
	return tap_done();
}
