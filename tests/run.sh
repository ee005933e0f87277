#!/bin/sh
# run.sh — runs every suite and ends with one line: "N passed, N failed, N skipped".
# Suites: unit/<name> (C, TAP), lint/layers (include rules), policy/<case> (golden),
# fuzz/<target> (corpus replay), man/lint (mandoc -T lint on docs/man), e2e/<script> (real
# bwrap; as root, then again as an unprivileged user), deb/build and deb/e2e (the package, as
# root: DEB_E2E).
# TESTS="unit/* e2e/0010*" picks a subset (shell patterns on the suite names).
#
# Suites run side by side, SBXSH_TEST_JOBS at a time (default 2; 1: one after the other).
# Each one's output is kept and printed whole when it and every suite before it have ended,
# in the order of the list above, so the log reads as a sequential run's. An e2e script's
# two runs (root, then sbxsh-test) are one job, one after the other: they share fixtures.
# A suite that changes what the others see says so in a header line of its script:
#   # serial: WHY      no other e2e, policy or deb suite runs meanwhile (the unit tests and
#                      lints do: they touch nothing of the staged install)
#   # lock NAME: WHY   never beside another suite holding NAME
# (a policy case with a system.ini is serial: it writes the staged system policy).
set -u
B=${B:-build}
MAKE=${MAKE:-make}
JOBS=${SBXSH_TEST_JOBS:-2}
case $JOBS in
'' | *[!0-9]* | 0 | 0*)
	echo "run.sh: SBXSH_TEST_JOBS=$JOBS: want the number of suites to run at once (1 or more)" >&2
	exit 2
	;;
esac
# A job is a background subshell, which ignores SIGINT and SIGQUIT (no job control): its
# suites get them back (the default action), as in a run in the foreground.
dfl="env --default-signal=INT,QUIT"
if ! $dfl true 2> /dev/null; then
	[ "$JOBS" = 1 ] || echo "# run.sh: env has no --default-signal (coreutils < 8.31): one suite at a time"
	JOBS=1 dfl=
fi
pass=0 fail=0 skip=0
failed_suites=""
out=$(mktemp -d "${TMPDIR:-/tmp}/sbxsh-check.XXXXXX")
chmod 755 "$out"
# interrupted: the running jobs' suites are ended too (SIGTERM), then $out removed
stop_jobs() {
	for i in $running_jobs; do
		eval "pid=\$j_pid_$i"
		pkill -TERM -P "$pid" 2> /dev/null
	done
}
running_jobs=""
trap 'rm -rf "$out"' EXIT
trap 'stop_jobs; exit 130' INT
trap 'stop_jobs; exit 143' TERM
mkdir "$out/u"

selected() {
	[ -z "${TESTS:-}" ] && return 0
	for pat in $TESTS; do
		# shellcheck disable=SC2254
		case $1 in $pat) return 0 ;; esac
	done
	return 1
}

# --- the jobs: added in the order they are reported; run by the pool below ---
# add NAME KIND ARG CLASS [LOCK [AFTER]]: CLASS free (no staged install needed, beside
# anything), shared, or serial; LOCK a name or "-"; AFTER the job that must end well first.
n_jobs=0
add() {
	n_jobs=$((n_jobs + 1))
	eval "j_name_$n_jobs=\$1 j_kind_$n_jobs=\$2 j_arg_$n_jobs=\$3 j_cls_$n_jobs=\$4"
	eval "j_lock_$n_jobs=\${5:--} j_after_$n_jobs=\${6:-0} j_st_$n_jobs=wait"
}
# header_class SCRIPT: "serial -" or "shared NAME" or "shared -", from its header lines.
header_class() {
	h=$(sed -n '1,30{/^# serial:/{s/.*/serial -/p;q};/^# lock [A-Za-z0-9_-]*:/{s/^# lock \([A-Za-z0-9_-]*\):.*/shared \1/p;q}}' "$1")
	echo "${h:-shared -}"
}

