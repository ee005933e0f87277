/* settings — tools' settings files that also hold secrets (~/.npmrc, pip's config, docker's
 * config.json, maven's settings.xml, ~/.gradle/gradle.properties), shown to the sandbox with
 * the secrets removed.
 *
 * The sanitiser is pure (text in, text out). It keeps what is plainly a setting: sections,
 * blank lines and key = value lines whose key names no secret; it drops comments (a
 * commented-out token is still a token), lines it cannot parse, and keys naming _auth,
 * password, token or secret (npm's //host/:_authToken too); in every kept value it removes a
 * URL's user:password@. Docker's config.json (JSON) is re-emitted compact without the
 * members whose key is auth or names a secret (identitytoken, registrytoken, password), at
 * any depth; JSON it does not fully parse is refused. gradle.properties keeps key = value lines
 * whose key names no secret (nor key, pass, pwd, auth: signing.password, mavenCentralToken,
 * signing.key) and that hold no backslash (an escape may spell a secret's name, a
 * continuation a secret's value). Maven's settings.xml (XML, a strict subset) is re-emitted
 * without comments, CDATA, the elements whose name is a secret (password, passphrase,
 * privateKey, …) and a <server>'s <configuration> (HTTP headers with tokens); a text or
 * attribute with an entity (&…;) is emptied; a DOCTYPE or anything it does not parse is
 * refused. Yarn 1's .yarnrc keeps top-level `key value` lines (a key quoted or bare) whose
 * key names no secret; an indented line (a nested object) is in doubt. Lines end at \n, \r\n or a
 * lone \r, as Python, Java and Maven read them. settings_read opens the file for it so that no link
 * or renamed parent can make it read something else.
 */
#ifndef SBX_SETTINGS_H
#define SBX_SETTINGS_H
#include <stddef.h>
#include <sys/types.h>

#define SETTINGS_MAX 32768 /* bytes of a settings file shown sanitised (larger: hidden) */

enum settings_kind {
	SETTINGS_NONE,
	SETTINGS_NPMRC,
	SETTINGS_PIP,
	SETTINGS_DOCKER,
	SETTINGS_MAVEN,
	SETTINGS_GRADLE,
	SETTINGS_YARNRC, /* yarn 1's ~/.yarnrc: key value lines */
	SETTINGS_NIX,	 /* ~/.config/nix/nix.conf: key = value lines, no sections */
};

/* Which settings file path (canonical) is, for the canonical home: ~/.npmrc and pnpm's
 * ~/.config/pnpm/rc (npmrc's format), ~/.config/pip/pip.conf or ~/.pip/pip.conf,
 * ~/.docker/config.json, ~/.m2/settings.xml, ~/.gradle/gradle.properties, yarn 1's ~/.yarnrc,
 * ~/.config/nix/nix.conf; SETTINGS_NONE for anything else. */
enum settings_kind settings_kind_of(const char *home, const char *path);

/* in (n bytes) without its secrets, NUL-terminated, into *out (caller frees). Returns 0,
 * -EINVAL for text holding a NUL (or, for JSON and XML, text it does not parse), or
 * -ENOMEM. */
int settings_sanitize(enum settings_kind k, const char *in, size_t n, char **out);

/* The file at path (absolute), only when it is a regular file reached without following a
 * link at its last component, with one link, owned by uid, of at most SETTINGS_MAX bytes;
 * else -ELOOP/-EPERM/-EFBIG or the open's -errno. *text is NUL-terminated (caller frees). */
int settings_read(const char *path, uid_t uid, char **text, size_t *n);

#endif
