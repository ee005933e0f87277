#!/bin/sh
# 0720-sshd — a real sshd on a loopback port (its own config, host key and PAM stack under
# pam_wrapper, UsePAM yes with pam_sbxsh.so), the test user's commands through
# ForceCommand sbxsh -c "$SSH_ORIGINAL_COMMAND": status, stdin, SBXSH_SESSION, the sandbox,
# scp (legacy and sftp), a multiplexed connection sharing one daemon, and after logout no
# daemon and no directory left. Root only (sshd serves another user).
# serial: as root it adds [dir] sections to the staged system policy ($SYSCONF/conf.d) and
# a user (useradd, userdel).
. "$SBXSH_STAGE/e2e/lib.sh"
. "$SBXSH_STAGE/e2e/sshd_lib.sh"

sshd_need "ssh runs a command sandboxed"
u=sbxsh-test; uid=$(id -u $u); uhome=$(getent passwd $u | cut -d: -f6)
sshd_keys userkey
cp "$D/userkey.pub" "$D/authorized_keys"; chmod 644 "$D/authorized_keys"
sshd_pam debug
port=$((20000 + $$ % 20000))
sshd_config sshd $port <<EOC
ForceCommand $SBXSH -c "\$SSH_ORIGINAL_COMMAND"
PermitUserRC no
AllowUsers $u
EOC
# The ssh preset for the test user's home, for the duration (scp uploads land in ~).
mkdir -p "$SYSCONF/conf.d"
printf '[dir %s]\nuse = ssh\n' "$uhome" > "$SYSCONF/conf.d/0720-ssh.ini"
: > "$uhome/upload-0720.txt"; chown $u "$uhome/upload-0720.txt"; rm -f "$uhome/upload-0720.txt"
mkdir -p "$uhome/.ssh"; echo secret > "$uhome/.ssh/id_0720"; chown -R $u "$uhome/.ssh"; chmod 600 "$uhome/.ssh/id_0720"
[ -e "$uhome/.bashrc" ] || { : > "$uhome/.bashrc"; chown $u "$uhome/.bashrc"; }
rc_before=$(cksum < "$uhome/.bashrc")
cleanup() {
	sshd_stop sshd
	sshd_stop sshd2
	if id sbxsh-ssh-0720 > /dev/null 2>&1; then login_user_gone sbxsh-ssh-0720; fi
	ssh -S "$D/cm" -O exit x > /dev/null 2>&1
	rm -rf "$SYSCONF/conf.d/0720-ssh.ini" "$SYSCONF/conf.d/0720-ssh-rc.ini" "$uhome/.ssh/id_0720" "$uhome"/upload-0720*
	e2e_cleanup
}
trap cleanup EXIT
if ! sshd_start sshd; then
	not_ok "sshd starts on 127.0.0.1:$port"; diag "$(tail -5 "$D/sshd.log")"; done_testing; exit
fi
SSHO="-i $D/userkey -p $port -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR"
# shellcheck disable=SC2086
s() { ssh $SSHO "$u@127.0.0.1" "$@"; }
# gone PATTERN DIR: no daemon matching PATTERN and no DIR, within 20 s.
gone() {
	i=0; while { pgrep -u "$uid" -f "$1" > /dev/null || [ -e "$2" ]; } && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	[ $i -lt 200 ]
}

out=$(s 'echo sandbox=$SBXSH_SANDBOX session=$SBXSH_SESSION audit=$(cat /proc/self/sessionid)')
like "ssh host cmd runs in the sandbox" "$out" '^sandbox=1 '
sid=$(printf '%s\n' "$out" | sed -n 's/.* audit=\([0-9]*\).*/\1/p')
is "pam_sbxsh exported the login's audit session as SBXSH_SESSION" \
	"$(printf '%s\n' "$out" | sed -n 's/.* session=\([^ ]*\) .*/\1/p')" "audit-$sid"
check "after logout its daemon is gone and its directory too" \
	gone "[s]bxsh-sessiond --dir /tmp/sbxsh-$uid/audit-$sid " "/tmp/sbxsh-$uid/audit-$sid"
