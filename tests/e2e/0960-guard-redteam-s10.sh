#!/bin/sh
# 0960 the guard attacked again (session 10): project files a host tool runs on its own,
# with trust bound to the path or to nothing (vim's exrc reads .vimrc before .exrc; asdf and
# mise take a .tool-versions' `path:` version as a directory of programs, and mise renders it
# as a template whose exec() runs a command), what says which project file is trusted
# (Neovim's trust database, zsh-autoenv's), deny_write globs against names made later, and
# the kernel's other ways to a name (io_uring, handles, shared mappings, splice). Each attack
# with a control showing the same call lands where it is allowed.
. "$(dirname "$0")/lib.sh"

redteam_start redteam10 "the guard" # HOME and the project under /var/tmp

# --- vim's exrc: with `set exrc` vim sources ./.vimrc (then ./.exrc, already held), gvim
# ./.gvimrc, on every start in the directory; a file the user owns is not even 'secure'
mkdir -p "$P/a/b"
run "echo 'call writefile([\"pwned\"], \"$H/pwned-vim\")' > .vimrc
echo 'call writefile([\"pwned\"], \"$H/pwned-gvim\")' > .gvimrc
echo x > a/b/.vimrc; echo 'call writefile([\"ok\"], \"$H/ok-vim\")' > notes.vim"
absent "the project's .vimrc is not made (vim's exrc sources it)" "$P/.vimrc"
absent "… nor .gvimrc" "$P/.gvimrc"
absent "… nor a/b/.vimrc (any depth)" "$P/a/b/.vimrc"
present "… control: notes.vim is" "$P/notes.vim"
like "… the refusal names the rule" "$err" 'mandatory deny \(\.vimrc\)|\.vimrc'
if command -v vim > /dev/null 2>&1; then
	printf 'set exrc\n' > "$HOME/.vimrc"
	(cd "$P" && TERM=dumb timeout 20 vim -X -N -i NONE -c 'qa!' < /dev/null > /dev/null 2>&1)
	absent "… the host's next vim (exrc set) in the project runs nothing planted" "$H/pwned-vim"
	# control: vim with exrc does source a .vimrc the user put there
	cp "$P/notes.vim" "$P/.vimrc"
	(cd "$P" && TERM=dumb timeout 20 vim -X -N -i NONE -c 'qa!' < /dev/null > /dev/null 2>&1)
	present "… control: the host's vim sources a .vimrc the user made" "$H/ok-vim"
	rm -f "$P/.vimrc" "$HOME/.vimrc" "$H/ok-vim"
else
	skip "the host's vim runs nothing planted" "no vim here"
	skip "control: the host's vim sources a .vimrc" "no vim here"
fi

# --- Helix merges a workspace's .helix/languages.toml into its own, with no trust asked: a
# language server's command runs when a file of that language is opened
run 'mkdir -p .helix a/b/.helix; printf "[language-server.rust-analyzer]\ncommand = \"sh\"\n" > .helix/languages.toml
echo x > a/b/.helix/config.toml; mkdir -p helix; echo x > helix/languages.toml'
absent "the project's .helix/languages.toml is not made (Helix runs its language servers)" "$P/.helix/languages.toml"
absent "… nor a/b/.helix/config.toml" "$P/a/b/.helix/config.toml"
present "… control: helix/languages.toml is" "$P/helix/languages.toml"
rm -rf "$P/helix" "$P/.helix" "$P/a/b/.helix"

