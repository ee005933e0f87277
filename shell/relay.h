/* relay — the caller's terminal ⇄ the master of the sandbox's pty (compat.md 16), served by
 * the supervise loop: the sandbox holds only the slave, never the caller's terminal.
 */
#ifndef SBX_RELAY_H
#define SBX_RELAY_H
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define RELAY_NFDS 5 /* the poll entries relay_poll fills */

struct relay {
	int in, out; /* the caller's terminal: read (fd 0's), write (fd 1's) */
	int master, slave;
	int early; /* after relay_adopt: our own pty's master, read only (bwrap's words) */
	bool held; /* what is typed waits in the terminal until relay_adopt */
	bool fg;   /* sbxsh's process group is the terminal's foreground (or it has none) */
	bool in_done, out_done, master_done;
	bool out_full; /* the terminal took part of ob: the rest waits for POLLOUT */
	size_t ilen, ioff, olen, ooff;
	/* relay_tell's lines come from another thread (the monitor's): every function below
	 * holds lock, and a line told is queued in ob behind what the sandbox wrote before it
	 * (the loop writes it: wake[0] is polled) */
	pthread_mutex_t lock;
	bool lock_ready;
	int wake[2];
	char ib[4096];	/* terminal → master */
	char ob[65536]; /* master → terminal */
};

/* Opens the pty (the slave with the terminal's modes and size) and puts the terminal in raw
 * mode. Returns 0 or -errno (the terminal is then untouched). */
int relay_open(struct relay *r);
/* The stage started the shell (STARTED): on master, a pty of the sandbox's own devpts (it is
 * taken: made non-blocking, closed with the relay), or -1 to keep ours. What is typed goes to
 * the shell's pty from now on; our own pty is only read (for whatever bwrap still says).
 * A descriptor that is not a pty master hangs the session up (fail closed). */
void relay_adopt(struct relay *r, int master);
/* A profile switch on cd: a new pty of ours for the next sandbox's stage (which sends its own
 * again: relay_adopt), with the modes and size of the one the shell left; that one's last
 * output is written out and it is closed. What is typed meanwhile waits in the terminal;
 * what was typed into the old pty and not read goes to the next shell's, first.
 * Returns 0 or -errno (the relay is then unchanged). */
int relay_renew(struct relay *r);
/* Fills p[0..RELAY_NFDS) for poll. */
void relay_poll(struct relay *r, struct pollfd *p);
/* Moves what poll found ready, without blocking. */
void relay_ready(struct relay *r, const struct pollfd *p);
/* The terminal's new size to the pty (SIGWINCH). */
void relay_winch(struct relay *r);
/* SIGCONT: raw mode again (a shell that stopped us may have reset the terminal). */
void relay_cont(struct relay *r);
/* Before sbxsh stops (the shell suspended itself): what is queued to the terminal (up to 1 s
 * a write), then the terminal's own modes and flags back; relay_resume takes it again (and
 * its size to the pty). */
void relay_pause(struct relay *r);
void relay_resume(struct relay *r);
/* A line of sbxsh's own for the terminal (a profile switch's), on the supervise loop's thread
 * or with no loop running: after what the sandbox wrote before it, written out before this
 * returns (the terminal given up to 1 s a write; what it did not take stays queued for the
 * loop); '\n' becomes "\r\n" (the terminal is raw). */
void relay_say(struct relay *r, const char *text);
/* The same from any thread (a violation, from the monitor's while the call it is about waits):
 * queued behind all the sandbox wrote before it (so before anything it writes after, such as
 * the next prompt) and written by the loop. Waits only while the terminal takes nothing and
 * the queue has no room; after relay_close, to stderr. */
void relay_tell(struct relay *r, const char *text);
/* Hangs the pty up: the master is closed (the sandbox's session gets SIGHUP). */
void relay_hangup(struct relay *r);
/* After the sandbox is gone: what is left on the master to the terminal; the terminal's modes
 * back; every descriptor closed. */
void relay_close(struct relay *r);

#endif
