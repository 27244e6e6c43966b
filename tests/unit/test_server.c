/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of lib/server.c on loopback with libcurl as the client: routing, the transport errors,
 * body limits, timeouts, keep-alive, quiesce, metrics, and TLS (versions, certificate swaps on
 * reload and on file change, refused pairs, client certificates). Certificates are made with the
 * openssl CLI in a fresh temporary directory per test. */
#include "gpupack/server.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "gptest.h"
#include "metric_read.h"

#define MAX_BODY 4096

/* ---- handlers ------------------------------------------------------------------------------ */

static char *dup_mem(const char *s, size_t n)
{
    char *d = malloc(n + 1);

    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* Echoes the body; 500 if the server did not NUL-terminate it. */
static void echo(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    (void)ctx;
    if (req->body[req->body_len] != '\0') {
        resp->status = 500;
        return;
    }
    resp->body = dup_mem(req->body, req->body_len);
    resp->body_len = req->body_len;
}

static void ping(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    (void)ctx;
    resp->status = strcmp(req->body, "") == 0 && req->body_len == 0 ? 200 : 500;
    resp->body = dup_mem("pong", 4);
    resp->body_len = 4;
    resp->content_type = "text/plain";
}

/* Answers with the route's ctx as its name, so a test can tell which route ran. */
static void named(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    (void)req;
    resp->body = dup_mem(ctx, strlen(ctx));
    resp->body_len = strlen(ctx);
}

static void teapot(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    (void)ctx;
    (void)req;
    resp->status = 418; /* no body, no content type: the defaults apply */
}

/* Answers with an id of the thread serving the request. */
static void thread_id(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    char id[32];

    (void)ctx;
    (void)req;
    snprintf(id, sizeof(id), "%lu", (unsigned long)pthread_self());
    resp->body = dup_mem(id, strlen(id));
    resp->body_len = strlen(id);
    resp->content_type = "text/plain";
}

static const gp_route test_routes[] = {
    { .path = "/thread", .method = "GET", .fn = thread_id },
    { .path = "/echo", .method = "POST", .json_body = true, .fn = echo },
    { .path = "/ping", .method = "GET", .fn = ping },
    { .path = "/filter", .method = "POST", .suffix = true, .json_body = true, .fn = named,
      .ctx = "filter" },
    { .path = "/prioritize", .method = "POST", .suffix = true, .json_body = true, .fn = named,
      .ctx = "prioritize" },
    { .path = "/teapot", .method = "GET", .fn = teapot },
    { .path = "/teapot", .method = "DELETE", .fn = teapot },
};

/* ---- servers ------------------------------------------------------------------------------- */

static gp_server_config base_config(gp_metrics *m)
{
    gp_server_config c = {
        .host = "127.0.0.1",
        .port = 0,
        .max_body = MAX_BODY,
        .threads = 2,
        .idle_timeout_s = 10,
        .request_timeout_s = 10,
        .max_connections = 64,
        .cert_reload_ms = 100,
        .routes = test_routes,
        .nroutes = sizeof(test_routes) / sizeof(test_routes[0]),
        .metrics = m,
        .log = NULL,
        .name = "test",
    };
    return c;
}

static gp_server *start(const gp_server_config *c)
{
    gp_server *s = NULL;
    gp_err err = { { 0 } };
    gp_status st = gp_server_start(c, &s, &err);

    if (st != GP_OK)
        printf("  start failed: %s\n", err.msg);
    GP_CHECK_INT(st, GP_OK);
    GP_CHECK(s == NULL || gp_server_port(s) > 0);
    return s;
}

/* ---- the client ---------------------------------------------------------------------------- */

typedef struct {
    char body[8192];
    size_t len;
    char allow[128];
} reply;

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    reply *r = ud;
    size_t len = size * n, room = sizeof(r->body) - 1 - r->len;

    memcpy(r->body + r->len, p, len < room ? len : room);
    r->len += len < room ? len : room;
    r->body[r->len] = '\0';
    return len;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    reply *r = ud;
    size_t len = size * n;

    if (len > 7 && strncasecmp(p, "Allow: ", 7) == 0)
        snprintf(r->allow, sizeof(r->allow), "%.*s", (int)(len - 9), p + 7);
    return len;
}

/* A handle that collects the reply; the caller adds the URL and what to send. */
static CURL *client(reply *r)
{
    CURL *h = curl_easy_init();

    memset(r, 0, sizeof(*r));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 5000L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    return h;
}

static void url_for(char *buf, size_t n, const char *scheme, gp_server *s, const char *path)
{
    snprintf(buf, n, "%s://127.0.0.1:%d%s", scheme, gp_server_port(s), path);
}

/* One request on handle h; returns the status code, or -curl error. */
static long perform(CURL *h, reply *r, const char *url, const char *method, const char *ctype,
                    const char *body)
{
    struct curl_slist *hdrs = NULL;
    char ct[128];
    long code = 0;
    CURLcode rc;

    r->len = 0;
    r->body[0] = '\0';
    r->allow[0] = '\0';
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    if (body != NULL) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    } else {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    }
    snprintf(ct, sizeof(ct), "Content-Type: %s", ctype != NULL ? ctype : "");
    hdrs = curl_slist_append(hdrs, ctype != NULL ? ct : "Content-Type:");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(hdrs);
    return rc == CURLE_OK ? code : -(long)rc;
}

/* A one-off request on a fresh handle. */
static long request(gp_server *s, reply *r, const char *path, const char *method,
                    const char *ctype, const char *body)
{
    char url[256];
    CURL *h = client(r);
    long code;

    url_for(url, sizeof(url), "http", s, path);
    code = perform(h, r, url, method, ctype, body);
    curl_easy_cleanup(h);
    return code;
}

static long connects(CURL *h)
{
    long n = -1;

    curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &n);
    return n;
}

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Waits until a counter reaches want (the completed callback runs just after the reply). */
static double wait_metric(gp_metrics *m, const char *name, const char *labels, double want)
{
    double v = 0;

    for (int i = 0; i < 200 && (v = metric_value(m, name, labels)) < want; i++)
        usleep(10 * 1000);
    return v;
}

/* Everything written to a log file so far. */
static char *slurp(FILE *f)
{
    long n;
    char *buf;

    fflush(f);
    n = ftell(f);
    buf = calloc(1, (size_t)n + 1);
    rewind(f);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        buf[0] = '\0';
    fseek(f, 0, SEEK_END);
    return buf;
}

/* ---- raw sockets, for what curl will not do ------------------------------------------------ */

