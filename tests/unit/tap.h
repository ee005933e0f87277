/* tap.h — a tiny TAP harness for the C unit tests (one header, no library). */
#ifndef SBX_TAP_H
#define SBX_TAP_H
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...)                                                                              \
	do {                                                                                       \
		int ok_c_ = !!(cond);                                                              \
		printf("%sok %d - ", ok_c_ ? "" : "not ", ++tap_n);                                \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
		if (!ok_c_) {                                                                      \
			tap_failed++;                                                              \
			printf("#   failed at %s:%d\n", __FILE__, __LINE__);                       \
		}                                                                                  \
	} while (0)

#define is_str(got, want, ...)                                                                     \
	do {                                                                                       \
		const char *g_ = (got), *w_ = (want);                                              \
		int eq_ = (g_ && w_) ? strcmp(g_, w_) == 0 : g_ == w_;                             \
		ok(eq_, __VA_ARGS__);                                                              \
		if (!eq_)                                                                          \
			printf("#   got:  '%s'\n#   want: '%s'\n", g_ ? g_ : "(null)",             \
			       w_ ? w_ : "(null)");                                                \
	} while (0)

#define is_int(got, want, ...)                                                                     \
	do {                                                                                       \
		long long g_ = (long long)(got), w_ = (long long)(want);                           \
		ok(g_ == w_, __VA_ARGS__);                                                         \
		if (g_ != w_)                                                                      \
			printf("#   got:  %lld\n#   want: %lld\n", g_, w_);                        \
	} while (0)

#define skip(why, ...)                                                                             \
	do {                                                                                       \
		printf("ok %d - ", ++tap_n);                                                       \
		printf(__VA_ARGS__);                                                               \
		printf(" # SKIP %s\n", why);                                                       \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
#endif
