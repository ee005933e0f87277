/* profile — from a loaded policy to the profile in force for one cwd.
 *
 * Rules kept: sections apply in a fixed order ([default], then matching [dir] sections least
 * specific first, each after the profile it uses), so the most specific wins key by key;
 * every value is expanded and canonicalized before it is compared; [limits] are applied last
 * and only ever narrow a user's grants (one warning per dropped grant, never an error).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "platform/buf.h"
#include "platform/path.h"
#include "platform/sandbox.h"
#include "proxy/domain.h"
#include "shell/policy_impl.h"

enum { MAX_USE_DEPTH = 16, MAX_DOUBLE_STAR = 4 };

/* --- value lists --- */

/* FNV-1a: the default's lists hold hundreds of paths with long common prefixes, and every add
 * looked for its duplicate with a strcmp of each (0.9M instructions a start) */
static unsigned value_hash(const char *v)
{
	unsigned h = 2166136261u;

	for (; *v; v++)
		h = (h ^ (unsigned char)*v) * 16777619u;
	return h;
}

/* Finds v's slot in l's index, rebuilding the index first when it is not current (a value was
 * removed, or the list was changed outside list_add_owned). Returns the slot: empty, or v's. */
static unsigned *list_slot(struct pol_list *l, const char *v, unsigned h, bool *oom)
{
	if (!l->ix || l->ixn != l->n || (l->n + 1) * 2 > l->ixcap) {
		size_t cap = 64;
		while (cap < (l->n + 1) * 4)
			cap *= 2;
		unsigned *ix = calloc(cap, sizeof(*ix));
		if (!ix) {
			*oom = true;
			return NULL;
		}
		for (size_t i = 0; i < l->n; i++) {
			size_t j = l->v[i].hash & (cap - 1);
			while (ix[j])
				j = (j + 1) & (cap - 1);
			ix[j] = (unsigned)i + 1;
		}
		free(l->ix);
		l->ix = ix, l->ixcap = cap, l->ixn = l->n;
	}
	for (size_t j = h & (l->ixcap - 1);; j = (j + 1) & (l->ixcap - 1)) {
		unsigned i = l->ix[j];
		if (!i || (l->v[i - 1].hash == h && strcmp(l->v[i - 1].value, v) == 0))
			return &l->ix[j];
	}
}

/* Adds v (taking it: freed on a duplicate or an error) unless l holds it already. */
static int list_add_owned(struct pol_list *l, char *v, const char *file, unsigned line, bool absent,
			  bool var)
{
	unsigned h = value_hash(v);
	bool oom = false;
	unsigned *slot = list_slot(l, v, h, &oom);

	if (slot && *slot && !var) /* a literal names it too: not the environment's alone */
		l->v[*slot - 1].var = false;
	if (!slot || *slot) {
		free(v);
		return oom ? -ENOMEM : 0;
	}
	struct pol_value *nv = array_grow(l->v, &l->cap, l->n + 1, sizeof(*nv));
	if (!nv) {
		free(v);
		return -ENOMEM;
	}
	l->v = nv;
	l->v[l->n++] = (struct pol_value){v, file, line, h, absent, var};
	*slot = (unsigned)l->n;
	l->ixn = l->n;
	return 0;
}

static int list_add(struct pol_list *l, const char *v, const char *file, unsigned line)
{
	char *c = strdup(v);
	return c ? list_add_owned(l, c, file, line, false, false) : -ENOMEM;
}

static void list_remove_at(struct pol_list *l, size_t i)
{
	free(l->v[i].value);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(l->v[0]));
	l->n--;
	l->ixn = SIZE_MAX;
}

static void list_del(struct pol_list *l, const char *v, bool by_name)
{
	size_t n = strlen(v);
	for (size_t i = l->n; i-- > 0;) {
		const char *x = l->v[i].value;
		if (strcmp(x, v) == 0 || (by_name && strncmp(x, v, n) == 0 && x[n] == '='))
			list_remove_at(l, i);
	}
}

static void list_clear(struct pol_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].value);
	l->n = 0;
	l->ixn = SIZE_MAX;
}

void policy_list_release(struct pol_list *l)
{
	list_clear(l);
	free(l->v);
	free(l->ix);
	*l = (struct pol_list){0};
}

/* --- policy_finish: checks that need every file, and the [sbxsh] settings --- */

/* The [profile] sections sorted by name (stable: load order within a name). */
struct prof_index {
	const struct section **v;
	size_t n;
};

static int cmp_prof(const void *a, const void *b)
{
	const struct section *x = *(const struct section *const *)a,
			     *y = *(const struct section *const *)b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x < y ? -1 : x > y);
}

static int prof_index_build(const struct policy *p, struct prof_index *ix)
{
	ix->n = 0;
	ix->v = malloc((p->nsecs + 1) * sizeof(*ix->v));
	if (!ix->v)
		return -ENOMEM;
	for (size_t i = 0; i < p->nsecs; i++)
		if (p->secs[i].kind == SEC_PROFILE)
			ix->v[ix->n++] = &p->secs[i];
	qsort(ix->v, ix->n, sizeof(*ix->v), cmp_prof);
	return 0;
}

