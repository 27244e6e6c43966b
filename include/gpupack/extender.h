/* SPDX-License-Identifier: Apache-2.0 */
/* The extender service: ExtenderArgs in, ExtenderFilterResult or HostPriorityList out.
 *
 * What `POST /filter`, `POST /prioritize` and `gpupack-extender --once` all run: decode the
 * arguments, build node views (from the live cache by name, or from the full Node objects the
 * scheduler sent plus what the cache knows of the pods on them), decide with score.h, encode,
 * and record metrics and a log line. Errors go in the filter result's Error field with HTTP 200,
 * as kube-scheduler expects; prioritize answers 400 for arguments it cannot decode (an error
 * status is the only way a HostPriorityList can signal one) and scores unknown nodes 0. */
#ifndef GPUPACK_EXTENDER_H
#define GPUPACK_EXTENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpupack/cache.h"
#include "gpupack/log.h"
#include "gpupack/metrics.h"
#include "gpupack/policy.h"
#include "gpupack/server.h"

#define GP_EXTENDER_ARENA_LIMIT (64u * 1024 * 1024)
#define GP_EXTENDER_TRIM_BYTES (8u * 1024 * 1024) /* bodies past this return their memory */

typedef struct {
    gp_policy_holder *policy; /* not owned */
    gp_cache *cache;          /* may be NULL (only full Node objects can be scored); not owned */
    gp_metrics *metrics;      /* may be NULL */
    gp_log *log;              /* may be NULL */
    int64_t assume_ttl_ms;    /* 0: no assumptions after prioritize */
    FILE *explain;            /* non-NULL: write a table of each node's verdict or components
                                 here, in one piece after the call's log line */
} gp_extender;

typedef enum { GP_VERB_FILTER, GP_VERB_PRIORITIZE } gp_verb;

/* Answers one call (body NUL-terminated). now_ms is the wall clock in milliseconds (for
 * assumptions). resp->body is malloc'd. A body that is a bare Pod (not ExtenderArgs) is scored
 * against every node of the cache: "where would this pod go?". */
void gp_extender_call(gp_extender *x, gp_verb verb, const char *body, size_t len, int64_t now_ms,
                      gp_http_response *resp);

/* Registers every label value of the extender's call and filter counters at zero, so dashboards
 * and alerts find the series before the first call. m may be NULL. */
void gp_extender_preregister(gp_metrics *m);

/* Route handlers (ctx is a gp_extender). */
void gp_extender_route_filter(void *ctx, const gp_http_request *req, gp_http_response *resp);
void gp_extender_route_prioritize(void *ctx, const gp_http_request *req, gp_http_response *resp);

#endif
