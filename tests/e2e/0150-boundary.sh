#!/bin/sh
# 0150-boundary — root is not special inside (a user namespace, the kernel knobs read-only or
# masked, the system's secrets hidden), credentials kept out of the environment and out of
# both homes, and a bounded private /tmp and /dev/shm (design.md "Security model").
# Nothing here writes to the host's /etc, /proc or /sys: a knob is only opened for writing,
# never written, so even a failing test changes nothing.
# serial: as root it makes /etc/wireguard for a moment (the masks of every sandbox started
# meanwhile change).
TMPDIR=/var/tmp; export TMPDIR
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
base='[default]
network = none
on_violation = warn'
user_policy "$base"
sb() { "$SBXSH" "$@"; }
uid=$(id -u)

# --- the user namespace: uid mapped to itself only, no capability at all ---
is "the command's uid is the caller's" "$(sb -c 'id -u' 2>/dev/null)" "$uid"
is "…in a user namespace that maps only that uid (root too: 0 to 0)" \
	"$(sb -c 'cat /proc/self/uid_map' 2>/dev/null | awk '{print $1, $3}')" "$uid 1"
check "…not the caller's user namespace" \
	test "$(sb -c 'readlink /proc/self/ns/user' 2>/dev/null)" != "$(readlink /proc/self/ns/user)"
is "no capability, the bounding set empty" \
	"$(sb -c 'grep -E "^Cap(Eff|Prm|Bnd|Amb):" /proc/self/status | cut -f2 | sort -u' 2>/dev/null)" \
	"0000000000000000"
sb -c 'echo x > owned' 2>/dev/null
is "a file the command writes is the caller's on the host" "$(stat -c %u "$T/proj/owned" 2>&1)" "$uid"

# --- kernel knobs: opened for writing only (nothing is ever written) ---
# exec 3>>FILE opens without writing: it fails read-only (root) or for permissions (users).
opens() { sb -c 'exec 3>>"$0" && echo opened' "$1" 2>&1; }
out=$(opens /proc/sys/kernel/core_pattern)
unlike "/proc/sys/kernel/core_pattern cannot be opened for writing" "$out" '^opened$'
if is_root; then
	# the guard refuses it first (EACCES); the read-only /proc/sys mount is the second layer
	like "…as root because /proc/sys is refused and read-only (uid 0 passes the sysctl permission check)" \
		"$out" 'Read-only file system|Permission denied'
else
	skip "…as root because /proc/sys is read-only" "root only"
fi
out=$(opens /proc/sys/vm/drop_caches)
unlike "/proc/sys/vm/drop_caches cannot be opened for writing" "$out" '^opened$'
if [ -e /proc/sysrq-trigger ]; then
	unlike "/proc/sysrq-trigger cannot be opened for writing" "$(opens /proc/sysrq-trigger)" '^opened$'
else
	skip "/proc/sysrq-trigger cannot be opened for writing" "no /proc/sysrq-trigger on this kernel"
fi
# /proc/irq and /proc/bus: bwrap's own --proc binds them read-only (sbxsh adds no second
# mount); a 0644 file of root's there is the knob root could write.
for d in /proc/irq /proc/bus; do
	f=$(find "$d" -type f -perm -u+w 2>/dev/null | head -n 1)
	if ! is_root; then
		skip "$d is read-only" "root only (a user fails the permission check)"
	elif [ -z "$f" ]; then
		skip "$d is read-only" "no writable file under $d here"
	else
		like "$d is read-only ($f cannot be opened for writing)" "$(opens "$f")" \
			'Read-only file system'
	fi
done
if [ -e /sys/kernel/mm/transparent_hugepage/enabled ]; then
	unlike "/sys is read-only (a sysfs attribute cannot be opened for writing)" \
		"$(opens /sys/kernel/mm/transparent_hugepage/enabled)" '^opened$'
else
	skip "/sys is read-only" "no transparent_hugepage attribute to try"
