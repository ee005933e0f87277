/* socks_client — a SOCKS5 CONNECT by name through the sandbox's front.
 *
 * Rules kept here: the proxy is reached only on a numeric loopback address (never resolved,
 * never a remote host); the host is sent as a name for the proxy to judge; every reply byte
 * is checked before the socket is handed on.
 */
#include "session/client/socks_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "session/errf.h"

static const char *const reps[] = {
    "succeeded",
    "general failure",
    "not allowed by the profile",
    "network unreachable",
    "host unreachable (the name did not resolve)",
    "connection refused",
    "TTL expired",
    "command not supported",
    "address type not supported",
};

/* Parses "socks5h://127.0.0.1:1080" (or socks5://, or IP:PORT alone) into a loopback address. */
static int proxy_addr(const char *env, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[64] = "127.0.0.1";
	unsigned long port = 1080;
	const char *s = env, *colon;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (s && *s) {
		if (strncmp(s, "socks5h://", 10) == 0 || strncmp(s, "socks5://", 9) == 0)
			s = strstr(s, "//") + 2;
		colon = strrchr(s, ':');
		if (!colon || (size_t)(colon - s) >= sizeof(host))
			return -EINVAL;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - s), s);
		port = strtoul(colon + 1, NULL, 10);
	}
	if (port == 0 || port > 65535)
		return -EINVAL;
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1 &&
	    (ntohl(a4->sin_addr.s_addr) >> 24) == 127) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*len = sizeof(*a4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1 &&
	    IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr)) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
		return 0;
	}
	return -EINVAL;
}

static int read_n(int fd, uint8_t *buf, size_t n)
{
	size_t have = 0;

	while (have < n) {
		ssize_t r = read(fd, buf + have, n - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -ECONNRESET;
		have += (size_t)r;
	}
	return 0;
}

/* The request and its reply, after the greeting. */
static int handshake(int fd, const char *host, uint16_t port, char **err)
{
	uint8_t req[262] = {5, 1, 0, 3}, rep[262];
	size_t hl = strlen(host), skip;

	if (hl == 0 || hl > 255)
		return sess_errf(err, -EINVAL, "'%s' is not a host name", host);
	if (write(fd, "\x05\x01\x00", 3) != 3 || read_n(fd, rep, 2) < 0 || rep[0] != 5 ||
	    rep[1] != 0)
		return sess_errf(err, -EPROTO, "the SOCKS5 proxy did not accept the greeting");
	req[4] = (uint8_t)hl;
	memcpy(req + 5, host, hl);
	req[5 + hl] = (uint8_t)(port >> 8);
	req[6 + hl] = (uint8_t)port;
	if (write(fd, req, 7 + hl) != (ssize_t)(7 + hl) || read_n(fd, rep, 5) < 0 || rep[0] != 5)
		return sess_errf(err, -EPROTO, "the SOCKS5 proxy closed the connection");
	if (rep[1] != 0)
		return sess_errf(err, -ECONNREFUSED, "%s:%u: %s", host, port,
				 rep[1] < sizeof(reps) / sizeof(reps[0]) ? reps[rep[1]]
									 : "refused");
	/* the rest of the bound address: 4 or 16 bytes, or a name, then the port */
	skip = rep[3] == 1 ? 3 + 2 : rep[3] == 4 ? 15 + 2 : rep[3] == 3 ? (size_t)rep[4] + 2 : 0;
	if (!skip || read_n(fd, rep, skip) < 0)
		return sess_errf(err, -EPROTO, "the SOCKS5 proxy sent a malformed reply");
	return 0;
}

int sess_socks_dial(const char *proxy_env, const char *host, uint16_t port, char **err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, rc;

	if (proxy_addr(proxy_env, &ss, &len) < 0)
		return sess_errf(err, -EINVAL,
				 "ALL_PROXY='%s' is not a SOCKS5 proxy on loopback "
				 "(socks5h://127.0.0.1:PORT)",
				 proxy_env);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return sess_errf(err, -errno, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		rc = sess_errf(err, -errno,
			       "cannot reach the sandbox's SOCKS5 proxy: %s "
			       "(is this command's network = proxy?)",
			       strerror(errno));
		close(fd);
		return rc;
	}
	if ((rc = handshake(fd, host, port, err)) < 0) {
		close(fd);
		return rc;
	}
	return fd;
}
