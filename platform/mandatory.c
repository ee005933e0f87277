/* mandatory — the mandatory write denies by name (policy.md "Mandatory write denies").
 *
 * Rules this file keeps:
 * - One list: the mounts' probes, the judge and the guard all read it from here.
 * - Pure: strings in, a verdict out. The caller resolves; a name here is the real final name.
 * - A name rule holds at any depth below the write grant (or the home directory) the path is
 *   in; the git rules hold wherever a `.git` component is, and below the git directories
 *   found at start; the home rule and its fixed paths hold below the home directory.
 */
#include "platform/mandatory.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define COMP_MAX 512

/* Anywhere in a write grant (a directory name protects everything below it). Written once:
 * names[] holds them, and the mounts' probes (probe_names) them and the two-level ones. */
#define ANY_NAMES(X)                                                                               \
	/* shells' start-up files */                                                               \
	X(".bashrc")                                                                               \
	X(".bash_profile")                                                                         \
	X(".bash_login")                                                                           \
	X(".bash_logout")                                                                          \
	X(".bash_aliases")                                                                         \
	X(".profile")                                                                              \
	X(".zshrc")                                                                                \
	X(".zprofile")                                                                             \
	X(".zshenv")                                                                               \
	X(".zlogin")                                                                               \
	X(".zlogout")                                                                              \
	X(".cshrc")                                                                                \
	X(".tcshrc")                                                                               \
	X(".login")                                                                                \
	X(".kshrc")                                                                                \
	X(".mkshrc")                                                                               \
	/* tcsh's at logout, its directory stack (sourced: savedirs), yash's, xonsh's */           \
	X(".logout")                                                                               \
	X(".cshdirs")                                                                              \
	X(".yashrc")                                                                               \
	X(".yash_profile")                                                                         \
	X(".xonshrc")                                                                              \
	X(".inputrc")                                                                              \
	/* version control: configs that run commands, a submodule list */                         \
	X(".gitconfig")                                                                            \
	X(".gitmodules")                                                                           \
	X(".lfsconfig")                                                                            \
	X(".hgrc")                                                                                 \
	X(".hgsub")                                                                                \
	/* Fossil's checkout database (it names the repository whose settings run commands:        \
	 * ssh-command, editor, hooks) and SQLite's journals (a hot one is played back into it) */ \
	X(".fslckout")                                                                             \
	X(".fslckout-journal")                                                                     \
	X(".fslckout-wal")                                                                         \
	/* what git's hook managers run at the host's next commit */                               \
	X(".pre-commit-config.yaml")                                                               \
	X(".husky")                                                                                \
	X(".lefthook")                                                                             \
	X(".lefthook-local")                                                                       \
	/* mise's config directory (its [hooks] run at the next cd) */                             \
	X(".mise")                                                                                 \
	/* asdf's and mise's versions: `path:DIR` puts DIR/bin's programs first at the next        \
	 * prompt (asdf's shims run them), and mise renders the file as a template (exec()) */     \
	X(".tool-versions")                                                                        \
	/* run by the user's shell at the next cd: direnv (.env: file_names) */                    \
	X(".envrc")                                                                                \
	X(".direnvrc")                                                                             \
	/* Shadowenv: .shadowenv.d/NAME.lisp run at every prompt (a dir trusted by path) */        \
	X(".shadowenv.d")                                                                          \
	/* editors' and agents' settings (tasks, MCP servers, hooks), dev containers */            \
	X(".ripgreprc")                                                                            \
	X(".vscode")                                                                               \
	X(".idea")                                                                                 \
	X(".zed")                                                                                  \
	/* Helix merges .helix/languages.toml (language servers' commands) with no trust */        \
	X(".helix")                                                                                \
	X(".exrc")                                                                                 \
	/* vim's exrc reads .vimrc first (.exrc only without one), gvim .gvimrc: no trust */       \
	X(".vimrc")                                                                                \
	X(".gvimrc")                                                                               \
	X(".nvimrc")                                                                               \
	X(".nvim.lua")                                                                             \
	X(".dir-locals.el")                                                                        \
	X(".dir-locals-2.el")                                                                      \
	/* REPLs and pdb run a file of the current directory at start, with no trust, before any   \
	 * of the project's code: pdb ./.pdbrc, irb the first of ./.irbrc ./irb.rc ./_irbrc (when  \
	 * the home has none), Pry ./.pryrc, R ./.Rprofile (./.Renviron: R_PROFILE_USER, R_LIBS),  \
	 * GHCi ./.ghci, Octave ./.octaverc, perl -d ./.perldb */                                  \
	X(".pdbrc")                                                                                \
	X(".perldb")                                                                               \
	X(".irbrc")                                                                                \
	X(".pryrc")                                                                                \
	X(".Rprofile")                                                                             \
	X(".Renviron")                                                                             \
	X(".ghci")                                                                                 \
	X(".octaverc")                                                                             \
	/* IEx runs ./.iex.exs before ~/.iex.exs, the OCaml toplevel and utop ./.ocamlinit */      \
	X(".iex.exs")                                                                              \
	X(".ocamlinit")                                                                            \
	X(".devcontainer")                                                                         \
	X(".devcontainer.json")                                                                    \
	X(".mcp.json")                                                                             \
	X(".cursor")                                                                               \
	X(".codex")                                                                                \
	X(".gemini")                                                                               \
	X(".agents")                                                                               \
	/* agents' project configs that name commands: aider's (lint-cmd, test-cmd,                \
	 * notifications-command, load: /run lines at its start), Crush's (MCP and LSP servers) */ \
	X(".aider.conf.yml")                                                                       \
	X(".crush.json")
#define STR(s) s,
static const char *const names[] = {ANY_NAMES(STR)};

/* As names, but only as the last component and never against mkdir: .env is read as a file
 * (direnv's load_dotenv, oh-my-zsh's dotenv, autoenv); a virtualenv is often called .env. */
static const char *const file_names[] = {".env"};

/* As file_names, without the dot every other name has: irb's rc files after ./.irbrc;
 * rustup's toolchain files (`[toolchain] path = DIR` runs DIR/bin/rustc, cargo… for every
 * rustup proxy started there or below: a prompt's `rustc --version` at the next prompt). */
static const char *const bare_file_names[] = {
    "irb.rc", "_irbrc", "rust-toolchain", "rust-toolchain.toml",
    /* agents' project configs: opencode's and Crush's MCP servers, formatters and language
     * servers are commands, started at the host's next `opencode` or `crush` there */
    "opencode.json", "opencode.jsonc", "crush.json"};

/* As names, without the dot: Fossil's other name for its checkout database (.fslckout). */
static const char *const bare_names[] = {"_FOSSIL_", "_FOSSIL_-journal", "_FOSSIL_-wal"};

/* As file_names, by pattern (fnmatch), any first character: mise's config, whose [hooks] and
 * [env] _.source run at the host's next cd into a directory trusted once, by path, not by
 * content (.rtx: its former name), and its early settings (.miserc.toml: which file names
 * mise reads as its config and as .tool-versions); lefthook's, what its installed hooks run
 * at the next commit. Below .config (mise, lefthook) and mise/ (config*.toml) too: tool_config().
 */
static const char *const file_globs[] = {"mise.toml",	     "mise.*.toml",
					 ".mise.toml",	     ".mise.*.toml",
					 ".rtx.toml",	     ".rtx.*.toml",
					 "lefthook.[jty]*",  "lefthook-local.[jty]*",
					 ".lefthook.[jty]*", ".lefthook-local.[jty]*",
					 ".miserc.toml"};

/* For the mounts' probes: the names above, the two-level ones, the git and Mercurial ones. */
static const char *const probe_names[] = {
    ANY_NAMES(STR) /* then the two-level ones */
    "_FOSSIL_",
    ".claude/commands",
    ".claude/agents",
    ".claude/hooks",
    ".claude/skills",
    ".claude/settings*.json",
    ".git/hooks",
    ".git/config",
    ".git/config.worktree",
    ".git/commondir",
    ".hg/hgrc",
    ".hg/hgrc-not-shared",
    ".hg/sharedpath",
};

