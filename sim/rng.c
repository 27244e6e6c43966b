/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's PRNG (rng.h). */
#include "rng.h"

uint64_t sim_hash64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t sim_splitmix64(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ULL;
    return sim_hash64(*state);
}

void sim_rng_seed(sim_rng *r, uint64_t seed)
{
    uint64_t s = seed;

    for (int i = 0; i < 4; i++)
        r->s[i] = sim_splitmix64(&s);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(sim_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

uint64_t sim_rng_below(sim_rng *r, uint64_t bound)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;

    do
        x = sim_rng_next(r);
    while (x >= limit);
    return x % bound;
}