s 'exit 7'; is "the command's exit status comes back" "$?" 7
is "stdin passes through" "$(printf 'one\ntwo\n' | s 'cat')" "one
two"
is "a script on stdin runs" "$(printf 'echo a\necho b\n' | s sh)" "a
b"
s 'cat ~/.ssh/id_0720' > "$T/key.out" 2>&1
unlike "a key in ~/.ssh is unreadable" "$(cat "$T/key.out")" '^secret$'
s 'echo evil >> ~/.bashrc' > /dev/null 2>&1
is "~/.bashrc is unwritable" "$(cksum < "$uhome/.bashrc")" "$rc_before"

echo legacy > "$T/up1"; echo sftp > "$T/up2"
# shellcheck disable=SC2086
scp -O $(echo "$SSHO" | sed 's/-p /-P /') "$T/up1" "$u@127.0.0.1:upload-0720-1.txt" > "$T/scp1" 2>&1
is "scp -O (legacy protocol) uploads into ~ under [profile ssh]" "$(cat "$uhome/upload-0720-1.txt" 2>/dev/null)" legacy
# shellcheck disable=SC2086
scp -s $(echo "$SSHO" | sed 's/-p /-P /') "$T/up2" "$u@127.0.0.1:upload-0720-2.txt" > "$T/scp2" 2>&1
is "scp over sftp-server uploads too" "$(cat "$uhome/upload-0720-2.txt" 2>/dev/null)" sftp
# shellcheck disable=SC2086
printf 'put %s upload-0720-3.txt\nls upload-0720-3.txt\n' "$T/up2" |
	sftp -b - $(echo "$SSHO" | sed 's/-p /-P /') "$u@127.0.0.1" > "$T/sftp" 2>&1
is "sftp (a batch: put, ls) runs through the sandboxed sftp-server" \
	"$(cat "$uhome/upload-0720-3.txt" 2>/dev/null)" sftp
# shellcheck disable=SC2086
printf 'put %s .bashrc\n' "$T/up1" |
	sftp -b - $(echo "$SSHO" | sed 's/-p /-P /') "$u@127.0.0.1" > /dev/null 2>&1
is "…but cannot put ~/.bashrc" "$(cksum < "$uhome/.bashrc")" "$rc_before"
# shellcheck disable=SC2086
scp -O $(echo "$SSHO" | sed 's/-p /-P /') "$T/up1" "$u@127.0.0.1:.bashrc" > /dev/null 2>&1
is "but not over ~/.bashrc" "$(cksum < "$uhome/.bashrc")" "$rc_before"

# rsync, git clone and push over ssh, each through sbxsh -c on the server.
if command -v rsync > /dev/null; then
	mkdir -p "$T/tree/sub"; echo r > "$T/tree/sub/file"
	rsync -a -e "ssh $SSHO" "$T/tree/" "$u@127.0.0.1:upload-0720-rsync/" > "$T/rsync.out" 2>&1
	is "rsync uploads a tree into ~" "$(cat "$uhome/upload-0720-rsync/sub/file" 2>/dev/null)" r
	rsync -a -e "ssh $SSHO" "$u@127.0.0.1:upload-0720-rsync/" "$T/back/" > /dev/null 2>&1
	is "and fetches it back" "$(cat "$T/back/sub/file" 2>/dev/null)" r
else
	skip "rsync uploads a tree into ~" "no rsync (packaging/deps.sh test)"
fi
git init -q --bare "$uhome/upload-0720-repo.git" && chown -R $u "$uhome/upload-0720-repo.git"
export GIT_SSH_COMMAND="ssh $SSHO"
git clone -q "$u@127.0.0.1:upload-0720-repo.git" "$T/clone" > "$T/git.out" 2>&1
check "git clone over ssh" test -d "$T/clone/.git"
(cd "$T/clone" && echo g > f && git add f && git -c user.name=t -c user.email=t@t commit -qm m &&
	git push -q origin HEAD:refs/heads/main) >> "$T/git.out" 2>&1
