/* policy_bench — time to load the policy (embedded default + a generated 200-section user
 * file read through the real trust-checked path) and resolve the profile for a directory.
 * Usage: policy_bench [ITERATIONS]. Prints the mean and the best per-iteration time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "shell/policy.h"

enum { SECTIONS = 200 };

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* 100 [profile] and 100 [dir] sections, each with a few keys of every kind. */
static int write_policy(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	for (int i = 0; i < SECTIONS / 2; i++) {
		fprintf(f, "[profile p%d]\n", i);
		if (i % 4)
			fprintf(f, "use = p%d\n", i - 1);
		fprintf(f,
			"allow_domains += pkg%d.example.com *.cdn%d.example.org\nwrite += "
			"~/.cache/p%d\n"
			"env_set += P%d=value\nlisten += %d\n\n",
			i, i, i, i, 3000 + i);
	}
	for (int i = 0; i < SECTIONS / 2; i++)
		fprintf(f,
			"[dir ~/src/proj%d/*]\nuse = p%d\ndeny_read += "
			"~/src/proj%d/secrets\nnetwork = proxy\n"
			"read += /opt/tool%d\n\n",
			i, i % 10, i, i);
	fclose(f);
	return chmod(path, 0600);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	char dir[] = "/tmp/sbx-bench.XXXXXX", file[256], cwd[256];
	if (!mkdtemp(dir) || n <= 0)
		return 1;
	snprintf(file, sizeof(file), "%s/user.ini", dir);
	snprintf(cwd, sizeof(cwd), "%s/src/proj42/app", dir);
	if (write_policy(file) < 0)
		return 1;
	struct policy_opts o = {
	    .user_config = file, .sysconfdir = dir, .sys_owner = getuid(), .home = dir};
	double total = 0, best = 1e18, *times = calloc((size_t)n, sizeof(double));
	if (!times)
		return 1;
	for (int i = 0; i < n; i++) {
		struct diag d = {0};
		struct policy *p = NULL;
		struct profile *pr = NULL;
		double t0 = now_us();
		int r = policy_load(&p, &o, &d);
		if (r == 0)
			r = profile_resolve(p, cwd, &pr, &d);
		double t = now_us() - t0;
		if (r != 0) {
			for (size_t k = 0; k < d.errors.n; k++)
				fprintf(stderr, "%s\n", d.errors.v[k]);
			return 1;
		}
		total += t;
		times[i] = t;
		best = t < best ? t : best;
		profile_free(pr);
		policy_free(p);
		diag_release(&d);
	}
	qsort(times, (size_t)n, sizeof(double), cmp_double);
	printf("policy load (embedded + %d-section user file) + resolve: median %.1f us, mean %.1f "
	       "us, best %.1f us over %d iterations\n",
	       SECTIONS, times[n / 2], total / n, best, n);
	free(times);
	unlink(file);
	rmdir(dir);
	return 0;
}
