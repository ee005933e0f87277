/* test_strv — string vectors: growth, NULL termination, find and remove. */
#include <stdlib.h>

#include "platform/strv.h"
#include "tests/unit/tap.h"

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
	return tap_done();
}
