#!/bin/sh
# 0420 the guard's per-thread cache (platform/linux/guard.h, docs/monitor.md "The guard"): each
# thread's cwd and umask are kept between its calls, so every event that changes them must be
# seen — chdir and fchdir (relative creates land in the new cwd), umask (the mode follows it),
# from the same thread or from another thread sharing the process's context — and a parent
# renamed by another process between two creates is seen by the second; its last directory
# descriptor is kept too, and a create from that number after it names another directory lands
# in that one. At every level: off loads a filter of its own, writes and on the monitor's.
. "$(dirname "$0")/lib.sh"

var_home gcache # HOME and the project under /var/tmp
P=$H/proj
mkdir -p "$HOME/.config/sbxsh" "$P/.git"
chmod 700 "$HOME"
cd "$P" || exit 1
PY=/usr/bin/python3

pol() { user_policy "[sbxsh]
monitor = $1
on_violation = warn
[default]
network = none"; }
# run CMD: runs CMD under sbxsh in the project; $rc, $out, $err.
run() { out=$("$SBXSH" -c "$1" 2> "$H/err"); rc=$?; err=$(cat "$H/err"); }
mode() { stat -c %a "$1" 2> /dev/null || echo missing; }

pol off
need_sandbox "the guard's cache"
if [ ! -x "$PY" ]; then
	skip "the guard's cache" "no $PY"
	done_testing
	exit
fi

# The command's side, in Python (one process, its calls in a known order).
cat > "$P/cache.py" << 'EOF'
import os, sys, threading

def create(name, mode=0o666):
    os.close(os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode))

top = os.getcwd()

def where(name):  # which of the project's a and b holds name
    return "a" if os.path.exists(f"{top}/a/{name}") else "b" if os.path.exists(f"{top}/b/{name}") else "-"

t = sys.argv[1]
if t == "chdir":  # the same thread alternates between two directories
    os.mkdir("a"); os.mkdir("b")
    fa = os.open("a", os.O_RDONLY | os.O_DIRECTORY)
    out = []
    for i in range(6):
        if i % 3 == 2:
            os.fchdir(fa)
        else:
            os.chdir("../b" if i % 3 == 1 else ("a" if i == 0 else "../a"))
        create(f"f{i}")
        open(f"g{i}", "w").close()  # O_CREAT without O_EXCL
    os.chdir("..")
    print(" ".join(where(f"f{i}") + where(f"g{i}") for i in range(6)))
elif t == "umask":  # the mode follows each umask call
    out = []
    for i, u in enumerate((0o022, 0o077, 0o000, 0o027)):
        os.umask(u)
        create(f"m{i}")
        out.append(oct(os.stat(f"m{i}").st_mode & 0o777)[2:])
    print(" ".join(out))
elif t == "threads":  # another thread of the process changes the cwd and the umask
    os.mkdir("a"); os.mkdir("b")
    go, done = threading.Event(), threading.Event()
    res = []
    def worker():
        create("w0")  # cached: the project, umask 022
        go.wait()
        create("w1", 0o666)
        res.append(where("w1") + oct(os.stat("w1").st_mode & 0o777)[2:])
        done.set()
    os.umask(0o022)
    th = threading.Thread(target=worker)
    th.start()
    while not os.path.exists("w0"):
        pass
    os.chdir("b")
    os.umask(0o077)
    go.set()
    done.wait()
    th.join()
    os.chdir("..")
    print(res[0], where("w0"))
elif t == "race":  # creates in one thread while another changes the cwd, many times
    os.mkdir("a"); os.mkdir("b")
    d = (top + "/a", top + "/b")
    st = {"gen": 0, "acked": 0, "stop": False, "bad": 0, "checked": 0}
    cv = threading.Condition()
    def spam():
        n = {}
        while not st["stop"]:
            g = st["gen"]
            fd = os.open("k", os.O_CREAT | os.O_WRONLY)
            ino = os.fstat(fd).st_ino
            os.close(fd)
            if g and n.get(g, 0) < 2:  # began after chdir g returned, ends before g + 1 starts
                n[g] = n.get(g, 0) + 1
                st["checked"] += 1
                try:
                    if os.stat(d[g % 2] + "/k").st_ino != ino:
                        st["bad"] += 1
                except OSError:
                    st["bad"] += 1
                if n[g] == 2:
                    with cv:
                        st["acked"] = g
                        cv.notify()
    th = threading.Thread(target=spam)
    th.start()
    for i in range(1, 301):
        os.chdir(d[i % 2])
        st["gen"] = i
        with cv:
            while st["acked"] < i and th.is_alive():
                cv.wait(1)
    st["stop"] = True
    th.join()
    print(st["bad"], st["checked"])
