#!/bin/sh
# 0997-redteam-today-b — a red team against what main took on 2026-12-05, as root and as a
# user. Each attack below failed on the build before:
# - a capability URL (a Slack, Discord, Teams, Google Chat webhook, a Telegram bot's URL: the
#   URL is the credential) kept in the environment under an ordinary name was removed only as
#   spelled in lower case with the bare host: HTTPS://HOOKS.SLACK.COM/services/…, the host
#   with a port (hooks.slack.com:443) or a trailing dot (hooks.slack.com.), and Discord's
#   versioned API (discord.com/api/v10/webhooks/…) all post as the owner and all reached the
#   command; so did a Telegram bot's file URL (api.telegram.org/file/bot<token>/…).
# - the credential stores hidden at ~/.config/… and ~/.local/share/… (Claude Desktop's and
#   VS Code's MCP settings, aichat's, mods', ShellGPT's, gptme's, Crush's keys, DBeaver's saved
#   passwords) were readable where XDG_CONFIG_HOME / XDG_DATA_HOME move them, where those
#   programs keep them then.
# - the guard's rule that a file with a second name (a package store's, linked into the
#   project's .venv or node_modules) is not changed in place held chmod and writes, not the
#   extended attributes: a POSIX ACL set with setxattr(system.posix_acl_access) (setfacl -m
#   u::rwx,o::rwx) made the store's file executable and writable for others under every name,
#   by its name or through a descriptor (fsetxattr).
# - what ~/.local/bin's (a $PATH directory's, a hooks directory's) links lead to was looked up
#   in the first 512 entries only, files and links alike: in a directory of more (a long-used
#   ~/.local/bin, a PATH directory of a toolchain) the links read later were not followed, and
#   under write += ~/.local their targets were rewritten, run at the host's next `tool`.
. "$(dirname "$0")/lib.sh"

redteam_start redteam-today-b "today's changes"

# --- 1. capability URLs in other spellings ---
envcases='UP=HTTPS://HOOKS.SLACK.COM/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx
MIXED=https://Hooks.Slack.com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx
PORT=https://hooks.slack.com:443/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx
DOT=https://hooks.slack.com./services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx
DV10=https://discord.com/api/v10/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz0123
DUP=https://DISCORD.COM/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz0123
TGUP=https://API.TELEGRAM.ORG/bot123456789:ABCdefGHIjklMNOpqrSTUvwxYZ/sendMessage
GCUP=https://Chat.GoogleApis.com/v1/spaces/AAAA/messages?key=AIzaS&token=abcdefghijklmnop
TGFILE=https://api.telegram.org/file/bot123456789:ABCdefGHIjklMNOpqrSTUvwxYZ/documents/f.pdf
ENC=https%3A%2F%2FHOOKS.SLACK.COM%2Fservices%2FT0123ABCD%2FB0123ABCD%2Fabcdefghijklmnopqrstuvwx
JSONB={"url":"https:\/\/Hooks.Slack.Com:443\/services\/T0123ABCD\/B0123ABCD\/abcdefghijklmnopq"}'
keepcases='DOCS_URL=https://DISCORD.COM/developers/docs
SLACK_API=https://Hooks.Slack.com/
BOTDOC=https://core.telegram.org/bots/api'
env_cases "a capability URL in another spelling (case, port, trailing dot, API version) is removed" \
	"… while those hosts' other URLs stay"

# --- 2. the new credential stores where XDG_CONFIG_HOME / XDG_DATA_HOME move them ---
XC=$H/xdgconf XD=$H/xdgdata
STORES="$XC/Claude/claude_desktop_config.json $XC/Code/User/mcp.json $XC/aichat/config.yaml
$XC/mods/mods.yml $XC/shell_gpt/.sgptrc $XC/gptme/config.toml $XC/crush/crush.json
$XD/crush/crush.json $XD/DBeaverData/workspace6/General/.dbeaver/credentials-config.json"
script=
for f in $STORES; do
	mkdir -p "$(dirname "$f")"
	echo s3cr3t-store > "$f"
	script="$script cat '$f';"
done
out=$(XDG_CONFIG_HOME=$XC XDG_DATA_HOME=$XD "$SBXSH" -c "$script" 2> /dev/null)
is "no store is read where XDG_CONFIG_HOME / XDG_DATA_HOME put it" \
	"$(printf '%s\n' "$out" | grep -c s3cr3t-store)" 0

# --- 3. a file with a second name: its ACL and other extended attributes ---
mkdir -p "$H/store" "$P/.venv"
cat > "$H/acl.py" << 'PY'
import os, struct, sys
# u::rwx g::rw- o::rwx: the mode bits follow the ACL's owner, group and other entries
blob = struct.pack('<I', 2) + b''.join(struct.pack('<HHI', t, p, 0xffffffff)
                                       for t, p in ((1, 7), (4, 6), (0x20, 7)))
def attempt(f):
    try:
        f()
        return 'set'
    except OSError as e:
        return 'refused %d' % e.errno
name = sys.argv[1]
print(attempt(lambda: os.setxattr(name, 'system.posix_acl_access', blob)))
fd = os.open(name, os.O_RDONLY)
print(attempt(lambda: os.setxattr(fd, 'system.posix_acl_access', blob)))
print(attempt(lambda: os.setxattr(name, 'user.sbxsh-test', b'1')))
PY
for f in a b; do
	echo 'print(1)' > "$H/store/$f.py"
	chmod 644 "$H/store/$f.py"
	ln -f "$H/store/$f.py" "$P/.venv/$f.py"
done
run "python3 '$H/acl.py' .venv/a.py"
is "neither setxattr nor fsetxattr gives a store's linked file an ACL (nor another attribute)" \
	"$(printf '%s\n' "$out" | grep -c '^set')" 0
is "… the store's file keeps its mode" "$(stat -c %a "$H/store/a.py")" 644
like "… the refusal names the rule" "$err" 'a file with another name'
# the command's own link (a file it made and linked) keeps every attribute call: as outside
echo x > "$H/ref.py" && ln -f "$H/ref.py" "$H/ref2.py"
want=$(python3 "$H/acl.py" "$H/ref.py"; stat -c %a "$H/ref2.py")
run "echo x > own.py && ln own.py own2.py && python3 '$H/acl.py' own.py; stat -c %a own2.py"
is "… while a file whose names are all the command's own takes them" "$out" "$want"
rm -f "$P/own.py" "$P/own2.py"

# --- 4. the links of a ~/.local/bin of many entries ---
user_policy '[default]
network = none
write += ~/.local'
mkdir -p "$HOME/.local/bin"
i=0
while [ $i -lt 1500 ]; do : > "$HOME/.local/bin/f$i"; i=$((i + 1)); done
script= i=0
while [ $i -lt 16 ]; do
	mkdir -p "$HOME/.local/opt/t$i"
	echo genuine > "$HOME/.local/opt/t$i/run"
	ln -s ../opt/t$i/run "$HOME/.local/bin/tool$i"
	script="$script echo PLANTED > ~/.local/opt/t$i/run;"
	i=$((i + 1))
done
run "$script"
is "no link's target in a ~/.local/bin of 1,500 files is rewritten" \
	"$(cat "$HOME"/.local/opt/t*/run | grep -c PLANTED)" 0
run 'echo x > ~/.local/opt/other'
present "control: a file beside them is written" "$HOME/.local/opt/other"
rm -rf "$HOME/.local"

done_testing
