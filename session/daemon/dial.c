/* dial — resolve a destination, apply the address guard, connect.
 *
 * Rules kept here:
 * - the daemon resolves names itself and connects to exactly the address it checked (the
 *   sockaddr it judged is the one passed to connect; nothing is resolved twice);
 * - loopback, unspecified, link-local, metadata, multicast, broadcast and reserved addresses,
 *   the host's own interface addresses, and every address the kernel routes to the host
 *   itself (a local route: "ip route add local 198.18.0.0/24 dev lo" makes each address in it
 *   the host's, and no interface lists them; asked per address, failing closed), are refused unless
 * the policy named that address (or localhost:PORT) literally; localhost:PORT is dialled as
 * 127.0.0.1 and ::1, never resolved (a resolver may say anything for "localhost."); IPv4-mapped and
 * other spellings are judged as one address (proxy/addr.c normalises);
 * - a refused or failed address moves on to the next one the name resolved to, never to
 *   an address that was not checked;
 * - a command runs at most DNS_PER_CMD name lookups at once (the rest wait in its own
 *   queue), so one command's slow names cannot hold every resolver thread of the session;
 * - an upstream failure (no such name, connection refused, timed out) is kept as a note for
 *   the command's END reply (cmd_note): the front end says which host could not be reached,
 *   since clients often show only a status. A guard refusal is a refusal, not a note.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/host.h"
#include "proxy/addr.h"
#include "session/daemon/conn.h"
#include "session/daemon/sessd.h"

#define OWN_MAX 128
/* Name lookups one command runs at once; its others wait in its own queue. The resolver's
 * threads (UV_THREADPOOL_SIZE, set by sessiond_main.c) are shared by every command: names
 * that never answer (a zone whose servers are down, or slow on purpose) must not hold them
 * all, or every other command of the session waits behind one. */
#define DNS_PER_CMD 4

/* The host's own addresses, looked up again when older than a few seconds. */
static int own_address(const struct addr_ip *ip)
{
	static struct addr_ip own[OWN_MAX];
	static int n = -1;
	static uint64_t at;
	uint64_t now = sessd_now_ms();

	if (n < 0 || now - at > 5000) {
		n = addr_host_list(own, OWN_MAX);
		if (n > OWN_MAX)
			n = OWN_MAX;
		at = now;
	}
	return n > 0 && addr_in_list(ip, own, (size_t)n);
}

/* The kernel's route to sa stays on this host (host_addr_local): 1, 0, or -errno. An address
 * that embeds an IPv4 one (ip, normalised) is asked both ways. */
static int routed_here(const struct sockaddr *sa, const struct addr_ip *ip)
{
	const void *a = sa->sa_family == AF_INET
			    ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
			    : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
	int r = host_addr_local(sa->sa_family, a), r2;

	if (r != 0 || ip->family == sa->sa_family)
		return r;
	r2 = host_addr_local(ip->family, ip->b);
	return r2;
}

/* 0 when the guard lets sa through; else -EPERM with the reason in p->guard_why (p->why
 * keeps the last connect error). */
static int guard(struct pconn *p, const struct sockaddr *sa, socklen_t len)
{
	struct addr_ip ip;
	enum addr_class c;
	char text[64] = "?";
	int local = 0;

	if (addr_from_sockaddr(sa, len, &ip, NULL) < 0) {
		snprintf(p->guard_why, sizeof(p->guard_why),
			 "resolves to an address of an unknown family");
		return -EPERM;
	}
	if (p->literal_grant)
		return 0;
	addr_format(&ip, text, sizeof(text));
	c = addr_classify(&ip);
	if (c != ADDR_PUBLIC && c != ADDR_PRIVATE) {
		snprintf(p->guard_why, sizeof(p->guard_why), "resolves to %s (%s)", text,
			 addr_class_name(c));
		return -EPERM;
	}
	if (own_address(&ip) || (local = routed_here(sa, &ip)) > 0) {
		snprintf(p->guard_why, sizeof(p->guard_why),
			 "resolves to %s (an address of this host)", text);
		return -EPERM;
	}
	if (local < 0) {
		snprintf(p->guard_why, sizeof(p->guard_why),
			 "resolves to %s, and the kernel cannot say whether that is this host (%s)",
			 text, strerror(-local));
		return -EPERM;
	}
	return 0;
}

static void try_next(struct pconn *p);

static void up_closed(uv_handle_t *h)
{
	struct pconn *p = h->data;

	if (p->closing) {
		conn_release(p);
		return;
	}
	p->handles--;
	try_next(p);
}

/* A socket whose connect failed is not reused: close it, then try the next address. */
static void failed_cand(struct pconn *p, int status)
{
	snprintf(p->why, sizeof(p->why), "%s", uv_strerror(status));
	p->icand++;
	p->up_init = false;
	uv_close((uv_handle_t *)&p->up, up_closed);
}

static void on_connect(uv_connect_t *req, int status)
{
	struct pconn *p = req->data;

	if (p->closing || status == UV_ECANCELED)
		return;
	if (status < 0) {
		failed_cand(p, status);
		return;
	}
	uv_tcp_nodelay(&p->up, 1);
	front_connected(p);
}

static void connect_cand(struct pconn *p)
{
	int rc;

	uv_tcp_init(p->cmd->d->loop, &p->up);
	p->up.data = p;
	p->up_init = true;
	p->handles++;
	p->tried++;
	p->creq.data = p;
	rc = uv_tcp_connect(&p->creq, &p->up, (struct sockaddr *)&p->cand[p->icand], on_connect);
	if (rc < 0)
		failed_cand(p, rc);
}

