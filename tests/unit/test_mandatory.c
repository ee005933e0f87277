/* test_mandatory — the by-name checker of the mandatory write denies (platform/mandatory.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/mandatory.h"
#include "tests/unit/tap.h"

#define H "/home/u"

static const char *grants[] = {H "/proj",   H,	      H "/.cache",
			       H "/.local", "/srv/w", H "/.codex/worktrees/p"};
static const char *gitdirs[] = {"/srv/repos/app.git", H "/proj/.git/worktrees/x"};
static struct mand_ctx cx = {
    .home = H, .grants = grants, .ngrants = 6, .gitdirs = gitdirs, .ngitdirs = 2};
static struct mand_hit hit;

static int C(const char *p, enum mand_op op)
{
	hit.rule = NULL;
	hit.lift = 0;
	return mandatory_check(&cx, p, op, &hit);
}

#define DENY(p, op, lift_, why)                                                                    \
	do {                                                                                       \
		int r_ = C(p, op);                                                                 \
		ok(r_ == 1 && hit.lift == (lift_), "%s refused: %s (%s)", p, why,                  \
		   hit.rule ? hit.rule : "-");                                                     \
	} while (0)
#define ALLOW(p, op, why)                                                                          \
	do {                                                                                       \
		int r_ = C(p, op);                                                                 \
		ok(r_ == 0, "%s allowed: %s%s%s", p, why, r_ ? " — refused by " : "",              \
		   r_ == 1 ? hit.rule : "");                                                       \
	} while (0)

static void test_names(void)
{
	static const char *n[] = {".bashrc",	   ".bash_profile", ".bash_login", ".bash_logout",
				  ".bash_aliases", ".profile",	    ".zshrc",	   ".zprofile",
				  ".zshenv",	   ".zlogin",	    ".inputrc",	   ".gitconfig",
				  ".gitmodules",   ".lfsconfig",    ".ripgreprc",  ".mcp.json"};
	char p[256];

	for (size_t i = 0; i < sizeof(n) / sizeof(*n); i++) {
		snprintf(p, sizeof(p), H "/proj/%s", n[i]);
		DENY(p, MAND_WRITE, MAND_NEVER, "a start-up or config file");
		ok(strcmp(hit.rule, n[i]) == 0, "… named %s", hit.rule);
		snprintf(p, sizeof(p), H "/proj/a/b/c/d/e/%s", n[i]);
		DENY(p, MAND_WRITE, MAND_NEVER, "at depth 5");
		snprintf(p, sizeof(p), "/srv/w/%s", n[i]);
		DENY(p, MAND_REMOVE, MAND_NEVER, "unlinked");
	}
	DENY(H "/proj/sub/.aider.conf.yml", MAND_WRITE, MAND_NEVER, "aider's config");
	DENY(H "/proj/opencode.json", MAND_WRITE, MAND_NEVER, "opencode's config");
	DENY(H "/proj/a/crush.json", MAND_REMOVE, MAND_NEVER, "Crush's, unlinked");
	ALLOW(H "/proj/crush.json", MAND_MKDIR, "… a directory by that name");
	DENY(H "/proj/.qwen/settings.json", MAND_WRITE, MAND_NEVER, ".qwen");
	ALLOW(H "/proj/.qwen/logs/x", MAND_WRITE, "… its logs");
	DENY(H "/.config/opencode/plugin/p.js", MAND_WRITE, MAND_NEVER, "opencode's plugins");
	DENY(H "/proj/.zshrc.zwc", MAND_WRITE, MAND_NEVER, "zsh's compiled .zshrc");
	DENY(H "/proj/a/b/.zshenv.zwc", MAND_REMOVE, MAND_NEVER, "… .zshenv's, unlinked");
	DENY(H "/proj/.env.zwc", MAND_WRITE, MAND_NEVER, "… a sourced .env's");
	ALLOW(H "/proj/.env.zwc", MAND_MKDIR, "… a directory by that name");
	ALLOW(H "/proj/other.zwc", MAND_WRITE, "another compiled file");
	ALLOW(H "/proj/.zshrc.zwc.bak", MAND_WRITE, "not a compiled .zshrc");
	DENY(H "/proj/a/b/c/d/e/.vscode/settings.json", MAND_WRITE, MAND_NEVER,
	     ".vscode at depth 5");
	DENY(H "/proj/.vscode", MAND_MKDIR, MAND_NEVER, "mkdir .vscode");
	DENY(H "/proj/.vscode", MAND_REMOVE, MAND_NEVER, "rename .vscode away");
	DENY(H "/proj/x/.idea/workspace.xml", MAND_WRITE, MAND_NEVER, ".idea");
	DENY(H "/proj/.codex/config.toml", MAND_WRITE, MAND_NEVER, ".codex");
	DENY(H "/proj/.gemini/settings.json", MAND_WRITE, MAND_NEVER, ".gemini");
	DENY(H "/proj/.agents/x", MAND_WRITE, MAND_NEVER, ".agents");
	DENY(H "/proj/.claude/commands/x.md", MAND_WRITE, MAND_NEVER, ".claude/commands");
	DENY(H "/proj/.claude/commands", MAND_MKDIR, MAND_NEVER, "mkdir .claude/commands");
	DENY(H "/proj/.claude/agents/a.md", MAND_WRITE, MAND_NEVER, ".claude/agents");
	DENY(H "/proj/.claude/hooks/check.sh", MAND_WRITE, MAND_NEVER, ".claude/hooks");
	DENY(H "/proj/a/.claude/skills/x/SKILL.md", MAND_WRITE, MAND_NEVER, ".claude/skills");
	DENY(H "/proj/.claude/skills", MAND_DIR_TO, MAND_NEVER, "a directory renamed to it");
	DENY(H "/proj/.claude/settings.json", MAND_WRITE, MAND_NEVER, ".claude/settings.json");
	DENY(H "/proj/.claude/settings.local.json", MAND_WRITE, MAND_NEVER, "settings*.json");
	DENY(H "/proj/.claude", MAND_REMOVE, MAND_NEVER, "renaming .claude away");
	ALLOW(H "/proj/.claude", MAND_MKDIR, "mkdir .claude itself");
	DENY(H "/proj/.claude", MAND_WRITE, MAND_NEVER, "a link named .claude");
	DENY(H "/proj/.claude/notes.md", MAND_WRITE, MAND_NEVER, "another file in .claude");
	DENY(H "/proj/.claude/CLAUDE.md", MAND_WRITE, MAND_NEVER, ".claude/CLAUDE.md");
	ALLOW(H "/proj/.claude/shell-snapshots/s.sh", MAND_WRITE, "an agent's snapshots");
	ALLOW(H "/proj/.claude/logs", MAND_MKDIR, "an agent's logs");
	DENY(H "/proj/.claude/settings.yaml", MAND_WRITE, MAND_NEVER,
	     "not settings*.json, still the agent's");
	ALLOW(H "/proj/src/a.c", MAND_WRITE, "an ordinary file");
	ALLOW(H "/proj/.bashrc.bak", MAND_WRITE, "a name that only starts like one");
	ALLOW(H "/proj/bashrc", MAND_WRITE, "no dot");
	ALLOW("/tmp/.bashrc", MAND_WRITE, "the private /tmp is no write grant");
	DENY(H "/.codex/config.toml", MAND_WRITE, MAND_NEVER, ".codex not granted");
	ALLOW(H "/.codex/worktrees/p/src/x", MAND_WRITE, "below .codex/worktrees");
	DENY(H "/.codex/worktrees/p/.vscode/x", MAND_WRITE, MAND_NEVER, "… names still at depth");
	is_int(mandatory_check(&cx, "rel/.bashrc", MAND_WRITE, &hit), -EINVAL, "relative: EINVAL");
}

/* An agent's directory granted itself (write += ~/.claude): its instructions and settings
 * stay read-only, its snapshots and logs do not. */