/* Below the home directory, read-only even when granted (and, for the mounts, probed); C:
 * the ones below ~/.config, which $XDG_CONFIG_HOME moves (mandatory_xdg_config); D: below
 * ~/.local/share, which $XDG_DATA_HOME moves (mandatory_xdg_data). Each is what a host tool
 * loads and runs by itself: bash-completion's, fish's vendor and generated directories,
 * Neovim's site directory (in 'runtimepath'), D-Bus session services, desktop entries, the
 * desktop session's start-up scripts and extensions (KDE's env/, GNOME Shell's, plasmoids);
 * or what says which project file runs at cd: direnv's allow list (share/direnv), mise's
 * trusted configs (state/mise). */
#define CONFIG_FIXED(X)                                                                            \
	X("sbxsh")                                                                                 \
	X("git")                                                                                   \
	X("systemd")                                                                               \
	X("autostart")                                                                             \
	X("environment.d")                                                                         \
	/* run at every login too: systemd-tmpfiles --user (w lines write any file, L make links), \
	 * Quadlet's units (ExecStartPre=), PipeWire's context.exec, WirePlumber's Lua config */   \
	X("user-tmpfiles.d")                                                                       \
	X("containers/systemd")                                                                    \
	X("pipewire")                                                                              \
	X("wireplumber")                                                                           \
	X("plasma-workspace")                                                                      \
	X("autostart-scripts")                                                                     \
	X("fish")                                                                                  \
	X("hg")                                                                                    \
	X("direnv")                                                                                \
	X("nvim")                                                                                  \
	X("bash_completion")                                                                       \
	X("mise")                                                                                  \
	/* shells, prompts, terminals and multiplexers: read at their next start */                \
	X("zsh")                                                                                   \
	X("nushell")                                                                               \
	X("elvish")                                                                                \
	/* the JetBrains IDEs' settings (idea.vmoptions: -javaagent runs at the IDE's start) */    \
	X("JetBrains")                                                                             \
	X("oils")                                                                                  \
	X("xonsh")                                                                                 \
	X("powershell")                                                                            \
	X("starship.toml")                                                                         \
	X("tmux")                                                                                  \
	X("kitty")                                                                                 \
	X("alacritty")                                                                             \
	X("wezterm")                                                                               \
	X("zellij")                                                                                \
	X("foot")                                                                                  \
	/* editors (a vimrc, init.el, tasks.json: run on open) and gdb (its gdbinit) */            \
	X("vim")                                                                                   \
	X("emacs")                                                                                 \
	X("doom")                                                                                  \
	X("helix")                                                                                 \
	X("zed")                                                                                   \
	/* opencode's global plugins (JavaScript loaded at its start), agents, commands */         \
	X("opencode")                                                                              \
	X("Code")                                                                                  \
	X("Code - OSS")                                                                            \
	X("VSCodium")                                                                              \
	X("Cursor")                                                                                \
	X("Windsurf")                                                                              \
	X("gdb")                                                                                   \
	/* where pip and uv fetch from (index-url, find-links), what jj runs (ui.pager) */         \
	X("pip")                                                                                   \
	X("uv")                                                                                    \
	X("jj")                                                                                    \
	/* the desktop session: MIME handlers, window managers' configs (exec at login) */         \
	X("mimeapps.list")                                                                         \
	X("i3")                                                                                    \
	X("sway")                                                                                  \
	X("hypr")                                                                                  \
	X("openbox")                                                                               \
	X("labwc")                                                                                 \
	X("bspwm")                                                                                 \
	X("awesome")                                                                               \
	X("qtile")                                                                                 \
	X("niri")                                                                                  \
	X("river")                                                                                 \
	X("xmonad")                                                                                \
	X("herbstluftwm")                                                                          \
	X("lxsession")                                                                             \
	/* where the desktop and the other user directories are (XDG_DESKTOP_DIR) */               \
	X("user-dirs.dirs")                                                                        \
	/* curl's $XDG_CONFIG_HOME/.curlrc (url + output: the next curl writes a file it names),   \
	 * the OCaml toplevel's init.ml */                                                         \
	X(".curlrc")                                                                               \
	X("ocaml")                                                                                 \
	/* read and run at a program's start: less's lesskey (its #env section sets LESSOPEN, run  \
	 * for every file less shows: git's pager, man), bat's --pager, file managers' and         \
	 * editors' code (ranger's commands.py, lf's lfrc, yazi's init.lua, micro's and            \
	 * Kakoune's, Sublime Text's plugins, ptpython's config.py), mpv's scripts, mail and feed  \
	 * readers' commands (neomutt's `source "cmd|"`, newsboat's exec: feeds, aerc's            \
	 * *-cred-cmd), qutebrowser's config.py, terminals' start commands (ghostty, terminator),  \
	 * bars' and notifiers' exec lines (polybar, waybar, eww, dunst, sxhkd's hotkeys), the     \
	 * desktop's key bindings and actions (dconf's database: custom keybindings, a terminal    \
	 * profile's command; KDE's shortcuts, Thunar's custom actions, xfce4), espanso's and      \
	 * AutoKey's triggers */                                                                   \
	X("lesskey")                                                                               \
	X("bat")                                                                                   \
	X("ranger")                                                                                \
	X("lf")                                                                                    \
	X("yazi")                                                                                  \
	X("micro")                                                                                 \
	X("kak")                                                                                   \
	X("sublime-text")                                                                          \
	X("sublime-text-3")                                                                        \
	X("ptpython")                                                                              \
	X("mpv")                                                                                   \
	X("neomutt")                                                                               \
	X("mutt")                                                                                  \
	X("newsboat")                                                                              \
	X("aerc")                                                                                  \
	X("qutebrowser")                                                                           \
	X("ghostty")                                                                               \
	X("terminator")                                                                            \
	X("polybar")                                                                               \
	X("waybar")                                                                                \
	X("eww")                                                                                   \
	X("dunst")                                                                                 \
	X("sxhkd")                                                                                 \
	X("dconf")                                                                                 \
	X("kglobalshortcutsrc")                                                                    \
	X("khotkeysrc")                                                                            \
	X("Thunar")                                                                                \
	X("xfce4")                                                                                 \
	X("espanso")                                                                               \
	X("autokey")
#define DATA_FIXED(X)                                                                              \
	X("systemd")                                                                               \
	X("user-tmpfiles.d")                                                                       \
	X("bash-completion")                                                                       \
	X("nvim/site")                                                                             \
	X("fish/vendor_conf.d")                                                                    \
	X("fish/vendor_functions.d")                                                               \
	X("fish/vendor_completions.d")                                                             \
	X("fish/generated_completions")                                                            \
	X("dbus-1")                                                                                \
	X("applications")                                                                          \
	X("gnome-shell/extensions")                                                                \
	X("plasma")                                                                                \
	X("direnv")                                                                                \
	/* Neovim's plugin managers' and language servers' directories */                          \
	X("nvim/lazy")                                                                             \
	X("nvim/mason")                                                                            \
	X("nvim/plugged")                                                                          \
	X("nvim/rocks")                                                                            \
	/* Jupyter's kernels (argv runs), zinit's plugins, mise's installed tools */               \
	X("jupyter")                                                                               \
	X("zinit")                                                                                 \
	/* zsh-autoenv's authorisations: which .autoenv.zsh runs at the next cd, by hash */        \
	X("autoenv_auth")                                                                          \
	X("mise")                                                                                  \
	/* tools the host runs through ~/.local/bin's links: pipx's and uv's environments, uv's */ \
	/* Pythons (`uv run`); flatpak's user installs and exports (on PATH, XDG_DATA_DIRS) */     \
	X("pipx")                                                                                  \
	X("uv/tools")                                                                              \
	X("uv/python")                                                                             \
	X("flatpak")                                                                               \
	/* run at a start: Konsole's profiles (Command=), zsh's and tmux's plugin managers */      \
	X("konsole")                                                                               \
	X("sheldon")                                                                               \
	X("zap")                                                                                   \
	X("tmux/plugins")                                                                          \
	X("cinnamon")                                                                              \
	/* run on a click: file managers' scripts, actions and service menus */                    \
	X("nautilus/scripts")                                                                      \
	X("nemo/actions")                                                                          \
	X("nemo/scripts")                                                                          \
	X("kio/servicemenus")                                                                      \
	X("kservices5")                                                                            \
	X("file-manager/actions")                                                                  \
	X("nautilus-python")                                                                       \
	X("nemo-python")                                                                           \
	X("caja-python")                                                                           \
	/* run on a preview: thumbnailers' Exec= for every file a file manager shows */            \
	X("thumbnailers")                                                                          \
	/* loaded at a start: ble.sh (its modules, beside the ble.sh .bashrc sources), oh-my-fish, \
	 * WirePlumber's scripts (the session's audio manager, at every login), the JetBrains      \
	 * IDEs' and code-server's installed plugins and extensions */                             \
	X("blesh")                                                                                 \
	X("omf")                                                                                   \
	X("wireplumber")                                                                           \
	X("JetBrains")                                                                             \
	X("code-server")
