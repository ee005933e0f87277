# packaging.mk — what `make install` adds beyond the programs (the PAM module, man pages,
# shell completion), `make uninstall`, the man page lint and `make deb`. Included by the
# GNUmakefile.
MANDIR   ?= $(DATADIR)/man
PAMDIR   ?= $(PREFIX)/lib/security
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR  ?= $(DATADIR)/zsh/vendor-completions
MAN_PAGES = $(wildcard docs/man/*.[1-8])

# Every file install puts, by its installed path (uninstall removes exactly these).
INSTALLED = $(BINDIR)/sbxsh $(LIBEXECDIR)/sbxsh-stage $(LIBEXECDIR)/sbxsh-sessiond \
	    $(LIBEXECDIR)/sandbox-marker $(DATADIR)/sbxsh/sbxsh.ini.default \
	    $(PAMDIR)/pam_sbxsh.so $(BASHCOMPDIR)/sbxsh $(ZSHCOMPDIR)/_sbxsh \
	    $(foreach m,$(MAN_PAGES),$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))

install: install-extra
install-extra: $(PROGS)
	$(if $(wildcard $(B)/pam_sbxsh.so),install -d $(DESTDIR)$(PAMDIR) && \
		install -m 0644 $(B)/pam_sbxsh.so $(DESTDIR)$(PAMDIR)/pam_sbxsh.so)
	$(foreach m,$(MAN_PAGES),install -d $(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m))) && \
		install -m 0644 $(m) $(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m)))/ &&) :
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 0644 packaging/completion/sbxsh.bash $(DESTDIR)$(BASHCOMPDIR)/sbxsh
	install -m 0644 packaging/completion/_sbxsh $(DESTDIR)$(ZSHCOMPDIR)/_sbxsh

# Removes what install put and the directories it made that are left empty; never the
# system policy in $(SYSCONFDIR)/sbxsh (an administrator's file).
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR)/sbxsh 2>/dev/null

# The man pages: mandoc -T lint, one ok/not ok line a page (tests/run.sh runs it).
man-lint:
	@for m in $(MAN_PAGES); do \
		if out=$$(mandoc -T lint -W warning $$m 2>&1) && [ -z "$$out" ]; then \
			echo "ok - mandoc -T lint $$m"; \
		else echo "not ok - mandoc -T lint $$m"; echo "$$out" | sed 's/^/# /'; fi; \
	done

.PHONY: install-extra uninstall man-lint

# make deb: a Debian package of the programs, the PAM module (multiarch security directory),
# /etc/sbxsh/sbxsh.ini as a conffile, man pages and completion; lintian-checked.
DEB_ARCH = $(shell dpkg --print-architecture 2>/dev/null)
DEB_OUT  = $(B)/sbxsh_$(VERSION)_$(DEB_ARCH).deb
# The tree it compiles in (make check: the build's own, where only the users of the compiled-in
# paths are recompiled).
DEB_B   ?= $(B)/deb-build
deb:
	rm -rf $(B)/deb
	$(MAKE) --no-print-directory B='$(DEB_B)' PREFIX=/usr SYSCONFDIR=/etc INSTALL_TEST_HELPERS= \
		LIBEXECDIR=/usr/libexec/sbxsh PAMDIR=/lib/$(shell $(CC) -print-multiarch)/security \
		DESTDIR='$(abspath $(B))/deb/root' install > /dev/null
	sh packaging/deb.sh '$(abspath $(B))/deb/root' '$(VERSION)' '$(DEB_ARCH)' '$(abspath $(DEB_OUT))'

.PHONY: deb

# make check-deb: make deb, install it here, run the e2e suites against /usr/bin/sbxsh, remove
# it (root only; TESTS as for make check).
check-deb: deb
	@sh packaging/deps.sh test
	@TESTS='$(TESTS)' sh packaging/check-deb.sh '$(abspath $(DEB_OUT))'

.PHONY: check-deb
