/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of lib/kubeconfig.c and lib/kube.c: kubeconfig and in-cluster loading (files in a fresh
 * temporary directory per test), line splitting, and informers against tests/e2e/fakeapi.py,
 * started per test on a free port and killed at its end. The informer's handlers keep a small
 * cache (name -> resourceVersion); tests compare it with the fake's truth, fetched with
 * gp_kube_get() from the list endpoint, after injecting the faults the fake offers. */
#include "gpupack/kube.h"
#include "gpupack/kubeexec.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <time.h>

#include "gptest.h"
#include "metric_read.h"

#ifndef GP_VERSION
#define GP_VERSION "0.0.0" /* as lib/kube.c, when built without the Makefile */
#endif

#define FAKE "tests/e2e/fakeapi.py"
#define CACHE_MAX 64

static int64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Polls cond every 10 ms for up to ms milliseconds. */
#define WAIT_UNTIL(cond, ms)                                                                    \
    do {                                                                                        \
        int64_t gp__end = mono_ms() + (ms);                                                     \
        while (!(cond) && mono_ms() < gp__end)                                                  \
            usleep(10000);                                                                      \
    } while (0)

/* ---- files --------------------------------------------------------------------------------- */

static void make_tmpdir(char *dir, size_t n)
{
    snprintf(dir, n, "/tmp/gpkube.XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        abort();
    }
}

static void remove_tmpdir(const char *dir)
{
    char cmd[256];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

static void write_file(const char *dir, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void write_file(const char *dir, const char *name, const char *fmt, ...)
{
    char path[512], tmp[520];
    va_list ap;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    f = fopen(tmp, "w");
    if (f == NULL) {
        perror(tmp);
        abort();
    }
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
    rename(tmp, path); /* atomic, as kubelet replaces a token */
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = calloc(1, (size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        buf[0] = '\0';
    fclose(f);
    return buf;
}

static char *base64_file(const char *dir, const char *name)
{
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char path[512];
    char *raw, *out;
    size_t n, j = 0;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    raw = read_all(path);
    if (raw == NULL)
        return NULL;
    n = strlen(raw);
    out = malloc(n / 3 * 4 + 8);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)raw[i] << 16;

        if (i + 1 < n)
            v |= (uint32_t)(unsigned char)raw[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)raw[i + 2];
        out[j++] = tbl[(v >> 18) & 63];
        out[j++] = tbl[(v >> 12) & 63];
        out[j++] = i + 1 < n ? tbl[(v >> 6) & 63] : '=';
        out[j++] = i + 2 < n ? tbl[v & 63] : '=';
    }
    out[j] = '\0';
    free(raw);
    return out;
}

/* A CA, a server certificate for 127.0.0.1 (srv), one only for the name kube.test (name), and a
 * client certificate (client), made with the openssl CLI. */
static bool make_certs(const char *dir)
{
    char cmd[2048];

    write_file(dir, "srv.ext", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
    write_file(dir, "name.ext", "subjectAltName=DNS:kube.test\nextendedKeyUsage=serverAuth\n");
    write_file(dir, "client.ext", "extendedKeyUsage=clientAuth\n");
    snprintf(cmd, sizeof(cmd),
             "(cd '%s' && K='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes' && "
             "openssl req -x509 $K -keyout ca.key -out ca.crt -days 2 -subj /CN=test-ca && "
             "for c in srv name client; do "
             "openssl req $K -keyout $c.key -out $c.csr -subj /CN=$c && "
             "openssl x509 -req -in $c.csr -CA ca.crt -CAkey ca.key -CAcreateserial "
             "-out $c.crt -days 2 -extfile $c.ext || exit 1; done)",
             dir);
    strncat(cmd, " >/dev/null 2>&1", sizeof(cmd) - strlen(cmd) - 1);
    return system(cmd) == 0;
}

/* ---- the fake API server and the informer fixture ------------------------------------------ */

typedef struct {
    char key[160];
    char rv[32];
    bool seen;
} entry;

typedef struct {
    pthread_mutex_t mu;
    entry e[CACHE_MAX];
    size_t n;
    int list_begins, list_ends, items, added, modified, deleted;
} cache;

typedef struct {
    char dir[64];
    pid_t pid;
    char url[96];
    gp_kube_config *cfg; /* how tests and informers reach the fake */
    FILE *logf;
    gp_log log;
    gp_metrics *m;
    cache c;
    gp_informer *inf;
} fixture;

static void obj_key(const cJSON *o, char *buf, size_t n)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(o, "metadata");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(meta, "name");
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(meta, "namespace");

    if (cJSON_IsString(ns))
        snprintf(buf, n, "%s/%s", ns->valuestring, cJSON_IsString(name) ? name->valuestring : "");
    else
        snprintf(buf, n, "%s", cJSON_IsString(name) ? name->valuestring : "");
}

static const char *obj_rv(const cJSON *o)
{
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(o, "metadata"), "resourceVersion");

    return cJSON_IsString(rv) ? rv->valuestring : "";
}

static entry *cache_find(cache *c, const char *key)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->e[i].key, key) == 0)
            return &c->e[i];
    return NULL;
}

static void cache_put(cache *c, const cJSON *o)
{
    char key[160];
    entry *e;

    obj_key(o, key, sizeof(key));
    if ((e = cache_find(c, key)) == NULL && c->n < CACHE_MAX) {
        e = &c->e[c->n++];
        snprintf(e->key, sizeof(e->key), "%s", key);
    }
    if (e != NULL) {
        snprintf(e->rv, sizeof(e->rv), "%s", obj_rv(o));
        e->seen = true;
    }
}

static void cache_del(cache *c, const cJSON *o)
{
    char key[160];
    entry *e;

    obj_key(o, key, sizeof(key));
    if ((e = cache_find(c, key)) != NULL)
        *e = c->e[--c->n];
}

static void on_list_begin(void *ctx)
{
    cache *c = ctx;

    pthread_mutex_lock(&c->mu);
    c->list_begins++;
    for (size_t i = 0; i < c->n; i++)
        c->e[i].seen = false;
    pthread_mutex_unlock(&c->mu);
}

static void on_list_item(void *ctx, const cJSON *o)
{
    cache *c = ctx;

    pthread_mutex_lock(&c->mu);
    c->items++;
    cache_put(c, o);
    pthread_mutex_unlock(&c->mu);
}

/* Replaces the state: what the list did not deliver is gone. */
static void on_list_end(void *ctx)
{
    cache *c = ctx;

    pthread_mutex_lock(&c->mu);
    c->list_ends++;
    for (size_t i = 0; i < c->n;) {
        if (!c->e[i].seen)
            c->e[i] = c->e[--c->n];
        else
            i++;
    }
    pthread_mutex_unlock(&c->mu);
}

static void on_event(void *ctx, const char *type, const cJSON *o)
{
    cache *c = ctx;

    pthread_mutex_lock(&c->mu);
    if (strcmp(type, "ADDED") == 0) {
        c->added++;
        cache_put(c, o);
    } else if (strcmp(type, "MODIFIED") == 0) {
        c->modified++;
        cache_put(c, o);
    } else if (strcmp(type, "DELETED") == 0) {
        c->deleted++;
        cache_del(c, o);
    }
    pthread_mutex_unlock(&c->mu);
}

static const gp_informer_handlers handlers = { on_list_begin, on_list_item, on_list_end,
                                               on_event };

static int cache_get(cache *c, const int *field)
{
    int v;

    pthread_mutex_lock(&c->mu);
    v = *field;
    pthread_mutex_unlock(&c->mu);
    return v;
}

#define CACHED(f, field) cache_get(&(f)->c, &(f)->c.field)