/* E: below ~/.cache, which $XDG_CACHE_HOME moves (mandatory_xdg_cache): caches a host tool
 * takes code from without checking it again: pre-commit's hook environments (run at the next
 * git commit), built wheels and downloads (pip, uv, poetry, yarn 1, deno), build outputs
 * (bazel's install base and action cache, go's build cache, ccache, sccache), browsers test
 * runners start, zsh plugins */
#define CACHE_FIXED(X)                                                                             \
	X("pre-commit")                                                                            \
	X("pip")                                                                                   \
	X("uv")                                                                                    \
	X("pypoetry")                                                                              \
	X("yarn")                                                                                  \
	X("deno")                                                                                  \
	X("bazel")                                                                                 \
	X("go-build")                                                                              \
	X("ccache")                                                                                \
	X("sccache")                                                                               \
	X("ms-playwright")                                                                         \
	X("puppeteer")                                                                             \
	X("antidote")                                                                              \
	/* prezto's completion dump and cache (zcompdump: sourced by every interactive zsh) */     \
	X("prezto")                                                                                \
	/* run or loaded with no check at a start: powerlevel10k's gitstatus daemon (every zsh),   \
	 * Neovim's byte-code cache (vim.loader runs it for a module whose size and time match:    \
	 * a held init.lua's too), the test runners' and build tools' downloaded programs,         \
	 * Hugging Face's remote code and torch.hub's repositories (imported) */                   \
	X("gitstatus")                                                                             \
	X("nvim/luac")                                                                             \
	X("Cypress")                                                                               \
	X("bazelisk")                                                                              \
	X("selenium")                                                                              \
	X("prisma")                                                                                \
	X("huggingface/modules")                                                                   \
	X("torch/hub")                                                                             \
	/* node-gyp's headers and common.gypi: every native addon the host builds next includes    \
	 * them, and a .gypi's <!(command) runs at gyp's load */                                   \
	X("node-gyp")                                                                              \
	/* Python tools' pickles, loaded (pickle.load runs what it names) at their next start:     \
	 * parso's parse cache (jedi, every Python language server), jedi's, pylint's stats */     \
	X("parso")                                                                                 \
	X("jedi")                                                                                  \
	X("pylint")                                                                                \
	/* corepack's package managers: the host's next yarn or pnpm runs the one found there */   \
	X("node/corepack")
#define HOME_FIXED(X, C, D, K)                                                                     \
	X(".ssh")                                                                                  \
	X(".gnupg")                                                                                \
	CONFIG_FIXED(C)                                                                            \
	X(".local/bin")                                                                            \
	DATA_FIXED(D)                                                                              \
	X(".pam_environment")                                                                      \
	/* the X session's start-up scripts (the display manager sources them at login) */         \
	X(".xprofile")                                                                             \
	X(".xsession")                                                                             \
	X(".xsessionrc")                                                                           \
	X(".xinitrc")                                                                              \
	X(".local/state/sbxsh")                                                                    \
	X(".local/state/mise")                                                                     \
	/* Neovim's trust database: which .nvim.lua and .lazy.lua run, by hash */                  \
	X(".local/state/nvim/trust")                                                               \
	/* npx's packages (the host's next `npx PKG` runs the copy found there) and pipx's         \
	 * environments before 1.3 */                                                              \
	X(".npm/_npx")                                                                             \
	X(".local/pipx")                                                                           \
	/* tools' global configs that run code in every project: cargo's (build.rustc-wrapper,     \
	 * target.*.runner), gradle's init scripts and properties (org.gradle.jvmargs), Julia's    \
	 * startup.jl (under a grant of the tool's directory: its caches, packages) */             \
	X(".cargo/config.toml")                                                                    \
	X(".cargo/config")                                                                         \
	X(".gradle/init.d")                                                                        \
	X(".gradle/init.gradle")                                                                   \
	X(".gradle/init.gradle.kts")                                                               \
	X(".gradle/gradle.properties")                                                             \
	X(".julia/config")                                                                         \
	CACHE_FIXED(K)
/* Below the home directory by pattern, a component each (fnmatch, a leading dot matched too):
 * Python's user site, where every host python start runs a *.pth's import lines and imports
 * usercustomize and sitecustomize (a module, a package, a .pyc, an extension, or its cached
 * .pyc); what pip install --user writes beside them stays writable. */
#define PY_SITE ".local/lib/python*/site-packages/"
#define HOME_GLOBS(X)                                                                              \
	X(PY_SITE "*.pth")                                                                         \
	X(PY_SITE "usercustomize*")                                                                \
	X(PY_SITE "sitecustomize*")                                                                \
	X(PY_SITE "__pycache__/usercustomize*")                                                    \
	X(PY_SITE "__pycache__/sitecustomize*")                                                    \
	/* powerlevel10k's instant prompt, sourced first thing by every zsh start */               \
	X(".cache/p10k-*")                                                                         \
	/* a launcher on the desktop: file managers run an executable one on a double click */     \
	X("Desktop/*.desktop")                                                                     \
	/* IPython's profiles: startup/ files and the configs run at every ipython start */        \
	X(".ipython/profile_*/startup")                                                            \
	X(".ipython/profile_*/ipython_*config.py")
#define TILDE(s)     "~/" s,
#define CFG(s)	     ".config/" s,
#define TILDE_CFG(s) "~/.config/" s,
#define DAT(s)	     ".local/share/" s,
#define TILDE_DAT(s) "~/.local/share/" s,
#define CAC(s)	     ".cache/" s,
#define TILDE_CAC(s) "~/.cache/" s,
/* the probes' list: the fixed paths, then the patterns */
static const char *const home_probe[] = {HOME_FIXED(STR, CFG, DAT, CAC) HOME_GLOBS(STR)};
/* the fixed paths as hints name them: one for each of home_probe's first */
static const char *const home_rules[] = {HOME_FIXED(TILDE, TILDE_CFG, TILDE_DAT, TILDE_CAC)};
static const char *const home_globs[] = {HOME_GLOBS(STR)};
static const char *const home_glob_rules[] = {HOME_GLOBS(TILDE)};
static const char *const xdg_config[] = {CONFIG_FIXED(STR)};
static const char *const xdg_data[] = {DATA_FIXED(STR)};
static const char *const xdg_cache[] = {CACHE_FIXED(STR)};

#define N(a) (sizeof(a) / sizeof((a)[0]))

const char *const *mandatory_names(bool home, size_t *n)
{
	*n = home ? N(home_probe) : N(probe_names);
	return home ? home_probe : probe_names;
}

/* The home rule's fixed paths below ~/.config, by name: where $XDG_CONFIG_HOME moves them. */

const char *const *mandatory_xdg_config(size_t *n)
{
	*n = N(xdg_config);
	return xdg_config;
}

/* The ones below ~/.local/share, by name: where $XDG_DATA_HOME moves them. */

const char *const *mandatory_xdg_data(size_t *n)
{
	*n = N(xdg_data);
	return xdg_data;
}

/* The ones below ~/.cache, by name: where $XDG_CACHE_HOME moves them. */

const char *const *mandatory_xdg_cache(size_t *n)
{
	*n = N(xdg_cache);
	return xdg_cache;
}

struct comps {
	const char *p[COMP_MAX];
	uint16_t len[COMP_MAX];
	size_t n;
};

static bool eq(const struct comps *c, size_t i, const char *s)
{
	return c->len[i] == strlen(s) && memcmp(c->p[i], s, c->len[i]) == 0;
}

/* zsh's compiled form of a file, NAME.zwc: zsh's `source` (and its start-up files' reading)
 * runs NAME.zwc instead of NAME when it is newer (`zcompile`), so it is NAME's code. */
