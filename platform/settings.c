/* settings — sanitised copies of settings files that hold secrets (platform/settings.h).
 *
 * Rules kept here:
 * - Keep only what is plainly a setting; drop anything in doubt (comments, unparsable
 *   lines, continuation lines of a dropped key). A lost setting costs less than a token.
 * - A key is secret when, lowercased, it contains _auth, auth_, password, passwd, token,
 *   secret or credential (npm's //host/:_authToken, _auth, _password; pip's password).
 * - Reading never follows a link at the last component and takes no hard link, no file of
 *   another owner, nothing but a regular file (the sandbox may have written the directory).
 */
#include "platform/settings.h"

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

struct out {
	char *p;
	size_t n, cap;
	int err;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->err)
		return;
	if (o->n + n + 1 > o->cap) {
		size_t cap = (o->n + n + 1) * 2;
		char *q = realloc(o->p, cap);
		if (!q) {
			o->err = -ENOMEM;
			return;
		}
		o->p = q;
		o->cap = cap;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
	o->p[o->n] = '\0';
}

/* s (n bytes) with every URL's userinfo (scheme://user:pass@) removed: the userinfo ends at
 * the last @ before the authority's end (/ ? # " or a blank). */
static void put_stripped(struct out *o, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		const char *sep = memmem(s + i, n - i, "://", 3);
		if (!sep) {
			put(o, s + i, n - i);
			break;
		}
		size_t a = (size_t)(sep - s) + 3, at = 0, j;
		put(o, s + i, a - i);
		for (j = a; j < n && !strchr("/?#\"", s[j]) && !isspace((unsigned char)s[j]); j++)
			if (s[j] == '@')
				at = j + 1;
		i = at ? at : a;
	}
}

static void put_value(struct out *o, const char *s, size_t n)
{
	put_stripped(o, s, n);
	put(o, "\n", 1);
}

/* One line (without its newline). *keep says whether the last key line was kept, for
 * pip's indented continuation lines. */
static void one_line(struct out *o, enum settings_kind k, const char *l, size_t n, bool *keep)
{
	size_t b = 0;

	if (n && l[n - 1] == '\r')
		n--;
	while (b < n && (l[b] == ' ' || l[b] == '\t'))
		b++;
	if (b == n) {
		put(o, "\n", 1);
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
		put(o, l + b, n - b);
		put(o, "\n", 1);
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
	put_value(o, l + b, n - b);
}

/* ---- JSON (docker's config.json): a strict parser that re-emits what it keeps ---- */

#define JSON_DEPTH 32

struct js {
	const char *s;
	size_t n, i;
	struct out *o;
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
		put(j->o, "{", 1);
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
				put(j->o, ",", 1);
			put(j->o, j->s + a - 1, b - a + 2);
			put(j->o, ":", 1);
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
		put(j->o, "}", 1);
	return 0;
}

static int js_array(struct js *j, bool emit, int depth)
{
	bool first = true;
	int r;

	j->i++; /* [ */
	if (emit)
		put(j->o, "[", 1);
	js_ws(j);
	if (j->i < j->n && j->s[j->i] == ']') {
		j->i++;
		goto done;
	}
	for (;;) {
		js_ws(j);
		if (emit && !first)
			put(j->o, ",", 1);
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
		put(j->o, "]", 1);
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
		put(j->o, j->s + a, j->i - a);
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
			put(j->o, "\"\"", 2);
		else if (emit) {
			put(j->o, "\"", 1);
			put_stripped(j->o, j->s + a, b - a);
			put(j->o, "\"", 1);
		}
		return 0;
	default:
		return js_atom(j, emit);
	}
}

static int sanitize_json(const char *in, size_t n, struct out *o)
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
	put(o, "\n", 1);
	return 0;
}

int settings_sanitize(enum settings_kind k, const char *in, size_t n, char **out)
{
	struct out o = {0};
	bool keep = false;
	int r;

	*out = NULL;
	if (memchr(in, '\0', n))
		return -EINVAL;
	put(&o, "", 0);
	if (k == SETTINGS_DOCKER) {
		if ((r = sanitize_json(in, n, &o)) < 0 || (r = o.err) < 0) {
			free(o.p);
			return r;
		}
		*out = o.p;
		return 0;
	}
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(in + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (in + i)) : n - i;
		one_line(&o, k, in + i, len, &keep);
		i += len + 1;
	}
	if (o.err) {
		free(o.p);
		return o.err;
	}
	*out = o.p;
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