static void fx_init(fixture *f)
{
    char path[128];

    memset(f, 0, sizeof(*f));
    make_tmpdir(f->dir, sizeof(f->dir));
    pthread_mutex_init(&f->c.mu, NULL);
    snprintf(path, sizeof(path), "%s/informer.log", f->dir);
    f->logf = fopen(path, "w+");
    gp_log_init(&f->log, GP_LOG_DEBUG, f->logf);
    f->m = gp_metrics_new();
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* Starts the fake with extra arguments (NULL-terminated); scheme "http" or "https". */
static bool fx_fake(fixture *f, const char *scheme, const char *const *extra)
{
    char portfile[128], *port = NULL;
    const char *argv[32] = { "python3", FAKE, "--port-file", portfile };
    size_t n = 4;
    int64_t end;

    snprintf(portfile, sizeof(portfile), "%s/port", f->dir);
    if (f->cfg == NULL) /* also when the fake fails to start: the test then fails, not crashes */
        f->cfg = calloc(1, sizeof(*f->cfg));
    for (; extra && *extra && n < 30; extra++)
        argv[n++] = *extra;
    argv[n] = NULL;
    fflush(stdout);
    f->pid = fork();
    if (f->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a test that times out leaves no server behind */
        execvp("python3", (char *const *)argv);
        _exit(127);
    }
    /* Python's start-up takes seconds on a loaded 2-core machine (make check runs in parallel). */
    for (end = mono_ms() + 30000; mono_ms() < end; usleep(10000)) {
        if ((port = read_all(portfile)) != NULL)
            break;
    }
    if (port == NULL)
        return false;
    port[strcspn(port, "\n")] = '\0';
    snprintf(f->url, sizeof(f->url), "%s://127.0.0.1:%s", scheme, port);
    free(port);
    free(f->cfg->server);
    f->cfg->server = strdup(f->url);
    return true;
}

static void fx_stop_fake(fixture *f)
{
    if (f->pid > 0) {
        kill(f->pid, SIGKILL);
        waitpid(f->pid, NULL, 0);
        f->pid = 0;
    }
}

static void fx_done(fixture *f)
{
    gp_informer_stop(f->inf);
    f->inf = NULL;
    fx_stop_fake(f);
    if (gp_test_failed && f->logf != NULL) {
        fflush(f->logf);
        fseek(f->logf, 0, SEEK_SET);
        printf("  --- informer log ---\n");
        for (int ch; (ch = fgetc(f->logf)) != EOF;)
            putchar(ch);
    }
    gp_log_destroy(&f->log);
    if (f->logf)
        fclose(f->logf);
    gp_metrics_free(f->m);
    gp_kube_config_free(f->cfg);
    pthread_mutex_destroy(&f->c.mu);
    remove_tmpdir(f->dir);
}

static bool fx_start(fixture *f, const char *name, const char *path, const char *selector,
                     unsigned page_limit, unsigned watch_timeout_s, unsigned backoff_max_ms)
{
    gp_informer_spec spec = { .name = name, .path = path, .field_selector = selector,
                              .page_limit = page_limit, .watch_timeout_s = watch_timeout_s,
                              .backoff_max_ms = backoff_max_ms };
    gp_err err = { { 0 } };
    gp_status st = gp_informer_start(f->cfg, &spec, &handlers, &f->c, &f->log, f->m, &f->inf,
                                     &err);

    if (st != GP_OK)
        printf("  informer start: %s\n", err.msg);
    return st == GP_OK;
}

static bool fx_start_nodes(fixture *f)
{
    return fx_start(f, "nodes", "/api/v1/nodes", NULL, 0, 0, 1000);
}

/* POSTs body to the fake's control path; returns the HTTP status. */
static long ctl(fixture *f, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static size_t discard(char *p, size_t s, size_t n, void *u)
{
    (void)p;
    (void)u;
    return s * n;
}

static long ctl(fixture *f, const char *path, const char *fmt, ...)
{
    char url[256], body[4096];
    CURL *e = curl_easy_init();
    long code = 0;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(body, sizeof(body), fmt, ap);
    va_end(ap);
    snprintf(url, sizeof(url), "%s%s", f->url, path);
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT, 10L);
    if (f->cfg->cert_file) {
        curl_easy_setopt(e, CURLOPT_SSLCERT, f->cfg->cert_file);
        curl_easy_setopt(e, CURLOPT_SSLKEY, f->cfg->key_file);
    }
    if (curl_easy_perform(e) == CURLE_OK)
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(e);
    if (code != 200)
        printf("  control %s %s: HTTP %ld\n", path, body, code);
    return code;
}

#define FAULT(f, ...) GP_CHECK_INT(ctl((f), "/_control/fault", __VA_ARGS__), 200)
#define APPLY(f, ...) GP_CHECK_INT(ctl((f), "/_control/apply", __VA_ARGS__), 200)

static void add_node(fixture *f, const char *name)
{
    APPLY(f, "{\"kind\":\"nodes\",\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"%s\"}}}",
          name);
}

static void add_nodes(fixture *f, int n)
{
    char name[16];

    for (int i = 1; i <= n; i++) {
        snprintf(name, sizeof(name), "n%d", i);
        add_node(f, name);
    }
}

static cJSON *get_json(fixture *f, const char *path)
{
    char *body = NULL;
    size_t len = 0;
    long code = 0;
    gp_err err = { { 0 } };
    cJSON *root;

    if (gp_kube_get(f->cfg, path, 1 << 24, &body, &len, &code, &err) != GP_OK) {
        printf("  GET %s: %s\n", path, err.msg);
        return NULL;
    }
    root = cJSON_Parse(body);
    free(body);
    return root;
}

/* A number from /_control/stats: group.key, or the top-level key when group is NULL. */
static long fake_stat(fixture *f, const char *group, const char *key)
{
    cJSON *root = get_json(f, "/_control/stats");
    const cJSON *g = group ? cJSON_GetObjectItemCaseSensitive(root, group) : root;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(g, key);
    long n = cJSON_IsNumber(v) ? (long)v->valuedouble : -1;

    cJSON_Delete(root);
    return n;
}

static double metric(fixture *f, const char *name, const char *labels)
{
    return metric_value(f->m, name, labels);
}

/* True when the cache holds exactly what the fake lists at path (with its query): its
 * /_control/list/ endpoint, which serves the same List JSON without counting as a list. */
static bool cache_is_truth(fixture *f, const char *path)
{
    cJSON *root = get_json(f, path);
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(root, "items"), *it;
    bool ok = cJSON_IsArray(items);
    char key[160];

    pthread_mutex_lock(&f->c.mu);
    if (ok && (size_t)cJSON_GetArraySize(items) != f->c.n)
        ok = false;
    cJSON_ArrayForEach(it, items) {
        entry *e;

        if (!ok)
            break;
        obj_key(it, key, sizeof(key));
        e = cache_find(&f->c, key);
        ok = e != NULL && strcmp(e->rv, obj_rv(it)) == 0;
    }
    pthread_mutex_unlock(&f->c.mu);
    cJSON_Delete(root);
    return ok;
}

static bool cache_has(fixture *f, const char *key)
{
    bool has;

    pthread_mutex_lock(&f->c.mu);
    has = cache_find(&f->c, key) != NULL;
    pthread_mutex_unlock(&f->c.mu);
    return has;
}

static bool log_contains(fixture *f, const char *s)
{
    char path[128], *log;
    bool found;

    fflush(f->logf);
    snprintf(path, sizeof(path), "%s/informer.log", f->dir);
    log = read_all(path);
    found = log != NULL && strstr(log, s) != NULL;
    free(log);
    return found;
}

static bool rv_is(fixture *f, long rv)
{
    char buf[64], want[32];

    gp_informer_resource_version(f->inf, buf, sizeof(buf));
    snprintf(want, sizeof(want), "%ld", rv);
    return strcmp(buf, want) == 0;
}

/* ---- line splitting ------------------------------------------------------------------------ */

typedef struct {
    char lines[16][64];
    int n;
    int fail_at; /* return GP_EINVAL on this line (1-based), 0: never */
} collected;

static gp_status collect(void *ctx, const char *line, size_t len)
{
    collected *c = ctx;

    if (line[len] != '\0' || len >= sizeof(c->lines[0]) || c->n >= 16)
        return GP_EINTERNAL;
    memcpy(c->lines[c->n], line, len + 1);
    c->n++;
    return c->n == c->fail_at ? GP_EINVAL : GP_OK;
}

GP_TEST(linebuf_every_chunk_boundary)
{
    const char *s = "{\"a\":1}\n{\"b\":22}\r\n\n{\"c\":333}\n";
    size_t n = strlen(s);

    for (size_t i = 0; i <= n; i++) {
        for (size_t j = i; j <= n; j++) {
            gp_linebuf lb;
            collected c = { .n = 0 };

            gp_linebuf_init(&lb, 64);
            GP_CHECK_INT(gp_linebuf_feed(&lb, s, i, collect, &c), GP_OK);
            GP_CHECK_INT(gp_linebuf_feed(&lb, s + i, j - i, collect, &c), GP_OK);
            GP_CHECK_INT(gp_linebuf_feed(&lb, s + j, n - j, collect, &c), GP_OK);
            GP_CHECK_INT(c.n, 3);
            GP_CHECK_STR(c.lines[0], "{\"a\":1}");
            GP_CHECK_STR(c.lines[1], "{\"b\":22}");
            GP_CHECK_STR(c.lines[2], "{\"c\":333}");
            GP_CHECK_INT(lb.s.len, 0);
            gp_linebuf_free(&lb);
        }
    }
}

GP_TEST(linebuf_byte_by_byte_crlf_and_partial_tail)
{
    const char *s = "\r\n\nab\r\n\r\n\r\ncd\nef";
    gp_linebuf lb;
    collected c = { .n = 0 };

    gp_linebuf_init(&lb, 16);
    for (size_t i = 0; s[i]; i++)
        GP_CHECK_INT(gp_linebuf_feed(&lb, s + i, 1, collect, &c), GP_OK);
    GP_CHECK_INT(c.n, 2);
    GP_CHECK_STR(c.lines[0], "ab");
    GP_CHECK_STR(c.lines[1], "cd");
    GP_CHECK_INT(lb.s.len, 2); /* "ef" waits for its newline */
    gp_linebuf_reset(&lb);
    GP_CHECK_INT(gp_linebuf_feed(&lb, "gh\n", 3, collect, &c), GP_OK);
    GP_CHECK_STR(c.lines[2], "gh");
    gp_linebuf_free(&lb);
    gp_linebuf_free(&lb); /* harmless twice */
}

GP_TEST(linebuf_limit)
{
    gp_linebuf lb;
    collected c = { .n = 0 };

    gp_linebuf_init(&lb, 8);
    GP_CHECK_INT(gp_linebuf_feed(&lb, "12345678\n", 9, collect, &c), GP_OK);
    GP_CHECK_INT(gp_linebuf_feed(&lb, "12345678\r\n", 10, collect, &c), GP_OK); /* CR is free */
    GP_CHECK_INT(c.n, 2);
    GP_CHECK_INT(gp_linebuf_feed(&lb, "123456789\n", 10, collect, &c), GP_ETOOBIG);
    GP_CHECK_INT(gp_linebuf_feed(&lb, "1234", 4, collect, &c), GP_OK);
    GP_CHECK_INT(gp_linebuf_feed(&lb, "5678", 4, collect, &c), GP_OK);
    GP_CHECK_INT(gp_linebuf_feed(&lb, "9X", 2, collect, &c), GP_ETOOBIG); /* across chunks */
    GP_CHECK_INT(lb.s.len, 0);
    GP_CHECK_INT(gp_linebuf_feed(&lb, "12345678\r9\n", 11, collect, &c), GP_ETOOBIG);
    GP_CHECK(lb.s.cap <= 8 + 2);
    GP_CHECK_INT(gp_linebuf_feed(&lb, "ok\n", 3, collect, &c), GP_OK); /* usable again */
    GP_CHECK_INT(c.n, 3);
    GP_CHECK_STR(c.lines[2], "ok");
    gp_linebuf_free(&lb);
}

GP_TEST(linebuf_callback_error_stops)
{
    gp_linebuf lb;
    collected c = { .fail_at = 2 };

    gp_linebuf_init(&lb, 64);
    GP_CHECK_INT(gp_linebuf_feed(&lb, "a\nb\nc\n", 6, collect, &c), GP_EINVAL);
    GP_CHECK_INT(c.n, 2);
    gp_linebuf_free(&lb);
}

/* ---- kubeconfig ---------------------------------------------------------------------------- */

/* Loads dir/name; on failure *msg holds the error. */
static gp_status load(const char *dir, const char *name, const char *context,
                      gp_kube_config **out, char *msg, size_t msgsz)
{
    char path[256];
    gp_err err = { { 0 } };
    gp_status st;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    st = gp_kube_config_load(path, context, out, &err);
    snprintf(msg, msgsz, "%s", err.msg);
    if (st != GP_OK && *out != NULL)
        printf("  *out set on failure\n");
    return st;
}

static const char *const kc_head = "apiVersion: v1\n"
                                   "kind: Config\n"
                                   "preferences: {}\n";

GP_TEST(kubeconfig_token_and_ca_data)
{
    char dir[64], msg[GP_ERR_MAX];
    gp_kube_config *k = NULL;
    char *tok = NULL;
    gp_err err = { { 0 } };

    make_tmpdir(dir, sizeof(dir));
    /* "-----BEGIN CERTIFICATE-----\nx\n" */
    write_file(dir, "config",
               "%sclusters:\n"
               "- name: other\n"
               "  cluster: {server: 'https://other:1'}\n"
               "- name: prod\n"
               "  cluster:\n"
               "    server: https://10.0.0.1:6443/\n"
               "    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCngK\n"
               "    insecure-skip-tls-verify: false\n"
               "    extensions: [{name: x, extension: {a: b}}]\n"
               "contexts:\n"
               "- name: main\n"
               "  context: {cluster: prod, user: admin, namespace: ns}\n"
               "current-context: main\n"
               "users:\n"
               "- name: admin\n"
               "  user:\n"
               "    token: abc.def-ghi\n",
               kc_head);
    GP_CHECK_INT(load(dir, "config", NULL, &k, msg, sizeof(msg)), GP_OK);
    GP_CHECK_STR(msg, "");
    if (k != NULL) {
        GP_CHECK_STR(k->server, "https://10.0.0.1:6443");
        GP_CHECK_STR(k->ca_pem, "-----BEGIN CERTIFICATE-----\nx\n");
        GP_CHECK(k->ca_file == NULL);
        GP_CHECK_STR(k->token, "abc.def-ghi");
        GP_CHECK(k->token_file == NULL && k->cert_file == NULL && k->cert_pem == NULL);
        GP_CHECK(!k->insecure);
        GP_CHECK(k->tls_server_name == NULL);
        GP_CHECK_INT(gp_kube_config_token(k, &tok, &err), GP_OK);
        GP_CHECK_STR(tok, "abc.def-ghi");
        free(tok);
    }
    gp_kube_config_free(k);
    remove_tmpdir(dir);
}

GP_TEST(kubeconfig_relative_files_and_token_file)
{
    char dir[64], msg[GP_ERR_MAX], want[256];
    gp_kube_config *k = NULL;
    char *tok = NULL;
    gp_err err = { { 0 } };

    make_tmpdir(dir, sizeof(dir));
    write_file(dir, "ca.crt", "-----BEGIN CERTIFICATE-----\n");
    write_file(dir, "token", "tok-1\n");
    write_file(dir, "config",
               "clusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:1\n"
               "    certificate-authority: ca.crt\n    tls-server-name: kube.test\n"
               "contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
               "current-context: x\n"
               "users:\n- name: u\n  user:\n    tokenFile: ./token\n    token: ignored\n");
    GP_CHECK_INT(load(dir, "config", NULL, &k, msg, sizeof(msg)), GP_OK);
    GP_CHECK_STR(msg, "");
    if (k != NULL) {
        snprintf(want, sizeof(want), "%s/ca.crt", dir);
        GP_CHECK_STR(k->ca_file, want);
        snprintf(want, sizeof(want), "%s/./token", dir);
        GP_CHECK_STR(k->token_file, want);
        GP_CHECK_STR(k->tls_server_name, "kube.test");
        /* The file wins over the inline token, and is read again each time. */
        GP_CHECK_INT(gp_kube_config_token(k, &tok, &err), GP_OK);
        GP_CHECK_STR(tok, "tok-1");
        free(tok);
        write_file(dir, "token", "tok-2");
        GP_CHECK_INT(gp_kube_config_token(k, &tok, &err), GP_OK);
        GP_CHECK_STR(tok, "tok-2");
        free(tok);
        write_file(dir, "token", "\n");
        GP_CHECK_INT(gp_kube_config_token(k, &tok, &err), GP_EINVAL);
        GP_CHECK(strstr(err.msg, "token file is empty") != NULL);
    }
    gp_kube_config_free(k);
    remove_tmpdir(dir);
}

GP_TEST(kubeconfig_client_certificate_data_and_files)
{
    char dir[64], msg[GP_ERR_MAX], want[256];
    gp_kube_config *k = NULL;
    char *crt64, *key64;

    make_tmpdir(dir, sizeof(dir));
    write_file(dir, "c.pem", "-----BEGIN CERTIFICATE-----\ncert\n-----END CERTIFICATE-----\n");
    write_file(dir, "k.pem", "-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n");
    crt64 = base64_file(dir, "c.pem");
    key64 = base64_file(dir, "k.pem");
    write_file(dir, "data",
               "clusters:\n- name: c\n  cluster: {server: 'https://k:443', "
               "insecure-skip-tls-verify: true}\n"
               "contexts:\n- name: x\n  context: {cluster: c, user: u}\n"
               "current-context: x\n"
               "users:\n- name: u\n  user:\n    client-certificate-data: %s\n"
               "    client-key-data: %s\n",
               crt64, key64);
    GP_CHECK_INT(load(dir, "data", NULL, &k, msg, sizeof(msg)), GP_OK);
    GP_CHECK_STR(msg, "");
    if (k != NULL) {
        GP_CHECK(k->insecure);
        GP_CHECK(k->cert_pem && strstr(k->cert_pem, "cert\n") != NULL);
        GP_CHECK(k->key_pem && strstr(k->key_pem, "BEGIN PRIVATE KEY") != NULL);
        GP_CHECK(k->token == NULL && k->cert_file == NULL);
    }
    gp_kube_config_free(k);
    k = NULL;
    {
        char sub[128];

        snprintf(sub, sizeof(sub), "%s/sub", dir);
        GP_CHECK(mkdir(sub, 0700) == 0);
    }
    write_file(dir, "sub/config",
               "clusters:\n- name: c\n  cluster: {server: 'https://k:443'}\n"
               "contexts:\n- name: x\n  context: {cluster: c, user: u}\n"
               "current-context: x\n"
               "users:\n- name: u\n  user:\n    client-certificate: ../c.pem\n"
               "    client-key: %s/k.pem\n",
               dir);
    GP_CHECK_INT(load(dir, "sub/config", NULL, &k, msg, sizeof(msg)), GP_OK);
    GP_CHECK_STR(msg, "");
    if (k != NULL) {
        snprintf(want, sizeof(want), "%s/sub/../c.pem", dir);
        GP_CHECK_STR(k->cert_file, want);
        snprintf(want, sizeof(want), "%s/k.pem", dir);
        GP_CHECK_STR(k->key_file, want);
    }
    gp_kube_config_free(k);
    free(crt64);
    free(key64);
    remove_tmpdir(dir);
}

static const char *const two_contexts =
    "clusters:\n"
    "- name: a\n  cluster: {server: 'https://a:1'}\n"
    "- name: b\n  cluster: {server: 'https://b:2'}\n"
    "contexts:\n"
    "- name: ca\n  context: {cluster: a, user: ua}\n"
    "- name: cb\n  context: {cluster: b}\n"
    "current-context: ca\n"
    "users:\n- name: ua\n  user: {token: ta}\n";

GP_TEST(kubeconfig_named_and_missing_context)
{
    char dir[64], msg[GP_ERR_MAX], want[GP_ERR_MAX];
    gp_kube_config *k = NULL;

    make_tmpdir(dir, sizeof(dir));
    write_file(dir, "config", "%s", two_contexts);
    GP_CHECK_INT(load(dir, "config", NULL, &k, msg, sizeof(msg)), GP_OK);
    GP_CHECK(k && strcmp(k->server, "https://a:1") == 0 && k->token && !strcmp(k->token, "ta"));
    gp_kube_config_free(k);
    k = NULL;
    GP_CHECK_INT(load(dir, "config", "cb", &k, msg, sizeof(msg)), GP_OK);
    GP_CHECK(k && strcmp(k->server, "https://b:2") == 0 && k->token == NULL);
    gp_kube_config_free(k);
    k = NULL;
    GP_CHECK_INT(load(dir, "config", "foo", &k, msg, sizeof(msg)), GP_ENOTFOUND);
    GP_CHECK(k == NULL);
    snprintf(want, sizeof(want), "kubeconfig %s/config: context \"foo\" not found", dir);
    GP_CHECK_STR(msg, want);
    remove_tmpdir(dir);
}

/* Loads src and checks the error contains want. */
static void expect_error(const char *src, const char *context, gp_status want_st,
                         const char *want)
{
    char dir[64], msg[GP_ERR_MAX];
    gp_kube_config *k = NULL;

    make_tmpdir(dir, sizeof(dir));
    write_file(dir, "config", "%s", src);
    GP_CHECK_INT(load(dir, "config", context, &k, msg, sizeof(msg)), want_st);
    GP_CHECK(k == NULL);
    if (strstr(msg, want) == NULL || strstr(msg, dir) == NULL) {
        printf("  error \"%s\" lacks \"%s\" or the file name\n", msg, want);
        gp_test_failed = 1;
    }
    remove_tmpdir(dir);
}

#define KC_CTX "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n"
#define KC_CLUSTER "clusters:\n- name: c\n  cluster: {server: 'https://k:443'}\n"

GP_TEST(kubeconfig_unsupported_auth_refused)
{
    expect_error(KC_CLUSTER KC_CTX "users:\n- name: u\n  user:\n    auth-provider: {name: gcp}\n",
                 NULL, GP_EINVAL, "users[\"u\"].user.auth-provider: auth-provider plugins");
    expect_error(KC_CLUSTER KC_CTX "users:\n- name: u\n  user: {username: a, password: b}\n",
                 NULL, GP_EINVAL, "users[\"u\"].user.username: basic authentication");
    expect_error(KC_CLUSTER KC_CTX "users:\n- name: u\n  user: {token: t, as: someone}\n", NULL,
                 GP_EINVAL, "user.as: impersonation is not supported");
}

GP_TEST(kubeconfig_malformed_and_invalid)
{
    expect_error("clusters:\n- name: c\n  cluster: {server: [\n", NULL, GP_EINVAL,
                 "config: line 4 column 1: did not find expected node content");
    expect_error("", NULL, GP_EINVAL, ": empty");
    expect_error("- a\n- b\n", NULL, GP_EINVAL, "not a mapping");
    expect_error(KC_CLUSTER "users: []\n", NULL, GP_EINVAL,
                 "current-context: not set and no context given");
    expect_error(KC_CLUSTER KC_CTX "users: []\n", NULL, GP_ENOTFOUND, "user \"u\" not found");
    expect_error(KC_CTX "users:\n- name: u\n  user: {}\n", NULL, GP_ENOTFOUND,
                 "cluster \"c\" not found");
    expect_error("clusters:\n- name: c\n  cluster: {insecure-skip-tls-verify: true}\n" KC_CTX
                 "users:\n- name: u\n  user: {}\n",
                 NULL, GP_EINVAL, "clusters[\"c\"].cluster.server: missing");
    expect_error("clusters:\n- name: c\n  cluster: {server: 'ftp://x'}\n" KC_CTX
                 "users:\n- name: u\n  user: {}\n",
                 NULL, GP_EINVAL, "is not an http(s):// URL");
    expect_error("clusters:\n- name: c\n  cluster: {server: 'https://x', "
                 "certificate-authority: nope.crt}\n" KC_CTX "users:\n- name: u\n  user: {}\n",
                 NULL, GP_EIO, "cluster.certificate-authority: ");
    expect_error("clusters:\n- name: c\n  cluster: {server: 'https://x', "
                 "certificate-authority-data: '!!!'}\n" KC_CTX "users:\n- name: u\n  user: {}\n",
                 NULL, GP_EINVAL, "certificate-authority-data: not valid base64");
    expect_error("clusters:\n- name: c\n  cluster: {server: 'https://x', "
                 "certificate-authority-data: aGVsbG8=}\n" KC_CTX "users:\n- name: u\n  user: {}\n",
                 NULL, GP_EINVAL, "certificate-authority-data: does not decode to PEM");
    expect_error("clusters:\n- name: c\n  cluster: {server: 'https://x', "
                 "insecure-skip-tls-verify: maybe}\n" KC_CTX "users:\n- name: u\n  user: {}\n",
                 NULL, GP_EINVAL, "insecure-skip-tls-verify: expected true or false");
    expect_error(KC_CLUSTER KC_CTX "users:\n- name: u\n  user: {client-key-data: "
                                   "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCngK}\n",
                 NULL, GP_EINVAL, "client-key without client-certificate");
    expect_error(KC_CLUSTER KC_CTX "users:\n- name: u\n  user: {tokenFile: missing}\n", NULL,
                 GP_EIO, "users[\"u\"].user.tokenFile: ");
    expect_error(KC_CLUSTER KC_CTX "users:\n- name: u\n  user: {token: \"a b\"}\n", NULL,
                 GP_EINVAL, "token: has spaces or control characters");
    expect_error(KC_CLUSTER "contexts: {x: 1}\ncurrent-context: x\n", NULL, GP_EINVAL,
                 "contexts: expected a list");
}

GP_TEST(kubeconfig_missing_file)
{
    gp_kube_config *k = NULL;
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_kube_config_load("/nonexistent/kc", NULL, &k, &err), GP_EIO);
    GP_CHECK(strstr(err.msg, "kubeconfig: /nonexistent/kc: cannot open") != NULL);
    GP_CHECK(k == NULL);
}