static const char zwc_rule[] = "NAME.zwc of a protected name (zsh runs its compiled form instead)";

static bool zwc(const struct comps *c, size_t i, const char *s)
{
	size_t l = strlen(s);

	return c->len[i] == l + 4 && memcmp(c->p[i], s, l) == 0 &&
	       memcmp(c->p[i] + l, ".zwc", 4) == 0;
}

/* Components of an absolute normalized path; false past COMP_MAX. */
static bool split(const char *path, struct comps *c)
{
	c->n = 0;
	for (const char *s = path; *s;) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		const char *e = strchr(s, '/');
		size_t l = e ? (size_t)(e - s) : strlen(s);

		if (c->n == COMP_MAX || l > UINT16_MAX)
			return false;
		c->p[c->n] = s;
		c->len[c->n++] = (uint16_t)l;
		s += l;
	}
	return true;
}

/* The length of the common start of a and b. */
static size_t common(const char *a, const char *b)
{
	size_t k = 0;

	while (a[k] && a[k] == b[k])
		k++;
	return k;
}

/* Whether dir, k = common(path, dir), can lie at or above path: not when they part at a
 * character of dir other than a slash. Then dir without its trailing slashes (what below
 * compares) is longer than k, and path differs from it at k. The guard checks each name
 * against every list of protected paths, in both directions (a directory on the way to one):
 * this is what most of those compares come to, one walk of the common start, with no strlen
 * of either (the lists' paths share a long start with the names checked: the home
 * directory's, $XDG_CONFIG_HOME's 54 names). */
static bool may_hold(const char *dir, size_t k)
{
	return !dir[k] || dir[k] == '/';
}

/* Whether path lies at or below dir; *len: dir's length without its trailing slashes (0 for
 * the root). */
static bool under_(const char *path, const char *dir, size_t *len)
{
	size_t k = common(path, dir), l;

	if (!may_hold(dir, k))
		return false;
	/* dir[k] ends it or is a slash: dir's length, without its trailing slashes */
	l = k + strlen(dir + k);
	while (l > 1 && dir[l - 1] == '/')
		l--;
	if (l == 1 && dir[0] == '/')
		l = 0;
	*len = l;
	/* path starts with dir's first l characters when they are all in the common start (past
	 * k, dir has a slash where path has another character or its end) */
	return l <= k && (path[l] == '/' || path[l] == '\0');
}

static bool under(const char *path, const char *dir)
{
	size_t l;

	return under_(path, dir, &l);
}

/* Number of components of dir when path lies at or below it, else -1. */
static long below(const char *path, const char *dir)
{
	size_t l;
	long n = 0;

	if (!under_(path, dir, &l))
		return -1;
	for (size_t i = 0; i < l; i++)
		if (dir[i] == '/' && dir[i + 1] != '/' && dir[i + 1])
			n++;
	return n;
}

static int hit_(struct mand_hit *h, enum mand_lift lift, const char *rule)
{
	h->lift = lift;
	h->rule = rule;
	return 1;
}

static bool git_internal(const struct comps *c, size_t i)
{
	static const char *const t[] = {"refs", "objects", "logs", "info", "lfs", "hooks"};

	for (size_t k = 0; k < N(t); k++)
		if (eq(c, i, t[k]))
			return true;
	return false;
}

/* Below a git directory: components from..n-1. */
static bool sample(const struct comps *c, size_t i)
{
	return c->len[i] > 7 && memcmp(c->p[i] + c->len[i] - 7, ".sample", 7) == 0;
}

static int in_gitdir(const struct mand_ctx *x, const struct comps *c, size_t from, enum mand_op op,
		     struct mand_hit *h)
{
	size_t n = c->n - from;

	if (n == 0)
		return 0;
	if (eq(c, from, "config"))
		return x->git_config ? 0 : hit_(h, MAND_GIT_CONFIG, ".git/config");
	if (eq(c, from, "config.worktree"))
		return hit_(h, MAND_NEVER, ".git/config.worktree");
	if (eq(c, from, "commondir"))
		return hit_(h, MAND_NEVER, ".git/commondir");
	/* Sapling in a git checkout keeps its config (hooks, extensions) in the git directory's
	 * sl/; sl itself is made, never replaced (a directory moved there would bring one) */
	if (eq(c, from, "sl") && (n == 1 ? op != MAND_MKDIR : eq(c, from + 1, "config")))
		return hit_(h, MAND_NEVER, ".git/sl/config (Sapling)");
	/* lefthook clones a lefthook.yml's remotes: here and its installed hook runs their configs
	 * and scripts at the next commit; info itself is not removed or replaced (a directory
	 * moved there would bring one) */
	if (eq(c, from, "info") &&
	    (n >= 2 ? eq(c, from + 1, "lefthook-remotes") : op == MAND_REMOVE))
		return hit_(h, MAND_NEVER, ".git/info/lefthook-remotes");
	/* an empty hooks directory and git's *.sample files run nothing (git init makes them);
	 * every other name there, and renaming the directory, are refused */
	if (eq(c, from, "hooks") && !(n == 1 && op == MAND_MKDIR) &&
	    !(n == 2 && sample(c, from + 1)))
		return hit_(h, MAND_NEVER, ".git/hooks");
	if (eq(c, from, "worktrees") && n >= 3) {
		if (eq(c, from + 2, "config.worktree") || eq(c, from + 2, "commondir") ||
		    eq(c, from + 2, "gitdir"))
			return hit_(h, MAND_NEVER,
				    ".git/worktrees/*/{config.worktree,commondir,gitdir}");
		return 0;
	}
	if (eq(c, from, "modules")) {
		/* modules/<name, maybe with slashes>/ is a git directory of its own */
		for (size_t j = from + 2; j < c->n; j++) {
			if (git_internal(c, j - 1))
				break;
			if (eq(c, j, "info") && j + 1 < c->n && eq(c, j + 1, "lefthook-remotes"))
				return hit_(h, MAND_NEVER, ".git/info/lefthook-remotes");
			if (eq(c, j, "config") || eq(c, j, "config.worktree") ||
			    eq(c, j, "commondir") || eq(c, j, "hooks") || eq(c, j, "modules") ||
			    (eq(c, j, "sl") && j + 1 < c->n && eq(c, j + 1, "config"))) {
				int r = in_gitdir(x, c, j, op, h);

				if (r)
					h->rule = h->lift == MAND_GIT_CONFIG
						      ? ".git/modules/**/config"
						      : ".git/modules/**/{config,hooks}";
				return r;
			}
		}
	}
	return 0;
}

/* Components from.. of c against pat, an fnmatch pattern for each of its components: 2 when
 * the path is at or below a match, 1 when it is a directory on the way to one, 0 otherwise. */
static int glob_at(const struct comps *c, size_t from, const char *pat)
{
	size_t i = from;

	for (const char *p = pat; *p; i++) {
		size_t pl = strcspn(p, "/");
		char pc[256], nm[256];

		if (i == c->n)
			return 1;
		if (pl >= sizeof(pc))
			return 0;
		memcpy(pc, p, pl);
		pc[pl] = '\0';
		if (c->len[i] >= sizeof(nm)) /* no real name is that long: fail closed */
			return strchr(pc, '*') ? 2 : 0;
		memcpy(nm, c->p[i], c->len[i]);
		nm[c->len[i]] = '\0';
		if (fnmatch(pc, nm, 0) != 0)
			return 0;
		p += pl;
		p += *p == '/';
	}
	return 2;
}

/* A directory there while the command runs: home, a write grant's root (a mount point), or
 * one above them. Changing one that holds a protected path (chmod) changes no name. */
static bool standing(const struct mand_ctx *x, const char *path)
{
	if (x->home && under(x->home, path))
		return true;
	for (size_t i = 0; i < x->ngrants; i++)
		if (under(x->grants[i], path))
			return true;
	return false;
}

/* What a directory on the way to a protected path may have done: mkdir, and a change of one
 * standing. Renaming or removing it moves the protection away; a link, a file, or a directory
 * moved in there brings another tree under the name the host's tools read. */
static bool holder_ok(const struct mand_ctx *x, const char *path, enum mand_op op)
{
	return op == MAND_MKDIR || (op == MAND_WRITE && standing(x, path));
}

