/* SPDX-License-Identifier: Apache-2.0 */
/* Doubling heap arrays (grow.h). */
#include "gpupack/grow.h"

#include <stdint.h>
#include <stdlib.h>

#define FIRST_CAP 16

void *gp_grow(void *items, size_t *cap, size_t need, size_t elem)
{
    size_t c = *cap ? *cap : FIRST_CAP;
    void *p;

    if (need <= *cap)
        return items;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return NULL;
        c *= 2;
    }
    if (elem == 0 || c > SIZE_MAX / elem)
        return NULL;
    p = realloc(items, c * elem);
    if (p != NULL)
        *cap = c;
    return p;
}