# --- asdf's and mise's .tool-versions: `python path:./x` puts ./x/bin first on PATH at the next
# prompt (mise activate) or runs ./x/bin/python as the host's `python` (asdf's shims); mise
# renders the file as a Tera template, whose exec(command=…) runs at every prompt (asdf has
# no trust at all; mise asks none for it, or only by path)
run 'printf "python path:./tools\n" > .tool-versions; printf "nodejs {{ exec(command=\"id\") }}\n" > a/b/.tool-versions
mv notes.vim x.tool-versions; printf "python 3.12\n" > tool-versions.txt'
absent "the project's .tool-versions is not made (asdf, mise: path: versions, templates)" "$P/.tool-versions"
absent "… nor a/b/.tool-versions" "$P/a/b/.tool-versions"
present "… control: tool-versions.txt is" "$P/tool-versions.txt"
# mise's early settings file picks other names for both (override_tool_versions_filenames,
# override_config_filenames): a planted one would make versions.txt a .tool-versions
run 'printf "override_tool_versions_filenames = [\"versions.txt\"]\n" > .miserc.toml; printf "x = 1\n" > a/b/.miserc.toml; printf "python path:./tools\n" > versions.txt'
absent "… nor .miserc.toml (which renames what mise reads as .tool-versions and mise.toml)" "$P/.miserc.toml"
absent "… nor a/b/.miserc.toml" "$P/a/b/.miserc.toml"
present "… control: versions.txt is made" "$P/versions.txt"
rm -f "$P/versions.txt"
echo 'python 3.12' > "$P/.tool-versions"
run 'echo "python path:./tools" >> .tool-versions; mv tool-versions.txt .tool-versions; rm .tool-versions'
is "… an existing one is not appended to, replaced or removed" "$(cat "$P/.tool-versions")" "python 3.12"
rm -f "$P/.tool-versions" "$P/tool-versions.txt" "$P/x.tool-versions"

# --- the trust databases: which project file (.nvim.lua, .lazy.lua, .rust-analyzer.json read
# through vim.secure.read; zsh-autoenv's .autoenv.zsh) runs is a hash in a file below the home
mkdir -p "$HOME/.local/state/nvim" "$HOME/.local/share"
user_policy '[default]
network = none
write += ~/.local'
run 'echo "0123 /x/.lazy.lua" > ~/.local/state/nvim/trust; echo "/x/.autoenv.zsh:0123" > ~/.local/share/autoenv_auth
echo log > ~/.local/state/nvim/log'
absent "write += ~/.local: Neovim's trust database is not written" "$HOME/.local/state/nvim/trust"
absent "… nor zsh-autoenv's authorisations" "$HOME/.local/share/autoenv_auth"
present "… control: Neovim's log is" "$HOME/.local/state/nvim/log"
run 'mv ~/.local/state/nvim ~/.local/state/nvim.x && mkdir -p ~/.local/state/nvim && echo x > ~/.local/state/nvim/trust'
absent "… nor made by renaming the directory away" "$HOME/.local/state/nvim/trust"
mkdir -p "$H/work/state"
user_policy "[default]
network = none
write += $H/work"
out=$(XDG_STATE_HOME=$H/work/state "$SBXSH" -c 'mkdir -p $XDG_STATE_HOME/nvim; echo x > $XDG_STATE_HOME/nvim/trust; echo ok > $XDG_STATE_HOME/nvim/log' 2> "$H/err")
err=$(cat "$H/err")
absent "… where \$XDG_STATE_HOME moves it, there" "$H/work/state/nvim/trust"
present "… control: a log beside it is written" "$H/work/state/nvim/log"
user_policy '[default]
network = none'

# --- lefthook's remotes: `remotes:` in a (protected) lefthook.yml clones configs and scripts into
# .git/info/lefthook-remotes/NAME, and the installed hook runs them from there at the next commit
mkdir -p "$P/.git/info"
run 'mkdir -p .git/info/lefthook-remotes/r; echo "pre-commit: {scripts: {x.sh: {runner: sh}}}" > .git/info/lefthook-remotes/r/hooks.yml
mkdir -p x/lefthook-remotes/r; echo "echo pwned" > x/lefthook-remotes/r/x.sh; mv .git/info .git/info.old; mv x .git/info
mkdir -p y/lefthook-remotes/r; mv y/lefthook-remotes .git/info/; echo "*.o" > .git/info/exclude'
absent ".git/info/lefthook-remotes (lefthook's cached remote configs, run at the next commit) is not made" "$P/.git/info/lefthook-remotes"
absent "… .git/info is not renamed away" "$P/.git/info.old"
absent "… nor replaced by a directory holding one, nor one moved in" "$P/.git/info/lefthook-remotes"
present "… control: .git/info/exclude is written" "$P/.git/info/exclude"
rm -rf "$P/x" "$P/y" "$P/.git/info/x"

