/* SPDX-License-Identifier: Apache-2.0 */
/* kube-scheduler extender wire types (k8s.io/kube-scheduler/extender/v1), decoded and encoded.
 *
 * Field names are Go's: ExtenderArgs {Pod, Nodes, NodeNames}; ExtenderFilterResult {Nodes,
 * NodeNames, FailedNodes, FailedAndUnresolvableNodes, Error}; HostPriorityList [{Host, Score}].
 * With nodeCacheCapable true the scheduler sends "Nodes": null and NodeNames; with false it sends
 * full Node objects under Nodes.items and "NodeNames": null. A filter result answers in the same
 * form it was asked in. */
#ifndef GPUPACK_EXTARGS_H
#define GPUPACK_EXTARGS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
#include "gpupack/status.h"

#define GP_EXTARGS_MAX_BODY (128u * 1024 * 1024) /* 5,000 full Node objects are ~65 MB */
#define GP_EXTARGS_MAX_NODES 50000
#define GP_EXTARGS_MAX_DEPTH 1000 /* JSON nesting, as cJSON's own limit */
#define GP_EXTARGS_STRICT_MAX (4u * 1024 * 1024) /* a body's text besides NodeNames, for the
                                                  * strict parser (a Pod is at most ~1.5 MB) */

typedef struct {
    const cJSON *pod;          /* the Pod object */
    bool full_nodes;           /* Nodes.items was given (nodeCacheCapable false) */
    const char **names;        /* every node's name, in request order */
    const cJSON **nodes;       /* full Node objects, parallel to names, when full_nodes: only
                                * metadata.name/labels, spec.unschedulable and status.allocatable
                                * are kept (what scoring reads) */
    const char *body;          /* the request body, when full_nodes ... */
    const size_t *node_off;    /* ... and where each node's object starts in it ... */
    const size_t *node_len;    /* ... and its length: a filter answer hands them back verbatim */
    size_t n;
    bool strict_parse;         /* the usual NodeNames body, read by gp_json_parse (not yajl) */
} gp_extargs;

/* Parses an ExtenderArgs body (NUL-terminated) with yajl into a cJSON tree, pruning what
 * scoring does not read of full Node objects; NodeNames' strings are copied into a, not the tree
 * (which keeps NodeNames as an empty array). The usual body (a Pod of at most
 * GP_EXTARGS_STRICT_MAX bytes, no Nodes, and NodeNames last) is read by gp_json_parse_unambiguous
 * instead, to the same tree; anything else about it goes to yajl. *root owns the tree (cJSON_Delete); *args borrows
 * from it, from a and from body (which must outlive it). GP_EINVAL with a message for anything that is not ExtenderArgs
 * (not JSON, no Pod object, neither Nodes nor NodeNames, a node without a name, too many). */
gp_status gp_extargs_decode(const char *body, size_t len, gp_arena *a, cJSON **root,
                            gp_extargs *args, gp_err *err) GP_WUR;

/* One node's filter outcome. */
typedef struct {
    int verdict;        /* 0 pass, 1 FailedNodes, 2 FailedAndUnresolvableNodes */
    const char *reason; /* for failures */
} gp_filter_out;

/* Encodes an ExtenderFilterResult for args (same form). error non-NULL: only Error is set (and
 * empty node lists). The caller frees *out with free(). */
gp_status gp_extargs_encode_filter(const gp_extargs *args, const gp_filter_out *res,
                                   const char *error, char **out, size_t *len) GP_WUR;

/* Encodes a HostPriorityList. */
gp_status gp_extargs_encode_priorities(const gp_extargs *args, const int *scores, char **out,
                                       size_t *len) GP_WUR;

/* An ExtenderFilterResult carrying only an error (for bodies that could not be decoded). */
gp_status gp_extargs_encode_filter_error(const char *error, char **out, size_t *len) GP_WUR;

#endif
