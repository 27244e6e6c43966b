/* SPDX-License-Identifier: Apache-2.0 */
/* The webhook service: one AdmissionReview in, one HTTP answer out.
 *
 * This is what `POST /mutate` and `gpupack-webhook --review` both run: decode the review, decide
 * with the policy and cluster view in force, build the patch, encode the response, and record
 * metrics and a log line. It fails open: a well-formed review always gets 200 and allowed; when the
 * pod cannot be understood or an internal step fails, the pod is allowed unchanged with a warning
 * and gpupack_webhook_fail_open_total counts it. Only a body that is not an AdmissionReview v1 gets
 * 400. */
#ifndef GPUPACK_WEBHOOK_H
#define GPUPACK_WEBHOOK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "gpupack/cluster.h"
#include "gpupack/log.h"
#include "gpupack/metrics.h"
#include "gpupack/mutate.h"
#include "gpupack/policy.h"
#include "gpupack/recs.h"
#include "gpupack/server.h"

#define GP_WEBHOOK_ARENA_LIMIT (8u * 1024 * 1024) /* per-request decision memory */
#define GP_WEBHOOK_JSON_POOL_LIMIT (64u * 1024 * 1024) /* per-request cJSON memory (jsonpool.h) */
#define GP_WEBHOOK_OUTCOMES 8 /* patched, unchanged, not-gpu, skipped, ignored, audit, fail-open,
                                 bad-request: the outcome label's values */

typedef struct {
    gp_policy_holder *policy; /* not owned */
    gp_metrics *metrics;      /* may be NULL; not owned */
    gp_log *log;              /* may be NULL; not owned */
    gp_snapshot cluster;      /* the gp_cluster view; empty when nothing is known */
    gp_snapshot recs;         /* the gp_recs_shared table; empty: rightsizing inactive */
    /* The counters of every review, found once (gp_metrics_counter) and indexed by mutation
     * kind, outcome and rightsizing action. */
    gp_counter *mutations[GP_MK_COUNT], *would_mutate[GP_MK_COUNT];
    gp_counter *reviews[GP_WEBHOOK_OUTCOMES];
    gp_counter *rightsizing[GP_RS_COUNT];
} gp_webhook;

/* cluster may be NULL; the webhook takes over the caller's reference. */
void gp_webhook_init(gp_webhook *w, gp_policy_holder *policy, gp_cluster *cluster,
                     gp_metrics *metrics, gp_log *log);
void gp_webhook_destroy(gp_webhook *w);

/* Replaces the cluster view (taking the caller's reference). */
void gp_webhook_set_cluster(gp_webhook *w, gp_cluster *cluster);

/* Replaces the advisor's recommendations (taking the caller's reference; NULL: none, the
 * feature inactive) and sets gpupack_recommendations_loaded to its entries. Requests in flight
 * keep the table they took. */
void gp_webhook_set_recs(gp_webhook *w, gp_recs_shared *recs);

/* Reads a recommendations document (recs.h) from path into a shared table. A file that does not
 * exist is an empty table (the ConfigMap the advisor writes may not exist yet; its volume is
 * optional). GP_EINVAL / GP_ETOOBIG / GP_EIO with err naming the file and, for a bad document,
 * the JSON path; GP_ENOMEM. */
gp_status gp_webhook_load_recs(const char *path, gp_recs_shared **out, gp_err *err) GP_WUR;

/* A live reload of path: a good file replaces the table in force ("recommendations reloaded",
 * entries), a bad one is logged and the last good table stays; counted in
 * gpupack_recommendations_reloads_total{result="ok|error"}. */
void gp_webhook_reload_recs(gp_webhook *w, const char *path);

/* Answers one review body (NUL-terminated, len bytes): resp->status is 200 or 400 and resp->body
 * a malloc'd JSON text. On allocation failure for the reply itself, resp->status is 500. */
void gp_webhook_review(gp_webhook *w, const char *body, size_t len, gp_http_response *resp);

/* The route handler for POST /mutate (ctx is a gp_webhook). */
void gp_webhook_route(void *ctx, const gp_http_request *req, gp_http_response *resp);

#endif
