/* pty — the Linux pseudo-terminal (devpts through /dev/ptmx).
 *
 * Rules kept here:
 * - The caller's terminal is only ever switched to raw mode after its modes are saved, and
 *   they are put back on every way out we can see (exit, a fatal signal, the caller's call).
 * - Nothing here changes a flag of a descriptor the caller passed (O_NONBLOCK would be shared
 *   with the shell that started us): a second open of the terminal carries our flags.
 */
#include "platform/pty.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

static struct termios saved;
static int saved_fd = -1;
static volatile sig_atomic_t raw_on;

int sbx_pty_copy_size(int from_tty, int master)
{
	struct winsize ws;

	if (ioctl(from_tty, TIOCGWINSZ, &ws) < 0 || ioctl(master, TIOCSWINSZ, &ws) < 0)
		return -errno;
	return 0;
}

int sbx_pty_adopt(int fd)
{
	unsigned n;
	int fl;

	if (ioctl(fd, TIOCGPTN, &n) < 0 || (fl = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static int open_slave(int master)
{
	char name[64];

	if (grantpt(master) < 0 || unlockpt(master) < 0 || ptsname_r(master, name, sizeof(name)))
		return -errno;
	int fd = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

long sbx_pty_take_input(int master, char *buf, unsigned long n)
{
	struct termios t;
	long got = 0;
	int s = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (s < 0)
		return -errno;
	if (tcgetattr(s, &t) < 0)
		goto fail;
	/* canonical mode gives only ended lines; non-canonical, the whole queue */
	t.c_lflag &= ~(tcflag_t)ICANON;
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(s, TCSANOW, &t) < 0)
		goto fail;
	while ((unsigned long)got < n) {
		ssize_t k = read(s, buf + got, n - (unsigned long)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break; /* EAGAIN: the queue is empty */
		got += k;
	}
	close(s);
	return got;
fail:
	got = -errno;
	close(s);
	return got;
}

int sbx_pty_open(int from_tty, int *master, int *slave)
{
	struct termios t;
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK), s = -1, r = 0;

	if (m < 0)
		return -errno;
	if ((s = open_slave(m)) < 0) {
		r = s;
		goto out;
	}
	if (from_tty >= 0 && tcgetattr(from_tty, &t) == 0 && tcsetattr(s, TCSANOW, &t) < 0) {
		r = -errno;
		goto out;
	}
	if (from_tty >= 0)
		sbx_pty_copy_size(from_tty, m); /* a terminal without a size keeps the default */
	*master = m;
	*slave = s;
	return 0;
out:
	if (s >= 0)
		close(s);
	close(m);
	return r;
}

/* Descriptors whose shared flags we had to change (shared_nonblock), put back at exit. */
static struct {
	int fd, flags;
} shared[2];
static volatile sig_atomic_t nshared;

/* The terminal cannot be opened again (`su - user`: the device is still its first owner's,
 * 0620): a duplicate made non-blocking, its flags put back by sbx_tty_restore. The caller's
 * shell shares them meanwhile, but it is waiting for us. */
static int shared_nonblock(int fd)
{
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 3), fl;

	if (d < 0)
		return -errno;
	if ((fl = fcntl(d, F_GETFL)) < 0 || nshared >= 2) {
		close(d);
		return fl < 0 ? -errno : -EMFILE;
	}
	shared[nshared].fd = d;
	shared[nshared].flags = fl;
	nshared++;
	if (!(fl & O_NONBLOCK) && fcntl(d, F_SETFL, fl | O_NONBLOCK) < 0) {
		nshared--;
		close(d);
		return -errno;
	}
	return d;
}

int sbx_tty_reopen(int fd)
{
	char name[256];
	int e = ttyname_r(fd, name, sizeof(name));

	if (e)
		return -e;
	int n = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (n < 0 && (errno == EACCES || errno == EPERM))
		return shared_nonblock(fd);
	if (n < 0)
		return -errno;
	/* the name may since lead elsewhere: keep it only if it is the same terminal */
	struct stat a, b;
	if (fstat(fd, &a) < 0 || fstat(n, &b) < 0 || a.st_rdev != b.st_rdev) {
		close(n);
		return -ENOTTY;
	}
	return n;
}

void sbx_tty_restore(void)
{
	while (nshared > 0) {
		nshared--;
		fcntl(shared[nshared].fd, F_SETFL, shared[nshared].flags);
	}
	if (!raw_on)
		return;
	raw_on = 0;
	tcsetattr(saved_fd, TCSAFLUSH, &saved);
}

void sbx_tty_pause(void)
{
	for (int i = 0; i < nshared; i++)
		fcntl(shared[i].fd, F_SETFL, shared[i].flags);
	if (raw_on) {
		raw_on = 0;
		tcsetattr(saved_fd, TCSADRAIN, &saved);
	}
}

int sbx_tty_resume(int fd)
{
	for (int i = 0; i < nshared; i++)
		if (fcntl(shared[i].fd, F_SETFL, shared[i].flags | O_NONBLOCK) < 0)
			return -errno;
	return sbx_tty_raw(fd);
}

bool sbx_tty_is_raw(void)
{
	return raw_on;
}

/* A crash in raw mode: the terminal back, then the default action. */
static void on_fatal(int sig)
{
	sbx_tty_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void hook_exit(void)
{
	static const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE};
	static bool done;

	if (done)
		return;
	done = true;
	atexit(sbx_tty_restore);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(*fatal); i++) {
		struct sigaction sa = {.sa_handler = on_fatal, .sa_flags = SA_RESETHAND};
		sigaction(fatal[i], &sa, NULL);
	}
}

long sbx_tty_take_lines(int fd, char *buf, unsigned long n)
{
	struct termios t;
	unsigned long got = 0;

	if (tcgetattr(fd, &t) < 0 || !(t.c_lflag & ICANON))
		return 0;
	const cc_t eof = t.c_cc[VEOF];
	while (n - got >= 2) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 0) != 1 || p.revents != POLLIN)
			break; /* nothing ended, or hung up (a read would give 0 for ever) */
		ssize_t k = read(fd, buf + got, n - got - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		if ((unsigned long)k == n - got - 1) { /* maybe part of a line: the rest stays */
			got += (unsigned long)k;
			break;
		}
		char last = k ? buf[got + (unsigned long)k - 1] : 0;
		bool ended =
		    k && (last == '\n' ||
			  (t.c_cc[VEOL] != _POSIX_VDISABLE && (cc_t)last == t.c_cc[VEOL]) ||
			  (t.c_cc[VEOL2] != _POSIX_VDISABLE && (cc_t)last == t.c_cc[VEOL2]));
		got += (unsigned long)k;
		if (!ended && eof != _POSIX_VDISABLE)
			buf[got++] = (char)eof; /* the line (or nothing) ended by ^D */
	}
	return (long)got;
}

