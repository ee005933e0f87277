# session.mk — the session daemon program (included by the GNUmakefile).
PROGS += $(B)/sbxsh-sessiond

$(B)/sbxsh-sessiond: $(B)/session/sessiond_main.o $(B)/libsbx.a
	$(CC) $(HARDEN) $(CFLAGS) $(LDHARDEN) $(LDFLAGS) -o $@ $^ $(call pc,--libs,libuv openssl inih)