static void test_agent_dirs(void)
{
	static const char *g[] = {H "/.claude", H "/.codex", H "/.gemini/tmp", H "/.cursor"};
	const char *const *og = cx.grants;
	size_t on = cx.ngrants;

	cx.grants = g;
	cx.ngrants = 4;
	DENY(H "/.claude/CLAUDE.md", MAND_WRITE, MAND_NEVER, "the agent's global instructions");
	DENY(H "/.claude/settings.json", MAND_WRITE, MAND_NEVER, "its settings (hooks)");
	DENY(H "/.claude/hooks/h.sh", MAND_WRITE, MAND_NEVER, "its hooks");
	DENY(H "/.claude/plugins/p/hooks.json", MAND_WRITE, MAND_NEVER, "its plugins");
	DENY(H "/.claude/plugins", MAND_MKDIR, MAND_NEVER, "… made");
	DENY(H "/.claude/statusline.sh", MAND_WRITE, MAND_NEVER, "a script its settings run");
	DENY(H "/.claude/projects/p/memory/MEMORY.md", MAND_WRITE, MAND_NEVER, "its memory");
	DENY(H "/.claude/x", MAND_DIR_TO, MAND_NEVER, "a directory renamed in");
	ALLOW(H "/.claude/shell-snapshots/snapshot-bash-1.sh", MAND_WRITE, "its shell snapshot");
	ALLOW(H "/.claude/statsig/s", MAND_WRITE, "its telemetry");
	DENY(H "/.codex/AGENTS.md", MAND_WRITE, MAND_NEVER, "codex's global instructions");
	DENY(H "/.codex/config.toml", MAND_WRITE, MAND_NEVER, "codex's config");
	DENY(H "/.codex/rules/default.rules", MAND_WRITE, MAND_NEVER, "codex's rules");
	ALLOW(H "/.codex/shell_snapshots/s.sh", MAND_WRITE, "codex's snapshot");
	ALLOW(H "/.codex/log/codex-tui.log", MAND_WRITE, "codex's log");
	DENY(H "/.gemini/tmp/x", MAND_WRITE, MAND_NEVER, "a grant below .gemini lifts nothing");
	DENY(H "/.cursor/mcp.json", MAND_WRITE, MAND_NEVER, "cursor's MCP servers");
	cx.grants = og;
	cx.ngrants = on;
	/* a grant of ~: launchers and the X session's scripts */
	DENY(H "/Desktop/evil.desktop", MAND_WRITE, MAND_NEVER, "a launcher on the desktop");
	DENY(H "/Desktop", MAND_REMOVE, MAND_NEVER, "… the desktop renamed away");
	ALLOW(H "/Desktop/notes.txt", MAND_WRITE, "… control: another file there");
	ALLOW(H "/proj/app.desktop", MAND_WRITE, "… a project's desktop entry");
	DENY(H "/.config/user-dirs.dirs", MAND_WRITE, MAND_NEVER, "XDG_DESKTOP_DIR moved");
	DENY(H "/.xprofile", MAND_WRITE, MAND_NEVER, "the X session's start-up script");
}

static void test_git(void)
{
	DENY(H "/proj/.git/config", MAND_WRITE, MAND_GIT_CONFIG, ".git/config");
	DENY(H "/proj/.git/config", MAND_REMOVE, MAND_GIT_CONFIG, "rename onto/away .git/config");
	DENY(H "/proj/.git/hooks/pre-commit", MAND_WRITE, MAND_NEVER, ".git/hooks");
	ALLOW(H "/proj/.git/hooks", MAND_MKDIR, "mkdir .git/hooks (empty, it runs nothing)");
	ALLOW(H "/proj/.git/hooks/pre-commit.sample", MAND_WRITE, "git init's samples");
	DENY(H "/proj/.git/hooks/pre-commit", MAND_REMOVE, MAND_NEVER, "… renamed onto a hook");
	DENY(H "/proj/.git/hooks/x.sample/y", MAND_WRITE, MAND_NEVER, "… not below a sample");
	DENY(H "/proj/.git/hooks", MAND_REMOVE, MAND_NEVER, "rename .git/hooks");
	DENY(H "/proj/.git/modules", MAND_LINK, MAND_NEVER, "a symbolic link as .git/modules");
	DENY(H "/proj/a/.git/worktrees/x", MAND_LINK, MAND_NEVER, "… in a nested .git/worktrees");
	DENY(H "/proj/.git/refs/heads/l", MAND_LINK, MAND_NEVER, "… anywhere in a .git");
	DENY(H "/proj/.git", MAND_LINK, MAND_NEVER, "… as .git itself");
	ALLOW(H "/proj/src/link", MAND_LINK, "a symbolic link outside a git directory");
	ALLOW(H "/proj/.git/modules", MAND_MKDIR, "… while git's own mkdir there is allowed");
	DENY(H "/proj/.git/config.worktree", MAND_WRITE, MAND_NEVER, "config.worktree");
	DENY(H "/proj/.git/commondir", MAND_WRITE, MAND_NEVER, "commondir");
	DENY(H "/proj/.git/info/lefthook-remotes/r/x.sh", MAND_WRITE, MAND_NEVER,
	     "lefthook's cached remotes");
	DENY(H "/proj/.git/info/lefthook-remotes", MAND_MKDIR, MAND_NEVER, "… made");
	DENY(H "/proj/.git/info", MAND_DIR_TO, MAND_NEVER, "… info replaced by a directory moved");
	DENY(H "/proj/.git/info", MAND_REMOVE, MAND_NEVER, "… info renamed away");
	DENY(H "/proj/.git/modules/m/info/lefthook-remotes/r/x.sh", MAND_WRITE, MAND_NEVER,
	     "… a submodule's");
	ALLOW(H "/proj/.git/info/exclude", MAND_WRITE, "info/exclude");
	ALLOW(H "/proj/.git/info", MAND_MKDIR, "… info made");
	ALLOW(H "/proj/.git/modules/m/info/exclude", MAND_WRITE, "… a submodule's info/exclude");
	DENY(H "/proj/.git/worktrees/x/gitdir", MAND_WRITE, MAND_NEVER, "worktrees/*/gitdir");
	DENY(H "/proj/.git/worktrees/y/commondir", MAND_WRITE, MAND_NEVER, "worktrees/*/commondir");
	DENY(H "/proj/.git/worktrees/y/config.worktree", MAND_WRITE, MAND_NEVER,
	     "… config.worktree");
	ALLOW(H "/proj/.git/worktrees/y/index.lock", MAND_WRITE, "a linked worktree's index.lock");
	ALLOW(H "/proj/.git/worktrees/y/HEAD", MAND_WRITE, "… its HEAD");
	DENY(H "/proj/.git/modules/sub/config", MAND_WRITE, MAND_GIT_CONFIG, "modules/*/config");
	DENY(H "/proj/.git/modules/sub/hooks/post-checkout", MAND_WRITE, MAND_NEVER,
	     "modules/*/hooks");
	DENY(H "/proj/.git/modules/lib/x/config", MAND_WRITE, MAND_GIT_CONFIG,
	     "a module name with /");
	DENY(H "/proj/.git/modules/a/modules/b/hooks/x", MAND_WRITE, MAND_NEVER, "nested modules");
	ALLOW(H "/proj/.git/modules/sub/index", MAND_WRITE, "a module's index");
	ALLOW(H "/proj/.git/modules/sub/refs/heads/config", MAND_WRITE, "a branch named config");
	ALLOW(H "/proj/.git/refs/heads/hooks", MAND_WRITE, "a branch named hooks");
	ALLOW(H "/proj/.git/index.lock", MAND_WRITE, "index.lock");
	ALLOW(H "/proj/.git/objects/ab/cdef", MAND_WRITE, "objects");
	ALLOW(H "/proj/.git/HEAD", MAND_WRITE, "HEAD");
	DENY(H "/proj/HEAD", MAND_WRITE, MAND_GIT_CONFIG,
	     "a bare repository's HEAD (git log runs its core.pager)");
	DENY(H "/proj/sub/HEAD", MAND_REMOVE, MAND_GIT_CONFIG, "… renamed onto one");
	ALLOW(H "/proj/HEAD", MAND_MKDIR, "… a directory HEAD is none");
	ALLOW(H "/proj/.git/modules/sub/HEAD", MAND_WRITE, "a module's HEAD");
	ALLOW(H "/proj/.git/refs/remotes/origin/HEAD", MAND_WRITE, "a remote's HEAD");
	ALLOW("/srv/repos/app.git/HEAD", MAND_WRITE, "a gitdir found at start's HEAD");
	ALLOW(H "/proj/HEADER", MAND_WRITE, "a name that only starts like it");
	ALLOW(H "/proj/.git/config.lock", MAND_WRITE,
	      "config.lock (the rename onto config is refused)");
	DENY(H "/proj/vendor/lib/.git/hooks/pre-commit", MAND_WRITE, MAND_NEVER,
	     "a nested repository");
	DENY(H "/proj/a/b/c/d/e/.git/config", MAND_WRITE, MAND_GIT_CONFIG, "depth 5");
	DENY(H "/proj/.git", MAND_REMOVE, MAND_NEVER, "mv .git .git.orig");
	DENY(H "/proj/sub/.git", MAND_WRITE, MAND_NEVER, "a .git file");
	DENY(H "/proj/.git", MAND_MKDIR, MAND_GIT_CONFIG, "git init: a new repository");
	ok(strstr(hit.rule, "new repository") != NULL, "… says so: %s", hit.rule);
	DENY("/srv/repos/app.git/config", MAND_WRITE, MAND_GIT_CONFIG, "a gitdir found at start");
	DENY("/srv/repos/app.git/hooks/x", MAND_WRITE, MAND_NEVER, "… its hooks");
	DENY("/srv/repos/app.git/modules", MAND_LINK, MAND_NEVER, "… a symbolic link in it");
	DENY("/srv/repos/app.git", MAND_LINK, MAND_NEVER, "… or in its place");
	ALLOW("/srv/repos/app.git/objects/x", MAND_WRITE, "… its objects");
	DENY("/srv/repos/app.git", MAND_REMOVE, MAND_NEVER, "… renamed away");
	DENY("/srv/repos", MAND_REMOVE, MAND_NEVER, "… a directory holding it");
	DENY(H "/proj/.git/worktrees/x/commondir", MAND_WRITE, MAND_NEVER, "a gitdir listed");
	ALLOW("/srv/other", MAND_REMOVE, "an unrelated directory");
	DENY(H "/proj/.git/modules/sub", MAND_DIR_TO, MAND_NEVER,
	     "a directory moved in as a module's git directory (its hooks come along)");
	DENY(H "/proj/.git/worktrees/y", MAND_DIR_TO, MAND_NEVER, "… as a worktree's");
	DENY("/srv/repos/app.git/modules/m", MAND_DIR_TO, MAND_NEVER,
	     "… in a gitdir found at start");
	ALLOW(H "/proj/.git/modules/sub", MAND_MKDIR,
	      "mkdir of it is fine (its config, hooks are "
	      "checked as made)");
	ALLOW(H "/proj/.git/rebase-merge", MAND_DIR_TO, "a directory moved elsewhere in .git");
	ALLOW(H "/proj/src2", MAND_DIR_TO, "a directory moved in the project");
	cx.git_config = true;
	ALLOW(H "/proj/.git/config", MAND_WRITE, "git_config = yes lifts .git/config");
	ALLOW(H "/proj/.git", MAND_MKDIR, "… and git init");
	DENY(H "/proj/.git/hooks/x", MAND_WRITE, MAND_NEVER, "… not hooks");
	DENY(H "/proj/.git", MAND_REMOVE, MAND_NEVER, "… nor renaming .git");
	ALLOW(H "/proj/HEAD", MAND_WRITE, "… and git init --bare");
	cx.git_config = false;
}

