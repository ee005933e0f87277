/* pty — the pseudo-terminal between the caller's terminal and a sandbox (compat.md 16): the
 * pair, its window size, the caller's terminal in raw mode and back, and, in the stage, the
 * slave made the controlling terminal. The rest of the code uses no terminal ioctl directly.
 */
#ifndef SBX_PTY_H
#define SBX_PTY_H
#include <stdbool.h>

/* Opens a pair: *master non-blocking, both close-on-exec, the slave not our controlling
 * terminal. The slave starts with from_tty's modes and window size (from_tty < 0: the
 * defaults). Returns 0 or -errno; the caller closes both. */
int sbx_pty_open(int from_tty, int *master, int *slave);

/* A pty master the sandbox's stage opened in its own devpts: checked to be one (TIOCGPTN
 * answers only on a master) and made non-blocking (the description is ours alone). Returns 0
 * or -errno (then it is no pty master). */
int sbx_pty_adopt(int fd);

/* What was typed into master's pty and not read yet (a profile switch's typeahead, left by
 * a shell that has exited): the slave opened again through the master (TIOCGPTPEER: no path,
 * never our controlling terminal), its input queue read whole in non-canonical mode (a line
 * not ended yet too) into buf. Returns the count (0: nothing) or -errno. */
long sbx_pty_take_input(int master, char *buf, unsigned long n);

/* Copies from_tty's window size to the pty of master (its foreground group gets SIGWINCH).
 * Returns 0 or -errno. */
int sbx_pty_copy_size(int from_tty, int master);

/* A second open file description of the terminal on fd, non-blocking (O_NONBLOCK on fd itself
 * would reach the caller's shell, which shares it); where the terminal cannot be opened again
 * (`su - user`), a duplicate made non-blocking until sbx_tty_restore. Returns the descriptor
 * (close-on-exec) or -errno. */
int sbx_tty_reopen(int fd);

/* Before a terminal in canonical mode goes raw: the lines already ended in its input queue,
 * read from fd (non-blocking) into buf as they were typed — a line ended by the end-of-file
 * character (^D, with or without text before it) gets that character back. Raw mode would
 * give each such end-of-file as a NUL byte: a command behind the relay then read "\0" where
 * it should have met the end of its input. A line not ended yet stays queued (raw mode reads
 * it as typed). Returns the count (0: nothing, or the terminal is not canonical). */
long sbx_tty_take_lines(int fd, char *buf, unsigned long n);

/* Puts the terminal on fd in raw mode, having saved its modes once; the modes come back with
 * sbx_tty_restore, at exit, and on a fatal signal. Returns 0 or -errno. */
int sbx_tty_raw(int fd);
/* Puts the saved modes back (idempotent, async-signal-safe); a no-op before sbx_tty_raw. */
void sbx_tty_restore(void);
/* sbxsh stops (the shell suspended itself): the saved modes and a shared description's flags
 * back while the caller's shell has the terminal (typed input kept); sbx_tty_resume takes
 * them again (non-blocking, raw). Returns 0 or -errno. */
void sbx_tty_pause(void);
int sbx_tty_resume(int fd);
/* true between sbx_tty_raw and sbx_tty_restore. */
bool sbx_tty_is_raw(void);

/* The caller's terminal on some of 0-2 handed to a command as it is (no relay: not all three
 * are terminals, or sbxsh is not in the terminal's foreground): saves each one's modes and
 * the flags of its shared description once (a no-op for a descriptor that is no terminal).
 * sbx_tty_keep_restore puts back the flags (O_NONBLOCK would make the caller's next read
 * fail) and, when sbxsh is the terminal's foreground, the modes (raw, no echo) the command
 * left: nothing the command does to the caller's terminal outlives it. */
void sbx_tty_keep(void);
void sbx_tty_keep_restore(void);

/* The stage: a session of its own (unless it leads one) with the terminal on fd as its
 * controlling terminal, so the shell it starts has job control. Returns 0 or -errno. */
int sbx_pty_take(int fd);

#endif
