/* settings — sanitised copies of settings files that hold secrets (platform/settings.h).
 *
 * Rules kept here:
 * - Keep only what is plainly a setting; drop anything in doubt (comments, unparsable
 *   lines, continuation lines of a dropped key). A lost setting costs less than a token.
 * - A key is secret when, lowercased, it contains _auth, auth_, password, passwd, token,
 *   secret or credential (npm's //host/:_authToken, _auth, _password; pip's password).
 * - gradle.properties and settings.xml: a key or element naming key, pass, pwd, auth (and
 *   login, for XML: sonar.login is a token) is secret too; anything escaped is in doubt.
 * - Lines end at \n, \r\n or a lone \r (Python's configparser and Java's Properties split
 *   there): a file with CR line ends is many lines, not one long kept one.
 * - Reading never follows a link at the last component and takes no hard link, no file of
 *   another owner, nothing but a regular file (the sandbox may have written the directory).
 */
#include "platform/settings.h"

#include "platform/buf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const secret_words[] = {"_auth", "auth_",  "password",  "passwd",
					   "token", "secret", "credential"};

enum settings_kind settings_kind_of(const char *home, const char *path)
{
	static const struct {
		const char *rel;
		enum settings_kind k;
	} files[] = {
	    {"/.npmrc", SETTINGS_NPMRC},
	    {"/.config/pip/pip.conf", SETTINGS_PIP},
	    {"/.pip/pip.conf", SETTINGS_PIP},
	    {"/.docker/config.json", SETTINGS_DOCKER},
	    {"/.m2/settings.xml", SETTINGS_MAVEN},
	    {"/.gradle/gradle.properties", SETTINGS_GRADLE},
	    {"/.config/pnpm/rc", SETTINGS_NPMRC},
	    {"/.yarnrc", SETTINGS_YARNRC},
	    {"/.config/nix/nix.conf", SETTINGS_NIX},
	};
	size_t h = home ? strlen(home) : 0;

	if (!h || strcmp(home, "/") == 0 || strncmp(path, home, h) != 0)
		return SETTINGS_NONE;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (strcmp(path + h, files[i].rel) == 0)
			return files[i].k;
	return SETTINGS_NONE;
}

static bool secret_key(const char *k, size_t n)
{
	char low[256];

	if (n >= sizeof(low))
		return true; /* no setting has such a name */
	for (size_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)k[i]);
	low[n] = '\0';
	for (size_t i = 0; i < sizeof(secret_words) / sizeof(secret_words[0]); i++)
		if (strstr(low, secret_words[i]))
			return true;
	return false;
}

/* Gradle's and Maven's secrets also go by these (signing.key, nexusPass, ossrhPwd, …). */
static bool secret_key_wide(const char *k, size_t n, bool xml)
{
	static const char *const more[] = {"key", "pass", "pwd", "auth", "login"};
	size_t m = sizeof(more) / sizeof(more[0]) - !xml;

	if (secret_key(k, n))
		return true;
	for (size_t i = 0; i < m; i++) {
		size_t l = strlen(more[i]);
		for (size_t j = 0; j + l <= n; j++)
			if (strncasecmp(k + j, more[i], l) == 0)
				return true;
	}
	return false;
}

/* s (n bytes) with every URL's userinfo (scheme://user:pass@) removed: the userinfo ends at
 * the last @ before the authority's end (/ ? # " or a blank). */
static void put_stripped(struct buf *o, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		const char *sep = memmem(s + i, n - i, "://", 3);
		if (!sep) {
			buf_add(o, s + i, n - i);
			break;
		}
		size_t a = (size_t)(sep - s) + 3, at = 0, j;
		buf_add(o, s + i, a - i);
		for (j = a; j < n && !strchr("/?#\"", s[j]) && !isspace((unsigned char)s[j]); j++)
			if (s[j] == '@')
				at = j + 1;
		i = at ? at : a;
	}
}

static void put_value(struct buf *o, const char *s, size_t n)
{
	put_stripped(o, s, n);
	buf_add(o, "\n", 1);
}

struct lines {
	bool keep; /* the last key line was kept (pip's indented continuation lines) */
	bool cont; /* the last line ended in a backslash (a properties continuation) */
};

/* true when l (n bytes) ends in an odd number of backslashes */
static bool continued(const char *l, size_t n)
{
	size_t k = 0;

	while (k < n && l[n - 1 - k] == '\\')
		k++;
	return k % 2 == 1;
}

/* One line of gradle.properties: kept only when it is plainly key=value (or key:value) with
 * no backslash anywhere and a key that names no secret; a continuation goes with its line. */
