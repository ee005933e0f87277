# cdsw_lib.sh — what the profile switch suites (0510, 0515) share, sourced after lib.sh with
# CDSW_NAME (var_home's name) and CDSW_WHAT (the skip's text) set: tmux (skips the script
# without it), HOME and two projects A and B under /var/tmp, each a [dir] section with
# write = ., a one-line ~/.bashrc, and the terminal helpers:
#   start [CMD]   a new tmux session in A running CMD (default $SBXSH), its status to
#                 $H/status at the end; waits for the first prompt (its status)
#   cmd LINE      types LINE and Enter, waits for the next prompt
#   bye LINE      types LINE and Enter, waits for the session's status (LINE ends the shell)
#   last          the screen's last line; MA / MB: the prompts of A's and B's profiles
if ! command -v tmux > /dev/null 2>&1; then
	skip "$CDSW_WHAT" "tmux is not installed (packaging/deps.sh test installs it)"
	done_testing; exit 0
fi
# The sandbox's /tmp is private: HOME and the projects live under /var/tmp.
var_home "$CDSW_NAME"
nsrv=0
. "$(dirname "$0")/tmux_lib.sh"
trap 'TM kill-server 2>/dev/null; chmod -R u+rwX "$H" 2>/dev/null; rm -rf "$H"; e2e_cleanup' EXIT
A=$H/a B=$H/b
mkdir -p "$HOME/.config/sbxsh" "$A" "$B"
chmod 700 "$HOME"
printf '%s\n' 'PS1="P> "' > "$HOME/.bashrc"
user_policy "[dir $A]
write = .
[dir $B]
write = ."

PR='^(\[sbxsh:[^]]*\] )?P> '
last() { screen | grep -v "^$" | tail -n 1; }
prompts() { screen | grep -Ec "$PR"; }
cmd() { n=$(prompts); keys -l "$1"; keys Enter; wait_screen "$PR" $((n + 1)); }
bye() { keys -l "$1"; keys Enter; wait_file "$H/status"; }
start() {
	TM kill-server 2>/dev/null
	nsrv=$((nsrv + 1))
	rm -f "$H/status"
	TM new-session -d -s s -x 200 -y 50 -c "$A" \
		"${*:-$SBXSH}; echo \$? > $H/status.t; mv $H/status.t $H/status; exec sleep 1000"
	wait_screen "$PR"
}
MA="^\[sbxsh:dir $A\] P> "
MB="^\[sbxsh:dir $B\] P> "
