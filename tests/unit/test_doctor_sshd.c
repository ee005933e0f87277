/* test_doctor_sshd — `sbxsh doctor --sshd`'s reading of `sshd -T` output: each bypass named
 * with the line that closes it, DisableForwarding, internal-sftp as a subsystem and as a
 * ForceCommand, ChrootDirectory tokens, and settings sshd did not print. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shell/doctor_sshd.h"
#include "tap.h"

static struct sshd_finding fs[32];
static size_t nf;

static void run(const char *text, const char *user, const char *home)
{
	nf = doctor_sshd_check(text, "/usr/bin/sbxsh", user, home, fs, 32);
}

/* The finding for setting (the nth of that name), or NULL. */
static const struct sshd_finding *find(const char *setting, int nth)
{
	for (size_t i = 0; i < nf; i++)
		if (strcmp(fs[i].setting, setting) == 0 && nth-- == 0)
			return &fs[i];
	return NULL;
}

static int level(const char *setting)
{
	const struct sshd_finding *f = find(setting, 0);
	return f ? f->level : 99;
}

static int says(const char *setting, const char *text)
{
	const struct sshd_finding *f = find(setting, 0);
	if (f && strstr(f->text, text))
		return 1;
	printf("#   %s: %s\n#   want: %s\n", setting, f ? f->text : "(none)", text);
	return 0;
}

static const char open_config[] = "port 22\n"
				  "x11forwarding yes\n"
				  "permituserrc yes\n"
				  "allowtcpforwarding yes\n"
				  "allowagentforwarding yes\n"
				  "disableforwarding no\n"
				  "allowstreamlocalforwarding all\n"
				  "forcecommand none\n"
				  "chrootdirectory none\n"
				  "subsystem sftp internal-sftp -l INFO\n"
				  "subsystem backup /usr/local/bin/backup-server\n"
				  "permittunnel point-to-point\n";

static const char closed_config[] = "x11forwarding no\n"
				    "permituserrc no\n"
				    "allowtcpforwarding no\n"
				    "allowagentforwarding no\n"
				    "disableforwarding no\n"
				    "allowstreamlocalforwarding no\n"
				    "forcecommand none\n"
				    "chrootdirectory none\n"
				    "subsystem sftp /usr/lib/openssh/sftp-server\n"
				    "permittunnel no\n";