static void test_home(void)
{
	static const char *fixed[] = {"/.ssh/authorized_keys",
				      "/.gnupg/x",
				      "/.config/sbxsh/sbxsh.ini",
				      "/.config/git/config",
				      "/.config/systemd/user/x.service",
				      "/.config/autostart/x.desktop",
				      "/.config/environment.d/x.conf",
				      "/.local/bin/git",
				      "/.local/share/systemd/user/x",
				      "/.pam_environment",
				      "/.local/state/sbxsh/violations.jsonl",
				      "/.ssh",
				      "/.config/sbxsh"};
	const char *g2[] = {H, H "/.config", H "/.local", H "/.ssh"};
	struct mand_ctx save = cx;
	char p[256];

	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++) {
		snprintf(p, sizeof(p), H "%s", fixed[i]);
		DENY(p, MAND_WRITE, MAND_NEVER, "read-only below home whatever is granted");
	}
	cx.grants = g2;
	cx.ngrants = 4;
	DENY(H "/.config/sbxsh/sbxsh.ini", MAND_WRITE, MAND_NEVER, "even with ~/.config granted");
	DENY(H "/.config/sbxsh", MAND_MKDIR, MAND_NEVER, "mkdir -p ~/.config/sbxsh");
	DENY(H "/.config", MAND_REMOVE, MAND_NEVER, "mv ~/.config ~/.config.x");
	DENY(H "/.local/state", MAND_REMOVE, MAND_NEVER, "mv ~/.local/state");
	DENY(H "/.ssh/authorized_keys", MAND_WRITE, MAND_NEVER, "~/.ssh even when granted");
	ALLOW(H "/.config/tool/x", MAND_WRITE, "a granted dot-entry");
	DENY(H "/.config.x", MAND_MKDIR, MAND_HOME_GRANT,
	     "… the new name ~/.config.x is not granted");
	cx = save;
	DENY(H "/.npmrc", MAND_WRITE, MAND_HOME_GRANT, "a grant of ~ never covers ~/.*");
	DENY(H "/.config/tool/x", MAND_WRITE, MAND_HOME_GRANT, "… nor what is below a dot-entry");
	DENY(H "/bin/evil", MAND_WRITE, MAND_HOME_GRANT, "… nor ~/bin");
	DENY(H "/bin", MAND_MKDIR, MAND_HOME_GRANT, "… mkdir ~/bin");
	ALLOW(H "/.cache/thumbnails/x", MAND_WRITE, "~/.cache is granted by name");
	DENY(H "/.cache/pip/wheels/x.whl", MAND_WRITE, MAND_NEVER,
	     "… but not a cache a host tool takes code from");
	DENY(H "/.cache/pre-commit", MAND_DIR_TO, MAND_NEVER, "… nor a directory moved in there");
	DENY(H "/.cache/p10k-instant-prompt-u.zsh", MAND_WRITE, MAND_NEVER,
	     "… nor zsh's instant prompt (a pattern)");
	ok(hit.rule && strcmp(hit.rule, "~/.cache/p10k-*") == 0, "… named %s", hit.rule);
	ALLOW(H "/.cache/p10k", MAND_MKDIR, "… a name only like it");
	DENY(H "/.config/tmux/tmux.conf", MAND_WRITE, MAND_NEVER,
	     "~/.config/tmux, ~/.config not granted");
	ALLOW(H "/.local/lib/python3/x", MAND_WRITE, "~/.local granted");
	DENY(H "/.local/bin/pip", MAND_WRITE, MAND_NEVER, "… but ~/.local/bin stays read-only");
	ALLOW(H "/notes.txt", MAND_WRITE, "a plain file in a granted ~");
	ALLOW(H "/binaries/x", MAND_WRITE, "a name that only starts with bin");
	DENY(H "/.bashrc", MAND_WRITE, MAND_NEVER, "~/.bashrc is a name rule (never lifted)");
	DENY(H, MAND_REMOVE, MAND_NEVER, "renaming home itself");
	ALLOW("/home/other/.bashrc2", MAND_WRITE, "another home: no home rule");
}

/* the home rule's fixed paths below ~/.local and their patterns: what the host's own tools load
 * and run (bash-completion, Neovim, fish, D-Bus, desktop entries, Python's user site) */
