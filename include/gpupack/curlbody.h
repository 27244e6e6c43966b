/* SPDX-License-Identifier: Apache-2.0 */
/* What every libcurl client in gpupack shares (the Kubernetes API in kube.c, Prometheus in
 * prom.c): libcurl's process-wide start, and a response body collected up to a cap.
 *
 * gp_curl_global_init() calls curl_global_init() once per process (it is not thread-safe in
 * every libcurl build); call it before making any handle. A gp_curl_body starts zeroed with max
 * set; gp_curl_body_write() is a CURLOPT_WRITEFUNCTION that appends to it and stops the transfer
 * (too_big set) past max bytes, or when memory runs out (s.failed). */
#ifndef GPUPACK_CURLBODY_H
#define GPUPACK_CURLBODY_H

#include <stdbool.h>
#include <stddef.h>

#include "gpupack/strbuf.h"

typedef struct {
    gp_strbuf s; /* all zero: empty, no limit of its own */
    size_t max;
    bool too_big;
} gp_curl_body;

void gp_curl_global_init(void);
size_t gp_curl_body_write(char *data, size_t size, size_t nmemb, void *arg);

#endif
