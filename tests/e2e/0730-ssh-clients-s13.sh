#!/bin/sh
# 0730-ssh-clients-s13 — the ssh clients' invocations 0720 leaves out, against a real sshd on
# loopback (compat.md 4, 7, 8): a user whose login shell is sbxsh given a script on stdin with
# no command (`ssh host < script`, `ssh -T`, a here-document), git over ssh:// with an absolute
# path (git-upload-pack, git-upload-archive), scp -r both ways, rsync down, a `command=` key
# whose SSH_ORIGINAL_COMMAND holds spaces, quotes and `;`, and ForceCommand as README gives
# it for a user whose login shell is another: a command, a script on stdin, sftp. Root only.
# serial: as root it adds a [dir] section to the staged system policy ($SYSCONF/conf.d)
# and a user (useradd, userdel).
. "$SBXSH_STAGE/e2e/lib.sh"
. "$SBXSH_STAGE/e2e/sshd_lib.sh"

names="ssh clients against sbxsh"
sshd_need "$names"
lu=sbxsh-ssh-0730 # login shell sbxsh (made here)
fu=sbxsh-test     # login shell /bin/sh, ForceCommand sbxsh
if ! login_user "$lu"; then
	skip "$names" "useradd $lu failed"; done_testing; exit
fi
lhome=$(getent passwd $lu | cut -d: -f6)
sshd_keys userkey cmdkey
# the command= key: what the client asked for, word by word and whole, as the key's command sees it
printf 'command="printf \\"[%%s]\\" $SSH_ORIGINAL_COMMAND; echo; echo \\"whole=$SSH_ORIGINAL_COMMAND sandbox=$SBXSH_SANDBOX\\"" %s\n%s\n' \
	"$(cat "$D/cmdkey.pub")" "$(cat "$D/userkey.pub")" > "$D/authorized_keys"
chmod 644 "$D/authorized_keys"
sshd_pam
port=$((40000 + $$ % 20000))
sshd_config sshd $port <<EOC
PermitUserRC no
AllowUsers $lu $fu
Match User $fu
	ForceCommand $SBXSH \${SSH_ORIGINAL_COMMAND:+-c} "\${SSH_ORIGINAL_COMMAND:--l}"
EOC
# uploads into the login user's home: the shipped [profile ssh] there, for the duration
mkdir -p "$SYSCONF/conf.d"
printf '[dir %s]\nuse = ssh\n' "$lhome" > "$SYSCONF/conf.d/0730-ssh.ini"
cleanup() {
	sshd_stop sshd
	login_user_gone "$lu"
	rm -f "$SYSCONF/conf.d/0730-ssh.ini"
	e2e_cleanup
}
trap cleanup EXIT
if ! sshd_start sshd; then
	not_ok "sshd starts on 127.0.0.1:$port"; diag "$(tail -5 "$D/sshd.log")"; done_testing; exit
fi
O="-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR -o IdentitiesOnly=yes"
SSHO="-i $D/userkey -p $port $O"
# shellcheck disable=SC2086
s() { ssh $SSHO "$lu@127.0.0.1" "$@"; }

