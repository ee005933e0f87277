/* command — one command's front in the daemon: its rules, its listeners, its host ports.
 *
 * Rules kept here:
 * - a command's rules come only from its own BEGIN; the listener a connection arrives on is
 *   what names the command, so nothing sent through a listener can borrow another's rules;
 * - every descriptor passed in is checked for what its role says (a listening TCP socket,
 *   a connected unix socket) before it is used, and closed on every error path;
 * - a loopback-reach listener must name a port the allow list grants as localhost:PORT;
 * - a listen port already held on the host refuses the command by name, before it runs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "session/daemon/conn.h"
#include "session/errf.h"
#include "session/daemon/sessd.h"
#include "session/vlog.h"
#include "session/wire.h"

static char *dupstr(struct sess_str s)
{
	return s.p ? strndup(s.p, s.n) : strdup("");
}

void cmd_ref(struct cmd *c)
{
	c->refs++;
}

void cmd_unref(struct cmd *c)
{
	if (--c->refs)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		c->d->cmds = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c->id);
	free(c->cmdline);
	free(c->cwd);
	free(c->profile);
	free(c->profile_file);
	free(c->allow);
	free(c->deny);
	for (size_t i = 0; i < c->nnotes; i++) {
		free(c->notes[i].host);
		free(c->notes[i].reason);
		free(c->notes[i].grant);
	}
	for (size_t i = 0; i < c->nrefusals; i++) {
		free(c->refusals[i].host);
		free(c->refusals[i].reason);
		free(c->refusals[i].grant);
	}
	free(c);
}

static void lsn_closed(uv_handle_t *h)
{
	struct lsn *l = h->data;
	struct cmd *c = l->cmd;

	free(l);
	cmd_unref(c);
}

void cmd_end(struct cmd *c)
{
	if (c->ended)
		return;
	c->ended = true;
	for (struct lsn *l = c->lsns, *next; l; l = next) {
		next = l->next;
		uv_close((uv_handle_t *)&l->h, lsn_closed);
	}
	c->lsns = NULL;
	while (c->conns)
		conn_close(c->conns);
	if (c->relay_fd >= 0)
		close(c->relay_fd);
	c->relay_fd = -1;
	cmd_unref(c);
}

static int parse_list(const struct sess_str *v, size_t n, const char *key,
		      struct domain_pattern **out, char **why)
{
	struct domain_pattern *p = calloc(n ? n : 1, sizeof(*p));
	char text[SESS_FIELD_MAX + 1], *e = NULL;

	if (!p)
		return sess_errf(why, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		snprintf(text, sizeof(text), "%.*s", (int)v[i].n, v[i].p);
		if (domain_pattern_parse(text, &p[i], &e) < 0) {
			sess_errf(why, -EINVAL, "%s = %s: %s", key, text, e ? e : "invalid");
			free(e);
			free(p);
			return -EINVAL;
		}
	}
	*out = p;
	return 0;
}

static int sockopt(int fd, int opt)
{
	int v = -1;
	socklen_t l = sizeof(v);

	return getsockopt(fd, SOL_SOCKET, opt, &v, &l) < 0 ? -1 : v;
}

static bool port_in(const uint16_t *v, size_t n, uint16_t port)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == port)
			return true;
	return false;
}

/* A loopback port is granted by an allow entry naming localhost, 127.0.0.1 or ::1 with
 * exactly that port. */
static bool reach_granted(const struct cmd *c, uint16_t port)
{
	static const char *const names[] = {"localhost", "127.0.0.1", "::1"};

	for (size_t i = 0; i < c->nallow; i++)
		for (size_t k = 0; k < 3; k++)
			if (c->allow[i].port == port && !c->allow[i].wildcard &&
			    strcmp(c->allow[i].host, names[k]) == 0)
				return port_in(c->reach, c->nreach, port);
	return false;
}

