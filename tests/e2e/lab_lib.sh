# lab_lib.sh — the network lab of the proxy e2e tests (0201, 0210), sourced first thing.
# Re-runs the sourcing script in a user + network + mount namespace of its own (unshare -rmn,
# so as root and as a normal user alike), then sources lib.sh and sess_lib.sh and builds the
# lab: a veth pair to a second network namespace, the "remote" host 10.77.0.2 / fd77::2, and
# a private /etc/hosts naming it good.test, bad.test, … Skips the whole script (with the
# reason) where either cannot be had. Servers the script starts go in $SRV (killed on exit).
if [ -z "${SESS_LAB:-}" ]; then
	if unshare -rmn true 2> /dev/null; then
		SESS_LAB=1 exec unshare -rmn sh "$0"
	fi
	. "$SBXSH_STAGE/e2e/lib.sh"
	skip "the proxy lab" "unshare -rmn (unprivileged user and network namespaces) is not available here"
	done_testing
	exit
fi
. "$SBXSH_STAGE/e2e/lib.sh"
. "$SBXSH_STAGE/e2e/sess_lib.sh"
NS=""
SRV=""
cleanup() {
	[ -n "$NS" ] && kill "$NS" 2> /dev/null
	[ -n "$SRV" ] && kill $SRV 2> /dev/null
	e2e_cleanup
}
trap cleanup EXIT

lab() {
	ip link set lo up && ip link add v0 type veth peer name v1 || return 1
	mkfifo "$T/ns.ready"
	unshare -n sh -c 'echo up > "$1"; exec sleep 100000' sh "$T/ns.ready" &
	NS=$!
	read -r _ < "$T/ns.ready"
	ip link set v1 netns "$NS" &&
		ip addr add 10.77.0.1/24 dev v0 && ip -6 addr add fd77::1/64 dev v0 nodad &&
		ip link set v0 up &&
		nsenter -t "$NS" -n sh -c 'ip link set lo up && ip addr add 10.77.0.2/24 dev v1 &&
			ip -6 addr add fd77::2/64 dev v1 nodad && ip link set v1 up' || return 1
	cat > "$T/hosts" <<-HOSTS
	127.0.0.1 localhost loop.test
	::1 localhost
	10.77.0.2 good.test evil.test bad.test other.test
	fd77::2 good6.test
	10.77.0.1 self.test
	169.254.169.254 meta.test
	HOSTS
	mount --bind "$T/hosts" /etc/hosts
}
in_remote() { nsenter -t "$NS" -n "$@"; }
# A server in the remote namespace, in the background: nsenter itself, not a subshell
# running the function, so $! is the server (cleanup kills it).
in_remote_bg() { nsenter -t "$NS" -n "$@" & }
# wait_for CMD…: retries CMD until it succeeds (a server coming up), at most ~5 s.
wait_for() { i=0; until "$@" > /dev/null 2>&1; do i=$((i + 1)); [ $i -gt 100 ] && return 1; sleep 0.05; done; }

if ! lab; then
	skip "the proxy lab" "could not build the veth lab in the namespace"
	done_testing
	exit
fi
