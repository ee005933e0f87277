/* policy_parse — one policy file's bytes → sections and operations (inih does key = value).
 *
 * Rules kept: every line is accounted for — a NUL byte, a line longer than inih's buffer, a
 * line that is neither comment, section nor key, an unknown section or key, a bad value —
 * each is an error naming file:line; nothing is truncated or skipped silently. Values are
 * validated here (paths, globs, domains, ports) so that a loaded policy resolves cleanly.
 */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"
#include "platform/buf.h"
#include "platform/path.h"
#include "proxy/domain.h"
#include "shell/policy_impl.h"

const char *const policy_net_names[] = {"none", "proxy", "open", NULL};
const char *const policy_tmp_names[] = {"private", "shared", NULL};
const char *const policy_viol_names[] = {"fail", "warn", "log", NULL};
const char *const policy_monitor_names[] = {"off", "writes", "on", "full", NULL};

const struct key_def policy_keys[K_COUNT] = {
    [K_INNER_SHELL] = {"inner_shell", V_ABSPATH, IN_SBXSH, NULL},
    [K_BWRAP] = {"bwrap", V_ABSPATH, IN_SBXSH, NULL},
    [K_ON_VIOLATION] = {"on_violation", V_ENUM, IN_SBXSH | IN_PROFILE, policy_viol_names},
    [K_MONITOR] = {"monitor", V_LEVEL, IN_SBXSH, policy_monitor_names},
    [K_ROOT_MARKERS] = {"root_markers", V_NAMES, IN_SBXSH, NULL},
    [K_LOG] = {"log", V_ABSPATH, IN_SBXSH, NULL},
    [K_SYSLOG] = {"syslog", V_BOOL, IN_SBXSH, NULL},
    [K_IDLE_EXIT] = {"idle_exit", V_UINT, IN_SBXSH, NULL},
    [K_USER_CONFIG] = {"user_config", V_BOOL, IN_SBXSH | IN_LIMITS, NULL},
    [K_PROMPT_MARKER] = {"prompt_marker", V_TEXT, IN_SBXSH, NULL},
    [K_USE] = {"use", V_USE, IN_PROFILE, NULL},
    [K_READ] = {"read", V_PATHS, IN_PROFILE, NULL},
    [K_HERMETIC] = {"hermetic", V_BOOL, IN_PROFILE, NULL},
    [K_DENY_READ] = {"deny_read", V_PATHS, IN_PROFILE | IN_LIMITS, NULL},
    [K_WRITE] = {"write", V_PATHS, IN_PROFILE | IN_LIMITS, NULL},
    [K_DENY_WRITE] = {"deny_write", V_PATHS, IN_PROFILE, NULL},
    [K_GIT_CONFIG] = {"git_config", V_BOOL, IN_PROFILE, NULL},
    [K_TMP] = {"tmp", V_ENUM, IN_PROFILE, policy_tmp_names},
    [K_NETWORK] = {"network", V_ENUM, IN_PROFILE | IN_LIMITS, policy_net_names},
    [K_ALLOW_DOMAINS] = {"allow_domains", V_DOMAINS, IN_PROFILE | IN_LIMITS, NULL},
    [K_DENY_DOMAINS] = {"deny_domains", V_DOMAINS, IN_PROFILE, NULL},
    [K_UNIX_SOCKETS] = {"unix_sockets", V_SOCKETS, IN_PROFILE, NULL},
    [K_LISTEN] = {"listen", V_PORTS, IN_PROFILE, NULL},
    [K_ENV_UNSET] = {"env_unset", V_NAMES, IN_PROFILE, NULL},
    [K_ENV_SET] = {"env_set", V_ENVSET, IN_PROFILE, NULL},
    [K_ENV_KEEP] = {"env_keep", V_NAMES, IN_PROFILE, NULL},
    [K_TMP_SIZE] = {"tmp_size", V_SIZE, IN_PROFILE, NULL},
    [K_SHM_SIZE] = {"shm_size", V_SIZE, IN_PROFILE, NULL},
    [K_IGNORE_READ] = {"ignore_read", V_PATHS, IN_PROFILE, NULL},
    [K_IGNORE_WRITE] = {"ignore_write", V_PATHS, IN_PROFILE, NULL},
    [K_IGNORE_NETWORK] = {"ignore_network", V_DOMAINS, IN_PROFILE, NULL},
    [K_CREATE] = {"create", V_PATHS, IN_PROFILE, NULL},
};

