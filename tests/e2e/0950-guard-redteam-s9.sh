#!/bin/sh
# 0950 the guard attacked again (session 9): an agent's own directory granted (write +=
# ~/.claude: its global instructions, settings and plugins are what every later agent session
# obeys and runs), … Each attack with a control showing the same call lands where it is
# allowed.
. "$(dirname "$0")/lib.sh"

redteam_start redteam9 "the guard" # HOME and the project under /var/tmp

# --- an agent's directory granted whole: what the next agent session reads ---
mkdir -p "$HOME/.claude/shell-snapshots" "$HOME/.codex/shell_snapshots" "$HOME/.codex/log" \
	"$HOME/.gemini" "$HOME/.cursor"
ln -s "$H" "$HOME/.gemini/logs" # a data name that is a link: no grant of where it points
echo orig > "$HOME/.claude/CLAUDE.md"
user_policy '[default]
network = none
write += ~/.claude ~/.codex ~/.gemini ~/.cursor'
run 'echo evil >> ~/.claude/CLAUDE.md; echo "{\"hooks\":{}}" > ~/.claude/settings.json
mkdir -p ~/.claude/plugins/p; echo x > ~/.claude/plugins/p/plugin.json; echo x > ~/.claude/statusline.sh
mkdir -p ~/.claude/projects/p/memory; echo x > ~/.claude/projects/p/memory/MEMORY.md
echo x > ~/.codex/AGENTS.md; echo x > ~/.codex/config.toml; mkdir -p ~/.codex/rules; echo x > ~/.codex/rules/r.rules
echo x > ~/.gemini/GEMINI.md; echo x > ~/.gemini/settings.json; echo x > ~/.cursor/mcp.json
echo snap > ~/.claude/shell-snapshots/s.sh; echo snap > ~/.codex/shell_snapshots/s.sh
echo log > ~/.codex/log/l.txt; ln -s ../AGENTS.md ~/.codex/log/ln; echo x > ~/.codex/log/ln
echo x > ~/.gemini/logs/planted'
is "~/.claude granted: its global instructions (CLAUDE.md) are not written" "$(cat "$HOME/.claude/CLAUDE.md")" orig
absent "… nor its settings (hooks run on the host)" "$HOME/.claude/settings.json"
absent "… nor a plugin" "$HOME/.claude/plugins"
absent "… nor a script by another name (a statusLine command)" "$HOME/.claude/statusline.sh"
absent "… nor its memory" "$HOME/.claude/projects"
absent "~/.codex granted: AGENTS.md not written" "$HOME/.codex/AGENTS.md"
absent "… nor config.toml" "$HOME/.codex/config.toml"
absent "… nor its rules" "$HOME/.codex/rules"
absent "~/.gemini granted: GEMINI.md not written" "$HOME/.gemini/GEMINI.md"
absent "… nor settings.json" "$HOME/.gemini/settings.json"
absent "~/.cursor granted: mcp.json not written" "$HOME/.cursor/mcp.json"
present "control: the claude's shell snapshot is written" "$HOME/.claude/shell-snapshots/s.sh"
present "control: so is the codex's (its whole directory granted)" "$HOME/.codex/shell_snapshots/s.sh"
present "… and its log" "$HOME/.codex/log/l.txt"
absent "… AGENTS.md through a link planted in the log is not" "$HOME/.codex/AGENTS.md"
absent "… a data name that is a link grants nothing where it points" "$H/planted"
like "… the refusal names the rule" "$err" "an agent's directory"
rm -f "$HOME/.codex/shell_snapshots/s.sh"
# the claude-code preset's own grant (~/.claude/shell-snapshots): nothing above it
rm -f "$HOME/.claude/shell-snapshots/s.sh"
echo orig > "$HOME/.claude/CLAUDE.md"
user_policy '[default]
network = none'
out=$(SBXSH_PRESET=claude-code "$SBXSH" -c 'echo snap > ~/.claude/shell-snapshots/s.sh; echo x > ~/.claude/shell-snapshots/../CLAUDE.md' 2> "$H/err")
present "claude-code preset: the snapshot lands" "$HOME/.claude/shell-snapshots/s.sh"
is "… CLAUDE.md through .. from it does not" "$(cat "$HOME/.claude/CLAUDE.md")" orig
out=$(SBXSH_PRESET=codex "$SBXSH" -c 'echo snap > ~/.codex/shell_snapshots/s.sh; echo x > ~/.codex/shell_snapshots/../AGENTS.md' 2> "$H/err")
present "codex preset: its snapshot lands" "$HOME/.codex/shell_snapshots/s.sh"
absent "… AGENTS.md beside it does not" "$HOME/.codex/AGENTS.md"