static void gradle_line(struct buf *o, const char *l, size_t n, struct lines *st)
{
	size_t b = 0, e;
	bool cont = st->cont;

	st->cont = continued(l, n);
	if (cont)
		return;
	while (b < n && strchr(" \t\f", l[b]))
		b++;
	if (b == n) {
		buf_add(o, "\n", 1);
		return;
	}
	if (l[b] == '#' || l[b] == '!' || memchr(l, '\\', n))
		return;
	for (e = b; e < n && !strchr("=: \t\f", l[e]); e++)
		;
	if (e == b || e == n || secret_key_wide(l + b, e - b, false))
		return;
	/* the key as it is: userinfo is only looked for in the value */
	buf_add(o, l + b, e + 1 - b);
	put_value(o, l + e + 1, n - e - 1);
}

/* One line of yarn 1's .yarnrc: `key value` or `"key" "value"` at the top level, kept when
 * the key names no secret (`"//registry.npmjs.org/:_authToken" x` is dropped); a comment, an
 * indented line (part of a nested object), a quoted key with a backslash or no closing quote,
 * or a key with no value is dropped. */
static void yarnrc_line(struct buf *o, const char *l, size_t n)
{
	size_t ka = 0, ke, e, b = 0;

	while (b < n && (l[b] == ' ' || l[b] == '\t'))
		b++;
	if (b == n) {
		buf_add(o, "\n", 1);
		return;
	}
	if (b > 0 || l[0] == '#')
		return;
	if (l[0] == '"') {
		ka = 1;
		for (ke = 1; ke < n && l[ke] != '"' && l[ke] != '\\'; ke++)
			;
		if (ke == n || l[ke] != '"')
			return;
		e = ke + 1;
	} else {
		for (ke = 0; ke < n && l[ke] != ' ' && l[ke] != '\t'; ke++)
			;
		e = ke;
	}
	if (ke == ka || e == n || (l[e] != ' ' && l[e] != '\t') || secret_key(l + ka, ke - ka))
		return;
	buf_add(o, l, e);
	put_value(o, l + e, n - e);
}

/* One line (without its line end). */
static void one_line(struct buf *o, enum settings_kind k, const char *l, size_t n, struct lines *st)
{
	bool *keep = &st->keep;
	size_t b = 0;

	if (k == SETTINGS_GRADLE) {
		gradle_line(o, l, n, st);
		return;
	}
	if (k == SETTINGS_YARNRC) {
		yarnrc_line(o, l, n);
		return;
	}
	while (b < n && (l[b] == ' ' || l[b] == '\t'))
		b++;
	if (b == n) {
		buf_add(o, "\n", 1);
		return;
	}
	if (k == SETTINGS_PIP && b > 0) { /* a continuation of the value above */
		if (*keep)
			put_value(o, l, n);
		return;
	}
	*keep = false;
	if (l[b] == '#' || l[b] == ';')
		return;
	if (l[b] == '[') {
		*keep = true;
		buf_add(o, l + b, n - b);
		buf_add(o, "\n", 1);
		return;
	}
	size_t e = b;
	while (e < n && l[e] != '=' && !(k == SETTINGS_PIP && l[e] == ':'))
		e++;
	if (e == n)
		return; /* no key = value */
	size_t ke = e;
	while (ke > b && (l[ke - 1] == ' ' || l[ke - 1] == '\t'))
		ke--;
	if (ke == b || secret_key(l + b, ke - b))
		return;
	*keep = true;
	/* the key as it is: userinfo is only looked for in the value */
	buf_add(o, l + b, e + 1 - b);
	put_value(o, l + e + 1, n - e - 1);
}

/* ---- JSON (docker's config.json): a strict parser that re-emits what it keeps ---- */

#define JSON_DEPTH 32

struct js {
	const char *s;
	size_t n, i;
	struct buf *o;
};

static void js_ws(struct js *j)
{
	while (j->i < j->n && strchr(" \t\r\n", j->s[j->i]))
		j->i++;
}

/* A string at j->i: its content in [*a, *b), j->i past the closing quote. */
static int js_string(struct js *j, size_t *a, size_t *b)
{
	if (j->i >= j->n || j->s[j->i] != '"')
		return -EINVAL;
	*a = ++j->i;
	while (j->i < j->n && j->s[j->i] != '"') {
		unsigned char c = (unsigned char)j->s[j->i];
		if (c < 0x20)
			return -EINVAL;
		if (c == '\\') {
			if (++j->i >= j->n || !strchr("\"\\/bfnrtu", j->s[j->i]))
				return -EINVAL;
		}
		j->i++;
	}
	if (j->i >= j->n)
		return -EINVAL;
	*b = j->i++;
	return 0;
}