static int raw_connect(int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    struct timeval tv = { .tv_sec = 5 };
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Reads until the peer closes, the buffer fills, or the 5 s receive timeout. */
static ssize_t raw_read(int fd, char *buf, size_t n)
{
    size_t got = 0;
    ssize_t k;

    while (got < n - 1 && (k = recv(fd, buf + got, n - 1 - got, 0)) > 0)
        got += (size_t)k;
    buf[got] = '\0';
    return (ssize_t)got;
}

static bool raw_send(int fd, const char *s)
{
    return send(fd, s, strlen(s), MSG_NOSIGNAL) == (ssize_t)strlen(s);
}

/* Reads one answer on a kept-alive connection: the headers, then Content-Length bytes; the body
 * goes to body. Returns the status, or -1. */
static int raw_answer(int fd, char *body, size_t n)
{
    char buf[4096] = "", *end, *cl;
    size_t got = 0, want = 0;
    ssize_t k;
    int code;

    while ((end = strstr(buf, "\r\n\r\n")) == NULL ||
           (cl = strcasestr(buf, "Content-Length:")) == NULL ||
           got < (size_t)(end + 4 - buf) + (want = strtoul(cl + 15, NULL, 10))) {
        if (got >= sizeof(buf) - 1 || (k = recv(fd, buf + got, sizeof(buf) - 1 - got, 0)) <= 0)
            return -1;
        got += (size_t)k;
        buf[got] = '\0';
    }
    snprintf(body, n, "%.*s", (int)want, end + 4);
    return sscanf(buf, "HTTP/1.1 %d", &code) == 1 ? code : -1;
}

/* ---- plain HTTP tests ---------------------------------------------------------------------- */

GP_TEST(echo_200)
{
    gp_metrics *m = gp_metrics_new();
    gp_server_config c = base_config(m);
    gp_server *s;
    gp_log log;
    FILE *lf = tmpfile();
    reply r;
    char url[128], *ctype = NULL, *text;
    CURL *h;

    curl_global_init(CURL_GLOBAL_ALL);
    gp_log_init(&log, GP_LOG_DEBUG, lf);
    c.log = &log;
    s = start(&c);
    h = client(&r);
    url_for(url, sizeof(url), "http", s, "/echo");
    GP_CHECK_INT(perform(h, &r, url, "POST", "application/json", "{\"a\":1}"), 200);
    GP_CHECK_STR(r.body, "{\"a\":1}");
    curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ctype);
    GP_CHECK_STR(ctype, "application/json");
    url_for(url, sizeof(url), "http", s, "/ping");
    GP_CHECK_INT(perform(h, &r, url, "GET", NULL, NULL), 200);
    GP_CHECK_STR(r.body, "pong");
    curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ctype);
    GP_CHECK_STR(ctype, "text/plain");
    GP_CHECK_INT(connects(h), 0); /* the second request reused the connection */
    GP_CHECK(gp_server_tls_ready(s));
    curl_easy_cleanup(h);
    gp_server_stop(s);
    text = slurp(lf);
    GP_CHECK(strstr(text, "\"msg\":\"listening\",\"server\":\"test\",\"host\":\"127.0.0.1\"") !=
             NULL);
    GP_CHECK(strstr(text, "\"msg\":\"http request\",\"server\":\"test\",\"method\":\"POST\","
                          "\"path\":\"/echo\",\"route\":\"/echo\",\"code\":200") != NULL);
    free(text);
    fclose(lf);
    gp_log_destroy(&log);
    gp_metrics_free(m);
    curl_global_cleanup();
}

GP_TEST(not_found_404_and_keepalive)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    reply r;
    char url[128];
    CURL *h;

    curl_global_init(CURL_GLOBAL_ALL);
    s = start(&c);
    h = client(&r);
    url_for(url, sizeof(url), "http", s, "/nope");
    GP_CHECK_INT(perform(h, &r, url, "GET", NULL, NULL), 404);
    GP_CHECK_STR(r.body, "{\"error\":\"no route for this path\"}");
    url_for(url, sizeof(url), "http", s, "/");
    GP_CHECK_INT(perform(h, &r, url, "GET", NULL, NULL), 404);
    GP_CHECK_INT(connects(h), 0); /* an error without a body keeps the connection */
    url_for(url, sizeof(url), "http", s, "/echo/more");
    GP_CHECK_INT(perform(h, &r, url, "POST", "application/json", "{}"), 404);
    curl_easy_cleanup(h);
    gp_server_stop(s);
    curl_global_cleanup();
}

GP_TEST(wrong_method_405_with_allow)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    reply r;

    curl_global_init(CURL_GLOBAL_ALL);
    s = start(&c);
    GP_CHECK_INT(request(s, &r, "/echo", "GET", NULL, NULL), 405);
    GP_CHECK_STR(r.allow, "POST");
    GP_CHECK(strstr(r.body, "\"error\":\"method not allowed") != NULL);
    GP_CHECK_INT(request(s, &r, "/teapot", "POST", "application/json", "{}"), 405);
    GP_CHECK_STR(r.allow, "GET, DELETE");
    GP_CHECK_INT(request(s, &r, "/ping", "PUT", "application/json", "{}"), 405);
    GP_CHECK_STR(r.allow, "GET");
    gp_server_stop(s);
    curl_global_cleanup();
}

GP_TEST(content_type_415)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    reply r;

    curl_global_init(CURL_GLOBAL_ALL);
    s = start(&c);
    GP_CHECK_INT(request(s, &r, "/echo", "POST", "text/plain", "{}"), 415);
    GP_CHECK_STR(r.body, "{\"error\":\"Content-Type must be application/json\"}");
    GP_CHECK_INT(request(s, &r, "/echo", "POST", NULL, "{}"), 415);
    GP_CHECK_INT(request(s, &r, "/echo", "POST", "application/jsonx", "{}"), 415);
    GP_CHECK_INT(request(s, &r, "/echo", "POST", "Application/JSON; charset=utf-8", "[1]"), 200);
    GP_CHECK_STR(r.body, "[1]");
    GP_CHECK_INT(request(s, &r, "/echo", "POST", "application/json;charset=UTF-8", "2"), 200);
    gp_server_stop(s);
    curl_global_cleanup();
}

/* The client claims 100 MB and sends two bytes: the answer must come at once, from the
 * headers alone. */
