/* SPDX-License-Identifier: Apache-2.0 */
/* The benchmark floor: the same HTTP/TLS layer as gpupack-webhook (lib/server.c: libmicrohttpd,
 * GnuTLS, the same priorities, body cap and timeouts), a handler that parses the body with cJSON
 * like the webhook does and answers one fixed allow. What `POST /mutate` costs above this is the
 * decision and its encoding. Bench-only: `make bench` builds and runs it; nothing ships it.
 * --answer-bytes N pads the allow (with a "pad" member the API server would ignore) to N bytes,
 * so that the floor answers as much as the webhook does: the size of an answer costs by itself
 * (TLS records, and above 1,400 bytes with its header libmicrohttpd sends the header alone).
 * Usage: bench-floor --listen HOST:PORT --tls-cert FILE --tls-key FILE [--threads N]
 *        [--answer-bytes N] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpupack/admission.h"
#include "gpupack/daemon.h"
#include "gpupack/flags.h"
#include "gpupack/jsonpool.h"
#include "gpupack/server.h"

static const char allow[] = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                            "\"response\":{\"uid\":\"bench\",\"allowed\":true}}";

#define ANSWER_MAX 65536

/* The answer: the allow, or with --answer-bytes n above its size, the allow with a first member
 * "pad":"xx..x" that makes it exactly n bytes (as the webhook's carry a patch, annotations and
 * warnings). */
static char *make_answer(unsigned n)
{
    static const char head[] = "{\"pad\":\"", tail[] = "\",";
    const size_t hl = sizeof(head) - 1, tl = sizeof(tail) - 1;
    size_t fixed = strlen(allow) + hl + tl - 1, pad; /* allow's own '{' is head's */
    char *a;

    if (n <= fixed)
        return strdup(allow);
    pad = n - fixed;
    a = malloc((size_t)n + 1);
    if (a == NULL)
        return NULL;
    memcpy(a, head, hl);
    memset(a + hl, 'x', pad);
    memcpy(a + hl + pad, tail, tl);
    strcpy(a + hl + pad + tl, allow + 1);
    return a;
}

static void route_mutate(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    const char *answer = ctx;
    gp_json_pool pool;
    cJSON *root;

    gp_json_pool_begin(&pool, 0); /* the same cJSON memory as the webhook's */
    root = cJSON_ParseWithLengthOpts(req->body, req->body_len + 1, NULL, 1);
    resp->status = root ? 200 : 400;
    resp->body = strdup(root ? answer : "{\"error\":\"bad json\"}");
    resp->body_len = resp->body ? strlen(resp->body) : 0;
    cJSON_Delete(root);
    gp_json_pool_end(&pool);
}

int main(int argc, char **argv)
{
    gp_daemon_opts o = gp_daemon_opts_default("127.0.0.1:0", 10);
    gp_flag f[GP_DAEMON_NFLAGS + 1];
    size_t n = gp_daemon_flag_rows(&o, "address (HTTPS)", "request timeout", f);
    gp_err err = { { 0 } };
    gp_server *s = NULL, *health = NULL;
    atomic_bool draining = false;
    unsigned answer_bytes = 0;
    char *answer;
    gp_route routes[2] = {
        { "/mutate", "POST", false, true, route_mutate, NULL },
        { "/healthz", "GET", false, false, gp_route_healthz, NULL },
    };

    f[n++] = (gp_flag){ .name = "answer-bytes", .kind = GP_FLAG_UINT, .dest = &answer_bytes,
                        .min = 0, .max = ANSWER_MAX, .arg = "N",
                        .help = "pad each allow to N bytes (default: no padding)" };
    if (gp_flags_parse(f, n, argc, argv, &err) != GP_OK) {
        fprintf(stderr, "bench-floor: %s\n", err.msg);
        return 2;
    }
    answer = make_answer(answer_bytes);
    if (answer == NULL)
        return 1;
    routes[0].ctx = answer;
    gp_json_pool_install();
    o.drain_s = 0;
    if (gp_daemon_start_server(&o, "floor", GP_ADMISSION_MAX_BODY, routes, 2, NULL, NULL, &s,
                               &health, &err) != GP_OK) {
        fprintf(stderr, "bench-floor: %s\n", err.msg);
        free(answer);
        return 2;
    }
    fprintf(stderr, "{\"msg\":\"serving\",\"port\":%d}\n", gp_server_port(s));
    gp_wait_for_signal_and_drain(s, &draining, 0, NULL);
    gp_server_stop(s);
    gp_server_stop(health);
    free(answer);
    return 0;
}