/* A member key that names a secret: auth, or a secret word; an escape anywhere counts as
 * one (\u0061uth is auth to docker). */
static bool js_secret_key(const char *k, size_t n)
{
	if (memchr(k, '\\', n))
		return true;
	if (n == 4 && strncasecmp(k, "auth", 4) == 0)
		return true;
	return secret_key(k, n);
}

static int js_value(struct js *j, bool emit, int depth);

static int js_object(struct js *j, bool emit, int depth)
{
	bool first = true;
	size_t a, b;
	int r;

	j->i++; /* { */
	if (emit)
		buf_add(j->o, "{", 1);
	js_ws(j);
	if (j->i < j->n && j->s[j->i] == '}') {
		j->i++;
		goto done;
	}
	for (;;) {
		js_ws(j);
		if ((r = js_string(j, &a, &b)) < 0)
			return r;
		js_ws(j);
		if (j->i >= j->n || j->s[j->i++] != ':')
			return -EINVAL;
		js_ws(j);
		bool keep = emit && !js_secret_key(j->s + a, b - a);
		if (keep) {
			if (!first)
				buf_add(j->o, ",", 1);
			buf_add(j->o, j->s + a - 1, b - a + 2);
			buf_add(j->o, ":", 1);
			first = false;
		}
		if ((r = js_value(j, keep, depth + 1)) < 0)
			return r;
		js_ws(j);
		if (j->i < j->n && j->s[j->i] == ',') {
			j->i++;
			continue;
		}
		if (j->i < j->n && j->s[j->i] == '}') {
			j->i++;
			break;
		}
		return -EINVAL;
	}
done:
	if (emit)
		buf_add(j->o, "}", 1);
	return 0;
}

static int js_array(struct js *j, bool emit, int depth)
{
	bool first = true;
	int r;

	j->i++; /* [ */
	if (emit)
		buf_add(j->o, "[", 1);
	js_ws(j);
	if (j->i < j->n && j->s[j->i] == ']') {
		j->i++;
		goto done;
	}
	for (;;) {
		js_ws(j);
		if (emit && !first)
			buf_add(j->o, ",", 1);
		first = false;
		if ((r = js_value(j, emit, depth + 1)) < 0)
			return r;
		js_ws(j);
		if (j->i < j->n && j->s[j->i] == ',') {
			j->i++;
			continue;
		}
		if (j->i < j->n && j->s[j->i] == ']') {
			j->i++;
			break;
		}
		return -EINVAL;
	}
done:
	if (emit)
		buf_add(j->o, "]", 1);
	return 0;
}

/* A number or true/false/null: copied as it is (its characters checked, not its grammar). */
static int js_atom(struct js *j, bool emit)
{
	static const char *const words[] = {"true", "false", "null"};
	size_t a = j->i;

	for (size_t w = 0; w < 3; w++) {
		size_t l = strlen(words[w]);
		if (j->n - j->i >= l && memcmp(j->s + j->i, words[w], l) == 0) {
			j->i += l;
			goto out;
		}
	}
	while (j->i < j->n && strchr("-+.0123456789eE", j->s[j->i]))
		j->i++;
	if (j->i == a)
		return -EINVAL;
out:
	if (emit)
		buf_add(j->o, j->s + a, j->i - a);
	return 0;
}

static int js_value(struct js *j, bool emit, int depth)
{
	size_t a, b;
	int r;

	if (depth > JSON_DEPTH || j->i >= j->n)
		return -EINVAL;
	switch (j->s[j->i]) {
	case '{':
		return js_object(j, emit, depth);
	case '[':
		return js_array(j, emit, depth);
	case '"':
		if ((r = js_string(j, &a, &b)) < 0)
			return r;
		/* an escaped URL (http:\/\/u:p@h) would hide its userinfo: such a string is "" */
		if (emit && memchr(j->s + a, '\\', b - a) && memchr(j->s + a, '@', b - a))
			buf_add(j->o, "\"\"", 2);
		else if (emit) {
			buf_add(j->o, "\"", 1);
			put_stripped(j->o, j->s + a, b - a);
			buf_add(j->o, "\"", 1);
		}
		return 0;
	default:
		return js_atom(j, emit);
	}
}

