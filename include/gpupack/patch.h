/* SPDX-License-Identifier: Apache-2.0 */
/* Turning a decision's changes into an RFC 6902 JSON Patch against the pod as it was sent.
 *
 * The patch never clobbers what the user set: values are added into existing maps and arrays
 * ("/spec/tolerations/-", "/metadata/labels/gpupack.io~1class"), and a missing parent is created
 * (with the value inside it) only when absent. Keys are escaped per RFC 6901 ('~' as "~0", '/' as
 * "~1"). The builder applies each operation to a copy-on-write view of the pod as it goes (only
 * the objects on the paths it writes are copied, shallowly), so later changes see the parents
 * earlier ones created; the pod itself is never changed. */
#ifndef GPUPACK_PATCH_H
#define GPUPACK_PATCH_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "gpupack/mutate.h"
#include "gpupack/status.h"

/* Builds the patch for d's changes over pod (which must outlive the call only). On success *out
 * is a JSON array text (free with free()) and *len its length; with no change it is "[]". GP_ENOMEM on allocation
 * failure, GP_EINTERNAL when a change does not fit the pod (e.g. a container index out of range). */
gp_status gp_patch_build(const cJSON *pod, const gp_decision *d, char **out, size_t *len) GP_WUR;

/* Appends the RFC 6901 escaped form of key to buf (NUL-terminated). GP_ETOOBIG when it does not
 * fit. */
gp_status gp_json_pointer_escape(const char *key, char *buf, size_t bufsz) GP_WUR;

#endif