elif t == "unlinked":  # a directory's spelling kept, then its symlink replaced or it removed
    os.mkdir("a"); os.mkdir("b"); os.symlink("a", "L")
    create("L/x1")  # L's spelling kept
    try:
        os.unlink("L/none")  # fails: nothing changed, the spelling stays kept
    except OSError:
        pass
    create("L/x2")
    os.unlink("L"); os.symlink("b", "L")
    create("L/x3")
    os.mkdir("e")
    create("e/y1")
    os.unlink("e/y1"); os.rmdir("e"); os.mkdir("e")
    create("e/y2")
    print(where("x1") + where("x2") + where("x3"), os.listdir("e"))
elif t == "renamed":  # another process renames a parent between two creates
    os.makedirs("d/sub")
    os.chdir("d/sub")
    create("x1")           # the cwd kept
    create("../y1")        # d by a relative spelling
    create(top + "/d/z1")  # and by an absolute one
    if os.fork() == 0:
        os.rename(top + "/d", top + "/e")
        os._exit(0)
    os.wait()
    res = []
    for n in ("x2", "../y2", top + "/d/z2"):
        try:
            create(n)
            res.append("made")
        except OSError as e:
            res.append(os.strerror(e.errno))
    print(" ".join(res))
elif t == "dirfd":  # creates from a directory descriptor whose number names another one since
    os.mkdir("a"); os.mkdir("b"); os.mkdir("e")
    def made(name, fd):
        try:
            os.close(os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666, dir_fd=fd))
        except OSError as e:
            return os.strerror(e.errno).replace(" ", "_")
        return "c" if os.path.exists(f"{top}/c/{name}") else where(name)
    out = []
    fa = os.open("a", os.O_RDONLY | os.O_DIRECTORY)
    fb = os.open("b", os.O_RDONLY | os.O_DIRECTORY)
    out.append(made("x1", fa))          # a, and kept
    os.dup2(fb, fa)
    out.append(made("x2", fa))          # the number names b now
    f2 = os.open("a", os.O_PATH | os.O_DIRECTORY)
    os.dup2(f2, fa); os.close(f2)       # a again, through another open (O_PATH)
    out.append(made("x3", fa))
    os.rename("a", "c")                 # the descriptor follows its directory, as the kernel's
    out.append(made("x4", fa))
    fe = os.open("e", os.O_RDONLY | os.O_DIRECTORY)
    made("y1", fe)
    os.unlink("e/y1"); os.rmdir("e"); os.mkdir("e")
    f2 = os.open("e", os.O_RDONLY | os.O_DIRECTORY)
    os.dup2(f2, fe); os.close(f2)       # the new e at the same number
    made("y2", fe)
    out.append(",".join(os.listdir("e")))
    f2 = os.open("x0", os.O_CREAT | os.O_WRONLY)
    os.dup2(f2, fa); os.close(f2)       # a file at the number
    out.append(made("x5", fa))
    os.dup2(fb, fa)
    pid = os.fork()
    if pid == 0:                        # another process, the same number: its own directory
        f2 = os.open("c", os.O_RDONLY | os.O_DIRECTORY)
        os.dup2(f2, fa)
        made("x6", fa)
        os._exit(0)
    os.waitpid(pid, 0)
    made("x7", fa)
    out.append(("c" if os.path.exists("c/x6") else "-") + where("x7"))
    print(" ".join(out))
EOF