GP_TEST(kubeconfig_json)
{
    char dir[64], msg[GP_ERR_MAX];
    gp_kube_config *k = NULL, *copy;

    make_tmpdir(dir, sizeof(dir));
    write_file(dir, "config.json",
               "{\n\t\"apiVersion\": \"v1\",\n\t\"clusters\": [{\"name\": \"c\", \"cluster\": "
               "{\"server\": \"https://[fd00::1]:6443\", \"insecure-skip-tls-verify\": true}}],\n"
               "\t\"contexts\": [{\"name\": \"x\", \"context\": {\"cluster\": \"c\", "
               "\"user\": \"u\"}}],\n\t\"current-context\": \"x\",\n"
               "\t\"users\": [{\"name\": \"u\", \"user\": {\"token\": \"jt\"}}]\n}\n");
    GP_CHECK_INT(load(dir, "config.json", NULL, &k, msg, sizeof(msg)), GP_OK);
    GP_CHECK_STR(msg, "");
    if (k != NULL) {
        GP_CHECK_STR(k->server, "https://[fd00::1]:6443");
        GP_CHECK(k->insecure);
        GP_CHECK_STR(k->token, "jt");
        copy = gp_kube_config_copy(k);
        GP_CHECK(copy && copy->token != k->token && strcmp(copy->token, "jt") == 0 &&
                 copy->insecure);
        gp_kube_config_free(copy);
    }
    gp_kube_config_free(k);
    gp_kube_config_free(NULL);
    remove_tmpdir(dir);
}