static void test_home_local(void)
{
	static const char *fixed[] = {
	    "/.local/share/bash-completion/completions/git",
	    "/.local/share/bash-completion",
	    "/.config/bash_completion",
	    "/.local/share/nvim/site/plugin/x.lua",
	    "/.local/share/nvim/site/pack/p/start/x/plugin/x.vim",
	    "/.local/share/fish/vendor_conf.d/x.fish",
	    "/.local/share/fish/vendor_functions.d/fish_prompt.fish",
	    "/.local/share/fish/vendor_completions.d/git.fish",
	    "/.local/share/fish/generated_completions/git.fish",
	    "/.local/share/dbus-1/services/org.freedesktop.Notifications.service",
	    "/.local/share/applications/firefox.desktop"};
	static const char *py[] = {"evil.pth",
				   ".hidden.pth",
				   "usercustomize.py",
				   "usercustomize",
				   "usercustomize/__init__.py",
				   "usercustomize.cpython-311-x86_64-linux-gnu.so",
				   "usercustomize.pyc",
				   "sitecustomize.py",
				   "__pycache__/usercustomize.cpython-311.pyc",
				   "__pycache__/sitecustomize.cpython-311.pyc"};
	const char *g2[] = {H "/.local", H "/.config"};
	struct mand_ctx save = cx;
	char p[256];

	cx.grants = g2;
	cx.ngrants = 2;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++) {
		snprintf(p, sizeof(p), H "%s", fixed[i]);
		DENY(p, MAND_WRITE, MAND_NEVER, "run by a host tool, ~/.local granted");
		DENY(p, MAND_MKDIR, MAND_NEVER, "… mkdir");
		DENY(p, MAND_REMOVE, MAND_NEVER, "… renamed onto");
	}
	DENY(H "/.local/share/bash-completion", MAND_WRITE, MAND_NEVER, "… as a link");
	ok(hit.rule && strcmp(hit.rule, "~/.local/share/bash-completion") == 0, "… named %s",
	   hit.rule);
	DENY(H "/.local/share/nvim", MAND_REMOVE, MAND_NEVER, "~/.local/share/nvim renamed away");
	DENY(H "/.local/share/fish", MAND_DIR_TO, MAND_NEVER,
	     "a directory moved in as ~/.local/share/fish");
	DENY(H "/.local/share", MAND_WRITE, MAND_NEVER,
	     "~/.local/share made a link (a missing directory on the way)");
	DENY(H "/.local/share/nvim", MAND_WRITE, MAND_NEVER, "… ~/.local/share/nvim");
	ALLOW(H "/.local/share/nvim", MAND_MKDIR, "… made a directory");
	ALLOW(H "/.local", MAND_WRITE, "chmod of the grant's root (it stands: a mount point)");
	DENY(H "/.local", MAND_REMOVE, MAND_NEVER, "… never renamed");
	ALLOW(H, MAND_WRITE, "chmod of home");
	ALLOW(H "/.local/share/nvim/shada", MAND_WRITE, "Neovim's other data");
	ALLOW(H "/.local/share/nvim/sitex", MAND_WRITE, "a name that only starts like site");
	DENY(H "/.local/share/nvim/lazy/p/plugin/x.lua", MAND_WRITE, MAND_NEVER,
	     "lazy.nvim's plugins (loaded at every start)");
	DENY(H "/.local/share/jupyter/kernels/k/kernel.json", MAND_WRITE, MAND_NEVER,
	     "a Jupyter kernel (its argv runs)");
	DENY(H "/.config/Code - OSS/User/tasks.json", MAND_WRITE, MAND_NEVER,
	     "an editor's tasks (~/.config granted)");
	DENY(H "/.config/mimeapps.list", MAND_WRITE, MAND_NEVER, "the MIME handlers");
	ALLOW(H "/.config/mimeapps.list.x", MAND_WRITE, "a name that only starts like it");
	ALLOW(H "/.config/tmuxinator/x.yml", MAND_WRITE, "… another");
	ALLOW(H "/.local/share/fish/fish_history", MAND_WRITE, "fish's history");
	ALLOW(H "/.local/share/bash-completionx", MAND_WRITE, "a name that only starts like it");
	ALLOW(H "/.local/share/other/x", MAND_WRITE, "another directory in ~/.local/share");
	for (size_t i = 0; i < sizeof(py) / sizeof(*py); i++) {
		snprintf(p, sizeof(p), H "/.local/lib/python3.11/site-packages/%s", py[i]);
		DENY(p, MAND_WRITE, MAND_NEVER, "run at every host python start");
		DENY(p, MAND_REMOVE, MAND_NEVER, "… renamed onto");
		ok(hit.rule && strstr(hit.rule, "site-packages/{*.pth"), "… named %s", hit.rule);
	}
	DENY(H "/.local/lib/python3.12/site-packages/x.pth", MAND_MKDIR, MAND_NEVER,
	     "another version; mkdir");
	DENY(H "/.local/lib/python3.11/site-packages", MAND_WRITE, MAND_NEVER,
	     "site-packages made a link");
	DENY(H "/.local/lib/python3.11/site-packages", MAND_DIR_TO, MAND_NEVER,
	     "… a directory moved in as it");
	DENY(H "/.local/lib/python3.11", MAND_DIR_TO, MAND_NEVER, "… as a directory above it");
	DENY(H "/.local/lib", MAND_REMOVE, MAND_NEVER, "… that one removed");
	DENY(H "/.local/lib/python3.11/site-packages/__pycache__", MAND_WRITE, MAND_NEVER,
	     "… its __pycache__ made a link");
	ALLOW(H "/.local/lib/python3.11/site-packages", MAND_MKDIR, "pip makes it");
	ALLOW(H "/.local/lib/python3.11/site-packages/__pycache__", MAND_MKDIR, "… and its cache");
	ALLOW(H "/.local/lib/python3.11/site-packages/demo/__init__.py", MAND_WRITE,
	      "what pip install --user writes");
	ALLOW(H "/.local/lib/python3.11/site-packages/demo", MAND_REMOVE, "… and pip uninstall");
	ALLOW(H "/.local/lib/python3.11/site-packages/demo-1.0.dist-info/RECORD", MAND_WRITE,
	      "… its metadata");
	ALLOW(H "/.local/lib/python3.11/site-packages/demo/x.pth", MAND_WRITE,
	      "a .pth in a package (site.py reads site-packages only)");
	ALLOW(H "/.local/lib/python3.11/site-packages/__pycache__/six.cpython-311.pyc", MAND_WRITE,
	      "another module's cached .pyc");
	ALLOW(H "/.local/lib/python3.11/site-packages/x.pthx", MAND_WRITE, "not *.pth");
	ALLOW(H "/.local/lib/node/site-packages/x.pth", MAND_WRITE, "not python*");
	ALLOW("/srv/w/.local/lib/python3.11/site-packages/x.pth", MAND_WRITE, "not below home");
	cx = save;
	DENY(H "/.local/lib/python3.11/site-packages/x.pth", MAND_WRITE, MAND_NEVER,
	     "… with ~ granted too");
}

static void test_fixed(void)
{
	static const char *const fx[] = {H "/work/cfg/sbxsh", H "/work/cfg/git",
					 H "/work/data/bash-completion"};
	struct mand_ctx save = cx;

	cx.fixed = fx;
	cx.nfixed = 3;
	DENY(H "/work/cfg/sbxsh/sbxsh.ini", MAND_WRITE, MAND_NEVER,
	     "$XDG_CONFIG_HOME/sbxsh/sbxsh.ini");
	DENY(H "/work/cfg/git/config", MAND_WRITE, MAND_NEVER, "$XDG_CONFIG_HOME/git/config");
	DENY(H "/work/cfg/sbxsh", MAND_MKDIR, MAND_NEVER, "… mkdir");
	DENY(H "/work/data/bash-completion/completions/git", MAND_WRITE, MAND_NEVER,
	     "$XDG_DATA_HOME/bash-completion");
	ok(hit.rule && strstr(hit.rule, "$XDG_DATA_HOME/{bash-completion"), "… named (%s)",
	   hit.rule);
	DENY(H "/work/cfg", MAND_REMOVE, MAND_NEVER, "… a directory holding one renamed");
	DENY(H "/work/cfg", MAND_DIR_TO, MAND_NEVER, "… a directory renamed onto one's parent");
	ALLOW(H "/work/cfg/other/x", MAND_WRITE, "another directory beside them");
	ALLOW(H "/work/cfg/sbxsh2", MAND_WRITE, "a name that only starts like one");
	DENY(H "/work/cfg", MAND_WRITE, MAND_NEVER, "… a directory on the way made a link");
	ALLOW(H "/work/cfg", MAND_MKDIR, "… made a directory");
	DENY(H "/work", MAND_WRITE, MAND_NEVER, "… one further up (it may be missing)");
	ALLOW(H, MAND_WRITE, "… not home (it stands)");
	ALLOW(H "/proj", MAND_WRITE, "… nor a grant's root");
	cx.recovery = H "/work/cfg/sbxsh";
	ALLOW(H "/work/cfg/sbxsh/sbxsh.ini", MAND_WRITE, "the recovery shell's directory");
	cx = save;
}