# --- the kernel's other ways to a name or a file's content, past the calls the guard performs
echo orig > "$P/.git/config"
cp "$E2E/guard_kernel.py" "$H/kernel.py" # the sandbox's /tmp is its own
cp "$E2E/guard_libc.py" "$H/guard_libc.py" # (what it imports)
out=$(cd "$P" && "$SBXSH" -c "python3 $H/kernel.py .git/config .bashrc" 2> "$H/err")
err=$(cat "$H/err")
r() { printf '%s\n' "$out" | sed -n "s/^$1: //p"; }
like "io_uring_setup is refused (no IORING_OP_OPENAT/RENAMEAT/UNLINKAT reaches a name)" "$(r io_uring_setup)" '^(EPERM|ENOSYS)$'
like "… io_uring_enter and io_uring_register too" "$(r io_uring_enter) $(r io_uring_register)" '^(EPERM|ENOSYS) (EPERM|ENOSYS)$'
like "open_by_handle_at of a protected file's handle is refused" "$(r open_by_handle_at)" '^(EPERM|EACCES|ENOSYS)$'
is "a shared writable mapping of a read-only descriptor is refused" "$(r mmap_shared_write)" EACCES
is "… and so is mprotect(PROT_WRITE) of a shared read-only one" "$(r mprotect_shared_write)" EACCES
is "splice into a read-only descriptor: EBADF" "$(r splice_into_ro)" EBADF
is "copy_file_range into it: EBADF" "$(r copy_file_range_into_ro)" EBADF
is "sendfile into it: EBADF" "$(r sendfile_into_ro)" EBADF
like "FICLONE into it" "$(r ficlone_into_ro)" '^(EBADF|EPERM|EINVAL|EOPNOTSUPP|EXDEV)$'
like "fallocate of it" "$(r fallocate_ro)" '^(EBADF|EPERM)$'
is "pwritev2 to it: EBADF" "$(r pwritev2_ro)" EBADF
like "fanotify_init is refused" "$(r fanotify_init)" '^(EPERM|ENOSYS)$'
is "socket(AF_UNIX) is refused (no descriptor taken from another sandbox by default)" "$(r socket_unix)" EPERM
is "… the protected file is unchanged" "$(cat "$P/.git/config")" orig
absent "… and the missing protected name was not made" "$P/.bashrc"
is "… control: the probe ran to its end" "$(r missing_still_missing)" ok

# --- a deny_write glob against names made after the start: the guard matches it at each call
user_policy '[default]
network = none
deny_write += ./*.lock ./*/AGENTS.md'
run 'echo x > new.lock; mkdir sub; echo x > sub/AGENTS.md; echo x > tmp1; mv tmp1 b.lock
mkdir -p t/deep; echo x > t/deep/AGENTS.md; mv t/deep top; echo x > new.txt; mkdir -p u/v; mv u/v u/w'
absent "deny_write += ./*.lock: a new.lock made after the start is refused" "$P/new.lock"
absent "… and one renamed into place" "$P/b.lock"
absent "deny_write += ./*/AGENTS.md: sub/AGENTS.md made in a new directory is refused" "$P/sub/AGENTS.md"
absent "… and a directory holding one is not renamed to where it would match" "$P/top"
present "… control: the directory is made" "$P/sub"
present "… control: t/deep/AGENTS.md (no match there) is made" "$P/t/deep/AGENTS.md"
present "… control: new.txt is made" "$P/new.txt"
present "… control: a directory renamed where no match lies below" "$P/u/w"
like "… the refusal names the deny_write and its line" "$err" 'deny_write.*(sbxsh\.ini|AGENTS|lock)'
rm -rf "$P/sub" "$P/t" "$P/u" "$P/new.txt" "$P/tmp1" "$P/top"
user_policy '[default]
network = none'

done_testing