GP_TEST(content_length_413_without_reading)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    char buf[2048];
    double t0;
    int fd;

    s = start(&c);
    fd = raw_connect(gp_server_port(s));
    GP_CHECK(fd >= 0);
    t0 = now_s();
    GP_CHECK(raw_send(fd, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          "Content-Length: 100000000\r\n\r\n{}"));
    GP_CHECK(raw_read(fd, buf, sizeof(buf)) > 0);
    GP_CHECK(now_s() - t0 < 1.0);
    GP_CHECK(strncmp(buf, "HTTP/1.1 413", 12) == 0);
    GP_CHECK(strstr(buf, "{\"error\":\"request body larger than 4096 bytes\"}") != NULL);
    close(fd);
    gp_server_stop(s);
}

/* Sends `total` bytes of a JSON string, in pieces, through a read callback. */
typedef struct {
    size_t total, sent;
} feeder;

static size_t feed(char *buf, size_t size, size_t n, void *ud)
{
    feeder *f = ud;
    size_t want = size * n, left = f->total - f->sent, k = want < left ? want : left;

    if (k > 1000)
        k = 1000;
    for (size_t i = 0; i < k; i++) {
        size_t pos = f->sent + i;

        buf[i] = pos == 0 ? '"' : pos == f->total - 1 ? '"' : 'x';
    }
    f->sent += k;
    return k;
}

/* A streamed upload of total bytes; chunked when length is negative, else with that declared
 * Content-Length. Returns the status or -curl error. */
static long upload(gp_server *s, reply *r, size_t total, long long length)
{
    feeder f = { .total = total };
    struct curl_slist *hdrs = curl_slist_append(NULL, "Content-Type: application/json");
    char url[128];
    CURL *h = client(r);
    long code = 0;
    CURLcode rc;

    if (length < 0)
        hdrs = curl_slist_append(hdrs, "Transfer-Encoding: chunked");
    url_for(url, sizeof(url), "http", s, "/echo");
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, feed);
    curl_easy_setopt(h, CURLOPT_READDATA, &f);
    if (length >= 0)
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)length);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(h);
    curl_slist_free_all(hdrs);
    return rc == CURLE_OK ? code : -(long)rc;
}

GP_TEST(content_length_413_with_curl)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    reply r;
    double t0;

    curl_global_init(CURL_GLOBAL_ALL);
    s = start(&c);
    t0 = now_s();
    GP_CHECK_INT(upload(s, &r, 100000000, 100000000), 413);
    GP_CHECK(now_s() - t0 < 2.0);
    GP_CHECK_INT(upload(s, &r, MAX_BODY, MAX_BODY), 200); /* exactly at the cap */
    GP_CHECK_INT(r.len, MAX_BODY);
    GP_CHECK_INT(upload(s, &r, MAX_BODY + 1, MAX_BODY + 1), 413);
    gp_server_stop(s);
    curl_global_cleanup();
}

GP_TEST(chunked_body_413_over_cap)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    reply r;

    curl_global_init(CURL_GLOBAL_ALL);
    s = start(&c);
    GP_CHECK_INT(upload(s, &r, 3000, -1), 200);
    GP_CHECK_INT(r.len, 3000);
    GP_CHECK_INT(upload(s, &r, MAX_BODY, -1), 200);
    GP_CHECK_INT(upload(s, &r, MAX_BODY + 1, -1), 413);
    GP_CHECK(strstr(r.body, "request body larger than 4096 bytes") != NULL);
    GP_CHECK_INT(upload(s, &r, 3 * MAX_BODY, -1), 413);
    gp_server_stop(s);
    curl_global_cleanup();
}

GP_TEST(query_string_ignored)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    reply r;

    curl_global_init(CURL_GLOBAL_ALL);
    s = start(&c);
    GP_CHECK_INT(request(s, &r, "/echo?timeout=10s&x=%2F", "POST", "application/json", "{}"),
                 200);
    GP_CHECK_STR(r.body, "{}");
    GP_CHECK_INT(request(s, &r, "/ping?", "GET", NULL, NULL), 200);
    GP_CHECK_INT(request(s, &r, "/gpupack/filter?a=b", "POST", "application/json", "{}"), 200);
    GP_CHECK_STR(r.body, "filter");
    gp_server_stop(s);
    curl_global_cleanup();
}

GP_TEST(suffix_routes)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    reply r;

    curl_global_init(CURL_GLOBAL_ALL);
    s = start(&c);
    GP_CHECK_INT(request(s, &r, "/filter", "POST", "application/json", "{}"), 200);
    GP_CHECK_STR(r.body, "filter");
    GP_CHECK_INT(request(s, &r, "/gpupack/filter", "POST", "application/json", "{}"), 200);
    GP_CHECK_STR(r.body, "filter");
    GP_CHECK_INT(request(s, &r, "/a/b/prioritize", "POST", "application/json", "{}"), 200);
    GP_CHECK_STR(r.body, "prioritize");
    GP_CHECK_INT(request(s, &r, "/gpupack/filterx", "POST", "application/json", "{}"), 404);
    GP_CHECK_INT(request(s, &r, "/gpupackfilter", "POST", "application/json", "{}"), 404);
    GP_CHECK_INT(request(s, &r, "/gpupack/filter", "GET", NULL, NULL), 405);
    GP_CHECK_STR(r.allow, "POST");
    GP_CHECK_INT(request(s, &r, "/x/echo", "POST", "application/json", "{}"), 404); /* exact */
    gp_server_stop(s);
    curl_global_cleanup();
}

GP_TEST(handler_defaults_and_status)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    reply r;
    char url[128], *ctype = NULL;
    CURL *h;

    curl_global_init(CURL_GLOBAL_ALL);
    s = start(&c);
    h = client(&r);
    url_for(url, sizeof(url), "http", s, "/teapot");
    GP_CHECK_INT(perform(h, &r, url, "GET", NULL, NULL), 418);
    GP_CHECK_INT(r.len, 0);
    curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ctype);
    GP_CHECK_STR(ctype, "application/json");
    curl_easy_cleanup(h);
    gp_server_stop(s);
    curl_global_cleanup();
}

