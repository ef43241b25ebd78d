/* The wait states' arithmetic without MPI: the ledger (ws_led_add), the root-cause shares of
 * H-CWP-DM (ws_shares), the clock model's fit (clock_fit_add). Values worked out by hand. */
#include "check.h"
#include "tool/waits/ws_data.h"

/* A late record with enter time e and the regions (key, seconds) given. */
static struct ws_msg late(int n, const uint64_t *keys, const double *t)
{
    struct ws_msg m = {.e = 1, .rank = 1, .nreg = n};
    for (int i = 0; i < n; i++) {
        m.reg[i] = (struct ws_reg){keys[i], t[i]};
        m.total += t[i];
    }
    return m;
}

static double share_of(const struct ws_share *sh, int n, uint64_t key)
{
    for (int i = 0; i < n; i++)
        if (sh[i].key == key)
            return sh[i].cost;
    return -1;
}

static int find(const struct ws_reg *led, int n, uint64_t key)
{
    for (int i = 0; i < n; i++)
        if (led[i].key == key)
            return 1;
    return 0;
}

static void ledger(void)
{
    struct ws_reg led[WS_K];
    int n = 0;
    double total = 0;
    ws_led_add(led, &n, &total, 10, 1.0);
    ws_led_add(led, &n, &total, 10, 0.5); /* the same region accumulates */
    CHECK(n == 1 && led[0].key == 10);
    CHECK_NEAR(led[0].t, 1.5, 1e-15);
    for (uint64_t k = 1; k < WS_K; k++)
        ws_led_add(led, &n, &total, 100 + k, 2.0 + (double)k);
    CHECK(n == WS_K);
    /* full: a larger region replaces the smallest (key 10, 1.5 s); a smaller one is dropped
     * from the regions but not from the total */
    ws_led_add(led, &n, &total, 999, 0.1);
    CHECK(n == WS_K);
    CHECK(find(led, n, 10) && !find(led, n, 999));
    ws_led_add(led, &n, &total, 500, 50.0);
    CHECK(find(led, n, 500) && !find(led, n, 10));
    /* total: 1.5 + (3 + 4 + ... + 9) + 0.1 + 50 */
    CHECK_NEAR(total, 1.5 + 42.0 + 0.1 + 50.0, 1e-12);
}

static void shares(void)
{
    struct ws_share sh[WS_K];
    /* late rank: A 3 s, B 1 s; this rank: A 1 s. Excess: A 2, B 1 -> a 0.9 s wait splits
     * 0.6 / 0.3 */
    uint64_t keys[] = {0xA, 0xB};
    double t[] = {3.0, 1.0};
    struct ws_msg m = late(2, keys, t);
    struct ws_reg mine[] = {{0xA, 1.0}};
    int n = ws_shares(mine, 1, 0.9, &m, sh);
    CHECK(n == 2);
    CHECK_NEAR(share_of(sh, n, 0xA), 0.6, 1e-12);
    CHECK_NEAR(share_of(sh, n, 0xB), 0.3, 1e-12);

    /* this rank spent longer in every region: no excess explains the wait (key 0) */
    struct ws_reg more[] = {{0xA, 5.0}, {0xB, 5.0}};
    n = ws_shares(more, 2, 0.4, &m, sh);
    CHECK(n == 1 && sh[0].key == 0);
    CHECK_NEAR(sh[0].cost, 0.4, 1e-15);

    /* a region under the hotspot share (1% of the late rank's total) is no cause */
    uint64_t k3[] = {0xA, 0xB, 0xC};
    double t3[] = {99.0, 0.5, 0.5};
    struct ws_msg m3 = late(3, k3, t3);
    ws_hotspot_permille = 10;
    n = ws_shares(NULL, 0, 1.0, &m3, sh);
    CHECK(n == 1 && sh[0].key == 0xA);
    CHECK_NEAR(sh[0].cost, 1.0, 1e-15);
    ws_hotspot_permille = 1; /* 0.1%: now B and C count, by their excess */
    n = ws_shares(NULL, 0, 1.0, &m3, sh);
    CHECK(n == 3);
    CHECK_NEAR(share_of(sh, n, 0xA), 0.99, 1e-12);
    CHECK_NEAR(share_of(sh, n, 0xC), 0.005, 1e-12);
    ws_hotspot_permille = 10;
}

static void clock_fit(void)
{
    /* the first measurement is the model itself, without drift */
    struct clock_fit f = {0};
    struct clock_model m = clock_fit_add(&f, 1e-3, 10.0, 1e-5);
    CHECK(m.off == 1e-3 && m.rate == 0 && m.t_sync == 10.0);
    CHECK_NEAR(clock_model_at(&m, 12.0), 12.0 + 1e-3, 1e-15);

    /* offsets on a line (drift 20 us/s), equal round trips: the fit finds the line */
    for (int i = 1; i <= 5; i++)
        m = clock_fit_add(&f, 1e-3 + 2e-5 * 10.0 * i, 10.0 + 10.0 * i, 1e-5);
    CHECK_NEAR(m.rate, 2e-5, 1e-9);
    CHECK_NEAR(m.off, 1e-3 + 2e-5 * 50.0, 1e-9);
    /* the correction at a later time follows the drift */
    CHECK_NEAR(clock_model_at(&m, 70.0) - 70.0, 1e-3 + 2e-5 * 60.0, 1e-9);

    /* an offset 1 s off the line with a 1000x longer round trip weighs 1e-6 as much: the
     * drift moves by under 1%; with the same round trip as the others, by 50 times itself */
    struct clock_fit f2 = f;
    struct clock_model m2 = clock_fit_add(&f, 1.0, 70.0, 1e-2);
    CHECK_NEAR(m2.rate, 2e-5, 1e-2);
    CHECK(fabs(clock_fit_add(&f2, 1.0, 70.0, 1e-5).rate - 2e-5) > 1e-3);

    /* a drift beyond CLOCK_RATE_MAX is measurement error: the measurement, no drift */
    struct clock_fit g = {0};
    clock_fit_add(&g, 0.0, 0.0, 1e-5);
    struct clock_model bad = clock_fit_add(&g, 1.0, 1.0, 1e-5);
    CHECK(bad.rate == 0 && bad.off == 1.0 && bad.t_sync == 1.0);
}

int main(void)
{
    ledger();
    shares();
    clock_fit();
    CHECK_DONE();
}
