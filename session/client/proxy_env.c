/* proxy_env — proxy variables for a command with network = proxy.
 *
 * Rules kept here: the values name only the sandbox's own loopback fronts; the command's own
 * JAVA_TOOL_OPTIONS is kept and extended, never replaced; GIT_SSH_COMMAND is a shell string
 * (git runs it through sh), so the sbxsh path in it must need no quoting, else it is refused.
 */
#include "session/client/proxy_env.h"

#include <errno.h>
#include <string.h>

#include "session/client/stage_net.h"

#define HTTP_URL  "http://127.0.0.1:3128"
#define SOCKS_URL "socks5h://127.0.0.1:1080"
#define NO_PROXY  "localhost,127.0.0.1,::1"
#define JAVA_PROPS                                                                                 \
	"-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128 -Dhttps.proxyHost=127.0.0.1 "            \
	"-Dhttps.proxyPort=3128 -Dhttp.nonProxyHosts=localhost|127.0.0.1|[::1]"

static const char *const fixed[] = {
    "HTTP_PROXY=" HTTP_URL,  "HTTPS_PROXY=" HTTP_URL, "http_proxy=" HTTP_URL,
    "https_proxy=" HTTP_URL, "GRPC_PROXY=" HTTP_URL,  "RSYNC_PROXY=127.0.0.1:3128",
    "ALL_PROXY=" SOCKS_URL,  "all_proxy=" SOCKS_URL,  "NO_PROXY=" NO_PROXY,
    "no_proxy=" NO_PROXY,
};

static int shell_safe(const char *s)
{
	return s[0] == '/' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					"0123456789/._-+") == strlen(s);
}

int sess_proxy_env(const char *java_opts, const char *git_ssh, const char *sbxsh, struct strv *out)
{
	int rc = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) && rc == 0; i++)
		rc = strv_push(out, fixed[i]);
	if (rc == 0)
		rc = java_opts && *java_opts
			 ? strv_pushf(out, "JAVA_TOOL_OPTIONS=%s " JAVA_PROPS, java_opts)
			 : strv_push(out, "JAVA_TOOL_OPTIONS=" JAVA_PROPS);
	if (rc == 0 && !(git_ssh && *git_ssh)) {
		if (!shell_safe(sbxsh))
			return -EINVAL;
		rc = strv_pushf(
		    out, "GIT_SSH_COMMAND=ssh -o 'ProxyCommand=%s session connect %%h %%p'", sbxsh);
	}
	return rc;
}