GP_TEST(metrics_counted_with_bounded_labels)
{
    gp_metrics *m = gp_metrics_new();
    gp_server_config c = base_config(m);
    gp_server *s;
    reply r;
    char *text;

    curl_global_init(CURL_GLOBAL_ALL);
    s = start(&c);
    for (int i = 0; i < 3; i++)
        GP_CHECK_INT(request(s, &r, "/echo", "POST", "application/json", "{}"), 200);
    GP_CHECK_INT(request(s, &r, "/secret/random/path/1234", "GET", NULL, NULL), 404);
    GP_CHECK_INT(request(s, &r, "/echo", "GET", NULL, NULL), 405);
    GP_CHECK_INT(request(s, &r, "/cluster-a/filter", "POST", "application/json", "{}"), 200);
    GP_CHECK(wait_metric(m, "gpupack_http_requests_total",
                         "server=\"test\",route=\"/echo\",code=\"200\"", 3) == 3);
    GP_CHECK(wait_metric(m, "gpupack_http_requests_total",
                         "server=\"test\",route=\"unknown\",code=\"404\"", 1) == 1);
    GP_CHECK(wait_metric(m, "gpupack_http_requests_total",
                         "server=\"test\",route=\"/echo\",code=\"405\"", 1) == 1);
    GP_CHECK(wait_metric(m, "gpupack_http_requests_total",
                         "server=\"test\",route=\"/filter\",code=\"200\"", 1) == 1);
    GP_CHECK(wait_metric(m, "gpupack_http_request_duration_seconds",
                         "server=\"test\",route=\"/echo\"", 4) == 4);
    text = gp_metrics_render(m, NULL);
    GP_CHECK(text != NULL && strstr(text, "secret") == NULL && strstr(text, "cluster-a") == NULL);
    GP_CHECK(text != NULL &&
             strstr(text, "gpupack_http_request_duration_seconds_bucket{server=\"test\","
                          "route=\"/echo\",le=\"+Inf\"} 4\n") != NULL);
    free(text);
    gp_server_stop(s);
    gp_metrics_free(m);
    curl_global_cleanup();
}

GP_TEST(bind_failure_names_address)
{
    gp_server_config c = base_config(NULL);
    gp_server *s, *s2 = (gp_server *)1;
    gp_err err = { { 0 } };

    s = start(&c);
    c.port = gp_server_port(s);
    GP_CHECK_INT(gp_server_start(&c, &s2, &err), GP_EIO);
    GP_CHECK(s2 == NULL);
    GP_CHECK(strncmp(err.msg, "server: cannot listen on 127.0.0.1 port ", 40) == 0);
    c.listen_flag = "--health-listen"; /* the flag that gave the address starts its errors */
    GP_CHECK_INT(gp_server_start(&c, &s2, &err), GP_EIO);
    GP_CHECK(strncmp(err.msg, "--health-listen: cannot listen on 127.0.0.1 port ", 49) == 0);
    c.host = "localhost"; /* names are not resolved */
    GP_CHECK_INT(gp_server_start(&c, &s2, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "--health-listen: host \"localhost\" is not a numeric IPv4 or IPv6 "
                          "address");
    c.host = "127.0.0.1";
    c.max_body = 0;
    GP_CHECK_INT(gp_server_start(&c, &s2, &err), GP_EINVAL);
    gp_server_stop(s);
    gp_server_stop(NULL);
}

static void check_listen_bad(const char *s, const char *want_part)
{
    char host[64];
    int port = -1;
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_server_parse_listen(s, host, sizeof(host), &port, &err), GP_EINVAL);
    if (strstr(err.msg, want_part) == NULL) {
        printf("  \"%s\": message \"%s\" lacks \"%s\"\n", s, err.msg, want_part);
        gp_test_failed = 1;
    }
}

/* gp_server_parse_listen() refuses, with no socket, what gp_server_start() would refuse. */
GP_TEST(parse_listen_numeric_hosts_only)
{
    char host[64];
    int port = -1;
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_server_parse_listen("127.0.0.1:0", host, sizeof(host), &port, &err), GP_OK);
    GP_CHECK_STR(host, "127.0.0.1");
    GP_CHECK_INT(port, 0);
    GP_CHECK_INT(gp_server_parse_listen("[::1]:8443", host, sizeof(host), &port, &err), GP_OK);
    GP_CHECK_STR(host, "::1");
    GP_CHECK_INT(port, 8443);
    GP_CHECK_INT(gp_server_parse_listen(":8888", host, sizeof(host), &port, &err), GP_OK);
    GP_CHECK_STR(host, "0.0.0.0");
    check_listen_bad("localhost:28443", "host \"localhost\" is not a numeric IPv4 or IPv6");
    check_listen_bad("999.1.1.1:1", "host \"999.1.1.1\" is not a numeric");
    check_listen_bad("127.0.0.1:99999", "expected HOST:PORT");
    check_listen_bad("127.0.0.1", "expected HOST:PORT");
    check_listen_bad("[::1]", "expected HOST:PORT");
}

GP_TEST(quiesce_refuses_new_keeps_open)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    reply r, r2;
    char url[128];
    CURL *h;

    curl_global_init(CURL_GLOBAL_ALL);
    s = start(&c);
    h = client(&r);
    url_for(url, sizeof(url), "http", s, "/ping");
    GP_CHECK_INT(perform(h, &r, url, "GET", NULL, NULL), 200);
    gp_server_quiesce(s);
    gp_server_quiesce(s); /* twice is harmless */
    GP_CHECK_INT(request(s, &r2, "/ping", "GET", NULL, NULL), -CURLE_COULDNT_CONNECT);
    GP_CHECK_INT(perform(h, &r, url, "GET", NULL, NULL), 200);
    GP_CHECK_INT(connects(h), 0);
    curl_easy_cleanup(h);
    gp_server_stop(s);
    curl_global_cleanup();
}

/* Connections are spread evenly over the serving threads, whatever order they come in. */
GP_TEST(connections_spread_over_threads)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    int fd[8], code;
    char ids[8][32];
    int same[8];

    c.threads = 4;
    s = start(&c);
    for (int i = 0; i < 8; i++)
        fd[i] = raw_connect(gp_server_port(s));
    for (int i = 0; i < 8; i++) {
        GP_CHECK(raw_send(fd[i], "GET /thread HTTP/1.1\r\nHost: x\r\n\r\n"));
        GP_CHECK_INT(code = raw_answer(fd[i], ids[i], sizeof(ids[i])), 200);
        if (code != 200)
            snprintf(ids[i], sizeof(ids[i]), "none %d", i);
    }
    for (int i = 0; i < 8; i++) {
        same[i] = 0;
        for (int j = 0; j < 8; j++)
            same[i] += strcmp(ids[i], ids[j]) == 0;
        GP_CHECK_INT(same[i], 2); /* 4 threads, 2 connections each */
    }
    for (int i = 0; i < 8; i++)
        close(fd[i]);
    gp_server_stop(s);
}

/* Past max_connections a new connection is closed on arrival, counted and logged; once one
 * closes, a new one is served again. */