GP_TEST(in_cluster_config)
{
    char dir[64], want[256];
    gp_kube_config *k = NULL;
    gp_err err = { { 0 } };
    char *tok = NULL;

    make_tmpdir(dir, sizeof(dir));
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    GP_CHECK_INT(gp_kube_config_in_cluster(dir, &k, &err), GP_ENOTFOUND);
    GP_CHECK(strstr(err.msg, "not in a cluster") != NULL);
    GP_CHECK_INT(gp_kube_config_resolve(NULL, NULL, &k, &err), GP_ENOTFOUND);
    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    GP_CHECK_INT(gp_kube_config_in_cluster(dir, &k, &err), GP_EIO); /* no token yet */
    GP_CHECK(strstr(err.msg, "in-cluster: ") == err.msg && strstr(err.msg, "/token") != NULL);
    write_file(dir, "token", "sa-token-1\n");
    GP_CHECK_INT(gp_kube_config_in_cluster(dir, &k, &err), GP_EIO); /* no CA */
    GP_CHECK(strstr(err.msg, "ca.crt") != NULL);
    write_file(dir, "ca.crt", "-----BEGIN CERTIFICATE-----\n");
    GP_CHECK_INT(gp_kube_config_in_cluster(dir, &k, &err), GP_OK);
    if (k != NULL) {
        GP_CHECK_STR(k->server, "https://10.96.0.1:443");
        snprintf(want, sizeof(want), "%s/token", dir);
        GP_CHECK_STR(k->token_file, want);
        snprintf(want, sizeof(want), "%s/ca.crt", dir);
        GP_CHECK_STR(k->ca_file, want);
        GP_CHECK(k->token == NULL);
        write_file(dir, "token", "sa-token-2");
        GP_CHECK_INT(gp_kube_config_token(k, &tok, &err), GP_OK);
        GP_CHECK_STR(tok, "sa-token-2");
        free(tok);
    }
    gp_kube_config_free(k);
    k = NULL;
    setenv("KUBERNETES_SERVICE_HOST", "fd00:10:96::1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "6443", 1);
    GP_CHECK_INT(gp_kube_config_in_cluster(dir, &k, &err), GP_OK);
    GP_CHECK(k && strcmp(k->server, "https://[fd00:10:96::1]:6443") == 0);
    gp_kube_config_free(k);
    k = NULL;
    setenv("KUBERNETES_SERVICE_PORT", "70000", 1);
    GP_CHECK_INT(gp_kube_config_in_cluster(dir, &k, &err), GP_EINVAL);
    GP_CHECK(strstr(err.msg, "KUBERNETES_SERVICE_PORT") != NULL);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    setenv("KUBERNETES_SERVICE_HOST", "evil/host", 1);
    GP_CHECK_INT(gp_kube_config_in_cluster(dir, &k, &err), GP_EINVAL);
    GP_CHECK(k == NULL);
    remove_tmpdir(dir);
}

/* ---- gp_kube_get --------------------------------------------------------------------------- */

GP_TEST(kube_get_statuses)
{
    fixture f;
    char *body = NULL;
    size_t len = 0;
    long code = -1;
    gp_err err = { { 0 } };

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 2);
    GP_CHECK_INT(gp_kube_get(f.cfg, "/api/v1/nodes", 1 << 20, &body, &len, &code, &err), GP_OK);
    GP_CHECK_INT(code, 200);
    GP_CHECK(body && strstr(body, "\"NodeList\"") && len == strlen(body));
    free(body);
    GP_CHECK_INT(gp_kube_get(f.cfg, "/api/v1/nodes", 10, &body, &len, &code, &err), GP_ETOOBIG);
    GP_CHECK(body == NULL);
    GP_CHECK_INT(gp_kube_get(f.cfg, "/api/v1/secrets", 1 << 20, &body, &len, &code, &err),
                 GP_EIO);
    GP_CHECK_INT(code, 404);
    GP_CHECK(strstr(err.msg, "HTTP 404: the server could not find") != NULL);
    fx_stop_fake(&f);
    GP_CHECK_INT(gp_kube_get(f.cfg, "/api/v1/nodes", 1 << 20, &body, &len, &code, &err),
                 GP_EIO);
    GP_CHECK_INT(code, 0);
    fx_done(&f);
}