for t in "$B"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	n=unit/${t##*/}; selected "$n" && add "$n" unit "$t" free
done
for t in "$B"/tests/fuzz/fuzz_*; do
	[ -x "$t" ] || continue
	n=fuzz/${t##*/}; selected "$n" && add "$n" fuzz "$t" free
done
# the architecture's include rules (docs/architecture.md)
n=lint/layers; selected "$n" && add "$n" layers - free
# bash's and zsh's completion, driven for real against the subcommands --help names ($B/sbxsh,
# which make deb builds again: never beside deb/build)
n=lint/completion; selected "$n" && add "$n" completion - free buildtree
# the man pages: mandoc -T lint, one line a page
n=man/lint; selected "$n" && add "$n" manlint - free
# below: against the staged install
command -v man > /dev/null 2>&1 && selected install/man && add install/man installman - shared
for d in tests/policy/*/; do
	[ -d "$d" ] || continue
	c=${d%/}; c=${c##*/}; n=policy/$c
	cls=shared
	[ -f "$d/system.ini" ] && [ "$(id -u)" = 0 ] && cls=serial
	selected "$n" && add "$n" policy "$c" $cls
done
testuser=sbxsh-test
for t in tests/e2e/[0-9]*.sh; do
	[ -f "$t" ] || continue
	n=e2e/${t##*/}
	# shellcheck disable=SC2046
	selected "$n" && add "$n" e2e "${t##*/}" $(header_class "$t")
done
# The Debian package: built, installed here, removed (root with dpkg only). The staged
# install has run every e2e suite both ways already; against /usr/bin/sbxsh, make check runs
# as root the suites that reach each installed piece by its packaged path (DEB_E2E: the
# policy in /etc/sbxsh and its presets, the front end, sbxsh-stage's masks, sbxsh-sessiond,
# the monitor and the guard, zsh's start-up files in libexec with the pty relay (bash's: the
# sshd suite's logins), the shims, pam_sbxsh.so, sshd), the quicker of each kind;
# `make check-deb` runs all of them, as root and as sbxsh-test. Building it is a job of its
# own, started early (it compiles while the suites wait; it touches nothing of the staged
# install). The package, installed system-wide, is seen by no staged suite (they run the
# staged paths; it has no maintainer scripts): deb/e2e runs beside the shared suites, never
# beside a serial one, and holds the lock "agents" (its 0600 writes root's agent cache and
# removes /var/tmp/sbxsh-run.*, as 0440 and 0610 use them).
DEB_E2E=${DEB_E2E:-'e2e/0010* e2e/0100* e2e/0155* e2e/0220* e2e/0300* e2e/0410* e2e/0430* e2e/0530* e2e/0600* e2e/0700* e2e/0720*'}
deb_pre_skip=""
if [ "$(id -u)" = 0 ] && command -v dpkg-deb > /dev/null 2>&1 && selected deb/e2e; then
	if dpkg -s sbxsh > /dev/null 2>&1; then
		deb_pre_skip=yes
	else
		add deb/build debbuild - free buildtree
		add deb/e2e debe2e - shared agents "$n_jobs"
	fi
fi

# --- running one job (in a background subshell): its suites' output in $out/u/JOB/ ---
# run_suite NAME CMD…: runs CMD (no stdin: CI gives none; suites that need one make it).
run_suite() {
	k=$((k + 1))
	printf '%s\n' "$1" > "$d/$k.name"
	shift
	t0=$(date +%s)
	times > "$d/$k.t0"
	case $1 in
	*_suite | deb_build) "$@" ;;
	*) $dfl "$@" ;;
	esac > "$d/$k.log" 2>&1 < /dev/null 3>&-
	echo $? > "$d/$k.rc"
	times > "$d/$k.t1"
	# the wall time, then the CPU time of the processes it waited for (not of daemons)
	echo "# took $(($(date +%s) - t0)) s, cpu $(cat "$d/$k.t0" "$d/$k.t1" | awk '
		function sec(x) { sub(/s$/, "", x); split(x, a, "m"); return a[1] * 60 + a[2] }
		NR == 2 { b = sec($1) + sec($2) } NR == 4 { e = sec($1) + sec($2) }
		END { printf "%.1f", e - b }') s" >> "$d/$k.log"
}
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
deb_build() {
	$MAKE --no-print-directory B="$B" DEB_B="$B" DEB_OUT="$out/sbxsh.deb" deb > "$out/deb.log" 2>&1 ||
		{ cat "$out/deb.log"; echo "not ok - make deb"; return 1; }
	echo "ok - make deb builds a package"
}
deb_suite() {
	TESTS=$DEB_E2E CHECK_DEB_USERS=root $dfl sh packaging/check-deb.sh "$out/sbxsh.deb" > "$out/deb.out" 2>&1
	rc=$?
	sed 's/^\[deb \([^]]*\)\] \(.*\)$/\2 (\1)/' "$out/deb.out" | grep -v ' passed, .* failed'
	return $rc
}
run_job() {
	d=$out/u/$1 k=0
	mkdir -p "$d"
	eval "name=\$j_name_$1 kind=\$j_kind_$1 arg=\$j_arg_$1"
	case $kind in
	unit) run_suite "$name" "$arg" ;;
	fuzz) run_suite "$name" "$arg" tests/fuzz/corpus/"${arg##*/fuzz_}" ;;
	layers) run_suite "$name" sh tests/lint/layers.sh ;;
	completion) SBXSH=$B/sbxsh run_suite "$name" sh tests/lint/completion.sh ;;
	manlint) run_suite "$name" $MAKE --no-print-directory man-lint ;;
	installman) run_suite "$name" man_suite ;;
	policy) run_suite "$name" sh tests/policy/run-case.sh "$stage/policy/$arg" ;;
	e2e)
		run_suite "$name" sh "$stage/e2e/$arg"
		[ "$(id -u)" = 0 ] || return 0
		if ! uid=$(id -u "$testuser" 2> /dev/null); then
			run_suite "$name@$testuser" echo "not ok 1 - no user $testuser"
			return 0
		fi
		run_suite "$name@$testuser" setpriv --reuid="$uid" --regid="$(id -g "$testuser")" --init-groups \
			env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$(getent passwd "$testuser" | cut -d: -f6)" \
			USER="$testuser" LOGNAME="$testuser" TMPDIR=/tmp SBXSH_STAGE="$stage" \
			sh "$stage/e2e/$arg"
		;;
	debbuild) run_suite "$name" deb_build ;;
	debe2e) run_suite "$name" deb_suite ;;
	esac
}