static const char *const sec_words[] = {"sbxsh", "default", "profile", "dir", "limits", NULL};

struct pctx {
	struct policy *p;
	struct diag *d;
	const char *file;
	bool user;
	const char *buf, *pos, *end;
	unsigned line;
	bool cont;	/* the line being parsed continues the previous key */
	bool have_prev; /* inih's prev_name is set */
	bool skip;	/* inside a section that was refused: its keys are not checked */
	bool prev_bad;	/* the previous key was refused: its continuations are too */
	struct section *cur;
	enum key_id last_key;
	enum op_kind last_op;
	unsigned errors;
	int nomem;
};

int policy_diag(struct strv *sv, const char *file, unsigned line, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	if (line)
		r = strv_pushf(sv, "%s:%u: %s", file, line, msg);
	else
		r = strv_pushf(sv, "%s: %s", file, msg);
	free(msg);
	return r;
}

#define perr(c, ...)                                                                               \
	do {                                                                                       \
		(c)->errors++;                                                                     \
		if (policy_diag(&(c)->d->errors, (c)->file, (c)->line, __VA_ARGS__) < 0)           \
			(c)->nomem = -ENOMEM;                                                      \
	} while (0)

const char *policy_intern(struct policy *p, const char *name)
{
	long i = strv_find(&p->files, name);
	if (i >= 0)
		return p->files.v[i];
	if (strv_push(&p->files, name) < 0)
		return NULL;
	return p->files.v[p->files.n - 1];
}

int policy_bool(const char *s)
{
	static const char *const yes[] = {"yes", "true", "on", "1", NULL};
	static const char *const no[] = {"no", "false", "off", "0", NULL};
	if (policy_enum(yes, s) >= 0)
		return 1;
	return policy_enum(no, s) >= 0 ? 0 : -1;
}

int policy_level(const char *const *names, const char *word)
{
	int b = policy_bool(word);

	return b == 1 ? 2 : b == 0 ? 0 : policy_enum(names, word);
}

#define SIZE_MIN  (1ull << 20) /* a tmpfs smaller than 1 MiB is a typo, not a bound */
#define SIZE_MAX_ (1ull << 50)

int policy_size(const char *word, struct pol_size *z)
{
	unsigned long long v = 0;
	const char *s = word;

	*z = (struct pol_size){0};
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > SIZE_MAX_)
			return -1;
	}
	if (s == word)
		return -1;
	if (strcmp(s, "%") == 0) {
		z->pct = (unsigned)v;
		return v >= 1 && v <= 100 ? 0 : -1;
	}
	unsigned shift = !*s		    ? 0
			 : strchr("kK", *s) ? 10
			 : strchr("mM", *s) ? 20
			 : strchr("gG", *s) ? 30
			 : strchr("tT", *s) ? 40
					    : 99;
	if (shift == 99 || (*s && s[1]) || v > SIZE_MAX_ >> shift)
		return -1;
	z->bytes = v << shift;
	return z->bytes >= SIZE_MIN ? 0 : -1;
}

int policy_enum(const char *const *names, const char *word)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], word) == 0)
			return i;
	return -1;
}

int policy_split(const char *value, struct strv *out)
{
	size_t len = strlen(value);
	char *tok = malloc(len + 1);
	size_t n = 0;
	int depth = 0, r = 0;
	if (!tok)
		return -ENOMEM;
	for (const char *s = value;; s++) {
		bool sep = !*s || ((*s == ' ' || *s == '\t' || *s == ',') && !(*s == ',' && depth));
		if (sep) {
			if (n) {
				tok[n] = '\0';
				if ((r = strv_push(out, tok)) < 0)
					break;
				n = 0;
			}
			if (!*s)
				break;
			continue;
		}
		if (*s == '\\' && (s[1] == ' ' || s[1] == ',')) {
			tok[n++] = *++s;
			continue;
		}
		if (*s == '\\' && s[1])
			tok[n++] = *s++;
		else if (*s == '{')
			depth++;
		else if (*s == '}' && depth)
			depth--;
		tok[n++] = *s;
	}
	free(tok);
	return r;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64];
	if (la > 62 || lb > 62)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* The closest key valid in a section of kind k. */