/* Index of the first section named name, or ix->n. */
static size_t prof_first(const struct prof_index *ix, const char *name)
{
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(ix->v[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n && strcmp(ix->v[lo]->name, name) == 0 ? lo : ix->n;
}

/* Depth-first walk of use= edges from name: 1 when it reaches a name already on the path (a
 * cycle), 2 when the chain is deeper than MAX_USE_DEPTH, 0 otherwise (or out of memory). */
static int use_cycle(const struct prof_index *ix, const char *name, struct strv *path)
{
	if (strv_find(path, name) >= 0)
		return strv_push(path, name), 1;
	if (path->n >= MAX_USE_DEPTH)
		return 2;
	if (strv_push(path, name) < 0)
		return 0;
	for (size_t i = prof_first(ix, name); i < ix->n && strcmp(ix->v[i]->name, name) == 0; i++) {
		int r;
		if (ix->v[i]->use && (r = use_cycle(ix, ix->v[i]->use, path)))
			return r;
	}
	strv_remove(path, path->n - 1);
	return 0;
}

static void report_cycle(const struct section *s, const struct strv *path, int c, struct diag *d)
{
	char chain[1024] = "";
	for (size_t j = 0; c == 1 && j < path->n; j++)
		snprintf(chain + strlen(chain), sizeof(chain) - strlen(chain), "%s%s",
			 j ? " -> " : "", path->v[j]);
	if (c == 1)
		policy_diag(&d->errors, s->file, s->use_line,
			    "use = %s makes a cycle (%s); remove one of these use lines", s->use,
			    chain);
	else
		policy_diag(&d->errors, s->file, s->use_line,
			    "use = %s starts a chain of more than %d profiles; flatten it", s->use,
			    MAX_USE_DEPTH);
}

static int check_uses(struct policy *p, struct diag *d)
{
	struct prof_index ix;
	int r = prof_index_build(p, &ix);
	bool told = false;
	for (size_t i = 0; r != -ENOMEM && i < p->nsecs; i++) {
		struct section *s = &p->secs[i];
		if (!s->use)
			continue;
		if (prof_first(&ix, s->use) == ix.n) {
			policy_diag(&d->errors, s->file, s->use_line,
				    "use = %s: no [profile %s] is defined in any policy file; "
				    "define it or fix the name",
				    s->use, s->use);
			r = -EINVAL;
			continue;
		}
		if (told || s->kind != SEC_PROFILE)
			continue;
		struct strv path = {0};
		strv_push(&path, s->name);
		int c = use_cycle(&ix, s->use, &path);
		if (c)
			report_cycle(s, &path, c, d);
		told = c != 0;
		r = c ? -EINVAL : r;
		strv_release(&path);
	}
	free(ix.v);
	return r;
}

static int split_comps(const char *path, struct strv *out)
{
	int r = 0;
	char *copy = strdup(path), *save = NULL;
	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, "/", &save); t && r == 0; t = strtok_r(NULL, "/", &save))
		r = strv_push(out, t);
	free(copy);
	return r;
}

static int compile_dir(struct policy *p, struct section *s, struct path_cache *pc, struct diag *d)
{
	char *exp = NULL, *canon = NULL, *err = NULL;
	unsigned stars = 0;
	int r = path_expand(s->name, p->home, "/", &exp, &err);
	if (r == 0)
		r = path_canon_cached(exp, pc, &canon);
	if (r == 0)
		r = split_comps(canon, &s->comps);
	for (size_t i = 0; r == 0 && i < s->comps.n; i++) {
		stars += strcmp(s->comps.v[i], "**") == 0;
		s->literal += !path_has_glob(s->comps.v[i]);
	}
	if (r == -EINVAL || r == -ENXIO || stars > MAX_DOUBLE_STAR) {
		if (err)
			policy_diag(&d->errors, s->file, s->line, "%s: the pattern %s", s->head,
				    err);
		else
			policy_diag(&d->errors, s->file, s->line,
				    "%s: the pattern has more than %d '**'; simplify it", s->head,
				    MAX_DOUBLE_STAR);
		r = -EINVAL;
	}
	free(exp);
	free(canon);
	free(err);
	return r;
}

static void set_str(char **dst, const char *v)
{
	char *c = strdup(v);
	if (c) {
		free(*dst);
		*dst = c;
	}
}

static int settings_defaults(struct policy *p)
{
	struct settings *st = &p->set;
	const char *state = getenv("XDG_STATE_HOME");
	st->inner_shell = strdup("/bin/bash");
	st->prompt_marker = strdup("[sbxsh:%p]");
	st->bwrap = strdup("/usr/bin/bwrap");
	bool xdg = state && state[0] == '/';
	if (asprintf(&st->log, "%s%s/sbxsh/violations.jsonl", xdg ? state : p->home,
		     xdg ? "" : "/.local/state") < 0)
		st->log = NULL;
	st->on_violation = VIOL_FAIL;
	st->monitor = MON_ON;
	st->syslog = st->user_config = true;
	st->idle_exit = 300;
	if (!st->inner_shell || !st->bwrap || !st->log || !st->prompt_marker)
		return -ENOMEM;
	return list_add(&st->root_markers, ".git", NULL, 0);
}

