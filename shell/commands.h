/* commands — sbxsh's subcommands (`sbxsh NAME …`) and the shell itself. */
#ifndef SBX_COMMANDS_H
#define SBX_COMMANDS_H

/* Each takes argv with argv[0] the subcommand's name and returns the exit status. */
int cmd_policy(int argc, char **argv);
int cmd_session(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_run(int argc, char **argv);

/* The shell: everything that is not a subcommand (bash's argument contract). */
int shell_main(int argc, char **argv);

#endif