static int sanitize_json(const char *in, size_t n, struct buf *o)
{
	struct js j = {in, n, 0, o};
	int r;

	js_ws(&j);
	if (j.i >= n || in[j.i] != '{')
		return -EINVAL;
	if ((r = js_value(&j, true, 0)) < 0)
		return r;
	js_ws(&j);
	if (j.i != n)
		return -EINVAL;
	buf_add(o, "\n", 1);
	return 0;
}

/* ---- XML (maven's settings.xml): a strict subset, re-emitted without what is secret ---- */

#define XML_DEPTH 64

struct xml {
	const char *s;
	size_t n, i;
	struct buf *o;
};

static bool xml_at(const struct xml *x, const char *lit)
{
	size_t l = strlen(lit);

	return x->n - x->i >= l && memcmp(x->s + x->i, lit, l) == 0;
}

/* Past the next end (after from), or -EINVAL when there is none. */
static int xml_past(struct xml *x, size_t from, const char *end)
{
	const char *e = memmem(x->s + from, x->n - from, end, strlen(end));

	if (!e)
		return -EINVAL;
	x->i = (size_t)(e - x->s) + strlen(end);
	return 0;
}

static void xml_ws(struct xml *x)
{
	while (x->i < x->n && strchr(" \t\r\n", x->s[x->i]))
		x->i++;
}

/* A name at x->i (ASCII letters, digits, _ : . -; not starting with a digit, . or -). */
static int xml_name(struct xml *x, size_t *a, size_t *len)
{
	*a = x->i;
	while (x->i < x->n && (isalnum((unsigned char)x->s[x->i]) || strchr("_:.-", x->s[x->i])))
		x->i++;
	*len = x->i - *a;
	if (!*len || isdigit((unsigned char)x->s[*a]) || strchr(".-", x->s[*a]))
		return -EINVAL;
	return 0;
}

/* Text or an attribute's value: userinfo removed; emptied when it holds an entity (&#64; is
 * an @ to maven, and the userinfo before it would stay). */
static void xml_text(struct xml *x, size_t a, size_t len)
{
	if (!memchr(x->s + a, '&', len))
		put_stripped(x->o, x->s + a, len);
}

static bool xml_secret(const char *name, size_t len)
{
	const char *c = memrchr(name, ':', len);

	if (c) {
		len -= (size_t)(c + 1 - name);
		name = c + 1;
	}
	return secret_key_wide(name, len, true);
}

/* A start tag at x->i (past its <): emitted unless drop; *empty when it ends with />. */
static int xml_start(struct xml *x, bool drop, bool *empty)
{
	size_t a, len, va, vl;
	int r;

	if ((r = xml_name(x, &a, &len)) < 0)
		return r;
	if (!drop) {
		buf_add(x->o, "<", 1);
		buf_add(x->o, x->s + a, len);
	}
	for (;;) {
		size_t before = x->i;
		xml_ws(x);
		if (xml_at(x, "/>") || xml_at(x, ">")) {
			*empty = x->s[x->i] == '/';
			x->i += *empty ? 2 : 1;
			if (!drop)
				buf_add(x->o, *empty ? "/>" : ">", *empty ? 2 : 1);
			return 0;
		}
		if (x->i == before || (r = xml_name(x, &a, &len)) < 0)
			return -EINVAL; /* attributes are separated by blanks */
		xml_ws(x);
		if (x->i >= x->n || x->s[x->i++] != '=')
			return -EINVAL;
		xml_ws(x);
		char q = x->i < x->n ? x->s[x->i] : 0;
		if (q != '"' && q != '\'')
			return -EINVAL;
		va = ++x->i;
		while (x->i < x->n && x->s[x->i] != q && x->s[x->i] != '<')
			x->i++;
		if (x->i >= x->n || x->s[x->i] != q)
			return -EINVAL;
		vl = x->i++ - va;
		if (drop || xml_secret(x->s + a, len))
			continue;
		buf_add(x->o, " ", 1);
		buf_add(x->o, x->s + a, len);
		buf_add(x->o, "=", 1);
		buf_add(x->o, &q, 1);
		xml_text(x, va, vl);
		buf_add(x->o, &q, 1);
	}
}

