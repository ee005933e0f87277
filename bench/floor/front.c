/* front — the floor of sbxsh's process chain, its front end's level: spawns the argv in the
 * file named by argv[1] (one word a line) and waits for it. Nothing else (bench/floor.sh). */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	static char *av[1024];
	static char line[65536];
	int n = 0, st;
	pid_t p;
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;

	if (!f)
		return 126;
	while (n < 1023 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!(av[n++] = strdup(line)))
			return 126;
	}
	fclose(f);
	if (n == 0 || posix_spawn(&p, av[0], NULL, NULL, av, environ) != 0)
		return 127;
	if (waitpid(p, &st, 0) < 0)
		return 126;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
