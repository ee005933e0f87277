/* listen_relay — the sandbox side of `listen = PORT`: run by the stage in a process of its own,
 * inside the sandbox's network namespace, before seccomp. (No event loop: the stage is lean.) */
#ifndef SBX_SESS_LISTEN_RELAY_H
#define SBX_SESS_LISTEN_RELAY_H

/* Serves sock, the stage's end of the socketpair whose other end went to the daemon as
 * SESS_FD_RELAY: each SESS_RELAY frame brings one accepted host connection and its port;
 * a child process connects it to 127.0.0.1:PORT inside (else [::1]:PORT) and copies bytes
 * both ways, half-closes included. Returns 0 when the daemon closes sock (the command ended
 * or the daemon died), or a negative errno. Never returns in the children. */
int sess_relay_serve(int sock);

/* Copies a_in -> b_out and b_in -> a_out (a socket may be both of a pair) until both ways
 * ended; an end of stream is passed on as a half-close (a close for a pipe). Blocking; the
 * caller ignores SIGPIPE. */
void sess_pump(int a_in, int a_out, int b_in, int b_out);

#endif
