/* SPDX-License-Identifier: Apache-2.0 */
/* Growing a heap array by doubling: the one rule every growable array of structs follows
 * (byte buffers use gp_strbuf).
 *
 * gp_grow(items, &cap, need, elem) returns an array with room for at least need (>= 1) items of
 * elem bytes: items itself when *cap already holds need, else items reallocated to the first
 * doubling of *cap (16 from empty) that does, with *cap updated. It returns NULL, leaving items
 * and *cap as they were, when the allocation fails or the size would overflow. */
#ifndef GPUPACK_GROW_H
#define GPUPACK_GROW_H

#include <stddef.h>

void *gp_grow(void *items, size_t *cap, size_t need, size_t elem);

#endif