GP_TEST(connection_limit_refuses_and_recovers)
{
    gp_metrics *m = gp_metrics_new();
    gp_server_config c = base_config(m);
    gp_server *s;
    gp_log log;
    FILE *lf = tmpfile();
    char body[64], buf[256], *text;
    int fd[3], extra, code = -1;

    gp_log_init(&log, GP_LOG_DEBUG, lf);
    c.log = &log;
    c.max_connections = 2;
    s = start(&c);
    for (int i = 0; i < 2; i++) {
        fd[i] = raw_connect(gp_server_port(s));
        GP_CHECK(raw_send(fd[i], "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n"));
        GP_CHECK_INT(raw_answer(fd[i], body, sizeof(body)), 200);
    }
    extra = raw_connect(gp_server_port(s)); /* the kernel completes it; the server closes it */
    (void)raw_send(extra, "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n");
    GP_CHECK(raw_read(extra, buf, sizeof(buf)) <= 0);
    close(extra);
    GP_CHECK(metric_value(m, "gpupack_http_connections_refused_total", "server=\"test\"") == 1);
    close(fd[0]);
    for (int i = 0; i < 50 && code != 200; i++) { /* until the server has seen the close */
        usleep(50 * 1000);
        fd[2] = raw_connect(gp_server_port(s));
        code = raw_send(fd[2], "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
                   ? raw_answer(fd[2], body, sizeof(body)) : -1;
        close(fd[2]);
    }
    GP_CHECK_INT(code, 200);
    GP_CHECK_INT(raw_send(fd[1], "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n"), 1);
    GP_CHECK_INT(raw_answer(fd[1], body, sizeof(body)), 200);
    close(fd[1]);
    gp_server_stop(s);
    text = slurp(lf);
    GP_CHECK(strstr(text, "\"msg\":\"connection refused: too many open\",\"server\":\"test\","
                          "\"open\":2,\"max_connections\":2") != NULL);
    free(text);
    fclose(lf);
    gp_log_destroy(&log);
    gp_metrics_free(m);
}

/* A body trickling in past request_timeout_s is cut off; an idle connection is closed after
 * idle_timeout_s. */
GP_TEST(request_and_idle_timeouts)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    char buf[1024];
    double t0;
    int fd;

    c.request_timeout_s = 1;
    c.idle_timeout_s = 2;
    s = start(&c);
    fd = raw_connect(gp_server_port(s));
    GP_CHECK(raw_send(fd, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          "Content-Length: 6\r\n\r\n[1"));
    for (int i = 0; i < 3; i++) {
        usleep(600 * 1000);
        (void)raw_send(fd, i == 0 ? "," : i == 1 ? "2" : "]");
    }
    (void)raw_send(fd, "]]");
    GP_CHECK_INT(raw_read(fd, buf, sizeof(buf)), 0); /* closed without an answer */
    close(fd);

    fd = raw_connect(gp_server_port(s));
    t0 = now_s();
    GP_CHECK_INT(raw_read(fd, buf, sizeof(buf)), 0);
    GP_CHECK(now_s() - t0 > 1.5 && now_s() - t0 < 4.5);
    close(fd);
    gp_server_stop(s);
}

/* Sends a GET with one header of n bytes; returns the first line of the answer. */
static void big_header(gp_server *s, size_t n, char *buf, size_t bufsz)
{
    char *req = malloc(n + 128);
    size_t k = (size_t)snprintf(req, 128, "GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close"
                                          "\r\nX-Big: ");
    int fd;

    memset(req + k, 'a', n);
    memcpy(req + k + n, "\r\n\r\n", 5);
    fd = raw_connect(gp_server_port(s));
    (void)raw_send(fd, req);
    raw_read(fd, buf, bufsz);
    buf[strcspn(buf, "\r")] = '\0';
    close(fd);
    free(req);
}

GP_TEST(huge_headers_refused)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    char buf[1024];

    s = start(&c);
    big_header(s, 16 * 1024, buf, sizeof(buf));
    GP_CHECK_STR(buf, "HTTP/1.1 200 OK");
    big_header(s, 28 * 1024, buf, sizeof(buf)); /* a connection's memory is 32 KiB */
    GP_CHECK_STR(buf, "HTTP/1.1 200 OK");
    big_header(s, 36 * 1024, buf, sizeof(buf));
    GP_CHECK_STR(buf, "HTTP/1.1 431 Request Header Fields Too Large");
    big_header(s, 90 * 1024, buf, sizeof(buf));
    GP_CHECK(strncmp(buf, "HTTP/1.1 4", 10) == 0 || buf[0] == '\0');
    printf("  90 KiB header: \"%s\"\n", buf);
    big_header(s, 100, buf, sizeof(buf)); /* still serving */
    GP_CHECK_STR(buf, "HTTP/1.1 200 OK");
    gp_server_stop(s);
}

static bool have_ipv6_loopback(void)
{
    struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
    int fd = socket(AF_INET6, SOCK_STREAM, 0);
    bool ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;

    if (fd >= 0)
        close(fd);
    return ok;
}

GP_TEST(dual_stack_any)
{
    gp_server_config c = base_config(NULL);
    gp_server *s;
    reply r;
    char url[128];
    CURL *h;

    if (!have_ipv6_loopback()) {
        printf("  no IPv6 loopback here; skipped\n");
        return;
    }
    curl_global_init(CURL_GLOBAL_ALL);
    c.host = "::";
    s = start(&c);
    GP_CHECK_INT(request(s, &r, "/ping", "GET", NULL, NULL), 200);
    h = client(&r);
    snprintf(url, sizeof(url), "http://[::1]:%d/ping", gp_server_port(s));
    GP_CHECK_INT(perform(h, &r, url, "GET", NULL, NULL), 200);
    curl_easy_cleanup(h);
    gp_server_stop(s);
    curl_global_cleanup();
}

/* ---- TLS ----------------------------------------------------------------------------------- */

typedef struct {
    char dir[64];
    char ca[128], cert[128], key[128];      /* the CA and the files the server watches */
    char one_crt[128], one_key[128], two_crt[128], two_key[128];
    char cli_crt[128], cli_key[128], rogue_crt[128], rogue_key[128];
} tls_files;

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    GP_CHECK_INT(system(cmd), 0);
}

#define EC "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2"

/* A leaf signed by the test CA. */
static void make_leaf(const tls_files *t, const char *cn, const char *crt, const char *key)
{
    sh("openssl req -x509 " EC " -subj /CN=%s -addext subjectAltName=DNS:localhost,IP:127.0.0.1 "
       "-addext basicConstraints=critical,CA:FALSE -CA %s -CAkey %s/ca.key -keyout %s -out %s "
       "2>/dev/null",
       cn, t->ca, t->dir, key, crt);
}

static void copy_file(const char *from, const char *to)
{
    sh("cp %s %s.tmp && mv %s.tmp %s", from, to, to, to); /* rename: an atomic swap */
}

