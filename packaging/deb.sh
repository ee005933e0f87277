#!/bin/sh
# deb.sh ROOT VERSION ARCH OUT — turns a `make install DESTDIR=ROOT` tree into OUT, a .deb
# (conffile, compressed man pages, copyright, changelog, md5sums, shared-library Depends),
# and runs lintian on it when lintian is installed (its errors fail the build).
set -eu
root=$1 version=$2 arch=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
doc="$root/usr/share/doc/sbxsh"

install -d "$root/etc/sbxsh" "$doc" "$root/DEBIAN"
install -m 0644 "$here/debian/sbxsh.ini" "$root/etc/sbxsh/sbxsh.ini"
install -m 0644 "$here/debian/copyright" "$doc/copyright"
sed "s/@VERSION@/$version/" "$here/debian/changelog" | gzip -9n > "$doc/changelog.gz"
find "$root/usr/share/man" -type f ! -name '*.gz' -exec gzip -9n {} +
echo /etc/sbxsh/sbxsh.ini > "$root/DEBIAN/conffiles"
for f in "$root/usr/bin/sbxsh" "$root/usr/libexec/sbxsh/sbxsh-stage" "$root/usr/libexec/sbxsh/sbxsh-sessiond" \
	"$root"/lib/*/security/pam_sbxsh.so; do
	[ -f "$f" ] && strip --strip-unneeded --remove-section=.comment --remove-section=.note "$f"
done

# The dynamically linked files' libraries (the static sbxsh and sbxsh-stage need none).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/debian"; printf 'Source: sbxsh\n\nPackage: sbxsh\nArchitecture: any\n' > "$tmp/debian/control"
dyn=""
for f in $(find "$root" -type f \( -name '*.so' -o -name sbxsh-sessiond \)); do dyn="$dyn -e$f"; done
# shellcheck disable=SC2086
shlibs=$(cd "$tmp" && dpkg-shlibdeps -O $dyn 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@SHLIBS@/$shlibs/" \
	"$here/debian/control.in" > "$root/DEBIAN/control"
(cd "$root" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' -printf '%P\0' | sort -z |
	xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" > /dev/null
echo "built $out"
if command -v lintian > /dev/null; then
	lintian --fail-on error "$out"
	echo "lintian: no errors"
fi
