/* http — HTTP/1.1 forward-proxy request heads: parse, rewrite for upstream, chunked framing;
 * response heads: parse (where the body ends), rewrite for the client.
 *
 * Pure and I/O-free. Nothing here allocates; every result points into (or is copied into)
 * memory the caller owns. Input is hostile: see the rules at the top of http.c. */
#ifndef SBX_PROXY_HTTP_H
#define SBX_PROXY_HTTP_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Macros, not enumerators, so the error messages can spell them (http.c, SBX_STR). */
#define HTTP_LINE_MAX	 8192  /* request line, without its CRLF */
#define HTTP_HEAD_MAX	 65536 /* whole head: request line, fields, final empty line */
#define HTTP_HEADERS_MAX 100   /* field lines */

enum {
	HTTP_METHOD_MAX = 24,	    /* longest registered method is 17 */
	HTTP_HOST_MAX = 255,	    /* host as written, without brackets */
	HTTP_CHUNK_LINE_MAX = 4096, /* chunk-size line with extensions */
	HTTP_TRAILER_MAX = 16384,   /* all trailer fields together */
};

/* Results: > 0 is bytes consumed; HTTP_PARTIAL wants more bytes; the rest are errors. */
enum http_result {
	HTTP_PARTIAL = -1,
	HTTP_E_SYNTAX = -2,		/* bad byte, bare CR or LF, obs-fold, space before colon */
	HTTP_E_LINE_TOO_LONG = -3,	/* request line > HTTP_LINE_MAX: 414 */
	HTTP_E_HEAD_TOO_LARGE = -4,	/* head > HTTP_HEAD_MAX: 431 */
	HTTP_E_TOO_MANY_HEADERS = -5,	/* > HTTP_HEADERS_MAX fields: 431 */
	HTTP_E_METHOD = -6,		/* not a token, or too long */
	HTTP_E_VERSION = -7,		/* not HTTP/1.0 or HTTP/1.1: 505 */
	HTTP_E_TARGET = -8,		/* request-target unusable (bad host, port, '#', '*') */
	HTTP_E_ORIGIN_FORM = -9,	/* "/path": a request for an origin server, not a proxy */
	HTTP_E_SCHEME = -10,		/* absolute-form other than http:// */
	HTTP_E_USERINFO = -11,		/* http://user@host/: refused, never parsed past */
	HTTP_E_HOST_MISSING = -12,	/* HTTP/1.1 without Host */
	HTTP_E_HOST_DUPLICATE = -13,	/* more than one Host */
	HTTP_E_HOST_MISMATCH = -14,	/* Host names another host or port than the target */
	HTTP_E_CONTENT_LENGTH = -15,	/* invalid, or several different values */
	HTTP_E_TRANSFER_ENCODING = -16, /* not ending in chunked, chunked twice, or on HTTP/1.0 */
	HTTP_E_CL_AND_TE = -17,		/* both Content-Length and Transfer-Encoding */
	HTTP_E_CONNECT_BODY = -18,	/* CONNECT with a body */
	HTTP_E_CHUNKED = -19,		/* chunked body framing is broken */
	HTTP_E_NOSPC = -20,		/* caller's output buffer too small */
	/* responses only */
	HTTP_E_STATUS = -21,  /* status code not three digits in 100..599 */
	HTTP_E_UPGRADE = -22, /* 101 Switching Protocols: the proxy never forwards Upgrade */
	HTTP_E_INTERIM = -23, /* too many 1xx responses (the caller counts them) */
};

enum http_form {
	HTTP_FORM_ABSOLUTE = 1, /* GET http://host[:port]/path HTTP/1.1 */
	HTTP_FORM_AUTHORITY,	/* CONNECT host:port HTTP/1.1 */
	HTTP_FORM_ORIGIN,	/* GET /path: reported with HTTP_E_ORIGIN_FORM */
};

enum http_body {
	HTTP_BODY_NONE = 0,
	HTTP_BODY_LENGTH,  /* content_length bytes follow the head */
	HTTP_BODY_CHUNKED, /* run struct http_chunked over the bytes after the head */
	HTTP_BODY_CLOSE,   /* responses: until the server closes the connection */
};

/* A slice of the caller's buffer: never NUL-terminated. */
struct http_slice {
	const char *p;
	size_t n;
};

struct http_header {
	struct http_slice name, value; /* value without surrounding whitespace */
};

struct http_request {
	struct http_slice method;
	enum http_form form;
	struct http_slice target; /* the request-target as sent */
	struct http_slice scheme; /* "http" as written (absolute-form), else empty */
	struct http_slice host;	  /* as written; an IPv6 literal without its brackets */
	int host_is_ipv6;	  /* host was [..] */
	uint16_t port;		  /* explicit, or 80 for http:// */
	int port_explicit;
	struct http_slice path; /* absolute-form: path and query, may be empty or start '?' */
	int version_minor;	/* HTTP/1.<minor>: 0 or 1 */
	int is_connect;
	struct http_header headers[HTTP_HEADERS_MAX];
	size_t nheaders;
	enum http_body body;
	uint64_t content_length; /* HTTP_BODY_LENGTH only */
	int keep_alive; /* the client's wish: version default, Connection, Proxy-Connection */
	int has_host;	/* a Host field was present (HTTP/1.0 may omit it) */
};