static const char *closest_key(const char *name, enum sec_kind k)
{
	const char *best = NULL;
	size_t bd = (size_t)-1;
	for (int i = 0; i < K_COUNT; i++) {
		if (!(policy_keys[i].where & (1u << k)))
			continue;
		size_t dd = edit_distance(name, policy_keys[i].name);
		if (dd < bd)
			bd = dd, best = policy_keys[i].name;
	}
	return best;
}

static struct section *section_new(struct pctx *c, enum sec_kind kind, const char *name,
				   const char *head)
{
	struct policy *p = c->p;
	struct section *ns = array_grow(p->secs, &p->cap, p->nsecs + 1, sizeof(*ns));
	if (!ns)
		return NULL;
	p->secs = ns;
	struct section *s = &p->secs[p->nsecs];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->file = c->file;
	s->line = c->line;
	s->user = c->user;
	s->head = strdup(head);
	s->name = name ? strdup(name) : NULL;
	if (!s->head || (name && !s->name)) {
		free(s->head);
		free(s->name);
		return NULL;
	}
	p->nsecs++;
	return s;
}

static bool valid_profile_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' || *s == '.'))
			return false;
	return true;
}

/* Checks a [dir] pattern as far as it can be without a cwd. Returns NULL or a message. */
static char *dir_pattern_error(struct pctx *c, const char *pat)
{
	char *out = NULL, *err = NULL, *msg = NULL;
	if (pat[0] != '/' && pat[0] != '~' && pat[0] != '$') {
		if (asprintf(&msg, "[dir %s]: the pattern must be absolute, '~/…' or '$VAR/…'",
			     pat) < 0)
			msg = NULL;
		return msg;
	}
	if (strpbrk(pat, "{}")) {
		if (asprintf(&msg,
			     "[dir %s]: '{a,b}' is not supported in [dir] patterns; write one "
			     "section per directory",
			     pat) < 0)
			msg = NULL;
		return msg;
	}
	if (path_expand(pat, c->p->home, "/", &out, &err) < 0) {
		if (asprintf(&msg, "[dir %s]: the pattern %s", pat, err ? err : "is invalid") < 0)
			msg = NULL;
	}
	free(out);
	free(err);
	return msg;
}

/* Opens the section named by the text between the brackets. */
static void section_open(struct pctx *c, char *text)
{
	char *name = text, *arg;
	while (*name == ' ' || *name == '\t')
		name++;
	arg = name + strcspn(name, " \t");
	size_t wlen = (size_t)(arg - name);
	while (*arg == ' ' || *arg == '\t')
		arg++;
	for (char *e = arg + strlen(arg); e > arg && (e[-1] == ' ' || e[-1] == '\t');)
		*--e = '\0';
	char word[32] = "";
	if (wlen < sizeof(word))
		memcpy(word, name, wlen), word[wlen] = '\0';
	int k = policy_enum(sec_words, word);
	char head[4200];
	snprintf(head, sizeof(head), "[%s%s%s]", word, *arg ? " " : "", arg);
	c->cur = NULL;
	c->skip = true;
	c->have_prev = false;
	if (k < 0) {
		const char *best = NULL;
		size_t bd = (size_t)-1;
		for (int i = 0; sec_words[i]; i++) {
			size_t dd = edit_distance(word, sec_words[i]);
			if (dd < bd)
				bd = dd, best = sec_words[i];
		}
		perr(c,
		     "unknown section [%s]; did you mean [%s]? (sections: [sbxsh] [default] "
		     "[profile NAME] [dir PATTERN] [limits])",
		     text, best);
		return;
	}
	bool takes_arg = k == SEC_PROFILE || k == SEC_DIR;
	if (takes_arg && !*arg) {
		perr(c, "[%s] needs a %s: write [%s %s]", word, k == SEC_DIR ? "pattern" : "name",
		     word, k == SEC_DIR ? "PATTERN" : "NAME");
		return;
	}
	if (!takes_arg && *arg) {
		perr(c, "[%s] takes no argument; write [%s]", text, word);
		return;
	}
	if (k == SEC_LIMITS && c->user) {
		perr(c,
		     "[limits] is honoured only in system files (%s/sbxsh/); remove it from this "
		     "user file",
		     SBX_SYSCONFDIR);
		return;
	}
	if (k == SEC_PROFILE && !valid_profile_name(arg)) {
		perr(c, "[profile %s]: a profile name is letters, digits, '_', '-' and '.'", arg);
		return;
	}
	if (k == SEC_DIR) {
		char *msg = dir_pattern_error(c, arg);
		if (msg) {
			perr(c, "%s", msg);
			free(msg);
			return;
		}
	}
	c->cur = section_new(c, (enum sec_kind)k, takes_arg ? arg : NULL, head);
	if (!c->cur)
		c->nomem = -ENOMEM;
	c->skip = !c->cur;
}

