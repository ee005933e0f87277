# session.mk — the session's programs (included by the GNUmakefile). Which program a file of
# session/ belongs to is its folder: session/daemon/ the daemon's, session/client/ the pieces
# the front end and the stage link, session/pam/ the PAM module's; session/ itself what both
# sides link (the protocol, its wire, the identity, the violation log).
PROGS += $(B)/sbxsh-sessiond
# The daemon's own files (libuv, OpenSSL): never in the per-command programs.
SESSD_SRC = $(filter-out %_main.c,$(wildcard session/daemon/*.c))

$(B)/sbxsh-sessiond: $(B)/session/daemon/sessiond_main.o $(B)/libsbx.a
	$(CC) $(HARDEN) $(CFLAGS) $(LDHARDEN) $(LDFLAGS) -o $@ $^ $(call pc,--libs,libuv openssl inih)

# pam_sbxsh.so, the PAM session module (glibc, -fPIC, libpam): loaded into sshd and login,
# never into the per-command programs, so it is no library code (session/pam/ is no SRC_DIR).
PROGS += $(B)/pam_sbxsh.so
PAM_CFLAGS = $(WARN) -fPIC -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fvisibility=hidden \
	     $(filter-out -fsanitize%,$(CFLAGS)) $(CPPFLAGS) $(call pc,--cflags,pam)

# Its objects mirror their sources' paths under $(B)/pam (built with PAM_CFLAGS).
PAM_OBJ = $(addprefix $(B)/pam/,session/pam/pam_sbxsh.o platform/linux/fds.o platform/linux/proc.o platform/buf.o)
$(B)/pam/%.o: %.c | $(B)/gen/paths.h $(B)/.deps-build
	@mkdir -p $(@D)
	$(CC) $(PAM_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/pam_sbxsh.so: $(PAM_OBJ)
	$(CC) -shared -Wl,-z,relro,-z,now -Wl,--as-needed -Wl,-z,defs $(LDFLAGS) -o $@ $^ \
		$(call pc,--libs,pam)
