# tardy — GNU make build. Objects go to build/, nothing is written into the source tree.
#   make [V=1] [SANITIZER=address|undefined|thread] [MPI=mpich|openmpi]
#   make check | check-mpich | bench | demo | install PREFIX=/usr/local | clean
# Every tool and library below can be overridden on the command line.

MPI        ?= mpich
MPICC      ?= mpicc.$(MPI)
MPICXX     ?= mpicxx.$(MPI)
MPIFC      ?= mpif90.$(MPI)
MPIEXEC    ?= mpiexec.$(MPI)
CC         ?= cc
PYTHON     ?= python3
PKG_CONFIG ?= pkg-config
PREFIX     ?= /usr/local
B          ?= build

# mpicc knows where the MPI headers and libraries are; the rest comes from pkg-config.
MPI_CFLAGS  ?= $(shell $(MPICC) -show 2>/dev/null | tr ' ' '\n' | grep -E '^-I' | tr '\n' ' ')
MPI_LIBS    ?= $(shell $(MPICC) -show 2>/dev/null | tr ' ' '\n' | grep -E '^-(L|l|Wl)' | tr '\n' ' ')
MPI_FLIBS   ?= $(shell $(MPIFC) -show 2>/dev/null | tr ' ' '\n' | grep -E '^-l(mpi|fmpi)' | tr '\n' ' ')
DEPS_PKGS   ?= libunwind libdw jansson libcjson lua5.4
DEPS_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags $(DEPS_PKGS))
DEPS_LIBS   ?= $(shell $(PKG_CONFIG) --libs $(DEPS_PKGS))
# PAPI is loaded with dlopen when counters are asked for (tool/counters/papi_api.c): headers
# only here.
PAPI_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags papi)
PAPI_SONAME ?= libpapi.so.7.0
# C++ names are demangled with libiberty's demangler (libiberty-dev: a static library built
# -fPIC, no pkg-config file), linked into libtardy.so only. -isystem: its headers trip -Wundef.
IBERTY_CFLAGS ?= -isystem /usr/include/libiberty
IBERTY_LIBS   ?= -liberty
# The fitting engine (predict/) solves least squares with LAPACK, loaded with dlopen on the
# first fit (predict/lapack_api.c): any LAPACK library with the reference routines will do.
LAPACK_SONAME ?= liblapack.so.3

WARN    = -Wall -Wextra -Wshadow -Wundef -Wwrite-strings -Wmissing-prototypes -Wstrict-prototypes
OPT    ?= -O2 -g
WERROR ?= -Werror
SAN_FLAGS = $(if $(SANITIZER),-fsanitize=$(SANITIZER) -fno-omit-frame-pointer,)
CFLAGS_ALL = -std=gnu11 -D_GNU_SOURCE $(OPT) $(WARN) $(WERROR) $(SAN_FLAGS) -MMD -MP \
             -Iinclude -I. -I$(B)/gen $(DEPS_CFLAGS) -DLAPACK_SONAME='"$(LAPACK_SONAME)"'
LIB_CFLAGS = $(CFLAGS_ALL) $(MPI_CFLAGS) $(PAPI_CFLAGS) $(IBERTY_CFLAGS) -DPAPI_SONAME='"$(PAPI_SONAME)"' -fPIC -fvisibility=hidden -ftls-model=initial-exec \
             -DTARDY_VERSION='"$(VERSION)"'
VERSION = 0.1.0

ifeq ($(V),1)
Q =
else
Q = @
endif

# ---- sources ---------------------------------------------------------------------------------
SPEC      = mpit/mpi.spec
GENERATOR = mpit/gen_wrappers.py
GEN_SRC   = $(B)/gen/wrappers_c.c $(B)/gen/wrappers_f.c $(B)/gen/wrappers_q.c $(B)/gen/fn_table.c \
            $(B)/gen/ws_patterns.c