# --- the login shell sbxsh, no command: sshd runs -sbxsh with the script on stdin
out=$(printf 'echo "in=$SBXSH_SANDBOX $0"\nx=4; echo "x=$x"\nshopt -q login_shell && echo login\nexit 6\n' | s 2>&1); rc=$?
like "ssh host < script: the script runs in the sandbox, by a login shell" "$out" '^in=1 -sbxsh$'
like "…line after line" "$out" '^x=4$'
like "…as a login shell" "$out" '^login$'
is "…and its exit status comes back" "$rc" 6
out=$(s -T <<'EOF' 2>&1
cd /; pwd
echo "here-doc $((6 * 7))"
EOF
)
is "ssh -T host with a here-document" "$out" "/
here-doc 42"
out=$(s 'printf "[%s]" "a b" '\''c d'\'' "e\"f" \$HOME x\;y; echo; echo one; echo two | tr a-z A-Z' 2>&1)
is "ssh host 'CMD' with quotes, \$, ; and a pipe, as the login shell's -c" "$out" '[a b][c d][e"f][$HOME][x;y]
one
TWO'

# --- git over ssh:// with an absolute path (git-upload-pack '/…', git-upload-archive)
git init -q --bare "$lhome/r.git" && chown -R "$lu" "$lhome/r.git"
export GIT_SSH_COMMAND="ssh $O -i $D/userkey"
url="ssh://$lu@127.0.0.1:$port$lhome/r.git"
(mkdir -p "$T/w" && cd "$T/w" && git init -q && echo g > f && git add f &&
	git -c user.name=t -c user.email=t@t commit -qm m && git push -q "$url" HEAD:refs/heads/main) > "$T/git.out" 2>&1
is "git push ssh://host/abs/path.git (git-receive-pack '/…')" \
	"$(git --git-dir="$lhome/r.git" show main:f 2>/dev/null)" g
git clone -q -b main "$url" "$T/c1" >> "$T/git.out" 2>&1
is "git clone ssh://host/abs/path.git (git-upload-pack '/…')" "$(cat "$T/c1/f" 2>/dev/null)" g
is "git ls-remote, protocol v2" "$(git -c protocol.version=2 ls-remote "$url" 2>>"$T/git.out" | cut -f2)" refs/heads/main
is "git archive --remote (git-upload-archive)" "$(git archive --remote="$url" main 2>>"$T/git.out" | tar xO f 2>/dev/null)" g
unset GIT_SSH_COMMAND

# --- scp -r up and down (legacy protocol: scp -t -r / scp -f -r), rsync down
mkdir -p "$T/tree/sub"; echo leaf > "$T/tree/sub/leaf"; echo top > "$T/tree/top"
# shellcheck disable=SC2086
scp -O -r -p -P "$port" -i "$D/userkey" $O "$T/tree" "$lu@127.0.0.1:up-tree" > "$T/scp.out" 2>&1
is "scp -O -r uploads a tree (scp -t -r -p)" "$(cat "$lhome/up-tree/sub/leaf" 2>/dev/null)" leaf
# shellcheck disable=SC2086
scp -O -r -P "$port" -i "$D/userkey" $O "$lu@127.0.0.1:up-tree" "$T/down-tree" >> "$T/scp.out" 2>&1
is "scp -O -r downloads it (scp -f -r)" "$(cat "$T/down-tree/sub/leaf" 2>/dev/null)" leaf
if command -v rsync > /dev/null; then
	rsync -a -e "ssh -p $port -i $D/userkey $O" "$lu@127.0.0.1:up-tree/" "$T/rs/" > "$T/rsync.out" 2>&1
	is "rsync -a down (rsync --server --sender)" "$(cat "$T/rs/sub/leaf" 2>/dev/null)" leaf
else
	skip "rsync -a down" "no rsync (packaging/deps.sh test)"
fi

# --- a command= key: sbxsh -c '<forced>' with SSH_ORIGINAL_COMMAND as the client sent it
# shellcheck disable=SC2086
out=$(ssh -i "$D/cmdkey" -p "$port" $O "$lu@127.0.0.1" 'a "b c" ; d'\''e'\''' 2>&1)
is "a command= key: SSH_ORIGINAL_COMMAND with spaces, quotes and ; reaches the forced command unchanged" \
	"$out" "[a][\"b][c\"][;][d'e']
whole=a \"b c\" ; d'e' sandbox=1"

# --- ForceCommand as README gives it, for a user whose login shell is /bin/sh
# shellcheck disable=SC2086
f() { ssh $SSHO "$fu@127.0.0.1" "$@"; }
out=$(f 'echo "cmd sandbox=$SBXSH_SANDBOX"; exit 3' 2>&1); rc=$?
is "ForceCommand: ssh host CMD runs CMD in the sandbox" "$out" "cmd sandbox=1"
is "…with its status" "$rc" 3
out=$(printf 'echo "script sandbox=$SBXSH_SANDBOX"\nexit 5\n' | f 2>&1); rc=$?
is "ForceCommand: ssh host < script runs the script (a login shell, as sshd runs one)" "$out" "script sandbox=1"
is "…with its status" "$rc" 5
# shellcheck disable=SC2086
printf 'ls /\n' | sftp -b - -P "$port" -i "$D/userkey" $O "$fu@127.0.0.1" > "$T/sftp.out" 2>&1
like "ForceCommand: sftp runs (sftp-server through sbxsh -c)" "$(cat "$T/sftp.out")" '/usr'
done_testing
