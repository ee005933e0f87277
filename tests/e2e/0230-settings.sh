#!/bin/sh
# 0230-settings — settings files that also hold secrets (~/.npmrc, pip's pip.conf, docker's
# config.json, maven's settings.xml, ~/.gradle/gradle.properties, pnpm's rc, yarn 1's .yarnrc,
# nix.conf) are seen
# in the sandbox as read-only copies with the secrets removed: the tool keeps its settings,
# reading them is no violation, the token is not there. What only looks like one (a link or
# a hard link to a secret) stays hidden; pure secrets (~/.netrc) stay hidden and reported.
TMPDIR=/var/tmp; export TMPDIR # HOME and the project outside /tmp (sbxsh hides the host's /tmp)
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
user_policy '[default]
network = none'
sb() { "$SBXSH" "$@"; }

printf '//registry.npmjs.org/:_authToken=SECRET1\nregistry=http://127.0.0.1:4873/\n# _auth=SECRET2\nsave-exact=true\n' \
	> "$HOME/.npmrc"
chmod 600 "$HOME/.npmrc"
out=$(sb -c 'cat ~/.npmrc' 2> "$T/err"); rc=$?
is "reading ~/.npmrc is no violation" "$rc" 0
unlike "…no violation line" "$(cat "$T/err")" "violation"
unlike "…the token is not in it" "$out" "SECRET"
is "…the settings are" "$out" "registry=http://127.0.0.1:4873/
save-exact=true"
sb -c 'echo "registry=http://evil/" > ~/.npmrc' 2> "$T/err"
like "…a write to it is a violation" "$(cat "$T/err")" "^sbxsh:   write ~/.npmrc "
is "…it is read-only: the host's file is unchanged" "$(head -n 1 "$HOME/.npmrc")" \
	"//registry.npmjs.org/:_authToken=SECRET1"

if command -v npm > /dev/null 2>&1; then
	out=$(sb -c 'npm --version' 2> "$T/err"); rc=$?
	is "npm --version with a token in ~/.npmrc exits 0" "$rc" 0
	like "…and prints npm's version" "$out" "^[0-9]+\.[0-9]+"
	is "npm config get registry shows the user's registry" \
		"$(sb -c 'npm config get registry' 2> "$T/err")" "http://127.0.0.1:4873/"
	is "npm config get save-exact: the user's other settings" \
		"$(sb -c 'npm config get save-exact' 2> /dev/null)" "true"
else
	for d in "npm --version exits 0" "…its version" "npm's registry" "npm's other settings"; do
		skip "$d" "npm is not installed"
	done
fi

# pip's config: credentials in index URLs removed, the rest kept.
mkdir -p "$HOME/.config/pip"
printf '[global]\nindex-url = https://bob:SECRET3@pypi.acme.test/simple\ntimeout = 60\npassword = SECRET4\n' \
	> "$HOME/.config/pip/pip.conf"
out=$(sb -c 'cat ~/.config/pip/pip.conf' 2> "$T/err"); rc=$?
is "reading pip.conf is no violation" "$rc" 0
is "…its index URL without the user:password@, no password key" "$out" "[global]
index-url = https://pypi.acme.test/simple
timeout = 60"

# docker's config.json: ~/.docker stays hidden, its config.json shown without the auths' tokens.
mkdir -p "$HOME/.docker/contexts"
printf '{"auths": {"ghcr.io": {"auth": "SECRET6"}}, "credsStore": "pass", "detachKeys": "ctrl-e,e"}\n' \
	> "$HOME/.docker/config.json"
: > "$HOME/.docker/contexts/key.pem"
out=$(sb -c 'cat ~/.docker/config.json' 2> "$T/err"); rc=$?
is "reading ~/.docker/config.json is no violation" "$rc" 0
is "…the auth removed, the settings kept" "$out" \
	'{"auths":{"ghcr.io":{}},"credsStore":"pass","detachKeys":"ctrl-e,e"}'
is "…nothing else of ~/.docker is shown" "$(sb -c 'ls -A ~/.docker' 2> /dev/null)" "config.json"
printf '{"auths": {"ghcr.io": {"auth": "SECRET7"}}' > "$HOME/.docker/config.json"
out=$(sb -c 'cat ~/.docker/config.json 2>&1; echo end' 2> /dev/null)
unlike "a config.json that is not valid JSON is not shown" "$out" "SECRET7"

# Only what is plainly the user's settings file is shown: a link or a hard link to a secret
# stays hidden.
mkdir -p "$HOME/.ssh" && printf 'KEYMATERIAL=abc\n' > "$HOME/.ssh/id_rsa"
rm -f "$HOME/.npmrc" && ln -s "$HOME/.ssh/id_rsa" "$HOME/.npmrc"
out=$(sb -c 'cat ~/.npmrc; echo end' 2> /dev/null)
unlike "~/.npmrc a symlink to a key: the key is not shown" "$out" "KEYMATERIAL"
rm -f "$HOME/.npmrc" && ln "$HOME/.ssh/id_rsa" "$HOME/.npmrc"
out=$(sb -c 'cat ~/.npmrc; echo end' 2> /dev/null)
is "~/.npmrc a hard link to a key: hidden (reads empty)" "$out" "end"
rm -f "$HOME/.npmrc"