static int sanitize_xml(const char *in, size_t n, struct buf *o)
{
	struct xml x = {in, n, 0, o};
	struct {
		size_t a, len;
	} st[XML_DEPTH];
	size_t d = 0, skip = 0; /* skip: the depth of the element being dropped, 0: none */
	bool root = false, empty;
	int r;

	while (x.i < n) {
		size_t a = x.i, len;
		if (in[x.i] != '<') {
			while (x.i < n && in[x.i] != '<')
				x.i++;
			for (size_t j = a; !d && j < x.i; j++)
				if (!strchr(" \t\r\n", in[j]))
					return -EINVAL; /* text outside the root element */
			if (!skip)
				xml_text(&x, a, x.i - a);
			continue;
		}
		if (xml_at(&x, "<!--")) {
			r = xml_past(&x, x.i + 4, "-->");
		} else if (xml_at(&x, "<![CDATA[")) {
			r = xml_past(&x, x.i + 9, "]]>");
		} else if (xml_at(&x, "<!")) {
			r = -EINVAL; /* a DOCTYPE: entities of its own */
		} else if (xml_at(&x, "<?")) {
			if ((r = xml_past(&x, x.i + 2, "?>")) == 0 && a == 0 &&
			    strncmp(in, "<?xml ", 6) == 0)
				buf_add(o, in, x.i); /* the declaration (its encoding) */
		} else if (xml_at(&x, "</")) {
			x.i += 2;
			if ((r = xml_name(&x, &a, &len)) < 0)
				return r;
			xml_ws(&x);
			if (!d || len != st[d - 1].len ||
			    memcmp(in + a, in + st[d - 1].a, len) != 0 || x.i >= n ||
			    in[x.i++] != '>')
				return -EINVAL;
			if (!skip) {
				buf_add(o, "</", 2);
				buf_add(o, in + a, len);
				buf_add(o, ">", 1);
			}
			if (skip == d)
				skip = 0;
			d--;
		} else {
			size_t na;
			x.i++;
			if (d == 0 && root)
				return -EINVAL; /* one root element */
			na = x.i;
			if ((r = xml_name(&x, &a, &len)) < 0)
				return r;
			x.i = na;
			bool drop = xml_secret(in + a, len) ||
				    (d && st[d - 1].len == 6 &&
				     memcmp(in + st[d - 1].a, "server", 6) == 0 && len == 13 &&
				     memcmp(in + a, "configuration", 13) == 0);
			if (d == 0 && drop)
				return -EINVAL; /* a secret root: nothing would be left */
			if ((r = xml_start(&x, skip || drop, &empty)) < 0)
				return r;
			root = true;
			if (empty)
				continue;
			if (d >= XML_DEPTH)
				return -EINVAL;
			if (!skip && drop)
				skip = d + 1;
			st[d].a = a;
			st[d++].len = len;
		}
		if (r < 0)
			return r;
	}
	if (d || !root)
		return -EINVAL;
	if (!o->n || o->p[o->n - 1] != '\n')
		buf_add(o, "\n", 1);
	return 0;
}

int settings_sanitize(enum settings_kind k, const char *in, size_t n, char **out)
{
	struct buf o = {0};
	struct lines st = {0};
	int r;

	*out = NULL;
	if (memchr(in, '\0', n))
		return -EINVAL;
	if (k == SETTINGS_DOCKER || k == SETTINGS_MAVEN) {
		r = k == SETTINGS_DOCKER ? sanitize_json(in, n, &o) : sanitize_xml(in, n, &o);
		if (r < 0 || (r = o.err) < 0) {
			buf_free(&o);
			return r;
		}
		*out = buf_steal(&o);
		return 0;
	}
	for (size_t i = 0; i < n;) {
		size_t len = 0;
		while (i + len < n && in[i + len] != '\r' && in[i + len] != '\n')
			len++;
		one_line(&o, k, in + i, len, &st);
		i += len;
		if (i < n && in[i] == '\r' && i + 1 < n && in[i + 1] == '\n')
			i++;
		i++;
	}
	if ((r = o.err) < 0) {
		buf_free(&o);
		return r;
	}
	*out = buf_steal(&o);
	return 0;
}

int settings_read(const char *path, uid_t uid, char **text, size_t *n)
{
	struct stat st;
	char *t = NULL;
	size_t got = 0;
	int fd, r = 0;

	*text = NULL;
	*n = 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_uid != uid) {
		r = -EPERM;
		goto out;
	}
	if (st.st_size > SETTINGS_MAX) {
		r = -EFBIG;
		goto out;
	}
	if (!(t = malloc(SETTINGS_MAX + 1))) {
		r = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t k = read(fd, t + got, SETTINGS_MAX + 1 - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			goto out;
		}
		if (k == 0)
			break;
		got += (size_t)k;
		if (got > SETTINGS_MAX) { /* grew since fstat */
			r = -EFBIG;
			goto out;
		}
	}
	t[got] = '\0';
	*text = t;
	*n = got;
	t = NULL;
out:
	free(t);
	close(fd);
	return r;
}
