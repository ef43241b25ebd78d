/* The wait states' arithmetic without MPI: the ledger (ws_led_add) and its sections
 * (ws_led_sync, ws_led_since), the root-cause shares of H-CWP-DM (ws_shares), the clock
 * model's fit (clock_fit_add), the ledger as words (ws_led_words). Values worked out by hand,
 * the words against the ledger they came from. */
#include <stdlib.h>

#include "check.h"
#include "tool/waits/ws_exchange.h"

/* A ledger of one section with the regions (key, seconds) given. */
static struct ws_led regions(int n, const uint64_t *keys, const double *t)
{
    struct ws_led l;
    ws_led_reset(&l);
    for (int i = 0; i < n; i++)
        ws_led_add(&l, keys[i], t[i]);
    return l;
}

/* A late record of rank 1 with those regions. */
static struct ws_msg late(int n, const uint64_t *keys, const double *t)
{
    return (struct ws_msg){.e = 1, .rank = 1, .led = regions(n, keys, t)};
}

static double share_of(const struct ws_share *sh, int n, uint64_t key)
{
    for (int i = 0; i < n; i++)
        if (sh[i].key == key)
            return sh[i].cost;
    return -1;
}

static int find(const struct ws_led *l, uint64_t key)
{
    for (int i = 0; i < l->nreg; i++)
        if (l->reg[i].key == key)
            return 1;
    return 0;
}

/* The time of key in l since its last synchronisation with peer (-1 when not there). */
static double since(const struct ws_led *l, int peer, uint64_t key, double *total)
{
    struct ws_reg r[WS_K];
    int n = ws_led_since(l, peer, r, total, NULL);
    for (int i = 0; i < n; i++)
        if (r[i].key == key)
            return r[i].t;
    return -1;
}

static void ledger(void)
{
    struct ws_led l;
    ws_led_reset(&l);
    ws_led_add(&l, 10, 1.0);
    ws_led_add(&l, 10, 0.5); /* the same region accumulates */
    CHECK(l.nreg == 1 && l.reg[0].key == 10);
    CHECK_NEAR(l.reg[0].t, 1.5, 1e-15);
    for (uint64_t k = 1; k < WS_K; k++)
        ws_led_add(&l, 100 + k, 2.0 + (double)k);
    CHECK(l.nreg == WS_K);
    /* full: a larger region replaces the smallest (key 10, 1.5 s); a smaller one is dropped
     * from the regions but not from the total */
    ws_led_add(&l, 999, 0.1);
    CHECK(l.nreg == WS_K);
    CHECK(find(&l, 10) && !find(&l, 999));
    ws_led_add(&l, 500, 50.0);
    CHECK(find(&l, 500) && !find(&l, 10));
    /* total: 1.5 + (3 + 4 + ... + 9) + 0.1 + 50 */
    double total;
    since(&l, -1, 500, &total);
    CHECK_NEAR(total, 1.5 + 42.0 + 0.1 + 50.0, 1e-12);
}

static void sections(void)
{
    /* A 4 s, message to rank 0, B 1 s: rank 0 sees B only, rank 2 both (it last synchronised
     * at the collective that began the ledger) */
    struct ws_led l;
    double total;
    ws_led_reset(&l);
    ws_led_add(&l, 0xA, 4.0);
    ws_led_sync(&l, ws_rank_bit(0), 1);
    ws_led_add(&l, 0xB, 1.0);
    CHECK(since(&l, 0, 0xA, &total) < 0 && since(&l, 0, 0xB, &total) == 1.0);
    CHECK_NEAR(total, 1.0, 1e-15);
    CHECK(since(&l, 2, 0xA, &total) == 4.0 && since(&l, 2, 0xB, &total) == 1.0);
    CHECK_NEAR(total, 5.0, 1e-15);
    /* that cut was a send to rank 0 (its regions may be chained), no cut for rank 2 */
    struct ws_reg r[WS_K];
    int sent;
    ws_led_since(&l, 0, r, &total, &sent);
    CHECK(sent == 1);
    ws_led_since(&l, 2, r, &total, &sent);
    CHECK(sent == 0);
    /* the same region in two sections counts once with its whole time */
    ws_led_add(&l, 0xA, 0.5);
    CHECK(since(&l, 2, 0xA, &total) == 4.5 && since(&l, 0, 0xA, &total) == 0.5);
    /* messages to ranks 3 and 4 with nothing between: one cut, both ranks begin there */
    ws_led_sync(&l, ws_rank_bit(3), 1);
    ws_led_sync(&l, ws_rank_bit(4), 1);
    CHECK(l.nsec == 3);
    ws_led_add(&l, 0xC, 2.0);
    CHECK(since(&l, 3, 0xB, &total) < 0 && since(&l, 4, 0xC, &total) == 2.0);
    /* full (4 sections after the cut for rank 5): the cut for rank 6 merges away the cut
     * whose preceding section is the smallest, that of ranks 3 and 4 (rank 0's section,
     * 1.5 s, against the collective's 4 s and ranks 3 and 4's 2 s): ranks 3 and 4 now begin
     * at rank 0's cut and take its 1.5 s in addition */
    ws_led_sync(&l, ws_rank_bit(5), 1);
    ws_led_add(&l, 0xD, 1.0);
    CHECK(l.nsec == WS_SECS);
    ws_led_sync(&l, ws_rank_bit(6), 1);
    CHECK(l.nsec == WS_SECS);
    CHECK(since(&l, 6, 0xD, &total) < 0 && total == 0);
    CHECK(since(&l, 5, 0xD, &total) == 1.0 && since(&l, 5, 0xC, &total) < 0);
    CHECK(since(&l, 3, 0xB, &total) == 1.0 && since(&l, 3, 0xC, &total) == 2.0);
    CHECK(since(&l, 0, 0xB, &total) == 1.0 && since(&l, 0, 0xA, &total) == 0.5);
    CHECK(since(&l, 2, 0xA, &total) == 4.5);
    CHECK_NEAR(total, 8.5, 1e-15);
    /* a ledger never holds more sections than WS_SECS, whatever the number of cuts */
    for (int r = 0; r < 1000; r++) {
        ws_led_add(&l, 0xE, 0.001);
        ws_led_sync(&l, ws_rank_bit(r), 1);
    }
    CHECK(l.nsec == WS_SECS && since(&l, 999, 0xE, &total) < 0);
}

