#!/bin/sh
# 0975-boundary-redteam-s11 — the session-11 red team against the boundary, with the shipped
# policy, as root and as a user. What it found (each attack below failed on the build before):
# - credential files the default deny_read missed: mongosh's history is ~/.mongodb/mongosh,
#   not ~/.mongosh; zsh and bash histories kept under XDG directories; MySQL's login-path
#   file, PostgreSQL's service file, ODBC DSNs, Gerrit's git cookies, OpenStack's clouds.yaml,
#   Argo CD, Teleport, smallstep, minikube's, Lima's and Colima's, Talos' client keys; the
#   NSS database (Chromium's client-certificate keys); Jupyter's runtime files (a running
#   kernel's HMAC key, a server's token); fish's universal variables; the llm and fabric
#   CLIs' API keys, Ollama's signing key, WakaTime's, Ansible Galaxy's and Hex's tokens;
#   FileZilla's and Remmina's saved passwords; mutt's, irssi's and WeeChat's; crypto wallets
#   and key stores (Electrum, Bitcoin Core, Ethereum, Solana, Foundry, Sui); the NetworkManager
#   VPN keys in ~/.cert; other Firefox forks' profiles;
# - credentials in the environment whose value has a shape the value rule did not know: a
#   PEM private key, a signed JWT, and tokens whose prefix names them (Stripe, Vault,
#   GitLab's other kinds, OpenAI's project-less and service keys, xAI, Groq, Perplexity,
#   Replicate, DigitalOcean, Doppler, SendGrid, Shopify, Slack's app tokens, Atlassian,
#   Postman, Databricks, Grafana, Pulumi, Linear, PlanetScale, Heroku, Sentry, RubyGems, age,
#   Google OAuth), and Azure's connection strings (AccountKey=, SharedAccessKey=).
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

# --- 1. credential files the default deny_read missed (made under the test HOME) ---
creds=".mongodb/mongosh/mongosh_repl_history .config/zsh/.zsh_history .local/state/zsh/history
.local/share/zsh/history .cache/zsh/history .local/state/bash/history .local/share/bash/history
.mylogin.cnf .pg_service.conf .odbc.ini .gitcookies .config/openstack/clouds.yaml
.config/openstack/secure.yaml .config/argocd/config .tsh/keys/proxy/alice .step/secrets/root_ca_key
.minikube/profiles/minikube/client.key .minikube/certs/ca-key.pem .minikube/ca.key
.lima/_config/user .colima/_lima/_config/user .talos/config .pki/nssdb/key4.db
.local/share/jupyter/runtime/kernel-1.json .local/share/jupyter/runtime/jpserver-1.json
.config/fish/fish_variables .config/io.datasette.llm/keys.json .config/fabric/.env
.ollama/id_ed25519 .wakatime.cfg .ansible/galaxy_token .hex/hex.config
.config/filezilla/sitemanager.xml .config/filezilla/recentservers.xml
.local/share/remmina/group_rdp_x.remmina .config/remmina/remmina.pref .muttrc .mutt/muttrc
.config/mutt/muttrc .irssi/config .weechat/sec.conf .weechat/irc.conf .config/weechat/sec.conf
.config/weechat/irc.conf .electrum/wallets/default_wallet .bitcoin/wallet.dat
.bitcoin/wallets/w/wallet.dat .ethereum/keystore/UTC--x .config/solana/id.json
.foundry/keystores/dev .sui/sui_config/sui.keystore .cert/nm-openvpn/client.key
.librewolf/x.default/logins.json .waterfox/x/logins.json .floorp/x/logins.json .zen/x/logins.json"
for f in $creds; do
	mkdir -p "$(dirname "$HOME/$f")" && echo "secret-of-$f" > "$HOME/$f"
done
got=$(sb -c 'for f in "$@"; do cat ~/"$f" 2>/dev/null; done; echo end' sh $creds 2>/dev/null)
like "control: the command ran" "$got" '^end$'
for f in $creds; do
	unlike "~/$f is hidden" "$got" "^secret-of-$f\$"