is "git push over ssh lands in the bare repository" \
	"$(git --git-dir="$uhome/upload-0720-repo.git" show main:f 2>/dev/null)" g
unset GIT_SSH_COMMAND

# One connection, several channels: one session, one daemon; gone with the connection.
# shellcheck disable=SC2086
ssh $SSHO -o ControlMaster=yes -o ControlPath="$D/cm" -o ControlPersist=yes -f -N "$u@127.0.0.1"
# shellcheck disable=SC2086
a=$(ssh $SSHO -o ControlPath="$D/cm" "$u@127.0.0.1" 'echo $SBXSH_SESSION')
# shellcheck disable=SC2086
b=$(ssh $SSHO -o ControlPath="$D/cm" "$u@127.0.0.1" 'echo $SBXSH_SESSION')
like "a multiplexed channel has a session" "$a" '^audit-[0-9]+$'
is "the next channel on that connection has the same one" "$b" "$a"
n=$(pgrep -u "$uid" -f "[s]bxsh-sessiond --dir /tmp/sbxsh-$uid/$a " | grep -c .)
is "and one daemon serves both" "$n" 1
ssh -S "$D/cm" -O exit x > /dev/null 2>&1
check "closing the connection stops it and removes its directory" \
	gone "[s]bxsh-sessiond --dir /tmp/sbxsh-$uid/$a " "/tmp/sbxsh-$uid/$a"
# A user whose login shell is sbxsh (created for this test): no ForceCommand, sshd runs
# `sbxsh -c CMD` itself; a command killed by a signal comes back as exit-signal.
lu=sbxsh-ssh-0720
if login_user "$lu"; then
	luhome=$(getent passwd $lu | cut -d: -f6)
	sshd_config sshd2 $((port + 1)) <<EOC
