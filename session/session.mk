# session.mk — the session daemon program (included by the GNUmakefile).
PROGS += $(B)/sbxsh-sessiond
# The daemon's own files (libuv, OpenSSL): never in the per-command programs.
SESSD_SRC = session/command.c session/conn.c session/daemon.c session/dial.c session/front.c \
	    session/splice.c

$(B)/sbxsh-sessiond: $(B)/session/sessiond_main.o $(B)/libsbx.a
	$(CC) $(HARDEN) $(CFLAGS) $(LDHARDEN) $(LDFLAGS) -o $@ $^ $(call pc,--libs,libuv openssl inih)
