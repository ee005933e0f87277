# agents_lib.sh — the real agent CLIs driven through tool calls by a mock of their API on
# loopback (e2e 0440, 0600, 0610), sourced after lib.sh with REAL_HOME set (the caller's HOME
# before lib.sh replaced it):
#   npm_agent NAME PACKAGE BIN  $BIN set to the agent's command, installed once per user into
#                               REAL_HOME/.cache/sbxsh-e2e/NAME; or 1 with the reason in $why
#   start_mock SCRIPT COMMAND…  the mock (mock_anthropic.py, mock_openai.py, mock_gemini.py) on
#                               a free port ($port), answering each request with the next
#                               COMMAND as a tool call; its pid in $mock, and added to $mocks
#                               (for a script's trap: kill $mocks)
#   call N                      the output of the agent's Nth tool call, as it sent it back
#   claude_turn CLAUDE COMMAND… one turn of the real Claude Code: the mock with the COMMANDs,
#                               `sbxsh run -- CLAUDE -p …` (its output in $out), the mock stopped
npm_agent() {
	cache="$REAL_HOME/.cache/sbxsh-e2e/$1"
	BIN="$cache/node_modules/.bin/$3"
	[ -x "$BIN" ] && return 0
	command -v npm > /dev/null || { why="npm is not installed"; return 1; }
	command -v python3 > /dev/null || { why="python3 is not installed"; return 1; }
	[ -n "$REAL_HOME" ] && mkdir -p "$cache" 2> /dev/null || { why="no cache directory in $REAL_HOME"; return 1; }
	ca=/etc/ssl/certs/ca-certificates.crt # the system's CAs (a user run by env -i has no npm config)
	[ -r "$ca" ] || ca=
	if ! timeout 600 env HOME="$REAL_HOME" npm install --prefix "$cache" --no-audit --no-fund \
		--cache "$cache/.npm" ${ca:+--cafile "$ca"} "$2" > "$T/npm.log" 2>&1 || ! [ -x "$BIN" ]; then
		why="npm install $2 failed: $(tail -n 1 "$T/npm.log")"
		return 1
	fi
}
mocks=
start_mock() {
	rm -f "$T/port" "$T/calls"
	_s=$1
	shift
	python3 "$E2E/$_s" "$T/port" "$T/calls" "$@" > "$T/mock.log" 2>&1 &
	mock=$!
	mocks="$mocks $mock"
	n=0; while [ ! -s "$T/port" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	port=$(cat "$T/port" 2> /dev/null)
}
call() { sed -n "$1p" "$T/calls" | python3 -c 'import json,sys; print(json.load(sys.stdin)["output"])' 2>&1; }
claude_turn() {
	_c=$1
	shift
	start_mock mock_anthropic.py "$@"
	out=$(ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=sk-e2e \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
		timeout 120 "$SBXSH" run -- "$_c" -p 'run the steps' --allowedTools Bash < /dev/null 2>&1)
	kill "$mock" 2> /dev/null
}
