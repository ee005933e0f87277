# bench.mk — benchmark programs (included by the GNUmakefile; `make bench` builds them).
bench: $(B)/bench/policy_bench $(B)/bench/check_bench

$(B)/bench/policy_bench: $(B)/bench/policy_bench.o $(B)/libsbx.a
	$(CC) $(HARDEN) $(CFLAGS) $(LDHARDEN) $(LDFLAGS) -o $@ $^ $(LIBS_FRONT)

# the guard's check as the front end runs it: on musl when the front end is (its string
# functions are not glibc's, and the counts are of them)
ifeq ($(LIBC),musl)
$(B)/bench/check_bench: $(B)/musl/bench/check_bench.o $(B)/musl/libsbx.a
	@mkdir -p $(@D)
	$(MUSL_LINK) $^ $(MUSL_END)
else
$(B)/bench/check_bench: $(B)/bench/check_bench.o $(B)/libsbx.a
	$(CC) $(HARDEN) $(CFLAGS) $(LDHARDEN) $(LDFLAGS) -o $@ $^ $(LIBS_FRONT)
endif