done
# …while what sits beside them and is no secret stays readable
mkdir -p "$HOME/.minikube/cache" "$HOME/.lima/default" "$HOME/.local/share/jupyter/kernels/py"
echo iso > "$HOME/.minikube/cache/x"
echo lima > "$HOME/.lima/default/lima.yaml"
echo spec > "$HOME/.local/share/jupyter/kernels/py/kernel.json"
is "…while minikube's cache, a Lima instance's config and Jupyter's kernel specs stay readable" \
	"$(sb -c 'cat ~/.minikube/cache/x ~/.lima/default/lima.yaml ~/.local/share/jupyter/kernels/py/kernel.json' 2>/dev/null | tr '\n' ' ')" \
	'iso lima spec '
# ZDOTDIR moves zsh's history: the moved one is hidden too
mkdir -p "$T/zdot" && echo "secret-of-zdot" > "$T/zdot/.zsh_history" && chmod 755 "$T/zdot"
is "\$ZDOTDIR/.zsh_history is hidden" \
	"$(ZDOTDIR="$T/zdot" sb -c 'cat "$ZDOTDIR/.zsh_history" 2>/dev/null; echo end' 2>/dev/null)" end

# the X and ICE authority files where their variables put them (GDM, SDDM and Xwayland keep
# them in the runtime directory, not in ~/.Xauthority), and Kerberos ticket caches there
mkdir -p "$T/xa" && chmod 755 "$T/xa"
echo "secret-xcookie" > "$T/xa/Xauthority" && echo "secret-ice" > "$T/xa/ICEauthority"
is "the file \$XAUTHORITY names is hidden" \
	"$(XAUTHORITY="$T/xa/Xauthority" sb -c 'cat "$XAUTHORITY" 2>/dev/null; echo end' 2>/dev/null)" end
is "the file \$ICEAUTHORITY names is hidden" \
	"$(ICEAUTHORITY="$T/xa/ICEauthority" sb -c 'cat "$ICEAUTHORITY" 2>/dev/null; echo end' 2>/dev/null)" end
# HISTFILE=/dev/null (history off: a common setting) and the others set to a device: the
# deny_read entry is no credential store then, and the sandbox's /dev is its own: hiding it
# made /dev/null an empty read-only file (every `> /dev/null` failed: Read-only file system)
for v in HISTFILE XAUTHORITY ICEAUTHORITY; do
	is "$v=/dev/null: /dev/null stays the null device" \
		"$(env "$v=/dev/null" "$SBXSH" -c 'echo x > /dev/null && [ -c /dev/null ] && echo null-ok' 2>&1)" null-ok
done
for f in /dev/stdout; do
	is "HISTFILE=$f: the sandbox starts" "$(HISTFILE=$f "$SBXSH" -c 'echo started' 2>&1)" started
done
# …while a file of the host's /dev/shm bound in by a grant is still hidden
echo "secret-of-shm" > /dev/shm/sbxsh-e2e-$$
printf '[default]\nwrite += /dev/shm\ndeny_read += /dev/shm/sbxsh-e2e-%s\n' $$ > "$T/shm.ini"
is "a deny_read file in a granted /dev/shm stays hidden" \
	"$("$SBXSH" --config "$T/shm.ini" -c "cat /dev/shm/sbxsh-e2e-$$ 2>/dev/null; echo end" 2>/dev/null)" end
rm -f /dev/shm/sbxsh-e2e-$$
rd=/run/user/$(id -u)
made=
if [ -d "$rd" ] && [ -w "$rd" ]; then
	for f in gdm/Xauthority xauth_sbxshE2E .mutter-Xwaylandauth.SBXE2E krb5cc_sbxshE2E; do
		[ -e "$rd/$f" ] && continue
		mkdir -p "$(dirname "$rd/$f")" && echo "secret-rt" > "$rd/$f" && made="$made $f"
	done
fi
if [ -n "$made" ]; then
	for f in $made; do
		is "$rd/$f is hidden" "$(sb -c 'cat "$0" 2>/dev/null; echo end' "$rd/$f" 2>/dev/null)" end
		rm -f "$rd/$f"
	done
	rmdir "$rd/gdm" 2>/dev/null
else
	skip "the runtime directory's X authority and ticket files are hidden" "no writable $rd"
fi