/* A loop sending to one rank each period of A 18 ms, an MPI call of 10 us and B 2 ms (each a
 * little longer or shorter, as measured; the first A begins at another call): every section
 * repeats the keys, and the older copies must not crowd the newest section's B out of the
 * regions the next message carries (it was dropped, no larger than the old Bs, in a third of
 * the periods). */
static void repeating_sections(void)
{
    struct ws_led l;
    double total, sum_a = 0, sum_b = 0;
    ws_led_reset(&l);
    ws_led_add(&l, 0xF, 0.1); /* before the first send */
    ws_led_sync(&l, ws_rank_bit(1), 1);
    for (int period = 0; period < 20; period++) {
        double jitter = 1 + 0.01 * ((period * 7) % 11 - 5), a = 0.018 * jitter, b = 0.002 / jitter;
        ws_led_add(&l, period ? 0xA : 0xA0, a);
        ws_led_add(&l, 0x1 | WS_KEY_MPI, 1e-5);
        ws_led_add(&l, 0xB, b);
        sum_a += a;
        sum_b += b;
        CHECK(since(&l, 1, period ? 0xA : 0xA0, &total) == a && since(&l, 1, 0xB, &total) == b);
        CHECK_NEAR(total, a + b + 1e-5, 1e-15);
        ws_led_sync(&l, ws_rank_bit(1), 1);
    }
    /* a rank with no message since the collective still takes every region's whole time */
    CHECK_NEAR(since(&l, 2, 0xA, &total) + since(&l, 2, 0xA0, &total), sum_a, 1e-12);
    CHECK_NEAR(since(&l, 2, 0xB, &total), sum_b, 1e-12);
    CHECK_NEAR(since(&l, 2, 0xF, &total), 0.1, 1e-15);
    CHECK(l.nsec <= WS_SECS && l.nreg <= WS_K);
}

static void chains(void)
{
    /* rank 1 sent A, then B after a send (chained), then C after a receive from this rank
     * (not chained): in one call, B takes in A, C stands alone; another sender's message
     * does not mix */
    struct ws_chain c[WS_CHAINS];
    int n = 0;
    uint64_t keys[] = {0xA, 0xB, 0xC, 0xD};
    struct ws_msg a = late(1, keys, (double[]){1.0});
    struct ws_msg b = late(1, keys + 1, (double[]){2.0});
    struct ws_msg cc = late(1, keys + 2, (double[]){3.0});
    struct ws_msg d = late(1, keys + 3, (double[]){4.0});
    d.rank = 2;
    ws_chain_add(c, &n, &a, 0);
    ws_chain_add(c, &n, &d, 1);
    ws_chain_add(c, &n, &b, 1);
    double total;
    CHECK(n == 2 && since(&b.led, -1, 0xA, &total) == 1.0 && since(&b.led, -1, 0xD, &total) < 0);
    CHECK_NEAR(total, 3.0, 1e-15);
    ws_chain_add(c, &n, &cc, 0);
    CHECK(since(&cc.led, -1, 0xA, &total) < 0 && total == 3.0);
    /* more senders than WS_CHAINS: a new one takes a slot, never more */
    for (int r = 10; r < 20; r++) {
        d.rank = r;
        ws_chain_add(c, &n, &d, 1);
    }
    CHECK(n == WS_CHAINS);
}

