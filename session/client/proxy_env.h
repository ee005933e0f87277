/* proxy_env — the environment a command with network = proxy gets, so its clients find the
 * front (plain C: the front end sets these before bwrap starts). */
#ifndef SBX_SESS_PROXY_ENV_H
#define SBX_SESS_PROXY_ENV_H

#include "platform/strv.h"

/* Appends "NAME=value" entries to out: HTTP_PROXY HTTPS_PROXY http_proxy https_proxy
 * GRPC_PROXY (http://127.0.0.1:3128), RSYNC_PROXY (127.0.0.1:3128), ALL_PROXY all_proxy
 * (socks5h://127.0.0.1:1080), NO_PROXY no_proxy (loopback), JAVA_TOOL_OPTIONS (java_opts, the
 * command's own value or NULL, with the proxy properties appended) and, unless git_ssh (the
 * command's own GIT_SSH_COMMAND) is set, GIT_SSH_COMMAND running ssh with
 * `sbxsh session connect %h %p` as its ProxyCommand (sbxsh: the absolute path of sbxsh).
 * Returns 0, -ENOMEM, or -EINVAL for an sbxsh path a shell would need quoted. */
int sess_proxy_env(const char *java_opts, const char *git_ssh, const char *sbxsh, struct strv *out);

#endif
