/* test_policy_builtin — the embedded default's sections, made by policygen at build time, are
 * exactly what parsing etc/sbxsh.ini (policy_default_ini) at run time gives: every section,
 * key, operation, token and line; and they load as system sections (not a user file's). */
#include <stdlib.h>

#include "shell/policy_impl.h"
#include "tests/unit/tap.h"

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The first difference between section a (built in) and b (parsed), or NULL. */
static const char *diff(const struct section *a, const struct section *b)
{
	if (a->kind != b->kind || a->line != b->line)
		return "kind or line";
	if (!same_str(a->name, b->name) || !same_str(a->head, b->head))
		return "name or head";
	if (!same_str(a->use, b->use) || a->use_line != b->use_line)
		return "use";
	if (a->nops != b->nops)
		return "number of operations";
	for (size_t j = 0; j < a->nops; j++) {
		const struct pol_op *x = &a->ops[j], *y = &b->ops[j];
		if (x->key != y->key || x->op != y->op || x->line != y->line ||
		    x->user != y->user || x->tokens.n != y->tokens.n)
			return "an operation";
		for (size_t k = 0; k < x->tokens.n; k++)
			if (strcmp(x->tokens.v[k], y->tokens.v[k]) != 0)
				return "a token";
		if (x->tokens.v[x->tokens.n] != NULL)
			return "a token list's end";
	}
	return NULL;
}

int main(void)
{
	struct policy parsed = {.home = "/home/u"}, loaded = {.home = "/home/u"};
	struct diag d = {0};
	int r = policy_parse_buffer(&parsed, policy_default_ini, strlen(policy_default_ini),
				    "<embedded>", false, &d);

	is_int(r, 0, "policy_default_ini parses");
	is_int((long long)policy_default_nsecs, (long long)parsed.nsecs,
	       "as many built-in sections as parsed ones (%zu)", parsed.nsecs);
	size_t n = policy_default_nsecs < parsed.nsecs ? policy_default_nsecs : parsed.nsecs;
	const char *why = NULL;
	size_t at = 0;
	for (size_t i = 0; i < n && !why; i++)
		if ((why = diff(&policy_default_secs[i], &parsed.secs[i])))
			at = i;
	ok(!why, "every built-in section is the parsed one");
	if (why)
		printf("#   section %zu differs in %s\n", at, why);

	r = policy_load_builtin(&loaded);
	is_int(r, 0, "policy_load_builtin");
	is_int((long long)loaded.nsys, 1, "the embedded default is the first system file");
	is_str(loaded.files.n ? loaded.files.v[0] : NULL, "<embedded>", "…named <embedded>");
	ok(loaded.nsecs == policy_default_nsecs && loaded.secs[0].builtin &&
	       loaded.secs[0].file == policy_embedded_file,
	   "its sections are the static ones, marked built in");
	policy_sections_free(&loaded);
	strv_release(&loaded.files);
	policy_sections_free(&parsed);
	strv_release(&parsed.files);
	diag_release(&d);
	return tap_done();
}
