/* SPDX-License-Identifier: Apache-2.0 */
/* Mean and sample standard deviation (sim/stats.h). */
#include "stats.h"

#include <math.h>

void sim_stat_add(sim_stat *s, double v)
{
    s->sum += v;
    s->sq += v * v;
    s->n++;
}

double sim_stat_mean(const sim_stat *s)
{
    return s->n ? s->sum / (double)s->n : NAN;
}

double sim_stat_sd(const sim_stat *s)
{
    if (s->n < 2)
        return 0;
    double m = sim_stat_mean(s), v = (s->sq - (double)s->n * m * m) / (double)(s->n - 1);
    return v > 0 ? sqrt(v) : 0;
}
