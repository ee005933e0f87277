/* doctor_sshd — `sbxsh doctor --sshd`: the sshd settings that let a session bypass the shell. */
#ifndef SBX_DOCTOR_SSHD_H
#define SBX_DOCTOR_SSHD_H
#include <stddef.h>

enum { SSHD_BYPASS = 0, SSHD_NOTE = -1, SSHD_OK = 1 };

struct sshd_finding {
	int level;	  /* SSHD_BYPASS, SSHD_NOTE or SSHD_OK */
	char setting[32]; /* as sshd_config spells it: AllowTcpForwarding */
	char text[512];	  /* the value, what it lets through, and the line to put in sshd_config */
};

/* Reads `sshd -T` output (text, NUL-terminated; lowercase keys, one setting a line) for a
 * login whose shell is sbxsh, installed at sbxsh_path. user/home expand %u/%h in
 * ChrootDirectory (NULL: not expanded; then the chroot is named, not looked into). Writes at
 * most max findings, one for each setting checked, and returns how many; never fails. */
size_t doctor_sshd_check(const char *text, const char *sbxsh_path, const char *user,
			 const char *home, struct sshd_finding *out, size_t max);

/* `sbxsh doctor --sshd [--user NAME] [--config FILE] [--from FILE|-]`. Returns the exit
 * status: 0 nothing bypasses, 1 something does, 2 usage, 125 sshd -T failed. */
int doctor_sshd(int argc, char **argv);

#endif