/* Applies one [sbxsh] operation. */
static int settings_op(struct policy *p, const struct pol_op *op)
{
	struct settings *st = &p->set;
	const char *v = op->tokens.n ? op->tokens.v[0] : "";
	struct pol_origin o = {op->file, op->line};
	char *exp = NULL, *err = NULL;
	int r = 0;
	switch (op->key) {
	case K_INNER_SHELL:
	case K_BWRAP:
	case K_LOG:
		if ((r = path_expand(v, p->home, "/", &exp, &err)) < 0)
			break;
		{ /* a file, not a pattern: the escapes of what was substituted go */
			char *lit = path_unescape(exp);
			free(exp);
			if (!(exp = lit))
				return -ENOMEM;
		}
		set_str(op->key == K_LOG     ? &st->log
			: op->key == K_BWRAP ? &st->bwrap
					     : &st->inner_shell,
			exp);
		*(op->key == K_LOG     ? &st->o_log
		  : op->key == K_BWRAP ? &st->o_bwrap
				       : &st->o_inner_shell) = o;
		break;
	case K_ON_VIOLATION:
		st->on_violation = (enum viol_mode)policy_enum(policy_viol_names, v),
		st->o_on_violation = o;
		break;
	case K_MONITOR:
		st->monitor = (enum mon_mode)policy_level(policy_monitor_names, v),
		st->o_monitor = o;
		break;
	case K_SYSLOG:
		st->syslog = policy_bool(v) == 1, st->o_syslog = o;
		break;
	case K_USER_CONFIG:
		st->user_config = policy_bool(v) == 1, st->o_user_config = o;
		break;
	case K_PROMPT_MARKER:
		set_str(&st->prompt_marker, v), st->o_prompt_marker = o;
		break;
	case K_IDLE_EXIT:
		st->idle_exit = (unsigned)strtoul(v, NULL, 10), st->o_idle_exit = o;
		break;
	case K_ROOT_MARKERS:
		if (op->op == OP_SET)
			list_clear(&st->root_markers);
		for (size_t i = 0; r == 0 && i < op->tokens.n; i++) {
			if (op->op == OP_DEL)
				list_del(&st->root_markers, op->tokens.v[i], false);
			else
				r = list_add(&st->root_markers, op->tokens.v[i], op->file,
					     op->line);
		}
		break;
	default:
		break;
	}
	free(exp);
	free(err);
	return r == -ENOMEM ? r : 0;
}

int policy_finish(struct policy *p, struct diag *d)
{
	int r = check_uses(p, d), e;
	struct path_cache pc = {0};
	for (size_t i = 0; i < p->nsecs; i++)
		if (p->secs[i].kind == SEC_DIR && (e = compile_dir(p, &p->secs[i], &pc, d)) < 0)
			r = r ? r : e;
	path_cache_release(&pc);
	if (r < 0)
		return r;
	if ((r = settings_defaults(p)) < 0)
		return r;
	for (size_t i = 0; i < p->nsecs; i++) {
		const struct section *s = &p->secs[i];
		for (size_t j = 0; s->kind == SEC_SBXSH && j < s->nops; j++)
			if ((r = settings_op(p, &s->ops[j])) < 0)
				return r;
	}
	return 0;
}

/* --- resolution --- */

struct rstate {
	const struct policy *p;
	struct profile *pr;
	struct diag *d;
	int err;
	struct path_cache cache;
	struct buf exp; /* expand_token_in's path_expand, one buffer for every token */
	bool told_no_project;
	char *home; /* canonical, or NULL */
};

static bool is_user_file(const struct policy *p, const char *file)
{
	if (file == policy_embedded_file)
		return false;
	for (size_t i = 0; i < p->nsys && i < p->files.n; i++)
		if (p->files.v[i] == file)
			return false;
	return file != NULL;
}

/* Where each list key lives in struct profile (0: not a list; no list sits at offset 0). */
static const size_t list_at[K_COUNT] = {
    [K_READ] = offsetof(struct profile, read),
    [K_DENY_READ] = offsetof(struct profile, deny_read),
    [K_WRITE] = offsetof(struct profile, write),
    [K_DENY_WRITE] = offsetof(struct profile, deny_write),
    [K_UNIX_SOCKETS] = offsetof(struct profile, unix_sockets),
    [K_LISTEN] = offsetof(struct profile, listen),
    [K_ENV_UNSET] = offsetof(struct profile, env_unset),
    [K_ENV_SET] = offsetof(struct profile, env_set),
    [K_ENV_KEEP] = offsetof(struct profile, env_keep),
    [K_ALLOW_DOMAINS] = offsetof(struct profile, allow_domains),
    [K_DENY_DOMAINS] = offsetof(struct profile, deny_domains),
    [K_IGNORE_READ] = offsetof(struct profile, ignore_read),
    [K_IGNORE_WRITE] = offsetof(struct profile, ignore_write),
    [K_IGNORE_NETWORK] = offsetof(struct profile, ignore_network),
    [K_CREATE] = offsetof(struct profile, create),
};

static struct pol_list *profile_list(struct profile *pr, enum key_id k)
{
	return list_at[k] ? (struct pol_list *)((char *)pr + list_at[k]) : NULL;
}

/* A write grant spelled inside the project must not leave it through a symlink (one planted
 * by an earlier command would otherwise bind another tree writable). Globs are judged per hit
 * by the sandbox backend. Returns 0, or -EPERM with the error recorded. */
static int write_stays_inside(struct rstate *st, const struct pol_op *op, const char *tok,
			      const char *spelled, const char *canon)
{
	const char *root = st->pr->root;
	char *s = NULL, *c = NULL;
	int r = 0;

	if (path_has_glob(spelled))
		return 0;
	if (!(s = path_unescape(spelled)) || !(c = path_unescape(canon)))
		r = -ENOMEM;
	else if (st->home && path_under(s, st->home) && strcmp(s, st->home) != 0 &&
		 path_under(st->home, c)) {
		/* a link (`ln -s ~ build`, planted by an earlier command) would grant all of ~ */
		policy_diag(&st->d->errors, op->file, op->line,
			    "write: '%s' leads through a symlink to %s, which holds the home "
			    "directory; remove the link (grant ~ itself if that is meant)",
			    tok, c);
		r = -EPERM;
	} else if (root && path_under(s, root) && !path_under(c, root)) {
		policy_diag(&st->d->errors, op->file, op->line,
			    "write: '%s' leads through a symlink to %s, outside the project %s; "
			    "grant %s itself if that is meant, or remove the link",
			    tok, canon, root, canon);
		r = -EPERM;
	}
	free(s);
	free(c);
	return r;
}

