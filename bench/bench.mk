# make bench: builds the micro-benchmarks and runs bench/run.py (figures, not a test).
B ?= build
$(B)/bench/micro: bench/micro.c
	@mkdir -p $(dir $@)
	@$(MPICC) -std=gnu11 -O2 -g -o $@ $< -lsde

bench: $(B)/bench/micro
	@$(PYTHON) bench/run.py

.PHONY: bench
