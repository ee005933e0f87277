/* test_gitcfg — core.hooksPath as git reads it (shell/gitcfg.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/path.h"
#include "shell/gitcfg.h"
#include "tests/unit/tap.h"

static char got[4096];

static int collect(const char *section, const char *sub, const char *key, const char *value,
		   void *arg)
{
	(void)arg;
	size_t l = strlen(got);

	snprintf(got + l, sizeof(got) - l, "%s%s%s%s.%s=%s|", section, sub ? "(" : "",
		 sub ? sub : "", sub ? ")" : "", key, value ? value : "<none>");
	return 0;
}

static const char *parse(const char *text)
{
	got[0] = '\0';
	gitcfg_parse(text, strlen(text), collect, NULL);
	return got;
}

static void test_parse(void)
{
	is_str(parse("[core]\n\thooksPath = .githooks\n"), "core.hookspath=.githooks|", "plain");
	is_str(parse("[CORE] hooksPATH=x\n"), "core.hookspath=x|",
	       "names lowercased, a key on the header's line");
	is_str(parse("[core]\n hookspath = \"a b\" ; c\n"), "core.hookspath=a b|",
	       "quoted, a comment after");
	is_str(parse("[core]\n hookspath = a   b  # c\n"), "core.hookspath=a   b|",
	       "inner spaces kept, trailing ones dropped");
	is_str(parse("[core]\n hookspath = a\\\nb\n"), "core.hookspath=ab|", "a continued line");
	is_str(parse("[core]\n hookspath = \"a\\\"b\\\\c\\td\"\n"), "core.hookspath=a\"b\\c\td|",
	       "escapes");
	is_str(parse("[core \"x\"]\n hookspath = a\n[core.y]\nk\n"),
	       "core(x).hookspath=a|core(y).k=<none>|", "subsections, a key without a value");
	is_str(parse("# c\n; c\n[includeIf \"gitdir:~/w/\"]\n path = inc\n"),
	       "includeif(gitdir:~/w/).path=inc|", "comments, includeIf");
	is_str(parse("[core]\n a = 1\n b = \"open\n c = 2\n"), "core.a=1|",
	       "stops at an open quote (git refuses the file)");
	is_str(parse("[core\n a = 1\n"), "", "stops at a broken header");
	is_str(parse("[core]\n a = x\\q\n b = 1\n"), "", "stops at an unknown escape");
	is_str(parse("k = 1\n[core]\nb=2"), "", "a key before any section is an error");
	is_str(parse("[core]\nb=2"), "core.b=2|", "no newline at the end");
}

/* A repository in a scratch directory, its config, a global one included from it */
static void test_dirs(void)
{
	char t[] = "/tmp/test_gitcfg.XXXXXX", p[PATH_MAX], want[PATH_MAX * 2];
	struct strv out = {0};
	FILE *f;

	if (!mkdtemp(t)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(p, sizeof(p), "%s/wt/.git", t);
	snprintf(want, sizeof(want), "mkdir -p %s %s/home/.config/git %s/wt2", p, t, t);
	ok(system(want) == 0, "scratch repository");
	snprintf(p, sizeof(p), "%s/wt/.git/config", t);
	if ((f = fopen(p, "w"))) {
		fprintf(f, "[core]\n\thooksPath = .githooks\n[include]\n\tpath = ../../inc\n");
		fclose(f);
	}
	snprintf(p, sizeof(p), "%s/inc", t);
	if ((f = fopen(p, "w"))) {
		/* it includes itself, eight times: read once (git stops at depth 10; a walk
		 * that read it again each time would take 8^10 reads) */
		fprintf(f, "[core]\n\thooksPath = /abs/h\n[include]\n");
		for (int i = 0; i < 8; i++)
			fprintf(f, "\tpath = inc\n");
		fclose(f);
	}
	snprintf(p, sizeof(p), "%s/home/.gitconfig", t);
	if ((f = fopen(p, "w"))) {
		fprintf(f, "[core]\n\thooksPath = ~/gh\n\thooksPath = rel\n");
		fclose(f);
	}
	/* a linked worktree: its .git file names a git directory, whose commondir has a config */
	snprintf(p, sizeof(p), "%s/wt2/.git", t);
	if ((f = fopen(p, "w"))) {
		fprintf(f, "gitdir: ../wt/.git/worktrees/x\n");
		fclose(f);
	}
	snprintf(want, sizeof(want),
		 "mkdir -p %s/wt/.git/worktrees/x && echo ../.. > %s/wt/.git/worktrees/x/commondir",
		 t, t);
	ok(system(want) == 0, "a linked worktree");
	snprintf(p, sizeof(p), "%s/wt", t);
	char p2[PATH_MAX], home[PATH_MAX];
	snprintf(p2, sizeof(p2), "%s/wt2", t);
	snprintf(home, sizeof(home), "%s/home", t);
	const char *wt[] = {p, "/nonexistent", p2};
	unsetenv("GIT_CONFIG_GLOBAL");
	unsetenv("GIT_CONFIG_SYSTEM");
	unsetenv("XDG_CONFIG_HOME");
	struct strv rel = {0};
	is_int(gitcfg_hooks_dirs(&out, wt, 3, home, &rel), 0, "found");
	is_str(rel.n == 1 ? rel.v[0] : "", "rel",
	       "the global file's relative hooksPath is a name (the repository's own is not)");
	strv_release(&rel);
	got[0] = '\0';
	for (size_t i = 0; i < out.n; i++) {
		size_t l = strlen(got);
		char *v = out.v[i];

		path_normalize(v);

		if (strncmp(v, t, strlen(t)) == 0)
			snprintf(got + l, sizeof(got) - l, "T%s|", v + strlen(t));
		else
			snprintf(got + l, sizeof(got) - l, "%s|", v);
	}
	is_str(got,
	       "T/wt/.githooks|T/inc|/abs/h|T/wt2/.githooks|T/inc|T/home/gh|T/wt/rel|T/wt2/rel|",
	       "the repository's (relative to its worktree), the file it includes and its value, "
	       "the linked worktree's "
	       "(through commondir; its include spelled another way), the global ones (~ expanded, "
	       "a relative one every "
	       "repository's); none for a directory without a repository");
	strv_release(&out);
	/* the caller's GIT_CONFIG_COUNT pairs, which the host's git reads as config */
	setenv("GIT_CONFIG_COUNT", "5", 1);
	setenv("GIT_CONFIG_KEY_4", "include.path", 1);
	setenv("GIT_CONFIG_VALUE_4", ":(optional)/abs/optinc", 1);
	setenv("GIT_CONFIG_KEY_0", "Core.HooksPath", 1);
	setenv("GIT_CONFIG_VALUE_0", "envhk", 1);
	setenv("GIT_CONFIG_KEY_1", "core.Sub.hookspath", 1);
	setenv("GIT_CONFIG_VALUE_1", "not-core", 1);
	setenv("GIT_CONFIG_KEY_2", "include.path", 1);
	setenv("GIT_CONFIG_VALUE_2", "/abs/envinc", 1);
	setenv("GIT_CONFIG_KEY_3", "core.hooksPath", 1);
	setenv("GIT_CONFIG_VALUE_3", "~/envgh", 1);
	setenv("GIT_CONFIG_COUNT", "7", 1);
	setenv("GIT_CONFIG_KEY_5", "core.hooksPath", 1);
	setenv("GIT_CONFIG_VALUE_5", "./a//b/", 1);
	setenv("GIT_CONFIG_KEY_6", "core.hooksPath", 1);
	setenv("GIT_CONFIG_VALUE_6", "../up", 1);
	is_int(gitcfg_hooks_dirs(&out, wt, 1, home, &rel), 0, "found with GIT_CONFIG_COUNT");
	{
		char names[256] = "";
		for (size_t i = 0; i < rel.n; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s|",
				 rel.v[i]);
		is_str(names, "rel|envhk|a/b|up|",
		       "the environment's relative ones are names, normalized; one with .. by what "
		       "follows its last ..");
	}
	strv_release(&rel);
	bool hk = false, inc = false, gh = false, sub = false, opt = false;
	for (size_t i = 0; i < out.n; i++) {
		path_normalize(out.v[i]);
		/* (only a name under t has a tail past t's length: others may be shorter) */
		const char *tail = strncmp(out.v[i], t, strlen(t)) == 0 ? out.v[i] + strlen(t) : "";
		hk |= strcmp(tail, "/wt/envhk") == 0;
		gh |= strcmp(tail, "/home/envgh") == 0;
		inc |= strcmp(out.v[i], "/abs/envinc") == 0;
		sub |= strstr(out.v[i], "not-core") != NULL;
		opt |= strcmp(out.v[i], "/abs/optinc") == 0;
	}
	ok(hk && inc && gh && !sub,
	   "the environment's core.hooksPath (any case, relative to the "
	   "worktree or ~) and include.path are taken; a subsection's not");
	ok(opt, "a path spelled :(optional)PATH (git 2.52) is PATH");
	/* ".." and "../..": the worktree's parent is the hooks directory, every hook by name */
	setenv("GIT_CONFIG_COUNT", "2", 1);
	setenv("GIT_CONFIG_KEY_0", "core.hooksPath", 1);
	setenv("GIT_CONFIG_VALUE_0", "..", 1);
	setenv("GIT_CONFIG_KEY_1", "core.hooksPath", 1);
	setenv("GIT_CONFIG_VALUE_1", "../..", 1);
	strv_release(&out);
	is_int(gitcfg_hooks_dirs(&out, wt, 1, home, &rel), 0, "found with hooksPath ..");
	ok(strv_find(&rel, "pre-commit") >= 0 && strv_find(&rel, "post-checkout") >= 0 &&
	       strv_find(&rel, "fsmonitor-watchman") >= 0 && strv_find(&rel, "..") < 0,
	   "hooksPath .. or ../..: every hook's name is protected (%zu names)", rel.n);
	strv_release(&rel);
	unsetenv("GIT_CONFIG_COUNT");
	strv_release(&out);
	snprintf(want, sizeof(want), "rm -rf %s", t);
	ok(system(want) == 0, "cleaned up");
}

int main(void)
{
	test_parse();
	test_dirs();
	return tap_done();
}
