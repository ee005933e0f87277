/* sandbox_req — the resolved profile as the platform's request (platform/sandbox.h). */
#include "platform/sandbox.h"
#include "shell/policy.h"

void profile_sandbox_req(const struct profile *p, struct sandbox_req *out)
{
	*out = (struct sandbox_req){
	    .cwd = p->cwd,
	    .root = p->root,
	    .name = p->sections.n ? p->sections.v[p->sections.n - 1] : NULL,
	    .read = p->read,
	    .deny_read = p->deny_read,
	    .write = p->write,
	    .deny_write = p->deny_write,
	    .env_unset = p->env_unset,
	    .env_keep = p->env_keep,
	    .env_set = p->env_set,
	    .hermetic = p->hermetic,
	    .git_config = p->git_config,
	    .unix_all = p->unix_all,
	    .tmp_private = p->tmp == TMP_PRIVATE,
	    .net_open = p->network == NET_OPEN,
	    .tmp_size = p->tmp_size,
	    .shm_size = p->shm_size,
	    .grant_section = p->grant_section,
	    .grant_file = p->grant_file,
	};
}
