# make bench: builds the micro-benchmarks and runs bench/run.py (figures, not a test).
B ?= build
$(B)/bench/micro: bench/micro.c
	@mkdir -p $(dir $@)
	@$(MPICC) -std=gnu11 -O2 -g -o $@ $< -lsde

bench: $(B)/bench/micro
	@$(PYTHON) bench/run.py

.PHONY: bench

# make bench-predict: prediction accuracy and interval coverage over the corpus in
# bench/predict/, beside Extra-P 4.2.5 where ../shared/vendor/extrap is (issue 13), then each
# interior value of every set predicted from the others, then the interval's coverage over many
# draws of the noise, then 8 fresh studies of jacobi at nine
# sizes (a real split is one draw of the machine's noise) and 6 fresh draws of each kernel
# grid, then the time per rank (sums of models) in 2 fresh studies of each real case.
bench-predict:
	@$(PYTHON) bench/predict_bench.py
	@$(PYTHON) bench/predict_interior.py
	@$(PYTHON) bench/predict_draws.py
	@$(PYTHON) bench/predict_studies.py
	@$(PYTHON) bench/predict_studies.py 6 kernels_pn
	@$(PYTHON) bench/predict_studies.py 6 kernels_grid4
	@$(PYTHON) bench/predict_sums.py 2

.PHONY: bench-predict