static void test_gaps(void)
{
	static const char *n[] = {".envrc",
				  ".direnvrc",
				  ".hgrc",
				  ".hgsub",
				  ".zlogout",
				  ".cshrc",
				  ".tcshrc",
				  ".login",
				  ".kshrc",
				  ".mkshrc",
				  ".pre-commit-config.yaml",
				  ".husky",
				  ".devcontainer",
				  ".devcontainer.json",
				  ".zed",
				  ".exrc",
				  ".nvimrc",
				  ".nvim.lua",
				  ".dir-locals.el",
				  ".dir-locals-2.el",
				  ".cursor",
				  ".pdbrc",
				  ".irbrc",
				  ".pryrc",
				  ".Rprofile",
				  ".Renviron",
				  ".ghci",
				  ".octaverc"};
	char p[256];

	for (size_t i = 0; i < sizeof(n) / sizeof(*n); i++) {
		snprintf(p, sizeof(p), H "/proj/%s", n[i]);
		DENY(p, MAND_WRITE, MAND_NEVER, "run by a host tool");
		ok(hit.rule && strcmp(hit.rule, n[i]) == 0, "… named %s", hit.rule);
		snprintf(p, sizeof(p), H "/proj/a/b/c/d/e/%s/x", n[i]);
		DENY(p, MAND_WRITE, MAND_NEVER, "at depth 5, and below it");
	}
	DENY(H "/proj/.env", MAND_WRITE, MAND_NEVER, ".env, loaded at the next cd");
	DENY(H "/proj/a/b/c/d/e/.env", MAND_WRITE, MAND_NEVER, "… at depth 5");
	DENY(H "/proj/.env", MAND_REMOVE, MAND_NEVER, "… replaced by a rename");
	ALLOW(H "/proj/.env", MAND_MKDIR, "a virtualenv called .env");
	ALLOW(H "/proj/.env/lib/python3/site.py", MAND_WRITE, "… and what pip puts in it");
	ALLOW(H "/proj/.env.example", MAND_WRITE, "a name that only starts like one");
	ALLOW(H "/proj/envrc", MAND_WRITE, "without the dot");
	DENY(H "/proj/irb.rc", MAND_WRITE, MAND_NEVER, "irb.rc, irb's rc after ./.irbrc");
	DENY(H "/proj/a/b/c/d/e/_irbrc", MAND_WRITE, MAND_NEVER, "… _irbrc, at depth 5");
	DENY(H "/proj/irb.rc", MAND_REMOVE, MAND_NEVER, "… replaced by a rename");
	ALLOW(H "/proj/irb.rc/x", MAND_WRITE, "… a directory by that name holds nothing irb reads");
	ALLOW(H "/proj/xirb.rc", MAND_WRITE, "… a name that only ends like one");
	/* Mercurial, the way .git is treated */
	DENY(H "/proj/.hg/hgrc", MAND_WRITE, MAND_NEVER, "an hgrc runs hooks");
	DENY("/srv/elsewhere/a/b/.hg/hgrc", MAND_WRITE, MAND_NEVER, "anywhere, granted or not");
	DENY(H "/proj/.hg/hgrc-not-shared", MAND_WRITE, MAND_NEVER, "share-safe's own config");
	DENY(H "/proj/.hg/sharedpath", MAND_WRITE, MAND_NEVER, "a redirect to another hgrc");
	DENY(H "/proj/.hg", MAND_REMOVE, MAND_NEVER, "the repository renamed away");
	DENY(H "/proj/.hg", MAND_WRITE, MAND_NEVER, "a file or link named .hg");
	DENY(H "/proj/sub/.hg", MAND_DIR_TO, MAND_NEVER, "a directory moved in as .hg");
	ALLOW(H "/proj/.hg", MAND_MKDIR, "hg init");
	ALLOW(H "/proj/.hg/store/data/f.i", MAND_WRITE, "what hg commit writes");
	ALLOW(H "/proj/.hg/dirstate", MAND_WRITE, "… its dirstate");
	ALLOW(H "/proj/.hg/wlock", MAND_WRITE, "… its locks");
	ALLOW(H "/proj/x.hg/hgrc", MAND_WRITE, "a name that only ends like one");
	/* Jujutsu, the same way */
	DENY(H "/proj/.jj/repo/config.toml", MAND_WRITE, MAND_NEVER, "jj's repository config");
	DENY("/srv/elsewhere/a/.jj/repo/config.toml", MAND_WRITE, MAND_NEVER, "… anywhere");
	DENY(H "/proj/.jj/repo/config-id", MAND_REMOVE, MAND_NEVER, "… the id naming its own");
	DENY(H "/proj/.jj/workspace-config.toml", MAND_WRITE, MAND_NEVER, "… the workspace's");
	DENY(H "/proj/.jj/workspace-config-id", MAND_WRITE, MAND_NEVER, "… its id");
	DENY(H "/proj/.jj/repo", MAND_WRITE, MAND_NEVER, ".jj/repo a file (another repository)");
	DENY(H "/proj/.jj/repo", MAND_DIR_TO, MAND_NEVER, "… a directory moved in as .jj/repo");
	DENY(H "/proj/.jj", MAND_REMOVE, MAND_NEVER, "the repository renamed away");
	DENY(H "/proj/.jj", MAND_LINK, MAND_NEVER, "a link named .jj");
	ALLOW(H "/proj/.jj", MAND_MKDIR, "jj git init");
	/* Sapling, Pijul, Darcs, Fossil: what runs code at the host's next command */
	DENY(H "/proj/.sl/config", MAND_WRITE, MAND_NEVER, "Sapling's repository config");
	DENY("/srv/x/a/b/.sl/sharedpath", MAND_WRITE, MAND_NEVER, "… its sharedpath, anywhere");
	DENY(H "/proj/.git/sl/config", MAND_WRITE, MAND_NEVER, "… in a git-backed checkout");
	DENY(H "/proj/.git/sl", MAND_DIR_TO, MAND_NEVER, "… its directory moved in");
	ALLOW(H "/proj/.git/sl", MAND_MKDIR, "… made");
	ALLOW(H "/proj/.git/sl/store/x", MAND_WRITE, "… what sl writes there");
	DENY(H "/proj/.git/modules/lib/sl/config", MAND_WRITE, MAND_NEVER, "… a submodule's");
	ALLOW(H "/proj/.git/modules/lib/sl/store/x", MAND_WRITE, "… what sl writes there");
	DENY(H "/proj/.sl", MAND_DIR_TO, MAND_NEVER, "… a directory moved in as .sl");
	DENY(H "/proj/.sl", MAND_REMOVE, MAND_NEVER, "… .sl renamed away");
	ALLOW(H "/proj/.sl", MAND_MKDIR, "sl init");
	ALLOW(H "/proj/.sl/store/data/f.i", MAND_WRITE, "what sl commit writes");
	ALLOW(H "/proj/sl/config", MAND_WRITE, "sl/ outside a .git");
	DENY(H "/proj/.pijul/config", MAND_WRITE, MAND_NEVER, "Pijul's config ([hooks])");
	DENY(H "/proj/.pijul/hooks/record", MAND_WRITE, MAND_NEVER, "… its hooks/");
	DENY(H "/proj/.pijul/shared-hooks-approved", MAND_WRITE, MAND_NEVER, "… a hook approval");
	ALLOW(H "/proj/.pijul/pristine/db", MAND_WRITE, "what pijul record writes");
	DENY(H "/proj/_darcs/prefs/defaults", MAND_WRITE, MAND_NEVER, "Darcs' posthooks");
	DENY(H "/proj/a/_darcs/prefs/prefs", MAND_WRITE, MAND_NEVER, "… setpref's test command");
	DENY(H "/proj/_darcs/prefs", MAND_DIR_TO, MAND_NEVER, "… prefs/ moved in");
	DENY(H "/proj/_darcs", MAND_REMOVE, MAND_NEVER, "… _darcs renamed away");
	ALLOW(H "/proj/_darcs/prefs/repos", MAND_WRITE, "what darcs pull writes");
	ALLOW(H "/proj/_darcs/patches/x", MAND_WRITE, "what darcs record writes");
	DENY(H "/proj/.fslckout", MAND_WRITE, MAND_NEVER, "Fossil's checkout database");
	DENY(H "/proj/a/b/_FOSSIL_", MAND_WRITE, MAND_NEVER, "… its other name");
	DENY(H "/proj/.fslckout-journal", MAND_WRITE, MAND_NEVER, "… a hot journal");
	ALLOW(H "/proj/fslckout", MAND_WRITE, "a name without the dot");
	DENY(H "/proj/rust-toolchain.toml", MAND_WRITE, MAND_NEVER, "rustup's toolchain file");
	DENY(H "/proj/a/b/rust-toolchain", MAND_LINK, MAND_NEVER, "… the older name, deeper");
	ALLOW(H "/proj/rust-toolchain.txt", MAND_WRITE, "another name");
	DENY(H "/proj/a/.perldb", MAND_WRITE, MAND_NEVER, "the Perl debugger's start-up file");
	DENY(H "/proj/a/.shadowenv.d/500.lisp", MAND_WRITE, MAND_NEVER, "Shadowenv's programs");
	DENY(H "/proj/.shadowenv.d", MAND_REMOVE, MAND_NEVER, "… renamed away");
	ALLOW(H "/proj/.jj/repo", MAND_MKDIR, "… its repo/");
	ALLOW(H "/proj/.jj/repo/op_store/operations/ab", MAND_WRITE,
	      "what jj writes in normal work");
	ALLOW(H "/proj/.jj/repo/store/git_target", MAND_WRITE, "… its git backend's place");
	ALLOW(H "/proj/.jj/working_copy/checkout", MAND_WRITE, "… its working copy");
	ALLOW(H "/proj/jj/repo/config.toml", MAND_WRITE, "without the dot");
	/* the home rule's fixed paths of the same tools, even granted */
	DENY(H "/.config/hg/hgrc", MAND_WRITE, MAND_NEVER, "~/.config/hg");
	DENY(H "/.config/direnv/direnvrc", MAND_WRITE, MAND_NEVER, "~/.config/direnv");
	DENY(H "/.config/nvim/init.lua", MAND_WRITE, MAND_NEVER, "~/.config/nvim");
}

