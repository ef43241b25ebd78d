# Tests: `make check` (from the top Makefile, after `all`). Unit tests are C programs without
# MPI; MPI tests are small programs run under mpiexec (and as singletons) whose JSON profiles
# tests/run.py checks. Every binary goes to $(B)/tests.
B       ?= build
CC      ?= cc
MPICC   ?= mpicc.mpich
PYTHON  ?= python3
DEPS    = $(shell pkg-config --cflags --libs jansson libcjson lua5.4) -ldl -lm
TFLAGS  = -std=gnu11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror -Iinclude -I. -I$(B)/gen
HOST_OBJ = $(filter-out $(B)/obj/host/cli/%,$(shell find $(B)/obj/host -name '*.o'))

UNIT_BIN = $(patsubst tests/unit/%.c,$(B)/tests/unit/%,$(wildcard tests/unit/test_*.c))
# Each Fortran program X.F90 is built twice: X with `use mpi`, X_f08 with `use mpi_f08` (-DF08).
F_SRC    = $(wildcard tests/mpi/*.F90)
F_BIN    = $(patsubst tests/mpi/%.F90,$(B)/tests/mpi/%,$(F_SRC)) \
           $(patsubst tests/mpi/%.F90,$(B)/tests/mpi/%_f08,$(F_SRC))
MPI_BIN  = $(patsubst tests/mpi/%.c,$(B)/tests/mpi/%,$(wildcard tests/mpi/*.c)) \
           $(patsubst tests/mpi/%.cc,$(B)/tests/mpi/%,$(wildcard tests/mpi/*.cc)) \
           $(F_BIN)

programs: $(UNIT_BIN) $(MPI_BIN) $(B)/tests/mpi/p2p_linked $(B)/tests/mpit/libfake_events.so \
          $(B)/tests/shim/libcount_calls.so $(B)/tests/shim/libcollectives_in_flight.so

check: programs
	@$(PYTHON) tests/run.py

# Against an MPICH built with QMPI (ci/qmpi): the C programs, tardy attached as a QMPI tool,
# and a second QMPI tool to stack with it.
QMPI_TESTS = mpi/p2p_counts counters/ mpit/ qmpi/ mpi/MPI_THREAD_MULTIPLE mpi/exit mpi/output \
             waits/accuracy waits/balanced waits/semantics hook/ waits/batched \
             waits/piggybacks waits/1000 waits/one-sided "partial/abort -n 2" \
             "partial/crash -n 2" "partial/SIGTERM to mpiexec -n 2" "partial/SIGKILL, snapshots -n 2" \
             "mpi/sessions model"
qmpi-check: $(filter-out %/cxx $(F_BIN),$(MPI_BIN)) \
            $(B)/tests/mpi/p2p_linked \
            $(B)/tests/qmpi/libqtool.so $(B)/tests/mpit/libfake_events.so
	@TARDY_TEST_QMPI=1 $(PYTHON) tests/run.py $(QMPI_TESTS)

# MPI_T events for the tests (no library here has any), preloaded in front of tardy.
$(B)/tests/mpit/libfake_events.so: tests/mpit/fake_events.c
	@mkdir -p $(dir $@)
	@$(MPICC) -std=gnu11 -g -O2 -Wall -Wextra -Werror -shared -fPIC -o $@ $< -ldl

# Counts the blocking collectives and point-to-point sends that reach PMPI, preloaded in
# front of tardy.
$(B)/tests/shim/libcount_calls.so: tests/shim/count_calls.c
	@mkdir -p $(dir $@)
	@$(MPICC) -std=gnu11 -g -O2 -Wall -Wextra -Werror -shared -fPIC -o $@ $< -ldl

# Counts the nonblocking collectives that overlap an MPI_Comm_idup on one communicator,
# preloaded in front of tardy.
$(B)/tests/shim/libcollectives_in_flight.so: tests/shim/collectives_in_flight.c
	@mkdir -p $(dir $@)
	@$(MPICC) -std=gnu11 -g -O2 -Wall -Wextra -Werror -shared -fPIC -o $@ $< -ldl

$(B)/tests/qmpi/libqtool.so: tests/qmpi/qtool.c
	@mkdir -p $(dir $@)
	@$(MPICC) -std=gnu11 -g -O2 -Wall -Werror -shared -fPIC -o $@ $<

# make fuzz (needs clang's libFuzzer): the readers of the files a user hands tardy (Extra-P
# inputs, a stored profile, a profile's head; tests/fuzz/fuzz_inputs.c) with AddressSanitizer
# and UBSan for FUZZ_TIME seconds, from the prediction corpus, Extra-P's JSON inputs in
# tests/fuzz/seeds and the profiles in FUZZ_SEEDS;
# an input that crashes is left in $(B)/fuzz/ as crash-*.
FUZZ_CC    ?= clang
FUZZ_TIME  ?= 300
FUZZ_SEEDS ?= tests/unit/profile-v1.json
FUZZ_SRC    = $(wildcard tool/base/*.c tool/profile/*.c predict/*.c lua/*.c) $(B)/gen/html_assets.c
FUZZ_PKGS   = jansson libcjson lua5.4 libdw libunwind
fuzz: $(B)/fuzz/fuzz_inputs
	@rm -rf $(B)/fuzz/seeds && mkdir -p $(B)/fuzz/seeds $(B)/fuzz/corpus
	@for f in bench/predict/*.txt tests/fuzz/seeds/extrap-*; do \
	  { printf '\000'; cat $$f; } > $(B)/fuzz/seeds/extrap-$$(basename $$f); done
	@for f in $(FUZZ_SEEDS); do \
	  { printf '\001'; cat $$f; } > $(B)/fuzz/seeds/profile-$$(basename $$f); \
	  { printf '\002'; cat $$f; } > $(B)/fuzz/seeds/head-$$(basename $$f); done
	cd $(B)/fuzz && ./fuzz_inputs -max_len=65536 -timeout=10 -max_total_time=$(FUZZ_TIME) \
	  -print_final_stats=1 corpus seeds

$(B)/fuzz/fuzz_inputs: tests/fuzz/fuzz_inputs.c $(FUZZ_SRC)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=undefined -Iinclude -I. -I$(B)/gen \
	  $(shell pkg-config --cflags $(FUZZ_PKGS)) -DTARDY_VERSION='"fuzz"' -o $@ $^ \
	  $(shell pkg-config --libs jansson libcjson lua5.4) -ldl -lm

# The unit tests alone (the sanitizer build runs these).
unit-only: $(UNIT_BIN)
	@$(PYTHON) tests/run.py unit/

$(B)/tests/unit/%: tests/unit/%.c tests/unit/check.h $(HOST_OBJ)
	@mkdir -p $(dir $@)
	@$(CC) $(TFLAGS) -o $@ $< $(HOST_OBJ) $(DEPS)

# The command's allocator for jansson and cJSON (cli/json_chunks.c), beside the rooms it serves.
$(B)/tests/unit/test_json_chunks: tests/unit/test_json_chunks.c tests/unit/check.h \
                                  cli/json_chunks.c $(HOST_OBJ)
	@mkdir -p $(dir $@)
	@$(CC) $(TFLAGS) -o $@ $< cli/json_chunks.c $(HOST_OBJ) $(DEPS)

# The wait states' arithmetic (tool/waits: the files without MPI calls; their header needs
# mpi.h for the types, nothing links the library).
MPI_INC    = $(filter -I%,$(shell $(MPICC) -show 2>/dev/null))
WAITS_PURE = tool/waits/causes.c tool/waits/sections.c tool/waits/chain.c tool/waits/clock_model.c \
             tool/waits/ledger_words.c
$(B)/tests/unit/test_waits: tests/unit/test_waits.c tests/unit/check.h $(WAITS_PURE) \
                            tool/waits/ws_data.h tool/waits/ws_exchange.h
	@mkdir -p $(dir $@)
	@$(CC) $(TFLAGS) $(MPI_INC) -o $@ $< $(WAITS_PURE) -lm

# MPI test programs: -O0 so that marked source lines are the call sites.
$(B)/tests/mpi/%: tests/mpi/%.c tests/mpi/busy.h tests/mpi/truth.h
	@mkdir -p $(dir $@)
	@$(MPICC) -std=gnu11 -g -O0 -Wall -Werror -pthread -o $@ $< -lm

# Software-defined counters need libsde (PAPI's SDE component finds it in the process).
$(B)/tests/mpi/sde_counters: tests/mpi/sde_counters.c
	@mkdir -p $(dir $@)
	@$(MPICC) -std=gnu11 -g -O0 -Wall -Werror -o $@ $< -lsde

# The same program with the library linked in instead of preloaded.
$(B)/tests/mpi/p2p_linked: tests/mpi/p2p_counts.c $(B)/lib/libtardy.so
	@mkdir -p $(dir $@)
	@$(MPICC) -std=gnu11 -g -O0 -o $@ $< -L$(B)/lib -Wl,-rpath,$(abspath $(B)/lib) \
	  -Wl,--no-as-needed -ltardy

$(B)/tests/mpi/%: tests/mpi/%.cc
	@mkdir -p $(dir $@)
	@$(MPICXX) -g -O0 -Wall -Werror -o $@ $<

# Debian's mpif90.openmpi finds libmpi.so through the MPI alternatives (which ci/deps keeps
# on MPICH): the C compiler's library directory goes first.
MPI_LDIRS = $(filter -L%,$(shell $(MPICC) -show 2>/dev/null))
# Fortran has no preprocessor test of the MPI version: the C header's tells whether the
# programs may call MPI 4 (sessions).
MPI_VERSION := $(shell echo MPI_VERSION | $(MPICC) -E -P -include mpi.h - 2>/dev/null | tail -1)
F_DEFS = $(if $(filter-out 1 2 3,$(MPI_VERSION)),-DMPI4)
$(B)/tests/mpi/%: tests/mpi/%.F90
	@mkdir -p $(dir $@)/fmod
	@$(MPIFC) -g -O0 $(F_DEFS) -J$(dir $@)/fmod -o $@ $< $(MPI_LDIRS)

$(B)/tests/mpi/%_f08: tests/mpi/%.F90
	@mkdir -p $(dir $@)/fmod
	@$(MPIFC) -g -O0 -DF08 $(F_DEFS) -J$(dir $@)/fmod -o $@ $< $(MPI_LDIRS)

.PHONY: check programs unit-only qmpi-check fuzz
