/* Forward chaining's split of the points of one parameter (what a prediction does: the
 * largest value predicted from the smaller ones), shared by the one-parameter families. */
#include <math.h>

#include "predict.h"

int fit_below_largest(const double *x, const double *y, int n, double *bx, double *by, int *m,
                      double *top)
{
    *top = -HUGE_VAL;
    for (int i = 0; i < n; i++)
        *top = fmax(*top, x[i]);
    int below = 0;
    *m = 0;
    for (int i = 0; i < n; i++) {
        if (x[i] >= *top)
            continue;
        int seen = 0;
        for (int j = 0; j < *m && !seen; j++)
            seen = bx[j] == x[i];
        below += !seen;
        bx[*m] = x[i];
        by[(*m)++] = y[i];
    }
    return below;
}
