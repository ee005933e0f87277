#!/bin/sh
# 0635-cargo-go-maven — cargo, go, maven and gradle work in the sandbox with the default
# policy, from local sources only (a cargo local-registry, a file:// GOPROXY, a file:// maven
# repository), and the host's own caches (~/.cargo, ~/go/pkg/mod, ~/.m2/repository,
# ~/.gradle) stay as they were: the default policy's env_set moves each tool's cache into the
# command's private /tmp (go, maven 3.9+ and gradle 6.2+ still read the host's warm cache,
# read-only, as an upstream). Also the env_set ${NAME} expansion it relies on (sbxsh.ini(5)
# "Package caches", "Values").
TMPDIR=/var/tmp; export TMPDIR # HOME and the sources outside /tmp (sbxsh hides the host's /tmp)
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
user_policy '[default]
network = none'
# The Debian packages' tools (root's PATH may hold a rustup proxy, whose toolchains live in
# the real HOME; the unprivileged run has this PATH anyway).
PATH=/usr/bin:/bin
export PATH
sb() { "$SBXSH" "$@"; }
# tree DIR: every file under DIR with its checksum (what a host-side build would read).
tree() { (cd "$1" 2> /dev/null && find . -type f -exec sha256sum {} + | sort); }

# --- env_set's expansion: ${HOME}, a default, and a name env_unset removes ---
user_policy '[default]
network = none
env_set += SBX_HOMEVAR=${HOME}/x
env_set += SBX_TOKVAR=${SBX_E2E_TOKEN:-hidden}'
out=$(SBX_E2E_TOKEN=secret sb -c 'echo "$SBX_HOMEVAR $SBX_TOKVAR"' 2>&1)
is "env_set: \${HOME} expands; a variable env_unset removes gives the default" "$out" "$HOME/x hidden"
user_policy '[default]
network = none
env_set += SBX_BAD=${HOME'
out=$(sb -c true 2>&1); rc=$?
check "env_set: an unclosed \${ is refused at load" [ "$rc" != 0 ]
like "…naming the line and the fix" "$out" 'sbxsh.ini:3: env_set: .*write \$\{NAME\} or \$\{NAME:-default\}'
user_policy '[default]
network = none'

# --- cargo: a crate from a local-registry named in the user's ~/.cargo/config.toml ---
if [ -x /usr/bin/cargo ] && command -v sha256sum > /dev/null 2>&1; then
	mkdir -p "$T/reg/index/sb/xd" "$T/crate/sbxdemo-0.1.0/src" "$HOME/.cargo/registry/cache"
	printf '[package]\nname = "sbxdemo"\nversion = "0.1.0"\nedition = "2018"\n' > "$T/crate/sbxdemo-0.1.0/Cargo.toml"
	echo 'pub fn hi() -> &'"'"'static str { "from the crate" }' > "$T/crate/sbxdemo-0.1.0/src/lib.rs"
	tar -C "$T/crate" -czf "$T/reg/sbxdemo-0.1.0.crate" sbxdemo-0.1.0
	sum=$(sha256sum "$T/reg/sbxdemo-0.1.0.crate" | cut -d' ' -f1)
	printf '{"name":"sbxdemo","vers":"0.1.0","deps":[],"cksum":"%s","features":{},"yanked":false}\n' "$sum" > "$T/reg/index/sb/xd/sbxdemo"
	printf '[source.crates-io]\nreplace-with = "lab"\n[source.lab]\nlocal-registry = "%s"\n' "$T/reg" > "$HOME/.cargo/config.toml"
	echo host > "$HOME/.cargo/registry/cache/keep"
	mkdir -p "$T/proj/cr/src"
	printf '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2018"\n[dependencies]\nsbxdemo = "0.1"\n' > "$T/proj/cr/Cargo.toml"
	echo 'fn main() { println!("{}", sbxdemo::hi()); }' > "$T/proj/cr/src/main.rs"
	before=$(tree "$HOME/.cargo")
	out=$(cd cr && sb -c 'cargo build -q 2>&1 && ./target/debug/app && echo "home=$CARGO_HOME"' 2>&1); rc=$?
	is "cargo build from a local-registry in the sandbox: exit 0" "$rc" 0
	like "…the crate was unpacked and built" "$out" "^from the crate$"
	like "…into a cargo home in the private /tmp" "$out" "^home=/tmp/.cargo$"
	unlike "…no violation" "$out" "violation"
	is "…the host's ~/.cargo is unchanged (a host-side read sees the host's bytes)" "$(tree "$HOME/.cargo")" "$before"
	check "…and holds no unpacked crate" test ! -e "$HOME/.cargo/registry/src"
	# the project outside HOME: the user's config came through the symlink, not cargo's walk up
	out=$(sb -c 'readlink /tmp/.cargo/config.toml; echo poisoned > /tmp/.cargo/config.toml; cat ~/.cargo/config.toml' 2>&1)
	like "…the user's ~/.cargo/config.toml is read from the private cargo home" "$out" "^$HOME/.cargo/config.toml$"
	like "…writing through that link fails: the host's config is read-only" "$out" "Read-only file system"
	like "…and unchanged" "$out" "^replace-with = \"lab\"$"
	# a CARGO_HOME in a host directory granted under /tmp: no link is made there (on the host)
	G=$(mktemp -d /tmp/sbxsh-e2e-cargo.XXXXXX)
	user_policy "[default]
network = none
write += $G
env_set += CARGO_HOME=$G/home"
	out=$(sb -c 'echo "home=$CARGO_HOME"' 2>&1); rc=$?
	is "…a CARGO_HOME under a granted host directory in /tmp: the command runs" "$rc:$out" "0:home=$G/home"
	is "…and no link is made in the host's directory" "$(ls -A "$G")" ""
	rm -rf "$G"
	user_policy '[default]
network = none'
	out=$(cd cr && sb -c 'mkdir -p "$CARGO_HOME/registry/src/x" && echo planted > "$CARGO_HOME/registry/src/x/build.rs"' 2>&1); rc=$?
	is "a sandboxed write into the cargo cache succeeds (its own)" "$rc" 0
	check "…and the host's cache does not see it" test ! -e "$HOME/.cargo/registry/src/x/build.rs"
	out=$(cd cr && sb -c 'cat "$CARGO_HOME/registry/src/x/build.rs"' 2>&1)
	unlike "…nor the next command (the cache lives as long as the command)" "$out" "planted"
	# cargo has no read-only upstream: the host's warm cache serves only with the opt-out
	(cd cr && cargo fetch -q) > /dev/null 2>&1 # the host's own fetch
	before=$(tree "$HOME/.cargo")
	user_policy '[default]
network = none
env_set -= CARGO_HOME
ignore_write += ~/.cargo/.package-cache ~/.cargo/registry/CACHEDIR.TAG'
	out=$(cd cr && sb -c 'echo "home=$CARGO_HOME"; cargo build -q --offline 2>&1 && ./target/debug/app' 2>&1); rc=$?
	is "cargo, env_set -= CARGO_HOME: the host's warm ~/.cargo serves an offline build, read-only" "$rc" 0
	like "…built from it" "$out" "^from the crate$"
	like "…(the variable is gone)" "$out" "^home=$"
	unlike "…no violation" "$out" "violation"
	is "…the host's ~/.cargo is unchanged" "$(tree "$HOME/.cargo")" "$before"
	user_policy '[default]
network = none'
	rm -rf "$T/proj/cr/target"
else
	skip "cargo build from a local-registry" "/usr/bin/cargo is not installed (packaging/deps.sh test installs it)"
fi

# --- go: a module from a file:// GOPROXY (the user's), and from the host's warm cache ---
if [ -x /usr/bin/go ] && [ -x /usr/bin/python3 ]; then
	/usr/bin/python3 - "$T/gp/example.test/sbxdemo/@v" << 'EOF'
import os, sys, zipfile
d = sys.argv[1]
os.makedirs(d)
mod = "module example.test/sbxdemo\n\ngo 1.18\n"
open(d + "/list", "w").write("v1.0.0\n")
open(d + "/v1.0.0.info", "w").write('{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}\n')
open(d + "/v1.0.0.mod", "w").write(mod)
with zipfile.ZipFile(d + "/v1.0.0.zip", "w") as z:
    z.writestr("example.test/sbxdemo@v1.0.0/go.mod", mod)
    z.writestr("example.test/sbxdemo@v1.0.0/demo.go",
               'package sbxdemo\n\nfunc Hi() string { return "from the module" }\n')
EOF
	mkdir -p "$T/proj/gm"
	printf 'module app\n\ngo 1.18\n\nrequire example.test/sbxdemo v1.0.0\n' > "$T/proj/gm/go.mod"
	printf 'package main\n\nimport (\n\t"fmt"\n\n\t"example.test/sbxdemo"\n)\n\nfunc main() { fmt.Println(sbxdemo.Hi()) }\n' > "$T/proj/gm/main.go"
	export GONOSUMDB=example.test GOFLAGS=-mod=mod
	out=$(cd gm && GOPROXY="file://$T/gp" sb -c 'go run . 2>&1 && echo "proxy=$(go env GOPROXY) cache=$(go env GOMODCACHE) path=$(go env GOPATH)"' 2>&1); rc=$?
	is "go run with a module from the user's file:// GOPROXY in the sandbox: exit 0" "$rc" 0
	like "…the module was fetched and built" "$out" "^from the module$"
	like "…the user's GOPROXY comes after the host's cache; the module cache and GOPATH's first entry are the private /tmp's" "$out" \
		"^proxy=file://$HOME/go/pkg/mod/cache/download,file://$T/gp cache=/tmp/.go-mod path=/tmp/.go:$HOME/go$"
	unlike "…no violation" "$out" "violation"
	check "…nothing was written to the host's ~/go" test ! -e "$HOME/go"
	# the host fetches the module itself (outside the sandbox): its warm cache
	(cd gm && GOPROXY="file://$T/gp" GOCACHE="$T/gocache" go mod download example.test/sbxdemo) > /dev/null 2>&1
	if [ -f "$HOME/go/pkg/mod/cache/download/example.test/sbxdemo/@v/v1.0.0.zip" ]; then
		chmod -R u+w "$HOME/go" # (go makes its module cache read-only; the cleanup removes it)
		before=$(tree "$HOME/go")
		rm -f gm/go.sum
		out=$(cd gm && GOPROXY=off sb -c 'go run . 2>&1' 2>&1); rc=$?
		is "go, offline (GOPROXY=off): the host's warm module cache serves the build" "$rc" 0
		like "…the module came from it" "$out" "^from the module$"
		unlike "…no violation" "$out" "violation"
		out=$(GOPROXY=off sb -c 'echo poisoned > ~/go/pkg/mod/cache/download/example.test/sbxdemo/@v/v1.0.0.zip; echo x > ~/go/pkg/mod/example.test/sbxdemo@v1.0.0/demo.go' 2>&1)
		is "…the host's module cache is unchanged (a host-side read sees the host's bytes)" "$(tree "$HOME/go")" "$before"
	else
		skip "go, offline: the host's warm module cache serves the build" "the host-side go mod download failed"
	fi
	out=$(GOMODCACHE=/srv/mod GOPATH=/srv/gp sb -c 'echo "$GOPROXY $GOPATH"' 2>&1)
	is "…the user's own GOMODCACHE is the upstream read, the user's GOPATH follows the private one" "$out" \
		"file:///srv/mod/cache/download,https://proxy.golang.org,direct /tmp/.go:/srv/gp"
	unset GONOSUMDB GOFLAGS
else
	skip "go run with a module from a file:// GOPROXY" "/usr/bin/go is not installed (packaging/deps.sh test installs golang-go)"
fi

# --- maven: a parent POM and a build extension (a jar) from a file:// repository ---
# (the repository is gradle's below too)
if [ -x /usr/bin/mvn ] && [ -x /usr/bin/python3 ]; then
	R=$T/m2r
	for a in com/example/sbxparent/1.0/sbxparent-1.0 com/example/sbxext/1.0/sbxext-1.0 \
		org/codehaus/plexus/plexus-utils/1.1/plexus-utils-1.1; do
		mkdir -p "$R/${a%/*}"
		v=${a%/*}; v=${v##*/}; id=${a##*/}; id=${id%-*}; g=${a%/"$id"/*}; g=$(echo "$g" | tr / .)
		pk=jar; [ "$id" = sbxparent ] && pk=pom
		printf '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version><packaging>%s</packaging><properties><sbx.greeting>from the parent</sbx.greeting></properties></project>\n' \
			"$g" "$id" "$v" "$pk" > "$R/$a.pom"
		[ "$pk" = jar ] && /usr/bin/python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1], "w"); z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n"); z.close()' "$R/$a.jar"
		for f in "$R/$a".*; do sha1sum "$f" | cut -d' ' -f1 > "$f.sha1"; done
	done
	mkdir -p "$T/proj/mv"
	cat > "$T/proj/mv/pom.xml" <<-EOF
	<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
	<parent><groupId>com.example</groupId><artifactId>sbxparent</artifactId><version>1.0</version><relativePath/></parent>
	<artifactId>app</artifactId>
	<repositories><repository><id>lab</id><url>file://$R</url></repository></repositories>
	<pluginRepositories><pluginRepository><id>lab</id><url>file://$R</url></pluginRepository></pluginRepositories>
	<build><extensions><extension><groupId>com.example</groupId><artifactId>sbxext</artifactId><version>1.0</version></extension></extensions></build>
	</project>
	EOF
	mkdir -p "$HOME/.m2/repository"
	echo host > "$HOME/.m2/repository/keep"
	before=$(tree "$HOME/.m2")
	out=$(cd mv && sb -c 'mvn -B validate 2>&1 && ls /tmp/.m2/repository/com/example/sbxext/1.0' 2>&1); rc=$?
	is "mvn validate with a parent and an extension from a file:// repository in the sandbox: exit 0" "$rc" 0
	like "…BUILD SUCCESS" "$out" "BUILD SUCCESS"
	like "…the jar landed in the private /tmp's repository" "$out" "^sbxext-1.0.jar$"
	unlike "…no violation" "$out" "violation"
	is "…the user's MAVEN_OPTS is kept (after sbxsh's, so it wins)" \
		"$(MAVEN_OPTS=-Dsbx.mark=kept "$SBXSH" -c 'echo "$MAVEN_OPTS"' 2>&1)" \
		"-Dmaven.repo.local=/tmp/.m2/repository -Dmaven.repo.local.tail=$HOME/.m2/repository -Dsbx.mark=kept"
	is "…the host's ~/.m2 is unchanged" "$(tree "$HOME/.m2")" "$before"
	minor=$(mvn -v 2> /dev/null | sed -n 's/.*Apache Maven 3\.\([0-9]*\).*/\1/p' | head -n 1)
	if [ -n "$minor" ] && [ "$minor" -ge 9 ]; then
		(cd mv && mvn -B -q validate) > /dev/null 2>&1 # the host's own build: its warm cache
		out=$(cd mv && sb -c 'mvn -B -o validate 2>&1' 2>&1); rc=$?
		is "maven, offline: the host's warm repository serves the build (maven.repo.local.tail)" "$rc" 0
		unlike "…no violation" "$out" "violation"
	else
		skip "maven, offline: the host's warm repository serves the build" \
			"maven ${minor:+3.$minor }reads no read-only repository (maven.repo.local.tail is maven 3.9's): its cache starts cold"
	fi