static void test_policy(void)
{
	static const char *pol[] = {H "/proj/cfg/p.ini", "/etc/sbxsh"};
	struct mand_ctx save = cx;

	cx.policy = pol;
	cx.npolicy = 2;
	DENY(H "/proj/cfg/p.ini", MAND_WRITE, MAND_NEVER, "the --config file");
	ok(hit.rule && strstr(hit.rule, "--config"), "… named as the policy (%s)", hit.rule);
	DENY(H "/proj/cfg/p.ini", MAND_REMOVE, MAND_NEVER, "… removed or renamed away");
	DENY(H "/proj/cfg", MAND_REMOVE, MAND_NEVER, "its directory renamed (a renamed parent)");
	DENY(H "/proj", MAND_DIR_TO, MAND_NEVER, "… or replaced by a directory moved in");
	DENY("/etc/sbxsh/conf.d/x.ini", MAND_WRITE, MAND_NEVER, "the system directory");
	ALLOW(H "/proj/cfg/other.ini", MAND_WRITE, "a file beside it");
	ALLOW(H "/proj/cfg/p.ini.bak", MAND_WRITE, "a name that only starts like it");
	cx.recovery = H "/proj/cfg";
	ALLOW(H "/proj/cfg/p.ini", MAND_WRITE, "the recovery shell's directory");
	cx = save;
}

static void test_list(void)
{
	size_t n, m;
	const char *const *v = mandatory_names(false, &n);
	const char *const *h = mandatory_names(true, &m);
	int g = 0, s = 0;

	for (size_t i = 0; i < n; i++) {
		g += strcmp(v[i], ".git/hooks") == 0;
		s += strcmp(v[i], ".claude/settings*.json") == 0;
	}
	ok(n >= 25 && g == 1 && s == 1, "the probe list holds the names (%zu)", n);
	ok(m >= 11 && strcmp(h[0], ".ssh") == 0, "the home list (%zu)", m);
	/* every name refused anywhere is probed (the read-only copy of an existing one) */
	for (size_t i = 0, k = 0; i < n; i++, k = 0) {
		char p[256];

		if (strchr(v[i], '*'))
			continue;
		snprintf(p, sizeof(p), H "/proj/%s", v[i]);
		k = (size_t)C(p, MAND_WRITE);
		if (k != 1)
			ok(0, "probe name %s is refused", v[i]);
	}
	/* each name an $XDG_* variable moves is a home fixed path below its default place */
	static const struct {
		const char *const *(*list)(size_t *);
		const char *dir, *var;
		size_t min;
	} xdg[] = {{mandatory_xdg_config, ".config", "XDG_CONFIG_HOME", 10},
		   {mandatory_xdg_data, ".local/share", "XDG_DATA_HOME", 9},
		   {mandatory_xdg_cache, ".cache", "XDG_CACHE_HOME", 10}};
	int found;

	for (size_t k = 0; k < sizeof(xdg) / sizeof(*xdg); k++) {
		size_t nx;
		const char *const *x = xdg[k].list(&nx);

		found = 0;
		for (size_t i = 0; i < nx; i++) {
			char p[256];

			snprintf(p, sizeof(p), "%s/%s", xdg[k].dir, x[i]);
			for (size_t j = 0; j < m; j++)
				found += strcmp(h[j], p) == 0;
		}
		ok(nx >= xdg[k].min && found == (int)nx, "each $%s name is a home fixed path (%zu)",
		   xdg[k].var, nx);
	}
	found = 0;
	for (size_t j = 0; j < m; j++)
		found += strcmp(h[j], ".local/lib/python*/site-packages/*.pth") == 0;
	ok(found == 1, "the home list ends with the patterns, for the mounts' probes");
}

/* core.hooksPath's directories (mand_ctx.hooks): at or below one, and a directory holding
 * one renamed, removed or replaced; mkdir on the way works */
static void test_hooks(void)
{
	static const char *hooks[] = {H "/proj/tools/hooks"};

	cx.hooks = hooks;
	cx.nhooks = 1;
	DENY(H "/proj/tools/hooks/pre-commit", MAND_WRITE, MAND_NEVER, "a hook there");
	DENY(H "/proj/tools/hooks", MAND_MKDIR, MAND_NEVER, "the directory made");
	DENY(H "/proj/tools/hooks", MAND_REMOVE, MAND_NEVER, "the directory renamed away");
	DENY(H "/proj/tools", MAND_REMOVE, MAND_NEVER, "its parent renamed away");
	DENY(H "/proj/tools", MAND_DIR_TO, MAND_NEVER,
	     "a directory renamed into its parent's place");
	DENY(H "/proj/tools", MAND_LINK, MAND_NEVER, "a link in its parent's place");
	ALLOW(H "/proj/tools", MAND_MKDIR, "its parent made");
	ALLOW(H "/proj/tools/hooks.x/pre-commit", MAND_WRITE, "a sibling written");
	ALLOW(H "/proj/tools/other", MAND_REMOVE, "a sibling removed");
	cx.hooks = NULL;
	cx.nhooks = 0;
	ALLOW(H "/proj/tools/hooks/pre-commit", MAND_WRITE, "control: no hooksPath");
}

/* the global config's relative core.hooksPath (mand_ctx.hooknames): by name at any depth in
 * the home directory or a write grant, as .git/hooks is */
