/* SPDX-License-Identifier: Apache-2.0 */
/* The benchmark floor: the same HTTP/TLS layer as gpupack-webhook (lib/server.c: libmicrohttpd,
 * GnuTLS, the same priorities, body cap and timeouts), a handler that parses the body with cJSON
 * like the webhook does and answers one fixed allow. What `POST /mutate` costs above this is the
 * decision and its encoding. Bench-only: `make bench` builds and runs it; nothing ships it.
 * Usage: bench-floor --listen HOST:PORT --tls-cert FILE --tls-key FILE [--threads N] */
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

static void route_mutate(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    gp_json_pool pool;
    cJSON *root;

    (void)ctx;
    gp_json_pool_begin(&pool, 0); /* the same cJSON memory as the webhook's */
    root = cJSON_ParseWithLengthOpts(req->body, req->body_len + 1, NULL, 1);
    resp->status = root ? 200 : 400;
    resp->body = strdup(root ? allow : "{\"error\":\"bad json\"}");
    resp->body_len = resp->body ? strlen(resp->body) : 0;
    cJSON_Delete(root);
    gp_json_pool_end(&pool);
}

int main(int argc, char **argv)
{
    gp_daemon_opts o = gp_daemon_opts_default("127.0.0.1:0", 10);
    gp_flag f[GP_DAEMON_NFLAGS];
    size_t n = gp_daemon_flag_rows(&o, "address (HTTPS)", "request timeout", f);
    gp_err err = { { 0 } };
    gp_server *s = NULL, *health = NULL;
    atomic_bool draining = false;
    gp_route routes[2] = {
        { "/mutate", "POST", false, true, route_mutate, NULL },
        { "/healthz", "GET", false, false, gp_route_healthz, NULL },
    };

    if (gp_flags_parse(f, n, argc, argv, &err) != GP_OK) {
        fprintf(stderr, "bench-floor: %s\n", err.msg);
        return 2;
    }
    gp_json_pool_install();
    o.drain_s = 0;
    if (gp_daemon_start_server(&o, "floor", GP_ADMISSION_MAX_BODY, routes, 2, NULL, NULL, &s,
                               &health, &err) != GP_OK) {
        fprintf(stderr, "bench-floor: %s\n", err.msg);
        return 2;
    }
    fprintf(stderr, "{\"msg\":\"serving\",\"port\":%d}\n", gp_server_port(s));
    gp_wait_for_signal_and_drain(s, &draining, 0, NULL);
    gp_server_stop(s);
    gp_server_stop(health);
    return 0;
}