static bool relative_path(const char *tok)
{
	return tok[0] != '/' && tok[0] != '~' && tok[0] != '$';
}

/* No project: a relative grant names nothing (policy.md); one notice names the line that
 * would make the cwd a project. A relative deny or ignore still applies, to the cwd. */
static bool no_project_skips(struct rstate *st, const struct pol_op *op, const char *tok)
{
	const struct profile *pr = st->pr;
	const char *fix = pr->no_project;

	if (pr->root || !relative_path(tok))
		return false;
	if (op->key != K_READ && op->key != K_WRITE && op->key != K_CREATE &&
	    op->key != K_UNIX_SOCKETS)
		return false;
	if (op->key == K_WRITE && op->op != OP_DEL && !st->told_no_project &&
	    !st->p->quiet_no_project) {
		st->told_no_project = true;
		if (fix)
			policy_diag(
			    &st->d->warnings, op->file, op->line,
			    "write '%s' grants nothing: %s is no project (%s), so the command "
			    "can write only its private /tmp; to make it one: %s in %s",
			    tok, pr->cwd, pr->root_origin, fix, pr->grant_file);
		else
			policy_diag(
			    &st->d->warnings, op->file, op->line,
			    "write '%s' grants nothing: %s is no project (%s), so the command "
			    "can write only its private /tmp; run it in a project (a directory "
			    "below ~, or one holding a root marker)",
			    tok, pr->cwd, pr->root_origin);
	}
	return true;
}

/* The canonical spelling of one token of key k, ~ being home. Returns 0 and *out, 1 when the
 * token names nothing (no project), or -errno. *absent: see path_canon_absent. */
static int expand_token_in(struct rstate *st, const struct pol_op *op, const char *tok,
			   const char *home, char **out, bool *absent)
{
	const struct key_def *kd = &policy_keys[op->key];
	const char *exp = NULL;
	char *err = NULL;
	int r;

	*out = NULL;
	*absent = false;
	if (kd->kind == V_DOMAINS) {
		struct domain_pattern dp;
		char buf[300];
		if ((r = domain_pattern_parse(tok, &dp, &err)) == 0)
			*out = strdup(domain_pattern_format(&dp, buf, sizeof(buf)));
	} else if (kd->kind == V_PATHS || kd->kind == V_SOCKETS) {
		if (no_project_skips(st, op, tok))
			return 1;
		r = path_expand_buf(tok, home, st->pr->root ? st->pr->root : st->pr->cwd, &st->exp,
				    &err);
		if (r == -ENXIO && op->key == K_DENY_READ) { /* $VAR unset: nothing to hide */
			free(err);
			return 1;
		}
		exp = r == 0 ? st->exp.p : NULL; /* valid until the next token */
		if (r == 0)
			r = path_canon_absent(exp, &st->cache, out, absent);
		if (r == 0 && op->key == K_CREATE && path_has_glob(exp)) {
			policy_diag(&st->d->errors, op->file, op->line,
				    "create: '%s' is a pattern; name one directory (a create grant "
				    "holds the files each command made there, by directory)",
				    tok);
			free(*out);
			*out = NULL;
			r = -EINVAL;
		}
		if (r == 0 && (op->key == K_WRITE || op->key == K_CREATE) &&
		    (r = write_stays_inside(st, op, tok, exp, *out)) < 0) {
			free(*out);
			*out = NULL;
		}
		if (r < 0 && err)
			policy_diag(&st->d->errors, op->file, op->line, "%s: '%s' %s", kd->name,
				    tok, err);
	} else {
		*out = strdup(tok);
		r = 0;
	}
	free(err);
	return r < 0 ? r : *out ? 0 : -ENOMEM;
}

/* deny_read's ~ is both $HOME and the password database's home (when they differ), so a
 * caller whose HOME points elsewhere still has the real home's credential stores hidden. */
static bool pw_home_too(const struct rstate *st, const struct pol_op *op, const char *tok)
{
	return op->key == K_DENY_READ && st->p->pw_home && tok[0] == '~' &&
	       (tok[1] == '/' || tok[1] == '\0');
}

/* Adds (or with OP_DEL removes) tok's value(s) in l. Returns 0 or -errno. */
static int apply_token(struct rstate *st, const struct pol_op *op, struct pol_list *l,
		       const char *tok)
{
	bool twice = pw_home_too(st, op, tok);
	int r = 0;

	for (int k = 0; r == 0 && k < 1 + twice; k++) {
		char *v = NULL;
		bool absent;
		if ((r = expand_token_in(st, op, tok, k ? st->p->pw_home : st->p->home, &v,
					 &absent)) < 0)
			break;
		if (r > 0) /* names nothing: no project */
			return 0;
		if (op->op == OP_DEL) {
			list_del(l, v, op->key == K_ENV_SET);
			free(v);
		} else {
			r = list_add_owned(l, v, op->file, op->line, absent, tok[0] == '$');
		}
	}
	return r;
}

