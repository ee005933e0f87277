/* errf — formatted error texts for the session code. */
#include "session/errf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int sess_errf(char **err, int rc, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (!err)
		return rc;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	free(*err);
	*err = s;
	return rc;
}