static void shares(void)
{
    struct ws_share sh[WS_K];
    /* late rank: A 3 s, B 1 s; this rank: A 1 s. Excess: A 2, B 1 -> a 0.9 s wait splits
     * 0.6 / 0.3 */
    uint64_t keys[] = {0xA, 0xB};
    double t[] = {3.0, 1.0};
    struct ws_msg m = late(2, keys, t);
    struct ws_led mine = regions(1, keys, (double[]){1.0});
    int n = ws_shares(&mine, 0, 0.9, &m, sh);
    CHECK(n == 2);
    CHECK_NEAR(share_of(sh, n, 0xA), 0.6, 1e-12);
    CHECK_NEAR(share_of(sh, n, 0xB), 0.3, 1e-12);

    /* this rank spent longer in every region: no excess explains the wait (key 0) */
    struct ws_led more = regions(2, keys, (double[]){5.0, 5.0});
    n = ws_shares(&more, 0, 0.4, &m, sh);
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

    /* each side since the pair's last synchronisation: the late rank 1 ran A, sent to rank 0,
     * ran B; rank 0 ran B too before it received from rank 1 (its own B is older than the
     * message: no part of the interval), so B explains the whole wait; rank 2, with no
     * message since the collective, shares it out over A and B */
    struct ws_msg q = late(1, keys, t);
    ws_led_sync(&q.led, ws_rank_bit(0), 1);
    ws_led_add(&q.led, 0xB, 1.0);
    struct ws_led p0 = regions(1, keys + 1, (double[]){1.0});
    ws_led_sync(&p0, ws_rank_bit(1), 0);
    n = ws_shares(&p0, 0, 0.5, &q, sh);
    CHECK(n == 1 && sh[0].key == 0xB);
    CHECK_NEAR(sh[0].cost, 0.5, 1e-15);
    n = ws_shares(NULL, 2, 0.8, &q, sh);
    CHECK(n == 2);
    CHECK_NEAR(share_of(sh, n, 0xA), 0.6, 1e-12);
    CHECK_NEAR(share_of(sh, n, 0xB), 0.2, 1e-12);
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

/* ws_led_since of a and b for every peer, bit for bit. */
static int same_since(const struct ws_led *a, const struct ws_led *b)
{
    for (int peer = -1; peer < 130; peer++) {
        struct ws_reg ra[WS_K], rb[WS_K];
        double ta, tb;
        int na = ws_led_since(a, peer, ra, &ta, NULL), nb = ws_led_since(b, peer, rb, &tb, NULL);
        if (na != nb || memcmp(&ta, &tb, sizeof ta) || memcmp(ra, rb, (size_t)na * sizeof *ra))
            return 0;
    }
    return 1;
}

/* A ledger of random regions (some negative), cuts and evictions, at most 60 steps. */
static void random_ledger(struct ws_led *l)
{
    ws_led_reset(l);
    for (int n = rand() % 60; n > 0; n--) {
        if (rand() % 4 == 0)
            ws_led_sync(l, (uint64_t)rand() << 32 ^ (uint64_t)rand(), rand() % 2);
        else
            ws_led_add(l, 1 + (uint64_t)(rand() % 14), (rand() % 1000 - 50) * 1e-6);
    }
}

static void words(void)
{
    /* one region in one section: 4 words */
    struct ws_led l, back;
    int64_t w[WS_LED_WORDS];
    ws_led_reset(&l);
    ws_led_add(&l, 0xA, 1.0);
    CHECK(ws_led_words(&l, w) == 4);
    ws_led_unwords(w, &back);
    CHECK(same_since(&l, &back));
    /* words that are no ledger's (another rank's NONE): an empty ledger */
    w[0] = INT64_MIN;
    ws_led_unwords(w, &back);
    CHECK(back.nreg == 0 && back.nsec == 1 && back.sec_t[0] == 0);
    /* random ledgers: the same regions and totals for every peer, the same shares for a wait
     * against them, never more than WS_LED_WORDS */
    srand(15);
    int bad = 0, longest = 0;
    for (int i = 0; i < 20000; i++) {
        struct ws_led mine;
        random_ledger(&l);
        random_ledger(&mine);
        int n = ws_led_words(&l, w);
        longest = n > longest ? n : longest;
        ws_led_unwords(w, &back);
        struct ws_msg ma = {.e = 1, .rank = 3, .led = l}, mb = {.e = 1, .rank = 3, .led = back};
        struct ws_share sa[WS_K], sb[WS_K];
        int me = rand() % 130, ka = ws_shares(&mine, me, 1e-3, &ma, sa);
        int kb = ws_shares(&mine, me, 1e-3, &mb, sb);
        bad += !same_since(&l, &back) || ka != kb || memcmp(sa, sb, (size_t)ka * sizeof *sa);
    }
    CHECK_INT(bad, 0);
    CHECK(longest <= WS_LED_WORDS && longest > 4);
}

int main(void)
{
    ledger();
    sections();
    repeating_sections();
    words();
    chains();
    shares();
    clock_fit();
    CHECK_DONE();
}