int sbx_tty_raw(int fd)
{
	struct termios t;

	if (saved_fd < 0) {
		if (tcgetattr(fd, &saved) < 0)
			return -errno;
		saved_fd = fd;
		hook_exit();
	}
	t = saved;
	cfmakeraw(&t);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSANOW, &t) < 0)
		return -errno;
	raw_on = 1;
	return 0;
}

static struct {
	int fd, flags;
	bool modes;
	struct termios t;
} kept[3];
static int nkept = -1;

void sbx_tty_keep(void)
{
	if (nkept >= 0)
		return;
	nkept = 0;
	for (int fd = 0; fd <= 2; fd++) {
		int fl;

		if (!isatty(fd) || (fl = fcntl(fd, F_GETFL)) < 0)
			continue;
		kept[nkept].fd = fd;
		kept[nkept].flags = fl;
		kept[nkept].modes = tcgetattr(fd, &kept[nkept].t) == 0;
		nkept++;
	}
}

static bool same_modes(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag && a->c_cflag == b->c_cflag &&
	       a->c_lflag == b->c_lflag && !memcmp(a->c_cc, b->c_cc, sizeof(a->c_cc)) &&
	       cfgetispeed(a) == cfgetispeed(b) && cfgetospeed(a) == cfgetospeed(b);
}

void sbx_tty_keep_restore(void)
{
	sigset_t ttou, old;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old); /* a write to the modes from the background */
	for (int i = 0; i < nkept; i++) {
		struct termios now;
		int fl = fcntl(kept[i].fd, F_GETFL);

		if (fl >= 0 && fl != kept[i].flags)
			fcntl(kept[i].fd, F_SETFL, kept[i].flags);
		/* from the background the modes may be the foreground job's own: left alone */
		if (kept[i].modes && tcgetpgrp(kept[i].fd) == getpgrp() &&
		    tcgetattr(kept[i].fd, &now) == 0 && !same_modes(&now, &kept[i].t))
			tcsetattr(kept[i].fd, TCSANOW, &kept[i].t);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	nkept = nkept < 0 ? nkept : 0;
}

int sbx_pty_take(int fd)
{
	/* bwrap --new-session made us a session leader already: setsid then says EPERM */
	if (setsid() < 0 && getsid(0) != getpid())
		return -errno;
	if (ioctl(fd, TIOCSCTTY, 0) < 0)
		return -errno;
	return 0;
}