/* ---- informers ----------------------------------------------------------------------------- */

GP_TEST(informer_initial_list)
{
    fixture f;
    cJSON *st;
    const cJSON *req;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 3);
    GP_CHECK(fx_start_nodes(&f));
    GP_CHECK(gp_informer_staleness_ms(f.inf) == -1 || gp_informer_synced(f.inf));
    WAIT_UNTIL(gp_informer_synced(f.inf), 5000);
    GP_CHECK(gp_informer_synced(f.inf));
    GP_CHECK(cache_is_truth(&f, "/_control/list/nodes"));
    GP_CHECK_INT(CACHED(&f, list_begins), 1);
    GP_CHECK_INT(CACHED(&f, list_ends), 1);
    GP_CHECK_INT(CACHED(&f, items), 3);
    GP_CHECK(rv_is(&f, 3));
    GP_CHECK(gp_informer_staleness_ms(f.inf) >= 0 && gp_informer_staleness_ms(f.inf) < 3000);
    GP_CHECK(metric(&f, "gpupack_kube_lists_total", "informer=\"nodes\"") == 1);
    WAIT_UNTIL(fake_stat(&f, "open_watches", "nodes") == 1, 3000);
    st = get_json(&f, "/_control/stats");
    req = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, "last_request"),
                                           "nodes");
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "user_agent")),
                 "gpupack/" GP_VERSION);
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "accept")),
                 "application/json");
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "query")),
                 "watch=1&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion=3");
    cJSON_Delete(st);
    fx_done(&f);
}

GP_TEST(informer_paging)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 5);
    GP_CHECK(fx_start(&f, "nodes", "/api/v1/nodes", NULL, 2, 0, 1000));
    WAIT_UNTIL(gp_informer_synced(f.inf), 5000);
    GP_CHECK(gp_informer_synced(f.inf));
    GP_CHECK_INT(CACHED(&f, items), 5);
    GP_CHECK_INT(CACHED(&f, list_begins), 1);
    GP_CHECK(cache_is_truth(&f, "/_control/list/nodes"));
    GP_CHECK_INT(fake_stat(&f, "lists", "nodes"), 1);
    GP_CHECK_INT(fake_stat(&f, "list_pages", "nodes"), 3);
    fx_done(&f);
}

GP_TEST(informer_events)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 2);
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(gp_informer_synced(f.inf), 5000);
    add_node(&f, "n3");
    APPLY(&f, "{\"kind\":\"nodes\",\"type\":\"MODIFIED\",\"object\":{\"metadata\":"
              "{\"name\":\"n1\",\"labels\":{\"gpu\":\"a100\"}}}}");
    APPLY(&f, "{\"kind\":\"nodes\",\"type\":\"DELETED\",\"object\":{\"metadata\":"
              "{\"name\":\"n2\"}}}");
    WAIT_UNTIL(CACHED(&f, deleted) == 1, 5000);
    GP_CHECK_INT(CACHED(&f, added), 1);
    GP_CHECK_INT(CACHED(&f, modified), 1);
    GP_CHECK_INT(CACHED(&f, deleted), 1);
    GP_CHECK(cache_is_truth(&f, "/_control/list/nodes"));
    GP_CHECK(cache_has(&f, "n3") && !cache_has(&f, "n2"));
    GP_CHECK(rv_is(&f, 5));
    GP_CHECK(metric(&f, "gpupack_kube_events_total", "informer=\"nodes\",type=\"ADDED\"") == 1);
    GP_CHECK(metric(&f, "gpupack_kube_events_total", "informer=\"nodes\",type=\"DELETED\"") ==
             1);
    GP_CHECK_INT(CACHED(&f, list_begins), 1);
    fx_done(&f);
}

/* Drops the watch (cleanly or by resetting the connection) and changes state right away, so
 * some changes land while no watch is open: none may be lost, and nothing is relisted. */
static void drop_and_rewatch(bool abrupt)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 3);
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(gp_informer_synced(f.inf) && fake_stat(&f, "open_watches", "nodes") == 1, 5000);
    GP_CHECK_INT(fake_stat(&f, "open_watches", "nodes"), 1);
    for (int round = 0; round < 2; round++) {
        char name[16];

        FAULT(&f, "{\"fault\":\"drop-watches\",\"abrupt\":%s}", abrupt ? "true" : "false");
        snprintf(name, sizeof(name), "new%d", round);
        add_node(&f, name);
        APPLY(&f, "{\"kind\":\"nodes\",\"object\":{\"metadata\":{\"name\":\"n1\",\"labels\":"
                  "{\"round\":\"%d\"}}}}",
              round);
        APPLY(&f, "{\"kind\":\"nodes\",\"type\":\"DELETED\",\"object\":{\"metadata\":"
                  "{\"name\":\"n%d\"}}}",
              round + 2);
        WAIT_UNTIL(cache_is_truth(&f, "/_control/list/nodes"), 5000);
        GP_CHECK(cache_is_truth(&f, "/_control/list/nodes"));
        GP_CHECK(cache_has(&f, name));
        WAIT_UNTIL(fake_stat(&f, "open_watches", "nodes") == 1, 5000);
    }
    GP_CHECK_INT(fake_stat(&f, "lists", "nodes"), 1);
    GP_CHECK(fake_stat(&f, "watches", "nodes") >= 3);
    GP_CHECK_INT(CACHED(&f, list_begins), 1);
    GP_CHECK(metric(&f, "gpupack_kube_watch_restarts_total", "informer=\"nodes\"") >= 2);
    GP_CHECK(metric(&f, "gpupack_kube_relists_total", "informer=\"nodes\",reason=\"gone\"") ==
             0);
    fx_done(&f);
}

GP_TEST(informer_drop_watches_clean)
{
    drop_and_rewatch(false);
}

GP_TEST(informer_drop_watches_abrupt)
{
    drop_and_rewatch(true);
}

GP_TEST(informer_watch_timeout_rewatches)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 2);
    GP_CHECK(fx_start(&f, "nodes", "/api/v1/nodes", NULL, 0, 1, 1000));
    WAIT_UNTIL(fake_stat(&f, "watches", "nodes") >= 3, 6000);
    GP_CHECK(fake_stat(&f, "watches", "nodes") >= 3);
    GP_CHECK_INT(fake_stat(&f, "lists", "nodes"), 1);
    add_node(&f, "late");
    WAIT_UNTIL(cache_has(&f, "late"), 5000);
    GP_CHECK(cache_is_truth(&f, "/_control/list/nodes"));
    GP_CHECK_INT(CACHED(&f, list_begins), 1);
    GP_CHECK(metric(&f, "gpupack_kube_errors_total", "informer=\"nodes\"") == 0);
    fx_done(&f);
}

