#!/bin/sh
# 0180-boundary-redteam3 — a third red team against the boundary, with the shipped policy, as
# root and as a user. What it found:
# - credentials in the environment under names the default env_unset missed (lower or mixed
#   case: npm's npm_config_//registry/:_authToken; *_AUTH: COMPOSER_AUTH, DOCKER_AUTH_CONFIG;
#   *_TOKEN_*: TF_TOKEN_app_terraform_io, POETRY_PYPI_TOKEN_PYPI; *_SESSION: BW_SESSION;
#   *_PASSPHRASE, *_PWD, *_PW, *_JWT, *COOKIE*, bundler's host credentials) and passwords in
#   URLs under any name (MONGODB_URI=mongodb://u:pw@h, PIP_INDEX_URL=https://u:pw@h);
# - credential files the default deny_read missed (glab, s3cmd, boto, OCI, yarn, composer,
#   NuGet, poetry, pulumi, fly, other browsers, mail clients, editors' secret stores, more
#   REPL and shell histories), and, as root, more root-only secrets (auth logs, the journal,
#   cloud-init's user data, service credentials, Wi-Fi keys, crontabs);
# - `sbxsh policy` printed the cwd and paths unescaped: a directory a command made in the
#   project, named with escape sequences, wrote them to the user's terminal;
# - a terminal on some of 0-2 only (`sbxsh -c cmd 2>log`, a background job) was the caller's
#   own: a command left it raw, non-blocking (the caller's next read fails EAGAIN) or resized.
TMPDIR=/var/tmp; export TMPDIR
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
base='[default]
network = none
on_violation = warn'
user_policy "$base"
sb() { "$SBXSH" "$@"; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

# --- 1. credentials in the environment ---
# NAME=VALUE pairs set for the command; each must be absent inside.
envcases='npm_config_//registry.npmjs.org/:_authToken=s3cr3t
NPM_CONFIG_//npm.example.com/:_authToken=s3cr3t
github_token=s3cr3t
Gitlab_Token=s3cr3t
COMPOSER_AUTH={"github-oauth":{"github.com":"s3cr3t"}}
DOCKER_AUTH_CONFIG={"auths":{"r":{"auth":"s3cr3t"}}}
CONSUL_HTTP_AUTH=u:s3cr3t
NPM_AUTH=s3cr3t
BASIC_AUTH=u:s3cr3t
HTTP_AUTHORIZATION=Bearer s3cr3t
TF_TOKEN_app_terraform_io=s3cr3t
POETRY_PYPI_TOKEN_PYPI=s3cr3t
GITHUB_TOKEN_FILE=/run/s3cr3t
SYSTEM_ACCESSTOKEN=s3cr3t
BW_SESSION=s3cr3t
OP_SESSION_my=s3cr3t
GPG_PASSPHRASE=s3cr3t
SIGNING_KEY_PASSPHRASE=s3cr3t
DB_PWD=s3cr3t
LDAP_BIND_PW=s3cr3t
PASSWD=s3cr3t
PASS=s3cr3t
APIKEY=s3cr3t
CI_JOB_JWT=s3cr3t
CI_JOB_JWT_V2=s3cr3t
SESSION_COOKIE=s3cr3t
COOKIE=s3cr3t
APP_CREDS=s3cr3t
BUNDLE_RUBYGEMS__PKG__GITHUB__COM=u:s3cr3t
MONGODB_URI=mongodb+srv://u:s3cr3t@db.example.com/x
MONGO_URL=mongodb://admin:s3cr3t@10.0.0.1:27017
POSTGRES_URL=postgres://u:s3cr3t@localhost/db
AMQP_URL=amqp://guest:s3cr3t@mq:5672/
CELERY_BROKER_URL=redis://:s3cr3t@cache:6379/0
PIP_INDEX_URL=https://u:s3cr3t@pypi.example.com/simple
PIP_EXTRA_INDEX_URL=https://pypi.org/simple https://__token__:s3cr3t@x.example.com/simple
UV_INDEX_URL=https://u:s3cr3t@pypi.example.com/simple
SENTRY_DSN=https://s3cr3tkey:s3cr3t@o1.ingest.sentry.io/1
GIT_CONFIG_PARAMETERS='"'"'http.https://github.com/.extraheader'"'"'='"'"'AUTHORIZATION: basic s3cr3t'"'"''
# …and what must stay: a URL without a password, ordinary variables.
keepcases='TOKENIZERS_PARALLELISM=false
PIP_INDEX_URL2=https://pypi.example.com/simple
GIT_URL=git@github.com:o/r.git
WEB_URL=https://example.com/a:b@c
OLDPWD_TEST=x
SBXSH_E2E_KEEP=user@host:path'
if [ -z "$PY" ]; then
	skip "credentials in the environment" "python3 is not installed"
else
	run_env() { # run_env CASES: the names whose value reached the command
		printf '%s\n' "$1" | "$PY" -c '
import os, subprocess, sys
env = dict(os.environ)
names = []
for line in sys.stdin.read().splitlines():
    n, v = line.split("=", 1)
    env[n] = v
    names.append(n)
out = subprocess.run([sys.argv[1], "-c", "env -0"], env=env, capture_output=True).stdout
got = dict(l.split(b"=", 1) for l in out.split(b"\0") if b"=" in l)
for n in names:
    print(n, "present" if n.encode() in got else "absent")
' "$SBXSH"
	}
	got=$(run_env "$envcases")
	for n in $(printf '%s\n' "$envcases" | cut -d= -f1); do
		is "$n is removed by the default policy" \
			"$(printf '%s\n' "$got" | awk -v n="$n" '$1 == n')" "$n absent"
	done
	got=$(run_env "$keepcases")
	for n in $(printf '%s\n' "$keepcases" | cut -d= -f1); do
		is "$n (no credential) reaches the command" \
			"$(printf '%s\n' "$got" | awk -v n="$n" '$1 == n')" "$n present"
	done
	user_policy "$base
env_keep += MONGODB_URI github_token"
	got=$(run_env "$envcases")
	is "env_keep lets a URL with a password through" \
		"$(printf '%s\n' "$got" | grep -F 'MONGODB_URI ')" "MONGODB_URI present"
	is "env_keep names a lower-case name" \
		"$(printf '%s\n' "$got" | grep -F 'github_token ')" "github_token present"
	is "…and nothing else" "$(printf '%s\n' "$got" | grep -F 'MONGO_URL ')" "MONGO_URL absent"
	user_policy "$base"
fi
# also REPO_URL=https://ghp_x@github.com (a token as the user name) goes; ssh://git@ stays
if [ -n "$PY" ]; then
	got=$(run_env 'REPO_URL=https://ghp_s3cr3t@github.com/o/r.git
SSH_REPO=ssh://git@github.com/o/r')
	is "an https URL with a token as its user name is removed" \
		"$(printf '%s\n' "$got" | grep -F 'REPO_URL ')" "REPO_URL absent"
	is "…an ssh URL with a plain user name is not" \
		"$(printf '%s\n' "$got" | grep -F 'SSH_REPO ')" "SSH_REPO present"
	user_policy "$base
env_unset ="
	got=$(run_env 'MONGODB_URI=mongodb://u:s3cr3t@h/x')
	is "env_unset = (empty) turns the value rule off too" "$got" "MONGODB_URI present"
	user_policy "$base"
fi

# --- 2. credential files the default deny_read missed (made under the test HOME) ---
creds=".config/glab-cli/config.yml .config/tea/config.yml .s3cfg .passwd-s3fs .boto
.mc/config.json .oci/config .aliyun/config.json .config/hcloud/cli.toml .config/linode-cli
.config/scw/config.yaml .fly/config.yml .config/netlify/config.json .netlify/config.json
.local/share/com.vercel.cli/auth.json .config/configstore/firebase-tools.json
.wrangler/config/default.toml .config/.wrangler/config/default.toml .pulumi/credentials.json
.terraformrc .config/helm/repositories.yaml .cloudflared/cert.pem .config/ngrok/ngrok.yml
.ngrok2/ngrok.yml .snowsql/config .databrickscfg .dbt/profiles.yml .saml2aws
.yarnrc.yml .nuget/NuGet/NuGet.Config .config/NuGet/NuGet.Config .composer/auth.json
.config/composer/auth.json .bundle/config .config/pypoetry/auth.toml
.pub-cache/credentials.json .config/dart/pub-credentials.json .local/share/kwalletd/kdewallet.kwl
.authinfo .authinfo.gpg .fetchmailrc .msmtprc .config/msmtp/config .mbsyncrc
.purple/accounts.xml .thunderbird/profiles.ini .config/aerc/accounts.conf
.config/BraveSoftware/Brave-Browser/Default/Cookies .config/microsoft-edge/Default/Cookies
.config/vivaldi/Default/Cookies .config/opera/Cookies .config/google-chrome-beta/Default/Cookies
.config/google-chrome-unstable/Default/Cookies .var/app/org.mozilla.firefox/x
.config/Slack/Cookies .config/discord/Cookies .config/Signal/config.json
.local/share/TelegramDesktop/tdata/key_datas .config/Code/User/globalStorage/state.vscdb
.config/Cursor/User/globalStorage/state.vscdb .config/VSCodium/User/globalStorage/state.vscdb
.vscode-server/data/User/globalStorage/state.vscdb .config/JetBrains/IdeaIC2024.1/c.kdbx
.claude.json .cursor/mcp.json .codeium/windsurf/mcp_config.json .continue/config.json
.local/share/opencode/auth.json .qwen/oauth_creds.json .gemini/google_accounts.json
.gemini/mcp-oauth-tokens.json .config/goose/secrets.yaml .openhands/settings.json
.Xauthority .ICEauthority .zhistory .histfile .history .sh_history .irb_history
.pry_history .scala_history .duckdb_history .julia/logs/repl_history.jl
.ipython/profile_default/history.sqlite .mongosh/mongosh_repl_history .dbshell .viminfo
.local/state/nvim/shada/main.shada .local/share/nvim/shada/main.shada
.local/share/atuin/history.db .config/fish/fish_history .lesshst
.subversion/auth/svn.simple/0123abcd .config/stripe/config.toml .config/twilio-cli/config.json
.kaggle/kaggle.json .config/kaggle/kaggle.json .snowflake/connections.toml .sentryclirc
.ivy2/.credentials .sbt/.credentials .lein/credentials.clj.gpg .doppler/.doppler.yaml
.infisical/infisical-config.json .supabase/access-token .railway/config.json .render/cli.yaml
.ovh.conf .config/exoscale/exoscale.toml .config/upcloud/upctl.yaml .vultr-cli.yaml
.config/vultr-cli.yaml .civo.json .linode-cli .influxdbv2/configs .expo/state.json
.circleci/cli.yml .travis/config.yml .jira.d/config.yml .appcenter-cli/profile.json
.config/cachix/cachix.dhall .config/turso/settings.json .config/planetscale/access-token
.config/neonctl/credentials.json .local/share/gopass/stores/root/x.gpg .config/gopass/config
.local/share/keybase/device_eks/x .bunfig.toml
.config/pnpm/rc .config/nix/nix.conf .gitkraken/profiles/x/profile .yarnrc
.aider.conf.yml .local/share/atuin/session"
for f in $creds; do
	mkdir -p "$(dirname "$HOME/$f")" && echo "secret-of-$f" > "$HOME/$f"
done
got=$(sb -c 'for f in "$@"; do cat ~/"$f" 2>/dev/null; done; echo end' sh $creds 2>/dev/null)
for f in $creds; do
	unlike "~/$f is hidden" "$got" "^secret-of-$f\$"
done
mkdir -p "$HOME/.config/Code/User"
echo '{"editor.fontSize": 14}' > "$HOME/.config/Code/User/settings.json"
echo 'set -o vi' > "$HOME/.profile.local"
is "…while an editor's settings and other dot-files stay readable" \
	"$(sb -c 'cat ~/.config/Code/User/settings.json ~/.profile.local' 2>/dev/null | tr '\n' ' ')" \
	'{"editor.fontSize": 14} set -o vi '

# --- 3. `sbxsh policy` and --dry-run: names a command made are printed escaped ---
esc=$(printf 'd\033[2J\033]0;pwned\007x')
sb -c 'mkdir -p "$0"' "$esc" 2> /dev/null
if [ -d "$T/proj/$esc" ]; then
	ok "control: a command made a directory whose name holds escape sequences"
	out=$(cd "$T/proj/$esc" && "$SBXSH" policy 2>&1)
	like "sbxsh policy run there names the cwd" "$out" '^cwd = '
	is "…with no ESC or BEL byte in its output" "$(printf '%s' "$out" | tr -dc '\033\007' | wc -c)" 0
	like "…the bytes written as \\xNN" "$out" 'd\\x1b\[2J\\x1b\]0;pwned\\x07x'
	out=$(cd "$T/proj/$esc" && "$SBXSH" --dry-run -c true 2>&1)
	is "sbxsh --dry-run there: no ESC or BEL byte" "$(printf '%s' "$out" | tr -dc '\033\007' | wc -c)" 0
	out=$(cd "$T/proj/$esc" && "$SBXSH" policy /nonexistent-dir"$esc" 2>&1)
	is "sbxsh policy's error naming a directory: no ESC or BEL byte" \
		"$(printf '%s' "$out" | tr -dc '\033\007' | wc -c)" 0
else
	not_ok "control: a command made a directory whose name holds escape sequences"
fi

# --- 4. a terminal on some of 0-2 only: the caller's terminal as it was after the command ---
# (all three on a terminal go through the pty relay: the command never holds the caller's)
if [ -z "$PY" ]; then
	skip "the caller's terminal is left as it was" "python3 is not installed"
else
	ttycase() { # ttycase FD: a pty on FD only (0 or 1), the others pipes; prints what changed
		"$PY" - "$SBXSH" "$1" << 'PYEOF'
import os, pty, sys, subprocess, termios, fcntl, struct
S, fd = sys.argv[1], int(sys.argv[2])
code = r'''
import fcntl, termios, os, struct, sys, tty
fd = int(sys.argv[1])
tty.setraw(fd)
fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
print("changed", file=sys.stderr)
'''
m, s = pty.openpty()
fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
before = termios.tcgetattr(s)
def child():
    os.setsid()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
fds = [subprocess.DEVNULL, subprocess.PIPE, subprocess.PIPE]
fds[fd] = s
p = subprocess.Popen([S, "-c", 'exec python3 -c "$0" "$1"', code, str(fd)],
                     stdin=fds[0], stdout=fds[1], stderr=fds[2], preexec_fn=child)
o, e = p.communicate(timeout=60)
print("ran" if b"changed" in (e or b"") else "did-not-run:" + (e or b"").decode(errors="replace"))
print("termios-same" if termios.tcgetattr(s) == before else "termios-changed")
print("nonblock" if fcntl.fcntl(s, fcntl.F_GETFL) & os.O_NONBLOCK else "blocking")
PYEOF
	}
	for fd in 0 1; do
		out=$(ttycase $fd 2>&1)
		like "a pty on fd $fd only: the command set it raw and non-blocking" "$out" '^ran$'
		like "…and after sbxsh the caller's terminal has its modes back" "$out" '^termios-same$'
		like "…and its shared description is blocking again" "$out" '^blocking$'
	done
fi

# --- 5. root-only secrets beyond /etc/shadow: logs of logins, the journal, core dumps, the
# secrets a container runtime or systemd hands a service (made under /run for the test) ---
made_run=""
if is_root && [ ! -e /run/secrets ]; then
	mkdir -m 700 /run/secrets && echo "e2e-secret" > /run/secrets/db_password && made_run=1
fi
for f in /var/log/btmp /var/log/journal /var/log/private /var/lib/systemd/coredump /run/secrets; do
	if [ ! -e "$f" ]; then
		skip "$f is hidden" "no $f on this machine"
		continue
	fi
	if [ -d "$f" ]; then has=$(ls -A "$f" 2>/dev/null | head -n 1); else has=$(head -c 1 "$f" 2>/dev/null); fi
	if is_root && [ -z "$has" ]; then
		skip "$f is hidden from root" "$f is empty here: nothing to show either way"
		continue
	fi
	if [ -d "$f" ]; then
		v=$(sb -c 'ls -A "$0" 2>/dev/null | wc -l' "$f" 2>/dev/null)
	else
		v=$(sb -c 'head -c 64 "$0" 2>/dev/null | wc -c' "$f" 2>/dev/null)
	fi
	if is_root; then
		is "$f is hidden from root (empty)" "${v:-0}" 0
	elif [ -r "$f" ] && [ -n "$(ls -A "$f" 2>/dev/null || head -c 1 "$f" 2>/dev/null)" ]; then
		is "$f is hidden from a user who reads it outside" "${v:-0}" 0
	else
		is "$f gives a user nothing" "${v:-0}" 0
	fi
done
[ -n "$made_run" ] && rm -rf /run/secrets

# --- 2b. stores a variable moves: XDG_CONFIG_HOME, KUBECONFIG, GOOGLE_APPLICATION_CREDENTIALS ---
mkdir -p "$T/cfg/gh" "$T/elsewhere"
echo "oauth_token: gho_secret" > "$T/cfg/gh/hosts.yml"
echo "kube-secret" > "$T/elsewhere/kubeconfig"
echo "gcp-secret" > "$T/elsewhere/sa.json"
echo "plain" > "$T/cfg/settings"
got=$(XDG_CONFIG_HOME="$T/cfg" KUBECONFIG="$T/elsewhere/kubeconfig" \
	GOOGLE_APPLICATION_CREDENTIALS="$T/elsewhere/sa.json" \
	sb -c 'cat "$0/gh/hosts.yml" "$1" "$2" "$0/settings" 2>/dev/null' "$T/cfg" \
	"$T/elsewhere/kubeconfig" "$T/elsewhere/sa.json" 2>/dev/null)
unlike "gh's hosts.yml under a moved XDG_CONFIG_HOME is hidden" "$got" gho_secret
unlike "the file KUBECONFIG names is hidden" "$got" kube-secret
unlike "the file GOOGLE_APPLICATION_CREDENTIALS names is hidden" "$got" gcp-secret
like "…while the moved config directory's other files stay readable" "$got" '^plain$'
is "an unset or relative variable in deny_read names nothing (the command runs)" \
	"$(env -u KUBECONFIG DOCKER_CONFIG=relative/dir "$SBXSH" -c 'echo ran' 2>&1)" ran
user_policy "$base
read += \$SBXSH_E2E_SURELY_UNSET/x"
like "…while in read it is still an error naming it" "$(sb -c 'echo ran' 2>&1)" \
	'SBXSH_E2E_SURELY_UNSET, which is not set'
user_policy "$base"

# podman's first login file: $XDG_RUNTIME_DIR/containers/auth.json under /run/user/UID
rd=/run/user/$(id -u)
if [ -d "$rd" ] && [ -w "$rd" ] && [ ! -e "$rd/containers" ]; then
	mkdir -m 700 "$rd/containers" && echo "runtime-auth-secret" > "$rd/containers/auth.json"
	is "$rd/containers/auth.json (podman's login) is hidden" \
		"$(sb -c 'cat "$0" 2>/dev/null; echo end' "$rd/containers/auth.json" 2>/dev/null)" "end"
	rm -rf "$rd/containers"
else
	skip "/run/user/UID/containers/auth.json is hidden" "no writable $rd without a containers directory"
fi
done_testing
