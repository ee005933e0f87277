#!/bin/sh
# deps.sh — check (and as root with apt-get, install) what sbxsh needs.
# Usage: deps.sh build|test|bench.  Never guesses: names the exact command otherwise.
set -u
what=${1:-build}

# pkg-config module -> Debian package
build_mods="libseccomp:libseccomp-dev libcap-ng:libcap-ng-dev inih:libinih-dev libuv:libuv1-dev openssl:libssl-dev pam:libpam0g-dev"
# command -> Debian package
build_cmds="pkg-config:pkg-config cc:gcc musl-gcc:musl-tools bwrap:bubblewrap"
test_cmds="curl:curl tmux:tmux vi:vim-tiny git:git sshd:openssh-server ssh:openssh-client pamtester:pamtester ip:iproute2 openssl:openssl runuser:util-linux setpriv:util-linux npm:npm zsh:zsh mandoc:mandoc rsync:rsync time:time mvn:maven gradle:gradle hg:mercurial direnv:direnv screen:screen expect:expect script:bsdutils"
test_files="/usr/lib/x86_64-linux-gnu/libpam_wrapper.so:libpam-wrapper"
bench_cmds="hyperfine:hyperfine tinyproxy:tinyproxy-bin wrk:wrk strace:strace valgrind:valgrind"

missing=""
add() { case " $missing " in *" $1 "*) ;; *) missing="$missing $1" ;; esac; }

have_cmd() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }

for pair in $build_cmds; do have_cmd "${pair%%:*}" || add "${pair#*:}"; done
if have_cmd pkg-config; then
	for pair in $build_mods; do pkg-config --exists "${pair%%:*}" 2>/dev/null || add "${pair#*:}"; done
else
	for pair in $build_mods; do add "${pair#*:}"; done
fi
case $what in
test|bench)
	for pair in $test_cmds; do have_cmd "${pair%%:*}" || add "${pair#*:}"; done
	for pair in $test_files; do f=${pair%%:*}; [ -e "$f" ] || [ -e "/usr/lib/$(uname -m)-linux-gnu/${f##*/}" ] || add "${pair#*:}"; done
	# by path, with the modules the tests use: the unprivileged e2e run has
	# PATH=/usr/local/bin:/usr/bin:/bin, whatever root's PATH finds
	/usr/bin/python3 -c 'import http.server, ssl, socket' 2>/dev/null || add python3
	/usr/bin/python3 -m pip --version > /dev/null 2>&1 || add python3-pip
	# e2e 0635 runs the Debian packages' cargo and go (a rustup proxy in root's PATH keeps its
	# toolchains in the real HOME)
	[ -x /usr/bin/cargo ] || add cargo
	[ -x /usr/bin/go ] || add golang-go ;;
esac
case $what in bench) for pair in $bench_cmds; do have_cmd "${pair%%:*}" || add "${pair#*:}"; done ;; esac

[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && have_cmd apt-get; then
	echo "deps.sh: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } >&2 && exit 0
	echo "deps.sh: apt-get failed; run: apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "sbxsh: missing packages:$missing" >&2
echo "sbxsh: install them with: sudo apt-get install -y$missing" >&2
exit 1