GP_TEST(informer_gone_in_stream_relists)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 3);
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(gp_informer_synced(f.inf) && fake_stat(&f, "open_watches", "nodes") == 1, 5000);
    FAULT(&f, "{\"fault\":\"gone-in-stream\"}");
    add_node(&f, "after");
    APPLY(&f, "{\"kind\":\"nodes\",\"type\":\"DELETED\",\"object\":{\"metadata\":"
              "{\"name\":\"n1\"}}}");
    WAIT_UNTIL(CACHED(&f, list_ends) == 2 && cache_is_truth(&f, "/_control/list/nodes"), 5000);
    GP_CHECK_INT(CACHED(&f, list_begins), 2);
    GP_CHECK_INT(CACHED(&f, list_ends), 2);
    GP_CHECK(cache_is_truth(&f, "/_control/list/nodes"));
    GP_CHECK_INT(fake_stat(&f, "lists", "nodes"), 2);
    GP_CHECK(metric(&f, "gpupack_kube_relists_total", "informer=\"nodes\",reason=\"gone\"") ==
             1);
    GP_CHECK(metric(&f, "gpupack_kube_lists_total", "informer=\"nodes\"") == 2);
    GP_CHECK(metric(&f, "gpupack_kube_events_total", "informer=\"nodes\",type=\"ERROR\"") == 1);
    GP_CHECK(log_contains(&f, "watch expired (410), relisting"));
    fx_done(&f);
}

GP_TEST(informer_gone_http_relists)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 3);
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(gp_informer_synced(f.inf) && fake_stat(&f, "open_watches", "nodes") == 1, 5000);
    FAULT(&f, "{\"fault\":\"gone-http\",\"count\":1}");
    FAULT(&f, "{\"fault\":\"drop-watches\"}");
    WAIT_UNTIL(CACHED(&f, list_ends) == 2, 5000);
    GP_CHECK_INT(fake_stat(&f, NULL, "gone_http_sent"), 1);
    GP_CHECK_INT(CACHED(&f, list_begins), 2);
    GP_CHECK_INT(fake_stat(&f, "lists", "nodes"), 2);
    GP_CHECK(metric(&f, "gpupack_kube_relists_total", "informer=\"nodes\",reason=\"gone\"") ==
             1);
    add_node(&f, "after");
    WAIT_UNTIL(cache_has(&f, "after"), 5000);
    GP_CHECK(cache_is_truth(&f, "/_control/list/nodes"));
    fx_done(&f);
}

/* Objects deleted while no watch is open, with the history compacted before the informer comes
 * back: the watch gets 410, the relist must not keep the deleted objects. */
GP_TEST(informer_compacted_history_relists_and_forgets_deleted)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 4);
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(gp_informer_synced(f.inf) && fake_stat(&f, "open_watches", "nodes") == 1, 5000);
    FAULT(&f, "{\"fault\":\"slow\",\"ms\":600}");    /* the re-watch waits in the fake */
    FAULT(&f, "{\"fault\":\"drop-watches\"}");
    APPLY(&f, "{\"kind\":\"nodes\",\"type\":\"DELETED\",\"object\":{\"metadata\":"
              "{\"name\":\"n2\"}}}");
    APPLY(&f, "{\"kind\":\"nodes\",\"type\":\"DELETED\",\"object\":{\"metadata\":"
              "{\"name\":\"n3\"}}}");
    FAULT(&f, "{\"fault\":\"compact\"}");
    FAULT(&f, "{\"fault\":\"slow\",\"ms\":0}");
    WAIT_UNTIL(CACHED(&f, list_ends) == 2 && cache_is_truth(&f, "/_control/list/nodes"), 8000);
    GP_CHECK_INT(CACHED(&f, list_ends), 2);
    GP_CHECK(cache_is_truth(&f, "/_control/list/nodes"));
    GP_CHECK(!cache_has(&f, "n2") && !cache_has(&f, "n3") && cache_has(&f, "n4"));
    GP_CHECK_INT(CACHED(&f, deleted), 0); /* the relist, not events, removed them */
    fx_done(&f);
}

GP_TEST(informer_expired_continue_token_relists)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 5);
    FAULT(&f, "{\"fault\":\"slow\",\"ms\":300}");
    GP_CHECK(fx_start(&f, "nodes", "/api/v1/nodes", NULL, 2, 0, 1000));
    WAIT_UNTIL(fake_stat(&f, "list_pages", "nodes") >= 1, 5000);
    FAULT(&f, "{\"fault\":\"compact\"}"); /* the snapshot the next page needs is gone */
    WAIT_UNTIL(CACHED(&f, list_begins) >= 2, 5000);
    FAULT(&f, "{\"fault\":\"slow\",\"ms\":0}");
    WAIT_UNTIL(gp_informer_synced(f.inf), 5000);
    GP_CHECK(gp_informer_synced(f.inf));
    GP_CHECK_INT(CACHED(&f, list_begins), 2);
    GP_CHECK_INT(CACHED(&f, list_ends), 1);
    GP_CHECK_INT(fake_stat(&f, "lists", "nodes"), 2);
    GP_CHECK(cache_is_truth(&f, "/_control/list/nodes"));
    GP_CHECK(metric(&f, "gpupack_kube_relists_total", "informer=\"nodes\",reason=\"gone\"") ==
             1);
    GP_CHECK(log_contains(&f, "continue parameter is too old"));
    fx_done(&f);
}

GP_TEST(informer_failed_lists_back_off_then_succeed)
{
    fixture f;
    int64_t t0;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 2);
    FAULT(&f, "{\"fault\":\"fail-lists\",\"count\":2,\"status\":500}");
    FAULT(&f, "{\"fault\":\"bad-json-lists\",\"count\":1}");
    t0 = mono_ms();
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(gp_informer_synced(f.inf), 8000);
    GP_CHECK(gp_informer_synced(f.inf));
    GP_CHECK(mono_ms() - t0 < 3000); /* at most 200 + 400 + 800 ms of backoff */
    GP_CHECK_INT(fake_stat(&f, NULL, "failed_lists_sent"), 3);
    GP_CHECK(metric(&f, "gpupack_kube_relists_total", "informer=\"nodes\",reason=\"error\"") ==
             3);
    GP_CHECK(metric(&f, "gpupack_kube_lists_total", "informer=\"nodes\"") == 4);
    GP_CHECK(metric(&f, "gpupack_kube_errors_total", "informer=\"nodes\"") == 3);
    GP_CHECK_INT(CACHED(&f, list_begins), 1); /* failed pages never began a list */
    GP_CHECK(cache_is_truth(&f, "/_control/list/nodes"));
    GP_CHECK(log_contains(&f, "HTTP 500: injected list failure"));
    GP_CHECK(log_contains(&f, "list: the response is not JSON"));
    fx_done(&f);
}

GP_TEST(informer_watch_errors_rewatch_without_relist)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 2);
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(gp_informer_synced(f.inf) && fake_stat(&f, "open_watches", "nodes") == 1, 5000);
    FAULT(&f, "{\"fault\":\"garbage\"}");
    WAIT_UNTIL(fake_stat(&f, "watches", "nodes") >= 2 && fake_stat(&f, "open_watches", "nodes") == 1,
               5000);
    FAULT(&f, "{\"fault\":\"error-in-stream\",\"code\":500}");
    WAIT_UNTIL(fake_stat(&f, "watches", "nodes") >= 3 && fake_stat(&f, "open_watches", "nodes") == 1,
               5000);
    add_node(&f, "after");
    WAIT_UNTIL(cache_has(&f, "after"), 5000);
    GP_CHECK(cache_is_truth(&f, "/_control/list/nodes"));
    GP_CHECK_INT(fake_stat(&f, "lists", "nodes"), 1);
    GP_CHECK(metric(&f, "gpupack_kube_errors_total", "informer=\"nodes\"") == 2);
    GP_CHECK(log_contains(&f, "undecodable watch event"));
    GP_CHECK(log_contains(&f, "injected watch error"));
    fx_done(&f);
}

/* A bookmark moves the resourceVersion past changes to other kinds, so a re-watch after the
 * history is compacted to that point needs no relist. */
GP_TEST(informer_bookmark_avoids_relist)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 2);
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(gp_informer_synced(f.inf) && fake_stat(&f, "open_watches", "nodes") == 1, 5000);
    GP_CHECK(rv_is(&f, 2));
    APPLY(&f, "{\"kind\":\"pods\",\"object\":{\"metadata\":{\"name\":\"p\"}}}"); /* rv 3 */
    FAULT(&f, "{\"fault\":\"bookmark\"}");
    WAIT_UNTIL(rv_is(&f, 3), 5000);
    GP_CHECK(rv_is(&f, 3));
    FAULT(&f, "{\"fault\":\"compact\"}");
    FAULT(&f, "{\"fault\":\"drop-watches\"}");
    WAIT_UNTIL(fake_stat(&f, "watches", "nodes") >= 2 && fake_stat(&f, "open_watches", "nodes") == 1,
               5000);
    add_node(&f, "after");
    WAIT_UNTIL(cache_has(&f, "after"), 5000);
    GP_CHECK(cache_has(&f, "after"));
    GP_CHECK_INT(fake_stat(&f, "lists", "nodes"), 1);
    GP_CHECK_INT(CACHED(&f, list_begins), 1);
    GP_CHECK(metric(&f, "gpupack_kube_events_total", "informer=\"nodes\",type=\"BOOKMARK\"") ==
             1);
    GP_CHECK(cache_is_truth(&f, "/_control/list/nodes"));
    fx_done(&f);
}

