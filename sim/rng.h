/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's seeded PRNG: xoshiro256** seeded through splitmix64 (Blackman and Vigna), so
 * that a run is the same on every machine. Pure: the state is the caller's. */
#ifndef GPUPACK_SIM_RNG_H
#define GPUPACK_SIM_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} sim_rng;

/* splitmix64's finaliser: a well-mixed 64-bit hash of z. */
uint64_t sim_hash64(uint64_t z);
/* One splitmix64 step: advances *state and returns the next output. */
uint64_t sim_splitmix64(uint64_t *state);
void sim_rng_seed(sim_rng *r, uint64_t seed);
uint64_t sim_rng_next(sim_rng *r);
/* A uniform integer in [0, bound) (bound > 0), without modulo bias. */
uint64_t sim_rng_below(sim_rng *r, uint64_t bound);

#endif
