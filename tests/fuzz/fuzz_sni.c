/* fuzz_sni — ClientHello server names. Invariants: nothing read past len (ASan); the name
 * handed out is NUL-terminated, 1..255 host name bytes, and empty on every other result;
 * one-shot equals byte-at-a-time. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/tls_sni.h"

static void check_name(const char *name, int r)
{
	size_t n = strnlen(name, TLS_SNI_NAME_MAX + 1);

	if (n > TLS_SNI_NAME_MAX || (r == TLS_SNI_FOUND) != (n > 0))
		abort();
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '.' || c == '_'))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[TLS_SNI_NAME_MAX + 1], name2[TLS_SNI_NAME_MAX + 1];
	int r = tls_sni_parse(data, size, name, sizeof(name));

	if (r > TLS_SNI_FOUND || r < TLS_SNI_TOO_LARGE)
		abort();
	check_name(name, r);
	for (size_t k = 0; k <= size && size <= 2048; k++) {
		int r2 = tls_sni_parse(data, k, name2, sizeof(name2));
		if (r2 == TLS_SNI_PARTIAL)
			continue;
		if (r2 != r || strcmp(name, name2) != 0)
			abort();
		break;
	}
	tls_sni_strerror(r);
	return 0;
}
