/* test_session_vlog — JSON escaping of violation log fields and appending. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session/vlog.h"
#include "tests/unit/tap.h"

static char *json(const char *s)
{
	struct vlog_buf b = {0};

	vlog_json_string(&b, s);
	return b.p;
}

int main(void)
{
	char *s, path[128], got[256];
	struct vlog_buf b = {0};
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
	vlog_append("/proc/nonexistent/x", "{}\n", 3);
	ok(1, "an unwritable log is ignored");
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	return tap_done();
}