/* Connects to the next candidate the guard lets through; reports when none is left. */
static void try_next(struct pconn *p)
{
	for (; p->icand < p->ncand; p->icand++) {
		if (guard(p, (struct sockaddr *)&p->cand[p->icand], p->candlen[p->icand]) == 0) {
			connect_cand(p);
			return;
		}
	}
	if (p->tried == 0 && p->guard_why[0]) {
		front_dial_failed(p, DIAL_GUARD, p->guard_why);
		return;
	}
	cmd_note(p->cmd, p->host, p->port, p->why);
	front_dial_failed(p, DIAL_REFUSED, p->why);
}

/* The name lookup failed: a note in the words of docs/sbxsh.1.md, then the client's answer. */
static void dns_failed(struct pconn *p, int status)
{
	char why[160];

	if (status == UV_EAI_NONAME || status == 0)
		snprintf(why, sizeof(why), "no such name (resolved by the session proxy)");
	else
		snprintf(why, sizeof(why), "name lookup failed: %s (resolved by the session proxy)",
			 uv_strerror(status));
	cmd_note(p->cmd, p->host, p->port, why);
	front_dial_failed(p, DIAL_DNS, status < 0 ? uv_strerror(status) : "no address");
}

static void add_cand(struct pconn *p, const struct sockaddr *sa, socklen_t len)
{
	if (p->ncand >= sizeof(p->cand) / sizeof(p->cand[0]) || len > sizeof(p->cand[0]))
		return;
	memcpy(&p->cand[p->ncand], sa, len);
	p->candlen[p->ncand++] = len;
}

static void resolve(struct pconn *p);

/* A lookup of c's ended: its slot goes to the next one waiting. */
static void dns_slot_free(struct cmd *c)
{
	c->ndns--;
	while (c->ndns < DNS_PER_CMD && c->dns_head) {
		struct pconn *n = c->dns_head;
		c->dns_head = n->dns_next;
		if (!c->dns_head)
			c->dns_tail = NULL;
		n->dns_next = NULL;
		n->dns_wait = false;
		resolve(n);
	}
}

void dial_forget(struct pconn *p)
{
	struct cmd *c = p->cmd;
	struct pconn **q = &c->dns_head, *prev = NULL;

	for (; *q && *q != p; q = &(*q)->dns_next)
		prev = *q;
	if (*q) {
		*q = p->dns_next;
		if (c->dns_tail == p)
			c->dns_tail = prev;
	}
	p->dns_next = NULL;
	p->dns_wait = false;
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
	struct pconn *p = req->data;

	dns_slot_free(p->cmd);
	if (p->closing) {
		uv_freeaddrinfo(res);
		conn_release(p);
		return;
	}
	p->handles--;
	for (struct addrinfo *a = res; status == 0 && a; a = a->ai_next)
		if (a->ai_family == AF_INET || a->ai_family == AF_INET6)
			add_cand(p, a->ai_addr, a->ai_addrlen);
	uv_freeaddrinfo(res);
	if (status < 0 || p->ncand == 0) {
		dns_failed(p, status);
		return;
	}
	try_next(p);
}

/* Fills the one candidate of an IP literal. */
static void literal_cand(struct pconn *p, const struct addr_ip *ip)
{
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons(p->port)};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(p->port)};

	if (ip->family == AF_INET) {
		memcpy(&a4.sin_addr, ip->b, 4);
		add_cand(p, (struct sockaddr *)&a4, sizeof(a4));
	} else {
		memcpy(&a6.sin6_addr, ip->b, 16);
		add_cand(p, (struct sockaddr *)&a6, sizeof(a6));
	}
}

/* The candidates of the host's loopback at p->port: 127.0.0.1, then ::1. */
static void loopback_cands(struct pconn *p)
{
	struct addr_ip ip = {.family = AF_INET, .b = {127, 0, 0, 1}};

	literal_cand(p, &ip);
	ip.family = AF_INET6;
	memset(ip.b, 0, sizeof(ip.b));
	ip.b[15] = 1;
	literal_cand(p, &ip);
}

void dial_start(struct pconn *p)
{
	struct addr_ip ip;

	p->st = P_DIAL;
	if (p->literal_grant && p->name) {
		/* localhost:PORT: the host's loopback, never what a resolver says "localhost." or
		 * another spelling of it is (the guard is not asked for a literal grant) */
		loopback_cands(p);
		try_next(p);
		return;
	}
	if (addr_parse_literal(p->host, strlen(p->host), &ip) == 0) {
		literal_cand(p, &ip);
		try_next(p);
		return;
	}
	if (p->cmd->ndns >= DNS_PER_CMD) {
		/* waits for one of its own command's slots, not the other commands' threads */
		p->dns_wait = true;
		p->dns_next = NULL;
		if (p->cmd->dns_tail)
			p->cmd->dns_tail->dns_next = p;
		else
			p->cmd->dns_head = p;
		p->cmd->dns_tail = p;
		return;
	}
	resolve(p);
}

static void resolve(struct pconn *p)
{
	struct addrinfo hints = {
	    .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_ADDRCONFIG};
	char port[8];
	int rc;

	snprintf(port, sizeof(port), "%u", p->port);
	p->gai.data = p;
	p->handles++;
	rc = uv_getaddrinfo(p->cmd->d->loop, &p->gai, on_resolved, p->host, port, &hints);
	if (rc < 0) {
		p->handles--;
		dns_failed(p, rc);
		return;
	}
	p->cmd->ndns++;
}

void dial_loopback(struct pconn *p)
{
	snprintf(p->host, sizeof(p->host), "localhost");
	p->literal_grant = true;
	loopback_cands(p);
	p->st = P_DIAL;
	try_next(p);
}
