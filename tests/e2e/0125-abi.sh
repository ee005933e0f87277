#!/bin/sh
# 0125-abi — the seccomp filter on every syscall interface: x86-64, i386 (int 0x80, with its
# socketcall and direct socket calls) and x32; socket families as an allowlist; the terminal
# ioctls that reach beyond the command's own terminal. At each monitor level, exact errno
# values from one raw call at a time (tests/helpers/try-syscall.c).
TMPDIR=/var/tmp; export TMPDIR
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
helper=$SBXSH_STAGE/libexec/sbxsh/test/try-syscall
if [ ! -x "$helper" ] || [ "$(uname -m)" != x86_64 ]; then
	skip "the system-call interfaces" "no try-syscall helper ($helper) or not x86_64"
	done_testing; exit
fi
cp "$helper" "$T/proj/try" # the project is visible inside the sandbox

# Each case: LABEL WANT ABI CALL ARGS… (SYS_SOCKET 1, SYS_SOCKETPAIR 8; AF_UNIX 1, AF_INET 2,
# AF_INET6 10, AF_NETLINK 16, AF_ALG 38, AF_VSOCK 40, 46 = AF_MAX, a family no kernel has yet;
# SOCK_STREAM 1, SOCK_DGRAM 2, SOCK_RAW 3, SOCK_SEQPACKET 5; MS_NOUSER 1<<31).
cases='unix-64 EPERM x86_64 socket 1 1 0
unix-64-high EPERM x86_64 socket 0x100000001 1 0
unix-i386 EPERM i386 socket 1 1 0
unix-i386-socketcall EPERM i386 socketcall 1 w:1,1,0
inet-i386-socketcall EPERM i386 socketcall 1 w:2,1,0
unixpair-i386-socketcall EPERM i386 socketcall 8 w:1,1,0,i:0
unixpair-64 ok x86_64 socketpair 1 1 0 w:0
unixpair-i386 ok i386 socketpair 1 1 0 w:0,0
x32-socket EPERM x32 socket 2 1 0
x32-getpid EPERM x32 getpid
vsock-64 EPERM x86_64 socket 40 1 0
vsock-i386 EPERM i386 socket 40 1 0
vsock-i386-socketcall EPERM i386 socketcall 1 w:40,1,0
vsockpair-64 EPERM x86_64 socketpair 40 1 0 w:0
vsockpair-i386 EPERM i386 socketpair 40 1 0 w:0,0
vsock-64-high EPERM x86_64 socket 0x100000028 1 0
alg-64 EPERM x86_64 socket 38 5 0
alg-i386 EPERM i386 socket 38 5 0
algpair-64 EPERM x86_64 socketpair 38 5 0 w:0
packet-64 EPERM x86_64 socket 17 2 0
newfamily-64 EPERM x86_64 socket 46 1 0
newfamily-i386 EPERM i386 socket 46 1 0
inet-64 ok x86_64 socket 2 1 0
inet-i386 ok i386 socket 2 1 0
inet6-64 ok x86_64 socket 10 2 0
netlink-route-64 ok x86_64 socket 16 3 0
netlink-route-i386 ok i386 socket 16 3 0
netlink-uevent-64 EPERM x86_64 socket 16 2 15
netlink-uevent-i386 EPERM i386 socket 16 2 15
tiocsetd-64 EPERM x86_64 ioctl pty 0x5423 i:0
tiocsetd-64-high EPERM x86_64 ioctl pty 0x100005423 i:0
tiocsetd-i386 EPERM i386 ioctl pty 0x5423 i:0
tiocsti-64 EPERM x86_64 ioctl pty 0x5412 s:x
tiocsti-i386 EPERM i386 ioctl pty 0x5412 s:x
kdgkbtype-64 EPERM x86_64 ioctl pty 0x4B33 i:0
kdgkbtype-i386 EPERM i386 ioctl pty 0x4B33 i:0
getuid-arg1-64 ok x86_64 getuid 1
getuid-arg1-i386 ok i386 getuid 1
mount-64 EPERM x86_64 mount s:none s:/ 0 0x80000000 0
mount-i386 EPERM i386 mount s:none s:/ 0 0x80000000 0
umount2-64 EPERM x86_64 umount2 s:/ 0x80000000
umount2-i386 EPERM i386 umount2 s:/ 0x80000000
unshare-newuser-64 EPERM x86_64 unshare 0x10004000
unshare-newuser-i386 EPERM i386 unshare 0x10004000
open-tree-64 EPERM x86_64 open_tree -1 s:/ 0x80000000'

# run_cases: one "LABEL RESULT" line per case, in the current process tree.
script='while read -r label want abi call args; do
	printf "%s %s\n" "$label" "$(./try "$abi" "$call" $args 2>&1 | tr " " _)"