# --- 2. credentials in the environment, by the shape of their value ---
pem=$(printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----')
jwt='eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'
envcases="DEPLOY_IDENTITY=$pem
RSA_IN=-----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEAx
ENC_IN=-----BEGIN ENCRYPTED PRIVATE KEY-----
PGP_IN=-----BEGIN PGP PRIVATE KEY BLOCK-----
SESSION_IN=$jwt
HDR_IN=x-session: $jwt
STRIPE_IN=sk_live_51HabcdefGHIJKLmnopQRSTuv
STRIPE_R=rk_live_51HabcdefGHIJKLmnopQRSTuv
STRIPE_T=sk_test_51HabcdefGHIJKLmnopQRSTuv
STRIPE_WH=whsec_abcdefghijklmnopqrstuvwxyz012345
VAULT_IN=hvs.CAESIJabcdefghijklmnopqrstuvwxyz0123
VAULT_B=hvb.AAAAAQabcdefghijklmnopqrstuvwxyz0123
GL_DEPLOY=gldt-abcdefghijklmnopqrstu
GL_RUNNER=glrt-abcdefghijklmnopqrstu
GL_TRIGGER=glptt-abcdefghijklmnopqrstuvwxyz0123456789
GL_FEED=glft-abcdefghijklmnopqrstu
GL_SOAT=glsoat-abcdefghijklmnopqrstu
OAI_SVC=sk-svcacct-abcdefghijklmnopqrstuvwxyz
OAI_ADMIN=sk-admin-abcdefghijklmnopqrstuvwxyz
OAI_OLD=sk-abcdefghijklmnopqrstT3BlbkFJabcdefghijklmnopqrst
OPENROUTER_IN=sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef
LANGFUSE_IN=sk-lf-01234567-89ab-cdef-0123-456789abcdef
XAI_IN=xai-abcdefghijklmnopqrstuvwxyz0123456789
GROQ_IN=gsk_abcdefghijklmnopqrstuvwxyz0123456789
PPLX_IN=pplx-abcdefghijklmnopqrstuvwxyz0123456789
REPLICATE_IN=r8_abcdefghijklmnopqrstuvwxyz0123456789
TAVILY_IN=tvly-abcdefghijklmnopqrstuvwxyz0123456789
DO_IN=dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
DO_OAUTH=doo_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
DOPPLER_IN=dp.st.dev.abcdefghijklmnopqrstuvwxyz0123456789
DOPPLER_P=dp.pt.abcdefghijklmnopqrstuvwxyz0123456789
SG_IN=SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG
SHOPIFY_IN=shpat_0123456789abcdef0123456789abcdef
SLACK_APP=xapp-1-A0123456789-0123456789012-abcdef0123456789
SLACK_ROT=xoxe.xoxp-1-abcdefghijklmnopqrstuvwxyz0123456789
ATLASSIAN_IN=ATATT3xFfGF0abcdefghijklmnopqrstuvwxyz0123456789
POSTMAN_IN=PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01
DATABRICKS_IN=dapi0123456789abcdef0123456789abcdef
GRAFANA_IN=glsa_abcdefghijklmnopqrstuvwxyz012345_0123abcd
GRAFANA_C=glc_eyJvIjoiMTIzNDU2IiwibiI6InN0YWNrIn0abcdefgh
PULUMI_IN=pul-0123456789abcdef0123456789abcdef01234567
LINEAR_IN=lin_api_abcdefghijklmnopqrstuvwxyz0123456789
PSCALE_IN=pscale_tkn_abcdefghijklmnopqrstuvwxyz0123456789
PSCALE_PW=pscale_pw_abcdefghijklmnopqrstuvwxyz0123456789
HEROKU_IN=HRKU-0123456789abcdef0123456789abcdef
SENTRY_IN=sntrys_eyJpYXQiOjE2ODAwMDAwMDAuMCwidXJsIjoiaHR0cHM6Ly9zZW50cnkuaW8ifQ
SENTRY_U=sntryu_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
GEMS_IN=rubygems_0123456789abcdef0123456789abcdef0123456789abcdef
AGE_IN=AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQS
GOOGLE_AT=ya29.a0AfH6SMBabcdefghijklmnopqrstuvwxyz0123456789
GOOGLE_CS=GOCSPX-abcdefghijklmnopqrstuvwxyz01
AZ_STORAGE=DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=abcdefghijklmnopqrstuvwxyz0123456789ABCD==;EndpointSuffix=core.windows.net
AZ_BUS=Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=abcdefghijklmnopqrstuvwxyz0123456789ABCD="
keepcases='CERT_IN=-----BEGIN CERTIFICATE----- MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQsw
PUBKEY_IN=-----BEGIN PUBLIC KEY----- MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A
TWO_DOTS=eyJhbGciOiJIUzI1NiJ9 is a header
DESK=sk-12345
SKU=sku_live_items
ASK=task-abcdefghijklmnopqrstuvwxyz
ZONE=us-east-1.rds.amazonaws.com
AZ_PLAIN=AccountName=acct;EndpointSuffix=core.windows.net
SG_HOST=SG.ap-southeast-1.compute.example.com
SG_HOST2=SG.my-production-database-01.internal
SK_PATH=/home/u/sk-learn-experiments-for-the-big-project'
if [ -z "$PY" ]; then
	skip "credentials in the environment" "python3 is not installed"
else
	run_env() { # run_env CASES: the names whose value reached the command
		printf '%s\n' "$1" | "$PY" -c '
import os, subprocess, sys
env = dict(os.environ)
names = []
text = sys.stdin.read()
# a value may span lines (a PEM key): a line without "NAME=" continues the previous one
import re
for line in text.splitlines():
    m = re.match(r"^([A-Z][A-Z0-9_]*)=(.*)$", line)
    if m:
        env[m.group(1)] = m.group(2)
        names.append(m.group(1))
    elif names:
        env[names[-1]] += "\n" + line
out = subprocess.run([sys.argv[1], "-c", "env -0"], env=env, capture_output=True).stdout
got = dict(l.split(b"=", 1) for l in out.split(b"\0") if b"=" in l)
for n in names:
    print(n, "present" if n.encode() in got else "absent")
' "$SBXSH"
	}
	got=$(run_env "$envcases")
	for n in $(printf '%s\n' "$envcases" | sed -n 's/^\([A-Z][A-Z0-9_]*\)=.*/\1/p'); do
		is "$n (a credential by its value's shape) is removed by the default policy" \
			"$(printf '%s\n' "$got" | awk -v n="$n" '$1 == n')" "$n absent"
	done
	got=$(run_env "$keepcases")
	for n in $(printf '%s\n' "$keepcases" | cut -d= -f1); do
		is "$n (no credential) reaches the command" \
			"$(printf '%s\n' "$got" | awk -v n="$n" '$1 == n')" "$n present"
	done
	user_policy "$base
env_keep += DEPLOY_IDENTITY"
	got=$(run_env "$envcases")
	is "env_keep lets a private key through" \
		"$(printf '%s\n' "$got" | grep -F 'DEPLOY_IDENTITY ')" "DEPLOY_IDENTITY present"
	user_policy "$base"
fi

# --- 3. `sbxsh log --json` stays JSON whatever a command named ---
# The log stores a path's bidi override (U+202E) and line separator (U+2028) as they are
# (valid JSON); `log --json` escaped them for the terminal as \xNN, which no JSON parser
# takes: `sbxsh log --json | jq` stopped at the command's record, hiding it and every later one.
if [ -z "$PY" ]; then
	skip "sbxsh log --json stays JSON" "python3 is not installed"
else
	bad=$(printf '/usr/sbxsh-e2e-a\342\200\256b\342\200\250c\177d\033]52;c;SGk=\007')
	sb -c 'echo x > "$0"' "$bad" > /dev/null 2>&1
	out=$("$SBXSH" log --json 2>&1)
	like "control: the write was logged" "$out" 'sbxsh-e2e-a'
	is "every line of sbxsh log --json parses as JSON, with the path the command gave" \
		"$(printf '%s\n' "$out" | "$PY" -c '
import json, sys
paths = [json.loads(l).get("path", "") for l in sys.stdin.read().splitlines() if l]
print([p.encode("utf-8", "surrogateescape") for p in paths if "sbxsh-e2e-a" in p])
' 2>&1)" "[b'/usr/sbxsh-e2e-a\\xe2\\x80\\xaeb\\xe2\\x80\\xa8c\\x7fd\\x1b]52;c;SGk=\\x07']"
	is "…with no raw ESC, BEL, DEL or format character on the terminal" \
		"$(printf '%s' "$out" | LC_ALL=C grep -c "$(printf '\033\\|\007\\|\177\\|\342\200\256\\|\342\200\250')")" 0
fi

done_testing