static void apply_scalar(struct rstate *st, const struct pol_op *op)
{
	struct profile *pr = st->pr;
	const char *v = op->tokens.v[0];
	struct pol_origin o = {op->file, op->line};
	switch (op->key) {
	case K_HERMETIC:
		pr->hermetic = policy_bool(v) == 1, pr->o_hermetic = o;
		break;
	case K_GIT_CONFIG:
		pr->git_config = policy_bool(v) == 1, pr->o_git_config = o;
		break;
	case K_TMP:
		pr->tmp = (enum tmp_mode)policy_enum(policy_tmp_names, v), pr->o_tmp = o;
		break;
	case K_NETWORK:
		pr->network = (enum net_mode)policy_enum(policy_net_names, v), pr->o_network = o;
		break;
	case K_ON_VIOLATION:
		pr->on_violation = (enum viol_mode)policy_enum(policy_viol_names, v),
		pr->o_on_violation = o;
		break;
	case K_TMP_SIZE:
		policy_size(v, &pr->tmp_size), pr->o_tmp_size = o;
		break;
	case K_SHM_SIZE:
		policy_size(v, &pr->shm_size), pr->o_shm_size = o;
		break;
	default:
		break;
	}
}

static void apply_op(struct rstate *st, const struct pol_op *op)
{
	struct pol_list *l = profile_list(st->pr, op->key);
	if (!l) {
		apply_scalar(st, op);
		return;
	}
	if (op->op == OP_SET) {
		list_clear(l);
		if (op->key == K_UNIX_SOCKETS)
			st->pr->unix_all = false;
	}
	for (size_t i = 0; i < op->tokens.n && !st->err; i++) {
		if (op->key == K_UNIX_SOCKETS && strcmp(op->tokens.v[i], "all") == 0) {
			st->pr->unix_all = op->op != OP_DEL;
			continue;
		}
		st->err = apply_token(st, op, l, op->tokens.v[i]);
	}
}

static void apply_profile(struct rstate *st, const char *name, unsigned depth);

static void apply_section(struct rstate *st, const struct section *s, unsigned depth)
{
	if (s->use)
		apply_profile(st, s->use, depth + 1);
	if (strv_pushf(&st->pr->sections, "%s %s:%u", s->head, s->file, s->line) < 0)
		st->err = -ENOMEM;
	for (size_t i = 0; i < s->nops && !st->err; i++)
		apply_op(st, &s->ops[i]);
}

static void apply_profile(struct rstate *st, const char *name, unsigned depth)
{
	if (depth > MAX_USE_DEPTH)
		return;
	for (size_t i = 0; i < st->p->nsecs && !st->err; i++) {
		const struct section *s = &st->p->secs[i];
		if (s->kind == SEC_PROFILE && strcmp(s->name, name) == 0)
			apply_section(st, s, depth);
	}
}

/* Length in cwd components of the shortest prefix pattern[i..] matches from cwd[j], or -1. */
static int match_at(char *const *pat, size_t np, size_t i, char *const *cw, size_t nc, size_t j)
{
	if (i == np)
		return (int)j;
	if (strcmp(pat[i], "**") == 0) {
		for (size_t k = j; k <= nc; k++) {
			int r = match_at(pat, np, i + 1, cw, nc, k);
			if (r >= 0)
				return r;
		}
		return -1;
	}
	if (j == nc || fnmatch(pat[i], cw[j], FNM_PERIOD) != 0)
		return -1;
	return match_at(pat, np, i + 1, cw, nc, j + 1);
}

struct dir_match {
	const struct section *s;
	int len;
};

/* The [dir] sections matching cwd, least specific first (then in load order). */
static size_t match_dirs(const struct policy *p, const struct strv *cw, struct dir_match *m)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nsecs; i++) {
		const struct section *s = &p->secs[i];
		if (s->kind != SEC_DIR)
			continue;
		int len = match_at(s->comps.v, s->comps.n, 0, cw->v, cw->n, 0);
		if (len < 0)
			continue;
		size_t k = n++;
		while (k > 0 && m[k - 1].s->literal > s->literal) {
			m[k] = m[k - 1];
			k--;
		}
		m[k] = (struct dir_match){s, len};
	}
	return n;
}

static char *join_comps(const struct strv *cw, size_t n)
{
	size_t len = 2;
	for (size_t i = 0; i < n; i++)
		len += strlen(cw->v[i]) + 1;
	char *s = malloc(len), *w = s;
	if (!s)
		return NULL;
	*w = '\0';
	for (size_t i = 0; i < n; i++)
		w += sprintf(w, "/%s", cw->v[i]);
	if (!n)
		strcpy(s, "/");
	return s;
}

/* "~"-relative spelling of cw below home component nh: "/a/b". */
static char *join_comps_from(const struct strv *cw, size_t nh)
{
	struct strv tail = {.v = cw->v + nh, .n = cw->n - nh};
	return join_comps(&tail, tail.n);
}

static bool has_marker(const struct policy *p, const char *dir, char **why)
{
	for (size_t i = 0; i < p->set.root_markers.n; i++) {
		char path[4200];
		struct stat sb;
		snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "",
			 p->set.root_markers.v[i].value);
		if (lstat(path, &sb) == 0) {
			if (asprintf(why, "marker %s", p->set.root_markers.v[i].value) < 0)
				*why = NULL;
			return true;
		}
	}
	return false;
}

/* Components of home when cw lies inside it (home itself included), else -1. */
static int home_depth(const struct strv *home, const struct strv *cw)
{
	if (!home->n || cw->n < home->n)
		return -1;
	for (size_t i = 0; i < home->n; i++)
		if (strcmp(home->v[i], cw->v[i]) != 0)
			return -1;
	return (int)home->n;
}