/* The first of the n paths v that path lies at or below, or that lies below path when path is
 * a directory on the way to it whose op holder_ok does not allow (renaming or removing it
 * moves the protection away); -1 when none. The one walk of every list of protected paths
 * (fixed, hooks, holds). */
static long held(const struct mand_ctx *x, const char *const *v, const uint16_t *lcp, size_t n,
		 const char *path, enum mand_op op)
{
	int hold = -1; /* holder_ok, asked when an entry lies at or below path (seldom) */
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		/* k = common(path, v[i]), from the one before's (lcp[i]: what v[i] shares with
		 * v[i-1]; path shares k with v[i-1]): past k, v[i] reads as v[i-1] does, so the
		 * same k and the same characters there; short of k, they part at lcp[i], where
		 * path reads as v[i-1]; at k, from there on */
		if (!lcp || i == 0)
			k = common(path, v[i]);
		else if (lcp[i] < k)
			k = lcp[i];
		else if (lcp[i] == k)
			k += common(path + k, v[i] + k);
		if (may_hold(v[i], k) && under(path, v[i]))
			return (long)i;
		if (may_hold(path, k) && under(v[i], path) &&
		    !(hold < 0 ? (hold = holder_ok(x, path, op)) : hold))
			return (long)i;
	}
	return -1;
}

uint16_t *mandatory_lcp(const char *const *v, size_t n)
{
	uint16_t *l = n ? calloc(n, sizeof(*l)) : NULL;

	for (size_t i = 1; l && i < n; i++) {
		size_t k = common(v[i], v[i - 1]);

		if (k >= UINT16_MAX) {
			free(l);
			return NULL;
		}
		l[i] = (uint16_t)k;
	}
	return l;
}

/* The home rule's fixed paths and patterns (rel: path below home, its components c from hc
 * on): at or below one, anything; a directory on the way to one, as holder_ok says. */
static int home_fixed_rule(const struct mand_ctx *x, const char *path, const char *rel,
			   const struct comps *c, size_t hc, enum mand_op op, struct mand_hit *h)
{
	size_t rl = strlen(rel);
	int hold = -1; /* holder_ok, asked when rel is on the way to one */

	for (size_t i = 0; i < N(home_rules); i++) {
		const char *f = home_probe[i];
		/* one walk: f is all of rel's start (k = strlen(f)) when f[k] ends it, rel all
		 * of f's when rel[k] ends it */
		size_t k = common(rel, f);

		if (!f[k] && (rel[k] == '/' || rel[k] == '\0'))
			return hit_(h, MAND_NEVER, home_rules[i]);
		if ((rl == 0 || (!rel[k] && f[k] == '/')) &&
		    !(hold < 0 ? (hold = holder_ok(x, path, op)) : hold))
			return hit_(h, MAND_NEVER, home_rules[i]);
	}
	for (size_t i = 0; rl && i < N(home_globs); i++) {
		int g = glob_at(c, hc, home_globs[i]);

		if (g == 2 || (g == 1 && !(hold < 0 ? (hold = holder_ok(x, path, op)) : hold)))
			return hit_(h, MAND_NEVER,
				    strncmp(home_globs[i], PY_SITE, sizeof(PY_SITE) - 1) == 0
					? "~/.local/lib/python*/site-packages/"
					  "{*.pth,usercustomize*,sitecustomize*}"
					: home_glob_rules[i]);
	}
	return 0;
}

static int home_rule(const struct mand_ctx *x, const char *home, const char *path,
		     const struct comps *c, size_t hc, enum mand_op op, struct mand_hit *h)
{
	size_t hl = strlen(home);
	const char *rel = path[hl] == '/' ? path + hl + 1 : path + hl;
	size_t rl = strlen(rel);
	size_t vl = x->recovery ? strlen(x->recovery) : 0;
	int r;

	if (vl && strncmp(path, x->recovery, vl) == 0 && (path[vl] == '/' || path[vl] == '\0'))
		return 0;
	if ((r = home_fixed_rule(x, path, rel, c, hc, op, h)) != 0)
		return r;
	if (rl == 0)
		return 0;
	size_t cl = strcspn(rel, "/");

	if (rel[0] != '.' && !(cl == 3 && memcmp(rel, "bin", 3) == 0))
		return 0;
	/* a grant that names this dot-entry (or lies below it) and holds the path lifts it */
	char entry[4096];

	if (hl + 1 + cl >= sizeof(entry))
		return hit_(h, MAND_HOME_GRANT, "~/.* (the home rule)");
	memcpy(entry, home, hl);
	entry[hl] = '/';
	memcpy(entry + hl + 1, rel, cl);
	entry[hl + 1 + cl] = '\0';
	for (size_t i = 0; i < x->ngrants; i++)
		if (under(x->grants[i], entry) && under(path, x->grants[i]))
			return 0;
	return hit_(h, MAND_HOME_GRANT,
		    rel[0] == '.' ? "~/.* (the home rule)" : "~/bin (the home rule)");
}

static bool holds_gitdir(const struct mand_ctx *x, const char *path)
{
	for (size_t i = 0; i < x->ngitdirs; i++)
		if (under(x->gitdirs[i], path))
			return true;
	return false;
}

/* A directory moved to components from.. of a git directory: not into modules/ or worktrees/. */
static int dir_into_gitdir(const struct comps *c, size_t from, struct mand_hit *h)
{
	if (from < c->n && (eq(c, from, "modules") || eq(c, from, "worktrees")))
		return hit_(h, MAND_NEVER, ".git/{modules,worktrees} (a directory moved in)");
	return 0;
}

/* A HEAD outside every git directory: git takes any directory holding a valid HEAD,
 * objects/ and refs/ as a (bare) repository and runs its config (core.pager, core.fsmonitor)
 * and hooks — a project whose .git lost its HEAD, or any subdirectory. */
static int bare_head(const struct mand_ctx *x, const char *path, const struct comps *c,
		     enum mand_op op, struct mand_hit *h)
{
	if (x->git_config || op == MAND_MKDIR || c->n == 0 || !eq(c, c->n - 1, "HEAD"))
		return 0;
	for (size_t i = 0; i + 1 < c->n; i++)
		if (eq(c, i, ".git"))
			return 0;
	for (size_t i = 0; i < x->ngitdirs; i++) {
		long b = below(path, x->gitdirs[i]);

		if (b >= 0 && (size_t)b < c->n)
			return 0;
	}
	return hit_(h, MAND_GIT_CONFIG, "HEAD (a bare repository)");
}

/* Mercurial: a .hg component anywhere, the way .git is treated. Its hgrc (hooks, extensions)
 * and hgrc-not-shared run on the host's next hg; sharedpath points it at another repository's
 * (an hg share). The rest (store, dirstate, bookmarks) is what hg writes in normal work, and
 * `hg init` makes a .hg holding none of them. The directory itself is never removed, renamed
 * or made a file or a symlink (a link to a directory holding an hgrc of its own). */
static int hg_rule(const struct comps *c, enum mand_op op, struct mand_hit *h)
{
	for (size_t i = 0; i < c->n; i++) {
		if (!eq(c, i, ".hg"))
			continue;
		if (i + 1 == c->n) {
			if (op == MAND_MKDIR)
				return 0;
			return hit_(h, MAND_NEVER,
				    op == MAND_REMOVE ? ".hg (a Mercurial repository)"
						      : ".hg (a file or a link named .hg)");
		}
		if (eq(c, i + 1, "hgrc") || eq(c, i + 1, "hgrc-not-shared") ||
		    eq(c, i + 1, "sharedpath"))
			return hit_(h, MAND_NEVER, ".hg/{hgrc,hgrc-not-shared,sharedpath}");
	}
	return 0;
}

/* Jujutsu: a .jj component anywhere, the way .hg is treated. The repository's and the
 * workspace's config (repo/config.toml, workspace-config.toml: fix.tools, ui.pager, aliases run
 * at the host's next jj; jj 0.38+ keeps them below ~/.config/jj and still adopts one found where
 * no config-id names its own), the ids that name those (a removed one lets a planted config be
 * adopted), and repo/ as anything but a directory (a file there points a workspace at another
 * repository's directory, whose config.toml no name protects). The op log, the store and the
 * working copy stay writable; `jj git init` makes a .jj holding none of them. .jj itself is
 * never removed, renamed or made a file or a link. */