for lvl in off writes on; do
	pol "$lvl"
	rm -rf "$P/a" "$P/b" "$P/d" "$P/e" "$P"/m[0-9] "$P"/w[0-9]
	run "$PY cache.py chdir"
	is "$lvl: chdir and fchdir, then relative creates (O_EXCL and not): each lands in the new cwd" \
		"$rc:$out" "0:aa bb aa aa bb aa"
	run "$PY cache.py umask"
	is "$lvl: umask, then a create: the mode follows every change" "$rc:$out" "0:644 600 666 640"
	rm -rf "$P/a" "$P/b"
	run "$PY cache.py threads"
	is "$lvl: chdir and umask in one thread, then a create in another: the new cwd and mode" \
		"$rc:$out" "0:b600 -"
	rm -rf "$P/a" "$P/b" "$P"/w[0-9]
	run "$PY cache.py unlinked"
	is "$lvl: a symlinked parent replaced, a directory removed and made again: the next create sees it" \
		"$rc:$out" "0:aab ['y2']"
	rm -rf "$P/a" "$P/b" "$P/e" "$P/L"
	run "$PY cache.py race"
	is "$lvl: 300 times chdir in one thread while another creates: each create after a chdir returned lands in the new cwd" \
		"$rc:$out" "0:0 600"
	rm -rf "$P/a" "$P/b"
	run "$PY cache.py renamed"
	is "$lvl: a parent renamed by another process: relative to the cwd the creates follow it; by the old name they fail" \
		"$rc:$out" "0:made made No such file or directory"
	if [ -f "$P/e/sub/x2" ] && [ -f "$P/e/y2" ] && [ -f "$P/e/z1" ] && [ ! -e "$P/d" ]; then
		ok "$lvl: … the files are where the kernel would have put them"
	else
		not_ok "$lvl: … the files are where the kernel would have put them"
		diag "$(cd "$P" && find d e 2>&1 | tr '\n' ' ')"
	fi
	rm -rf "$P/e"
	run "$PY cache.py dirfd"
	is "$lvl: creates from a directory descriptor whose number names another directory since (dup2, a new open, the directory renamed, removed and made again, a file there, another process): each lands where the kernel puts it" \
		"$rc:$out" "0:a b a c y2 Not_a_directory cb"
	rm -rf "$P/a" "$P/b" "$P/c" "$P/e" "$P/x0"
	run 'mkdir a b; cd a; echo 1 > s1; cd ../b; echo 2 > s2; umask 077; echo 3 > s3; cd ..; echo 4 > s4'
	is "$lvl: the shell's cd and umask, then redirections" \
		"$rc:$(ls a b | tr '\n' ' ')$(mode b/s3) $(mode s4)" "0:a: s1  b: s2 s3 600 600"
	rm -rf "$P/a" "$P/b" "$P/s4"
	run 'mkdir a && cd a && '"$PY"' -c "open(\"c1\", \"w\").close()"; cd .. && mkdir b && cd b && '"$PY"' -c "open(\"c2\", \"w\").close()"'
	is "$lvl: cd, then a child's create (a new process each time)" \
		"$rc:$(ls "$P/a" "$P/b" 2> /dev/null | tr '\n' ' ')" "0:$P/a: c1  $P/b: c2 "
	rm -rf "$P/a" "$P/b"
	# The directory cache (8 slots, replaced in turn): a rename whose source directory the
	# cache lends and whose target's is new, made when the source's slot is the next one
	# replaced (8 other directories kept since). The target's keep closed the source's
	# descriptor (EBADF, npm's cache moves failed so), whose number the next open could take.
	cat > "$P/evict.py" << 'EOF'
import os
bad = []
for r in range(12):
    for i in range(8):
        os.mkdir("D%d_%d" % (r, i))
    os.mkdir("E%d" % r)
    for i in range(8):
        open("D%d_%d/f" % (r, i), "w").close()
    try:
        os.rename("D%d_0/f" % r, "E%d/f" % r)
    except OSError as e:
        bad.append(e.strerror)
print(len(bad), sorted(set(bad)), sum(os.path.exists("E%d/f" % r) for r in range(12)))
EOF
	run "$PY evict.py"
	is "$lvl: 12 renames out of a directory the cache lends, into one it does not hold: each lands" \
		"$rc:$out" "0:0 [] 12"
	rm -rf "$P"/D[0-9]* "$P"/E[0-9]* "$P/evict.py"
done

done_testing
