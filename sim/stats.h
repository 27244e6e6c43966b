/* SPDX-License-Identifier: Apache-2.0 */
/* Mean and sample standard deviation over the seeds, for gpupack-sim's tables. Pure. */
#ifndef GPUPACK_SIM_STATS_H
#define GPUPACK_SIM_STATS_H

#include <stddef.h>

typedef struct {
    double sum, sq;
    size_t n;
} sim_stat;

void sim_stat_add(sim_stat *s, double v);
/* The mean; NAN with no value. */
double sim_stat_mean(const sim_stat *s);
/* The sample standard deviation; 0 with fewer than two values. */
double sim_stat_sd(const sim_stat *s);

#endif