/* The same steps without the bookmark: the old resourceVersion is gone, so it relists. */
GP_TEST(informer_no_bookmark_relists_after_compaction)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 2);
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(gp_informer_synced(f.inf) && fake_stat(&f, "open_watches", "nodes") == 1, 5000);
    APPLY(&f, "{\"kind\":\"pods\",\"object\":{\"metadata\":{\"name\":\"p\"}}}");
    FAULT(&f, "{\"fault\":\"compact\"}");
    FAULT(&f, "{\"fault\":\"drop-watches\"}");
    WAIT_UNTIL(CACHED(&f, list_ends) == 2, 5000);
    GP_CHECK_INT(CACHED(&f, list_ends), 2);
    GP_CHECK_INT(fake_stat(&f, "lists", "nodes"), 2);
    GP_CHECK(rv_is(&f, 3));
    fx_done(&f);
}

GP_TEST(informer_field_selector)
{
    fixture f;
    const char *sel = "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed";
    char truth[256];
    cJSON *st;
    const cJSON *q;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    APPLY(&f, "[{\"kind\":\"pods\",\"object\":{\"metadata\":{\"name\":\"run\",\"namespace\":"
              "\"a\"},\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"Running\"}}},"
              "{\"kind\":\"pods\",\"object\":{\"metadata\":{\"name\":\"pending\",\"namespace\":"
              "\"a\"},\"spec\":{},\"status\":{\"phase\":\"Pending\"}}},"
              "{\"kind\":\"pods\",\"object\":{\"metadata\":{\"name\":\"done\",\"namespace\":"
              "\"b\"},\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"Succeeded\"}}}]");
    GP_CHECK(fx_start(&f, "pods", "/api/v1/pods", sel, 0, 0, 1000));
    WAIT_UNTIL(gp_informer_synced(f.inf), 5000);
    GP_CHECK(cache_has(&f, "a/run") && !cache_has(&f, "a/pending") && !cache_has(&f, "b/done"));
    /* Bound: starts matching (ADDED). Finished: stops matching (DELETED). */
    APPLY(&f, "{\"kind\":\"pods\",\"object\":{\"metadata\":{\"name\":\"pending\",\"namespace\":"
              "\"a\"},\"spec\":{\"nodeName\":\"n2\"},\"status\":{\"phase\":\"Running\"}}}");
    APPLY(&f, "{\"kind\":\"pods\",\"object\":{\"metadata\":{\"name\":\"run\",\"namespace\":"
              "\"a\"},\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"Failed\"}}}");
    WAIT_UNTIL(CACHED(&f, deleted) == 1 && CACHED(&f, added) == 1, 5000);
    GP_CHECK(cache_has(&f, "a/pending") && !cache_has(&f, "a/run"));
    snprintf(truth, sizeof(truth), "/_control/list/pods?fieldSelector=%s",
             "spec.nodeName%21%3D%2Cstatus.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed");
    GP_CHECK(cache_is_truth(&f, truth));
    st = get_json(&f, "/_control/stats");
    q = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, "last_request"),
                                         "pods"),
        "query");
    GP_CHECK(cJSON_IsString(q) &&
             strstr(q->valuestring, "&fieldSelector=spec.nodeName%21%3D%2Cstatus.phase%21%3D"
                                    "Succeeded%2Cstatus.phase%21%3DFailed") != NULL);
    cJSON_Delete(st);
    fx_done(&f);
}

GP_TEST(informer_token_rotation)
{
    fixture f;
    const char *const args[] = { "--token", "secret-one", NULL };
    char path[128];

    fx_init(&f);
    write_file(f.dir, "token", "secret-one\n");
    GP_CHECK(fx_fake(&f, "http", args));
    snprintf(path, sizeof(path), "%s/token", f.dir);
    f.cfg->token_file = strdup(path);
    f.cfg->token = strdup("stale-inline-token"); /* the file wins */
    add_nodes(&f, 2);
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(gp_informer_synced(f.inf) && fake_stat(&f, "open_watches", "nodes") == 1, 5000);
    GP_CHECK(gp_informer_synced(f.inf));
    write_file(f.dir, "token", "secret-two\n");
    GP_CHECK_INT(ctl(&f, "/_control/token", "{\"token\":\"secret-two\"}"), 200);
    FAULT(&f, "{\"fault\":\"drop-watches\"}");
    add_node(&f, "after");
    WAIT_UNTIL(cache_has(&f, "after"), 5000);
    GP_CHECK(cache_has(&f, "after"));
    GP_CHECK_INT(fake_stat(&f, NULL, "unauthorized"), 0);
    GP_CHECK_INT(fake_stat(&f, "lists", "nodes"), 1);
    GP_CHECK(!log_contains(&f, "secret-one") && !log_contains(&f, "secret-two"));
    fx_done(&f);
}

/* How many times the test's exec plugin ran (it appends a line to f->dir/runs each time). */
static int plugin_runs(fixture *f)
{
    char path[128], *runs;
    int n = 0;

    snprintf(path, sizeof(path), "%s/runs", f->dir);
    runs = read_all(path);
    for (char *p = runs; p && *p; p++)
        n += *p == '\n';
    free(runs);
    return n;
}

/* An exec plugin's token: the plugin runs once for the list and watch; after the API stops
 * accepting it (401), the plugin runs again and the informer carries on with the new token. */
GP_TEST(informer_exec_plugin_token_rerun_on_401)
{
    fixture f;
    const char *const args[] = { "--token", "exec-tok-1", NULL };
    char path[128];

    fx_init(&f);
    write_file(f.dir, "token", "exec-tok-1");
    write_file(f.dir, "plugin.sh",
               "#!/bin/sh\nd=$(dirname \"$0\")\necho run >> \"$d/runs\"\n"
               "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
               "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"%%s\"}}' "
               "\"$(cat \"$d/token\")\"\n");
    snprintf(path, sizeof(path), "%s/plugin.sh", f.dir);
    chmod(path, 0755);
    GP_CHECK(fx_fake(&f, "http", args));
    f.cfg->exec = calloc(1, sizeof(*f.cfg->exec));
    f.cfg->exec->command = strdup(path);
    f.cfg->exec->api_version = strdup("client.authentication.k8s.io/v1beta1");
    f.cfg->exec->timeout_ms = 5000;
    f.cfg->exec_cache = gp_exec_cache_new();
    add_nodes(&f, 2);
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(gp_informer_synced(f.inf) && fake_stat(&f, "open_watches", "nodes") == 1, 5000);
    GP_CHECK(gp_informer_synced(f.inf));
    GP_CHECK_INT(fake_stat(&f, NULL, "unauthorized"), 0);
    GP_CHECK_INT(plugin_runs(&f), 1);
    write_file(f.dir, "token", "exec-tok-2");
    GP_CHECK_INT(ctl(&f, "/_control/token", "{\"token\":\"exec-tok-2\"}"), 200);
    FAULT(&f, "{\"fault\":\"drop-watches\"}");
    add_node(&f, "after");
    WAIT_UNTIL(cache_has(&f, "after"), 8000);
    GP_CHECK(cache_has(&f, "after"));
    GP_CHECK(fake_stat(&f, NULL, "unauthorized") >= 1);
    GP_CHECK_INT(plugin_runs(&f), 2);
    GP_CHECK(!log_contains(&f, "exec-tok-1") && !log_contains(&f, "exec-tok-2"));
    fx_done(&f);
}

GP_TEST(informer_wrong_token_is_an_error)
{
    fixture f;
    const char *const args[] = { "--token", "right", NULL };

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", args));
    f.cfg->token = strdup("wrong-token-value");
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(fake_stat(&f, NULL, "unauthorized") >= 2, 5000);
    GP_CHECK(!gp_informer_synced(f.inf));
    GP_CHECK(gp_informer_staleness_ms(f.inf) == -1);
    GP_CHECK(log_contains(&f, "HTTP 401: Unauthorized"));
    GP_CHECK(!log_contains(&f, "wrong-token-value"));
    fx_done(&f);
}

/* ---- TLS ----------------------------------------------------------------------------------- */

static char *tls_path(fixture *f, const char *name)
{
    char p[160];

    snprintf(p, sizeof(p), "%s/%s", f->dir, name);
    return strdup(p);
}

/* Starts an HTTPS fake with cert (srv or name) and optionally requiring client certificates. */
static bool tls_fake(fixture *f, const char *cert, bool client_ca)
{
    char crt[160], key[160], ca[160];
    const char *args[] = { "--tls-cert", crt, "--tls-key", key, client_ca ? "--client-ca" : NULL,
                           ca, NULL };

    if (!make_certs(f->dir)) {
        printf("  openssl failed\n");
        return false;
    }
    snprintf(crt, sizeof(crt), "%s/%s.crt", f->dir, cert);
    snprintf(key, sizeof(key), "%s/%s.key", f->dir, cert);
    snprintf(ca, sizeof(ca), "%s/ca.crt", f->dir);
    return fx_fake(f, "https", args);
}

static bool synced_within(fixture *f, int ms)
{
    WAIT_UNTIL(gp_informer_synced(f->inf), ms);
    return gp_informer_synced(f->inf);
}

GP_TEST(informer_https_ca_file_and_ca_data)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(tls_fake(&f, "srv", false));
    f.cfg->ca_file = tls_path(&f, "ca.crt");
    add_nodes(&f, 2);
    GP_CHECK(fx_start_nodes(&f));
    GP_CHECK(synced_within(&f, 5000));
    GP_CHECK(cache_is_truth(&f, "/_control/list/nodes"));
    gp_informer_stop(f.inf);
    /* The same CA as PEM bytes (certificate-authority-data): CURLOPT_CAINFO_BLOB. */
    free(f.cfg->ca_file);
    f.cfg->ca_file = NULL;
    {
        char *p = tls_path(&f, "ca.crt");

        f.cfg->ca_pem = read_all(p);
        free(p);
    }
    GP_CHECK(fx_start_nodes(&f));
    GP_CHECK(synced_within(&f, 5000));
    fx_done(&f);
}

