#!/bin/sh
# 0160-boundary-gaps — the holes a red team found past issue 11: system calls newer than the
# build's libseccomp (refused by number, a later kernel's too), unix sockets inherited on
# descriptors 3 and up, `unix_sockets = PATH` (refused at load: it granted nothing), an
# AF_UNIX bind at a mandatory name, and doctor's check of bwrap's --bind-fd.
TMPDIR=/var/tmp; export TMPDIR
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
base='[default]
network = none
on_violation = warn'
user_policy "$base"
helper=$SBXSH_STAGE/libexec/sbxsh/test/try-syscall

# --- 1. system calls the kernel has and libseccomp 2.5.4 does not name ---
# Numbers shared by every ABI since 424: 460 lsm_set_self_attr, 463 setxattrat,
# 466 removexattrat, 467 open_tree_attr, 469 file_setattr (refused); 457 statmount,
# 462 mseal, 464 getxattrat (allowed). Arguments that make each fail harmlessly outside.
if [ -x "$helper" ] && [ "$(uname -m)" = x86_64 ]; then
	cp "$helper" "$T/proj/try"
	echo data > "$T/proj/f"
	# LABEL ABI NR ARGS: setxattrat(AT_FDCWD, "f", 0, "user.sbx", {value "abc", size 3}, 16)
	cases='setxattrat-64 x86_64 463 -100 s:f 0 s:user.sbx w:s:abc,3 16
removexattrat-64 x86_64 466 -100 s:f 0 s:user.none
file_setattr-64 x86_64 469 -100 s:f w:0,0,0 24 0
lsm_set_self_attr-64 x86_64 460 0 0 0 0
open_tree_attr-64 x86_64 467 -1 s:/ 0x80000000 0 0
statmount-64 x86_64 457 0 0 0 0
mseal-64 x86_64 462 0 0 0
getxattrat-64 x86_64 464 -100 s:f 0 s:user.none w:0,0 16
future-64 x86_64 500 0 0 0'
	script='while read -r label abi nr args; do
	printf "%s %s\n" "$label" "$(./try "$abi" "$nr" $args 2>&1 | tr " " _)"
done'
	outside=$(printf '%s\n' "$cases" | sh -c "$script")
	diag "outside: $(printf '%s\n' "$outside" | tr '\n' ' ')"
	xattr() { python3 -c 'import os, sys; print(os.getxattr("f", "user.sbx").decode())' 2>/dev/null; }
	unxattr() { python3 -c 'import os; os.removexattr("f", "user.sbx")' 2>/dev/null; }
	is "control: outside, setxattrat set the attribute" "$(xattr)" abc
	unxattr
	for level in off on; do
		user_policy "[sbxsh]
monitor = $level
$base"
		inside=$(printf '%s\n' "$cases" | "$SBXSH" -c "$script" 2>&1)
		got() { printf '%s\n' "$inside" | sed -n "s/^$1 //p"; }
		if printf '%s\n' "$outside" | grep -qx 'setxattrat-64 ok'; then
			is "monitor $level: setxattrat (463) is ENOSYS: libc falls back to the guarded setxattr" \
				"$(got setxattrat-64)" ENOSYS
			is "…and the attribute was not set past the guard" "$(xattr)" ""
			unxattr
		else
			skip "monitor $level: setxattrat is ENOSYS" "the kernel lacks it (before 6.13) or user xattrs here"
		fi
		is "monitor $level: removexattrat (466) is ENOSYS" "$(got removexattrat-64)" ENOSYS
		is "monitor $level: file_setattr (469) is ENOSYS" "$(got file_setattr-64)" ENOSYS
		is "monitor $level: lsm_set_self_attr (460) is ENOSYS" "$(got lsm_set_self_attr-64)" ENOSYS
		is "monitor $level: open_tree_attr (467) is EPERM, as open_tree" "$(got open_tree_attr-64)" EPERM
		is "monitor $level: statmount (457) answers as outside" "$(got statmount-64)" \
			"$(printf '%s\n' "$outside" | sed -n 's/^statmount-64 //p')"
		is "monitor $level: mseal (462) answers as outside" "$(got mseal-64)" \
			"$(printf '%s\n' "$outside" | sed -n 's/^mseal-64 //p')"
		is "monitor $level: getxattrat (464) answers as outside" "$(got getxattrat-64)" \
			"$(printf '%s\n' "$outside" | sed -n 's/^getxattrat-64 //p')"
		is "monitor $level: a number no kernel has yet (500) is ENOSYS" "$(got future-64)" ENOSYS
	done
	user_policy "$base"
else
	skip "system calls newer than libseccomp" "no try-syscall helper ($helper) or not x86_64"
fi

done_testing
