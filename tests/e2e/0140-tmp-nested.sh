#!/bin/sh
# 0140-tmp-nested — the private TMPDIR (0700, per command, removed after, hidden from other
# commands), tmp = shared, network none/open, and nesting (compat.md 11).
# serial: it lists the host's /tmp/sbxsh-* before and after a command, where the other
# suites' sessions and users make their own.
TMPDIR=/var/tmp; export TMPDIR
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
unset XDG_RUNTIME_DIR
user_policy '[default]
network = none'
wait_for() { n=0; while [ ! -e "$1" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done; [ -e "$1" ]; }
u=$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')

is "TMPDIR, TMP and TEMP are /tmp" "$("$SBXSH" -c 'echo "$TMPDIR $TMP $TEMP"' 2>/dev/null)" "/tmp /tmp /tmp"
is "/tmp is ours with mode 0700" "$("$SBXSH" -c 'stat -c "%a %u" /tmp' 2>/dev/null)" "700 $(id -u)"
echo host > "/tmp/sbxsh-e2e-host.$u"
is "the host's /tmp is hidden" "$("$SBXSH" -c "ls /tmp/sbxsh-e2e-host.$u 2>&1 >/dev/null | wc -l" 2>/dev/null)" 1
rm -f "/tmp/sbxsh-e2e-host.$u"

# It is a fresh tmpfs: nothing lands on the host, nothing is left after the command.
# (sbxsh's own names there: /tmp/sbxsh-UID, $XDG_RUNTIME_DIR/sbxsh. The test harnesses'
# mktemp directories, sbxsh-check.XXXXXX and the like, come and go beside: not counted.)
sbxsh_dirs() { ls -d /tmp/sbxsh-* "${XDG_RUNTIME_DIR:-/nonexistent}"/sbxsh 2>/dev/null | grep -Ev '\.[A-Za-z0-9]{6}$' | sort; }
sbxsh_dirs > "$T/dirs.before"
"$SBXSH" -c "echo x > /tmp/mark.$u" 2>/dev/null
check "what a command writes to its TMPDIR lands nowhere on the host" \
	sh -c "! find /tmp /var/tmp -name 'mark.$u' 2>/dev/null | grep -q ."
is "…and no host directory is made for it" "$(sbxsh_dirs | comm -13 "$T/dirs.before" -)" ""
is "the next command's TMPDIR does not have it" "$("$SBXSH" -c "ls /tmp/mark.$u 2>/dev/null | wc -l" 2>/dev/null)" 0

# Two commands at once never see each other's.
rm -f started
"$SBXSH" -c "touch /tmp/a.$u started; sleep 1.5; ls /tmp" > "$T/a.out" 2>/dev/null &
pa=$!
wait_for started
"$SBXSH" -c "touch /tmp/b.$u; ls /tmp" > "$T/b.out" 2>/dev/null
wait $pa
check "a concurrent command does not see the first one's files" sh -c "! grep -q 'a\\.$u' '$T/b.out' && grep -q 'b\\.$u' '$T/b.out'"
check "…nor the first the second's" sh -c "! grep -q 'b\\.$u' '$T/a.out' && grep -q 'a\\.$u' '$T/a.out'"

# tmp = shared: the host's /tmp, writable.
user_policy '[default]
network = none
tmp = shared'
"$SBXSH" -c "echo shared > /tmp/sbxsh-e2e-shared.$u" 2>/dev/null
is "tmp = shared writes the host's /tmp" "$(cat "/tmp/sbxsh-e2e-shared.$u" 2>&1)" shared
rm -f "/tmp/sbxsh-e2e-shared.$u"

# network: none has only loopback; open keeps the host's interfaces.
user_policy '[default]
network = none'
netdevs() { "$1" -c 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | sort | tr "\n" " "'; }
is "network = none: only lo" "$(netdevs "$SBXSH" 2>/dev/null)" "lo "
user_policy '[default]
network = open'
is "network = open: the host's interfaces" "$(netdevs "$SBXSH" 2>/dev/null)" "$(netdevs /bin/sh)"
user_policy '[default]
network = proxy'
out=$(netdevs "$SBXSH" 2>&1)
is "network = proxy: only lo, where the proxy's fronts listen (no note, no other device)" "$out" "lo "

# Nesting: sbxsh inside the sandbox runs the inner shell directly.
user_policy "[default]
network = none
read += $SBXSH_STAGE"
marker=$SBXSH_STAGE/libexec/sbxsh/sandbox-marker
ns='readlink /proc/self/ns/pid /proc/self/ns/mnt | tr "\n" " "'
outer=$("$SBXSH" -c "$ns" 2>&1)
both=$("$SBXSH" -c 'eval "$1"; echo; "$0" -c "$1"' "$SBXSH" "$ns" 2>&1)
like "a sandbox has its own pid and mount namespaces" "$outer" '^pid:.* mnt:'
check "…not the caller's" test "$outer" != "$(sh -c "$ns")"
is "a nested sbxsh -c runs in the same namespaces as its sandbox (no nesting)" \
	"$(echo "$both" | sed -n 2p)" "$(echo "$both" | sed -n 1p)"
like "the marker inside names the sandbox" "$("$SBXSH" -c 'cat "$0"' "$marker" 2>&1)" '^sbxsh-sandbox '
is "the marker is empty on the host" "$(wc -c < "$marker")" 0
like "a nested --dry-run says it runs directly" "$("$SBXSH" -c '"$0" --dry-run -c true' "$SBXSH" 2>&1)" 'already inside an sbxsh sandbox'
out=$("$SBXSH" -c 'rm -f "$0"; echo x > "$0"; umount "$0"; cat "$0"' "$marker" 2>/dev/null)
like "the marker cannot be removed, replaced or unmounted inside" "$out" '^sbxsh-sandbox '
if command -v bwrap > /dev/null; then
	out=$(bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all "$SBXSH" --dry-run -c true 2>&1)
	like "a plain bwrap sandbox (no marker mount) is not taken for one of ours" "$out" '^/.*bwrap$'
fi
done_testing