/* Why a cwd with no marker is no project (policy.md, "project root"). */
static char *no_project_why(const struct policy *p, const struct strv *cw, int nh)
{
	const char *mk = p->set.root_markers.n ? p->set.root_markers.v[0].value : "root marker";
	char *why = NULL;
	int r = 0;

	if (cw->n == 0)
		why = strdup("/ is never a project");
	else if (nh >= 0 && cw->n == (size_t)nh)
		r = asprintf(&why,
			     "the home directory is never a project by itself, even with a %s "
			     "such as a dotfiles repository",
			     mk);
	else if (nh >= 0)
		r = asprintf(&why,
			     "no %s between it and the home directory, and ~/%s is a "
			     "dot-directory of the home directory",
			     mk, cw->v[nh]);
	else
		r = asprintf(&why, "no %s at or above it, and it lies outside the home directory",
			     mk);
	return r < 0 ? NULL : why;
}

/* The project root when no [dir] matched: the nearest ancestor of cwd holding a root marker
 * (below the home directory for a cwd inside it, never "/"), else cwd itself when it lies
 * below the home directory and outside its dot-directories; else *root stays NULL (no
 * project). *why says which (caller frees both). Returns 0 or -ENOMEM. */
static int marker_root(const struct policy *p, const struct strv *home, const struct strv *cw,
		       char **root, char **why)
{
	int nh = home_depth(home, cw);
	size_t lowest = nh >= 0 ? (size_t)nh + 1 : 1;

	*root = *why = NULL;
	for (size_t n = cw->n; n >= lowest && n > 0; n--) {
		char *dir = join_comps(cw, n);
		if (!dir)
			return -ENOMEM;
		if (has_marker(p, dir, why)) {
			*root = dir;
			return *why ? 0 : -ENOMEM;
		}
		free(dir);
	}
	if (nh >= 0 && cw->n > (size_t)nh && cw->v[nh][0] != '.') {
		*why = strdup("cwd (no marker; below the home directory)");
		*root = join_comps(cw, cw->n);
		return *root && *why ? 0 : -ENOMEM;
	}
	*why = no_project_why(p, cw, nh);
	return *why ? 0 : -ENOMEM;
}

/* --- [limits] --- */

struct limits {
	int network; /* -1: no limit */
	struct pol_origin o_network;
	bool has_domains, has_write;
	struct pol_list domains, write, deny_read;
};

static void limits_collect(struct rstate *st, struct limits *lim)
{
	for (size_t i = 0; i < st->p->nsecs && !st->err; i++) {
		const struct section *s = &st->p->secs[i];
		for (size_t j = 0; s->kind == SEC_LIMITS && j < s->nops && !st->err; j++) {
			const struct pol_op *op = &s->ops[j];
			struct pol_list *l = op->key == K_ALLOW_DOMAINS ? &lim->domains
					     : op->key == K_WRITE	? &lim->write
					     : op->key == K_DENY_READ	? &lim->deny_read
									: NULL;
			if (op->key == K_NETWORK) {
				lim->network = policy_enum(policy_net_names, op->tokens.v[0]);
				lim->o_network = (struct pol_origin){op->file, op->line};
			}
			if (!l)
				continue;
			lim->has_domains |= op->key == K_ALLOW_DOMAINS;
			lim->has_write |= op->key == K_WRITE;
			if (op->op == OP_SET)
				list_clear(l);
			for (size_t t = 0; t < op->tokens.n && !st->err; t++)
				st->err = apply_token(st, op, l, op->tokens.v[t]);
		}
	}
}

static void drop(struct rstate *st, struct pol_list *l, size_t i, const char *key, const char *why,
		 const struct pol_value *lim)
{
	const struct pol_value *v = &l->v[i];
	if (lim)
		policy_diag(&st->d->warnings, v->file, v->line,
			    "%s '%s' dropped: %s [limits] (%s:%u); ask your administrator", key,
			    v->value, why, lim->file, lim->line);
	else
		policy_diag(&st->d->warnings, v->file, v->line,
			    "%s '%s' dropped: %s [limits]; ask your administrator", key, v->value,
			    why);
	list_remove_at(l, i);
}

static bool domain_covered(const struct pol_list *lim, const char *v)
{
	struct domain_pattern in, out;
	char *err = NULL;
	if (domain_pattern_parse(v, &in, &err) < 0) {
		free(err);
		return false;
	}
	for (size_t i = 0; i < lim->n; i++)
		if (domain_pattern_parse(lim->v[i].value, &out, &err) == 0 &&
		    domain_covers(&out, &in))
			return true;
	free(err);
	return false;
}

static const struct pol_value *under_any(const struct pol_list *lim, const char *path)
{
	for (size_t i = 0; i < lim->n; i++)
		if (path_under(path, lim->v[i].value))
			return &lim->v[i];
	return NULL;
}

