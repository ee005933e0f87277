#!/bin/sh
# layers.sh — the include graph of docs/architecture.md, checked: prints TAP.
# Layers, lowest first: platform (with platform/linux, platform/musl) < proxy < session < shell.
# 1. No file includes a header of a layer above its own.
# 2. Outside platform/, no Linux-only interface: no platform/linux/ header, no <linux/...> or
#    Linux-only <sys/...> header, no raw syscall(), no Linux-only call or constant by name
#    (linux_ids below: splice, memfd_create, SO_PEERCRED, O_PATH, …).
# 3. Within session/, a folder is a program: session/daemon/ headers are included by the
#    daemon's files only, session/client/ headers (the front end's and the stage's) by
#    session/client/ and shell/ only; session/ itself (both sides link it) by anyone above.
# tests/lint/layers.allow lists the exceptions still to be removed, one "file: what" a line;
# an entry that no longer occurs is an error too, so the list only shrinks.
set -u
cd "$(dirname "$0")/../.."
allow=tests/lint/layers.allow
found=$(mktemp) || exit 1
trap 'rm -f "$found"' EXIT

rank() {
	case $1 in
	platform*) echo 0 ;; proxy*) echo 1 ;; session*) echo 2 ;; shell*) echo 3 ;; *) echo 9 ;;
	esac
}

# The program an included session/ header belongs to may include it: 0 when f may.
same_program() { # same_program FILE HEADER
	case $2 in
	session/daemon/*) case $1 in session/daemon/*) return 0 ;; esac; return 1 ;;
	session/client/*) case $1 in session/client/* | shell/*) return 0 ;; esac; return 1 ;;
	esac
	return 0
}

# Linux-only calls and constants by name, in code (comments aside): each has a platform/
# function that a second backend provides.
linux_ids='\b(splice|vmsplice|memfd_create|getrandom|signalfd|epoll_[a-z_]+|inotify_[a-z_]+|pidfd_[a-z_]+|prctl|unshare|setns|close_range|statx|renameat2|process_vm_readv)\(|\b(SO_PASSCRED|SO_PEERCRED|SCM_CREDENTIALS|MSG_CMSG_CLOEXEC|O_PATH|O_TMPFILE|F_SETPIPE_SZ|F_GETPIPE_SZ|F_ADD_SEALS|MFD_[A-Z_]+|TCP_CONGESTION|PR_SET_[A-Z_]+)\b'
linux_only='^#include <(linux/[a-z0-9_/]*\.h|sys/(prctl|signalfd|syscall|mount|capability|fsuid|inotify|epoll|eventfd|timerfd|pidfd|personality|ptrace)\.h)'
for f in platform/*.[ch] platform/*/*.[ch] proxy/*.[ch] session/*.[ch] session/*/*.[ch] shell/*.[ch]; do
	[ -f "$f" ] || continue
	own=$(rank "$f")
	grep -o '^#include "[a-z_]*/[a-z_/]*\.h"' "$f" | sed 's/^#include "//; s/"$//' |
		while read -r inc; do
			[ "$(rank "$inc")" -gt "$own" ] && echo "$f: $inc"
			same_program "$f" "$inc" || echo "$f: $inc (another program's)"
		done >> "$found"
	case $f in platform/*) continue ;; esac
	grep -o '^#include "platform/linux/[a-z_]*\.h"' "$f" | sed "s|^#include \"||; s|\"$||; s|^|$f: |" >> "$found"
	grep -Eo "$linux_only" "$f" | sed "s|^#include <||; s|^|$f: <|; s|\$|>|" >> "$found"
	grep -q '[^_a-z]syscall(' "$f" && echo "$f: syscall()" >> "$found"
	sed 's|/\*.*\*/||g; s|/\*.*||; s|^[[:space:]]*\*.*||' "$f" | grep -Eo "$linux_ids" | sort -u |
		sed "s|^|$f: |" >> "$found"
done

n=0 bad=0
check() { # check OK? DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; bad=1; fi
}
new=$(sort -u "$found" | grep -vxF -f "$allow")
check "$([ -z "$new" ] && echo 0 || echo 1)" "no upward include, none of another program's session/ files, no Linux-only interface outside platform/ (beyond $allow)"
[ -n "$new" ] && echo "$new" | sed 's/^/#   /'
stale=$(grep -v '^#' "$allow" | grep -v '^$' | grep -vxF -f "$found")
check "$([ -z "$stale" ] && echo 0 || echo 1)" "every exception in $allow still occurs (remove the fixed ones)"
[ -n "$stale" ] && echo "$stale" | sed 's/^/#   /'
echo "1..$n"
exit $bad
