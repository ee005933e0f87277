/* test_landlock — sandbox_names_lock (platform/linux/landlock.c): under the domain a process
 * makes, removes and write-opens no name itself, while a descriptor opened before (as the guard
 * hands over) keeps its rights; without landlock (a filter answering EPERM to the version
 * query, as a container's may) the core limit is 0 instead. Each case in a child of its own. */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/host.h"
#include "platform/sandbox.h"
#include "tap.h"

enum {
	R_LOCK,
	R_MKDIR,
	R_CREATE,
	R_UNLINK,
	R_RENAME,
	R_LINK,
	R_SYMLINK,
	R_WRITE_OPEN,
	R_READ_OPEN,
	R_OLD_FD,
	R_CORE,
	R_N
};

static char dir[] = "/tmp/sbx-landlock.XXXXXX";
static char path[64], made[64], sub[64];

static int err_of(int r)
{
	return r < 0 ? errno : 0;
}

/* In a child: the lock (after a filter hiding landlock when hide), then each call's errno. */
static void child(int wfd, bool hide)
{
	int res[R_N] = {0}, fd, old = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	struct rlimit rl;

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (hide) {
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

		if (!ctx ||
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				     seccomp_syscall_resolve_name("landlock_create_ruleset"),
				     0) < 0 ||
		    seccomp_load(ctx) < 0)
			_exit(3);
		seccomp_release(ctx);
	}
	res[R_LOCK] = sandbox_names_lock();
	res[R_MKDIR] = err_of(mkdir(sub, 0700));
	fd = open(made, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	res[R_CREATE] = err_of(fd);
	if (fd >= 0)
		close(fd);
	res[R_UNLINK] = err_of(unlink(path));
	res[R_RENAME] = err_of(rename(path, made)); /* in the same directory */
	res[R_LINK] = err_of(link(path, made));
	res[R_SYMLINK] = err_of(symlink("f", made));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	res[R_WRITE_OPEN] = err_of(fd);
	if (fd >= 0)
		close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	res[R_READ_OPEN] = err_of(fd);
	if (fd >= 0)
		close(fd);
	res[R_OLD_FD] = old < 0 ? -1 : err_of((int)write(old, "x", 1));
	res[R_CORE] =
	    getrlimit(RLIMIT_CORE, &rl) < 0 ? -1 : (int)(rl.rlim_cur == 0 && rl.rlim_max == 0);
	_exit(write(wfd, res, sizeof(res)) == (ssize_t)sizeof(res) ? 0 : 2);
}

static bool run(bool hide, int *res)
{
	int p[2], st;
	pid_t pid;

	rmdir(sub);
	unlink(made);
	close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
	if (pipe(p) < 0 || (pid = fork()) < 0)
		return false;
	if (pid == 0) {
		close(p[0]);
		child(p[1], hide);
	}
	close(p[1]);
	bool got = read(p[0], res, R_N * sizeof(int)) == (ssize_t)(R_N * sizeof(int));
	close(p[0]);
	waitpid(pid, &st, 0);
	return got && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(void)
{
	int res[R_N];

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/f", dir);
	snprintf(made, sizeof(made), "%s/new", dir);
	snprintf(sub, sizeof(sub), "%s/d", dir);
	if (host_landlock_abi() <= 0) {
		skip("the kernel offers no landlock", "the domain refuses the process's own names");
	} else if (!run(false, res)) {
		ok(0, "the child under the domain reported");
	} else {
		is_int(res[R_LOCK], 0, "landlock: the domain is made (0)");
		is_int(res[R_MKDIR], EACCES, "… mkdir is refused (EACCES)");
		is_int(res[R_CREATE], EACCES, "… so is open(O_CREAT) of a new name");
		is_int(res[R_UNLINK], EACCES, "… unlink");
		is_int(res[R_RENAME], EACCES, "… a rename within a directory");
		is_int(res[R_LINK], EACCES, "… a hard link");
		is_int(res[R_SYMLINK], EACCES, "… a symbolic link");
		is_int(res[R_WRITE_OPEN], EACCES, "… and a write open of an existing file");
		is_int(res[R_READ_OPEN], 0, "… a read open is not");
		is_int(res[R_OLD_FD], 0,
		       "… a descriptor opened for writing before keeps its rights");
		is_int(res[R_CORE], 0, "… and the core limit is the process's own");
	}
	if (!run(true, res)) {
		ok(0, "the child with landlock hidden reported");
	} else {
		is_int(res[R_LOCK], 1, "landlock hidden (EPERM): no domain (1)");
		is_int(res[R_CORE], 1, "… the core limit is 0, both soft and hard");
		is_int(res[R_MKDIR], 0, "… and nothing else is refused (mkdir)");
	}
	unlink(made);
	unlink(path);
	rmdir(sub);
	rmdir(dir);
	return tap_done();
}