# --- $XDG_CACHE_HOME moved into a write grant: the caches host tools run code from follow it
mkdir -p "$H/work/cache"
user_policy "[default]
network = none
write += $H/work"
out=$(XDG_CACHE_HOME=$H/work/cache "$SBXSH" -c 'mkdir -p $XDG_CACHE_HOME/pre-commit/repo1 $XDG_CACHE_HOME/other $XDG_CACHE_HOME/pip; echo x > $XDG_CACHE_HOME/pre-commit/repo1/hook.py; echo x > $XDG_CACHE_HOME/pip/x; echo ok > $XDG_CACHE_HOME/other/x' 2> "$H/err")
err=$(cat "$H/err")
absent "\$XDG_CACHE_HOME/pre-commit (hook environments run at the next commit) is not made" "$H/work/cache/pre-commit"
absent "… nor \$XDG_CACHE_HOME/pip" "$H/work/cache/pip"
present "… control: another directory there is" "$H/work/cache/other/x"
like "… the refusal names the rule" "$err" 'XDG_CACHE_HOME'

# --- a preset's deny_write refusal names the preset and its line, not "the default policy"
user_policy '[default]
network = none'
echo orig > "$P/CLAUDE.md"
out=$(SBXSH_PRESET=claude-code "$SBXSH" -c 'echo x > CLAUDE.md' 2> "$H/err")
err=$(cat "$H/err")
is "claude-code preset: CLAUDE.md is not written" "$(cat "$P/CLAUDE.md")" orig
like "… the refusal names the preset and its line in the shipped file" "$err" \
	'deny_write .*CLAUDE\.md \(the default policy.s \[profile claude-code\], line [0-9]+\)'
like "… and how the user's file lifts it" "$err" \
	'to lift it: \[profile claude-code\] in ~/\.config/sbxsh/sbxsh\.ini: deny_write -= '

# --- a global core.hooksPath of ".." or "../..": the worktree's parent (or grandparent) is
# the hooks directory; a nested repository's parent lies in the project
if command -v git > /dev/null 2>&1; then
	mkdir -p "$P/a/b"
	git init -q "$P/a/b/sub" || exit 1
	for hp in .. ../..; do
		printf '[core]\n\thooksPath = %s\n' "$hp" > "$HOME/.gitconfig"
		rm -f "$P/a/b/ok" "$P/a/ok"
		run 'printf "#!/bin/sh\necho planted\n" > a/b/pre-commit; printf "#!/bin/sh\n" > a/post-checkout; chmod +x a/b/pre-commit; echo ok > a/b/ok; echo ok > a/ok'
		absent "global hooksPath $hp: no pre-commit beside a nested repository" "$P/a/b/pre-commit"
		absent "… nor a post-checkout a level up" "$P/a/post-checkout"
		present "… control: another file there lands" "$P/a/b/ok"
	done
	rm -f "$HOME/.gitconfig"
else
	skip "a global hooksPath .. beside a nested repository" "needs git"
fi

# --- a grant of ~: a launcher on the desktop, the X session's scripts
mkdir -p "$HOME/Desktop"
user_policy '[default]
network = none
write += ~'
run 'printf "[Desktop Entry]\nExec=sh -c evil\n" > ~/Desktop/Firefox.desktop; chmod +x ~/Desktop/Firefox.desktop; echo ok > ~/Desktop/notes.txt'
absent "write += ~: no launcher made on the desktop" "$HOME/Desktop/Firefox.desktop"
present "… control: another file on the desktop lands" "$HOME/Desktop/notes.txt"
like "… the refusal names the rule" "$err" 'Desktop/\*\.desktop'
run 'mv ~/Desktop ~/Desk2 && mkdir ~/Desktop && echo x > ~/Desktop/b.desktop'
absent "… nor one made in a desktop made anew after renaming the old one" "$HOME/Desktop/b.desktop"
check "… the desktop keeps its name" test -f "$HOME/Desktop/notes.txt"

# --- the record: [sbxsh] log set to a path in a write grant that does not exist yet; a link,
# FIFO or directory made there took every later violation off the record
user_policy "[sbxsh]
log = $P/vlog/violations.jsonl
[default]
network = none"
run 'mkdir -p vlog; ln -s /dev/null vlog/violations.jsonl; mkfifo vlog/violations.jsonl; mkdir vlog/violations.jsonl'
check "a configured log path: no link, FIFO or directory is made in its place" \
	sh -c "test ! -L '$P/vlog/violations.jsonl' && test ! -p '$P/vlog/violations.jsonl' && test ! -d '$P/vlog/violations.jsonl'"
run 'echo x > ~/.profile'
like "… a later violation is on the record" "$(cat "$P/vlog/violations.jsonl" 2>/dev/null)" '\.profile'
run 'echo x > vlog/other'
present "… control: another file beside it lands" "$P/vlog/other"

done_testing