fi
# Masked for root only: for a user the kernel's own checks close them (0400 root files) or
# they show what the user reads outside anyway (docs/sbxsh.ini.5.md, "kernel knobs").
for f in /proc/timer_list /proc/sched_debug /proc/kcore /proc/latency_stats /proc/timer_stats; do
	if ! is_root; then
		v=$(sb -c 'wc -c < "$0"' "$f" 2>/dev/null)
		is "$f gives a user nothing" "${v:-0}" 0
	elif [ -e "$f" ]; then
		is "$f is masked (reads empty)" "$(sb -c 'wc -c < "$0"' "$f" 2>/dev/null)" 0
	else
		skip "$f is masked" "no $f on this kernel"
	fi
done
for d in /proc/acpi /proc/scsi /proc/asound /sys/firmware; do
	if ! is_root; then
		skip "$d is masked" "root only (a user reads it outside too)"
	elif [ -n "$(ls -A "$d" 2>/dev/null)" ]; then
		is "$d is masked (an empty directory)" "$(sb -c 'ls -A "$0" | wc -l' "$d" 2>/dev/null)" 0
	else
		skip "$d is masked" "no $d with entries here"
	fi
done
like "/proc/self still takes writes (the fresh /proc is not read-only as a whole)" \
	"$(sb -c 'v=$(cat /proc/self/oom_score_adj); echo "$v" > /proc/self/oom_score_adj && echo wrote' 2>&1)" '^wrote$'

# --- the system's secrets: hidden (root could read them; for a user who cannot, the
# kernel's permission check already hides them and no mount is spent on them) ---
for f in /etc/shadow /etc/shadow- /etc/gshadow /etc/gshadow- /etc/ssh/ssh_host_*_key; do
	if [ -e "$f" ]; then
		is "$f cannot be read (hidden: reads empty as root)" \
			"$(sb -c 'cat "$0" 2>/dev/null; echo end' "$f" 2>/dev/null)" "end"
	else
		skip "$f is hidden" "no $f here"
	fi
done
if [ -n "$(ls -A /etc/ssl/private 2>/dev/null)" ] || { ! is_root && [ -d /etc/ssl/private ]; }; then
	is "/etc/ssl/private shows nothing" \
		"$(sb -c 'ls -A /etc/ssl/private 2>/dev/null | wc -l' 2>/dev/null)" 0
else
	skip "/etc/ssl/private is hidden" "no /etc/ssl/private with entries here"
fi
# other services' root-only keys (WireGuard's here, made for the test when the host has none)
if is_root && [ ! -e /etc/wireguard ]; then
	mkdir -m 700 /etc/wireguard && echo 'PrivateKey = e2e-secret' > /etc/wireguard/e2e.conf
	is "/etc/wireguard's keys cannot be read as root" \
		"$(sb -c 'cat /etc/wireguard/e2e.conf 2>/dev/null; echo end' 2>/dev/null)" "end"
	rm -rf /etc/wireguard
else
	skip "/etc/wireguard is hidden from root" "not root, or the host has its own /etc/wireguard"
fi
is "a public host key stays readable" \
	"$(sb -c 'for f in /etc/ssh/ssh_host_*_key.pub; do [ -s "$f" ] && echo yes; break; done' 2>/dev/null)" \
	"$(for f in /etc/ssh/ssh_host_*_key.pub; do [ -s "$f" ] && echo yes; break; done)"

# --- the environment: credentials removed by default, env_keep lets them through ---
vars="GITHUB_TOKEN GH_TOKEN NPM_TOKEN AWS_SESSION_TOKEN AWS_SECRET_ACCESS_KEY AWS_ACCESS_KEY_ID
ANTHROPIC_API_KEY OPENAI_API_KEY GEMINI_API_KEY HF_TOKEN CI_JOB_TOKEN DB_PASSWORD PGPASSWORD
MYSQL_PWD CLIENT_SECRET AZURE_CLIENT_SECRET SSH_AUTH_SOCK"
# shows: each NAME=its value or "-" when absent, on one line.
shows='for v in "$@"; do printf "%s=%s " "$v" "$(printenv "$v" || echo -)"; done'
set_all() { for v in $vars; do export "$v=s3cr3t-$v"; done; }
unset_all() { for v in $vars; do unset "$v"; done; }
set_all
export SBXSH_E2E_PLAIN=kept
got=$(sb -c "$shows" sh $vars SBXSH_E2E_PLAIN 2>/dev/null)
for v in $vars; do
	like "$v is removed by the default env_unset" "$got" "(^| )$v=- "