# report JOB: its suites' output, each line prefixed with the suite's name; counts its TAP lines.
report() {
	d=$out/u/$1 k=0
	while [ -f "$d/$((k + 1)).name" ]; do
		k=$((k + 1))
		name=$(cat "$d/$k.name") log=$d/$k.log
		rc=$(cat "$d/$k.rc" 2> /dev/null) || rc=1
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
	done
}

# --- an installed tree for golden and end-to-end tests, with its own SYSCONFDIR (built in the
# build's tree: only the files that include the compiled-in paths are compiled again) ---
stage=$out/stage
stage_ok=no
t_begin=$(date +%s)
i=1
while [ $i -le $n_jobs ]; do
	eval "c=\$j_cls_$i"
	[ "$c" = free ] || break
	i=$((i + 1))
done
if [ $i -le $n_jobs ]; then # a job needs it
	if ! $MAKE --no-print-directory B="$B" PREFIX="$stage" SYSCONFDIR="$stage/etc" \
		SANITIZE="${SANITIZE:-}" install > "$out/install.log" 2>&1; then
		cat "$out/install.log"
		echo "not ok - staged install failed"
		fail=$((fail + 1))
	else
		cp -R tests/e2e tests/policy "$stage/"
		chmod -R a+rX "$stage"
		stage_ok=yes
	fi
fi
export SBXSH_STAGE="$stage"
# e2e: as the current user, and again as an unprivileged one when root.
if [ "$(id -u)" = 0 ] && ! id "$testuser" > /dev/null 2>&1; then
	useradd --system --create-home --shell /bin/sh "$testuser" > /dev/null 2>&1 ||
		echo "warning: could not create $testuser"
fi

