#!/bin/sh
# check-deb.sh DEB — installs DEB on this machine, runs the end-to-end suites against the
# installed /usr/bin/sbxsh (as root and as sbxsh-test, like tests/run.sh), and removes the
# package again (dpkg --purge). Root only; TESTS picks suites as in tests/run.sh;
# CHECK_DEB_USERS=root runs them as root only (make check: the staged install's run has been
# through them as sbxsh-test already).
# Ends with one line "N passed, N failed, N skipped".
set -u
deb=$1
[ "$(id -u)" = 0 ] || { echo "check-deb.sh: needs root (it installs $deb)" >&2; exit 2; }
if dpkg -s sbxsh > /dev/null 2>&1; then
	echo "check-deb.sh: a sbxsh package is already installed; remove it first (dpkg --purge sbxsh)" >&2
	exit 2
fi
multi=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
v=$(mktemp -d /tmp/sbxsh-check-deb.XXXXXX)
trap 'dpkg --purge sbxsh > /dev/null 2>&1; rm -rf "$v"' EXIT INT TERM
dpkg -i "$deb" > "$v.log" 2>&1 || { cat "$v.log"; rm -f "$v.log"; echo "not ok - dpkg -i $deb"; exit 1; }
rm -f "$v.log"
# The installed package seen through the staged layout the suites expect.
mkdir -p "$v/lib"
ln -s /usr/bin "$v/bin"; ln -s /usr/libexec "$v/libexec"; ln -s /etc "$v/etc"
ln -s /usr/share "$v/share"; ln -s "/lib/$multi/security" "$v/lib/security"
cp -R tests/e2e tests/policy "$v/"
chmod -R a+rX "$v"
pass=0 fail=0 skip=0
if man -w sbxsh > /dev/null 2>&1 && man -w 8 pam_sbxsh > /dev/null 2>&1; then
	echo "[deb package] ok - man sbxsh and man pam_sbxsh after installing the package"; pass=$((pass + 1))
else
	echo "[deb package] not ok - man sbxsh and man pam_sbxsh after installing the package"; fail=$((fail + 1))
fi
count() {
	p=$(grep -c '^ok ' "$1"); s=$(grep -c '^ok .*# SKIP' "$1"); f=$(grep -c '^not ok' "$1")
	[ "$2" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p - s)); skip=$((skip + s)); fail=$((fail + f))
}
uid=$(id -u sbxsh-test 2>/dev/null) || useradd --system --create-home --shell /bin/sh sbxsh-test
uid=$(id -u sbxsh-test)
for t in tests/e2e/[0-9]*.sh; do
	base=${t##*/}
	if [ -n "${TESTS:-}" ]; then
		hit=no; for pat in $TESTS; do case e2e/$base in $pat) hit=yes ;; esac; done
		[ $hit = yes ] || continue
	fi
	SBXSH_STAGE=$v SBXSH_BIN=/usr/bin/sbxsh SBXSH_SYSCONF=/etc/sbxsh \
		sh "$v/e2e/$base" > "$v/out" 2>&1 < /dev/null; rc=$?
	sed "s|^|[deb e2e/$base] |" "$v/out"; count "$v/out" $rc
	[ "${CHECK_DEB_USERS:-}" = root ] && continue
	setpriv --reuid="$uid" --regid="$(id -g sbxsh-test)" --init-groups env -i \
		PATH=/usr/local/bin:/usr/bin:/bin HOME="$(getent passwd sbxsh-test | cut -d: -f6)" \
		USER=sbxsh-test LOGNAME=sbxsh-test TMPDIR=/tmp SBXSH_STAGE="$v" \
		SBXSH_BIN=/usr/bin/sbxsh SBXSH_SYSCONF=/etc/sbxsh \
		sh "$v/e2e/$base" > "$v/out" 2>&1 < /dev/null; rc=$?
	sed "s|^|[deb e2e/$base@sbxsh-test] |" "$v/out"; count "$v/out" $rc
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
