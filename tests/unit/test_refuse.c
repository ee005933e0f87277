/* test_refuse — refusal responses: complete, Content-Length right, Connection: close,
 * naming host, profile, file and the line to add; hostile hosts cannot inject. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/http.h"
#include "proxy/refuse.h"
#include "tests/unit/tap.h"

static char out[8192];

/* The response parses as one head, its Content-Length equals the body, no byte after. */
static int well_formed(ssize_t n, int status)
{
	char *end, *cl, *body;
	long want;

	if (n <= 0)
		return 0;
	out[n] = 0;
	end = strstr(out, "\r\n\r\n");
	cl = strstr(out, "\r\nContent-Length: ");
	if (!end || !cl || cl > end || strtol(out + 9, NULL, 10) != status)
		return 0;
	want = strtol(cl + 18, NULL, 10);
	body = end + 4;
	return (long)strlen(body) == want && (size_t)n == (size_t)(body - out) + (size_t)want &&
	       strstr(out, "\r\nConnection: close\r\n") < end &&
	       memchr(body, '\r', strlen(body)) == NULL;
}

/* Calls that do not check the result still leave out NUL-terminated. */
static ssize_t term(ssize_t n)
{
	out[n > 0 ? n : 0] = 0;
	return n;
}

static const char *body(void)
{
	return strstr(out, "\r\n\r\n") + 4;
}

static void test_403(void)
{
	struct refuse_info ri = {"evil.example",
				 443,
				 "not in allow_domains",
				 "[profile node]",
				 "/home/u/.config/sbxsh/sbxsh.ini",
				 NULL};
	ssize_t n = refuse_http_403(&ri, out, sizeof(out) - 1);

	ok(well_formed(n, 403), "403 is a complete response");
	ok(!strncmp(out, "HTTP/1.1 403 Forbidden\r\n", 24), "status line");
	ok(strstr(body(), "evil.example:443") != NULL, "names host and port");
	ok(strstr(body(), "Reason: not in allow_domains\n") != NULL, "names the reason");
	ok(strstr(body(), "[profile node] in /home/u/.config/sbxsh/sbxsh.ini") != NULL,
	   "names the profile and file");
	ok(strstr(body(), "\n    allow_domains += evil.example\n") != NULL,
	   "offers the exact line");

	ri.port = 8443;
	term(refuse_http_403(&ri, out, sizeof(out) - 1));
	ok(strstr(body(), "allow_domains += evil.example:8443\n") != NULL,
	   "non-default port: a port-specific line");
	ri.line = "allow_domains += *.example";
	term(refuse_http_403(&ri, out, sizeof(out) - 1));
	ok(strstr(body(), "allow_domains += *.example\n") != NULL, "the caller's line");
	ri.line = "";
	term(refuse_http_403(&ri, out, sizeof(out) - 1));
	ok(!strstr(body(), "add this line"), "no line when told not to");
	ri.line = NULL, ri.file = NULL;
	term(refuse_http_403(&ri, out, sizeof(out) - 1));
	ok(strstr(body(), "in the built-in default policy") != NULL, "built-in policy named");

	struct refuse_info v6 = {"2001:db8::1", 80, NULL, NULL, NULL, NULL};
	ok(well_formed(refuse_http_403(&v6, out, sizeof(out) - 1), 403), "IPv6 403");
	ok(strstr(body(), "[2001:db8::1]:80") != NULL, "IPv6 bracketed");

	struct refuse_info bad = {"evil.example\r\nSet-Cookie: x=1\r\n\r\n<script>",
				  80,
				  "reason\r\nX: y",
				  "[default]",
				  "/etc/sbxsh/sbxsh.ini\n",
				  NULL};
	n = refuse_http_403(&bad, out, sizeof(out) - 1);
	ok(well_formed(n, 403), "hostile host: still one well-formed response");
	ok(!strstr(out, "\r\nSet-Cookie") && !strstr(out, "\nSet-Cookie"), "no injected field");
	ok(strstr(body(), "evil.example\\x0D\\x0ASet-Cookie\\x3A x=1") == NULL &&
	       strstr(body(), "evil.example\\x0D\\x0ASet-Cookie:") != NULL,
	   "CR LF shown escaped");
	ok(strstr(body(), "\\x3Cscript\\x3E") != NULL, "markup escaped");
	ok(strstr(body(), "reason\\x0D\\x0AX: y") != NULL, "control bytes in reason escaped");
	ok(strstr(body(), "not valid") && !strstr(body(), "allow_domains +="),
	   "no policy line for an invalid host");

	struct refuse_info none = {NULL, 0, NULL, NULL, NULL, NULL};
	ok(well_formed(refuse_http_403(&none, out, sizeof(out) - 1), 403), "no host at all");

	ri.line = NULL;
	ri.file = "/f";
	n = refuse_http_403(&ri, out, sizeof(out) - 1);
	is_int(refuse_http_403(&ri, out, (size_t)n), n, "fits exactly");
	is_int(refuse_http_403(&ri, out, (size_t)n - 1), -ENOSPC, "one byte short: -ENOSPC");
}