static void limits_apply(struct rstate *st, struct limits *lim)
{
	struct profile *pr = st->pr;
	const struct pol_value *hit;
	if (lim->network >= 0 && (int)pr->network > lim->network) {
		policy_diag(&st->d->warnings, pr->o_network.file ? pr->o_network.file : "default",
			    pr->o_network.line, "network = %s lowered to %s by [limits] (%s:%u)",
			    policy_net_names[pr->network], policy_net_names[lim->network],
			    lim->o_network.file, lim->o_network.line);
		pr->network = (enum net_mode)lim->network;
		pr->o_network = lim->o_network;
	}
	for (size_t i = pr->allow_domains.n; lim->has_domains && i-- > 0;)
		if (is_user_file(st->p, pr->allow_domains.v[i].file) &&
		    !domain_covered(&lim->domains, pr->allow_domains.v[i].value))
			drop(st, &pr->allow_domains, i, "allow_domains",
			     "not covered by allow_domains of", NULL);
	for (size_t i = pr->write.n; i-- > 0;) {
		const char *v = pr->write.v[i].value;
		if (!is_user_file(st->p, pr->write.v[i].file))
			continue;
		if (lim->has_write && !under_any(&lim->write, v))
			drop(st, &pr->write, i, "write", "outside every write tree of", NULL);
		else if ((hit = under_any(&lim->deny_read, v)))
			drop(st, &pr->write, i, "write", "inside deny_read of", hit);
	}
	for (size_t i = pr->read.n; i-- > 0;)
		if (is_user_file(st->p, pr->read.v[i].file) &&
		    (hit = under_any(&lim->deny_read, pr->read.v[i].value)))
			drop(st, &pr->read, i, "read", "inside deny_read of", hit);
	for (size_t i = 0; i < lim->deny_read.n && !st->err; i++)
		st->err = list_add(&pr->deny_read, lim->deny_read.v[i].value,
				   lim->deny_read.v[i].file, lim->deny_read.v[i].line);
}

static void limits_release(struct limits *lim)
{
	policy_list_release(&lim->domains);
	policy_list_release(&lim->write);
	policy_list_release(&lim->deny_read);
}

/* --- profile_resolve --- */

/* The agent preset (policy_opts.preset): its [profile NAME], between [default] and the [dir]
 * sections. Returns 0, or -EINVAL with the error recorded. */
static int apply_preset(struct rstate *st)
{
	const struct policy *p = st->p;
	if (!p->preset)
		return 0;
	for (size_t i = 0; i < p->nsecs; i++)
		if (p->secs[i].kind == SEC_PROFILE && strcmp(p->secs[i].name, p->preset) == 0) {
			apply_profile(st, p->preset, 1);
			return st->err;
		}
	policy_diag(&st->d->errors, "preset (--preset, SBXSH_PRESET)", 0,
		    "'%s': no [profile %s] is defined in any policy file; name a shipped preset "
		    "(claude-code, codex, gemini, aider, openhands, goose) or define it",
		    p->preset, p->preset);
	return -EINVAL;
}

static void finish_profile(struct rstate *st)
{
	struct profile *pr = st->pr;
	/* No project in the host's /tmp (a mktemp -d): the command still sees its cwd, read-only,
	 * through the private /tmp that hides the rest. */
	if (!pr->root && pr->tmp == TMP_PRIVATE && path_under(pr->cwd, "/tmp") &&
	    strcmp(pr->cwd, "/tmp") != 0) {
		char *esc = path_escape(pr->cwd);
		st->err = esc ? list_add(&pr->read, esc, NULL, 0) : -ENOMEM;
		free(esc);
	}
	if (!pr->hermetic || st->err)
		return;
	for (size_t i = pr->read.n; i-- > 0;)
		if (strcmp(pr->read.v[i].value, "/") == 0)
			list_remove_at(&pr->read, i);
	for (size_t i = 0; sandbox_hermetic_roots[i] && !st->err; i++)
		st->err = list_add(&pr->read, sandbox_hermetic_roots[i], pr->o_hermetic.file,
				   pr->o_hermetic.line);
}

/* The canonical form of a real path (not a pattern): 0 and *out (caller frees), or -errno. */
static int canon_real(struct rstate *st, const char *path, char **out)
{
	char *esc = path_escape(path), *c = NULL;
	int r = esc ? path_canon_cached(esc, &st->cache, &c) : -ENOMEM;

	*out = r == 0 ? path_unescape(c) : NULL;
	free(esc);
	free(c);
	return r < 0 ? r : *out ? 0 : -ENOMEM;
}

/* No project: the [dir] line that would make the cwd one, "~/…" spelled and escaped (NULL
 * for "/" and the home directory, which are never offered). */
static int no_project_line(struct rstate *st, const struct strv *home, const struct strv *cw)
{
	int nh = home_depth(home, cw);
	char *rest = NULL, *esc = NULL;

	if (cw->n == 0 || (nh >= 0 && cw->n == (size_t)nh))
		return 0;
	if (!(rest = nh >= 0 ? join_comps_from(cw, (size_t)nh) : join_comps(cw, cw->n)) ||
	    !(esc = path_escape_value(rest)) ||
	    asprintf(&st->pr->no_project, "[dir %s%s] write = .", nh >= 0 ? "~" : "", esc) < 0)
		st->pr->no_project = NULL;
	free(rest);
	free(esc);
	return st->pr->no_project ? 0 : -ENOMEM;
}

static int profile_root(struct rstate *st, const struct strv *cw, const struct dir_match *m,
			size_t nm)
{
	struct profile *pr = st->pr;
	struct strv home = {0};
	char *h = NULL;
	int r = 0;

	if (nm) {
		if (st->p->home && st->p->home[0] == '/' && strcmp(st->p->home, "/") != 0 &&
		    (r = canon_real(st, st->p->home, &st->home)) < 0)
			return r;
		pr->root = join_comps(cw, (size_t)m[nm - 1].len);
		if (asprintf(&pr->root_origin, "%s %s:%u", m[nm - 1].s->head, m[nm - 1].s->file,
			     m[nm - 1].s->line) < 0)
			pr->root_origin = NULL;
		return pr->root && pr->root_origin ? 0 : -ENOMEM;
	}
	if (st->p->home && st->p->home[0] == '/' && strcmp(st->p->home, "/") != 0 &&
	    (r = canon_real(st, st->p->home, &h)) == 0)
		r = split_comps(h, &home);
	if (r == 0)
		r = marker_root(st->p, &home, cw, &pr->root, &pr->root_origin);
	if (r == 0 && !pr->root)
		r = no_project_line(st, &home, cw);
	strv_release(&home);
	st->home = h;
	return r;
}

