/* socks_client — `sbxsh session connect HOST PORT`: a ProxyCommand (ssh, git over ssh) that
 * reaches HOST:PORT through the command's SOCKS5 front and relays stdin/stdout. */
#ifndef SBX_SESS_SOCKS_CLIENT_H
#define SBX_SESS_SOCKS_CLIENT_H
#include <stdint.h>

/* The SOCKS5 front from proxy_env (ALL_PROXY's value: socks5h://IP:PORT or socks5://IP:PORT;
 * NULL or empty: 127.0.0.1:1080), then a CONNECT to host:port by name. Returns the connected
 * socket, or a negative errno with *err (caller frees) naming the host and what the proxy
 * answered. */
int sess_socks_dial(const char *proxy_env, const char *host, uint16_t port, char **err);

#endif