static void make_tls_files(tls_files *t)
{
    memset(t, 0, sizeof(*t));
    snprintf(t->dir, sizeof(t->dir), "/tmp/gp-server-XXXXXX");
    GP_CHECK(mkdtemp(t->dir) != NULL);
#define F(field, name) snprintf(t->field, sizeof(t->field), "%s/" name, t->dir)
    F(ca, "ca.crt");
    F(cert, "tls.crt");
    F(key, "tls.key");
    F(one_crt, "one.crt");
    F(one_key, "one.key");
    F(two_crt, "two.crt");
    F(two_key, "two.key");
    F(cli_crt, "client.crt");
    F(cli_key, "client.key");
    F(rogue_crt, "rogue.crt");
    F(rogue_key, "rogue.key");
#undef F
    sh("openssl req -x509 " EC " -subj /CN=gpupack-test-ca -keyout %s/ca.key -out %s 2>/dev/null",
       t->dir, t->ca);
    make_leaf(t, "gpupack-one", t->one_crt, t->one_key);
    make_leaf(t, "gpupack-two", t->two_crt, t->two_key);
    make_leaf(t, "gpupack-client", t->cli_crt, t->cli_key);
    sh("openssl req -x509 " EC " -subj /CN=rogue -keyout %s -out %s 2>/dev/null", t->rogue_key,
       t->rogue_crt);
    copy_file(t->one_crt, t->cert);
    copy_file(t->one_key, t->key);
}

static void remove_tls_files(const tls_files *t)
{
    sh("rm -rf %s", t->dir);
}

static gp_server *start_tls(const tls_files *t, gp_metrics *m, bool client_certs)
{
    gp_server_config c = base_config(m);

    c.cert_file = t->cert;
    c.key_file = t->key;
    c.client_ca_file = client_certs ? t->ca : NULL;
    return start(&c);
}

static CURL *tls_client(reply *r, const tls_files *t)
{
    CURL *h = client(r);

    curl_easy_setopt(h, CURLOPT_CAINFO, t->ca);
    curl_easy_setopt(h, CURLOPT_CERTINFO, 1L);
    return h;
}

/* Whether the leaf certificate of h's last handshake has CN=cn. */
static bool served_cn(CURL *h, const char *cn)
{
    struct curl_certinfo *ci = NULL;
    char want[64];

    snprintf(want, sizeof(want), "CN = %s", cn);
    if (curl_easy_getinfo(h, CURLINFO_CERTINFO, &ci) != CURLE_OK || ci == NULL ||
        ci->num_of_certs < 1)
        return false;
    for (struct curl_slist *l = ci->certinfo[0]; l != NULL; l = l->next)
        if (strncmp(l->data, "Subject:", 8) == 0 && strstr(l->data, want) != NULL)
            return true;
    return false;
}

/* A GET /ping over a new TLS connection; returns the status or -curl error, and whether the
 * served certificate was cn. */
static long tls_ping(gp_server *s, const tls_files *t, const char *cn, bool *is_cn)
{
    reply r;
    char url[128];
    CURL *h = tls_client(&r, t);
    long code;

    url_for(url, sizeof(url), "https", s, "/ping");
    code = perform(h, &r, url, "GET", NULL, NULL);
    if (is_cn != NULL)
        *is_cn = code == 200 && served_cn(h, cn);
    curl_easy_cleanup(h);
    return code;
}

GP_TEST(tls_serves_and_verifies)
{
    gp_metrics *m = gp_metrics_new();
    tls_files t;
    gp_server *s;
    bool one = false;
    double expiry;

    curl_global_init(CURL_GLOBAL_ALL);
    make_tls_files(&t);
    s = start_tls(&t, m, false);
    GP_CHECK_INT(tls_ping(s, &t, "gpupack-one", &one), 200);
    GP_CHECK(one);
    GP_CHECK(gp_server_tls_ready(s));
    expiry = metric_value(m, "gpupack_tls_certificate_expiry_timestamp_seconds", "");
    GP_CHECK(expiry > (double)time(NULL) + 86400 && expiry < (double)time(NULL) + 3 * 86400);
    gp_server_stop(s);
    remove_tls_files(&t);
    gp_metrics_free(m);
    curl_global_cleanup();
}

/* Offers exactly one TLS version range; SECLEVEL=0 lets OpenSSL offer the old versions at
 * all, so a refusal comes from the server. */
static long tls_ping_version(gp_server *s, const tls_files *t, long version)
{
    reply r;
    char url[128];
    CURL *h = tls_client(&r, t);
    long code;

    curl_easy_setopt(h, CURLOPT_SSLVERSION, version);
    curl_easy_setopt(h, CURLOPT_SSL_CIPHER_LIST, "DEFAULT:@SECLEVEL=0");
    url_for(url, sizeof(url), "https", s, "/ping");
    code = perform(h, &r, url, "GET", NULL, NULL);
    curl_easy_cleanup(h);
    return code;
}

GP_TEST(tls_versions_below_1_2_refused)
{
    tls_files t;
    gp_server *s;

    curl_global_init(CURL_GLOBAL_ALL);
    make_tls_files(&t);
    s = start_tls(&t, NULL, false);
    GP_CHECK_INT(tls_ping_version(s, &t, CURL_SSLVERSION_TLSv1_0 | CURL_SSLVERSION_MAX_TLSv1_1),
                 -CURLE_SSL_CONNECT_ERROR);
    GP_CHECK_INT(tls_ping_version(s, &t, CURL_SSLVERSION_TLSv1_0 | CURL_SSLVERSION_MAX_TLSv1_0),
                 -CURLE_SSL_CONNECT_ERROR);
    GP_CHECK_INT(tls_ping_version(s, &t, CURL_SSLVERSION_TLSv1_2 | CURL_SSLVERSION_MAX_TLSv1_2),
                 200);
    GP_CHECK_INT(tls_ping_version(s, &t, CURL_SSLVERSION_TLSv1_3 | CURL_SSLVERSION_MAX_TLSv1_3),
                 200);
    gp_server_stop(s);
    remove_tls_files(&t);
    curl_global_cleanup();
}

GP_TEST(tls_keepalive_reuses_connection)
{
    tls_files t;
    gp_server *s;
    reply r;
    char url[128];
    CURL *h;

    curl_global_init(CURL_GLOBAL_ALL);
    make_tls_files(&t);
    s = start_tls(&t, NULL, false);
    h = tls_client(&r, &t);
    url_for(url, sizeof(url), "https", s, "/echo");
    GP_CHECK_INT(perform(h, &r, url, "POST", "application/json", "{\"n\":1}"), 200);
    GP_CHECK_INT(connects(h), 1);
    GP_CHECK_INT(perform(h, &r, url, "POST", "application/json", "{\"n\":2}"), 200);
    GP_CHECK_STR(r.body, "{\"n\":2}");
    GP_CHECK_INT(connects(h), 0);
    curl_easy_cleanup(h);
    gp_server_stop(s);
    remove_tls_files(&t);
    curl_global_cleanup();
}

