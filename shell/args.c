/* args — bash's argument contract (compat.md 1–4), read only as far as sbxsh needs it.
 *
 * Long options come first (as in bash); sbxsh's own (--dry-run, --config, --help,
 * --version) are taken out, everything else is passed to the inner shell unchanged and in
 * order. -c is a flag: the command string is the first operand after the options.
 * Started as a shim (argv[0] bash, sh or zsh), sbxsh has no options of its own: --help and
 * --version are the real shell's, --dry-run and --config are invalid as in bash.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shell/shell.h"

enum {
	F_ARG = 1 << 0,	 /* takes the next argument */
	F_OURS = 1 << 1, /* sbxsh's own: not passed on */
	F_LOGIN = 1 << 2,
	F_DRY = 1 << 3,
	F_CONFIG = 1 << 4,
	F_HELP = 1 << 5,
	F_VERSION = 1 << 6,
	F_COMMAND = 1 << 7,
	F_STDIN = 1 << 8,
	F_INTERACTIVE = 1 << 9,
};

static const struct {
	const char *name;
	unsigned flags;
} long_opts[] = {
    {"--config", F_ARG | F_OURS | F_CONFIG},
    {"--dry-run", F_OURS | F_DRY},
    {"--help", F_OURS | F_HELP},
    {"--version", F_OURS | F_VERSION},
    {"--login", F_LOGIN},
    {"--rcfile", F_ARG},
    {"--init-file", F_ARG},
    {"--debug", 0},
    {"--debugger", 0},
    {"--dump-po-strings", 0},
    {"--dump-strings", 0},
    {"--noediting", 0},
    {"--noprofile", 0},
    {"--norc", 0},
    {"--posix", 0},
    {"--pretty-print", 0},
    {"--protected", 0},
    {"--restricted", 0},
    {"--verbose", 0},
    {"--wordexp", 0},
};

static const struct {
	char c;
	unsigned flags;
} short_opts[] = {
    {'c', F_COMMAND}, {'s', F_STDIN}, {'i', F_INTERACTIVE},
    {'l', F_LOGIN},   {'o', F_ARG},   {'O', F_ARG},
};

const char shell_usage[] =
    "usage: sbxsh [--dry-run] [--config FILE] [bash options] [-c COMMAND [NAME [ARG…]]]\n"
    "       sbxsh [options] FILE [ARG…]\n"
    "       sbxsh [options] [-s] [ARG…]          (the script on stdin)\n"
    "       sbxsh session status|start|stop | sbxsh session connect HOST PORT\n"
    "       sbxsh policy [--config FILE] [DIR] | sbxsh policy --check [FILE…]\n"
    "       sbxsh run [--preset NAME] [--] AGENT [ARG…]   (an AI agent; sbxsh(1))\n"
    "       sbxsh log [--json] [--since WHEN] [--command ID] [--all]\n"
    "       sbxsh doctor [--sshd [--user NAME] [--config SSHD_CONFIG]]\n"
    "Runs each command in the inner shell (bash) inside a sandbox chosen by the policy for\n"
    "the current directory. Bash's options are passed on unchanged.\n"
    "  --dry-run      print the sandbox (the bwrap argv, one argument a line); run nothing\n"
    "  --config FILE  use FILE as the user policy (also SBXSH_CONFIG; not when argv[0] is a\n"
    "                 login's \"-sbxsh\"; -l and --login honour it)\n"
    "  --version, --help\n"
    "  SUBCOMMAND --help  each subcommand's own usage\n"
    "Exit status: the command's; 2 usage; 125 refused by sbxsh (see sbxsh(1)).\n";

/* Sets a usage error. Returns 1, or -ENOMEM. */
static int usage(struct shell_args *a, const char *what, const char *msg)
{
	a->action = SHELL_USAGE;
	return asprintf(&a->error, "%s: %s", what, msg) < 0 ? -ENOMEM : 1;
}

