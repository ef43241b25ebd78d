/* Histogram bins and merging; the per-thread tables: growth, lookup, overflow row. */
#include "check.h"
#include "tool/base/base.h"

int main(void)
{
    CHECK(hist_bin(0) == 0);
    CHECK(hist_bin(0.5e-9) == 0);
    CHECK(hist_bin(1e-9) == 1);          /* [1, 2) ns */
    CHECK(hist_bin(3e-9) == 2);          /* [2, 4) ns */
    CHECK(hist_bin(1e-6) == 10);         /* 1000 ns in [512, 1024) */
    CHECK(hist_bin(1e9) == HIST_BINS - 1);
    CHECK(hist_bin_low(10) <= 1e-6 && 1e-6 < hist_bin_high(10));
    struct hist a = {0}, b = {0};
    hist_add(&a, 1e-6);
    hist_add(&b, 1e-6);
    hist_add(&b, 2e-3);
    hist_merge(&a, &b);
    CHECK(a.count[10] == 2 && a.count[hist_bin(2e-3)] == 1);
    CHECK_NEAR(a.sum[10], 2e-6, 1e-12);

    struct table t;
    tab_init(&t, sizeof(struct mpi_row), mpi_row_init);
    for (uint64_t k = 0; k < 5000; k++) {
        struct mpi_row *r = tab_get(&t, k, 7);
        r->count += k;
    }
    CHECK(t.n == 5000);
    CHECK(((struct mpi_row *)tab_get(&t, 4321, 7))->count == 4321);
    CHECK(t.n == 5000);
    /* Past TAB_MAX_ROWS every new key shares the overflow row: memory stays bounded. */
    for (uint64_t k = 5000; k < TAB_MAX_ROWS + 100; k++)
        ((struct mpi_row *)tab_get(&t, k, 7))->count++;
    CHECK(t.n == TAB_MAX_ROWS);
    struct mpi_row *o = tab_get(&t, TAB_OVERFLOW_KEY, TAB_OVERFLOW_KEY);
    CHECK(o->count == 101);
    tab_free(&t);
    CHECK_DONE();
}