static void test_hooknames(void)
{
	static const char *names[] = {".githooks", "tools/hooks"};

	cx.hooknames = names;
	cx.nhooknames = 2;
	DENY(H "/proj/vendor/lib/.githooks/pre-commit", MAND_WRITE, MAND_NEVER,
	     "a nested repository's hook");
	ok(hit.rule && strstr(hit.rule, "core.hooksPath"), "… named %s", hit.rule);
	DENY(H "/proj/.githooks", MAND_MKDIR, MAND_NEVER, "the directory made");
	DENY("/srv/w/a/b/c/d/e/tools/hooks/post-commit", MAND_WRITE, MAND_NEVER,
	     "two components, depth 6, in a grant outside home");
	DENY(H "/proj/x/tools", MAND_DIR_TO, MAND_NEVER, "a directory moved where it holds one");
	DENY(H "/proj/x/tools", MAND_LINK, MAND_NEVER, "a link there");
	DENY(H "/proj/x/tools", MAND_REMOVE, MAND_NEVER, "… renamed away");
	ALLOW(H "/proj/x/tools", MAND_MKDIR, "… made");
	ALLOW(H "/proj/x/tools/other", MAND_WRITE, "a sibling of hooks");
	ALLOW(H "/proj/x/hooks/pre-commit", MAND_WRITE, "hooks without tools/");
	ALLOW(H "/proj/.githooks2/pre-commit", MAND_WRITE, "a name only like it");
	ALLOW("/etc/.githooks/x", MAND_WRITE, "outside home and the grants: the mounts' work");
	cx.hooknames = NULL;
	cx.nhooknames = 0;
	ALLOW(H "/proj/vendor/lib/.githooks/pre-commit", MAND_WRITE, "control: no such config");
}

/* $PATH's directories (mand_ctx.bins): a name directly in one, the directory itself, a
 * directory holding one; a subdirectory and what is below it are not */
static void test_bins(void)
{
	static const char *bins[] = {H "/proj/bin", "/srv/w/tools/bin"};

	cx.bins = bins;
	cx.nbins = 2;
	DENY(H "/proj/bin/git", MAND_WRITE, MAND_NEVER, "a program made there");
	DENY(H "/proj/bin/git", MAND_LINK, MAND_NEVER, "a link made there");
	DENY(H "/proj/bin/git", MAND_REMOVE, MAND_NEVER, "a program removed (a later one shows)");
	DENY(H "/proj/bin/d", MAND_DIR_TO, MAND_NEVER, "a directory renamed there");
	DENY(H "/proj/bin", MAND_REMOVE, MAND_NEVER, "the directory renamed away");
	DENY(H "/proj/bin", MAND_LINK, MAND_NEVER, "a link in its place");
	DENY("/srv/w/tools", MAND_REMOVE, MAND_NEVER, "its parent renamed away");
	ALLOW(H "/proj/bin", MAND_MKDIR, "the directory made");
	ALLOW(H "/proj/bin/sub", MAND_MKDIR, "a subdirectory made");
	ALLOW(H "/proj/bin/sub/x", MAND_WRITE, "a file below a subdirectory");
	ALLOW(H "/proj/bin.x/git", MAND_WRITE, "a sibling directory's");
	ALLOW(H "/proj", MAND_WRITE, "chmod of the grant holding it");
	cx.bins = NULL;
	cx.nbins = 0;
	ALLOW(H "/proj/bin/git", MAND_WRITE, "control: not on PATH");
}

/* mise's and lefthook's configs, at any depth; their look-alikes are not */
static void test_tools(void)
{
	static const char *deny[] = {
	    "mise.toml",	   "mise.local.toml",	    ".mise.dev.local.toml",
	    ".rtx.toml",	   "a/b/mise.toml",	    "mise/config.toml",
	    "mise/config.ci.toml", ".config/mise.toml",	    ".config/mise/conf.d/x",
	    ".mise/config.toml",   "lefthook.yml",	    ".lefthook-local.json",
	    "lefthook-local.toml", ".config/lefthook.yaml", ".lefthook/pre-commit/x.sh"};
	static const char *allow[] = {"mise.txt",	   "mise/other.toml", "x/config.toml",
				      "lefthook.md.txt",   "notmise.toml",    "main.c",
				      ".config/other.toml"};
	char p[256];

	for (size_t i = 0; i < sizeof(deny) / sizeof(deny[0]); i++) {
		snprintf(p, sizeof(p), H "/proj/%s", deny[i]);
		DENY(p, MAND_WRITE, MAND_NEVER, "mise's or lefthook's config");
	}
	for (size_t i = 0; i < sizeof(allow) / sizeof(allow[0]); i++) {
		snprintf(p, sizeof(p), H "/proj/%s", allow[i]);
		ALLOW(p, MAND_WRITE, "a look-alike");
	}
	ALLOW(H "/proj/mise.toml", MAND_MKDIR, "a directory named so holds nothing mise reads");
	DENY(H "/.config/mise/config.toml", MAND_WRITE, MAND_NEVER,
	     "~/.config/mise, granted or not");
}

/* the sandbox's own tmpfs mounts: no rule there, but below a host directory granted into one */
static void test_scratch(void)
{
	static const char *scratch[] = {"/dev/shm", "/tmp"};
	static const char *g[] = {H "/proj", "/tmp/hostdir"};
	struct mand_ctx saved = cx;

	DENY("/tmp/r/.git", MAND_MKDIR, MAND_GIT_CONFIG, "control: no scratch list");
	cx.scratch = scratch;
	cx.nscratch = 2;
	cx.grants = g;
	cx.ngrants = 2;
	ALLOW("/tmp/r/.git", MAND_MKDIR, "a repository in the private /tmp");
	ALLOW("/tmp/r/.git/hooks/pre-commit", MAND_WRITE, "its hooks");
	ALLOW("/tmp/.bashrc", MAND_WRITE, "a start-up file's name there");
	ALLOW("/dev/shm/x/.git/config", MAND_WRITE, "a git config in /dev/shm");
	DENY("/tmp/hostdir/.git", MAND_MKDIR, MAND_GIT_CONFIG, "a host directory granted there");
	DENY("/tmp/hostdir/a/.bashrc", MAND_WRITE, MAND_NEVER, "… at any depth");
	ALLOW("/tmp/hostdir.x/.git", MAND_MKDIR, "a sibling of the granted one");
	DENY("/tmpx/.git", MAND_MKDIR, MAND_GIT_CONFIG, "a look-alike of /tmp");
	DENY(H "/proj/.git/hooks/x", MAND_WRITE, MAND_NEVER, "the project, as before");
	ok(mandatory_scratch(&cx, "/tmp") && !mandatory_scratch(&cx, "/tmp/hostdir") &&
	       !mandatory_scratch(&cx, H),
	   "mandatory_scratch: /tmp yes, its granted host directory and the home no");
	cx = saved;
}

static void test_denies(void)
{
	static const char *const dn[] = {H "/proj/CLAUDE.md", H "/proj/sub/.claude"};
	struct mand_ctx save = cx;

	ALLOW(H "/proj/CLAUDE.md", MAND_WRITE, "control: no deny list");
	cx.holds = dn;
	cx.nholds = 2;
	DENY(H "/proj/CLAUDE.md", MAND_WRITE, MAND_DENY_WRITE, "a deny_write missing at start");
	ok(hit.rule == dn[0], "… the hit names the entry itself");
	DENY(H "/proj/sub/.claude", MAND_MKDIR, MAND_DENY_WRITE, "… made as a directory");
	DENY(H "/proj/sub/.claude/logs/x", MAND_WRITE, MAND_DENY_WRITE, "… below one");
	DENY(H "/proj/sub", MAND_REMOVE, MAND_DENY_WRITE, "… a directory holding one renamed");
	DENY(H "/proj/sub", MAND_DIR_TO, MAND_DENY_WRITE, "… a directory renamed into its place");
	ALLOW(H "/proj/sub", MAND_MKDIR, "… the directory holding one made");
	ALLOW(H "/proj/CLAUDE.md.bak", MAND_WRITE, "a name that only starts like one");
	ALLOW(H "/proj/sub/x", MAND_WRITE, "another name beside one");
	DENY(H "/proj/sub/.claude/settings.json", MAND_WRITE, MAND_NEVER,
	     "a mandatory rule is the stronger word");
	cx = save;
}

