/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of lib/kubeexec.c (exec credential plugins) and of how lib/kubeconfig.c loads
 * users[].user.exec: the pure parts (ExecCredential parsing, RFC 3339, the refresh decision,
 * KUBERNETES_EXEC_INFO) and real runs of fake plugins, shell scripts written per test into a
 * fresh directory, which record their arguments, environment and how often they ran. */
#include "gpupack/kubeexec.h"

#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>

#include "gptest.h"

#define V1 "client.authentication.k8s.io/v1"
#define V1B "client.authentication.k8s.io/v1beta1"

static void make_tmpdir(char *dir, size_t n)
{
    snprintf(dir, n, "/tmp/gpexec.XXXXXX");
    if (mkdtemp(dir) == NULL)
        abort();
}

static void remove_tmpdir(const char *dir)
{
    char cmd[256];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

__attribute__((format(printf, 4, 5))) static void write_file(const char *dir, const char *name,
                                                             int mode, const char *fmt, ...)
{
    char path[512];
    va_list ap;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    if (f == NULL)
        abort();
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
    chmod(path, (mode_t)mode);
}

static char *read_file(const char *dir, const char *name)
{
    char path[512], *buf;
    FILE *f;
    long n;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if ((f = fopen(path, "rb")) == NULL)
        return strdup("");
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = calloc(1, (size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        buf[0] = '\0';
    fclose(f);
    return buf;
}

static int runs_of(const char *dir)
{
    char *s = read_file(dir, "runs");
    int n = 0;

    for (char *p = s; *p; p++)
        n += *p == '\n';
    free(s);
    return n;
}

/* A plugin that counts its runs, records its args and environment, and prints an
 * ExecCredential with the token in DIR/token and the expiry given. */
static void good_plugin(const char *dir, const char *expiry)
{
    write_file(dir, "token", 0644, "tok-1");
    write_file(dir, "plugin.sh", 0755,
               "#!/bin/sh\n"
               "d=$(dirname \"$0\")\n"
               "echo run >> \"$d/runs\"\n"
               "echo \"$*\" > \"$d/args\"\n"
               "printf '%%s' \"$KUBERNETES_EXEC_INFO\" > \"$d/info\"\n"
               "echo \"$MY_VAR\" > \"$d/myvar\"\n"
               "printf '{\"apiVersion\":\"%s\",\"kind\":\"ExecCredential\",\"status\":"
               "{\"token\":\"%%s\"%s%s%s}}\\n' \"$(cat \"$d/token\")\"\n",
               V1, expiry ? ",\"expirationTimestamp\":\"" : "", expiry ? expiry : "",
               expiry ? "\"" : "");
}

static gp_kube_exec exec_of(const char *dir, const char *script)
{
    static char cmd[512];
    static char *args[] = { "get-token", "--cluster", "c1" };
    static char *env[] = { "MY_VAR=from-kubeconfig" };

    snprintf(cmd, sizeof(cmd), "%s/%s", dir, script);
    return (gp_kube_exec){ .command = cmd, .args = args, .nargs = 3, .env = env, .nenv = 1,
                           .api_version = V1, .timeout_ms = 5000 };
}

/* ---- pure ------------------------------------------------------------------------------------ */

static gp_status parse(const char *json, gp_exec_cred *c, char *msg)
{
    gp_err err = { { 0 } };
    gp_status st = gp_exec_cred_parse(json, strlen(json), V1, c, &err);

    strcpy(msg, err.msg);
    return st;
}

GP_TEST(cred_parse_token_and_expiry)
{
    gp_exec_cred c;
    char msg[GP_ERR_MAX];

    GP_CHECK_INT(parse("{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"status\":"
                       "{\"token\":\"abc\",\"expirationTimestamp\":\"2030-01-02T03:04:05Z\"}}\n",
                       &c, msg),
                 GP_OK);
    GP_CHECK_STR(c.token, "abc");
    GP_CHECK(c.expiry_s == 1893553445);
    gp_exec_cred_clear(&c);
    GP_CHECK_INT(parse("{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"status\":"
                       "{\"clientCertificateData\":\"-----BEGIN CERTIFICATE-----\\n\","
                       "\"clientKeyData\":\"-----BEGIN PRIVATE KEY-----\\n\"}}",
                       &c, msg),
                 GP_OK);
    GP_CHECK(c.token == NULL && c.cert_pem != NULL && c.key_pem != NULL && c.expiry_s == 0);
    gp_exec_cred_clear(&c);
}

GP_TEST(cred_parse_errors_named)
{
    static const struct {
        const char *json, *want;
    } cases[] = {
        { "Hello, I am not JSON", "output is not JSON" },
        { "[1]", "not a JSON ExecCredential" },
        { "{\"apiVersion\":\"" V1 "\",\"kind\":\"Pod\"}", "kind is not ExecCredential" },
        { "{\"apiVersion\":\"" V1B "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"a\"}}",
          "apiVersion is \"" V1B "\", the kubeconfig asks for \"" V1 "\"" },
        { "{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\"}", "no status" },
        { "{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"status\":{}}",
          "status has no token" },
        { "{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"\"}}",
          "status.token: expected a non-empty string" },
        { "{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"a b\"}}",
          "status.token has spaces" },
        { "{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"status\":"
          "{\"clientKeyData\":\"k\"}}",
          "status.clientKeyData without status.clientCertificateData" },
        { "{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"a\","
          "\"expirationTimestamp\":\"tomorrow\"}}",
          "expirationTimestamp \"tomorrow\" is not an RFC 3339 time" },
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gp_exec_cred c;
        char msg[GP_ERR_MAX];

        GP_CHECK_INT(parse(cases[i].json, &c, msg), GP_EINVAL);
        GP_CHECK(c.token == NULL && c.cert_pem == NULL);
        if (strstr(msg, cases[i].want) == NULL) {
            printf("  case %zu: \"%s\" lacks \"%s\"\n", i, msg, cases[i].want);
            gp_test_failed = 1;
        }
    }
}

GP_TEST(rfc3339)
{
    int64_t t = 0;

    GP_CHECK(gp_rfc3339_parse("1970-01-01T00:00:00Z", &t) == GP_OK && t == 0);
    GP_CHECK(gp_rfc3339_parse("2030-01-02T03:04:05.123456789Z", &t) == GP_OK &&
             t == 1893553445);
    GP_CHECK(gp_rfc3339_parse("2030-01-02T05:04:05+02:00", &t) == GP_OK && t == 1893553445);
    GP_CHECK(gp_rfc3339_parse("2030-01-02T01:04:05-02:00", &t) == GP_OK && t == 1893553445);
    GP_CHECK(gp_rfc3339_parse("2030-01-02 03:04:05Z", &t) == GP_EINVAL);
    GP_CHECK(gp_rfc3339_parse("2030-01-02T03:04:05", &t) == GP_EINVAL);
    GP_CHECK(gp_rfc3339_parse("2030-13-02T03:04:05Z", &t) == GP_EINVAL);
    GP_CHECK(gp_rfc3339_parse("2030-01-02T03:04:05.Z", &t) == GP_EINVAL);
    GP_CHECK(gp_rfc3339_parse("2030-01-02T03:04:05Zjunk", &t) == GP_EINVAL);
}

GP_TEST(refresh_decision)
{
    /* No expiry: always fresh. */
    GP_CHECK(gp_exec_cred_fresh(0, 1000, 999999));
    /* 15 minutes (EKS): refreshed 60 s before expiry (a tenth would be 90 s; capped). */
    GP_CHECK(gp_exec_cred_fresh(1900, 1000, 1839));
    GP_CHECK(!gp_exec_cred_fresh(1900, 1000, 1840));
    /* 100 s: a tenth, 10 s, before. */
    GP_CHECK(gp_exec_cred_fresh(1100, 1000, 1089));
    GP_CHECK(!gp_exec_cred_fresh(1100, 1000, 1090));
    /* Already expired when obtained: never fresh. */
    GP_CHECK(!gp_exec_cred_fresh(900, 1000, 1000));
}

GP_TEST(exec_info_json)
{
    gp_kube_exec x = { .api_version = V1B };
    gp_kube_config cfg = { .server = "https://k:6443", .tls_server_name = "kube",
                           .insecure = false };
    char *s = gp_exec_info_json(&x, &cfg, "PEM");

    GP_CHECK_STR(s, "{\"apiVersion\":\"" V1B "\",\"kind\":\"ExecCredential\",\"spec\":"
                    "{\"interactive\":false}}");
    free(s);
    x.provide_cluster_info = true;
    s = gp_exec_info_json(&x, &cfg, "PEM");
    GP_CHECK_STR(s, "{\"apiVersion\":\"" V1B "\",\"kind\":\"ExecCredential\",\"spec\":"
                    "{\"interactive\":false,\"cluster\":{\"server\":\"https://k:6443\","
                    "\"tls-server-name\":\"kube\",\"certificate-authority-data\":\"UEVN\"}}}");
    free(s);
}

/* ---- running plugins ------------------------------------------------------------------------- */

static gp_status run(const gp_kube_exec *x, gp_exec_cred *c, char *msg)
{
    gp_kube_config cfg = { .server = "https://k:6443" };
    gp_err err = { { 0 } };
    gp_status st = gp_exec_run(x, &cfg, NULL, c, &err);

    strcpy(msg, err.msg);
    return st;
}

GP_TEST(run_passes_args_env_and_exec_info)
{
    char dir[64], msg[GP_ERR_MAX], *s;
    gp_exec_cred c;
    gp_kube_exec x;

    make_tmpdir(dir, sizeof(dir));
    good_plugin(dir, NULL);
    x = exec_of(dir, "plugin.sh");
    GP_CHECK_INT(run(&x, &c, msg), GP_OK);
    GP_CHECK_STR(c.token, "tok-1");
    gp_exec_cred_clear(&c);
    s = read_file(dir, "args");
    GP_CHECK_STR(s, "get-token --cluster c1\n");
    free(s);
    s = read_file(dir, "myvar");
    GP_CHECK_STR(s, "from-kubeconfig\n");
    free(s);
    s = read_file(dir, "info");
    GP_CHECK_STR(s, "{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"spec\":"
                    "{\"interactive\":false}}");
    free(s);
    remove_tmpdir(dir);
}

GP_TEST(run_errors_named)
{
    char dir[64], msg[GP_ERR_MAX], want[GP_ERR_MAX];
    gp_exec_cred c;
    gp_kube_exec x;

    make_tmpdir(dir, sizeof(dir));
    write_file(dir, "fails.sh", 0755, "#!/bin/sh\necho 'error: no credentials' >&2\n"
                                      "echo second line >&2\nexit 3\n");
    write_file(dir, "garbage.sh", 0755, "#!/bin/sh\necho 'Hello, world'\n");
    write_file(dir, "slow.sh", 0755, "#!/bin/sh\nexec sleep 10\n");
    write_file(dir, "notoken.sh", 0755, "#!/bin/sh\necho '{\"apiVersion\":\"" V1 "\","
                                        "\"kind\":\"ExecCredential\",\"status\":{}}'\n");
    x = exec_of(dir, "fails.sh");
    GP_CHECK_INT(run(&x, &c, msg), GP_EIO);
    snprintf(want, sizeof(want), "exec plugin %s/fails.sh: exited with status 3: error: no "
                                 "credentials", dir);
    GP_CHECK_STR(msg, want);
    x = exec_of(dir, "garbage.sh");
    GP_CHECK_INT(run(&x, &c, msg), GP_EINVAL);
    snprintf(want, sizeof(want), "exec plugin %s/garbage.sh: output is not JSON", dir);
    GP_CHECK(strncmp(msg, want, strlen(want)) == 0);
    x = exec_of(dir, "notoken.sh");
    GP_CHECK_INT(run(&x, &c, msg), GP_EINVAL);
    snprintf(want, sizeof(want), "exec plugin %s/notoken.sh: status has no token", dir);
    GP_CHECK(strncmp(msg, want, strlen(want)) == 0);
    x = exec_of(dir, "slow.sh");
    x.timeout_ms = 300;
    GP_CHECK_INT(run(&x, &c, msg), GP_EIO);
    GP_CHECK(strstr(msg, "slow.sh: timed out after 300 ms (killed)") != NULL);
    x = exec_of(dir, "missing.sh");
    x.install_hint = "install it from example.com";
    GP_CHECK_INT(run(&x, &c, msg), GP_EIO);
    GP_CHECK(strstr(msg, "missing.sh: command not found: install it from example.com") != NULL);
    x.command = "gpupack-no-such-plugin";
    GP_CHECK_INT(run(&x, &c, msg), GP_EIO);
    GP_CHECK_STR(msg, "exec plugin gpupack-no-such-plugin: command not found: install it from "
                      "example.com");
    remove_tmpdir(dir);
}

/* ---- the cache ------------------------------------------------------------------------------- */

static gp_status cache_token(gp_exec_cache *cache, const gp_kube_exec *x, char **tok)
{
    gp_kube_config cfg = { .server = "https://k:6443" };
    char *cert = NULL, *key = NULL;
    gp_status st = gp_exec_cache_get(cache, x, &cfg, tok, &cert, &key, NULL);

    free(cert);
    free(key);
    return st;
}

GP_TEST(cache_runs_once_until_expiry_or_401)
{
    char dir[64], *tok = NULL;
    gp_exec_cache *cache = gp_exec_cache_new();
    gp_kube_exec x;

    make_tmpdir(dir, sizeof(dir));
    good_plugin(dir, "2099-01-01T00:00:00Z");
    x = exec_of(dir, "plugin.sh");
    for (int i = 0; i < 3; i++) {
        GP_CHECK_INT(cache_token(cache, &x, &tok), GP_OK);
        GP_CHECK_STR(tok, "tok-1");
        free(tok);
    }
    GP_CHECK_INT(runs_of(dir), 1);
    /* The API said 401: the next use runs the plugin again and takes its new token. */
    write_file(dir, "token", 0644, "tok-2");
    gp_exec_cache_invalidate(cache);
    GP_CHECK_INT(cache_token(cache, &x, &tok), GP_OK);
    GP_CHECK_STR(tok, "tok-2");
    free(tok);
    GP_CHECK_INT(runs_of(dir), 2);
    /* Stopping: no further run, and the get fails at once. */
    gp_exec_cache_cancel(cache);
    gp_exec_cache_invalidate(cache);
    GP_CHECK(cache_token(cache, &x, &tok) != GP_OK);
    GP_CHECK(tok == NULL);
    GP_CHECK_INT(runs_of(dir), 2);
    gp_exec_cache_unref(cache);
    remove_tmpdir(dir);
}

/* A plugin that hangs is abandoned within the poll slice once its run is cancelled. */
GP_TEST(run_abandoned_when_cancelled)
{
    char dir[64], msg[GP_ERR_MAX];
    gp_kube_config cfg = { .server = "https://k:6443" };
    gp_exec_cred c;
    gp_kube_exec x;
    gp_err err = { { 0 } };
    atomic_bool cancel;
    struct timespec t0, t1;

    atomic_init(&cancel, true);
    make_tmpdir(dir, sizeof(dir));
    write_file(dir, "hang.sh", 0755, "#!/bin/sh\nsleep 30\n");
    x = exec_of(dir, "hang.sh");
    clock_gettime(CLOCK_MONOTONIC, &t0);
    GP_CHECK_INT(gp_exec_run(&x, &cfg, &cancel, &c, &err), GP_EIO);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    snprintf(msg, sizeof(msg), "%s", err.msg);
    GP_CHECK(strstr(msg, "abandoned") != NULL);
    GP_CHECK(t1.tv_sec - t0.tv_sec < 5); /* not the plugin's 30 s */
    remove_tmpdir(dir);
}

GP_TEST(cache_refreshes_an_expired_token)
{
    char dir[64], *tok = NULL;
    gp_exec_cache *cache = gp_exec_cache_new();
    gp_kube_exec x;

    make_tmpdir(dir, sizeof(dir));
    good_plugin(dir, "2001-01-01T00:00:00Z");
    x = exec_of(dir, "plugin.sh");
    for (int i = 0; i < 3; i++) {
        GP_CHECK_INT(cache_token(cache, &x, &tok), GP_OK);
        free(tok);
    }
    GP_CHECK_INT(runs_of(dir), 3);
    gp_exec_cache_unref(cache);
    remove_tmpdir(dir);
}

/* ---- the kubeconfig ---------------------------------------------------------------------------- */

#define KC_HEAD                                                                                 \
    "clusters:\n- name: c\n  cluster: {server: 'https://k:443'}\n"                              \
    "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n"              \
    "users:\n- name: u\n  user:\n    exec:\n"

static gp_status load_kc(const char *dir, const char *body, gp_kube_config **k, char *msg)
{
    char path[128];
    gp_err err = { { 0 } };
    gp_status st;

    write_file(dir, "config", 0600, KC_HEAD "%s", body);
    snprintf(path, sizeof(path), "%s/config", dir);
    st = gp_kube_config_load(path, NULL, k, &err);
    strcpy(msg, err.msg);
    return st;
}

GP_TEST(kubeconfig_exec_loaded_and_token_from_plugin)
{
    char dir[64], msg[GP_ERR_MAX], want[256], *tok = NULL;
    gp_kube_config *k = NULL, *copy;
    gp_err err = { { 0 } };

    make_tmpdir(dir, sizeof(dir));
    mkdir(strcat(strcpy(want, dir), "/bin"), 0755);
    good_plugin(dir, "2099-01-01T00:00:00Z");
    rename(strcat(strcpy(msg, dir), "/plugin.sh"), strcat(strcpy(want, dir), "/bin/plugin.sh"));
    write_file(dir, "bin/token", 0644, "tok-1");
    GP_CHECK_INT(load_kc(dir,
                         "      apiVersion: " V1 "\n"
                         "      command: ./bin/plugin.sh\n"
                         "      args: [get-token, --cluster, c1]\n"
                         "      env: [{name: MY_VAR, value: from-kubeconfig}]\n"
                         "      interactiveMode: IfAvailable\n"
                         "      provideClusterInfo: true\n",
                         &k, msg),
                 GP_OK);
    GP_CHECK_STR(msg, "");
    GP_CHECK(k != NULL && k->exec != NULL && k->exec_cache != NULL);
    if (k == NULL || k->exec == NULL) {
        remove_tmpdir(dir);
        return;
    }
    snprintf(want, sizeof(want), "%s/./bin/plugin.sh", dir);
    GP_CHECK_STR(k->exec->command, want);
    GP_CHECK_INT(k->exec->nargs, 3);
    GP_CHECK_STR(k->exec->env[0], "MY_VAR=from-kubeconfig");
    GP_CHECK(k->exec->provide_cluster_info);
    /* Copies share the cache: two informers run the plugin once. */
    copy = gp_kube_config_copy(k);
    GP_CHECK(gp_kube_config_token(k, &tok, &err) == GP_OK && tok && !strcmp(tok, "tok-1"));
    free(tok);
    GP_CHECK(gp_kube_config_token(copy, &tok, &err) == GP_OK && tok && !strcmp(tok, "tok-1"));
    free(tok);
    GP_CHECK_INT(runs_of(strcat(strcpy(want, dir), "/bin")), 1);
    tok = read_file(dir, "bin/info");
    GP_CHECK(strstr(tok, "\"cluster\":{\"server\":\"https://k:443\"}") != NULL);
    free(tok);
    gp_kube_config_free(copy);
    gp_kube_config_free(k);
    remove_tmpdir(dir);
}

GP_TEST(kubeconfig_exec_errors)
{
    static const struct {
        const char *body, *want;
        gp_status st;
    } cases[] = {
        { "      apiVersion: " V1 "\n", "user.exec.command: missing", GP_EINVAL },
        { "      apiVersion: client.authentication.k8s.io/v1alpha1\n      command: sh\n",
          "user.exec.apiVersion: \"client.authentication.k8s.io/v1alpha1\" is not supported",
          GP_EINVAL },
        { "      command: sh\n", "user.exec.apiVersion: \"\" is not supported", GP_EINVAL },
        { "      apiVersion: " V1 "\n      command: sh\n      interactiveMode: Always\n",
          "user.exec.interactiveMode: Always needs a terminal", GP_EINVAL },
        { "      apiVersion: " V1 "\n      command: sh\n      interactiveMode: Sometimes\n",
          "interactiveMode: expected Never, IfAvailable or Always", GP_EINVAL },
        { "      apiVersion: " V1 "\n      command: sh\n      args: get-token\n",
          "user.exec.args: expected a list", GP_EINVAL },
        { "      apiVersion: " V1 "\n      command: sh\n      env: [{value: x}]\n",
          "user.exec.env[0].name: missing", GP_EINVAL },
        { "      apiVersion: " V1 "\n      command: gke-gcloud-auth-plugin-not-here\n"
          "      installHint: Install gke-gcloud-auth-plugin\n",
          "user.exec.command: \"gke-gcloud-auth-plugin-not-here\": command not found: Install "
          "gke-gcloud-auth-plugin",
          GP_ENOTFOUND },
    };
    char dir[64], msg[GP_ERR_MAX];

    make_tmpdir(dir, sizeof(dir));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gp_kube_config *k = NULL;

        GP_CHECK_INT(load_kc(dir, cases[i].body, &k, msg), cases[i].st);
        GP_CHECK(k == NULL);
        if (strstr(msg, cases[i].want) == NULL) {
            printf("  case %zu: \"%s\" lacks \"%s\"\n", i, msg, cases[i].want);
            gp_test_failed = 1;
        }
    }
    remove_tmpdir(dir);
}

GP_MAIN(GP_CASE(cred_parse_token_and_expiry), GP_CASE(cred_parse_errors_named), GP_CASE(rfc3339),
        GP_CASE(refresh_decision), GP_CASE(exec_info_json),
        GP_CASE(run_passes_args_env_and_exec_info), GP_CASE(run_errors_named),
        GP_CASE(cache_runs_once_until_expiry_or_401), GP_CASE(run_abandoned_when_cancelled), GP_CASE(cache_refreshes_an_expired_token),
        GP_CASE(kubeconfig_exec_loaded_and_token_from_plugin), GP_CASE(kubeconfig_exec_errors))