/* Swaps the pair on disk, reloads explicitly; new connections get the new certificate while an
 * open keep-alive connection goes on working. */
GP_TEST(tls_reload_swaps_certificate)
{
    gp_metrics *m = gp_metrics_new();
    tls_files t;
    gp_server *s;
    gp_err err = { { 0 } };
    reply r;
    char url[128];
    bool two = false;
    CURL *h;

    curl_global_init(CURL_GLOBAL_ALL);
    make_tls_files(&t);
    s = start_tls(&t, m, false);
    h = tls_client(&r, &t);
    url_for(url, sizeof(url), "https", s, "/ping");
    GP_CHECK_INT(perform(h, &r, url, "GET", NULL, NULL), 200);
    GP_CHECK(served_cn(h, "gpupack-one"));
    copy_file(t.two_key, t.key);
    copy_file(t.two_crt, t.cert);
    GP_CHECK_INT(gp_server_reload_certs(s, &err), GP_OK);
    GP_CHECK_INT(tls_ping(s, &t, "gpupack-two", &two), 200);
    GP_CHECK(two);
    GP_CHECK_INT(perform(h, &r, url, "GET", NULL, NULL), 200); /* the old connection */
    GP_CHECK_INT(connects(h), 0);
    GP_CHECK(metric_value(m, "gpupack_tls_reloads_total", "result=\"success\"") >= 1);
    GP_CHECK(gp_server_tls_ready(s));
    curl_easy_cleanup(h);
    gp_server_stop(s);
    remove_tls_files(&t);
    gp_metrics_free(m);
    curl_global_cleanup();
}

typedef struct {
    gp_server *s;
    const tls_files *t;
    volatile int stop;
    int ok, failed;
} hammer;

/* New TLS connections in a loop, each must succeed with one of the two certificates. */
static void *hammer_thread(void *arg)
{
    hammer *hm = arg;

    while (!hm->stop) {
        bool one = false, two = false;
        reply r;
        char url[128];
        CURL *h = tls_client(&r, hm->t);

        url_for(url, sizeof(url), "https", hm->s, "/ping");
        if (perform(h, &r, url, "GET", NULL, NULL) == 200) {
            one = served_cn(h, "gpupack-one");
            two = served_cn(h, "gpupack-two");
        }
        curl_easy_cleanup(h);
        if (one || two)
            hm->ok++;
        else
            hm->failed++;
    }
    return NULL;
}

/* Reloads again and again while clients keep handshaking: every handshake gets a whole pair,
 * and nothing is freed under a handshake (AddressSanitizer would say). */
GP_TEST(tls_reloads_during_handshakes)
{
    gp_metrics *m = gp_metrics_new();
    tls_files t;
    gp_server_config c = base_config(m);
    gp_err err = { { 0 } };
    hammer hm[3] = { { 0 } };
    pthread_t th[3];

    curl_global_init(CURL_GLOBAL_ALL);
    make_tls_files(&t);
    c.cert_file = t.cert;
    c.key_file = t.key;
    c.threads = 4;
    hm[0].s = start(&c);
    for (int i = 0; i < 3; i++) {
        hm[i].s = hm[0].s;
        hm[i].t = &t;
        pthread_create(&th[i], NULL, hammer_thread, &hm[i]);
    }
    for (int i = 0; i < 30; i++) {
        /* Write each pair under new names first, then rename both: one pair is always whole. */
        copy_file(i % 2 ? t.one_key : t.two_key, t.key);
        copy_file(i % 2 ? t.one_crt : t.two_crt, t.cert);
        if (gp_server_reload_certs(hm[0].s, &err) != GP_OK)
            printf("  reload %d: %s\n", i, err.msg);
        usleep(20 * 1000);
    }
    for (int i = 0; i < 3; i++) {
        hm[i].stop = 1;
        pthread_join(th[i], NULL);
        GP_CHECK(hm[i].ok > 0);
        GP_CHECK_INT(hm[i].failed, 0);
    }
    printf("  handshakes during reloads: %d\n", hm[0].ok + hm[1].ok + hm[2].ok);
    GP_CHECK(metric_value(m, "gpupack_tls_reloads_total", "result=\"success\"") >= 30);
    gp_server_stop(hm[0].s);
    remove_tls_files(&t);
    gp_metrics_free(m);
    curl_global_cleanup();
}

GP_TEST(tls_watcher_picks_up_new_files)
{
    gp_metrics *m = gp_metrics_new();
    tls_files t;
    gp_server *s;
    bool two = false;

    curl_global_init(CURL_GLOBAL_ALL);
    make_tls_files(&t);
    s = start_tls(&t, m, false);
    GP_CHECK_INT(tls_ping(s, &t, "gpupack-one", NULL), 200);
    copy_file(t.two_key, t.key);
    copy_file(t.two_crt, t.cert);
    for (int i = 0; i < 50 && !two; i++) {
        GP_CHECK_INT(tls_ping(s, &t, "gpupack-two", &two), 200);
        if (!two)
            usleep(100 * 1000);
    }
    GP_CHECK(two);
    GP_CHECK(metric_value(m, "gpupack_tls_reloads_total", "result=\"success\"") >= 1);
    gp_server_stop(s);
    remove_tls_files(&t);
    gp_metrics_free(m);
    curl_global_cleanup();
}

