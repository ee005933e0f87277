#!/bin/sh
# 0620-caches — the host's own package caches cannot be poisoned by a sandboxed command
# (~/.cache/pip, ~/.npm, ~/.cargo/registry, ~/go/pkg/mod: a tampered wheel or an extracted
# crate there runs at the host's next build). The default policy leaves them read-only in
# every sandbox (readable: a warm cache still serves reads); the tools still work in the
# sandbox: pip disables a cache it cannot write, and npm (which must write its cache) is
# pointed at a cache in the command's private /tmp by env_set (sbxsh.ini(5) "Package caches").
TMPDIR=/var/tmp; export TMPDIR # HOME and the project outside /tmp (sbxsh hides the host's /tmp)
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
user_policy '[default]
network = none'
sb() { "$SBXSH" "$@"; }

for c in .cache/pip/wheels/ab/demo-1.0-py3-none-any.whl .npm/_cacache/index-v5/ab/cd \
	.cargo/registry/src/index.crates.io-0/demo-1.0/build.rs \
	.cargo/registry/cache/index.crates.io-0/demo-1.0.crate go/pkg/mod/example.com/demo@v1.0/demo.go \
	go/pkg/mod/cache/download/example.com/demo/@v/v1.0.zip; do
	mkdir -p "$HOME/${c%/*}"
	echo host > "$HOME/$c"
	out=$(sb -c "echo poisoned > ~/$c" 2>&1); rc=$?
	is "~/$c: overwriting it in the sandbox fails" "$rc" 1
	like "…and is reported" "$out" "write ~/$c"
	sb -c "echo planted > ~/${c%/*}/planted; rm -f ~/$c; mv ~/$c ~/$c.old; ln -sf /etc/passwd ~/${c%/*}/link" > /dev/null 2>&1
	is "…a host-side read sees the host's file, unchanged" "$(cat "$HOME/$c")" host
	is "…and nothing planted beside it (a file, a rename, a link)" "$(ls -A "$HOME/${c%/*}")" "${c##*/}"
	is "…while the sandbox reads it (a warm cache still serves)" "$(sb -c "cat ~/$c" 2>&1)" host
done

# pip: with its cache read-only, a local wheel installs (pip disables the cache, no violation)
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3 # (not a version manager's shim, which writes its own state)
if "$PY" -m pip --version > /dev/null 2>&1; then
	mkdir -p "$T/wheels"
	"$PY" - "$T/wheels" << 'EOF'
import base64, hashlib, sys, zipfile
name, ver = "sbxshdemo", "1.0"
files = {name + "/__init__.py": "VALUE = 'from the wheel'\n",
         "%s-%s.dist-info/METADATA" % (name, ver): "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, ver),
         "%s-%s.dist-info/WHEEL" % (name, ver): "Wheel-Version: 1.0\nGenerator: e2e\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = []
with zipfile.ZipFile("%s/%s-%s-py3-none-any.whl" % (sys.argv[1], name, ver), "w") as z:
    for p, c in files.items():
        z.writestr(p, c)
        d = base64.urlsafe_b64encode(hashlib.sha256(c.encode()).digest()).rstrip(b"=").decode()
        rec.append("%s,sha256=%s,%d" % (p, d, len(c)))
    rec.append("%s-%s.dist-info/RECORD,," % (name, ver))
    z.writestr("%s-%s.dist-info/RECORD" % (name, ver), "\n".join(rec) + "\n")
EOF
	# (PATH without a rustup proxy: pip's user agent runs rustc --version, which makes ~/.rustup)
	out=$(PATH=/usr/bin:/bin sb -c "$PY -m pip install --no-index --find-links '$T/wheels' --target ./site sbxshdemo && PYTHONPATH=./site $PY -c 'import sbxshdemo; print(sbxshdemo.VALUE)'" 2>&1); rc=$?
	is "pip installs a local wheel in the sandbox with ~/.cache/pip read-only" "$rc" 0
	like "…the package works" "$out" "^from the wheel$"
	unlike "…no violation" "$out" "violation"
	is "…the host's pip cache is unchanged" "$(ls -A "$HOME/.cache/pip")" wheels
else
	for d in "pip installs a local wheel" "…the package works" "…no violation" "…the host's cache is unchanged"; do
		skip "$d" "python3 -m pip is not installed"
	done
fi

# npm: it must write its cache; env_set points it at the private /tmp, the host's stays as it was
if command -v npm > /dev/null 2>&1; then
	mkdir -p "$T/pkg" && printf '{"name":"sbxsh-demo","version":"1.0.0","main":"index.js"}\n' > "$T/pkg/package.json"
	echo 'module.exports = "from the tarball";' > "$T/pkg/index.js"
	(cd "$T" && HOME="$T/packer" npm pack ./pkg > /dev/null 2>&1)
	printf '{"name":"app","version":"1.0.0"}\n' > package.json
	user_policy '[default]
network = none
env_set += npm_config_cache=/tmp/npm-cache'
	out=$(sb -c "npm install --no-audit --no-fund '$T/sbxsh-demo-1.0.0.tgz' && node -p 'require(\"sbxsh-demo\")'" 2>&1); rc=$?
	is "npm install of a local tarball works with npm_config_cache in the private /tmp" "$rc" 0
	like "…the package works" "$out" "^from the tarball$"
	is "…the host's npm cache is unchanged" "$(find "$HOME/.npm" -type f | wc -l)" 1
	rm -rf node_modules package.json package-lock.json
else
	for d in "npm install of a local tarball works" "…the package works" "…the host's npm cache"; do
		skip "$d" "npm is not installed"
	done
fi
done_testing