done
like "…an ordinary variable is not" "$got" 'SBXSH_E2E_PLAIN=kept'
user_policy "$base
$(for v in $vars; do echo "env_keep += $v"; done)"
got=$(sb -c "$shows" sh $vars 2>/dev/null)
for v in $vars; do
	like "$v reaches the command with env_keep" "$got" "(^| )$v=s3cr3t-$v "
done
user_policy "$base
env_keep = AWS_*"
got=$(sb -c "$shows" sh AWS_SECRET_ACCESS_KEY GITHUB_TOKEN 2>/dev/null)
like "env_keep takes globs (AWS_* keeps AWS_SECRET_ACCESS_KEY)" "$got" 'AWS_SECRET_ACCESS_KEY=s3cr3t'
like "…and keeps nothing else" "$got" 'GITHUB_TOKEN=- '
unset_all
unset SBXSH_E2E_PLAIN
like "sbxsh policy shows env_keep with its file and line" "$(sb policy 2>&1)" \
	'^env_keep = AWS_\*  # .*/sbxsh\.ini:4$'
user_policy "$base"

# --- credential files the deny list used to miss (made under the test HOME) ---
creds=".config/git/credentials .claude/.credentials.json .codex/auth.json .gemini/oauth_creds.json
.gemini/.env .codex/.env .env
.config/github-copilot/hosts.json .m2/settings.xml .config/containers/auth.json
.config/sops/age/keys.txt .cache/huggingface/token .huggingface/token .bash_history .zsh_history
.local/share/fish/fish_history .python_history .psql_history .mysql_history .sqlite_history
.node_repl_history .rediscli_history .local/state/sbxsh/violations.jsonl"
for f in $creds; do
	mkdir -p "$(dirname "$HOME/$f")" && echo "secret-of-$f" > "$HOME/$f"
done
for f in $creds; do
	is "~/$f is hidden" "$(sb -c 'cat ~/"$0"; echo end' "$f" 2>/dev/null)" "end"
done
mkdir -p "$T/vlog" && echo '{"cmd":"curl -u me:password"}' > "$T/vlog/v.jsonl"
user_policy "[sbxsh]
log = $T/vlog/v.jsonl
$base"
is "sbxsh's violation log is hidden where [sbxsh] log puts it" \
	"$(sb -c 'cat "$0"; echo end' "$T/vlog/v.jsonl" 2>/dev/null)" "end"
user_policy "$base"

# --- the password database's home: hidden even when HOME points elsewhere ---
pw=$(getent passwd "$uid" | cut -d: -f6)
pw=$(cd "$pw" 2>/dev/null && pwd -P) || pw=""
if [ -z "$pw" ] || [ "$pw" = / ]; then
	skip "the real home's ~/.ssh is hidden when HOME points elsewhere" "no home in the password database"
elif is_root; then
	# Root's real ~/.ssh is never written by a test: only checked when it exists.
	like "sbxsh policy lists the real home's ~/.ssh beside HOME's" "$(sb policy 2>&1)" \
		"^deny_read = $pw/\\.ssh  # <embedded>:[0-9]+$"
	if [ -d "$pw/.ssh" ] && [ -n "$(ls -A "$pw/.ssh")" ]; then
		is "the real home's ~/.ssh is hidden when HOME points elsewhere" \
			"$(sb -c 'ls -A "$0" | wc -l' "$pw/.ssh" 2>/dev/null)" 0
	else
		skip "the real home's ~/.ssh is hidden when HOME points elsewhere" "$pw/.ssh is empty or absent (a test writes nothing there as root)"
	fi