/* Parses a request head from buf[0..len). last_len is len at the previous call for the same
 * request (0 the first time): the end of the head is looked for only in the new bytes, so a
 * client feeding one byte at a time costs linear time. Returns the head's length (> 0) with
 * *req filled (slices into buf, valid while buf is), HTTP_PARTIAL, or an http_result error;
 * on HTTP_E_ORIGIN_FORM and HTTP_E_HOST_MISMATCH *req is filled as far as the target. */
int http_parse_request(const char *buf, size_t len, size_t last_len, struct http_request *req);

/* A short English phrase for an http_result ("Host header does not match the request
 * target"); static storage. */
const char *http_strerror(int result);

/* The HTTP status a proxy answers an http_result with (400, 414, 431, 501, 505). */
int http_error_status(int result);

enum {
	HTTP_REWRITE_CLOSE = 1,	  /* add "Connection: close" for the upstream */
	HTTP_REWRITE_SLACK = 128, /* a rewritten head is at most this longer than the head */
};

/* Writes the head to forward upstream into out[0..cap): request line in origin-form with
 * HTTP/1.1, the client's fields minus hop-by-hop ones (Connection and the fields it names,
 * Proxy-Connection, Proxy-Authorization, Proxy-Authenticate, Keep-Alive, TE, Trailer,
 * Upgrade), Host kept (added from the target for an HTTP/1.0 client that sent none),
 * Content-Length and Transfer-Encoding always kept. req must come from a successful
 * http_parse_request of a non-CONNECT request; cap = head length + HTTP_REWRITE_SLACK always
 * suffices. Returns the length written (no NUL), or
 * HTTP_E_NOSPC (out is then unspecified), or HTTP_E_TARGET for a CONNECT request. */
ssize_t http_rewrite_head(const struct http_request *req, unsigned flags, char *out, size_t cap);

/* Chunked body framing: finds where a chunked body ends without trusting the client. */
struct http_chunked {
	int state;
	uint64_t remaining; /* data bytes left in the current chunk */
	size_t line;	    /* bytes of the current size or trailer line so far */
	size_t trailer;	    /* trailer bytes so far */
};

/* Starts a body. */
void http_chunked_init(struct http_chunked *c);

/* Scans the next len bytes of the body. Returns the number of them that belong to the body
 * (all of len unless the body ends inside buf; the rest is the next pipelined request), or
 * HTTP_E_CHUNKED. http_chunked_done() tells whether the end was reached. The state is the
 * caller's; no byte is kept. */
ssize_t http_chunked_scan(struct http_chunked *c, const char *buf, size_t len);

/* 1 once the final chunk and trailers have been scanned. */
int http_chunked_done(const struct http_chunked *c);

/* --- responses ---------------------------------------------------------------------------- */

#define HTTP_INTERIM_MAX 16 /* 1xx responses before the final one */

struct http_response {
	int version_minor; /* HTTP/1.<minor>: 0 or 1 */
	int status;	   /* 100..599 */
	struct http_slice reason;
	struct http_header headers[HTTP_HEADERS_MAX];
	size_t nheaders;
	enum http_body body;	 /* NONE, LENGTH, CHUNKED or CLOSE */
	uint64_t content_length; /* HTTP_BODY_LENGTH only */
};

enum {
	HTTP_RESP_TO_HEAD = 1, /* http_parse_response: the request was HEAD (no body follows) */
};

/* Parses a response head from buf[0..len), as strictly as a request head (CRLF only, no
 * NUL, no obs-fold, the same limits: status line 8192 bytes, head 65536, 100 fields), and
 * decides where its body ends: none for HEAD (flags), 1xx, 204 and 304; chunked when
 * Transfer-Encoding ends in chunked; Content-Length bytes; else until the server closes
 * (also when Transfer-Encoding does not end in chunked). Content-Length with
 * Transfer-Encoding, Transfer-Encoding on HTTP/1.0, a bad Content-Length, a status outside
 * 100..599 and 101 are errors. last_len as for http_parse_request. Returns the head's
 * length (> 0) with *resp filled (slices into buf), HTTP_PARTIAL, or an http_result. */
int http_parse_response(const char *buf, size_t len, size_t last_len, unsigned flags,
			struct http_response *resp);

/* A short English phrase for a response parse result; static storage. */
const char *http_response_strerror(int result);

enum {
	HTTP_RESP_CLOSE = 1,	  /* add "Connection: close": the proxy closes after this one */
	HTTP_RESP_KEEP_ALIVE = 2, /* add "Connection: keep-alive" (an HTTP/1.0 client's wish) */
};

/* Writes the head to relay to the client: "HTTP/1.1 code reason", the server's fields minus
 * hop-by-hop ones (Connection and the fields it names, Keep-Alive, Proxy-Connection,
 * Upgrade, Proxy-Authenticate; never Content-Length or Transfer-Encoding: the body is relayed
 * with its framing as it came), then the Connection field flags ask for. cap = head length +
 * HTTP_REWRITE_SLACK always suffices. Returns the length, or HTTP_E_NOSPC. */
ssize_t http_rewrite_response(const struct http_response *resp, unsigned flags, char *out,
			      size_t cap);

#endif
