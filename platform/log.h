/* log — messages a user reads on stderr, always prefixed "sbxsh: ". */
#ifndef SBX_LOG_H
#define SBX_LOG_H

/* Exit codes of sbxsh itself (docs/sbxsh.1). The command's own status otherwise. */
enum {
	SBX_EXIT_USAGE = 2,	 /* bad arguments, as bash */
	SBX_EXIT_NOEXEC = 126,	 /* found but not executable, as bash */
	SBX_EXIT_NOTFOUND = 127, /* not found, as bash */
	SBX_EXIT_REFUSED = 125,	 /* sbxsh refused to run: policy error, sandbox unavailable */
};

#include <stdio.h>

/* Writes s and a newline escaped for a terminal (platform/term.h: controls, bidi overrides,
 * invalid UTF-8 spelled \xHH): names from inside the sandbox (paths, link targets, hosts)
 * never reach the user's terminal as escape sequences. Every sbx_warn/fatal/die line goes
 * through it. */
void sbx_put_line(FILE *f, const char *s);
void sbx_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints and exits SBX_EXIT_REFUSED: program-level setup only, never in library code. */
_Noreturn void sbx_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints and exits with code. */
_Noreturn void sbx_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
