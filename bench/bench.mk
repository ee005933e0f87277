# bench.mk — benchmark programs (included by the GNUmakefile; `make bench` builds them).
# Included before `all:` is defined, so name the default goal explicitly.
.DEFAULT_GOAL := all

bench: $(B)/bench/policy_bench

$(B)/bench/policy_bench: $(B)/bench/policy_bench.o $(B)/libsbx.a
	$(CC) $(HARDEN) $(CFLAGS) $(LDHARDEN) $(LDFLAGS) -o $@ $^ $(LIBS_FRONT)