static int jj_rule(const struct comps *c, enum mand_op op, struct mand_hit *h)
{
	for (size_t i = 0; i < c->n; i++) {
		if (!eq(c, i, ".jj"))
			continue;
		if (i + 1 == c->n) {
			if (op == MAND_MKDIR)
				return 0;
			return hit_(h, MAND_NEVER,
				    op == MAND_REMOVE ? ".jj (a Jujutsu repository)"
						      : ".jj (a file or a link named .jj)");
		}
		if (i + 2 == c->n && eq(c, i + 1, "repo") && op != MAND_MKDIR)
			return hit_(h, MAND_NEVER,
				    ".jj/repo (a file or a link: another repository)");
		if ((i + 2 == c->n && (eq(c, i + 1, "workspace-config.toml") ||
				       eq(c, i + 1, "workspace-config-id"))) ||
		    (i + 3 == c->n && eq(c, i + 1, "repo") &&
		     (eq(c, i + 2, "config.toml") || eq(c, i + 2, "config-id"))))
			return hit_(h, MAND_NEVER,
				    ".jj/{repo/config.toml,repo/config-id,workspace-config.*}");
	}
	return 0;
}

/* The other version-control systems' repository directories, the way .hg is treated: what in
 * them runs code at the host's next command there. Sapling: .sl/config (hooks, extensions),
 * sharedpath (another repository's), hgrc (in a git-backed checkout: in_gitdir). Pijul:
 * .pijul/config ([hooks]), .pijul/hooks/ (older versions run its files), and what approves the
 * shared hooks of pijul.toml (kept in .pijul/: any name there with "hook" in it). Darcs:
 * _darcs/prefs/defaults (any command's posthook/prehook), _darcs/prefs/prefs (setpref's test
 * and predist commands); prefs/ itself is never renamed, removed or replaced. The directory
 * itself is never removed, renamed or made a file or a link; the rest (stores, patches, the
 * pristine, prefs/repos) stays writable. */
static int vcs_rule(const struct comps *c, enum mand_op op, struct mand_hit *h)
{
	static const struct {
		const char *dir, *sub; /* sub: a directory below dir held as dir is, or NULL */
		const char *files[3];  /* held below dir (or sub) */
		const char *rule;
	} v[] = {
	    {".sl",
	     NULL,
	     {"config", "sharedpath", "hgrc"},
	     ".sl/{config,sharedpath,hgrc} (Sapling)"},
	    {".pijul", NULL, {"config", "hooks", NULL}, ".pijul/{config,hooks,*hook*} (Pijul)"},
	    {"_darcs",
	     "prefs",
	     {"defaults", "prefs", NULL},
	     "_darcs/prefs/{defaults,prefs} (Darcs)"},
	};

	for (size_t i = 0; i < c->n; i++) {
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
			size_t j = i + 1;

			if (!eq(c, i, v[k].dir))
				continue;
			if (i + 1 == c->n)
				return op == MAND_MKDIR ? 0 : hit_(h, MAND_NEVER, v[k].rule);
			if (v[k].sub) {
				if (!eq(c, j, v[k].sub))
					continue;
				if (++j == c->n)
					return op == MAND_MKDIR ? 0
								: hit_(h, MAND_NEVER, v[k].rule);
			}
			if (j + 1 > c->n)
				continue;
			for (size_t f = 0; f < 3 && v[k].files[f]; f++)
				if (eq(c, j, v[k].files[f]))
					return hit_(h, MAND_NEVER, v[k].rule);
			if (v[k].dir[1] == 'p' && memmem(c->p[j], c->len[j], "hook", 4))
				return hit_(h, MAND_NEVER, v[k].rule);
		}
	}
	return 0;
}

/* sbxsh's policy as this command was started with (mand_ctx.policy): at or below one, a
 * directory holding one renamed or removed. The recovery shell's directory is left alone. */
static int policy_rule(const struct mand_ctx *x, const char *path, enum mand_op op,
		       struct mand_hit *h)
{
	size_t vl = x->recovery ? strlen(x->recovery) : 0;

	if (vl && strncmp(path, x->recovery, vl) == 0 && (path[vl] == '/' || path[vl] == '\0'))
		return 0;
	for (size_t i = 0; i < x->npolicy; i++)
		if (under(path, x->policy[i]) ||
		    ((op == MAND_REMOVE || op == MAND_DIR_TO) && under(x->policy[i], path)))
			return hit_(h, MAND_NEVER,
				    "sbxsh's policy: the file --config or SBXSH_CONFIG named, the "
				    "system directory");
	return 0;
}

/* The fixed paths the environment names (mand_ctx.fixed): at or below one, or a directory on
 * the way to one as holder_ok says. The recovery shell's directory is left alone. */
static int fixed_rule(const struct mand_ctx *x, const char *path, enum mand_op op,
		      struct mand_hit *h)
{
	static const char xdg_rule[] =
	    "$XDG_CONFIG_HOME/{sbxsh,git,…}, $XDG_DATA_HOME/{bash-completion,…}, "
	    "$XDG_CACHE_HOME/{pre-commit,pip,…}, $XDG_STATE_HOME/sbxsh, the violation log";
	size_t vl = x->recovery ? strlen(x->recovery) : 0;

	if (vl && strncmp(path, x->recovery, vl) == 0 && (path[vl] == '/' || path[vl] == '\0'))
		return 0;
	return held(x, x->fixed, x->fixed_lcp, x->nfixed, path, op) >= 0
		   ? hit_(h, MAND_NEVER, xdg_rule)
		   : 0;
}

/* The hooks directories and included files git's config names (mand_ctx.hooks): at or below
 * one, or a directory on the way to one as holder_ok says. */
static int hooks_in(const struct mand_ctx *x, const char *const *hooks, size_t n, const char *path,
		    enum mand_op op, struct mand_hit *h)
{
	return held(x, hooks, NULL, n, path, op) >= 0
		   ? hit_(h, MAND_NEVER, "core.hooksPath, include.path (what git's config names)")
		   : 0;
}

static int hooks_rule(const struct mand_ctx *x, const char *path, enum mand_op op,
		      struct mand_hit *h)
{
	return hooks_in(x, x->hooks, x->nhooks, path, op, h);
}

int mandatory_hooks(const struct mand_ctx *x, const char *const *hooks, size_t n, const char *path,
		    enum mand_op op, struct mand_hit *h)
{
	if (path[0] != '/' || mandatory_scratch(x, path))
		return 0;
	if (op == MAND_DIR_TO)
		op = MAND_REMOVE;
	if (op == MAND_LINK)
		op = MAND_WRITE;
	return hooks_in(x, hooks, n, path, op, h);
}

/* The global relative core.hooksPath values (mand_ctx.hooknames), by name from component
 * base on: at or below one, anything; a path that is the start of one (`tools` of
 * tools/hooks), as holder_ok says (a directory moved or linked there brings a hooks
 * directory in). */
static int hooknames_rule(const struct mand_ctx *x, const char *path, const struct comps *c,
			  size_t base, enum mand_op op, struct mand_hit *h)
{
	static const char rule[] = "core.hooksPath (a relative one of git's global config)";

	for (size_t k = 0; k < x->nhooknames; k++) {
		const char *hn = x->hooknames[k];

		for (size_t i = base; i < c->n; i++) {
			const char *p = hn;
			size_t j = i;

			while (j < c->n && *p) {
				size_t l = strcspn(p, "/");

				if (c->len[j] != l || memcmp(c->p[j], p, l) != 0)
					break;
				j++;
				p += l;
				p += *p == '/';
			}
			if (!*p || (j == c->n && j > i && !holder_ok(x, path, op)))
				return hit_(h, MAND_NEVER, rule);
		}
	}
	return 0;
}

/* The directories of $PATH (mand_ctx.bins): a name directly in one (a subdirectory made
 * there runs nothing: PATH lookups do not descend), the directory itself but for mkdir, and a
 * directory on the way to one as holder_ok says. */
