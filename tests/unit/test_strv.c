/* test_strv — string vectors: growth, NULL termination, find and remove; env_expand. */
#include <errno.h>
#include <stdlib.h>

#include "platform/strv.h"
#include "tests/unit/tap.h"

static void expands(const char *in, const char *want, const char *what)
{
	char *const env[] = {"HOME=/home/u", "EMPTY=", "GOPROXY=https://p,direct", "TOK=secret",
			     NULL};
	struct strv hidden = {0};
	char *out = NULL;

	strv_push(&hidden, "TOK");
	int r = env_expand(in, env, &hidden, &out);
	is_int(r, 0, "%s", what);
	is_str(out ? out : "(null)", want, "%s", what);
	free(out);
	strv_release(&hidden);
}

static void refuses(const char *in, const char *what)
{
	char *out = (char *)"x";
	is_int(env_expand(in, NULL, NULL, &out), -EINVAL, "%s", what);
	ok(out == NULL, "...and gives no value");
}

static void expand_tests(void)
{
	expands("plain", "plain", "no reference: the value as it is");
	expands("", "", "an empty value");
	expands("file://${HOME}/go,x", "file:///home/u/go,x", "${HOME} from the environment");
	expands("${GOPROXY:-https://proxy.golang.org,direct}", "https://p,direct",
		"${NAME:-word}: the value when set");
	expands("${UNSET:-a,b}|${EMPTY:-e}", "a,b|e", "...the word when unset or empty");
	expands("[${UNSET}]", "[]", "${NAME} unset: empty");
	expands("${TOK:-none}", "none", "a name env_unset removes expands as unset");
	expands("$HOME $ $$ a$", "$HOME $ $$ a$", "a $ not followed by { is kept");
	expands("${HOME}${HOME}", "/home/u/home/u", "two references");
	refuses("${HOME", "an unclosed ${ is refused");
	refuses("${}", "an empty name is refused");
	refuses("${1X}", "a name starting with a digit is refused");
	refuses("${HO-ME}", "a name with another character is refused");
	expands("${UNSET:-${HOME}/go}:${GOPROXY:-${HOME}}", "/home/u/go:https://p,direct",
		"a word may hold ${NAME}, expanded only when it is used");
	expands("${UNSET:-a${UNSET}b${TOK}c}", "abc", "...unset and hidden names in it are empty");
	refuses("${A:-${B:-c}}", "a default inside a default is refused");
	refuses("${A:-$B}", "a $ in the word not starting ${NAME} is refused");
	refuses("${A:-${B}", "an unclosed reference with a word is refused");
	refuses("${A:-x{y}", "a { in the word is refused");
	refuses("${A:=x}", "another operator is refused");
}

int main(void)
{
	struct strv sv = {0};
	char name[16];

	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "x%d", i);
		strv_push(&sv, name);
	}
	is_int(sv.n, 100, "100 pushes make 100 entries");
	ok(sv.v[100] == NULL, "the vector stays NULL-terminated");
	is_int(strv_find(&sv, "x42"), 42, "find returns the index");
	strv_remove(&sv, 42);
	is_int(strv_find(&sv, "x42"), -1, "a removed entry is gone");
	is_str(sv.v[42], "x43", "later entries move down");
	strv_pushf(&sv, "--bind=%s:%d", "a b", 7);
	is_str(sv.v[sv.n - 1], "--bind=a b:7", "pushf formats");
	strv_pushl(&sv, "a", "b", NULL);
	is_int(sv.n, 102, "pushl appends each argument");
	strv_release(&sv);
	ok(sv.v == NULL && sv.n == 0, "release empties the vector");
	expand_tests();
	return tap_done();
}
