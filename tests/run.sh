#!/bin/sh
# run.sh — runs every suite and ends with one line: "N passed, N failed, N skipped".
# Suites: unit/<name> (C, TAP), lint/layers (include rules), policy/<case> (golden),
# fuzz/<target> (corpus replay), man/lint (mandoc -T lint on docs/man), e2e/<script> (real
# bwrap; as root, then again as an unprivileged user), deb/e2e (the package, as root: DEB_E2E).
# TESTS="unit/* e2e/0010*" picks a subset (shell patterns on the suite names).
set -u
B=${B:-build}
MAKE=${MAKE:-make}
top=$(pwd)
pass=0 fail=0 skip=0
failed_suites=""
out=$(mktemp -d "${TMPDIR:-/tmp}/sbxsh-check.XXXXXX")
chmod 755 "$out"
trap 'rm -rf "$out"' EXIT INT TERM

selected() {
	[ -z "${TESTS:-}" ] && return 0
	for pat in $TESTS; do
		# shellcheck disable=SC2254
		case $1 in $pat) return 0 ;; esac
	done
	return 1
}

# run_suite NAME CMD…: prefixes its TAP lines and counts them.
run_suite() {
	name=$1; shift
	log=$out/log
	t0=$(date +%s)
	"$@" > "$log" 2>&1 < /dev/null # CI gives no stdin; suites that need one make it
	rc=$?
	echo "# took $(($(date +%s) - t0)) s" >> "$log"
	p=$(grep -c '^ok ' "$log" | tr -d ' ') ; s=$(grep -c '^ok .*# SKIP' "$log" | tr -d ' ')
	f=$(grep -c '^not ok' "$log" | tr -d ' ')
	p=$((p - s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited $rc" >> "$log"
		f=1
	fi
	if [ $((p + f + s)) -eq 0 ]; then
		echo "not ok - $name ran no test" >> "$log"
		f=1
	fi
	sed "s|^|[$name] |" "$log"
	grep '^not ok' "$log" | sed "s|^|[$name] |" >> "$out/failures"
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	[ "$f" -gt 0 ] && failed_suites="$failed_suites $name"
}

# --- unit tests and fuzz-corpus replay ---
for t in "$B"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	n=unit/${t##*/}; selected "$n" && run_suite "$n" "$t"
done
for t in "$B"/tests/fuzz/fuzz_*; do
	[ -x "$t" ] || continue
	tgt=${t##*/}; n=fuzz/$tgt
	selected "$n" && run_suite "$n" "$t" tests/fuzz/corpus/"${tgt#fuzz_}"
done

# --- the architecture's include rules (docs/architecture.md) ---
n=lint/layers; selected "$n" && run_suite "$n" sh tests/lint/layers.sh
# bash's and zsh's completion, driven for real against the subcommands --help names
n=lint/completion; selected "$n" && SBXSH=$B/sbxsh run_suite "$n" sh tests/lint/completion.sh

# --- the man pages: mandoc -T lint, one line a page ---
selected man/lint && run_suite man/lint $MAKE --no-print-directory man-lint

# --- an installed tree for golden and end-to-end tests, with its own SYSCONFDIR (built in the
# build's tree: only the files that include the compiled-in paths are compiled again) ---
stage=$out/stage
if ! $MAKE --no-print-directory B="$B" PREFIX="$stage" SYSCONFDIR="$stage/etc" \
	SANITIZE="${SANITIZE:-}" install > "$out/install.log" 2>&1; then
	cat "$out/install.log"
	echo "not ok - staged install failed"
	fail=$((fail + 1))
else
	cp -R tests/e2e tests/policy "$stage/"
	# the man pages as make install put them: found by man(1)
	man_suite() {
		i=0
		for pg in 1:sbxsh 5:sbxsh.ini 8:pam_sbxsh 8:sbxsh-sessiond; do
			i=$((i + 1))
			if man -M "$stage/share/man" -w "${pg%%:*}" "${pg#*:}" > /dev/null 2>&1; then
				echo "ok $i - man ${pg%%:*} ${pg#*:} after make install"
			else
				echo "not ok $i - man ${pg%%:*} ${pg#*:} after make install"
			fi
		done
	}
	command -v man > /dev/null 2>&1 && selected install/man && run_suite install/man man_suite
	chmod -R a+rX "$stage"
	export SBXSH_STAGE="$stage"
	for d in tests/policy/*/; do
		[ -d "$d" ] || continue
		c=${d%/}; n=policy/${c##*/}
		selected "$n" && run_suite "$n" sh tests/policy/run-case.sh "$stage/policy/${c##*/}"
	done

	# e2e: as the current user, and again as an unprivileged one when root.
	testuser=sbxsh-test
	if [ "$(id -u)" = 0 ] && ! id "$testuser" > /dev/null 2>&1; then
		useradd --system --create-home --shell /bin/sh "$testuser" > /dev/null 2>&1 ||
			echo "warning: could not create $testuser"
	fi
	for t in tests/e2e/[0-9]*.sh; do
		[ -f "$t" ] || continue
		base=${t##*/}; n=e2e/$base
		selected "$n" || continue
		run_suite "$n" sh "$stage/e2e/$base"
		if [ "$(id -u)" = 0 ]; then
			uid=$(id -u "$testuser" 2>/dev/null) || { echo "not ok - no user $testuser"; fail=$((fail+1)); continue; }
			run_suite "$n@$testuser" setpriv --reuid="$uid" --regid="$(id -g "$testuser")" --init-groups \
				env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$(getent passwd "$testuser" | cut -d: -f6)" \
				USER="$testuser" LOGNAME="$testuser" TMPDIR=/tmp SBXSH_STAGE="$stage" \
				sh "$stage/e2e/$base"
		fi
	done
fi

# --- the Debian package: built, installed here, removed (root with dpkg only). The staged
# install above has run every e2e suite both ways already; against /usr/bin/sbxsh, make check
# runs as root the suites that reach each installed piece by its packaged path (DEB_E2E: the
# policy in /etc/sbxsh and its presets, the front end, sbxsh-stage's masks, sbxsh-sessiond,
# the monitor and the guard, zsh's start-up files in libexec with the pty relay (bash's: the
# sshd suite's logins), the shims, pam_sbxsh.so, sshd), the quicker of each kind;
# `make check-deb` runs all of them, as root and as sbxsh-test.
DEB_E2E=${DEB_E2E:-'e2e/0010* e2e/0100* e2e/0155* e2e/0220* e2e/0300* e2e/0410* e2e/0430* e2e/0530* e2e/0600* e2e/0700* e2e/0720*'}
deb_suite() {
	$MAKE --no-print-directory B="$B" DEB_B="$B" DEB_OUT="$out/sbxsh.deb" deb > "$out/deb.log" 2>&1 ||
		{ cat "$out/deb.log"; echo "not ok - make deb"; return 1; }
	echo "ok - make deb builds a package"
	TESTS=$DEB_E2E CHECK_DEB_USERS=root sh packaging/check-deb.sh "$out/sbxsh.deb" > "$out/deb.out" 2>&1
	rc=$?
	sed 's/^\[deb \([^]]*\)\] \(.*\)$/\2 (\1)/' "$out/deb.out" | grep -v ' passed, .* failed'
	return $rc
}
if [ "$(id -u)" = 0 ] && command -v dpkg-deb > /dev/null 2>&1 && selected deb/e2e; then
	if dpkg -s sbxsh > /dev/null 2>&1; then
		echo "[deb/e2e] ok 1 - the package suite # SKIP a sbxsh package is installed here already"
		skip=$((skip + 1))
	else
		run_suite deb/e2e deb_suite
	fi
fi

# the failures again, last, so that the tail of a long log names them
if [ -s "$out/failures" ]; then
	echo "failures:"
	head -n 40 "$out/failures"
fi
[ -n "$failed_suites" ] && echo "failed suites:$failed_suites"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