/* --- values --- */

static bool valid_env_name(const char *s, bool glob)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || (glob && strchr("*?[]", *s))))
			return false;
	return true;
}

static void check_path(struct pctx *c, const char *key, const char *tok, bool absolute)
{
	char *out = NULL, *err = NULL;
	int r;
	if (absolute && tok[0] != '/' && tok[0] != '~' && tok[0] != '$')
		perr(c, "%s: '%s' must be an absolute path", key, tok);
	else if ((r = path_expand(tok, c->p->home, "/", &out, &err)) < 0 &&
		 !(r == -ENXIO && strcmp(key, "deny_read") == 0)) /* names nothing: hides nothing */
		perr(c, "%s: '%s' %s", key, tok, err ? err : "cannot be expanded");
	free(out);
	free(err);
}

static void check_token(struct pctx *c, const struct key_def *k, const char *tok)
{
	struct domain_pattern dp;
	char *err = NULL;
	unsigned long v;
	char *end;

	switch (k->kind) {
	case V_BOOL:
		if (policy_bool(tok) < 0)
			perr(c,
			     "%s: '%s' is not a boolean; write yes or no (true/false, on/off, 1/0)",
			     k->name, tok);
		break;
	case V_ENUM:
		if (policy_enum(k->names, tok) < 0)
			perr(c, "%s: '%s' is not one of: %s%s%s%s%s", k->name, tok, k->names[0],
			     k->names[1] ? ", " : "", k->names[1] ? k->names[1] : "",
			     k->names[1] && k->names[2] ? ", " : "",
			     k->names[1] && k->names[2] ? k->names[2] : "");
		break;
	case V_LEVEL:
		if (policy_level(k->names, tok) < 0)
			perr(c, "%s: '%s' is not one of: %s, %s, %s, %s (yes/no are on/off)",
			     k->name, tok, k->names[0], k->names[1], k->names[2], k->names[3]);
		break;
	case V_UINT:
		v = strtoul(tok, &end, 10);
		if (*end || tok[0] < '0' || tok[0] > '9' || v > 86400 * 7)
			perr(c, "%s: '%s' is not a number of seconds (0 to 604800)", k->name, tok);
		break;
	case V_ABSPATH:
		check_path(c, k->name, tok, true);
		break;
	case V_SOCKETS:
		/* A socket path would need connect() judged and performed outside (the path in
		 * memory can change after a check): until then a path is refused, not ignored. */
		if (strcmp(tok, "all") != 0)
			perr(c,
			     "%s: '%s': a socket path is not supported (it would grant nothing: "
			     "socket(AF_UNIX) stays refused); write %s = all to allow unix sockets",
			     k->name, tok, k->name);
		break;
	case V_PATHS:
		check_path(c, k->name, tok, false);
		break;
	case V_DOMAINS:
		if (domain_pattern_parse(tok, &dp, &err) < 0)
			perr(c, "%s: %s", k->name, err ? err : "bad domain pattern");
		free(err);
		break;
	case V_PORTS:
		v = strtoul(tok, &end, 10);
		if (*end || tok[0] < '0' || tok[0] > '9' || v < 1 || v > 65535)
			perr(c, "%s: '%s' is not a TCP port (1-65535)", k->name, tok);
		break;
	case V_NAMES:
		if (k == &policy_keys[K_ROOT_MARKERS]
			? (strchr(tok, '/') || !strcmp(tok, ".") || !strcmp(tok, ".."))
			: !valid_env_name(tok, true))
			perr(c, "%s: '%s' is not a valid name", k->name, tok);
		break;
	case V_ENVSET: {
		const char *eq = strchr(tok, '=');
		char name[256] = "";
		if (eq && (size_t)(eq - tok) < sizeof(name))
			memcpy(name, tok, (size_t)(eq - tok)), name[eq - tok] = '\0';
		char *x = NULL;
		if (!eq || !valid_env_name(name, false))
			perr(c, "env_set: '%s' is not NAME=value (one pair per line)", tok);
		else if (env_expand(eq + 1, NULL, NULL, &x) == -EINVAL)
			perr(c, "env_set: '%s': %s", tok, ENV_EXPAND_HINT);
		free(x);
		break;
	}
	case V_SIZE: {
		struct pol_size z;
		if (policy_size(tok, &z) < 0)
			perr(c,
			     "%s: '%s' is not a size; write bytes with k, M or G (at least 1M, "
			     "e.g. 512M or 2G) or a percentage of the memory (1%% to 100%%, e.g. "
			     "25%%)",
			     k->name, tok);
		break;
	}
	case V_USE:
		if (!valid_profile_name(tok))
			perr(c, "use: '%s' is not a profile name", tok);
		break;
	case V_TEXT: {
		size_t n = 0;
		for (const unsigned char *p = (const unsigned char *)tok; *p; p++, n++)
			if (*p < 0x20 || *p == 0x7f)
				n = 1000;
		if (n > 64)
			perr(c, "%s: at most 64 printable characters (no tab or control character)",
			     k->name);
		break;
	}
	}
}

