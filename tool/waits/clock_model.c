/* The clock model's fit: each rank's offset against the reference over its local time, a
 * line through every measurement so far (min-RTT ping-pongs at init, periodically, and at
 * finalize; clock.c), so the correction between measurements follows the drift. */
#include <math.h>

#include "ws_data.h"

struct clock_model clock_fit_add(struct clock_fit *f, double off, double t, double rtt)
{
    double w = 1 / (rtt > 1e-7 ? rtt * rtt : 1e-14), rate = 0, at = off;
    if (!f->n)
        f->t_first = t;
    double tau = t - f->t_first;
    f->s_w = CLOCK_FORGET * f->s_w + w;
    f->s_t = CLOCK_FORGET * f->s_t + w * tau;
    f->s_o = CLOCK_FORGET * f->s_o + w * off;
    f->s_tt = CLOCK_FORGET * f->s_tt + w * tau * tau;
    f->s_to = CLOCK_FORGET * f->s_to + w * tau * off;
    double det = f->s_w * f->s_tt - f->s_t * f->s_t;
    if (f->n && det > 0) {
        rate = (f->s_w * f->s_to - f->s_t * f->s_o) / det;
        at = (f->s_o - rate * f->s_t) / f->s_w + rate * tau;
        if (!(fabs(rate) <= CLOCK_RATE_MAX)) { /* not a clock's drift: take the measurement */
            rate = 0;
            at = off;
        }
    }
    f->n++;
    return (struct clock_model){at, rate, t};
}
