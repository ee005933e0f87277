# session.mk — the session daemon program (included by the GNUmakefile).
PROGS += $(B)/sbxsh-sessiond
# The daemon's own files (libuv, OpenSSL): never in the per-command programs.
SESSD_SRC = session/command.c session/conn.c session/daemon.c session/dial.c session/front.c \
	    session/splice.c

$(B)/sbxsh-sessiond: $(B)/session/sessiond_main.o $(B)/libsbx.a
	$(CC) $(HARDEN) $(CFLAGS) $(LDHARDEN) $(LDFLAGS) -o $@ $^ $(call pc,--libs,libuv openssl inih)

# pam_sbxsh.so, the PAM session module (glibc, -fPIC, libpam): loaded into sshd and login,
# never into the per-command programs, so it is no library code.
LIB_SRC := $(filter-out session/pam_sbxsh.c,$(LIB_SRC))
PROGS += $(B)/pam_sbxsh.so
PAM_CFLAGS = $(WARN) -fPIC -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fvisibility=hidden \
	     $(filter-out -fsanitize%,$(CFLAGS)) $(CPPFLAGS) $(call pc,--cflags,pam)

$(B)/pam/%.o: session/%.c $(B)/gen/paths.h | $(B)/.deps-build
	@mkdir -p $(@D)
	$(CC) $(PAM_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/pam/fds.o: platform/linux/fds.c | $(B)/.deps-build
	@mkdir -p $(@D)
	$(CC) $(PAM_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/pam/buf.o: platform/buf.c | $(B)/.deps-build
	@mkdir -p $(@D)
	$(CC) $(PAM_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/pam_sbxsh.so: $(B)/pam/pam_sbxsh.o $(B)/pam/fds.o $(B)/pam/buf.o
	$(CC) -shared -Wl,-z,relro,-z,now -Wl,--as-needed -Wl,-z,defs $(LDFLAGS) -o $@ $^ \
		$(call pc,--libs,pam)