static bool is_list(enum val_kind k)
{
	return k == V_PATHS || k == V_DOMAINS || k == V_PORTS || k == V_NAMES || k == V_SOCKETS ||
	       k == V_ENVSET;
}

/* Parses "key", "key +" or "key -" into a key id and operation; reports unknown keys. */
static int parse_name(struct pctx *c, const char *raw, enum key_id *key, enum op_kind *op)
{
	char name[64];
	size_t n = strlen(raw);
	*op = OP_SET;
	if (n && (raw[n - 1] == '+' || raw[n - 1] == '-')) {
		*op = raw[n - 1] == '+' ? OP_ADD : OP_DEL;
		n--;
	}
	while (n && (raw[n - 1] == ' ' || raw[n - 1] == '\t'))
		n--;
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, raw, n);
	name[n] = '\0';
	for (int i = 0; i < K_COUNT; i++) {
		if (strcmp(policy_keys[i].name, name) != 0)
			continue;
		if (!(policy_keys[i].where & (1u << c->cur->kind))) {
			perr(c, "'%s' does not belong in %s; it goes in %s", name, c->cur->head,
			     policy_keys[i].where & IN_PROFILE
				 ? "[default], [profile NAME] or [dir PATTERN]"
			     : policy_keys[i].where & IN_SBXSH ? "[sbxsh]"
							       : "[limits]");
			return -1;
		}
		*key = (enum key_id)i;
		return 0;
	}
	perr(c, "unknown key '%s' in %s; did you mean '%s'?", name, c->cur->head,
	     closest_key(name, c->cur->kind));
	return -1;
}

