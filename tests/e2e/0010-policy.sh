#!/bin/sh
# 0010-policy — `sbxsh policy` and `--check` on the staged binary: layers, --config,
# SBXSH_CONFIG, trust checks on system and user files, bad input, exit codes.
# serial: as root it writes the staged system policy ($SYSCONF/sbxsh.ini), which every
# staged sbxsh reads.
. "$SBXSH_STAGE/e2e/lib.sh"

UF=$HOME/.config/sbxsh/sbxsh.ini
SF=$SYSCONF/sbxsh.ini
# The staged $SYSCONF is shared with other scripts: leave no system file behind.
trap 'rm -f "$SF"; e2e_cleanup' EXIT
cd "$T/proj" || exit 1
P=$(pwd -P)

# run CMD…: sets out (stdout+stderr) and rc.
run() { out=$("$@" 2>&1); rc=$?; }

run timeout 20 "$SBXSH" policy
is "policy with the default exits 0" "$rc" 0
like "the project root is found from .git" "$out" "^root = $P  # marker \.git$"
like "~/.ssh is hidden by default" "$out" "^deny_read = $HOME/\.ssh  # <embedded>:[0-9]+$"
like "network defaults to proxy" "$out" "^network = proxy  # <embedded>:"

user_policy '[default]
network = none
write += build'
run "$SBXSH" policy
like "a user file overrides the default, with its line" "$out" "^network = none  # $UF:2$"
like "relative write grants are under the project root" "$out" "^write = $P/build  # $UF:3$"
mkdir -p "$T/proj/sub/dir"
run "$SBXSH" policy sub/dir
like "policy DIR resolves another directory" "$out" "^cwd = $P/sub/dir$"

printf '[default]\nnetwork = open\n' > "$T/alt.ini"; chmod 600 "$T/alt.ini"
run "$SBXSH" policy --config "$T/alt.ini"
like "--config replaces the user file" "$out" "^network = open  # $T/alt.ini:2$"
out=$(SBXSH_CONFIG="$T/alt.ini" "$SBXSH" policy 2>&1)
like "SBXSH_CONFIG replaces the user file" "$out" "^network = open  # $T/alt.ini:2$"
run "$SBXSH" policy --config "$T/missing.ini"
is "a missing --config file is refused (125)" "$rc" 125
like "and named" "$out" "$T/missing.ini: cannot open"

run "$SBXSH" policy --check
is "--check of a valid load exits 0" "$rc" 0
is "and says ok" "$out" "ok"
printf '[default]\nnetwrk = none\nallow_domains = *.com\n' > "$T/bad.ini"; chmod 600 "$T/bad.ini"
run "$SBXSH" policy --check "$T/bad.ini" "$T/alt.ini"
is "--check FILE with errors exits 1" "$rc" 1
like "unknown key named with the closest one" "$out" "^$T/bad.ini:2: unknown key 'netwrk' in \[default\]; did you mean 'network'\?$"
like "a public-suffix wildcard is refused" "$out" "^$T/bad.ini:3: allow_domains: '\*\.com' opens a whole public suffix"
run "$SBXSH" policy --bogus
is "an unknown option is a usage error (2)" "$rc" 2

# Bad user files: every one stops the load (125), naming the file and line.
bad_user() { # DESC TEXT PATTERN
	user_policy "$2"
	run "$SBXSH" policy
	if [ "$rc" = 125 ] && printf '%s\n' "$out" | grep -Eq -- "$3"; then ok "$1"; else
		not_ok "$1"; diag "rc=$rc out: $out"; fi
}
bad_user "a syntax error" '[default' "$UF:1: section header without"
bad_user "an unknown section" '[defualt]' "did you mean \[default\]"
bad_user "a bad boolean" '[default]
hermetic = perhaps' "$UF:2: hermetic: 'perhaps' is not a boolean"
bad_user "an unset variable in a path" '[default]
read = $SBXSH_E2E_UNSET/x' 'SBXSH_E2E_UNSET, which is not set'
bad_user "an unterminated {" '[default]
write = src/{a,b' "unterminated '\{'"
bad_user "use of a missing profile" '[dir /x]
use = ghost' "$UF:2: use = ghost: no \[profile ghost\]"
bad_user "a use cycle" '[profile a]
use = b
[profile b]
use = a' "makes a cycle"
bad_user "[limits] in a user file" '[limits]
network = none' "$UF:1: \[limits\] is honoured only in system files"
bad_user "a URL as a domain" '[default]
allow_domains = https://example.com' "is a URL"
bad_user "a dotless domain" '[default]
allow_domains = intranet' "has no dot"
bad_user "a very long line" "[default]
read = /$(printf '%0300d' 0)" "$UF:2: line longer than"
printf '[default]\nread = /a\000b\n' > "$UF"
run "$SBXSH" policy
like "a NUL byte is refused with its line" "$out" "$UF:2: holds a NUL byte"

user_policy '[default]'
chmod 620 "$UF"
run "$SBXSH" policy
like "a group-writable user file is refused" "$out" "writable by group or others; run: chmod go-w"
chmod 600 "$UF"
if is_root; then
	chown 1 "$UF"
	run "$SBXSH" policy
	like "a user file owned by someone else is refused" "$out" "is owned by uid 1, not by you"
	chown 0 "$UF"
	skip "an unreadable user file is refused" "root reads every file"
else
	skip "a user file owned by someone else is refused" "only root can give a file away"
	chmod 000 "$UF"
	run "$SBXSH" policy
	like "an unreadable user file is refused" "$out" "$UF: cannot open: Permission denied"
	chmod 600 "$UF"
fi
rm -f "$UF"
mkdir "$UF"
run "$SBXSH" policy
like "a directory is refused" "$out" "$UF: is a directory"
rmdir "$UF"
mkfifo "$UF"
run timeout 10 "$SBXSH" policy
like "a FIFO is refused without hanging" "$out" "$UF: is not a regular file"
rm -f "$UF"

# System files: root-owned, not group/world-writable.
if is_root; then
	printf '[default]\nnetwork = none\n[limits]\nnetwork = proxy\n' > "$SF"
	chmod 644 "$SF"
	run "$SBXSH" policy
	like "a root-owned system file applies" "$out" "^network = none  # $SF:2$"
	user_policy '[default]
network = open'
	run "$SBXSH" policy
	like "[limits] lowers a user's network, with a warning" "$out" "^warning: $UF:2: network = open lowered to proxy by \[limits\] \($SF:4\)$"
	is "a dropped grant is not fatal" "$rc" 0
	rm -f "$UF"
	chmod 664 "$SF"
	run "$SBXSH" policy
	like "a group-writable system file is refused" "$out" "$SF: is writable by group or others"
	chmod 644 "$SF"
	chown 1 "$SF"
	run "$SBXSH" policy
	like "a system file not owned by root is refused" "$out" "$SF: is owned by uid 1; a system policy file must be owned by root"
	is "and the command is refused (125)" "$rc" 125
	rm -f "$SF"
else
	skip "system policy files" "only root can create files in $SYSCONF (a system file must be root-owned)"
fi

done_testing
