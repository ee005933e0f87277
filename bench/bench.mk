# bench.mk — benchmark programs (included by the GNUmakefile; `make bench` builds them).
bench: $(B)/bench/policy_bench

$(B)/bench/policy_bench: $(B)/bench/policy_bench.o $(B)/libsbx.a
	$(CC) $(HARDEN) $(CFLAGS) $(LDHARDEN) $(LDFLAGS) -o $@ $^ $(LIBS_FRONT)
