/* test_session_env — the proxy variables a command with network = proxy gets. */
#include <errno.h>
#include <string.h>

#include "platform/strv.h"
#include "session/client/proxy_env.h"
#include "tests/unit/tap.h"

static const char *get(const struct strv *sv, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < sv->n; i++)
		if (strncmp(sv->v[i], name, n) == 0 && sv->v[i][n] == '=')
			return sv->v[i] + n + 1;
	return NULL;
}

int main(void)
{
	struct strv sv = {0};

	is_int(sess_proxy_env(NULL, NULL, "/usr/bin/sbxsh", &sv), 0, "variables made");
	is_str(get(&sv, "HTTP_PROXY"), "http://127.0.0.1:3128", "HTTP_PROXY");
	is_str(get(&sv, "https_proxy"), "http://127.0.0.1:3128", "https_proxy");
	is_str(get(&sv, "ALL_PROXY"), "socks5h://127.0.0.1:1080",
	       "ALL_PROXY resolves through the proxy");
	is_str(get(&sv, "NO_PROXY"), "localhost,127.0.0.1,::1", "NO_PROXY is loopback");
	is_str(get(&sv, "RSYNC_PROXY"), "127.0.0.1:3128", "RSYNC_PROXY is host:port");
	ok(get(&sv, "GRPC_PROXY") != NULL, "GRPC_PROXY");
	is_str(get(&sv, "GIT_SSH_COMMAND"),
	       "ssh -o 'ProxyCommand=/usr/bin/sbxsh session connect %h %p'",
	       "git over ssh goes through sbxsh session connect");
	ok(strncmp(get(&sv, "JAVA_TOOL_OPTIONS"), "-Dhttp.proxyHost=127.0.0.1", 26) == 0,
	   "JAVA_TOOL_OPTIONS carries the proxy properties");
	strv_release(&sv);
	is_int(sess_proxy_env("-Xmx1g", "ssh -i key", "/usr/bin/sbxsh", &sv), 0,
	       "with the command's own values");
	ok(strncmp(get(&sv, "JAVA_TOOL_OPTIONS"), "-Xmx1g -Dhttp.proxyHost=", 24) == 0,
	   "its JAVA_TOOL_OPTIONS is kept, the properties appended");
	ok(get(&sv, "GIT_SSH_COMMAND") == NULL, "its own GIT_SSH_COMMAND is left alone");
	strv_release(&sv);
	is_int(sess_proxy_env(NULL, NULL, "/opt/my sbxsh/sbxsh", &sv), -EINVAL,
	       "an sbxsh path a shell would split is refused");
	strv_release(&sv);
	return tap_done();
}
