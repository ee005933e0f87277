#!/bin/sh
# 0710-doctor-sshd — `sbxsh doctor --sshd` against a real `sshd -T -f CONFIG` (its own config
# and host key, no server started): each bypass named with its line, a config with none,
# a Match block for one user, and the errors.
. "$SBXSH_STAGE/e2e/lib.sh"
trap e2e_cleanup EXIT

SSHD=$(command -v sshd || ls /usr/sbin/sshd 2>/dev/null)
if [ -z "$SSHD" ] || ! command -v ssh-keygen > /dev/null; then
	skip "doctor --sshd" "no sshd or ssh-keygen (apt-get install openssh-server)"; done_testing; exit
fi
is_root && mkdir -p /run/sshd # sshd -T checks its privilege separation directory
if [ ! -d /run/sshd ]; then
	skip "doctor --sshd" "/run/sshd is missing (sshd -T needs it; the root run makes it)"; done_testing; exit
fi
ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey"
me=$(id -un)
# cfg NAME LINES: an sshd_config with the host key.
cfg() { printf 'HostKey %s\n%s\n' "$T/hostkey" "$2" > "$T/$1"; }

cfg open 'Subsystem sftp internal-sftp
AllowTcpForwarding yes
AllowStreamLocalForwarding yes
AllowAgentForwarding yes
X11Forwarding yes
PermitTunnel yes
PermitUserRC yes
ChrootDirectory /nonexistent-jail/%u'
out=$("$SBXSH" doctor --sshd --config "$T/open" --user "$me" 2>&1); rc=$?
is "a config with bypasses exits 1" "$rc" 1
like "internal-sftp is named with its line" "$out" '^FAIL +Subsystem +sftp internal-sftp: .*`Subsystem sftp /usr/lib/openssh/sftp-server`'
like "TCP forwarding" "$out" '^FAIL +AllowTcpForwarding +yes: .*`AllowTcpForwarding no`'
like "stream-local forwarding" "$out" '^FAIL +AllowStreamLocalForwarding +yes: .*`AllowStreamLocalForwarding no`'
like "agent forwarding" "$out" '^FAIL +AllowAgentForwarding +yes: .*`AllowAgentForwarding no`'
like "X11 forwarding" "$out" '^FAIL +X11Forwarding +yes: .*`X11Forwarding no`'
like "tunnels" "$out" '^FAIL +PermitTunnel +yes: .*`PermitTunnel no`'
like "PermitUserRC" "$out" '^note +PermitUserRC +yes: .*`PermitUserRC no`'
like "a chroot without sbxsh, %u expanded for the user" "$out" "^FAIL +ChrootDirectory +/nonexistent-jail/$me holds no "
like "/etc/shells is explained" "$out" '^note +/etc/shells +(lists|does not list) sbxsh'
like "the user's login shell is checked" "$out" "login shell +$me's is "

cfg closed 'Subsystem sftp /usr/lib/openssh/sftp-server
DisableForwarding yes
PermitTunnel no
PermitUserRC no'
out=$("$SBXSH" doctor --sshd --config "$T/closed" 2>&1); rc=$?
is "a closed config exits 0" "$rc" 0
unlike "and names no bypass" "$out" '^FAIL'
like "DisableForwarding covers every forwarding" "$out" '^ok +AllowTcpForwarding +off \(DisableForwarding yes\)'
like "sftp-server runs through the shell" "$out" '^ok +Subsystem +sftp /usr/lib/openssh/sftp-server'

cfg match "Subsystem sftp /usr/lib/openssh/sftp-server
DisableForwarding yes
PermitUserRC no
Match User $me
  ForceCommand internal-sftp"
out=$("$SBXSH" doctor --sshd --config "$T/match" 2>&1)
like "without --user a Match block does not apply" "$out" '^ok +ForceCommand +none'
out=$("$SBXSH" doctor --sshd --config "$T/match" --user "$me" 2>&1)
like "with --user it does: ForceCommand internal-sftp" "$out" '^FAIL +ForceCommand +internal-sftp: .*`ForceCommand /usr/lib/openssh/sftp-server`'

"$SBXSH" doctor --sshd --config "$T/closed" > /dev/null 2>&1
sshd_t=$("$SSHD" -T -f "$T/closed" 2>/dev/null)
out=$(printf '%s\n' "$sshd_t" | "$SBXSH" doctor --sshd --from - 2>&1); rc=$?
is "--from - reads saved sshd -T output" "$rc" 0
out=$("$SBXSH" doctor --sshd --config "$T/missing" 2>&1); rc=$?
is "a config sshd cannot read exits 125" "$rc" 125
like "naming sshd's complaint" "$out" "sbxsh: doctor --sshd: .*sshd -T -f $T/missing failed: "
out=$("$SBXSH" doctor --sshd --bogus 2>&1); rc=$?
is "an unknown option is a usage error" "$rc" 2
like "named" "$out" "unknown option '--bogus'"
done_testing
