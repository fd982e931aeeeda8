# Non-recursive build of the profiler suite.
#
#   make                 build tools and test programs under build/
#   make check           run the test suite (bats)
#   make man             man pages under build/man/ (also built by make)
#   make SANITIZE=1      AddressSanitizer + UndefinedBehaviorSanitizer build,
#                        objects under build-san/
#   make fuzz            libFuzzer targets (clang) under build-fuzz/;
#                        fuzz/README.md says how to run them
#   make install prefix=/usr/local DESTDIR=...
#                        binaries, man pages, shell completions, docs;
#                        `make uninstall` (same variables) removes them
#   make V=1             show the commands

VERSION := $(shell cat VERSION)

# Installation directories: the GNU names, overridable on the command line
# (make install prefix=/usr DESTDIR=/tmp/root).  Completions go where each
# shell looks for a distribution's (vendor) completions: bash-completion's
# directory, zsh's vendor-completions (Debian's $fpath entry; other systems
# read site-functions: pass zshcompdir=$(datarootdir)/zsh/site-functions)
# and fish's vendor_completions.d.
prefix ?= /usr/local
exec_prefix ?= $(prefix)
bindir ?= $(exec_prefix)/bin
datarootdir ?= $(prefix)/share
datadir ?= $(datarootdir)
mandir ?= $(datarootdir)/man
man1dir ?= $(mandir)/man1
man5dir ?= $(mandir)/man5
man7dir ?= $(mandir)/man7
docdir ?= $(datarootdir)/doc/uprofile
bashcompdir ?= $(datarootdir)/bash-completion/completions
zshcompdir ?= $(datarootdir)/zsh/vendor-completions
fishcompdir ?= $(datarootdir)/fish/vendor_completions.d
INSTALL ?= install

CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter -Wvla
CPPFLAGS_ALL := -I. -D_GNU_SOURCE \
	-DPROF_VERSION='"$(VERSION)"' $(CPPFLAGS)
LIBS := -pthread -lelf -ldebuginfod -ldwarf -lZydis -lcapstone -lpfm -liberty -lbpf -lz -lzstd -lm

ifeq ($(SANITIZE),1)
BUILD ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
else
BUILD ?= build
SANFLAGS :=
endif

ifneq ($(V),1)
Q := @
quiet = @printf '  %-7s %s\n' $(1) $(2);
else
Q :=
quiet =
endif

# The library's layers, bottom to top (docs/layers.txt).
LIB_DIRS := common/util common/stats common/profile symbolize common/unwind \
	common/collect common/engine formats/report formats common/run \
	common/cli