int main(void)
{
	run(open_config, NULL, NULL);
	is_int(level("Subsystem"), SSHD_BYPASS, "internal-sftp (with arguments) is a bypass");
	ok(says("Subsystem", "put `Subsystem sftp /usr/lib/openssh/sftp-server` in sshd_config"),
	   "with the line that closes it");
	ok(find("Subsystem", 1) && find("Subsystem", 1)->level == SSHD_OK,
	   "a subsystem with a command runs through the shell");
	is_int(level("AllowTcpForwarding"), SSHD_BYPASS, "TCP forwarding is a bypass");
	ok(says("AllowTcpForwarding", "`AllowTcpForwarding no` (or `DisableForwarding yes`)"),
	   "named with both fixes");
	is_int(level("AllowStreamLocalForwarding"), SSHD_BYPASS, "stream-local 'all' is a bypass");
	is_int(level("AllowAgentForwarding"), SSHD_BYPASS, "agent forwarding is a bypass");
	is_int(level("X11Forwarding"), SSHD_BYPASS, "X11 forwarding is a bypass");
	is_int(level("PermitTunnel"), SSHD_BYPASS, "point-to-point tunnels are a bypass");
	ok(says("PermitTunnel", "`PermitTunnel no`"), "with its line");
	is_int(level("PermitUserRC"), SSHD_NOTE, "PermitUserRC is noted, with its line");
	ok(says("PermitUserRC", "`PermitUserRC no`"), "PermitUserRC's line");
	is_int(level("ForceCommand"), SSHD_OK, "no ForceCommand is fine");
	is_int(level("ChrootDirectory"), SSHD_OK, "no chroot is fine");

	run(closed_config, NULL, NULL);
	for (size_t i = 0; i < nf; i++)
		ok(fs[i].level == SSHD_OK, "closed config: %s is ok (%s)", fs[i].setting,
		   fs[i].text);

	run("disableforwarding yes\nallowtcpforwarding yes\nx11forwarding yes\n"
	    "allowagentforwarding yes\nallowstreamlocalforwarding yes\npermittunnel no\n"
	    "permituserrc no\n",
	    NULL, NULL);
	is_int(level("AllowTcpForwarding"), SSHD_OK,
	       "DisableForwarding yes turns TCP forwarding off");
	is_int(level("X11Forwarding"), SSHD_OK, "and X11 forwarding");
	ok(says("AllowAgentForwarding", "DisableForwarding yes"), "saying why");
	is_int(level("Subsystem"), SSHD_OK, "no subsystem line: none");

	run("x11forwarding no\n", NULL, NULL);
	is_int(level("AllowTcpForwarding"), SSHD_NOTE,
	       "a setting sshd did not print is not called safe");
	ok(says("AllowTcpForwarding", "not in sshd -T's output"), "it says so");
	run("allowtcpforwardingx yes\nx allowtcpforwarding no\n", NULL, NULL);
	is_int(level("AllowTcpForwarding"), SSHD_NOTE,
	       "a longer key or a key mid-line is not the setting");

	run("forcecommand internal-sftp -d /upload\n", NULL, NULL);
	is_int(level("ForceCommand"), SSHD_BYPASS, "ForceCommand internal-sftp is a bypass");
	ok(says("ForceCommand", "`ForceCommand /usr/lib/openssh/sftp-server`"), "with its line");
	run("forcecommand /usr/bin/sbxsh -c \"$SSH_ORIGINAL_COMMAND\"\n", NULL, NULL);
	is_int(level("ForceCommand"), SSHD_NOTE,
	       "sbxsh -c \"$SSH_ORIGINAL_COMMAND\": noted (ssh host < script runs -c '')");
	ok(says("ForceCommand", "`ForceCommand /usr/bin/sbxsh ${SSH_ORIGINAL_COMMAND:+-c} "
				"\"${SSH_ORIGINAL_COMMAND:--l}\"`"),
	   "with the line that starts a login shell for those");
	run("forcecommand /usr/bin/sbxsh ${SSH_ORIGINAL_COMMAND:+-c} "
	    "\"${SSH_ORIGINAL_COMMAND:--l}\"\n",
	    NULL, NULL);
	is_int(level("ForceCommand"), SSHD_OK, "that line runs through the shell");
	run("forcecommand /usr/local/bin/gitolite-shell alice\n", NULL, NULL);
	is_int(level("ForceCommand"), SSHD_OK, "another ForceCommand runs through the shell");
	run("forcecommand internal-sftpx\n", NULL, NULL);
	is_int(level("ForceCommand"), SSHD_OK,
	       "a command merely starting with internal-sftp is not it");

	run("chrootdirectory /srv/%u\n", NULL, NULL);
	is_int(level("ChrootDirectory"), SSHD_NOTE, "a chroot with %%u and no user: noted");
	ok(says("ChrootDirectory", "--user"), "asking for the user");
	run("chrootdirectory /nonexistent-chroot/%u\n", "alice", "/home/alice");
	is_int(level("ChrootDirectory"), SSHD_BYPASS, "a chroot without sbxsh inside is a bypass");
	ok(says("ChrootDirectory", "/nonexistent-chroot/alice holds no /usr/bin/sbxsh"),
	   "naming the expanded path");
	ok(says("ChrootDirectory", "`ChrootDirectory none`"), "with its line");
	run("chrootdirectory /srv/%x\n", "alice", "/home/alice");
	is_int(level("ChrootDirectory"), SSHD_NOTE, "an unknown token is not guessed");

	char dir[] = "/tmp/test_doctor_sshd.XXXXXX", path[256], text[300];
	if (mkdtemp(dir)) {
		snprintf(path, sizeof(path), "%s/alice/usr/bin", dir);
		char cmd[1024];
		snprintf(cmd, sizeof(cmd), "mkdir -p %s && cp /bin/true %s/sbxsh", path, path);
		if (system(cmd) == 0) {
			snprintf(text, sizeof(text), "chrootdirectory %s/%%u\n", dir);
			run(text, "alice", "/home/alice");
			is_int(level("ChrootDirectory"), SSHD_OK, "a chroot holding sbxsh is fine");
		} else {
			skip("cannot make a chroot fixture", "a chroot holding sbxsh is fine");
		}
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}

	run("", NULL, NULL);
	ok(nf > 0 && nf <= 32, "empty output still gives every finding (%zu)", nf);
	return tap_done();
}
