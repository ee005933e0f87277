/* refuse — refusal responses of the proxy.
 *
 * Rules this file keeps:
 * - The host is hostile: a byte outside letters, digits and "-._:" is written as \xHH, so
 *   no CR, LF or other control byte from it reaches a response; such a host is never put
 *   in a suggested policy line.
 * - A suggested line is one the policy parser takes and that lets the refused request
 *   through (refuse_grant_line), never a guess.
 * - The other strings (reason, profile, file) are the daemon's, but paths may hold any byte:
 *   control bytes in them are escaped too.
 * - Every response is complete and self-delimiting: Content-Length, Connection: close.
 *   The output buffer is the caller's; nothing is written past cap.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/refuse.h"

#include "proxy/domain.h"

#include "platform/buf.h"

static void w_hex(struct fbuf *w, unsigned char c)
{
	fbuf_printf(w, "\\x%02X", c);
}

static int host_byte_ok(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == ':';
}

/* The host, escaped; IPv6 literals bracketed so ":port" stays readable. */
static void w_host(struct fbuf *w, const char *host, uint16_t port)
{
	int v6 = host && strchr(host, ':');

	if (!host || !*host) {
		fbuf_puts(w, "(no host)");
		return;
	}
	if (v6)
		fbuf_puts(w, "[");
	for (size_t i = 0; host[i] && i < 1024; i++) {
		if (host_byte_ok((unsigned char)host[i]))
			fbuf_add(w, host + i, 1);
		else
			w_hex(w, (unsigned char)host[i]);
	}
	if (v6)
		fbuf_puts(w, "]");
	if (port)
		fbuf_printf(w, ":%u", (unsigned)port);
}

/* Daemon text: control bytes escaped, the rest (UTF-8 paths) kept. */
static void w_text(struct fbuf *w, const char *s)
{
	for (size_t i = 0; s[i] && i < 8192; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			w_hex(w, c);
		else
			fbuf_add(w, s + i, 1);
	}
}

int refuse_host_is_plain(const char *host)
{
	size_t n = host ? strlen(host) : 0;

	if (n == 0 || n > 255)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!host_byte_ok((unsigned char)host[i]))
			return 0;
	return 1;
}

int refuse_grant_line(const char *host, uint16_t port, char *out, size_t cap)
{
	struct domain_pattern pat;
	char text[300], *err = NULL;
	bool web = port == 80 || port == 443;
	int r;

	if (!refuse_host_is_plain(host) || port == 0)
		return -1;
	/* localhost on a web port too: only localhost:PORT is a grant of the loopback */
	if (strchr(host, ':'))
		r = web ? snprintf(text, sizeof(text), "%s", host)
			: snprintf(text, sizeof(text), "[%s]:%u", host, (unsigned)port);
	else if (web && strcmp(host, "localhost") != 0)
		r = snprintf(text, sizeof(text), "%s", host);
	else
		r = snprintf(text, sizeof(text), "%s:%u", host, (unsigned)port);
	if (r < 0 || (size_t)r >= sizeof(text))
		return -1;
	/* offered only when the policy takes it and it lets this very request through */
	r = domain_pattern_parse(text, &pat, &err);
	free(err);
	if (r < 0 || !domain_match(&pat, host, port))
		return -1;
	r = snprintf(out, cap, "allow_domains += %s", text);
	return r < 0 || (size_t)r >= cap ? -1 : 0;
}

static const char *status_phrase(int status)
{
	static const struct {
		int status;
		const char *phrase;
	} phrases[] = {
	    {400, "Bad Request"},
	    {403, "Forbidden"},
	    {405, "Method Not Allowed"},
	    {408, "Request Timeout"},
	    {414, "URI Too Long"},
	    {431, "Request Header Fields Too Large"},
	    {500, "Internal Server Error"},
	    {501, "Not Implemented"},
	    {502, "Bad Gateway"},
	    {504, "Gateway Timeout"},
	    {505, "HTTP Version Not Supported"},
	};

	for (size_t i = 0; i < sizeof(phrases) / sizeof(phrases[0]); i++)
		if (phrases[i].status == status)
			return phrases[i].phrase;
	return "Error";
}

