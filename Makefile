# iotape - one top-level Makefile.
#   make [all]        build build/iotape, libiotape.{a,so}, iotape.pc; installs
#                     nothing (names the Debian packages if some are missing)
#   make check        all tests (unit, integration, fuzz corpus); -Werror
#   check, demo, bench, validate*, fuzz and stress first install what they
#   need (tools/deps.sh, as root)
#   make demo         bench the bundled reference trace
#   make bench        performance figures (long)
#   make stress       long fault and load tests
#   make validate-suite  iotape validate on thirty real workloads (long)
#   make fuzz         libFuzzer harnesses (clang)
#   make install      PREFIX=/usr/local DESTDIR=
#   V=1               show full commands
#   SANITIZE=address,undefined   sanitizer build (in build-san/)
#   CC=clang          another compiler (in build-clang/ unless BUILD= is given)

PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
SANITIZE ?=
WERROR   ?= 0

ifneq ($(SANITIZE),)
BUILD ?= build-san
else ifeq ($(notdir $(CC)),clang)
BUILD ?= build-clang
else
BUILD ?= build
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

PKGS := libzstd libprotobuf-c
CMOCKA_PKG := cmocka

WARN := -std=gnu11 -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wundef -Wwrite-strings -Wvla -Wno-unused-parameter
CFLAGS ?= -O2 -g
ifeq ($(WERROR),1)
WARN += -Werror
endif
ifneq ($(SANITIZE),)
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_CFLAGS = $(shell pkg-config --cflags $(CMOCKA_PKG) 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs $(CMOCKA_PKG) 2>/dev/null)
ALL_CFLAGS = $(WARN) $(CFLAGS) $(SANFLAGS) -fPIC -D_GNU_SOURCE -Iformat -I$(BUILD)/gen \
	-DIOT_BUILD_VERSION=\"$(VERSION)\" $(PKG_CFLAGS)
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)
LIBS = $(PKG_LIBS) -luring -lpthread -lm

# The bpf backend of `iotape record` (record/bpf/): built when clang,
# bpftool, libbpf-dev and the kernel's BTF are there (tools/deps.sh
# installs them as root); left out otherwise, and `make` says so.
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || ls /usr/sbin/bpftool 2>/dev/null)
BPF_CLANG ?= clang
HAVE_BPF ?= $(shell command -v $(BPF_CLANG) >/dev/null 2>&1 && test -n "$(BPFTOOL)" && \
	pkg-config --exists libbpf 2>/dev/null && test -r /sys/kernel/btf/vmlinux && echo 1)
ifeq ($(HAVE_BPF),1)
ALL_CFLAGS += -DIOT_HAVE_BPF
APP_LIBS = $(LIBS) $(shell pkg-config --libs libbpf 2>/dev/null)
BPF_SKEL := $(BUILD)/gen/iotape.skel.h $(BUILD)/gen/uring.skel.h $(BUILD)/gen/aio.skel.h
else
APP_LIBS = $(LIBS)
BPF_SKEL :=
endif

VERSION := $(shell sed -n 's/^\#define IOT_VERSION "\(.*\)"/\1/p' format/iotape.h)

