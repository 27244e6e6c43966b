/* SPDX-License-Identifier: Apache-2.0 */
/* AdmissionReview v1 (admission.k8s.io/v1) decoding and encoding.
 *
 * gp_admission_decode() checks the envelope (a JSON object, apiVersion admission.k8s.io/v1, kind
 * AdmissionReview, a request object with a non-empty uid) and exposes the request's fields;
 * anything else is GP_EINVAL with a message for a 400 reply. gp_admission_encode() writes the
 * response review: apiVersion and kind set, response.uid echoed, and when there is a patch,
 * patchType JSONPatch with the patch in padded standard base64. */
#ifndef GPUPACK_ADMISSION_H
#define GPUPACK_ADMISSION_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "gpupack/k8s.h"
#include "gpupack/status.h"

#define GP_ADMISSION_MAX_BODY (3u * 1024 * 1024 + 512u * 1024) /* 3 MiB + margin */
#define GP_ADMISSION_MAX_UID 256
#define GP_JSON_MAX_DEPTH 64 /* a Pod's JSON is never nested this deep */

typedef struct {
    const char *uid;
    const char *kind_group;   /* request.kind.group ("" for core) */
    const char *kind_version;
    const char *kind;         /* request.kind.kind ("Pod") */
    const char *resource;     /* request.resource.resource ("pods") */
    const char *sub_resource; /* "" unless a subresource */
    const char *operation;    /* CREATE, UPDATE, DELETE, CONNECT */
    const char *namespace;
    const char *name;
    bool dry_run;
    const cJSON *object;      /* NULL when absent or null */
} gp_admission_request;

/* Parses body (len bytes, strict RFC 8259 JSON with gp_json_parse_unambiguous(): nested at most
 * GP_JSON_MAX_DEPTH deep, no member name twice in an object, no \u0000). On success *root owns the tree (free with cJSON_Delete) and *req
 * borrows from it. GP_ENOMEM when memory ran out. */
gp_status gp_admission_decode(const char *body, size_t len, cJSON **root,
                              gp_admission_request *req, gp_err *err) GP_WUR;

typedef struct {
    const char *uid;
    bool allowed;
    const char *patch;         /* RFC 6902 JSON text, or NULL for none */
    size_t patch_len;
    const char *const *warnings;
    size_t nwarnings;
    const gp_label *audit;     /* auditAnnotations */
    size_t naudit;
} gp_admission_response;

/* Encodes the response review. *out is malloc'd (free() it). GP_ENOMEM on failure. */
gp_status gp_admission_encode(const gp_admission_response *r, char **out, size_t *len) GP_WUR;

/* The smallest allow response, built without allocating from the heap beyond buf: for replying
 * when memory is exhausted. Returns the length, or 0 when buf is too small. */
size_t gp_admission_encode_allow_static(const char *uid, const char *warning, char *buf,
                                        size_t bufsz);

/* True when s is valid UTF-8 without NUL bytes (cJSON accepts "\u0000" and bad bytes). */
bool gp_utf8_valid(const char *s, size_t n);

#endif
