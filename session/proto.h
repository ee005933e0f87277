/* proto — the session control protocol (front end <-> session daemon, daemon -> listen relay).
 *
 * A frame is a 4-byte big-endian body length, then the body: a version byte, a type byte and
 * fields. A field is a tag byte, a 2-byte big-endian length and that many value bytes. Texts
 * hold no NUL; numbers are big-endian (u16: 2 bytes, u64: 8). File descriptors travel beside
 * the frame's bytes as SCM_RIGHTS, one T_FD field naming the role of each, in order.
 * Every size is bounded below; the decoder never allocates and points into the frame.
 */
#ifndef SBX_SESS_PROTO_H
#define SBX_SESS_PROTO_H
#include <stddef.h>
#include <stdint.h>

#include "platform/buf.h"

#define SESS_PROTO_VERSION 1
#define SESS_HDR_LEN	   4
#define SESS_BODY_MAX	   65536 /* bytes of one frame's body */
#define SESS_FIELD_MAX	   4096	 /* bytes of one field's value */
#define SESS_CMDLINE_MAX   1024	 /* the client truncates a command line to this */
#define SESS_LIST_MAX	   256	 /* entries of allow / deny */
#define SESS_PORTS_MAX	   32	 /* entries of reach / listen */
#define SESS_CONN_MAX	   256	 /* proxy connections one command holds at once (default) */
#define SESS_CONN_MAX_MAX  65536 /* the most SBXSH_PROXY_CONN_MAX may say */
#define SESS_CONN_MAX_ENV  "SBXSH_PROXY_CONN_MAX"
#define SESS_FDS_MAX	   128 /* descriptors with one frame */
#define SESS_REFUSALS_MAX  32  /* distinct network refusals an END reply carries */
#define SESS_REFUSAL_TEXT  480 /* bytes the daemon keeps of a refusal's host, reason, grant */
#define SESS_NOTES_MAX	   16  /* distinct upstream failures (notes) an END reply carries */

enum sess_type {
	SESS_BEGIN = 1,	 /* client: a command starts; its listeners ride along */
	SESS_END = 2,	 /* client: the command finished; the OK carries its network refusals */
	SESS_STATUS = 3, /* client: counters, please */
	SESS_STOP = 4,	 /* client: exit now */
	SESS_RELAY = 5,	 /* daemon -> listen relay: one accepted host connection for T_PORT */
	SESS_OK = 0x81,
	SESS_ERR = 0x82,	  /* T_TEXT says why */
	SESS_STATUS_REPLY = 0x83, /* the counters */
};

enum sess_tag {
	T_CMD_ID = 1,	    /* text: the command's id (front end pid + start time) */
	T_CMDLINE = 2,	    /* text */
	T_CWD = 3,	    /* text */
	T_PROFILE = 4,	    /* text: the section a new grant goes in, e.g. "[dir ~/src/app]" */
	T_PROFILE_FILE = 5, /* text: the file holding that section */
	T_ALLOW = 6,	    /* text, repeated: an allow_domains value */
	T_DENY = 7,	    /* text, repeated: a deny_domains value */
	T_REACH = 8,	    /* u16, repeated: a host loopback port the command may reach */
	T_LISTEN = 9,	    /* u16, repeated: a port relayed from the host's loopback */
	T_FD = 10,	    /* u8 role, u16 port: one per descriptor, in order */
	T_TEXT = 11,	    /* text: an OK note or an ERR reason */
	T_PORT = 12,	    /* u16 */
	T_REFUSAL = 13,	    /* repeated, in END's OK: u16 port, then host, reason and grant,
			       each a u16 length and that many bytes (no NUL) */
	T_UNLISTED = 14,    /* u16: the command's refusals beyond SESS_REFUSALS_MAX */
	T_NOTE = 15,	    /* repeated, in END's OK: an upstream failure (no such name,
			       connection refused, timed out), laid out as T_REFUSAL (grant "") */
	T_PID = 20,	    /* u64, the status counters from here on */
	T_UPTIME = 21,
	T_SERVED = 22,
	T_LIVE = 23,
	T_CONNS = 24,
	T_ALLOWED = 25,
	T_REFUSED = 26,
	T_BYTES_UP = 27,
	T_BYTES_DOWN = 28,
};

/* What a descriptor passed with BEGIN is. */
enum sess_fd_role {
	SESS_FD_HTTP = 1,  /* listening TCP: HTTP proxy (and CONNECT) */
	SESS_FD_SOCKS = 2, /* listening TCP: SOCKS5 */
	SESS_FD_REACH = 3, /* listening TCP: relayed to the host's loopback port */
	SESS_FD_RELAY = 4, /* connected unix stream: the stage's listen relay */
};

struct sess_str {
	const char *p; /* not NUL-terminated; points into the frame or the caller's data */
	size_t n;
};

struct sess_fdspec {
	uint8_t role;
	uint16_t port; /* SESS_FD_REACH: the host port; otherwise 0 */
};

enum sess_counter {
	SC_PID,
	SC_UPTIME,
	SC_SERVED,
	SC_LIVE,
	SC_CONNS,
	SC_ALLOWED,
	SC_REFUSED,
	SC_BYTES_UP,
	SC_BYTES_DOWN,
	SC_N
};

/* One network refusal of a command, as the daemon's proxy decided it (texts may be empty). */
struct sess_refusal {
	struct sess_str host, reason, grant;
	uint16_t port;
};

struct sess_msg {
	uint8_t type;
	struct sess_str cmd_id, cmdline, cwd, profile, profile_file, text;
	struct sess_str allow[SESS_LIST_MAX], deny[SESS_LIST_MAX];
	size_t nallow, ndeny;
	uint16_t reach[SESS_PORTS_MAX], listen[SESS_PORTS_MAX];
	size_t nreach, nlisten;
	struct sess_fdspec fds[SESS_FDS_MAX];
	size_t nfds;
	uint16_t port;
	struct sess_refusal refusals[SESS_REFUSALS_MAX];
	size_t nrefusals;
	uint16_t refusals_more;
	struct sess_refusal notes[SESS_NOTES_MAX];
	size_t nnotes;
	uint64_t counter[SC_N];
	unsigned have_counters; /* bit i set: counter[i] was sent */
};

/* How many bytes the frame at frame (n bytes there) needs in all: 0 when fewer than
 * SESS_HDR_LEN are there yet, else SESS_HDR_LEN + body length; -EMSGSIZE past SESS_BODY_MAX,
 * -EPROTO when the body is too short to hold a version and a type. */
long sess_frame_len(const void *frame, size_t n);

/* Decodes one whole frame (n == sess_frame_len) into *m, whose texts point into frame.
 * Returns 0, or -EPROTO for a malformed frame (unknown tag, bad length, NUL in a text,
 * port 0, repeated scalar, too many entries), -EPROTONOSUPPORT for another version. */
int sess_decode(const void *frame, size_t n, struct sess_msg *m);

/* Encodes *m (every field that is set: texts with p != NULL, lists, counters in
 * have_counters) into b (platform/buf.h), which is reset first and limited to a frame's
 * size. Returns 0, or -E2BIG / -ENOMEM / -EINVAL. The caller frees b with buf_free. */
int sess_encode(const struct sess_msg *m, struct buf *b);

/* A text as a sess_str (NULL stays unset). */
struct sess_str sess_s(const char *s);

/* The descriptor counts a message type may carry, for the receiving side to check. */
size_t sess_fds_expected(const struct sess_msg *m);

#endif
