/* PLACEHOLDER: replaced by the policy engine work. */
#include "platform/log.h"
#include "shell/commands.h"
int cmd_policy(int argc, char **argv)
{
	(void)argc; (void)argv;
	sbx_warn("policy: not built yet");
	return SBX_EXIT_REFUSED;
}
