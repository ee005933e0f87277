/* policy_impl — the policy engine's internal model, shared by policy_parse.c (INI → sections),
 * policy_load.c (files and layers), profile.c (resolution) and policy_show.c.
 * Not for use outside shell/policy*.c and shell/profile.c.
 */
#ifndef SBX_POLICY_IMPL_H
#define SBX_POLICY_IMPL_H
#include "shell/policy.h"

enum sec_kind { SEC_SBXSH, SEC_DEFAULT, SEC_PROFILE, SEC_DIR, SEC_LIMITS };
enum op_kind { OP_SET, OP_ADD, OP_DEL };

/* How a key's value is spelled and checked. */
enum val_kind {
	V_BOOL,	   /* yes/no … */
	V_ENUM,	   /* one of key_def.names */
	V_LEVEL,   /* one of key_def.names, or a boolean (yes: names[2], no: names[0]) */
	V_UINT,	   /* decimal */
	V_ABSPATH, /* one absolute path (~, $VAR allowed) */
	V_PATHS,   /* list of paths / globs */
	V_DOMAINS, /* list of domain patterns */
	V_PORTS,   /* list of TCP ports */
	V_NAMES,   /* list of names or name globs */
	V_ENVSET,  /* one NAME=value per line */
	V_SOCKETS, /* list of paths, or "all" */
	V_USE,	   /* a profile name */
	V_SIZE,	   /* a tmpfs size: bytes with k/M/G, or N% of the memory */
	V_TEXT,	   /* the rest of the line as written (may be empty) */
};

enum key_id {
	K_INNER_SHELL,
	K_BWRAP,
	K_ON_VIOLATION,
	K_MONITOR,
	K_ROOT_MARKERS,
	K_LOG,
	K_SYSLOG,
	K_IDLE_EXIT,
	K_USER_CONFIG,
	K_PROMPT_MARKER,
	K_USE,
	K_READ,
	K_HERMETIC,
	K_DENY_READ,
	K_WRITE,
	K_DENY_WRITE,
	K_GIT_CONFIG,
	K_TMP,
	K_NETWORK,
	K_ALLOW_DOMAINS,
	K_DENY_DOMAINS,
	K_UNIX_SOCKETS,
	K_LISTEN,
	K_ENV_UNSET,
	K_ENV_SET,
	K_ENV_KEEP,
	K_TMP_SIZE,
	K_SHM_SIZE,
	K_IGNORE_READ,
	K_IGNORE_WRITE,
	K_IGNORE_NETWORK,
	K_CREATE,
	K_COUNT
};

/* Where a key may appear (bit set of 1 << sec_kind); [default]/[profile]/[dir] share one bit set.
 */
#define IN_SBXSH   (1u << SEC_SBXSH)
#define IN_PROFILE ((1u << SEC_DEFAULT) | (1u << SEC_PROFILE) | (1u << SEC_DIR))
#define IN_LIMITS  (1u << SEC_LIMITS)

struct key_def {
	const char *name;
	enum val_kind kind;
	unsigned where;
	const char *const *names; /* V_ENUM: the accepted words, NULL-terminated */
};
extern const struct key_def policy_keys[K_COUNT];

struct pol_op {
	enum key_id key;
	enum op_kind op;
	struct strv tokens; /* as written (unexpanded), validated at load */
	const char *file;   /* interned */
	unsigned line;
	bool user; /* from a user file: subject to [limits] */
};

struct section {
	enum sec_kind kind;
	char *name; /* profile name or [dir] pattern as written; NULL otherwise */
	char *head; /* "[dir ~/src/app]" as written */
	const char *file;
	unsigned line;
	bool user;
	struct pol_op *ops;
	size_t nops, cap;
	char *use; /* use = NAME (last one in this section) */
	unsigned use_line;
	/* [dir]: pattern expanded and canonicalized, split in components */
	struct strv comps;
	unsigned literal; /* components without glob characters */
	bool builtin;	  /* the embedded default's: name, head, use and ops are static data */
};

struct policy {
	struct section *secs;
	size_t nsecs, cap;
	struct strv files; /* interned file names, in load order */
	size_t nsys;	   /* files[0..nsys) are the embedded default and system files */
	struct settings set;
	char *home;
	char *pw_home;	 /* the password database's home when it is not home's directory, or NULL */
	char *user_file; /* the file a user edits to add a grant */
	char *preset;	 /* policy_opts.preset, or NULL */
	bool quiet_no_project; /* policy_opts.quiet_no_project */
	struct strv extra_write;
	char *extra_origin; /* the origin of extra_write (a user origin: not interned) */
};

/* The embedded default (etc/sbxsh.ini), parsed and checked at build time by policygen into
 * static sections (gen/default_sections.c), whose file is policy_embedded_file. */
extern const char policy_embedded_file[];
extern const struct section policy_default_secs[];
extern const size_t policy_default_nsecs;
/* policy_load.c: appends the embedded default's sections to p (no parse). 0 or -ENOMEM. */
int policy_load_builtin(struct policy *p);

/* policy_parse.c: parses buf (len bytes, may hold NULs) named file into p's sections.
 * Returns 0, or -EINVAL with d->errors, -ENOMEM. */
int policy_parse_buffer(struct policy *p, const char *buf, size_t len, const char *file, bool user,
			struct diag *d);
/* Splits a list value into tokens (spaces and commas; "\ " and "\," escape; commas inside
 * {…} kept). Returns 0 or -ENOMEM. */
int policy_split(const char *value, struct strv *out);
/* Parses a boolean word. Returns 0/1, or -1 when it is none. */
int policy_bool(const char *s);
/* Parses a V_SIZE word into *z. Returns 0, or -1 when it is none. */
int policy_size(const char *word, struct pol_size *z);
/* Index of word in names, or -1. */
int policy_enum(const char *const *names, const char *word);
/* Interns name in p->files; returns the stable copy or NULL. */
const char *policy_intern(struct policy *p, const char *name);
/* Appends "file:line: fmt…" to sv. */
int policy_diag(struct strv *sv, const char *file, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* profile.c */
/* Checks use= targets and cycles, compiles [dir] patterns, resolves [sbxsh] into p->set. */
int policy_finish(struct policy *p, struct diag *d);
/* Frees the sections (not the policy). */
void policy_sections_free(struct policy *p);
/* Frees a list's values and array; l is left empty. */
void policy_list_release(struct pol_list *l);

extern const char *const policy_net_names[],
    *const policy_tmp_names[], *const policy_viol_names[], *const policy_monitor_names[];
/* A V_LEVEL word as its index in names (a boolean: yes 2, no 0), or -1. */
int policy_level(const char *const *names, const char *word);

#endif