# --- the pool: serial jobs first (the free ones run beside them), then the rest in order;
# a job ends by writing its number to the fifo, which the loop below reads ---
t_start=$(date +%s)
mkfifo "$out/done"
exec 3<> "$out/done"
running=0 n_busy=0 n_serial=0 locks=" " next=1 left=$n_jobs
# startable JOB: whether it may start now (0), never (2: what it needs failed), or later (1).
startable() {
	eval "c=\$j_cls_$1 l=\$j_lock_$1 a=\$j_after_$1"
	if [ "$c" != free ]; then
		[ "$stage_ok" = yes ] || return 2
		[ $n_serial -eq 0 ] || return 1
		[ "$c" = serial ] && [ $n_busy -gt 0 ] && return 1
	fi
	if [ "$a" != 0 ]; then
		eval "ast=\$j_st_$a"
		case $ast in
		ok) ;;
		wait | run) return 1 ;;
		*) return 2 ;;
		esac
	fi
	case $locks in *" $l "*) return 1 ;; esac
	return 0
}
start() {
	eval "c=\$j_cls_$1 l=\$j_lock_$1 j_st_$1=run"
	running=$((running + 1))
	[ "$c" = free ] || n_busy=$((n_busy + 1))
	[ "$c" = serial ] && n_serial=$((n_serial + 1))
	[ "$l" = - ] || locks="$locks$l "
	(
		trap - EXIT INT TERM
		run_job "$1"
		echo "$1" >&3
	) > "$out/u/$1.err" 2>&1 &
	eval "j_pid_$1=\$!"
	running_jobs="$running_jobs $1 "
}
finish() {
	eval "c=\$j_cls_$1 l=\$j_lock_$1"
	running=$((running - 1)) left=$((left - 1))
	running_jobs=$(echo "$running_jobs" | sed "s/ $1 / /")
	[ "$c" = free ] || n_busy=$((n_busy - 1))
	[ "$c" = serial ] && n_serial=$((n_serial - 1))
	[ "$l" = - ] || locks=$(echo "$locks" | sed "s/ $l / /")
	st=ok
	for f in "$out/u/$1"/*.rc; do
		[ -f "$f" ] && [ "$(cat "$f")" != 0 ] && st=failed
	done
	eval "j_st_$1=\$st"
	[ -s "$out/u/$1.err" ] && cat "$out/u/$1.err"
}
# the order jobs are tried in: serial ones first, then the package's, then the rest
# (one at a time: in the order they are reported, as a sequential run always did)
order="" passes="serial deb other"
[ "$JOBS" = 1 ] && passes=all
for pass_cls in $passes; do
	i=1
	while [ $i -le $n_jobs ]; do
		eval "c=\$j_cls_$i k=\$j_kind_$i"
		case $pass_cls:$c:$k in
		all:* | serial:serial:* | deb:*:deb*) order="$order $i" ;;
		other:serial:* | other:*:deb*) ;;
		other:*) order="$order $i" ;;
		esac
		i=$((i + 1))
	done
done
while [ $left -gt 0 ]; do
	for i in $order; do
		[ $running -lt "$JOBS" ] || break
		eval "st=\$j_st_$i"
		[ "$st" = wait ] || continue
		startable "$i"
		case $? in
		0) start "$i" ;;
		2) eval "j_st_$i=cancelled"; left=$((left - 1)) ;;
		esac
	done
	if [ $running -gt 0 ]; then
		read -r i <&3 && finish "$i"
	elif [ $left -gt 0 ]; then
		# nothing runs and nothing may start: cannot happen; say so rather than hang
		echo "not ok - run.sh: $left suites could not be scheduled"
		fail=$((fail + 1))
		break
	fi
	# the output of every job ended, up to the first one still to end
	while [ $next -le $n_jobs ]; do
		eval "st=\$j_st_$next"
		case $st in
		wait | run) break ;;
		cancelled)
			eval "name=\$j_name_$next"
			[ "$name" = deb/e2e ] && [ "$stage_ok" = yes ] &&
				echo "[deb/e2e] not ok - not run: deb/build failed" && fail=$((fail + 1)) &&
				failed_suites="$failed_suites deb/e2e"
			;;
		*) report "$next" ;;
		esac
		next=$((next + 1))
	done
done
exec 3>&-
t_end=$(date +%s)
if [ -n "$deb_pre_skip" ]; then
	echo "[deb/e2e] ok 1 - the package suite # SKIP a sbxsh package is installed here already"
	skip=$((skip + 1))
fi

# the failures again, last, so that the tail of a long log names them
if [ -s "$out/failures" ]; then
	echo "failures:"
	head -n 40 "$out/failures"
fi
[ -n "$failed_suites" ] && echo "failed suites:$failed_suites"
echo "# run.sh: $n_jobs jobs, $JOBS at a time: $((t_end - t_start)) s after the staged install's $((t_start - t_begin)) s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