typedef void (*body_fn)(struct fbuf *w, const void *arg);

/* Head and body: the body is written once to count it, then for real. */
static ssize_t respond(int status, body_fn body, const void *arg, char *out, size_t cap)
{
	struct fbuf count = fbuf_on(NULL, 0), w = fbuf_on(out, cap);

	if (status < 100 || status > 599)
		return -EINVAL;
	body(&count, arg);
	fbuf_printf(&w, "HTTP/1.1 %d %s\r\n", status, status_phrase(status));
	fbuf_puts(&w, "Content-Type: text/plain; charset=utf-8\r\n");
	fbuf_printf(&w, "Content-Length: %zu\r\n", count.n);
	fbuf_puts(&w, "Connection: close\r\n\r\n");
	body(&w, arg);
	return fbuf_result(&w);
}

static void suggest(struct fbuf *w, const struct refuse_info *ri)
{
	char line[320];

	if (ri->line && !*ri->line)
		return;
	if (!ri->line && refuse_grant_line(ri->host, ri->port, line, sizeof(line)) < 0) {
		fbuf_puts(w, "The host name is not valid in allow_domains (a full name, e.g. "
			     "host.example.com), so no policy line can allow it.\n");
		return;
	}
	fbuf_puts(w, "To allow it, add this line to that section:\n\n    ");
	w_text(w, ri->line ? ri->line : line);
	fbuf_puts(w, "\n");
}

static void body_403(struct fbuf *w, const void *arg)
{
	const struct refuse_info *ri = arg;

	fbuf_puts(w, "sbxsh: the sandbox's network proxy refused a connection to ");
	w_host(w, ri->host, ri->port);
	fbuf_puts(w, ".\n");
	if (ri->reason) {
		fbuf_puts(w, "Reason: ");
		w_text(w, ri->reason);
		fbuf_puts(w, "\n");
	}
	if (ri->profile) {
		fbuf_puts(w, "Profile: ");
		w_text(w, ri->profile);
		fbuf_puts(w, " in ");
		w_text(w, ri->file ? ri->file : "the built-in default policy");
		fbuf_puts(w, "\n");
	}
	suggest(w, ri);
}

ssize_t refuse_http_403(const struct refuse_info *ri, char *out, size_t cap)
{
	return respond(403, body_403, ri, out, cap);
}

struct args_502 {
	const char *host, *detail;
	uint16_t port;
	enum refuse_upstream why;
};

static void body_502(struct fbuf *w, const void *arg)
{
	const struct args_502 *a = arg;
	static const char *const what[] = {
	    [REFUSE_DNS] = "the host name does not resolve",
	    [REFUSE_UPSTREAM_REFUSED] = "the server refused the connection",
	    [REFUSE_UPSTREAM_UNREACHABLE] = "the server is unreachable",
	    [REFUSE_UPSTREAM_TIMEOUT] = "the connection timed out",
	};
	unsigned i = (unsigned)a->why;

	fbuf_puts(w, "sbxsh: could not connect to ");
	w_host(w, a->host, a->port);
	fbuf_puts(w, ": ");
	fbuf_puts(w, i < sizeof(what) / sizeof(what[0]) && what[i] ? what[i] : "connection failed");
	if (a->detail) {
		fbuf_puts(w, " (");
		w_text(w, a->detail);
		fbuf_puts(w, ")");
	}
	fbuf_puts(w, ".\n");
}

ssize_t refuse_http_502(const char *host, uint16_t port, enum refuse_upstream why,
			const char *detail, char *out, size_t cap)
{
	struct args_502 a = {host, detail, port, why};

	return respond(502, body_502, &a, out, cap);
}

static void body_status(struct fbuf *w, const void *arg)
{
	fbuf_puts(w, "sbxsh: ");
	w_text(w, arg ? arg : "request refused");
	fbuf_puts(w, "\n");
}

ssize_t refuse_http_status(int status, const char *message, char *out, size_t cap)
{
	return respond(status, body_status, message, out, cap);
}