GP_TEST(informer_https_untrusted_server_fails)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(tls_fake(&f, "srv", false));
    GP_CHECK(fx_start_nodes(&f)); /* no CA: the system store does not know the test CA */
    WAIT_UNTIL(metric(&f, "gpupack_kube_errors_total", "informer=\"nodes\"") >= 1, 5000);
    GP_CHECK(!gp_informer_synced(f.inf));
    GP_CHECK(log_contains(&f, "certificate"));
    gp_informer_stop(f.inf);
    f.cfg->insecure = true; /* insecure-skip-tls-verify */
    GP_CHECK(fx_start_nodes(&f));
    GP_CHECK(synced_within(&f, 5000));
    fx_done(&f);
}

GP_TEST(informer_https_client_certificate)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(tls_fake(&f, "srv", true));
    f.cfg->ca_file = tls_path(&f, "ca.crt");
    f.cfg->cert_file = tls_path(&f, "client.crt");
    f.cfg->key_file = tls_path(&f, "client.key");
    add_nodes(&f, 1);
    GP_CHECK(fx_start_nodes(&f));
    GP_CHECK(synced_within(&f, 5000));
    gp_informer_stop(f.inf);
    /* As PEM blobs (client-certificate-data / client-key-data). */
    f.cfg->cert_pem = read_all(f.cfg->cert_file);
    f.cfg->key_pem = read_all(f.cfg->key_file);
    {
        gp_kube_config *blobs = gp_kube_config_copy(f.cfg);
        gp_informer_spec spec = { .name = "blobs", .path = "/api/v1/nodes" };
        gp_err err = { { 0 } };
        gp_informer *inf = NULL;

        free(blobs->cert_file);
        free(blobs->key_file);
        blobs->cert_file = blobs->key_file = NULL;
        GP_CHECK_INT(gp_informer_start(blobs, &spec, &handlers, &f.c, &f.log, f.m, &inf, &err),
                     GP_OK);
        gp_kube_config_free(blobs); /* the informer has its own copy */
        WAIT_UNTIL(gp_informer_synced(inf), 5000);
        GP_CHECK(gp_informer_synced(inf));
        gp_informer_stop(inf);
    }
    /* Without a client certificate the handshake is refused. */
    free(f.cfg->cert_file);
    free(f.cfg->key_file);
    free(f.cfg->cert_pem);
    free(f.cfg->key_pem);
    f.cfg->cert_file = f.cfg->key_file = f.cfg->cert_pem = f.cfg->key_pem = NULL;
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(metric(&f, "gpupack_kube_errors_total", "informer=\"nodes\"") >= 1, 5000);
    GP_CHECK(!gp_informer_synced(f.inf));
    fx_done(&f);
}

GP_TEST(informer_https_tls_server_name)
{
    fixture f;

    fx_init(&f);
    GP_CHECK(tls_fake(&f, "name", false)); /* certificate for kube.test only */
    f.cfg->ca_file = tls_path(&f, "ca.crt");
    f.cfg->tls_server_name = strdup("kube.test");
    add_nodes(&f, 1);
    GP_CHECK(fx_start_nodes(&f));
    GP_CHECK(synced_within(&f, 5000));
    gp_informer_stop(f.inf);
    free(f.cfg->tls_server_name);
    f.cfg->tls_server_name = NULL; /* 127.0.0.1 is not in the certificate */
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(metric(&f, "gpupack_kube_errors_total", "informer=\"nodes\"") >= 1, 5000);
    GP_CHECK(!gp_informer_synced(f.inf));
    fx_done(&f);
}

/* ---- stopping ------------------------------------------------------------------------------ */

static int64_t timed_stop(fixture *f)
{
    int64_t t0 = mono_ms();

    gp_informer_stop(f->inf);
    f->inf = NULL;
    return mono_ms() - t0;
}

GP_TEST(informer_stop_is_prompt_mid_watch)
{
    fixture f;
    int64_t ms;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    add_nodes(&f, 1);
    GP_CHECK(fx_start_nodes(&f));
    WAIT_UNTIL(gp_informer_synced(f.inf) && fake_stat(&f, "open_watches", "nodes") == 1, 5000);
    GP_CHECK_INT(fake_stat(&f, "open_watches", "nodes"), 1);
    usleep(300000);
    ms = timed_stop(&f);
    GP_CHECK(ms < 1000);
    printf("  stopped mid-watch in %lld ms\n", (long long)ms);
    fx_done(&f);
}

GP_TEST(informer_stop_is_prompt_mid_request)
{
    fixture f;
    int64_t ms;

    fx_init(&f);
    GP_CHECK(fx_fake(&f, "http", NULL));
    FAULT(&f, "{\"fault\":\"slow\",\"ms\":5000}");
    GP_CHECK(fx_start_nodes(&f));
    usleep(400000);
    ms = timed_stop(&f);
    GP_CHECK(ms < 1000);
    fx_done(&f);
}

GP_TEST(informer_stop_is_prompt_during_backoff)
{
    fixture f;
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t sl = sizeof(sa);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    int64_t ms;

    fx_init(&f);
    /* A port nothing listens on: connections are refused at once. */
    GP_CHECK(bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    GP_CHECK(getsockname(s, (struct sockaddr *)&sa, &sl) == 0);
    close(s);
    f.cfg = calloc(1, sizeof(*f.cfg));
    snprintf(f.url, sizeof(f.url), "http://127.0.0.1:%d", ntohs(sa.sin_port));
    f.cfg->server = strdup(f.url);
    GP_CHECK(fx_start(&f, "nodes", "/api/v1/nodes", NULL, 0, 0, 30000));
    WAIT_UNTIL(metric(&f, "gpupack_kube_errors_total", "informer=\"nodes\"") >= 4, 8000);
    GP_CHECK(metric(&f, "gpupack_kube_errors_total", "informer=\"nodes\"") >= 4);
    GP_CHECK(!gp_informer_synced(f.inf));
    ms = timed_stop(&f);
    GP_CHECK(ms < 1000);
    fx_done(&f);
}

GP_TEST(informer_rejects_bad_specs)
{
    gp_kube_config cfg = { .server = "http://127.0.0.1:1" };
    gp_informer_spec spec = { .name = "Bad Name", .path = "/api/v1/nodes" };
    gp_informer *inf = (gp_informer *)&cfg;
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_informer_start(&cfg, &spec, &handlers, NULL, NULL, NULL, &inf, &err),
                 GP_EINVAL);
    GP_CHECK(inf == NULL);
    GP_CHECK(strstr(err.msg, "name") != NULL);
    spec.name = "ok";
    spec.path = "/api/v1/nodes?watch=1";
    GP_CHECK_INT(gp_informer_start(&cfg, &spec, &handlers, NULL, NULL, NULL, &inf, &err),
                 GP_EINVAL);
    gp_informer_stop(NULL);
    GP_CHECK(!gp_informer_synced(NULL));
}

GP_MAIN(GP_CASE(linebuf_every_chunk_boundary), GP_CASE(linebuf_byte_by_byte_crlf_and_partial_tail),
        GP_CASE(linebuf_limit), GP_CASE(linebuf_callback_error_stops),
        GP_CASE(kubeconfig_token_and_ca_data), GP_CASE(kubeconfig_relative_files_and_token_file),
        GP_CASE(kubeconfig_client_certificate_data_and_files),
        GP_CASE(kubeconfig_named_and_missing_context), GP_CASE(kubeconfig_unsupported_auth_refused),
        GP_CASE(kubeconfig_malformed_and_invalid), GP_CASE(kubeconfig_missing_file),
        GP_CASE(kubeconfig_json), GP_CASE(in_cluster_config), GP_CASE(kube_get_statuses),
        GP_CASE(informer_initial_list), GP_CASE(informer_paging), GP_CASE(informer_events),
        GP_CASE(informer_drop_watches_clean), GP_CASE(informer_drop_watches_abrupt),
        GP_CASE(informer_watch_timeout_rewatches), GP_CASE(informer_gone_in_stream_relists),
        GP_CASE(informer_gone_http_relists),
        GP_CASE(informer_compacted_history_relists_and_forgets_deleted),
        GP_CASE(informer_expired_continue_token_relists),
        GP_CASE(informer_failed_lists_back_off_then_succeed),
        GP_CASE(informer_watch_errors_rewatch_without_relist),
        GP_CASE(informer_bookmark_avoids_relist),
        GP_CASE(informer_no_bookmark_relists_after_compaction), GP_CASE(informer_field_selector),
        GP_CASE(informer_token_rotation), GP_CASE(informer_wrong_token_is_an_error),
        GP_CASE(informer_exec_plugin_token_rerun_on_401),
        GP_CASE(informer_https_ca_file_and_ca_data), GP_CASE(informer_https_untrusted_server_fails),
        GP_CASE(informer_https_client_certificate), GP_CASE(informer_https_tls_server_name),
        GP_CASE(informer_stop_is_prompt_mid_watch), GP_CASE(informer_stop_is_prompt_mid_request),
        GP_CASE(informer_stop_is_prompt_during_backoff), GP_CASE(informer_rejects_bad_specs))