static int profile_init(struct rstate *st, const char *cwd, struct strv *cw, struct dir_match **m,
			size_t *nm)
{
	const struct policy *p = st->p;
	struct profile *pr = st->pr;
	int r;
	if ((r = canon_real(st, cwd, &pr->cwd)) < 0 || (r = split_comps(pr->cwd, cw)) < 0)
		return r;
	*m = calloc(p->nsecs + 1, sizeof(**m));
	if (!*m)
		return -ENOMEM;
	*nm = match_dirs(p, cw, *m);
	if ((r = profile_root(st, cw, *m, *nm)) < 0)
		return r;
	pr->grant_section = strdup(*nm ? (*m)[*nm - 1].s->head : "[default]");
	pr->grant_file = strdup(p->user_file ? p->user_file : "~/.config/sbxsh/sbxsh.ini");
	if (!pr->grant_section || !pr->grant_file)
		return -ENOMEM;
	pr->network = NET_PROXY;
	pr->tmp = TMP_PRIVATE;
	pr->tmp_size = (struct pol_size){0, 25}; /* as etc/sbxsh.ini */
	pr->shm_size = (struct pol_size){0, 10};
	pr->on_violation = p->set.on_violation;
	pr->o_on_violation = p->set.o_on_violation;
	if ((r = list_add(&pr->read, "/", NULL, 0)) < 0 || !pr->root)
		return r;
	char *esc = path_escape(pr->root);
	r = esc ? list_add(&pr->write, esc, NULL, 0) : -ENOMEM;
	free(esc);
	return r;
}

int profile_resolve(const struct policy *p, const char *cwd, struct profile **out, struct diag *d)
{
	struct strv cw = {0};
	struct dir_match *m = NULL;
	struct limits lim = {.network = -1};
	size_t nm = 0;
	struct rstate st = {p, calloc(1, sizeof(struct profile)), d, 0, {0}, {0}, false, NULL};

	*out = NULL;
	if (!st.pr)
		return -ENOMEM;
	if (!cwd || cwd[0] != '/') {
		policy_diag(&d->errors, cwd ? cwd : "(null)", 0,
			    "the directory must be an absolute path");
		st.err = -EINVAL;
		goto out;
	}
	if ((st.err = profile_init(&st, cwd, &cw, &m, &nm)) < 0)
		goto out;
	for (size_t i = 0; i < p->nsecs && !st.err; i++)
		if (p->secs[i].kind == SEC_DEFAULT)
			apply_section(&st, &p->secs[i], 0);
	if (!st.err)
		st.err = apply_preset(&st);
	for (size_t i = 0; i < nm && !st.err; i++)
		apply_section(&st, m[i].s, 0);
	for (size_t i = 0; i < p->extra_write.n && !st.err; i++)
		st.err = list_add(&st.pr->write, p->extra_write.v[i], p->extra_origin, 0);
	/* a create grant is a write grant the guard narrows: bound writable, under [limits] */
	for (size_t i = 0; i < st.pr->create.n && !st.err; i++)
		st.err = list_add(&st.pr->write, st.pr->create.v[i].value, st.pr->create.v[i].file,
				  st.pr->create.v[i].line);
	if (!st.err)
		finish_profile(&st);
	if (!st.err)
		limits_collect(&st, &lim);
	if (!st.err)
		limits_apply(&st, &lim);
	/* one [limits] dropped from write grants nothing */
	for (size_t i = st.pr->create.n; !st.err && i-- > 0;) {
		bool in = false;

		for (size_t k = 0; k < st.pr->write.n && !in; k++)
			in = strcmp(st.pr->write.v[k].value, st.pr->create.v[i].value) == 0;
		if (!in)
			list_remove_at(&st.pr->create, i);
	}
out:
	limits_release(&lim);
	path_cache_release(&st.cache);
	buf_free(&st.exp);
	free(st.home);
	strv_release(&cw);
	free(m);
	if (st.err) {
		profile_free(st.pr);
		return st.err;
	}
	*out = st.pr;
	return 0;
}

void profile_forget_absent(struct profile *p)
{
	for (size_t i = 0; p && i < p->deny_read.n; i++)
		p->deny_read.v[i].absent = false;
}

void profile_free(struct profile *pr)
{
	if (!pr)
		return;
	struct pol_list *lists[] = {&pr->read,		&pr->deny_read,	     &pr->write,
				    &pr->deny_write,	&pr->unix_sockets,   &pr->listen,
				    &pr->env_unset,	&pr->env_keep,	     &pr->env_set,
				    &pr->allow_domains, &pr->deny_domains,   &pr->ignore_read,
				    &pr->ignore_write,	&pr->ignore_network, &pr->create};
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		policy_list_release(lists[i]);
	strv_release(&pr->sections);
	free(pr->cwd);
	free(pr->root);
	free(pr->root_origin);
	free(pr->no_project);
	free(pr->grant_section);
	free(pr->grant_file);
	free(pr);
}