LIB_SRC  := $(sort $(wildcard format/*.c))
APP_SRC  := $(sort $(wildcard record/*.c replay/*.c bench/*.c analyze/*.c cli/*.c))
MAIN_SRC := cli/main.c
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
PROG_SRC := $(sort $(wildcard tests/progs/*.c))
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
SHIM_SRC := $(sort $(wildcard tests/shim/*.c))

GEN_C := $(BUILD)/gen/trace.pb-c.c
GEN_H := $(BUILD)/gen/trace.pb-c.h
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/trace.pb-c.o
APP_OBJ := $(APP_SRC:%.c=$(BUILD)/obj/%.o)
APP_NOMAIN_OBJ := $(filter-out $(BUILD)/obj/$(MAIN_SRC:.c=.o),$(APP_OBJ))
# Only the command line (cli/ and the cmd_*.c files) sees cli/'s headers;
# the engines below it report through format/engine.h.
CLI_OBJ := $(foreach o,$(APP_OBJ),$(if $(or $(findstring /obj/cli/,$(o)),$(findstring /cmd_,$(o))),$(o)))
ENGINE_OBJ := $(filter-out $(CLI_OBJ),$(APP_OBJ))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
PROG_BIN := $(PROG_SRC:tests/progs/%.c=$(BUILD)/tests/progs/%)
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/tests/bench/%)
SHIM_LIB := $(SHIM_SRC:tests/shim/%.c=$(BUILD)/tests/shim/%.so)

BIN := $(BUILD)/iotape
# The fast path's preload library, loaded into the recorded programs: no
# sanitizer (it would have to be the program's too), hidden symbols.
FAST_SRC := record/fastpath/preload.c record/fastpath/wrap.c record/fastpath/dir.c record/fastpath/patch.c \
	record/fastpath/realpath.c record/fastpath/wait.c format/syscalls.c
FAST_HDR := record/fastpath/fp.h record/fastpath/preload.h format/iotape.h format/syscalls.def
FASTLIB := $(BUILD)/libiotape-fast.so
CC_IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -q clang && echo 1)
FAST_CFLAGS := $(WARN) $(CFLAGS) $(if $(filter 1,$(WERROR)),-Werror) -Iformat -DIOT_API= \
	-fPIC -shared -fvisibility=hidden -Wl,-z,noseparate-code \
	$(if $(CC_IS_CLANG),,-Wno-attribute-alias -Wno-missing-attributes)
LIBA := $(BUILD)/libiotape.a
LIBSO := $(BUILD)/libiotape.so
PC := $(BUILD)/iotape.pc
FLAGS_STAMP := $(BUILD)/.flags
# libiotape exports only what format/iotape.h declares (IOT_API).
LIB_VIS := -fvisibility=hidden
$(LIB_OBJ): OBJ_VIS := $(LIB_VIS)
# Header dependencies of programs compiled and linked in one step (the unit
# tests include tests/unit/format_model.h, trace_build.h ...).
DEPFLAGS = -MMD -MP -MT $@ -MF $@.d

# A recipe that fails leaves no half-written target behind.
.DELETE_ON_ERROR:

# `make` alone builds all, not the first rule below (iotape-mpi).
.DEFAULT_GOAL := all

# iotape-mpi (mpi/): each MPI rank one client of a replay.  Built only
# where mpicc is (Debian: libopenmpi-dev openmpi-bin); said once otherwise.
MPICC := $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPICC),)
MPI_BIN := $(BUILD)/iotape-mpi
$(MPI_BIN): mpi/iotape-mpi.c $(APP_NOMAIN_OBJ) $(LIBA) $(FLAGS_STAMP)
	@echo "  MPICC   $<"
	$(Q)OMPI_CC=$(CC) $(MPICC) $(ALL_CFLAGS) -Ireplay -Icli -o $@ $< $(APP_NOMAIN_OBJ) $(LIBA) \
		$(ALL_LDFLAGS) $(APP_LIBS)
else
MPI_BIN :=
$(info iotape-mpi: not built: no mpicc (apt-get install libopenmpi-dev openmpi-bin))
endif

.PHONY: all deps check check-unit tests bench demo stress validate validate-make validate-suite fuzz install \
	uninstall clean FORCE

all: have-deps
	$(Q)$(MAKE) --no-print-directory build-all

.PHONY: build-all have-deps
build-all: $(BIN) $(FASTLIB) $(LIBA) $(LIBSO) $(PC) $(MPI_BIN)
ifneq ($(HAVE_BPF),1)
	@echo "  NOTE    record --backend bpf left out: needs clang, bpftool, libbpf-dev and" \
		"/sys/kernel/btf/vmlinux (as root: tools/deps.sh build)"
endif

# The BPF programs: vmlinux.h from this kernel's BTF, the objects and
# their skeletons; all generated into $(BUILD)/gen, never committed.
# iotape.bpf.o, which every recording loads, as a light skeleton (-L:
# relocated in the kernel at load, not by libbpf); uring.bpf.o, loaded
# when a program first makes an io_uring ring, and aio.bpf.o, at its
# first libaio context, as plain ones: they are given the first object's
# maps by descriptor, which a light skeleton's loader cannot take.
$(BUILD)/gen/vmlinux.h:
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/%.bpf.o: record/bpf/%.bpf.c record/bpf/common.bpf.h record/bpf/mpages.bpf.h \
		record/bpf/event.h $(BUILD)/gen/vmlinux.h
	@echo "  CLANG   $<"
	$(Q)$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BUILD)/gen -Irecord/bpf \
		$(if $(filter 1,$(WERROR)),-Werror) -Wall -c $< -o $@

# A light skeleton's loader has room for 32 programs and functions
# (libbpf's MAX_USED_PROGS); past that the kernel refuses the loader
# itself at every recording ("invalid read from stack"), so the build
# counts them first.
$(BUILD)/gen/iotape.skel.h: $(BUILD)/gen/iotape.bpf.o
	@echo "  SKEL    $@"
	$(Q)n=$$($(BPFTOOL) btf dump file $< | grep -c "^\[[0-9]*\] FUNC '"); \
	if [ "$$n" -gt 32 ]; then echo "$<: $$n BPF programs and functions, a light skeleton" \
		"loads at most 32: make one of them inline" >&2; exit 1; fi
	$(Q)$(BPFTOOL) gen skeleton -L $< name iotape_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/uring.skel.h: $(BUILD)/gen/uring.bpf.o
	@echo "  SKEL    $@"
	$(Q)$(BPFTOOL) gen skeleton $< name iotape_uring_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/aio.skel.h: $(BUILD)/gen/aio.bpf.o
	@echo "  SKEL    $@"
	$(Q)$(BPFTOOL) gen skeleton $< name iotape_aio_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/record/bpf.o $(BUILD)/obj/record/bpf_drain.o $(BUILD)/obj/record/bpf_calib.o \
		$(BUILD)/obj/record/bpf_uring.o $(BUILD)/obj/record/bpf_aio.o: $(BPF_SKEL)

# Building installs nothing: it checks for what it needs and names the
# packages.  The targets that run something install them (deps).
have-deps:
	@missing=; \
	command -v $(firstword $(CC)) >/dev/null 2>&1 || missing="$$missing gcc"; \
	command -v pkg-config >/dev/null 2>&1 || missing="$$missing pkg-config"; \
	pkg-config --exists libzstd 2>/dev/null || missing="$$missing libzstd-dev"; \
	pkg-config --exists libprotobuf-c 2>/dev/null || missing="$$missing libprotobuf-c-dev"; \
	pkg-config --exists liburing 2>/dev/null || missing="$$missing liburing-dev"; \
	command -v protoc-c >/dev/null 2>&1 || missing="$$missing protobuf-c-compiler"; \
	if [ -n "$$missing" ]; then \
		echo "iotape: cannot build: missing$$missing" >&2; \
		echo "iotape: install them with: apt-get install$$missing" \
			"(or run 'make check' as root, which does)" >&2; \
		exit 1; \
	fi

deps:
	@tools/deps.sh build

# Rebuild everything when the flags change (SANITIZE, WERROR, CFLAGS).
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(ALL_CFLAGS) $(LIB_VIS) $(FAST_CFLAGS)' | cmp -s - $@ || \
		echo '$(CC) $(ALL_CFLAGS) $(LIB_VIS) $(FAST_CFLAGS)' > $@

$(GEN_C) $(GEN_H): format/trace.proto
	@mkdir -p $(BUILD)/gen
	@echo "  PROTOC  $<"
	$(Q)protoc-c --proto_path=format --c_out=$(BUILD)/gen $<

$(BUILD)/obj/gen/trace.pb-c.o: $(GEN_C) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(filter-out -Wmissing-prototypes -Wshadow,$(ALL_CFLAGS)) $(OBJ_VIS) -c $< -o $@

$(BUILD)/obj/%.o: %.c $(GEN_H) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) $(OBJ_VIS) $(if $(filter $@,$(CLI_OBJ)),-Icli) \
		$(if $(findstring /obj/bench/,$@),-Ireplay) -MMD -MP -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBSO): $(LIB_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) -shared -Wl,-soname,libiotape.so.1 $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(FASTLIB): $(FAST_SRC) $(FAST_HDR) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(FAST_CFLAGS) -o $@ $(FAST_SRC) -lpthread

$(PC): iotape.pc.in format/iotape.h
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

$(BIN): $(APP_OBJ) $(LIBA)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(APP_OBJ) $(LIBA) $(APP_LIBS)

$(BUILD)/tests/unit/%: tests/unit/%.c $(APP_NOMAIN_OBJ) $(LIBA) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(CMOCKA_CFLAGS) -Irecord -Ireplay -Ianalyze -Icli -o $@ $< \
		$(APP_NOMAIN_OBJ) $(LIBA) $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(APP_LIBS)

# Test programs are traced: plain, no sanitizer (LeakSanitizer refuses ptrace).
$(BUILD)/tests/progs/%: tests/progs/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) -std=gnu11 -O1 -g -Wall -D_GNU_SOURCE -o $@ $< -lpthread

# io_uring through liburing, as programs use it (liburing-dev: a build dependency).
$(BUILD)/tests/progs/uring_shared: tests/progs/uring_shared.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) -std=gnu11 -O1 -g -Wall -D_GNU_SOURCE -o $@ $< -luring -lpthread

# The FUSE filesystem of the fault tests (libfuse3-dev: tools/deps.sh check).
$(BUILD)/tests/progs/faultfs: tests/progs/faultfs.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) -std=gnu11 -O1 -g -Wall -D_GNU_SOURCE $$(pkg-config --cflags fuse3) -o $@ $< \
		$$(pkg-config --libs fuse3)

$(BUILD)/tests/bench/%: tests/bench/%.c $(LIBA)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIBA) $(ALL_LDFLAGS) $(LIBS)

# LD_PRELOAD shims that inject faults (ENOSPC, EIO) into iotape itself.
$(BUILD)/tests/shim/%.so: tests/shim/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) -std=gnu11 -O1 -g -Wall -D_GNU_SOURCE -shared -fPIC -o $@ $< -ldl

tests: $(BIN) $(MPI_BIN) $(FASTLIB) $(UNIT_BIN) $(PROG_BIN) $(SHIM_LIB) $(BENCH_BIN) $(BUILD)/fuzz-replay \
	$(BUILD)/fuzz-replay-plan

# The fuzz corpus is replayed by a plain main in every check.
$(BUILD)/fuzz-replay: tests/fuzz/fuzz_reader.c tests/fuzz/replay_main.c tests/fuzz/record_file.h $(LIBA)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ tests/fuzz/fuzz_reader.c tests/fuzz/replay_main.c \
		$(LIBA) $(ALL_LDFLAGS) $(LIBS)

$(BUILD)/fuzz-replay-plan: tests/fuzz/fuzz_plan.c tests/fuzz/replay_main.c tests/fuzz/record_file.h \
		$(ENGINE_OBJ) $(LIBA)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -Irecord -Ireplay -Ianalyze -o $@ tests/fuzz/fuzz_plan.c \
		tests/fuzz/replay_main.c $(ENGINE_OBJ) $(LIBA) $(ALL_LDFLAGS) $(APP_LIBS)

check: deps
	@tools/deps.sh check
	$(Q)$(MAKE) --no-print-directory WERROR=1 tests
	@BUILD=$(BUILD) tests/run.sh

check-unit: deps
	@tools/deps.sh check
	$(Q)$(MAKE) --no-print-directory WERROR=1 tests
	@BUILD=$(BUILD) tests/run.sh --unit

bench: deps
	@tools/deps.sh bench
	$(Q)$(MAKE) --no-print-directory build-all $(BENCH_BIN) $(BUILD)/tests/progs/call_gaps \
		$(BUILD)/tests/progs/rpl_ops $(BUILD)/tests/progs/pipe_fanout
	@BUILD=$(BUILD) tests/bench/run.sh

stress: deps
	$(Q)$(MAKE) --no-print-directory build-all $(PROG_BIN)
	@BUILD=$(BUILD) tests/stress/run.sh

demo: deps
	@tools/deps.sh demo
	$(Q)$(MAKE) --no-print-directory build-all
	@BUILD=$(BUILD) tools/demo.sh

validate: deps
	@tools/deps.sh validate
	$(Q)$(MAKE) --no-print-directory build-all
	@BUILD=$(BUILD) tools/validate.sh

validate-make: deps
	@tools/deps.sh validate
	$(Q)$(MAKE) --no-print-directory build-all
	@BUILD=$(BUILD) tools/validate_make.sh

validate-suite: deps
	@tools/deps.sh suite
	$(Q)$(MAKE) --no-print-directory build-all $(BUILD)/tests/progs/val_fsync
	@BUILD=$(BUILD) tools/validate_suite.sh

FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
fuzz: deps
	$(Q)$(MAKE) --no-print-directory CC=clang BUILD=build-fuzz HAVE_BPF=0 SANITIZE=address,undefined \
		CFLAGS="-O1 -g -fsanitize=fuzzer-no-link" build-all
	@mkdir -p build-fuzz/fuzz
	$(Q)for f in $(FUZZ_SRC); do n=$$(basename $$f .c); echo "  FUZZ    $$n"; \
		clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Iformat -Ibuild-fuzz/gen \
		-Irecord -Ireplay -Ianalyze $$f $(patsubst $(BUILD)/%,build-fuzz/%,$(ENGINE_OBJ)) \
		build-fuzz/libiotape.a $(LIBS) -o build-fuzz/fuzz/$$n || exit 1; done
	@tests/fuzz/run.sh build-fuzz/fuzz $${FUZZ_SECONDS:-60}

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/iotape $(DESTDIR)$(PREFIX)/lib/iotape
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/iotape
	$(if $(MPI_BIN),install -m 755 $(MPI_BIN) $(DESTDIR)$(PREFIX)/bin/iotape-mpi)
	install -m 755 $(FASTLIB) $(DESTDIR)$(PREFIX)/lib/iotape/libiotape-fast.so
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/libiotape.a
	install -m 755 $(LIBSO) $(DESTDIR)$(PREFIX)/lib/libiotape.so.1
	ln -sf libiotape.so.1 $(DESTDIR)$(PREFIX)/lib/libiotape.so
	install -m 644 format/iotape.h $(DESTDIR)$(PREFIX)/include/iotape.h
	install -m 644 $(PC) $(DESTDIR)$(PREFIX)/lib/pkgconfig/iotape.pc
	install -m 644 man/iotape.1 $(DESTDIR)$(PREFIX)/share/man/man1/iotape.1
	install -m 644 format/trace.proto $(DESTDIR)$(PREFIX)/share/iotape/trace.proto

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/iotape $(DESTDIR)$(PREFIX)/bin/iotape-mpi $(DESTDIR)$(PREFIX)/lib/libiotape.a \
		$(DESTDIR)$(PREFIX)/lib/libiotape.so.1 $(DESTDIR)$(PREFIX)/lib/libiotape.so \
		$(DESTDIR)$(PREFIX)/include/iotape.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/iotape.pc \
		$(DESTDIR)$(PREFIX)/share/man/man1/iotape.1 $(DESTDIR)$(PREFIX)/share/iotape/trace.proto \
		$(DESTDIR)$(PREFIX)/lib/iotape/libiotape-fast.so
	-rmdir $(DESTDIR)$(PREFIX)/share/iotape $(DESTDIR)$(PREFIX)/lib/iotape

clean:
	rm -rf build build-san build-clang build-fuzz demo.html demo-out

-include $(shell find $(BUILD)/obj $(BUILD)/tests -name '*.d' 2>/dev/null)
