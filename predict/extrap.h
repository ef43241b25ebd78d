/* Extra-P's text input format (PARAMETER / POINTS / REGION / METRIC / DATA), so the store's
 * data can be modelled by Extra-P and Extra-P's inputs by tardy. */
#ifndef TARDY_EXTRAP_H
#define TARDY_EXTRAP_H

#include <stdio.h>

#include "profile.h"

/* Write the metrics of runs (one program) to out: parameters p and every user parameter
 * all runs have; one point per distinct parameter tuple (runs at the same point are
 * repetitions); regions are call sites ("MPI_Send@main x.c:88;..."), intervals ("SITE => SITE"),
 * per-rank metrics ("ranks/compute"), MPI_T performance variables ("pvar/NAME => CLASS") and
 * events ("event/EVENT => SITE"); metrics time_mean, time_max, count_mean, sent_mean,
 * recv_mean, memory_live_max, memory_live_mean (means over ranks of per-rank totals, or their
 * maximum; intervals the first three; per-rank metrics mean and max; pvars and events
 * STAT_mean and STAT_max of every statistic they have), and counter_mean/EVENT,
 * counter_max/EVENT for the counters (TARDY_PAPI) of any row. A row some runs lack has first
 * the metric present (1 in the runs with the row, 0 in the others, whose other metrics are 0).
 * Returns the number of regions written. */
int extrap_write(const struct profile *runs, int nruns, FILE *out);

/* Read an Extra-P text file as runs: one run per point (p taken from a parameter named p,
 * else 1; the other parameters become run parameters); the value of a region/metric pair is
 * the mean of its repetitions. Regions and metrics written by extrap_write go back to their
 * rows, and a run gets no row where present is 0 at its point (so predictions from an export
 * equal those from the store); any other pair becomes the per-rank metric "region/metric".
 * Returns the number of runs (array in *runs, free with store_free), or -1 with
 * "file:line: problem" in err. */
int extrap_read(const char *path, struct profile **runs, char *err, size_t errlen);

#endif
