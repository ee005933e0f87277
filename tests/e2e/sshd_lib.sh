# sshd_lib.sh — a real sshd on loopback for the ssh suites (sourced after lib.sh; root only):
# its own host key, config and PAM stack under pam_wrapper (pam_sbxsh.so of the staged
# install), all in $D.
# sshd_need NAMES: skips NAMES and ends the suite unless root with sshd, ssh, libpam-wrapper
# and the user sbxsh-test. sshd_keys KEY…: /run/sshd, $D with a host key and the client keys
# named (no passphrase). sshd_pam [ARGS]: the PAM stack (pam_permit, pam_loginuid,
# pam_sbxsh.so ARGS). sshd_config NAME PORT: $D/NAME_config — the lines every suite's sshd
# has (127.0.0.1:PORT, pid file $D/NAME.pid, keys from $D/authorized_keys, PAM, no password,
# sftp, no forwarding), then the lines on stdin (a Match block last). sshd_start NAME: runs
# it (log $D/NAME.log); false when it is not up within 5 s. sshd_stop NAME.
# login_user NAME: a user whose login shell is sbxsh, made again when an interrupted run
# left it; false when useradd fails. login_user_gone NAME: its processes killed, it removed.
SSHD=/usr/sbin/sshd
PWRAP=$(ls /usr/lib/*/libpam_wrapper.so 2> /dev/null | head -n 1)
SECDIR=$(dirname "$(ls /usr/lib/*/security/pam_permit.so 2> /dev/null | head -n 1)")
D="$T/sshd"

sshd_need() {
	if ! is_root; then skip "$1" "sshd serving another user needs root"; done_testing; exit; fi
	if [ ! -x "$SSHD" ] || ! command -v ssh > /dev/null || [ -z "$PWRAP" ] || ! id sbxsh-test > /dev/null 2>&1; then
		skip "$1" "needs openssh-server, openssh-client, libpam-wrapper and the user sbxsh-test"
		done_testing; exit
	fi
}
sshd_keys() {
	mkdir -p /run/sshd "$D/pam.d"
	for k in hostkey "$@"; do ssh-keygen -q -t ed25519 -N '' -f "$D/$k"; done
}
sshd_pam() {
	printf '%s\n' "account required $SECDIR/pam_permit.so" "session required $SECDIR/pam_loginuid.so" \
		"session required $SBXSH_STAGE/lib/security/pam_sbxsh.so${1:+ $1}" > "$D/pam.d/sshd"
}
sshd_config() {
	{
		printf '%s\n' "Port $2" "ListenAddress 127.0.0.1" "HostKey $D/hostkey" "PidFile $D/$1.pid" \
			"AuthorizedKeysFile $D/authorized_keys" "StrictModes no" "UsePAM yes" \
			"KbdInteractiveAuthentication no" "PasswordAuthentication no" \
			"Subsystem sftp /usr/lib/openssh/sftp-server" "DisableForwarding yes"
		cat
	} > "$D/$1_config"
}
sshd_start() {
	LD_PRELOAD=$PWRAP PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$D/pam.d" "$SSHD" -f "$D/$1_config" -E "$D/$1.log"
	i=0; while [ ! -s "$D/$1.pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$D/$1.pid" ]
}
sshd_stop() { [ -f "$D/$1.pid" ] && kill "$(cat "$D/$1.pid")" 2> /dev/null; }
login_user_gone() {
	pkill -KILL -u "$1" 2> /dev/null; sleep 0.2
	userdel -r "$1" > /dev/null 2>&1
}
login_user() {
	if id "$1" > /dev/null 2>&1; then login_user_gone "$1"; fi
	useradd -m -s "$SBXSH" "$1" > /dev/null 2>&1
}