GEN_HDR   = $(B)/gen/fn_table.h $(B)/gen/own_calls.h $(B)/gen/ws_patterns.h
# The rooms without MPI (tool/base, tool/profile, predict/, lua/: options, the profile model,
# JSON reader/writer, summary, the prediction engine) are linked by the offline command too.
REPORT_SRC = $(wildcard tool/base/*.c tool/profile/*.c predict/*.c lua/*.c)
LIB_SRC   = $(filter-out $(REPORT_SRC),$(wildcard tool/*/*.c mpit/*/*.c))
CLI_SRC   = $(wildcard cli/*.c)
LUA_SCRIPTS = $(patsubst lua/%,$(B)/share/tardy/lua/%,$(wildcard lua/families/*.lua lua/policies/*.lua \
              lua/lib/*.lua))

# The HTML report's scripts, styles and the charting libraries with their licenses, embedded
# into C strings (tool/profile/html.c writes pages around them). d3 is Debian's node-d3.
D3_JS      ?= /usr/share/nodejs/d3/dist/d3.min.js
HTML_DIR    = tool/profile/html
HTML_ASSETS = page_css=$(HTML_DIR)/page.css common_js=$(HTML_DIR)/common.js \
              names_js=$(HTML_DIR)/names.js run_js=$(HTML_DIR)/run.js \
              store_js=$(HTML_DIR)/store.js diff_js=$(HTML_DIR)/diff.js \
              d3=$(D3_JS) license_d3=$(HTML_DIR)/vendor/LICENSE.d3 \
              d3_sankey=$(HTML_DIR)/vendor/d3-sankey-0.12.3.min.js \
              license_d3_sankey=$(HTML_DIR)/vendor/LICENSE.d3-sankey

LIB_OBJ    = $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC) $(REPORT_SRC)) \
             $(patsubst $(B)/gen/%.c,$(B)/obj/gen/%.o,$(GEN_SRC) $(B)/gen/html_assets.c)
REPORT_OBJ = $(patsubst %.c,$(B)/obj/host/%.o,$(REPORT_SRC)) $(B)/obj/host/gen/html_assets.o
CLI_OBJ    = $(patsubst %.c,$(B)/obj/host/%.o,$(CLI_SRC))

SONAME  = libtardy.so
all: $(B)/lib/$(SONAME) $(B)/lib/libtardy.a $(B)/bin/tardy $(B)/bin/tardy-run $(LUA_SCRIPTS) \
     examples

# Rebuild everything when the flags change.
$(B)/.flags: FORCE
	@mkdir -p $(B)
	@echo '$(LIB_CFLAGS) $(MPI_LIBS) $(DEPS_LIBS) $(MPICC)' | cmp -s - $@ || \
	  echo '$(LIB_CFLAGS) $(MPI_LIBS) $(DEPS_LIBS) $(MPICC)' > $@
FORCE:

$(GEN_SRC) $(GEN_HDR) &: $(SPEC) $(GENERATOR)
	@mkdir -p $(B)/gen
	@echo "  GEN   wrappers from $(SPEC)"
	$(Q)$(PYTHON) $(GENERATOR) $(SPEC) $(B)/gen

$(B)/gen/html_assets.c $(B)/gen/html_assets.h &: $(HTML_DIR)/embed.py $(D3_JS) \
    $(foreach a,$(HTML_ASSETS),$(lastword $(subst =, ,$(a))))
	@mkdir -p $(B)/gen
	@test -r $(D3_JS) || { echo "d3 not found at $(D3_JS): install node-d3 (ci/deps)" >&2; exit 1; }
	@echo "  GEN   HTML report assets"
	$(Q)$(PYTHON) $(HTML_DIR)/embed.py $(B)/gen/html_assets.c $(B)/gen/html_assets.h $(HTML_ASSETS)
$(B)/obj/tool/profile/html.o $(B)/obj/host/tool/profile/html.o: $(B)/gen/html_assets.h

$(B)/obj/host/gen/%.o: $(B)/gen/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	@echo "  CC    $< (host)"
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

$(B)/obj/%.o: %.c $(B)/.flags | $(GEN_HDR)
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(LIB_CFLAGS) -c $< -o $@

$(B)/obj/gen/%.o: $(B)/gen/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(LIB_CFLAGS) -c $< -o $@

$(B)/obj/host/%.o: %.c $(B)/.flags
	@mkdir -p $(dir $@)
	@echo "  CC    $< (host)"
	$(Q)$(CC) $(CFLAGS_ALL) -DTARDY_VERSION='"$(VERSION)"' -c $< -o $@

$(B)/lib/$(SONAME): $(LIB_OBJ) mpit/wrappers/exports.map
	@mkdir -p $(dir $@)
	@echo "  LD    $@"
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=mpit/wrappers/exports.map $(SAN_FLAGS) \
	  -o $@ $(LIB_OBJ) $(MPI_FLIBS) $(MPI_LIBS) $(DEPS_LIBS) $(IBERTY_LIBS) -lpthread -ldl -lm

$(B)/lib/libtardy.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@echo "  AR    $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/bin/tardy: $(CLI_OBJ) $(REPORT_OBJ)
	@mkdir -p $(dir $@)
	@echo "  LD    $@"
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(DEPS_LIBS) -ldl -lm

# Shipped Lua scripts sit where the library and the command look: <prefix>/share/tardy/lua.
$(B)/share/tardy/lua/%.lua: lua/%.lua
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

$(B)/bin/tardy-run: scripts/tardy-run
	@mkdir -p $(dir $@)
	$(Q)cp $< $@ && chmod +x $@

# ---- bundled example programs -------------------------------------------------------------
EXAMPLES = $(patsubst examples/%.c,$(B)/examples/%,$(wildcard examples/*.c))
examples: $(EXAMPLES)
$(B)/examples/%: examples/%.c
	@mkdir -p $(dir $@)
	@echo "  MPICC $<"
	$(Q)$(MPICC) -std=gnu11 -O2 -g $(WARN) $(WERROR) -o $@ $< -lm

# ---- tests, benchmark, demo ------------------------------------------------------------------
export B MPICC MPICXX MPIFC MPIEXEC PYTHON CC
check: all
	$(Q)$(MAKE) --no-print-directory -f tests/tests.mk check
# the tests' programs only, for running some tests: python3 tests/run.py PREFIX...
test-programs: all
	$(Q)$(MAKE) --no-print-directory -f tests/tests.mk programs
qmpi-check: all
	$(Q)$(MAKE) --no-print-directory -f tests/tests.mk qmpi-check
# MPICH's own tests three ways (tests/mpich/suite.py), built once into a cache (ci/mpich-tests).
check-mpich: all
	$(Q)tree=$$(ci/mpich-tests | tail -1) && $(PYTHON) tests/mpich/suite.py "$$tree"
# libFuzzer over the readers of user files (tests/tests.mk says how; needs clang)
fuzz: all
	$(Q)$(MAKE) --no-print-directory -f tests/tests.mk fuzz
bench: all
	$(Q)$(MAKE) --no-print-directory -f bench/bench.mk bench
bench-predict: all
	$(Q)$(MAKE) --no-print-directory -f bench/bench.mk bench-predict
demo: all
	$(Q)scripts/demo

# ---- install ----------------------------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/tardy
	install -m 755 $(B)/lib/$(SONAME) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(B)/lib/libtardy.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(B)/bin/tardy $(B)/bin/tardy-run $(DESTDIR)$(PREFIX)/bin/
	install -m 644 include/tardy.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 docs/profile-schema.md docs/design.md $(DESTDIR)$(PREFIX)/share/tardy/
	install -d $(DESTDIR)$(PREFIX)/share/tardy/lua/families $(DESTDIR)$(PREFIX)/share/tardy/lua/policies \
	  $(DESTDIR)$(PREFIX)/share/tardy/lua/lib
	install -m 644 lua/families/*.lua $(DESTDIR)$(PREFIX)/share/tardy/lua/families/
	install -m 644 $(wildcard lua/policies/*.lua) $(DESTDIR)$(PREFIX)/share/tardy/lua/policies/
	install -m 644 lua/lib/*.lua $(DESTDIR)$(PREFIX)/share/tardy/lua/lib/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' scripts/tardy.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tardy.pc

clean:
	rm -rf $(B)

.PHONY: all examples check check-mpich test-programs qmpi-check fuzz bench bench-predict demo install clean FORCE
-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
