/* PLACEHOLDER: replaced by the sandbox work. */
#include "platform/log.h"
#include "shell/commands.h"
int shell_main(int argc, char **argv)
{
	(void)argc; (void)argv;
	sbx_warn("the sandboxed shell is not built yet");
	return SBX_EXIT_REFUSED;
}
