/* swap-names — exchanges two names (renameat2 RENAME_EXCHANGE) in a loop for SECONDS (10 if
 * not given): the hostile half of the e2e race tests, where another sandbox flips a write
 * grant's directory and a link to ~ while sbxsh builds a sandbox.
 *
 *   swap-names A B [SECONDS]
 *
 * Exit 0 when the time is up, 1 when an exchange fails (the error on stderr), 2 on usage.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: swap-names A B [SECONDS]\n");
		return 2;
	}
	time_t end = time(NULL) + (argc == 4 ? atoi(argv[3]) : 10);

	for (unsigned long i = 0;; i++) {
		if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) <
		    0) {
			perror("swap-names: renameat2");
			return 1;
		}
		if ((i & 1023) == 1023 && time(NULL) >= end) /* an even count: as they were */
			return 0;
	}
}