/* Checks a passed descriptor against its role. */
static int check_fd(const struct cmd *c, int fd, const struct sess_fdspec *fs, char **why)
{
	int dom = sockopt(fd, SO_DOMAIN), type = sockopt(fd, SO_TYPE);
	int acc = sockopt(fd, SO_ACCEPTCONN);

	if (fs->role == SESS_FD_RELAY) {
		if (dom != AF_UNIX || type != SOCK_STREAM || acc != 0 || c->relay_fd >= 0)
			return sess_errf(why, -EINVAL,
					 "the listen relay descriptor is not one "
					 "connected unix stream socket");
		return 0;
	}
	if ((dom != AF_INET && dom != AF_INET6) || type != SOCK_STREAM || acc != 1)
		return sess_errf(why, -EINVAL, "descriptor %d is not a listening TCP socket", fd);
	if (fs->role == SESS_FD_REACH && !reach_granted(c, fs->port))
		return sess_errf(why, -EPERM, "loopback port %u is not granted (localhost:%u)",
				 fs->port, fs->port);
	return 0;
}

static void on_lsn_conn(uv_stream_t *s, int status)
{
	struct lsn *l = s->data;

	if (status < 0 || l->cmd->ended)
		return;
	conn_accepted(l);
}

/* Wraps a listening descriptor into a handle of the command. Takes fd. */
static int add_lsn(struct cmd *c, int fd, int role, uint16_t port, char **why)
{
	struct lsn *l = calloc(1, sizeof(*l));
	int rc;

	if (!l) {
		close(fd);
		return sess_errf(why, -ENOMEM, "out of memory");
	}
	uv_tcp_init(c->d->loop, &l->h);
	l->h.data = l;
	l->cmd = c;
	l->role = role;
	l->port = port;
	cmd_ref(c);
	l->next = c->lsns;
	c->lsns = l;
	if ((rc = uv_tcp_open(&l->h, fd)) < 0) {
		close(fd);
		return sess_errf(why, rc, "listener: %s", uv_strerror(rc));
	}
	if ((rc = uv_listen((uv_stream_t *)&l->h, SOMAXCONN, on_lsn_conn)) < 0)
		return sess_errf(why, rc, "listener: %s", uv_strerror(rc));
	return 0;
}

/* Binds the host's 127.0.0.1:port for a listen grant. */
static int host_port(struct cmd *c, uint16_t port, char **why)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return sess_errf(why, -errno, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, SOMAXCONN) < 0) {
		int e = errno;
		close(fd);
		if (e == EADDRINUSE)
			return sess_errf(why, -e,
					 "listen = %u: port %u is already in use on the host's "
					 "127.0.0.1; stop what holds it or choose another port "
					 "(in %s of %s)",
					 port, port, c->profile, c->profile_file);
		return sess_errf(why, -e, "listen = %u: cannot bind 127.0.0.1:%u: %s", port, port,
				 strerror(e));
	}
	return add_lsn(c, fd, SESS_FD_RELAY, port, why);
}

static int cmd_fill(struct cmd *c, const struct sess_msg *m, char **why)
{
	int rc;

	c->id = dupstr(m->cmd_id);
	c->cmdline = dupstr(m->cmdline);
	c->cwd = dupstr(m->cwd);
	c->profile = dupstr(m->profile);
	c->profile_file = dupstr(m->profile_file);
	if (!c->id || !c->cmdline || !c->cwd || !c->profile || !c->profile_file)
		return sess_errf(why, -ENOMEM, "out of memory");
	if ((rc = parse_list(m->allow, m->nallow, "allow_domains", &c->allow, why)) < 0 ||
	    (rc = parse_list(m->deny, m->ndeny, "deny_domains", &c->deny, why)) < 0)
		return rc;
	c->nallow = m->nallow;
	c->ndeny = m->ndeny;
	memcpy(c->reach, m->reach, sizeof(c->reach));
	memcpy(c->listen, m->listen, sizeof(c->listen));
	c->nreach = m->nreach;
	c->nlisten = m->nlisten;
	return 0;
}