LIB_SRC := $(wildcard $(LIB_DIRS:%=%/*.c))
# The BPF program that copies Python frames at the sample (perfbpf.h),
# built by clang for the BPF target; its object goes into the library
# as data (sample_obj.S includes it).
SBPF_OBJ := bpf/sample_obj.o
BPF_CC ?= clang
BPF_ARCH := $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')
BPF_CFLAGS := -O2 -g -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
	-I/usr/include/$(shell $(CC) -print-multiarch)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/$(SBPF_OBJ)
LIB := $(BUILD)/libprof.a

TOOLS := uprofile kprofile
TOOL_BIN := $(TOOLS:%=$(BUILD)/%)

# Test programs: hot spots known by construction.  Built with frame
# pointers and debug info, without optimisation surprises where the test
# depends on the shape of the code (see each source's header comment).
TPROG_DIR := tests/programs
TPROG_CFLAGS := -O1 -g -fno-omit-frame-pointer
TPROGS := spin2 inline shlib forkexec threads kernelloop exitwith demo \
	phases tripcount branchy evencost callstack diffwork forknamed jitspin jitasm \
	ifunc execchain exports phases2 timephases offcpu timeslice \
	fsyncer phasemarks pingpong workers deepwait nostack deeprec
# Call-stack programs: each built with frame pointers (NAME) and without
# (NAME-nofp), both -O2; the -nofp builds of spin2, threads and forkexec
# are their twins for call stacks.
TPROG_FP_CFLAGS := -O2 -g -fno-omit-frame-pointer
TPROG_NOFP_CFLAGS := -O2 -g -fomit-frame-pointer
STACK_TPROGS := callers plt
NOFP_TPROGS := $(STACK_TPROGS) spin2 threads forkexec
TPROG_BIN := $(TPROGS:%=$(BUILD)/tests/%) $(BUILD)/tests/libhot.so \
	$(BUILD)/tests/libexports.so \
	$(BUILD)/tests/spin2-stripped $(STACK_TPROGS:%=$(BUILD)/tests/%) \
	$(NOFP_TPROGS:%=$(BUILD)/tests/%-nofp) $(BUILD)/tests/libplt.so \
	$(BUILD)/tests/libplt-nofp.so $(BUILD)/tests/diffwork-slow \
	$(BUILD)/tests/ifunc-static $(BUILD)/tests/execchain-static \
	$(BUILD)/tests/execchain-static-stripped $(BUILD)/tests/mapswap \
	$(BUILD)/tests/timeswap
TEST_TOOLS := $(BUILD)/tests/symtool $(BUILD)/tests/tablecheck \
	$(BUILD)/tests/pmdecode $(BUILD)/tests/mkcount \
	$(BUILD)/tests/blockcheck $(BUILD)/tests/jsonwcheck \
	$(BUILD)/tests/decodecheck $(BUILD)/tests/unwcheck $(BUILD)/tests/cficheck \
	$(BUILD)/tests/unwstep $(BUILD)/tests/pystack \
	$(BUILD)/tests/mkstacks $(BUILD)/tests/mkcallstacks $(BUILD)/tests/mkevents \
	$(BUILD)/tests/mkswitches $(BUILD)/tests/mkrename

all: $(TOOL_BIN) $(TPROG_BIN) $(TEST_TOOLS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(CPPFLAGS_ALL) $(WARN) $(CFLAGS) $(SANFLAGS) \
		-MMD -MP -c -o $@ $<

# (Under BUILD/bpf/, not BUILD/obj/: neither is a C object of the
# library's layers.)
%/bpf/sample.bpf.o: common/engine/bpf/sample.bpf.c \
		common/engine/bpf/sample_bpf.h
	@mkdir -p $(dir $@)
	$(call quiet,BPF,$@)$(BPF_CC) $(BPF_CFLAGS) -c -o $@ $<
%/$(SBPF_OBJ): common/engine/bpf/sample_obj.S %/bpf/sample.bpf.o
	$(call quiet,AS,$@)$(CC) -DSBPF_OBJ='"$(word 2,$^)"' -c -o $@ $<

$(LIB): $(LIB_OBJ)
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $^

# Front ends: one directory each, main.c plus the library.
$(BUILD)/uprofile: $(BUILD)/obj/uprofile/main.o $(LIB)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)
$(BUILD)/kprofile: $(BUILD)/obj/kprofile/main.o $(LIB)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# Test tools: one tests/tools/NAME.c each, linked with the library.
$(TEST_TOOLS): $(BUILD)/tests/%: $(BUILD)/obj/tests/tools/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# unwcheck names the frames it walks with dladdr().
$(BUILD)/tests/unwcheck: LDFLAGS += -rdynamic
# decodecheck --oom fails the library's allocations one at a time.
$(BUILD)/tests/decodecheck: LDFLAGS += \
	-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc

# Test programs are never sanitized: they are workloads, not our code.
$(BUILD)/tests/libhot.so: $(TPROG_DIR)/libhot.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_CFLAGS) -fPIC -shared -o $@ $<
$(BUILD)/tests/shlib: $(TPROG_DIR)/shlib.c $(BUILD)/tests/libhot.so
	$(call quiet,CC,$@)$(CC) $(TPROG_CFLAGS) -o $@ $< \
		-L$(BUILD)/tests -lhot -Wl,-rpath,'$$ORIGIN'
$(BUILD)/tests/libexports.so: $(TPROG_DIR)/libexports.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_CFLAGS) -fPIC -shared -o $@ $<
$(BUILD)/tests/exports: $(TPROG_DIR)/exports.c $(BUILD)/tests/libexports.so
	$(call quiet,CC,$@)$(CC) $(TPROG_CFLAGS) -o $@ $< \
		-L$(BUILD)/tests -lexports -Wl,-rpath,'$$ORIGIN'
$(BUILD)/tests/threads: $(TPROG_DIR)/threads.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_CFLAGS) -pthread -o $@ $<
$(BUILD)/tests/phases2 $(BUILD)/tests/timeswap $(BUILD)/tests/offcpu \
		$(BUILD)/tests/timeslice $(BUILD)/tests/pingpong \
		$(BUILD)/tests/workers $(BUILD)/tests/nostack: \
		$(BUILD)/tests/%: $(TPROG_DIR)/%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_CFLAGS) -pthread -o $@ $<
$(BUILD)/tests/inline: $(TPROG_DIR)/inline.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) -O2 -g -fno-omit-frame-pointer -o $@ $<
$(BUILD)/tests/callers: $(TPROG_DIR)/callers.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_FP_CFLAGS) -o $@ $<
$(BUILD)/tests/libplt.so: $(TPROG_DIR)/libplt.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_FP_CFLAGS) -fPIC -shared -o $@ $<
$(BUILD)/tests/libplt-nofp.so: $(TPROG_DIR)/libplt.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_NOFP_CFLAGS) -fPIC -shared -o $@ $<
$(BUILD)/tests/plt: $(TPROG_DIR)/plt.c $(BUILD)/tests/libplt.so
	$(call quiet,CC,$@)$(CC) $(TPROG_FP_CFLAGS) -o $@ $< \
		-L$(BUILD)/tests -l:libplt.so -Wl,-rpath,'$$ORIGIN'
$(BUILD)/tests/plt-nofp: $(TPROG_DIR)/plt.c $(BUILD)/tests/libplt-nofp.so
	$(call quiet,CC,$@)$(CC) $(TPROG_NOFP_CFLAGS) -o $@ $< \
		-L$(BUILD)/tests -l:libplt-nofp.so -Wl,-rpath,'$$ORIGIN'
$(BUILD)/tests/threads-nofp: $(TPROG_DIR)/threads.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_NOFP_CFLAGS) -pthread -o $@ $<
$(BUILD)/tests/%-nofp: $(TPROG_DIR)/%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_NOFP_CFLAGS) -o $@ $<
# diffwork's twin with procedure b made slower (--diff tests).
$(BUILD)/tests/diffwork-slow: $(TPROG_DIR)/diffwork.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_CFLAGS) -DSLOW=1 -o $@ $<
# ifunc linked statically: its IFUNC's PLT stub in a .plt without a header.
$(BUILD)/tests/ifunc-static: $(TPROG_DIR)/ifunc.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_CFLAGS) -static -o $@ $<
# execchain's leaf program: static, and static without a symbol table.
$(BUILD)/tests/execchain-static: $(TPROG_DIR)/execchain.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_CFLAGS) -static -o $@ $<
# A hostile profiled process (tests/1768): static, to run in a bare chroot.
$(BUILD)/tests/mapswap: $(TPROG_DIR)/mapswap.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_CFLAGS) -static -o $@ $<
$(BUILD)/tests/execchain-static-stripped: $(BUILD)/tests/execchain-static
	$(call quiet,STRIP,$@)strip -o $@ $<
$(BUILD)/tests/spin2-stripped: $(BUILD)/tests/spin2
	$(call quiet,STRIP,$@)strip -o $@ $<
$(BUILD)/tests/%: $(TPROG_DIR)/%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(TPROG_CFLAGS) -o $@ $<

check: all
	tests/run

# Fuzzing: one libFuzzer program per parser of outside data (fuzz/*.c),
# with the library rebuilt by clang for coverage feedback under its own
# directory, so the normal and SANITIZE=1 objects are left alone.
FUZZ_BUILD := build-fuzz
FUZZ_CC ?= clang
FUZZ_CFLAGS := -O1 -g -fno-omit-frame-pointer
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_TARGETS := $(patsubst fuzz/%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_LIB := $(FUZZ_BUILD)/libprof.a
FUZZ_BIN := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/%)

fuzz: $(FUZZ_BIN) $(FUZZ_BUILD)/profile-object

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(FUZZ_CC) $(CPPFLAGS_ALL) $(WARN) $(FUZZ_CFLAGS) \
		$(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FUZZ_LIB): $(LIB_SRC:%.c=$(FUZZ_BUILD)/obj/%.o) $(FUZZ_BUILD)/$(SBPF_OBJ)
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_BIN): $(FUZZ_BUILD)/%: $(FUZZ_BUILD)/obj/fuzz/%.o \
		$(FUZZ_BUILD)/obj/fuzz/input_file.o $(FUZZ_LIB)
	$(call quiet,LINK,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) \
		-fsanitize=fuzzer $(LDFLAGS) -o $@ $^ $(LIBS)

# The one object fuzz_profile's reports read (see fuzz/fuzz_profile.c):
# a test program with inlined code, built like the test programs.
$(FUZZ_BUILD)/profile-object: $(TPROG_DIR)/inline.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) -O2 -g -fno-omit-frame-pointer -o $@ $<

# Man pages: man/NAME.SECTION is mdoc source, build/man/NAME.SECTION the
# page with @VERSION@ replaced by the VERSION file's (the one version that
# --version, the profiles, the Debian changelog and the pages show); each
# is installed into man<SECTION>dir by its suffix.
MAN_SRC := uprofile.1 kprofile.1 umon.out.5 uprofile-statistics.7
MAN_PAGES := $(MAN_SRC:%=build/man/%)

man: $(MAN_PAGES)
all: $(MAN_PAGES)

build/man/%: man/% VERSION
	@mkdir -p $(dir $@)
	$(call quiet,GEN,$@)sed 's/@VERSION@/$(VERSION)/g' $< >$@.tmp && \
		mv $@.tmp $@

MAN1 := $(filter %.1,$(MAN_PAGES))
MAN5 := $(filter %.5,$(MAN_PAGES))
MAN7 := $(filter %.7,$(MAN_PAGES))
# README.md's links (docs/NAME.md) hold in docdir: the tree is kept.
DOC_FILES := $(wildcard docs/*.md)
DOC_EXAMPLES := $(wildcard docs/examples/*)

install: $(TOOL_BIN) $(MAN_PAGES)
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(bashcompdir) \
		$(DESTDIR)$(zshcompdir) $(DESTDIR)$(fishcompdir) \
		$(DESTDIR)$(docdir)/docs/examples
	$(INSTALL) -m 755 $(TOOL_BIN) $(DESTDIR)$(bindir)/
	$(INSTALL) -m 644 completions/uprofile.bash \
		$(DESTDIR)$(bashcompdir)/uprofile
	$(INSTALL) -m 644 completions/kprofile.bash \
		$(DESTDIR)$(bashcompdir)/kprofile
	$(INSTALL) -m 644 completions/_uprofile $(DESTDIR)$(zshcompdir)/
	$(INSTALL) -m 644 completions/uprofile.fish \
		completions/kprofile.fish $(DESTDIR)$(fishcompdir)/
	$(INSTALL) -m 644 README.md $(DESTDIR)$(docdir)/
	$(INSTALL) -m 644 $(DOC_FILES) $(DESTDIR)$(docdir)/docs/
	$(INSTALL) -m 644 $(DOC_EXAMPLES) $(DESTDIR)$(docdir)/docs/examples/
ifneq ($(MAN1),)
	$(INSTALL) -d $(DESTDIR)$(man1dir)
	$(INSTALL) -m 644 $(MAN1) $(DESTDIR)$(man1dir)/
endif
ifneq ($(MAN5),)
	$(INSTALL) -d $(DESTDIR)$(man5dir)
	$(INSTALL) -m 644 $(MAN5) $(DESTDIR)$(man5dir)/
endif
ifneq ($(MAN7),)
	$(INSTALL) -d $(DESTDIR)$(man7dir)
	$(INSTALL) -m 644 $(MAN7) $(DESTDIR)$(man7dir)/
endif

# Exactly what install wrote: the shared directories (bindir, mandir, the
# completion directories) stay; the suite's own docdir goes.
uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(bindir)/%) \
		$(DESTDIR)$(bashcompdir)/uprofile \
		$(DESTDIR)$(bashcompdir)/kprofile \
		$(DESTDIR)$(zshcompdir)/_uprofile \
		$(DESTDIR)$(fishcompdir)/uprofile.fish \
		$(DESTDIR)$(fishcompdir)/kprofile.fish \
		$(DESTDIR)$(docdir)/README.md \
		$(DOC_FILES:%=$(DESTDIR)$(docdir)/%) \
		$(DOC_EXAMPLES:%=$(DESTDIR)$(docdir)/%) \
		$(patsubst %,$(DESTDIR)$(man1dir)/%,$(notdir $(MAN1))) \
		$(patsubst %,$(DESTDIR)$(man5dir)/%,$(notdir $(MAN5))) \
		$(patsubst %,$(DESTDIR)$(man7dir)/%,$(notdir $(MAN7)))
	rmdir $(DESTDIR)$(docdir)/docs/examples $(DESTDIR)$(docdir)/docs \
		$(DESTDIR)$(docdir) 2>/dev/null || :

clean:
	rm -rf build build-san build-fuzz

.PHONY: all check man install uninstall clean fuzz
.SECONDARY:

-include $(shell find $(BUILD) $(FUZZ_BUILD) -name '*.d' 2>/dev/null)