GP_TEST(tls_bad_reload_keeps_old_pair)
{
    gp_metrics *m = gp_metrics_new();
    tls_files t;
    gp_server_config c = base_config(m);
    gp_server *s;
    gp_err err = { { 0 } };
    gp_log log;
    FILE *lf = tmpfile();
    bool one = false;
    char *text;

    curl_global_init(CURL_GLOBAL_ALL);
    make_tls_files(&t);
    gp_log_init(&log, GP_LOG_INFO, lf);
    c.log = &log;
    c.cert_file = t.cert;
    c.key_file = t.key;
    s = start(&c);
    copy_file(t.two_key, t.key); /* the key no longer matches the certificate */
    GP_CHECK_INT(gp_server_reload_certs(s, &err), GP_EINVAL);
    GP_CHECK(strncmp(err.msg, "key file: ", 10) == 0 &&
             strstr(err.msg, ": private key does not match the certificate in certificate file ")
                 != NULL);
    GP_CHECK_INT(tls_ping(s, &t, "gpupack-one", &one), 200);
    GP_CHECK(one);
    GP_CHECK(metric_value(m, "gpupack_tls_reloads_total", "result=\"failure\"") >= 1);
    GP_CHECK(gp_server_tls_ready(s));
    sh("echo garbage > %s", t.cert);
    GP_CHECK_INT(gp_server_reload_certs(s, &err), GP_EINVAL);
    GP_CHECK_INT(tls_ping(s, &t, "gpupack-one", &one), 200);
    GP_CHECK(one);
    gp_server_stop(s);
    text = slurp(lf);
    GP_CHECK(strstr(text, "\"msg\":\"tls certificate loaded\"") != NULL);
    GP_CHECK(strstr(text, "\"subject\":\"CN=gpupack-one\"") != NULL);
    GP_CHECK(strstr(text, "\"level\":\"error\",\"msg\":\"tls certificate reload failed; "
                          "keeping the old pair\"") != NULL);
    free(text);
    fclose(lf);
    gp_log_destroy(&log);
    remove_tls_files(&t);
    gp_metrics_free(m);
    curl_global_cleanup();
}

GP_TEST(tls_start_with_bad_pair_fails)
{
    tls_files t;
    gp_server_config c = base_config(NULL);
    gp_server *s = (gp_server *)1;
    gp_err err = { { 0 } };

    char want[600];

    make_tls_files(&t);
    c.cert_file = t.one_crt;
    c.key_file = t.two_key;
    c.cert_flag = "--tls-cert";
    c.key_flag = "--tls-key";
    GP_CHECK_INT(gp_server_start(&c, &s, &err), GP_EINVAL);
    GP_CHECK(s == NULL);
    snprintf(want, sizeof(want), "--tls-key: %s: private key does not match the certificate in "
             "--tls-cert %s", t.two_key, t.one_crt);
    GP_CHECK_STR(err.msg, want);
    c.cert_file = t.two_key; /* a key where the certificate belongs */
    GP_CHECK_INT(gp_server_start(&c, &s, &err), GP_EINVAL);
    snprintf(want, sizeof(want), "--tls-cert: %s: cannot parse certificate PEM: no start line",
             t.two_key);
    GP_CHECK_STR(err.msg, want);
    c.cert_file = t.one_crt;
    c.key_file = NULL;
    GP_CHECK_INT(gp_server_start(&c, &s, &err), GP_EINVAL);
    c.key_file = "/nonexistent/tls.key";
    GP_CHECK(gp_server_start(&c, &s, &err) != GP_OK);
    GP_CHECK_STR(err.msg, "--tls-key: /nonexistent/tls.key: cannot open: No such file or "
                          "directory");
    remove_tls_files(&t);
}

GP_TEST(tls_client_certificates_required)
{
    tls_files t;
    gp_server *s;
    reply r;
    char url[128];
    CURL *h;
    long code;

    curl_global_init(CURL_GLOBAL_ALL);
    make_tls_files(&t);
    s = start_tls(&t, NULL, true);
    code = tls_ping(s, &t, "gpupack-one", NULL);
    printf("  without a client certificate: %ld\n", code);
    GP_CHECK(code < 0); /* no client certificate: the handshake fails */
    url_for(url, sizeof(url), "https", s, "/ping");
    h = tls_client(&r, &t);
    curl_easy_setopt(h, CURLOPT_SSLCERT, t.cli_crt);
    curl_easy_setopt(h, CURLOPT_SSLKEY, t.cli_key);
    GP_CHECK_INT(perform(h, &r, url, "GET", NULL, NULL), 200);
    curl_easy_cleanup(h);
    h = tls_client(&r, &t);
    curl_easy_setopt(h, CURLOPT_SSLCERT, t.rogue_crt);
    curl_easy_setopt(h, CURLOPT_SSLKEY, t.rogue_key);
    GP_CHECK(perform(h, &r, url, "GET", NULL, NULL) < 0);
    curl_easy_cleanup(h);
    gp_server_stop(s);
    remove_tls_files(&t);
    curl_global_cleanup();
}

GP_TEST(tls_dual_stack)
{
    tls_files t;
    gp_server_config c;
    gp_server *s;
    reply r;
    char url[128];
    CURL *h;

    if (!have_ipv6_loopback()) {
        printf("  no IPv6 loopback here; skipped\n");
        return;
    }
    curl_global_init(CURL_GLOBAL_ALL);
    make_tls_files(&t);
    c = base_config(NULL);
    c.host = "::";
    c.cert_file = t.cert;
    c.key_file = t.key;
    s = start(&c);
    GP_CHECK_INT(tls_ping(s, &t, "gpupack-one", NULL), 200);
    h = tls_client(&r, &t);
    snprintf(url, sizeof(url), "https://[::1]:%d/ping", gp_server_port(s));
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L); /* the SAN names 127.0.0.1, not ::1 */
    GP_CHECK_INT(perform(h, &r, url, "GET", NULL, NULL), 200);
    curl_easy_cleanup(h);
    gp_server_stop(s);
    remove_tls_files(&t);
    curl_global_cleanup();
}

GP_MAIN(GP_CASE(echo_200), GP_CASE(not_found_404_and_keepalive),
        GP_CASE(wrong_method_405_with_allow), GP_CASE(content_type_415),
        GP_CASE(content_length_413_without_reading), GP_CASE(content_length_413_with_curl),
        GP_CASE(chunked_body_413_over_cap), GP_CASE(query_string_ignored), GP_CASE(suffix_routes),
        GP_CASE(handler_defaults_and_status), GP_CASE(metrics_counted_with_bounded_labels),
        GP_CASE(bind_failure_names_address),
        GP_CASE(parse_listen_numeric_hosts_only), GP_CASE(quiesce_refuses_new_keeps_open),
        GP_CASE(connections_spread_over_threads), GP_CASE(connection_limit_refuses_and_recovers),
        GP_CASE(request_and_idle_timeouts), GP_CASE(huge_headers_refused),
        GP_CASE(dual_stack_any), GP_CASE(tls_serves_and_verifies),
        GP_CASE(tls_versions_below_1_2_refused), GP_CASE(tls_keepalive_reuses_connection),
        GP_CASE(tls_reload_swaps_certificate), GP_CASE(tls_reloads_during_handshakes),
        GP_CASE(tls_watcher_picks_up_new_files),
        GP_CASE(tls_bad_reload_keeps_old_pair), GP_CASE(tls_start_with_bad_pair_fails),
        GP_CASE(tls_client_certificates_required), GP_CASE(tls_dual_stack))