done'
outside=$(printf '%s\n' "$cases" | sh -c "$script")
# What the host's kernel answers outside the sandbox (the filter's refusal must not be it).
expect_out() { # LABEL WANT
	got=$(printf '%s\n' "$outside" | sed -n "s/^$1 //p")
	[ "$got" = "$2" ]
}
ia32=yes
expect_out inet-i386 ok || ia32=no
if [ "$ia32" = yes ]; then
	ok "control: i386 calls (int 0x80) work outside (IA32 emulation on)"
else
	skip "control: i386 calls work outside" "no IA32 emulation here"
fi
if [ "$ia32" = yes ]; then
	check "control: the i386 socket(AF_UNIX) makes a unix socket outside" expect_out unix-i386 ok
fi
# Without the filter a family the kernel lacks is EAFNOSUPPORT (AF_ALG here, 46 anywhere):
# EPERM inside is the filter's.
diag "outside: $(printf '%s\n' "$outside" | grep -E '^(vsock|alg|packet|newfamily)-64 ' | tr '\n' ' ')"
check "control: AF_VSOCK sockets are made outside" expect_out vsock-64 ok
check "control: TIOCSETD and TIOCSTI work on a pty outside" sh -c \
	"printf '%s\n' \"\$0\" | grep -qx 'tiocsetd-64 ok' && printf '%s\n' \"\$0\" | grep -qx 'tiocsti-64 ok'" "$outside"
# seven cases: four on x86_64, three on i386 (which fault outside where IA32 emulation is off)
unfiltered=7; [ "$ia32" = yes ] || unfiltered=4
check "control: the mount, umount2, unshare and open_tree cases are EINVAL unfiltered" sh -c \
	"[ \$(printf '%s\n' \"\$0\" | grep -cE '^(mount|umount2|unshare-newuser|open-tree)-.* EINVAL\$') = $unfiltered ]" "$outside"
ipv6=yes
expect_out inet6-64 ok || ipv6=no

for level in off writes on full; do
	user_policy "[sbxsh]
monitor = $level
[default]
network = none"
	inside=$(printf '%s\n' "$cases" | "$SBXSH" -c "$script" 2>&1)
	printf '%s\n' "$cases" | while read -r label want abi call args; do
		case $label in *-i386*) [ "$ia32" = yes ] || { echo "skip $label"; continue; } ;; esac
		case $label in inet6-*) [ "$ipv6" = yes ] || { echo "skip $label"; continue; } ;; esac
		echo "case $label $want"
	done > "$T/want"
	while read -r kind label want; do
		if [ "$kind" = skip ]; then
			skip "monitor $level: $label" "no IA32 emulation or IPv6 here"
			continue
		fi
		got=$(printf '%s\n' "$inside" | sed -n "s/^$label //p")
		is "monitor $level: $label is $want" "$got" "$want"
	done < "$T/want"
done

# unix_sockets = all grants AF_UNIX on every interface that can name the family.
user_policy '[default]
network = none
unix_sockets = all'
if [ "$ia32" = yes ]; then
	inside=$(printf '%s\n%s\n%s\n' 'unix-64 x x86_64 socket 1 1 0' 'unix-i386 x i386 socket 1 1 0' \
		'vsock-i386 x i386 socket 40 1 0' | "$SBXSH" -c "$script" 2>&1)
	is "unix_sockets = all: AF_UNIX works on x86_64 and i386, AF_VSOCK still refused" \
		"$(printf '%s\n' "$inside" | tr '\n' ' ')" "unix-64 ok unix-i386 ok vsock-i386 EPERM "
else
	skip "unix_sockets = all on x86_64 and i386" "no IA32 emulation here"
fi
# sbxsh doctor names the ABIs the filter covers and probes the kernel's.
doc=$("$SBXSH" doctor 2>&1)
like "doctor: the filter covers x86_64 and i386, x32 refused whole" "$doc" \
	'^ok +syscall ABIs +the filter covers x86_64 and i386 \(int 0x80\) alike; any other ABI \(x32\) is refused'
like "doctor: IA32 emulation $([ "$ia32" = yes ] && echo on || echo off), as the probe above found" "$doc" \
	"^note +ia32 emulation +$([ "$ia32" = yes ] && echo on || echo off):"
x32=$(printf '%s\n' "$outside" | sed -n 's/^x32-getpid //p')
like "doctor: the x32 ABI as the kernel answers it ($x32)" "$doc" \
	"^note +x32 ABI +$([ "$x32" = ENOSYS ] && echo off || echo on) in this kernel"
done_testing
