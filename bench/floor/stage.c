/* stage — the floor of sbxsh's process chain, its stage's level: spawns argv[1…] and waits
 * for it. Nothing else (bench/floor.sh). */
#include <spawn.h>
#include <stddef.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	pid_t p;
	int st;

	if (argc < 2 || posix_spawn(&p, argv[1], NULL, NULL, argv + 1, environ) != 0)
		return 127;
	if (waitpid(p, &st, 0) < 0)
		return 126;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