PermitUserRC yes
AllowUsers $lu
EOC
	mkdir -p "$luhome/.ssh"; echo 'echo rc sandbox=$SBXSH_SANDBOX' > "$luhome/.ssh/rc"
	chown -R "$lu" "$luhome/.ssh"
	sshd_start sshd2
	# shellcheck disable=SC2086
	s2() { ssh $(echo "$SSHO" | sed "s/-p $port/-p $((port + 1))/") "$lu@127.0.0.1" "$@"; }
	out=$(s2 'echo sandbox=$SBXSH_SANDBOX session=$SBXSH_SESSION')
	like "with sbxsh as the login shell, ssh host cmd runs sandboxed" "$out" '^sandbox=1 session=audit-[0-9]+$'
	s2 'exit 5'; is "its exit status comes back" "$?" 5
	# sshd runs it as `sbxsh -c '/bin/sh .ssh/rc'`: inside, ~/.ssh is hidden, so under the
	# default profile it cannot run; [profile ssh] shows it read-only, so it runs sandboxed.
	out=$(s2 true 2>&1)
	unlike "~/.ssh/rc (PermitUserRC yes) never runs outside the sandbox" "$out" '^rc sandbox=$'
	like "inside, the hidden ~/.ssh keeps it from running at all" "$out" 'read ~/[.]ssh/rc .*deny_read ~/[.]ssh'
	printf '[dir %s]\nuse = ssh\n' "$luhome" > "$SYSCONF/conf.d/0720-ssh-rc.ini"
	out=$(s2 'echo cmd-ran' 2>&1)
	like "under [profile ssh], ~/.ssh/rc runs, inside the sandbox" "$out" '^rc sandbox=1$'
	like "…and then the command" "$out" '^cmd-ran$'
	unlike "…with no violation" "$out" 'violation'
	s2 'echo x >> ~/.ssh/rc' > /dev/null 2>&1
	is "…the rc stays unwritable" "$(cat "$luhome/.ssh/rc")" 'echo rc sandbox=$SBXSH_SANDBOX'
	rm -f "$SYSCONF/conf.d/0720-ssh-rc.ini"
	out=$(s2 -v 'kill -TERM $$' 2>&1)
	like "a command killed by a signal is reported as exit-signal" "$out" 'rtype exit-signal'
	is "stdin passes through the login shell" "$(echo piped | s2 cat)" piped
	# An interactive login (ssh -tt, and su -) in a terminal tmux makes: sbxsh's pty relay,
	# job control, ^C and ^Z reach the inner shell's job, never sbxsh or the connection.
	if command -v tmux > /dev/null 2>&1; then
		# the skeleton's ~/.profile reads ~/.bashrc, which assigns PROMPT_COMMAND outright (as
		# OpenHands and many dotfiles do): the marker and the switch survive it
		printf 'PS1="L> "\nPROMPT_COMMAND="echo pc-login"\n' > "$luhome/.bashrc"
		chown "$lu" "$luhome/.bashrc"
		for how in ssh su; do
			TS="$D/tmux-$how.sock"
			if [ $how = ssh ]; then
				# shellcheck disable=SC2086
				lc="ssh -tt $(echo "$SSHO" | sed "s/-p $port/-p $((port + 1))/") $lu@127.0.0.1"
			else
				lc="su - $lu"
			fi
			tmux -f /dev/null -S "$TS" new-session -d -s s -x 120 -y 40 "$lc; echo END=\$?; sleep 100"
			tscreen() { tmux -S "$TS" capture-pane -p -J -S - -t s 2>/dev/null; }
			twait() { i=0; while [ "$(tscreen | grep -Ec -- "$1")" -lt "${2:-1}" ]; do
				i=$((i + 1)); [ $i -ge 200 ] && return 1; sleep 0.1; done; }
			tkeys() { tmux -S "$TS" send-keys -t s "$@"; }
			twait '^\[sbxsh:[^]]*\] L> '
			like "$how: an interactive login shows the prompt and the marker" "$(tscreen)" '^\[sbxsh:[^]]*\] L> '
			unlike "$how: …with job control" "$(tscreen)" 'no job control|cannot set terminal process group'
			like "$how: …where the PROMPT_COMMAND ~/.bashrc assigned runs" "$(tscreen)" '^pc-login$'
			tkeys -l 'sleep 101'; tkeys Enter
			i=0; while ! pgrep -u "$lu" -f '^sleep 101$' > /dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
			tkeys C-c; tkeys -l 'echo after-$((40+2))'; tkeys Enter
			twait '^after-42$'
			like "$how: ^C ends the foreground job, not the login" "$(tscreen)" '^after-42$'
			tkeys -l 'sleep 102'; tkeys Enter
			i=0; while ! pgrep -u "$lu" -f '^sleep 102$' > /dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
			tkeys C-z; twait 'Stopped'
			tkeys -l 'jobs; kill %1; wait; echo jobs-$((1+1))'; tkeys Enter
			twait '^jobs-2$'
			like "$how: ^Z stops the job, which jobs lists" "$(tscreen)" 'Stopped +sleep 102'
			tkeys -l 'exit'; tkeys Enter
			twait '^END='
			like "$how: exit ends the login with the shell's status" "$(tscreen)" '^END=0$'
			tmux -S "$TS" kill-server 2>/dev/null
			# su's PAM stack here has no pam_sbxsh: its session's daemon stays until its idle
			# exit (sbxsh-sessiond(8)); stopped as the user would
			[ $how = su ] && runuser -u "$lu" -- env -i PATH=/usr/bin:/bin HOME="$luhome" \
				"$SBXSH" session stop > /dev/null 2>&1
		done
	else
		skip "interactive logins over ssh -tt and su -" "tmux is not installed"
	fi
	sshd_stop sshd2
	i=0; while pgrep -u "$lu" > /dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	check "after its logins nothing of the user runs" sh -c "! pgrep -u $lu > /dev/null"
	userdel -r "$lu" > /dev/null 2>&1
else
	skip "with sbxsh as the login shell" "useradd $lu failed"
fi
done_testing
