/* SPDX-License-Identifier: Apache-2.0 */
/* libcurl's process-wide start and capped response bodies (curlbody.h). */
#include "gpupack/curlbody.h"

#include <pthread.h>

#include <curl/curl.h>

/* The only static state: set once, never changed after. */
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init_once(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

void gp_curl_global_init(void)
{
    pthread_once(&curl_once, curl_init_once);
}

size_t gp_curl_body_write(char *data, size_t size, size_t nmemb, void *arg)
{
    gp_curl_body *b = arg;
    size_t n = size * nmemb;

    if (n > b->max - b->s.len) {
        b->too_big = true;
        return 0;
    }
    gp_strbuf_put(&b->s, data, n);
    return b->s.failed ? 0 : n;
}