static int take_fds(struct cmd *c, const struct sess_msg *m, int *fds, size_t nfds, char **why)
{
	int rc = 0;

	for (size_t i = 0; i < nfds && rc == 0; i++) {
		if ((rc = check_fd(c, fds[i], &m->fds[i], why)) < 0)
			break;
		if (m->fds[i].role == SESS_FD_RELAY) {
			c->relay_fd = fds[i];
			fcntl(c->relay_fd, F_SETFL, O_NONBLOCK);
		} else {
			rc = add_lsn(c, fds[i], m->fds[i].role, m->fds[i].port, why);
		}
		fds[i] = -1;
	}
	if (rc == 0 && c->nlisten && c->relay_fd < 0)
		rc = sess_errf(why, -EINVAL, "listen ports need the stage's listen relay");
	for (size_t i = 0; i < c->nlisten && rc == 0; i++)
		rc = host_port(c, c->listen[i], why);
	return rc;
}

int cmd_begin(struct sessd *d, const struct sess_msg *m, int *fds, size_t nfds, struct cmd **out,
	      char **why)
{
	struct cmd *c = calloc(1, sizeof(*c));
	int rc;

	if (!c) {
		sess_close_fds(fds, nfds);
		return sess_errf(why, -ENOMEM, "out of memory");
	}
	c->d = d;
	c->refs = 1;
	c->relay_fd = -1;
	c->next = d->cmds;
	if (d->cmds)
		d->cmds->prev = c;
	d->cmds = c;
	if ((rc = cmd_fill(c, m, why)) < 0 || (rc = take_fds(c, m, fds, nfds, why)) < 0) {
		sess_close_fds(fds, nfds);
		cmd_end(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* Keeps a refusal for the END reply: the front end reports it from there, never from a file
 * the sandbox could have written. One per host:port and reason: a refusal of one kind (a
 * Host header that is not the target's) must not hide a later one of another kind to the
 * same host:port (a tunnel there carrying a TLS server name for evil.example). */
static void keep_refusal(struct cmd *c, const char *host, unsigned port, const char *reason,
			 const char *grant)
{
	struct cmd_refusal *r;

	for (size_t i = 0; i < c->nrefusals; i++)
		if (c->refusals[i].port == port &&
		    strncmp(c->refusals[i].host, host, SESS_REFUSAL_TEXT) == 0 &&
		    strncmp(c->refusals[i].reason, reason ? reason : "", SESS_REFUSAL_TEXT) == 0)
			return;
	if (c->nrefusals == SESS_REFUSALS_MAX) {
		c->refusals_more += c->refusals_more < 0xffff;
		return;
	}
	r = &c->refusals[c->nrefusals];
	r->host = strndup(host, SESS_REFUSAL_TEXT);
	r->reason = strndup(reason ? reason : "", SESS_REFUSAL_TEXT);
	r->grant = strndup(grant ? grant : "", SESS_REFUSAL_TEXT);
	r->port = (uint16_t)port;
	if (!r->host || !r->reason || !r->grant) {
		free(r->host);
		free(r->reason);
		free(r->grant);
		c->refusals_more += c->refusals_more < 0xffff; /* counted, never lost silently */
		return;
	}
	c->nrefusals++;
}

/* Connections still dialing when the command ends (its client gave up first: a timeout of
 * its own, usually) are notes too: the texts point into the connection, alive until cmd_end
 * closes it after the reply is sent. */
static void pending_notes(const struct cmd *c, struct sess_msg *m)
{
	for (const struct pconn *p = c->conns; p && m->nnotes < SESS_NOTES_MAX; p = p->next) {
		bool dup = false;

		if (p->st != P_DIAL || p->role == SESS_FD_REACH)
			continue;
		for (size_t i = 0; i < m->nnotes && !dup; i++)
			dup = m->notes[i].port == p->port &&
			      m->notes[i].host.n == strlen(p->host) &&
			      memcmp(m->notes[i].host.p, p->host, m->notes[i].host.n) == 0;
		if (dup)
			continue;
		m->notes[m->nnotes++] = (struct sess_refusal){
		    sess_s(p->host),
		    sess_s(p->up_init ? "no answer yet when the command ended (the session proxy "
					"was still connecting)"
				      : "no answer yet when the command ended (the session proxy "
					"was still resolving the name)"),
		    sess_s(""), p->port};
	}
}

void cmd_refusals_reply(const struct cmd *c, struct sess_msg *m)
{
	for (size_t i = 0; i < c->nrefusals; i++)
		m->refusals[i] = (struct sess_refusal){
		    sess_s(c->refusals[i].host), sess_s(c->refusals[i].reason),
		    sess_s(c->refusals[i].grant), c->refusals[i].port};
	m->nrefusals = c->nrefusals;
	m->refusals_more = (uint16_t)c->refusals_more;
	for (size_t i = 0; i < c->nnotes; i++)
		m->notes[i] =
		    (struct sess_refusal){sess_s(c->notes[i].host), sess_s(c->notes[i].reason),
					  sess_s(""), c->notes[i].port};
	m->nnotes = c->nnotes;
	pending_notes(c, m);
}

void cmd_note(struct cmd *c, const char *host, unsigned port, const char *reason)
{
	struct cmd_refusal *r;

	if (c->ended)
		return;
	for (size_t i = 0; i < c->nnotes; i++)
		if (c->notes[i].port == port &&
		    strncmp(c->notes[i].host, host, SESS_REFUSAL_TEXT) == 0)
			return;
	if (c->nnotes == SESS_NOTES_MAX)
		return; /* notes are advice: the first ones are enough */
	r = &c->notes[c->nnotes];
	r->host = strndup(host, SESS_REFUSAL_TEXT);
	r->reason = strndup(reason ? reason : "", SESS_REFUSAL_TEXT);
	r->grant = NULL;
	if (!r->host || !r->reason) {
		free(r->host);
		free(r->reason);
		return;
	}
	r->port = (uint16_t)port;
	c->nnotes++;
}

/* Log records one command may write: the log is a file of the user's outside every bound of
 * the sandbox, and a command refused in a loop wrote one record per connection (~2.6 MB a
 * second). As the monitor keeps its own (MON_VIOL_MAX): once per host:port and reason, at most
 * CMD_LOG_MAX a command (a shell's whole session is one); the END reply still counts every
 * refusal. */

/* host:port and reason's key among the command's logged ones (FNV-1a; the NUL between the
 * strings is hashed too, so no two pairs of them spell one key by their joint). */
static uint64_t log_key(const char *host, unsigned port, const char *reason)
{
	uint64_t h = 14695981039346656037ull;

	for (const char *s = host; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	h = (h ^ 0) * 1099511628211ull;
	for (const char *s = reason ? reason : ""; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return (h ^ port) * 1099511628211ull;
}

/* Whether host:port and reason are in the log for c already; else counted as logged. */
static bool logged_before(struct cmd *c, const char *host, unsigned port, const char *reason)
{
	uint64_t k = log_key(host, port, reason);

	for (unsigned i = 0; i < c->logged && i < CMD_LOG_MAX; i++)
		if (c->log_keys[i] == k)
			return true;
	if (c->logged < CMD_LOG_MAX)
		c->log_keys[c->logged] = k;
	return false;
}

/* A network refusal of command c, in the session's violation log (session/vlog.h) once per
 * host:port and reason, at most CMD_LOG_MAX of them and one saying the rest are not, and kept for
 * the command's END reply. */
void vlog_refusal(struct cmd *c, const char *host, unsigned port, const char *reason,
		  const char *grant)
{
	char why[300];

	keep_refusal(c, host, port, reason, grant);
	if (c->logged > CMD_LOG_MAX || logged_before(c, host, port, reason))
		return;
	if (c->logged++ == CMD_LOG_MAX) {
		snprintf(why, sizeof(why),
			 "%s; further refusals of this command are not logged (%u were)",
			 reason ? reason : "", CMD_LOG_MAX);
		reason = why;
	}
	struct vlog_record r = {
	    .session = c->d->o->session,
	    .command = c->id,
	    .cmdline = c->cmdline,
	    .cwd = c->cwd,
	    .profile = c->profile,
	    .profile_file = c->profile_file,
	    .kind = "network",
	    .host = host,
	    .port = port,
	    .reason = reason,
	    .grant = grant,
	};

	vlog_write(c->d->o->log, c->d->o->syslog, &r);
}
