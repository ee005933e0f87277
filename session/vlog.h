/* vlog — the session's violation log: JSON lines appended to a file, and the same record to
 * journald (native fields) or syslog (key=value), facility LOG_AUTHPRIV (docs/monitor.md).
 *
 * Plain C, no event loop, no OpenSSL: the front end (file violations) and the session daemon
 * (network refusals) both write through it. Nothing here ever fails its caller.
 */
#ifndef SBX_SESS_VLOG_H
#define SBX_SESS_VLOG_H
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "platform/buf.h"

/* The formatters append to a struct buf (platform/buf.h): check its err once at the end. */
/* Appends s as a JSON string: quotes, escapes, invalid UTF-8 as U+FFFD. */
void vlog_json_string(struct buf *b, const char *s);
/* Appends "key":"value", with a comma when the object already has a field. */
void vlog_field(struct buf *b, const char *key, const char *value);
/* Appends the n bytes of line to the file at path (0600, parents made 0700). Returns 0, 1
 * when path is NULL, "" or /dev/null (nothing to write), or -errno; callers may ignore it:
 * the log never fails anything. */
int vlog_append(const char *path, const char *line, size_t n);

/* One violation. Every text may be NULL (left out). Field names in the JSON line are the
 * member names; "time" is added. kind: "read", "write", "exec", "unix" or "network". */
struct vlog_record {
	const char *session, *command, *cmdline, *cwd;
	const char *profile;	  /* the section a grant goes in, e.g. "[dir ~/src/app]" */
	const char *profile_file; /* the file that should hold it */
	const char *profile_at;	  /* the most specific matched section with file:line */
	const char *kind;
	const char *path; /* read/write/exec/unix */
	const char *host; /* network */
	unsigned port;	  /* network; 0: left out */
	const char *call; /* the system call, or NULL */
	long pid;	  /* 0: left out */
	const char *reason;
	const char *grant; /* the line that would allow it, or the explanation */
};

#define VLOG_CMDLINE_MAX 1024 /* a command line is cut to this many bytes */

/* Formats r as one JSON object and a newline into b (when: NULL for now). */
void vlog_format(struct buf *b, const struct vlog_record *r, const struct timespec *when);

/* Appends r to the file at path (NULL or "": none) with one write(), and sends it to
 * journald/syslog when use_syslog. Never blocks on a slow log reader. Returns
 * vlog_append's result for the file (callers may ignore it: the log never fails anything). */
int vlog_write(const char *path, bool use_syslog, const struct vlog_record *r);

/* The syslog half, to explicit sockets (tests): journal is journald's native socket, devlog
 * the syslog socket; either may be NULL. Returns 0 when a datagram was sent, -errno else. */
int vlog_syslog_at(const char *journal, const char *devlog, const struct vlog_record *r);

/* A parsed log line: the fields sbxsh log shows (pointers into the caller's buffer). */
struct vlog_entry {
	char *time, *session, *command, *cmdline, *cwd, *profile, *profile_file, *profile_at, *kind,
	    *path, *host, *call, *reason, *grant;
	long port, pid;
};

/* Parses one JSON line in place (buf is modified; n bytes, need not be NUL-terminated but
 * buf[n] must be writable). Unknown keys are skipped. Returns 0, or -EINVAL for a line that
 * is not one flat JSON object of strings and integers. */
int vlog_parse(char *buf, size_t n, struct vlog_entry *e);

#endif
