/* replay — runs a fuzz target over every file of its corpus (make check, normal compiler). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		if (r == 0)
			break;
		n += r;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int t = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		if (!d) {
			printf("not ok %d - corpus %s: cannot open\n", ++t, argv[i]);
			bad++;
			continue;
		}
		struct dirent *e;
		int count = 0;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char p[4096];
			snprintf(p, sizeof(p), "%s/%s", argv[i], e->d_name);
			if (replay_file(p) < 0) {
				printf("not ok %d - %s: cannot read\n", ++t, p);
				bad++;
			}
			count++;
		}
		closedir(d);
		printf("%sok %d - corpus %s: %d inputs replayed\n", count ? "" : "not ", ++t,
		       argv[i], count);
		bad += count == 0;
	}
	printf("1..%d\n", t);
	return bad ? 1 : 0;
}