else
	skip "mvn validate from a file:// repository" "/usr/bin/mvn is not installed (packaging/deps.sh test installs maven)"
fi

# --- gradle: a jar from a file:// repository, the user's gradle.properties (sanitised) ---
if [ -x /usr/bin/gradle ] && [ -d "$T/m2r" ]; then
	mkdir -p "$HOME/.gradle/caches" "$T/proj/gr"
	printf 'sbxGreeting=from the properties\nsbxPassword=SECRET21\n' > "$HOME/.gradle/gradle.properties"
	echo host > "$HOME/.gradle/caches/keep"
	cat > "$T/proj/gr/build.gradle" <<-EOF
	repositories { maven { url "file://$T/m2r" } }
	configurations { lab }
	dependencies { lab 'com.example:sbxext:1.0' }
	task show { doLast {
		configurations.lab.files.each { println "got " + it.name }
		println "greeting: " + project.sbxGreeting
		println "password: " + project.findProperty('sbxPassword')
	} }
	EOF
	# gradle_sb CMD: sb -c CMD in gr, again (at most twice) when its shell script's own fork
	# failed ("Cannot fork": seen only under other jobs' load on a shared machine, as root)
	gradle_sb() {
		for _ in 1 2 3; do
			out=$(cd gr && sb -c "$1" 2>&1); rc=$?
			case $out in *"Cannot fork"*) diag "gradle: Cannot fork; again" ;; *) break ;; esac
		done
	}
	before=$(tree "$HOME/.gradle")
	gradle_sb 'gradle -q --offline show 2>&1 && echo "home=$GRADLE_USER_HOME"'
	is "gradle resolves a jar from a file:// repository in the sandbox: exit 0" "$rc" 0
	like "…the jar was fetched" "$out" "^got sbxext-1.0.jar$"
	like "…into a gradle home in the private /tmp" "$out" "^home=/tmp/.gradle$"
	like "…the user's gradle.properties is read there" "$out" "^greeting: from the properties$"
	like "…sanitised: its password is not" "$out" "^password: null$"
	unlike "…no violation" "$out" "violation"
	is "…the host's ~/.gradle is unchanged" "$(tree "$HOME/.gradle")" "$before"
	v=$(gradle --version 2> /dev/null | sed -n 's/^Gradle \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	set -- $v
	if [ $# = 2 ] && { [ "$1" -gt 6 ] || { [ "$1" = 6 ] && [ "$2" -ge 2 ]; }; }; then
		(cd gr && gradle -q show) > /dev/null 2>&1 # the host's own build: its warm cache
		before=$(tree "$HOME/.gradle/caches/modules-2")
		rm -rf "$T/m2r.off" && mv "$T/m2r" "$T/m2r.off"
		gradle_sb 'gradle -q --offline show 2>&1'
		mv "$T/m2r.off" "$T/m2r"
		is "gradle, offline, the repository gone: the host's warm cache serves (GRADLE_RO_DEP_CACHE)" "$rc" 0
		like "…the jar came from it" "$out" "^got sbxext-1.0.jar$"
		is "…and the host's cache is unchanged" "$(tree "$HOME/.gradle/caches/modules-2")" "$before"
	else
		skip "gradle, offline: the host's warm cache serves" \
			"gradle ${1:-?}.${2:-?} has no read-only dependency cache (GRADLE_RO_DEP_CACHE is gradle 6.2's): its cache starts cold"
	fi
else
	skip "gradle resolves a jar from a file:// repository" "/usr/bin/gradle is not installed (packaging/deps.sh test installs it)"
fi
done_testing