static int bins_rule(const struct mand_ctx *x, const char *path, enum mand_op op,
		     struct mand_hit *h)
{
	for (size_t i = 0; i < x->nbins; i++) {
		const char *d = x->bins[i], *rel;

		if (under(path, d)) {
			rel = path + strlen(d);
			if (op != MAND_MKDIR && (!*rel || !strchr(rel + 1, '/')))
				return hit_(h, MAND_NEVER,
					    "a directory on $PATH (or LD_LIBRARY_PATH)");
		} else if (under(d, path) && !holder_ok(x, path, op)) {
			return hit_(h, MAND_NEVER, "a directory on $PATH (or LD_LIBRARY_PATH)");
		}
	}
	return 0;
}

/* What the programs and hooks link to (mand_ctx.links): at or below one, or a directory on
 * the way to one as holder_ok says. */
static int links_rule(const struct mand_ctx *x, const char *path, enum mand_op op,
		      struct mand_hit *h)
{
	return held(x, x->links, NULL, x->nlinks, path, op) >= 0
		   ? hit_(h, MAND_NEVER, "what a program of $PATH or a git hook links to")
		   : 0;
}

/* What the user's shell start-up files source (mand_ctx.sourced): as links_rule. */
static int sourced_rule(const struct mand_ctx *x, const char *path, enum mand_op op,
			struct mand_hit *h)
{
	return held(x, x->sourced, NULL, x->nsourced, path, op) >= 0
		   ? hit_(h, MAND_NEVER,
			  "a file the shell's start-up files source (. FILE, source FILE) or the "
			  "environment names as code (BASH_ENV, PYTHONSTARTUP, EDITOR, LD_PRELOAD "
			  "…)")
		   : 0;
}

static bool comp_match(const struct comps *c, size_t i, const char *pat)
{
	char nm[256];

	if (c->len[i] >= sizeof(nm))
		return false;
	memcpy(nm, c->p[i], c->len[i]);
	nm[c->len[i]] = '\0';
	return fnmatch(pat, nm, 0) == 0;
}

/* An agent's own directory, wherever it is (a grant of ~/.claude, of the directory itself or
 * of something below it, lifts nothing here): what the agent reads at its next start —
 * instructions (CLAUDE.md, AGENTS.md, GEMINI.md, memory), settings (hooks and MCP servers are
 * commands), commands, agents, skills, plugins, the scripts its settings run by path — grows
 * with every release, so everything below one is refused but what the agent keeps as data
 * only (agent_data: shell snapshots, logs, telemetry) and the worktrees of projects it
 * checks out (Claude Code's .claude/worktrees, the Codex app's ~/.codex/worktrees: projects,
 * where every name rule holds as in any other). The directory itself is made (mkdir),
 * never renamed away nor replaced by a link or a file. */
static const char *const agent_dirs[] = {
    ".claude", ".codex", ".gemini",   ".cursor",  ".agents", ".windsurf", ".continue",
    ".roo",    ".kiro",	 ".opencode", ".amazonq", ".qwen",   ".kilocode", ".junie"};
static const char *const agent_data[] = {
    "shell-snapshots", "shell_snapshots", "statsig", "debug", "logs", "log",
    "telemetry",       "worktrees" /* last: mandatory_agent_data leaves it out */};

bool mandatory_agent_dir(const char *name)
{
	for (size_t k = 0; k < N(agent_dirs); k++)
		if (strcmp(name, agent_dirs[k]) == 0)
			return true;
	return false;
}

const char *const *mandatory_agent_data(size_t *n)
{
	*n = N(agent_data) - 1; /* worktrees last: projects, not data (the header) */
	return agent_data;
}

static int agent_rule(const struct mand_ctx *x, const char *path, const struct comps *c, size_t i,
		      enum mand_op op, struct mand_hit *h)
{
	static const char rule[] =
	    "an agent's directory (.claude, .codex, .gemini …): its instructions, settings, "
	    "commands, plugins; only its shell snapshots, logs and telemetry are written";
	static const char *const subs[][2] = {{"commands", ".claude/commands"},
					      {"agents", ".claude/agents"},
					      {"hooks", ".claude/hooks"},
					      {"skills", ".claude/skills"}};
	bool claude = eq(c, i, ".claude");

	if (i + 1 == c->n)
		return holder_ok(x, path, op)
			   ? 0
			   : hit_(h, MAND_NEVER,
				  claude ? ".claude/{commands,agents,hooks,skills,settings*.json}"
					 : rule);
	for (size_t k = 0; claude && k < N(subs); k++)
		if (eq(c, i + 1, subs[k][0]))
			return hit_(h, MAND_NEVER, subs[k][1]);
	if (claude && comp_match(c, i + 1, "settings*.json"))
		return hit_(h, MAND_NEVER, ".claude/settings*.json");
	for (size_t k = 0; k < N(agent_data); k++)
		if (eq(c, i + 1, agent_data[k]))
			return 0;
	return hit_(h, MAND_NEVER, rule);
}

/* mise's and lefthook's configs (file_globs), from component base on: a file's name (never
 * against mkdir), mise/config*.toml, .config/{mise*.toml,lefthook.*}, all of .config/mise. */
static int tool_config(const struct comps *c, size_t base, enum mand_op op, struct mand_hit *h)
{
	static const char rule[] = "mise's and lefthook's configs";
	size_t n = c->n;

	for (size_t i = base; i + 1 < n; i++)
		if (eq(c, i, ".config") && eq(c, i + 1, "mise"))
			return hit_(h, MAND_NEVER, rule);
	if (op == MAND_MKDIR || n == 0 || n - 1 < base)
		return 0;
	const char *l = c->p[n - 1];
	size_t ll = c->len[n - 1];

	/* the common name pays two compares: every pattern ends .toml or starts [.]lefthook */
	if (!(ll > 5 && memcmp(l + ll - 5, ".toml", 5) == 0) &&
	    !(ll > 8 && memcmp(l + (*l == '.'), "lefthook", 8) == 0))
		return 0;
	for (size_t k = 0; k < N(file_globs); k++)
		if (comp_match(c, n - 1, file_globs[k]))
			return hit_(h, MAND_NEVER, rule);
	if (n >= 2 && n - 2 >= base &&
	    ((eq(c, n - 2, "mise") && comp_match(c, n - 1, "config*.toml")) ||
	     (eq(c, n - 2, ".config") &&
	      (comp_match(c, n - 1, "mise*.toml") || comp_match(c, n - 1, "lefthook.[jty]*")))))
		return hit_(h, MAND_NEVER, rule);
	return 0;
}

long mandatory_create(const struct mand_ctx *x, const char *path)
{
	for (size_t i = 0; i < x->ncreates; i++)
		if (under(path, x->creates[i]))
			return (long)i;
	return -1;
}

long mandatory_create_holder(const struct mand_ctx *x, const char *path)
{
	for (size_t i = 0; i < x->ncreates; i++)
		if (under(x->creates[i], path))
			return (long)i;
	return -1;
}

bool mandatory_scratch(const struct mand_ctx *x, const char *path)
{
	for (size_t i = 0; i < x->nscratch; i++) {
		if (!under(path, x->scratch[i]))
			continue;
		for (size_t k = 0; k < x->ngrants; k++)
			if (under(x->grants[k], x->scratch[i]) && under(path, x->grants[k]))
				return false; /* a host directory bound there */
		return true;
	}
	return false;
}

/* What the policy's deny_read and deny_write make hidden or read-only (mand_ctx.holds): at or
 * below one, or a directory on the way to one as holder_ok says. After every other rule: a
 * mandatory one is the stronger word. */
static int deny_rule(const struct mand_ctx *x, const char *path, enum mand_op op,
		     struct mand_hit *h)
{
	long i = held(x, x->holds, x->holds_lcp, x->nholds, path, op);

	return i >= 0 ? hit_(h, MAND_DENY_WRITE, x->holds[i]) : 0;
}

static int check_rules(const struct mand_ctx *x, const char *path, enum mand_op op,
		       struct mand_hit *h);

int mandatory_check(const struct mand_ctx *x, const char *path, enum mand_op op, struct mand_hit *h)
{
	int r;

	if (path[0] != '/')
		return -EINVAL;
	if (mandatory_scratch(x, path))
		return 0;
	if ((r = check_rules(x, path, op, h)) != 0)
		return r;
	bool dir_to = op == MAND_DIR_TO;

	if (op == MAND_DIR_TO)
		op = MAND_REMOVE;
	else if (op == MAND_LINK)
		op = MAND_WRITE;
	if ((r = deny_rule(x, path, op, h)) != 0)
		return r;
	const char *g = x->deny_glob ? x->deny_glob(x->deny_glob_arg, path, dir_to) : NULL;

	return g ? hit_(h, MAND_DENY_WRITE, g) : 0;
}