# maven's settings.xml: the servers' passwords, keys and passphrases removed, the rest kept.
mkdir -p "$HOME/.m2" "$T/proj/m2repo"
cat > "$HOME/.m2/settings.xml" << EOF
<?xml version="1.0" encoding="UTF-8"?>
<settings>
  <localRepository>$T/proj/m2repo</localRepository>
  <offline>true</offline>
  <servers>
    <server><id>acme</id><username>bob</username><password>SECRET8</password>
      <passphrase>SECRET9</passphrase><privateKey>$HOME/.ssh/id_rsa</privateKey>
      <configuration><httpHeaders><property><name>Private-Token</name><value>SECRET10</value></property></httpHeaders></configuration>
    </server>
  </servers>
  <mirrors><mirror><id>m</id><url>https://bob:SECRET11@repo.acme.test/m2</url><mirrorOf>*</mirrorOf></mirror></mirrors>
</settings>
EOF
out=$(sb -c 'cat ~/.m2/settings.xml' 2> "$T/err"); rc=$?
is "reading ~/.m2/settings.xml is no violation" "$rc" 0
unlike "…no violation line" "$(cat "$T/err")" "violation"
unlike "…no password, passphrase, token or URL password in it" "$out" "SECRET|id_rsa"
like "…the server's id and username kept" "$out" "<id>acme</id><username>bob</username>"
like "…the mirror kept, without its user:password@" "$out" "<url>https://repo.acme.test/m2</url>"
sb -c 'echo "<settings/>" > ~/.m2/settings.xml' 2> /dev/null
like "…read-only: the host's file is unchanged" "$(cat "$HOME/.m2/settings.xml")" SECRET8
if command -v mvn > /dev/null 2>&1; then
	printf '<project><modelVersion>4.0.0</modelVersion><groupId>t</groupId><artifactId>t</artifactId><version>1</version><packaging>pom</packaging></project>\n' > "$T/proj/pom.xml"
	# (MAVEN_OPTS emptied: the default policy's -Dmaven.repo.local would override the settings')
	out=$(sb -c 'MAVEN_OPTS= mvn -B -X -Duser.home="$HOME" validate' 2>&1)
	like "mvn reads the sanitised settings: its local repository is the user's" "$out" "Using local repository at $T/proj/m2repo"
	like "…and the build runs" "$out" "BUILD SUCCESS"
	rm -f "$T/proj/pom.xml"
else
	skip "mvn reads the sanitised settings" "maven is not installed"
	skip "…and the build runs" "maven is not installed"
fi
printf '<!DOCTYPE s [<!ENTITY e "x">]><settings><password>SECRET12</password></settings>\n' > "$HOME/.m2/settings.xml"
out=$(sb -c 'cat ~/.m2/settings.xml; echo end' 2> /dev/null)
is "a settings.xml with a DOCTYPE stays hidden (reads empty)" "$out" "end"

# gradle.properties: lines whose key names a password, token, secret or key removed.
mkdir -p "$HOME/.gradle"
printf 'org.gradle.jvmargs=-Xmx1g\nsigning.password=SECRET13\nsigning.keyId=SECRET14\nmavenCentralToken=SECRET15\norg.gradle.caching=true\nsign\\u0069ng.p\\u0061ssword=SECRET16\n' \
	> "$HOME/.gradle/gradle.properties"
out=$(sb -c 'cat ~/.gradle/gradle.properties' 2> "$T/err"); rc=$?
is "reading ~/.gradle/gradle.properties is no violation" "$rc" 0
is "…its settings kept, the secrets (an escaped key too) gone" "$out" "org.gradle.jvmargs=-Xmx1g
org.gradle.caching=true"
rm -rf "$HOME/.m2" "$HOME/.gradle"

# pnpm's rc (npmrc's format), yarn 1's .yarnrc, nix.conf: tokens gone, the other settings kept
# (they were hidden whole before: pnpm, yarn and nix lost the user's registry and features).
mkdir -p "$HOME/.config/pnpm" "$HOME/.config/nix"
printf '//npm.acme.test/:_authToken=SECRET17\nstore-dir=/srv/pnpm-store\n' > "$HOME/.config/pnpm/rc"
printf 'registry "https://bob:SECRET18@npm.acme.test/"\n"//npm.acme.test/:_authToken" "SECRET19"\nlastUpdateCheck 1700000000000\n' \
	> "$HOME/.yarnrc"
printf 'experimental-features = nix-command flakes\naccess-tokens = github.com=SECRET20\n' \
	> "$HOME/.config/nix/nix.conf"
out=$(sb -c 'cat ~/.config/pnpm/rc ~/.yarnrc ~/.config/nix/nix.conf' 2> "$T/err"); rc=$?
is "reading pnpm's rc, ~/.yarnrc and nix.conf is no violation" "$rc" 0
is "…their settings kept, the tokens and the registry's user:password@ gone" "$out" "store-dir=/srv/pnpm-store
registry \"https://npm.acme.test/\"
lastUpdateCheck 1700000000000
experimental-features = nix-command flakes"
sb -c 'echo "store-dir=/tmp/x" >> ~/.config/pnpm/rc' 2> /dev/null
is "…pnpm's rc is read-only: the host's file is unchanged" "$(tail -n 1 "$HOME/.config/pnpm/rc")" \
	"store-dir=/srv/pnpm-store"
rm -rf "$HOME/.config/pnpm" "$HOME/.config/nix" "$HOME/.yarnrc"

# Pure secrets stay hidden and reported.
printf 'machine example.test login bob password SECRET5\n' > "$HOME/.netrc"
out=$(sb -c 'cat ~/.netrc; echo end' 2> "$T/err"); rc=$?
is "~/.netrc still reads empty" "$out" "end"
is "…and reading it is a violation (on_violation = fail)" "$rc" 122
like "…reported" "$(cat "$T/err")" "read ~/.netrc"

done_testing