else
	made=""
	[ -d "$pw/.ssh" ] || { mkdir -m 700 "$pw/.ssh" 2>/dev/null && made=1; }
	if echo "sbxsh-e2e secret" > "$pw/.ssh/sbxsh-e2e-testkey" 2>/dev/null; then
		like "sbxsh policy lists the real home's ~/.ssh beside HOME's" "$(sb policy 2>&1)" \
			"^deny_read = $pw/\\.ssh  # <embedded>:[0-9]+$"
		is "the real home's ~/.ssh is hidden when HOME points elsewhere" \
			"$(sb -c 'cat "$0"; echo end' "$pw/.ssh/sbxsh-e2e-testkey" 2>/dev/null)" "end"
		echo machine > "$pw/.sbxsh-e2e-probe"
		is "…while the rest of the real home stays readable" \
			"$(sb -c 'cat "$0"' "$pw/.sbxsh-e2e-probe" 2>/dev/null)" "machine"
		rm -f "$pw/.ssh/sbxsh-e2e-testkey" "$pw/.sbxsh-e2e-probe"
	else
		skip "the real home's ~/.ssh is hidden when HOME points elsewhere" "cannot write $pw/.ssh"
	fi
	[ -n "$made" ] && rmdir "$pw/.ssh"
fi

# --- bounds: a full /tmp or /dev/shm is ENOSPC for that command only ---
out=$(sb -c 'echo x > /dev/sbxsh-fill; echo "rc=$?"' 2>&1)
like "/dev itself cannot be filled (read-only; only /dev/shm is writable)" "$out" 'Read-only file system'
is "…while /dev/null still takes writes" "$(sb -c 'echo x > /dev/null && echo fine' 2>/dev/null)" "fine"
# bwrap's own tmpfs (/dev) is half the memory: the defaults (25%, 10%) are below it.
is "by default /tmp and /dev/shm are bounded below bwrap's half of the memory" \
	"$(sb -c 'df -k /tmp /dev/shm /dev | awk "NR > 1 {s[NR] = \$2} END {print (s[2] < s[4] && s[3] < s[4]) ? \"bounded\" : \"unbounded\"}"' 2>/dev/null)" \
	bounded
user_policy "$base
tmp_size = 4M
shm_size = 2M"
is "tmp_size sizes the private /tmp" "$(sb -c 'df -k /tmp | awk "NR == 2 {print \$2}"' 2>/dev/null)" 4096
is "shm_size sizes /dev/shm" "$(sb -c 'df -k /dev/shm | awk "NR == 2 {print \$2}"' 2>/dev/null)" 2048
out=$(sb -c 'head -c 8388608 /dev/zero > /tmp/fill; echo "rc=$?"' 2>&1)
like "a write past tmp_size fails with ENOSPC" "$out" 'No space left on device'
like "…as a failure of that write" "$out" 'rc=[1-9]'
out=$(sb -c 'head -c 4194304 /dev/zero > /dev/shm/fill; echo "rc=$?"' 2>&1)
like "a write past shm_size fails with ENOSPC" "$out" 'No space left on device'
is "the next command has its /tmp and works" "$(sb -c 'echo ok > /tmp/x && cat /tmp/x' 2>/dev/null)" "ok"
user_policy "$base
tmp_size = 0"
out=$(sb -c 'echo ran' 2>&1); rc=$?
like "a bad tmp_size is refused, naming the key, the file and the line" "$out" \
	"sbxsh\\.ini:4: tmp_size: '0' is not a size; write bytes with k, M or G"
is "…and nothing runs (exit 125)" "$rc" 125
user_policy "$base
shm_size = 200%"
like "a percentage above 100 is refused too" "$(sb -c 'echo ran' 2>&1)" "sbxsh\\.ini:4: shm_size: '200%' is not a size"
done_testing