static int add_op(struct pctx *c, enum key_id key, enum op_kind op, struct strv *tokens)
{
	struct section *s = c->cur;
	struct pol_op *no = array_grow(s->ops, &s->cap, s->nops + 1, sizeof(*no));
	if (!no)
		return -ENOMEM;
	s->ops = no;
	s->ops[s->nops++] = (struct pol_op){key, op, *tokens, c->file, c->line, c->user};
	*tokens = (struct strv){0};
	return 0;
}

static void take_value(struct pctx *c, enum key_id key, enum op_kind op, const char *value)
{
	const struct key_def *k = &policy_keys[key];
	struct strv toks = {0};
	const char *hash = strstr(value, " #");
	if (!hash)
		hash = strstr(value, "\t#");
	if (hash) {
		perr(c,
		     "%s: '#' starts a comment only at the start of a line; use ' ;' after a value",
		     k->name);
		return;
	}
	if (op != OP_SET && !is_list(k->kind)) {
		perr(c, "%s takes one value; write '%s = …' (+= and -= are for lists)", k->name,
		     k->name);
		return;
	}
	if (k->kind == V_TEXT	  ? strv_push(&toks, value)
	    : k->kind == V_ENVSET ? (*value ? strv_push(&toks, value) : 0)
				  : policy_split(value, &toks)) {
		c->nomem = -ENOMEM;
		goto out;
	}
	if (!is_list(k->kind) && toks.n != 1) {
		perr(c, "%s takes one value, got %zu", k->name, toks.n);
		goto out;
	}
	unsigned before = c->errors;
	for (size_t i = 0; i < toks.n; i++)
		if (!(k->kind == V_ENVSET && op == OP_DEL && valid_env_name(toks.v[i], false)))
			check_token(c, k, toks.v[i]); /* (env_set -= NAME: by its name) */
	if (c->errors != before)
		goto out;
	if (key == K_USER_CONFIG && c->user) {
		perr(c,
		     "user_config is honoured only in system files; remove it from this user file");
		goto out;
	}
	if (key == K_USE) {
		free(c->cur->use);
		c->cur->use = strdup(toks.v[0]);
		c->cur->use_line = c->line;
		if (!c->cur->use)
			c->nomem = -ENOMEM;
		goto out;
	}
	if (add_op(c, key, op, &toks) < 0)
		c->nomem = -ENOMEM;
out:
	strv_release(&toks);
}

static const char *find_sep(const char *s, const char *chars);

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct pctx *c = user;
	enum key_id key;
	enum op_kind op;
	(void)section;

	if (c->skip)
		return 1;
	if (!c->cur) {
		perr(c, "a key before any section; put it under [default] or [sbxsh]");
		c->skip = true;
		return 1;
	}
	if (c->cont && c->prev_bad)
		return 1;
	c->prev_bad = false;
	if (c->cont) {
		key = c->last_key;
		op = c->last_op == OP_SET ? OP_ADD : c->last_op;
		if (!is_list(policy_keys[key].kind) || policy_keys[key].kind == V_ENVSET) {
			perr(c,
			     "this indented line continues '%s', which takes one value; un-indent "
			     "it",
			     policy_keys[key].name);
			return 1;
		}
	} else if (parse_name(c, name, &key, &op) < 0) {
		c->prev_bad = true;
		return 1;
	}
	c->last_key = key;
	c->last_op = op;
	if (!c->cont) {
		take_value(c, key, op, value);
		return 1;
	}
	/* inih 55 keeps " ; comment" on continuation lines: cut it as on a key line. */
	char *v = strdup(value);
	if (!v) {
		c->nomem = -ENOMEM;
		return 1;
	}
	char *cut = (char *)find_sep(v, "");
	while (cut > v && (cut[-1] == ' ' || cut[-1] == '\t'))
		cut--;
	*cut = '\0';
	take_value(c, key, op, v);
	free(v);
	return 1;
}

/* --- lines: the reader inih pulls from; it classifies each line the way inih will --- */

/* First '=' or ':' or inline comment (" ;") in s, as inih's find_chars_or_comment. */
static const char *find_sep(const char *s, const char *chars)
{
	bool was_space = false;
	for (; *s && !strchr(chars, *s) && !(was_space && *s == ';'); s++)
		was_space = *s == ' ' || *s == '\t';
	return s;
}