/* A step's answer besides 0 (go on to the next rule) and hit_'s 1: allowed, and no later rule
 * is asked (a new repository's .git where git_config = yes, a git directory itself written). */
enum { ALLOWED = 2 };

/* The first component the name rules look at: below the deepest write grant holding path,
 * else below home; c->n (none) when neither holds it. */
static size_t names_base(const struct mand_ctx *x, const char *path, const struct comps *c)
{
	long base = -1;

	for (size_t i = 0; i < x->ngrants; i++) {
		long b = below(path, x->grants[i]);

		if (b > base)
			base = b;
	}
	if (base < 0 && x->home)
		base = below(path, x->home);
	return base < 0 ? c->n : (size_t)base;
}

/* The protected names (names, file_names, bare ones) from component base on. */
static int names_rule(const struct comps *c, size_t base, enum mand_op op, struct mand_hit *h)
{
	for (size_t i = base; i < c->n; i++) {
		if (c->p[i][0] != '.') {
			for (size_t k = 0; k < N(bare_file_names); k++)
				if (i + 1 == c->n && op != MAND_MKDIR &&
				    eq(c, i, bare_file_names[k]))
					return hit_(h, MAND_NEVER, bare_file_names[k]);
			for (size_t k = 0; k < N(bare_names); k++)
				if (eq(c, i, bare_names[k]))
					return hit_(h, MAND_NEVER, bare_names[k]);
			continue; /* every other name starts with a dot */
		}
		for (size_t k = 0; k < N(names); k++)
			if (eq(c, i, names[k]) || zwc(c, i, names[k]))
				return hit_(h, MAND_NEVER,
					    eq(c, i, names[k]) ? names[k] : zwc_rule);
		/* a file's name only: a directory by that name (a virtualenv called .env) holds
		 * nothing a host tool reads */
		for (size_t k = 0; k < N(file_names); k++)
			if (i + 1 == c->n && op != MAND_MKDIR &&
			    (eq(c, i, file_names[k]) || zwc(c, i, file_names[k])))
				return hit_(h, MAND_NEVER,
					    eq(c, i, file_names[k]) ? file_names[k] : zwc_rule);
		/* zsh's completion dump, sourced by compinit at every interactive start
		 * (${ZDOTDIR:-~}/.zcompdump, oh-my-zsh's .zcompdump-HOST-VERSION, its .zwc) */
		if (i + 1 == c->n && op != MAND_MKDIR && c->len[i] >= 10 &&
		    memcmp(c->p[i], ".zcompdump", 10) == 0)
			return hit_(h, MAND_NEVER, ".zcompdump* (zsh's completion dump)");
	}
	return 0;
}

/* An agent's directory: anywhere, a grant of it or below it included. */
static int agent_dirs_rule(const struct mand_ctx *x, const char *path, const struct comps *c,
			   enum mand_op op, struct mand_hit *h)
{
	int r;

	for (size_t i = 0; i < c->n; i++) {
		if (c->p[i][0] != '.')
			continue;
		for (size_t k = 0; k < N(agent_dirs); k++)
			if (eq(c, i, agent_dirs[k]) && (r = agent_rule(x, path, c, i, op, h)) != 0)
				return r;
	}
	return 0;
}

/* git: a .git component anywhere (into: a directory renamed there; link: a symbolic link). */
static int git_rule(const struct mand_ctx *x, const struct comps *c, enum mand_op op, bool into,
		    bool link, struct mand_hit *h)
{
	int r;

	for (size_t i = 0; i < c->n; i++) {
		if (!eq(c, i, ".git"))
			continue;
		if (i + 1 == c->n) {
			if (op == MAND_MKDIR)
				return x->git_config
					   ? ALLOWED
					   : hit_(h, MAND_GIT_CONFIG, ".git (a new repository)");
			return hit_(h, MAND_NEVER,
				    op == MAND_REMOVE ? ".git (a git directory)"
						      : ".git (a .git file)");
		}
		if (link)
			return hit_(h, MAND_NEVER, ".git/** (a symbolic link)");
		if ((r = in_gitdir(x, c, i + 1, op, h)) != 0 ||
		    (into && (r = dir_into_gitdir(c, i + 1, h)) != 0))
			return r;
	}
	return 0;
}

/* The git directories found at start (gitdir:, commondir): at, below, or holding one. */
static int gitdirs_rule(const struct mand_ctx *x, const char *path, const struct comps *c,
			enum mand_op op, bool into, bool link, struct mand_hit *h)
{
	int r;

	for (size_t i = 0; i < x->ngitdirs; i++) {
		long b = below(path, x->gitdirs[i]);

		if (b >= 0 && (size_t)b == c->n)
			return op == MAND_REMOVE || op == MAND_MKDIR || link
				   ? hit_(h, MAND_NEVER, "a git directory (gitdir:, commondir)")
				   : ALLOWED;
		if (b >= 0 && link)
			return hit_(h, MAND_NEVER, ".git/** (a symbolic link)");
		if (b >= 0 && ((r = in_gitdir(x, c, (size_t)b, op, h)) != 0 ||
			       (into && (r = dir_into_gitdir(c, (size_t)b, h)) != 0)))
			return r;
	}
	if (op == MAND_REMOVE && holds_gitdir(x, path))
		return hit_(h, MAND_NEVER, "a git directory (gitdir:, commondir)");
	return 0;
}

/* The home rule below HOME, and below the password database's home where HOME names another
 * directory: its start-up files, ~/.ssh, ~/.config/sbxsh are what the user's next login
 * reads; a grant of it by its absolute path (or a project root a marker found there) no
 * longer passes them. */
static int home_dirs_rule(const struct mand_ctx *x, const char *path, const struct comps *c,
			  enum mand_op op, struct mand_hit *h)
{
	long hb;
	int r;

	if (x->home && (hb = below(path, x->home)) >= 0 &&
	    (r = home_rule(x, x->home, path, c, (size_t)hb, op, h)) != 0)
		return r;
	if (x->pw_home && (hb = below(path, x->pw_home)) >= 0 &&
	    (r = home_rule(x, x->pw_home, path, c, (size_t)hb, op, h)) != 0) {
		h->lift = MAND_NEVER;
		h->rule = "the home rule, in the password database's home (HOME names another)";
		return r;
	}
	return 0;
}

/* Every rule but the policy's deny lists, in order: the first that answers decides. */
static int check_rules(const struct mand_ctx *x, const char *path, enum mand_op op,
		       struct mand_hit *h)
{
	static __thread struct comps c;
	bool into = op == MAND_DIR_TO, link = op == MAND_LINK;
	size_t base;
	int r;

	if (into)
		op = MAND_REMOVE;
	if (link)
		op = MAND_WRITE;
	if (!split(path, &c))
		return hit_(h, MAND_NEVER, "a path too deep to check");
	base = names_base(x, path, &c);
	if ((r = fixed_rule(x, path, op, h)) != 0 || (r = hooks_rule(x, path, op, h)) != 0 ||
	    (r = bins_rule(x, path, op, h)) != 0 || (r = links_rule(x, path, op, h)) != 0 ||
	    (r = sourced_rule(x, path, op, h)) != 0 || (r = names_rule(&c, base, op, h)) != 0 ||
	    (r = agent_dirs_rule(x, path, &c, op, h)) != 0 ||
	    (r = tool_config(&c, base, op, h)) != 0 ||
	    (r = hooknames_rule(x, path, &c, base, op, h)) != 0 ||
	    (r = git_rule(x, &c, op, into, link, h)) != 0 ||
	    (r = gitdirs_rule(x, path, &c, op, into, link, h)) != 0 ||
	    (r = bare_head(x, path, &c, op, h)) != 0 || (r = hg_rule(&c, op, h)) != 0 ||
	    (r = jj_rule(&c, op, h)) != 0 || (r = vcs_rule(&c, op, h)) != 0 ||
	    (r = home_dirs_rule(x, path, &c, op, h)) != 0)
		return r == ALLOWED ? 0 : r;
	return policy_rule(x, path, op, h);
}