static void test_502(void)
{
	ssize_t n = refuse_http_502("nx.example", 443, REFUSE_DNS, "Name or service not known", out,
				    sizeof(out) - 1);

	ok(well_formed(n, 502), "502 is a complete response");
	ok(strstr(body(),
		  "nx.example:443: the host name does not resolve (Name or service not known)"),
	   "DNS failure body");
	term(refuse_http_502("a.example", 80, REFUSE_UPSTREAM_REFUSED, NULL, out, sizeof(out) - 1));
	ok(strstr(body(), "a.example:80: the server refused the connection.\n") != NULL, "refused");
	term(refuse_http_502("a.example", 80, REFUSE_UPSTREAM_UNREACHABLE, NULL, out,
			     sizeof(out) - 1));
	ok(strstr(body(), "unreachable") != NULL, "unreachable");
	term(refuse_http_502("a.example", 80, REFUSE_UPSTREAM_TIMEOUT, NULL, out, sizeof(out) - 1));
	ok(strstr(body(), "timed out") != NULL, "timeout");
	term(refuse_http_502("a\nb", 80, (enum refuse_upstream)77, "x\ry", out, sizeof(out) - 1));
	ok(well_formed((ssize_t)strlen(out), 502) && strstr(body(), "a\\x0Ab") &&
	       strstr(body(), "x\\x0Dy"),
	   "unknown reason, hostile host and detail escaped");
}

static void test_status(void)
{
	ssize_t n = refuse_http_status(http_error_status(HTTP_E_HOST_MISMATCH),
				       http_strerror(HTTP_E_HOST_MISMATCH), out, sizeof(out) - 1);

	ok(well_formed(n, 400), "400 for a Host mismatch");
	ok(strstr(body(), "sbxsh: Host header does not match the request target\n") != NULL,
	   "body names the problem");
	ok(well_formed(refuse_http_status(505, NULL, out, sizeof(out) - 1), 505), "505");
	ok(!strncmp(out, "HTTP/1.1 505 HTTP Version Not Supported\r\n", 41), "505 phrase");
	ok(well_formed(refuse_http_status(431, "x", out, sizeof(out) - 1), 431), "431");
	is_int(refuse_http_status(42, "x", out, sizeof(out)), -EINVAL, "status out of range");

	ok(refuse_host_is_plain("a-b.c_d:1"), "plain host");
	ok(!refuse_host_is_plain("a b"), "space is not plain");
	ok(!refuse_host_is_plain(""), "empty is not plain");
	ok(!refuse_host_is_plain(NULL), "NULL is not plain");

	static const struct {
		const char *host;
		uint16_t port;
		const char *want; /* NULL: no line */
	} lines[] = {
	    {"a.example", 443, "allow_domains += a.example"},
	    {"a.example", 8443, "allow_domains += a.example:8443"},
	    {"localhost", 80, "allow_domains += localhost:80"},
	    {"localhost", 5432, "allow_domains += localhost:5432"},
	    {"10.0.0.1", 80, "allow_domains += 10.0.0.1"},
	    {"::1", 443, "allow_domains += ::1"},
	    {"::1", 8080, "allow_domains += [::1]:8080"},
	    {"intranet", 80, NULL},
	    {"-x.example", 80, NULL},
	    {"a_b.example", 80, "allow_domains += a_b.example"},
	    {"a b.example", 80, NULL},
	    {"a.example", 0, NULL},
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int r = refuse_grant_line(lines[i].host, lines[i].port, out, sizeof(out));
		if (lines[i].want)
			ok(r == 0 && strcmp(out, lines[i].want) == 0, "%s:%u is offered '%s'",
			   lines[i].host, lines[i].port, lines[i].want);
		else
			is_int(r, -1, "%s:%u is offered no line", lines[i].host, lines[i].port);
	}
}

int main(void)
{
	test_403();
	test_502();
	test_status();
	return tap_done();
}