/* Handles a "[…]" line; returns false when it is malformed (already reported). */
static bool section_line(struct pctx *c, const char *start)
{
	c->cur = NULL;
	c->skip = true;
	const char *close = find_sep(start + 1, "]");
	if (*close != ']') {
		perr(c, "section header without ']'; write [NAME]");
		return false;
	}
	const char *rest = close + 1;
	rest += strspn(rest, " \t\r");
	if (*rest && *rest != ';' && *rest != '#') {
		perr(c, "text after the section header; put it on its own line");
		return false;
	}
	char *name = strndup(start + 1, (size_t)(close - start - 1));
	if (!name) {
		c->nomem = -ENOMEM;
		return false;
	}
	section_open(c, name);
	free(name);
	return true;
}

/* Classifies line (NUL-terminated, no newline). Returns false to hide it from inih. */
static bool classify(struct pctx *c, const char *line)
{
	const char *start = line;
	if (c->line == 1 && strncmp(start, "\xef\xbb\xbf", 3) == 0)
		start += 3;
	start += strspn(start, " \t\r\f\v");
	c->cont = false;
	if (!*start || *start == ';' || *start == '#')
		return true;
	if (c->have_prev && start > line) {
		c->cont = true;
		return true;
	}
	if (*start == '[') {
		c->have_prev = false;
		return section_line(c, start);
	}
	const char *sep = find_sep(start, "=:");
	if (*sep != '=' && *sep != ':') {
		perr(c, "expected 'key = value', '[section]' or a comment");
		return false;
	}
	c->have_prev = true;
	return true;
}

static char *reader(char *str, int num, void *stream)
{
	struct pctx *c = stream;
	if (c->pos >= c->end)
		return NULL;
	const char *nl = memchr(c->pos, '\n', (size_t)(c->end - c->pos));
	const char *eol = nl ? nl : c->end;
	size_t len = (size_t)(eol - c->pos);
	bool show = false;

	c->line++;
	if (memchr(c->pos, '\0', len)) {
		perr(c, "holds a NUL byte; a policy file is text");
	} else if (len + 3 > (size_t)num) {
		perr(c,
		     "line longer than %d bytes; split the list over several lines (repeat the "
		     "key, or indent continuation lines)",
		     num - 3);
	} else {
		memcpy(str, c->pos, len);
		str[len] = '\0';
		show = classify(c, str);
	}
	if (!show)
		c->cont = false, str[0] = '\0';
	else
		str[len] = '\n', str[len + 1] = '\0';
	if (!show)
		strcpy(str, "\n");
	c->pos = nl ? nl + 1 : c->end;
	return str;
}

const char policy_embedded_file[] = "<embedded>";

int policy_parse_buffer(struct policy *p, const char *buf, size_t len, const char *file, bool user,
			struct diag *d)
{
	struct pctx c = {.p = p, .d = d, .user = user, .buf = buf, .pos = buf, .end = buf + len};
	c.file = policy_intern(p, file);
	if (!c.file)
		return -ENOMEM;
	if (!user)
		p->nsys = p->files.n;
	int r = ini_parse_stream(reader, &c, handler, &c);
	if (r == -2)
		return -ENOMEM;
	if (r > 0 && !c.errors) {
		c.line = (unsigned)r;
		perr(&c, "syntax error");
	}
	if (c.nomem)
		return c.nomem;
	return c.errors ? -EINVAL : 0;
}

/* The sections' storage (policy_load's and policygen's): built-in ones are static data. */
void policy_sections_free(struct policy *p)
{
	for (size_t i = 0; i < p->nsecs; i++) {
		struct section *s = &p->secs[i];
		strv_release(&s->comps);
		if (s->builtin)
			continue; /* static data (policy_default_secs) */
		for (size_t j = 0; j < s->nops; j++)
			strv_release(&s->ops[j].tokens);
		free(s->ops);
		free(s->name);
		free(s->head);
		free(s->use);
	}
	free(p->secs);
	p->secs = NULL;
	p->nsecs = p->cap = 0;
}