static void test_holds(void)
{
	static const char *const hd[] = {H "/proj/secrets/key", H "/proj/conf/prod.yml"};
	struct mand_ctx save = cx;

	ALLOW(H "/proj/secrets/key", MAND_REMOVE, "control: no hold list");
	cx.holds = hd;
	cx.nholds = 2;
	DENY(H "/proj/secrets/key", MAND_REMOVE, MAND_DENY_WRITE,
	     "a hidden path removed (the guard's unlink is made outside the mask)");
	ok(hit.rule == hd[0], "… the hit names the path itself");
	DENY(H "/proj/conf/prod.yml", MAND_WRITE, MAND_DENY_WRITE, "a read-only one made anew");
	DENY(H "/proj/secrets", MAND_REMOVE, MAND_DENY_WRITE, "… a directory holding one renamed");
	DENY(H "/proj/conf", MAND_DIR_TO, MAND_DENY_WRITE, "… a directory renamed into its place");
	ALLOW(H "/proj/conf/other.yml", MAND_WRITE, "another name beside one");
	ALLOW(H "/proj/conf.bak", MAND_REMOVE, "a name that only starts like one");
	cx = save;
}

/* mand_ctx.fixed_lcp and holds_lcp skip entries, never change a verdict: every name near each
 * entry (itself, below, above, beside, a prefix, a longer name, other spellings), every op,
 * checked with and without them, gives the same answer and the same rule. */
static const char *const lcp_fx[] = {H "/.config/sbxsh",	H "/.config/git",
				     H "/.config/gitk",		H "/.config/g",
				     H "/.config/git/x",	H "/.conf",
				     H "/.config/systemd/user", H "/.config/z/",
				     H "/.config//y",		H "/.local/state/sbxsh",
				     H "/.local/state/mise",	"/srv/a/b",
				     H "/.config/git"};
static const char *const lcp_hd[] = {H "/proj/secrets/key", H "/proj/secrets/key2",
				     H "/proj/secrets/",    H "/proj/conf/prod.yml",
				     H "/proj/s",	    "/"};

static int lcp_probes(char (*out)[256], const char *const *v, size_t n)
{
	static const char *const tails[] = {"", "/x", "/x/y", "2", "/", "x", "//z"};
	int np = 0;

	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(v[i]);

		for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++)
			snprintf(out[np++], 256, "%s%s", v[i], tails[t]);
		for (size_t c = 1; c < l; c++) /* every start of it, and it changed there */
			if (np < 1000) {
				snprintf(out[np++], 256, "%.*s", (int)c, v[i]);
				snprintf(out[np++], 256, "%.*sq%s", (int)c, v[i], v[i] + c + 1);
			}
	}
	return np;
}

static int lcp_differ(const uint16_t *fl, const uint16_t *hl)
{
	static char pr[2][1100][256];
	const enum mand_op ops[] = {MAND_WRITE, MAND_MKDIR, MAND_REMOVE, MAND_DIR_TO, MAND_LINK};
	int np = lcp_probes(pr[0], lcp_fx, sizeof(lcp_fx) / sizeof(lcp_fx[0]));
	int nh = lcp_probes(pr[1], lcp_hd, sizeof(lcp_hd) / sizeof(lcp_hd[0]));
	int differ = 0;

	for (int w = 0; w < 2; w++)
		for (int i = 0; i < (w ? nh : np); i++)
			for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
				struct mand_hit a = {0}, b = {0};
				int ra, rb;

				cx.fixed_lcp = cx.holds_lcp = NULL;
				ra = mandatory_check(&cx, pr[w][i], ops[o], &a);
				cx.fixed_lcp = fl;
				cx.holds_lcp = hl;
				rb = mandatory_check(&cx, pr[w][i], ops[o], &b);
				differ += ra != rb || a.rule != b.rule || a.lift != b.lift;
			}
	return differ;
}

static void test_lcp(void)
{
	const size_t nf = sizeof(lcp_fx) / sizeof(lcp_fx[0]),
		     nh = sizeof(lcp_hd) / sizeof(lcp_hd[0]);
	uint16_t *fl = mandatory_lcp(lcp_fx, nf), *hl = mandatory_lcp(lcp_hd, nh);
	uint16_t wrong[16];
	struct mand_ctx save = cx;

	ok(fl && hl && fl[0] == 0 && fl[1] == strlen(H "/.config/") &&
	       fl[2] == strlen(H "/.config/git") && fl[11] == 1 && fl[12] == 1,
	   "mandatory_lcp: what each shares with the one before");
	cx.fixed = lcp_fx;
	cx.nfixed = nf;
	cx.holds = lcp_hd;
	cx.nholds = nh;
	ok(lcp_differ(fl, hl) == 0, "the same verdicts and rules with the lcp lists as without");
	DENY("/srv/a/b/c", MAND_WRITE, MAND_NEVER,
	     "… control: one of the fixed list hit with them");
	DENY("/srv/a", MAND_REMOVE, MAND_NEVER, "… and a directory holding one");
	/* wrong but inside every entry (each starts with "/"): a longer one than the truth would
	 * read past an entry's end, which a real list never does */
	for (size_t i = 0; i < 16; i++)
		wrong[i] = i ? 1 : 0;
	ok(lcp_differ(wrong, wrong) > 0, "… (a wrong list is seen: the comparison can fail)");
	cx.fixed_lcp = cx.holds_lcp = NULL;
	cx = save;
	free(fl);
	free(hl);
	ok(mandatory_lcp(lcp_fx, 0) == NULL, "… none for an empty list");
}

static void test_creates(void)
{
	static const char *const cr[] = {H "/.claude/shell-snapshots", H "/proj/out/snaps/"};
	struct mand_ctx save = cx;

	ok(mandatory_create(&cx, H "/.claude/shell-snapshots/s.sh") == -1 &&
	       mandatory_create_holder(&cx, H "/.claude") == -1,
	   "control: no create grant");
	cx.creates = cr;
	cx.ncreates = 2;
	ok(mandatory_create(&cx, H "/.claude/shell-snapshots/s.sh") == 0,
	   "a file in a create grant's directory");
	ok(mandatory_create(&cx, H "/.claude/shell-snapshots") == 0, "… the directory itself");
	ok(mandatory_create(&cx, H "/proj/out/snaps/d/f") == 1,
	   "… at any depth (a slash ended it)");
	ok(mandatory_create(&cx, H "/.claude/shell-snapshots.x/s.sh") == -1 &&
	       mandatory_create(&cx, H "/.claude/logs/x") == -1,
	   "… not a look-alike nor a sibling");
	ok(mandatory_create_holder(&cx, H "/.claude") == 0 &&
	       mandatory_create_holder(&cx, H) == 0 && mandatory_create_holder(&cx, "/") == 0,
	   "a directory holding one (up to /)");
	ok(mandatory_create_holder(&cx, H "/proj/out/snaps") == 1,
	   "… the grant's directory itself");
	ok(mandatory_create_holder(&cx, H "/proj/out/snaps/d") == -1 &&
	       mandatory_create_holder(&cx, H "/proj/src") == -1,
	   "… not what lies below it, nor beside");
	cx = save;
}

/* The password database's home when HOME names another directory: the home rule there too. */
static void test_pw_home(void)
{
	const char *g[] = {"/home/real", "/home/real/.cache"};
	struct mand_ctx save = cx;

	cx.home = "/tmp/fresh";
	cx.pw_home = "/home/real";
	cx.grants = g;
	cx.ngrants = 2;
	DENY("/home/real/.ssh/authorized_keys", MAND_WRITE, MAND_NEVER, "pw home's ~/.ssh");
	DENY("/home/real/.config/systemd/user/x.service", MAND_WRITE, MAND_NEVER,
	     "… its ~/.config/systemd");
	DENY("/home/real/.new", MAND_WRITE, MAND_NEVER, "… a dot-entry not granted");
	DENY("/home/real/bin/x", MAND_WRITE, MAND_NEVER, "… its ~/bin");
	ALLOW("/home/real/.cache/x", MAND_WRITE, "… a dot-entry granted by its own line");
	ALLOW("/home/real/notes.txt", MAND_WRITE, "… a plain file of the granted home");
	cx = save;
}

int main(void)
{
	test_pw_home();
	test_agent_dirs();
	test_names();
	test_git();
	test_home();
	test_home_local();
	test_fixed();
	test_gaps();
	test_holds();
	test_policy();
	test_hooks();
	test_hooknames();
	test_bins();
	test_tools();
	test_scratch();
	test_denies();
	test_list();
	test_creates();
	test_lcp();
	return tap_done();
}
