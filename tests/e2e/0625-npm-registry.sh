#!/bin/sh
# 0625-npm-registry — npm install out of the box, through the session proxy: a registry
# stand-in (npm_registry.py: 20 packages, a graph of dependencies, sha512 integrity) on the
# lab's remote host, the default policy and one allow_domains line. npm's cache is the default
# policy's one in the private /tmp (env_set npm_config_cache): the install works, the host's
# ~/.npm is not touched, no violation; a registry host the policy does not allow is refused
# with the line that would allow it.
. "$SBXSH_STAGE/e2e/lab_lib.sh"
cd "$T/proj" || exit 1
if ! command -v npm > /dev/null 2>&1; then
	skip "npm install from a registry stand-in" "npm is not installed (packaging/deps.sh test installs it)"
	done_testing
	exit
fi
need_sandbox "the sandbox in the lab"
export NPM_REG_LOG="$T/reg.log"
: > "$NPM_REG_LOG"
in_remote_bg "$PY" "$E2E/npm_registry.py" 8080 10.77.0.2 good.test:8080 20 "$T/proj" > "$T/reg.out" 2>&1
SRV=$!
check "the registry stand-in is up" wait_for curl -sf http://10.77.0.2:8080/sbxsh-dep-000
mkdir -p "$HOME/.npm"
echo host > "$HOME/.npm/keep"
user_policy "[default]
allow_domains += good.test:8080"

out=$("$SBXSH" -c 'npm install --no-audit --no-fund --registry http://good.test:8080/ 2>&1 &&
	node -p "require(\"sbxsh-dep-003\") + \" \" + require(\"sbxsh-dep-013\")"' 2> "$T/err"); rc=$?
is "npm install of 20 packages through the proxy, the default policy: exit 0" "$rc" 0
like "…every package installed" "$out" "added 20 packages"
like "…and they load" "$out" "^sbxsh-dep-003:1.0.0 sbxsh-dep-013:1.0.0$"
is "…no violation" "$(grep -c violation "$T/err")" 0
like "…the packuments and tarballs came through the proxy" \
	"$(sort -u "$NPM_REG_LOG" | grep -c 'tgz$')" '^20$'
is "…the host's ~/.npm is untouched" "$(ls -A "$HOME/.npm")" keep
is "…and the cache was the private /tmp's" "$("$SBXSH" -c 'echo $npm_config_cache' 2> /dev/null)" \
	/tmp/.npm-cache
check "…which the host's /tmp does not hold" test ! -e /tmp/.npm-cache/_cacache

rm -rf node_modules package-lock.json
out=$("$SBXSH" -c 'npm install --no-audit --no-fund --fetch-retries=0 --registry http://bad.test:8080/' 2>&1); rc=$?
check "a registry the policy does not allow: npm fails" test "$rc" -ne 0
like "…and sbxsh names the host and the line that would allow it" "$out" \
	"bad.test:8080.*allow_domains \+= bad.test:8080"
done_testing
