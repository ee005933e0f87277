/* gitcfg — the hooks directories git's configuration names (core.hooksPath), for the guard:
 * git runs what is there at the host's next commit as it would .git/hooks, so where one lies
 * in a write grant it is protected the way .git/hooks is (docs/monitor.md "The guard").
 */
#ifndef SBX_GITCFG_H
#define SBX_GITCFG_H
#include <stddef.h>

#include "platform/strv.h"

/* Calls fn for each entry of a git config text: section lowercased, sub the subsection (NULL
 * when none), key lowercased, value NULL for a key without `=`. Stops at the first error
 * (git would refuse the file) or when fn returns nonzero, which it returns; else 0. */
int gitcfg_parse(const char *text, size_t len,
		 int (*fn)(const char *section, const char *sub, const char *key, const char *value,
			   void *arg),
		 void *arg);

/* Pushes into out every core.hooksPath the configuration of each repository whose worktree
 * is wt[i] names (its config, config.worktree, its commondir's config, the global and system
 * files and what they include), absolute: ~ expanded with home, a relative one against the
 * worktree; and every file included (include.path, includeIf.*.path), absolute. A value
 * repeated is pushed once. rel (or NULL) gets each relative core.hooksPath of the global and
 * system files and the environment, normalized: a directory of every repository's worktree,
 * nested ones whose configs were not read included. 0 or -ENOMEM. */
int gitcfg_hooks_dirs(struct strv *out, const char *const *wt, size_t n, const char *home,
		      struct strv *rel);

#endif
