/* guard_race — one thread flips a path buffer between a permitted name and ".bashrc" while
 * others create (open O_CREAT), rename onto and symlink at it, for SECONDS seconds.
 * usage: guard_race DIR SECONDS [A B]: A and B (default ok_file and .bashrc) flipped; with A and
 * B given, only the open. Prints "calls N opened M". The guard must never let .bashrc appear. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char path[4096];
static const char *name_a = "ok_file", *name_b = ".bashrc";
static size_t len_a = 8, len_b = 8;
static int opens_only;
static atomic_int stop;
static atomic_long calls, opened;

static void *flip(void *a)
{
	(void)a;
	while (!atomic_load(&stop)) { /* each name held a moment, so both are seen */
		memcpy(path, name_a, len_a);
		__asm__ volatile("" ::: "memory"); /* the stores are made, not merged */
		for (volatile int i = 0; i < 2000; i++)
			;
		memcpy(path, name_b, len_b);
		__asm__ volatile("" ::: "memory");
		for (volatile int i = 0; i < 2000; i++)
			;
	}
	return NULL;
}

static void *creator(void *a)
{
	long k = (long)a;
	char src[32];

	while (!atomic_load(&stop)) {
		int fd = open(path, O_CREAT | O_WRONLY, 0644);

		if (fd >= 0) {
			atomic_fetch_add(&opened, 1);
			close(fd);
		}
		if (opens_only) {
			atomic_fetch_add(&calls, 1);
			continue;
		}
		snprintf(src, sizeof(src), "src%ld", k);
		fd = open(src, O_CREAT | O_WRONLY, 0644);
		if (fd >= 0)
			close(fd);
		rename(src, path);
		symlink("target", path);
		atomic_fetch_add(&calls, 4);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t f, c[3];

	if ((argc != 3 && argc != 5) || chdir(argv[1]) != 0)
		return 2;
	if (argc == 5) {
		name_a = argv[3];
		name_b = argv[4];
		len_a = strlen(name_a) + 1;
		len_b = strlen(name_b) + 1;
		opens_only = 1;
		if (len_a > sizeof(path) || len_b > sizeof(path))
			return 2;
	}
	memcpy(path, name_a, len_a);
	pthread_create(&f, NULL, flip, NULL);
	for (long i = 0; i < 3; i++)
		pthread_create(&c[i], NULL, creator, (void *)i);
	sleep((unsigned)atoi(argv[2]));
	atomic_store(&stop, 1);
	pthread_join(f, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(c[i], NULL);
	printf("calls %ld opened %ld\n", atomic_load(&calls), atomic_load(&opened));
	return 0;
}