/* One long option at argv[*i]. Returns 0, 1 (a usage error set) or -ENOMEM. */
static int parse_long(struct shell_args *a, int argc, char **argv, int *i)
{
	const char *arg = argv[*i], *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);

	for (size_t k = 0; k < sizeof(long_opts) / sizeof(*long_opts); k++) {
		unsigned f = long_opts[k].flags;
		if (strlen(long_opts[k].name) != n || strncmp(long_opts[k].name, arg, n) != 0)
			continue;
		if (eq && !(f & F_OURS && f & F_ARG))
			break; /* bash takes no --opt=value */
		const char *val = eq ? eq + 1 : NULL;
		if (f & F_ARG && !val) {
			if (*i + 1 >= argc)
				return usage(a, arg, "option requires an argument");
			val = argv[++*i];
		}
		if (a->shim && f & (F_HELP | F_VERSION)) {
			a->action = SHELL_REAL;
			return strv_push(&a->fwd, arg);
		}
		if (a->shim && f & F_OURS)
			break; /* bash's "invalid option" */
		a->login |= !!(f & F_LOGIN);
		a->dry_run |= !!(f & F_DRY);
		if (f & F_CONFIG)
			a->config = val;
		if (f & (F_HELP | F_VERSION))
			a->action = f & F_HELP ? SHELL_HELP : SHELL_VERSION;
		if (f & F_OURS)
			return 0;
		int r = strv_push(&a->fwd, arg);
		return r ? r : (f & F_ARG ? strv_push(&a->fwd, val) : 0);
	}
	return usage(a, arg, "invalid option");
}

static unsigned short_flags(char c)
{
	for (size_t k = 0; k < sizeof(short_opts) / sizeof(*short_opts); k++)
		if (short_opts[k].c == c)
			return short_opts[k].flags;
	return 0;
}

/* One cluster like -ec, -o pipefail, +o posix. Returns 0, 1 (usage) or -ENOMEM. */
static int parse_short(struct shell_args *a, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	int takes = 0, r = strv_push(&a->fwd, arg);

	/* A late "--long" is bash's "invalid option" to report: read nothing from it. */
	for (const char *p = arg + 1; r == 0 && *p && arg[1] != '-'; p++) {
		unsigned f = short_flags(*p);
		if (arg[0] == '-') {
			a->command |= !!(f & F_COMMAND);
			a->stdin_script |= !!(f & F_STDIN);
			a->interactive |= !!(f & F_INTERACTIVE);
			a->login |= !!(f & F_LOGIN);
		}
		takes += !!(f & F_ARG);
	}
	for (; r == 0 && takes > 0; takes--) {
		if (*i + 1 >= argc)
			break; /* bash lists the options then: pass it on */
		r = strv_push(&a->fwd, argv[++*i]);
	}
	return r;
}

static int parse_operands(struct shell_args *a, int argc, char **argv, int i)
{
	if (a->command) {
		if (i >= argc)
			return usage(a, "-c", "option requires an argument") < 0 ? -ENOMEM : 0;
		a->cmd = argv[i];
		a->cmd_at = a->fwd.n;
	} else if (!a->stdin_script && i < argc) {
		a->script = argv[i];
	}
	int r = 0;
	for (; r == 0 && i < argc; i++)
		r = strv_push(&a->fwd, argv[i]);
	return r;
}

int shell_args_parse(int argc, char **argv, struct shell_args *a)
{
	int i = 1, r;

	memset(a, 0, sizeof(*a));
	a->login = a->login_argv0 = argv[0] && argv[0][0] == '-';
	a->shim = shell_shim_name(argv[0]);
	if ((r = strv_push(&a->fwd, argv[0] ? argv[0] : "sbxsh")) < 0)
		return r;
	for (; i < argc && strncmp(argv[i], "--", 2) == 0 && argv[i][2]; i++)
		if ((r = parse_long(a, argc, argv, &i)) != 0)
			return r < 0 ? r : 0;
	for (; i < argc; i++) {
		const char *arg = argv[i];
		if (strcmp(arg, "-") == 0 || strcmp(arg, "--") == 0) {
			if ((r = strv_push(&a->fwd, arg)) < 0)
				return r;
			i++;
			break;
		}
		if ((arg[0] != '-' && arg[0] != '+') || !arg[1])
			break;
		if ((r = parse_short(a, argc, argv, &i)) < 0)
			return r;
	}
	return parse_operands(a, argc, argv, i);
}

const char *shell_shim_name(const char *argv0)
{
	static const char *const names[] = {"bash", "sh", "zsh"};
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;

	base = base ? base + 1 : argv0;
	if (base && base == argv0 && *base == '-')
		base++;
	for (size_t i = 0; base && i < sizeof(names) / sizeof(*names); i++)
		if (strcmp(base, names[i]) == 0)
			return names[i];
	return NULL;
}

void shell_args_release(struct shell_args *a)
{
	strv_release(&a->fwd);
	free(a->error);
	a->error = NULL;
}
