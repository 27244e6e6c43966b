/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/daemon.c's policy handling (the digest, --check-policy, the start and reload
 * metrics) and of lib/webhook.c's counting (one increment per pod per kind of change). */
#include "gpupack/daemon.h"

#include "gpupack/fileio.h"
#include "gpupack/webhook.h"

#include "gptest.h"
#include "metric_read.h"

/* sha256("abc"), FIPS 180-2's example. */
#define MIN "{\"apiVersion\": \"gpupack.io/v1alpha1\", \"kind\": \"Policy\"}"
#define MIN2 "{\"apiVersion\":\"gpupack.io/v1alpha1\",\"kind\":\"Policy\"}"
#define ABC_SHA256 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

static char *tmp_file(const char *content)
{
    static char path[64];
    int fd;

    snprintf(path, sizeof(path), "/tmp/gp-daemon-test.XXXXXX");
    fd = mkstemp(path);
    if (fd < 0 || write(fd, content, strlen(content)) != (ssize_t)strlen(content))
        return NULL;
    close(fd);
    return path;
}

static char *capture(FILE *f)
{
    long n;
    char *s;

    fflush(f);
    n = ftell(f);
    s = calloc(1, (size_t)n + 1);
    rewind(f);
    if (fread(s, 1, (size_t)n, f) != (size_t)n)
        s[0] = '\0';
    return s;
}

GP_TEST(digest_is_sha256_hex)
{
    char d[GP_DAEMON_DIGEST_SIZE];

    gp_daemon_digest("abc", 3, d);
    GP_CHECK_STR(d, ABC_SHA256);
}

GP_TEST(policy_read_digests_the_file_bytes)
{
    char *path = tmp_file(MIN), d[GP_DAEMON_DIGEST_SIZE], *errors = NULL, want[GP_DAEMON_DIGEST_SIZE];
    gp_policy *p = NULL;

    GP_CHECK(gp_daemon_policy_read(path, &p, d, &errors) == GP_OK);
    gp_daemon_digest(MIN, strlen(MIN), want);
    GP_CHECK_STR(d, want);
    GP_CHECK(errors == NULL);
    gp_policy_unref(p);
    unlink(path);
    /* The embedded default: the digest of its bytes. */
    GP_CHECK(gp_daemon_policy_read(NULL, &p, d, &errors) == GP_OK);
    gp_daemon_digest(gp_default_policy_json, gp_default_policy_json_len, want);
    GP_CHECK_STR(d, want);
    gp_policy_unref(p);
}

GP_TEST(policy_read_names_an_unreadable_file)
{
    char d[GP_DAEMON_DIGEST_SIZE], *errors = NULL;
    gp_policy *p = NULL;

    GP_CHECK(gp_daemon_policy_read("/nonexistent/p.json", &p, d, &errors) == GP_EIO);
    GP_CHECK_STR(errors, "cannot read /nonexistent/p.json: No such file or directory\n");
    free(errors);
    GP_CHECK(gp_daemon_policy_read("/tmp", &p, d, &errors) == GP_EIO);
    GP_CHECK(errors != NULL && strncmp(errors, "cannot read /tmp: ", 18) == 0);
    free(errors);
}

/* Every error line names the file (moved here with the one prefixing code). */
GP_TEST(policy_read_prefixes_errors)
{
    char *path = tmp_file("{\"apiVersion\": \"gpupack.io/v1alpha1\", \"kind\": \"Policy\", "
                          "\"mode\": \"x\", \"bogus\": true}"),
         d[GP_DAEMON_DIGEST_SIZE], *errors = NULL, want[160];
    gp_policy *p = NULL;

    GP_CHECK(gp_daemon_policy_read(path, &p, d, &errors) == GP_EINVAL);
    GP_CHECK(p == NULL);
    snprintf(want, sizeof(want), "%s: bogus: unknown field\n", path);
    GP_CHECK(errors != NULL && strstr(errors, want) != NULL);
    snprintf(want, sizeof(want), "%s: mode: must be one of \"enforce\", \"audit\"", path);
    GP_CHECK(errors != NULL && strstr(errors, want) != NULL);
    GP_CHECK(errors != NULL && errors[strlen(errors) - 1] == '\n');
    free(errors);
    unlink(path);
}

GP_TEST(check_policy_output_and_status)
{
    FILE *out = tmpfile(), *err = tmpfile();
    char *path = tmp_file("{\"mode\": \"enforce\", \"bogus\": 1, \"classes\": 3}"), *o, *e;
    char *good = NULL;

    GP_CHECK_INT(gp_daemon_check_policy("prog", path, out, err), 1);
    o = capture(out);
    e = capture(err);
    GP_CHECK_STR(o, "");
    GP_CHECK(strncmp(e, "prog: --check-policy: invalid policy:\n", 38) == 0);
    /* Every error, each line naming the file, as a reload logs them. */
    GP_CHECK(strstr(e, "bogus") != NULL && strstr(e, "classes") != NULL);
    GP_CHECK(strstr(e + 38, path) == e + 38);
    free(o);
    free(e);
    unlink(path);
    GP_CHECK_INT(gp_daemon_check_policy("prog", "/nonexistent/p.json", out, err), 1);
    e = capture(err);
    GP_CHECK(strstr(e, "prog: --check-policy: cannot read /nonexistent/p.json: No such file") !=
             NULL);
    free(e);
    fclose(out);
    fclose(err);
    out = tmpfile();
    err = tmpfile();
    good = tmp_file(MIN);
    GP_CHECK_INT(gp_daemon_check_policy("prog", good, out, err), 0);
    o = capture(out);
    {
        char want[512], d[GP_DAEMON_DIGEST_SIZE];

        gp_daemon_digest(MIN, strlen(MIN), d);
        snprintf(want, sizeof(want), "%s: valid policy, sha256 %s\n", good, d);
        GP_CHECK_STR(o, want);
    }
    free(o);
    unlink(good);
    fclose(out);
    fclose(err);
}

GP_TEST(metrics_at_start_and_reload)
{
    gp_metrics *m = gp_metrics_new();
    gp_log log;
    FILE *lf = tmpfile();
    gp_policy_holder h;
    char d[GP_DAEMON_DIGEST_SIZE], d2[GP_DAEMON_DIGEST_SIZE], labels[128], *path = tmp_file(MIN),
        *text;

    gp_log_init(&log, GP_LOG_INFO, lf);
    GP_CHECK_INT(gp_daemon_load_policy("prog", path, &h, d), 0);
    gp_daemon_policy_started(path, d, "1.2.3", m, &log);
    snprintf(labels, sizeof(labels), "digest=\"%s\"", d);
    GP_CHECK(metric_value(m, "gpupack_policy_info", labels) == 1);
    GP_CHECK(metric_value(m, "gpupack_build_info", "version=\"1.2.3\"") == 1);
    GP_CHECK(metric_value(m, "gpupack_policy_last_reload_successful", "") == 1);
    GP_CHECK(metric_value(m, "gpupack_policy_last_reload_timestamp_seconds", "") > 0);
    text = gp_metrics_render(m, NULL);
    GP_CHECK(strstr(text, "gpupack_policy_reloads_total{result=\"failure\"} 0\n") != NULL);
    free(text);
    /* An invalid file: counted, the gauge turns 0, the info stays on the policy in force. */
    {
        FILE *f = fopen(path, "w");

        fputs("{\"nope\": 1}", f);
        fclose(f);
    }
    gp_daemon_reload_policy(path, &h, m, &log);
    GP_CHECK(metric_value(m, "gpupack_policy_last_reload_successful", "") == 0);
    GP_CHECK(metric_value(m, "gpupack_policy_reloads_total", "result=\"failure\"") == 1);
    GP_CHECK(metric_value(m, "gpupack_policy_info", labels) == 1);
    /* A valid change: the info follows the new digest, and only it is rendered. */
    {
        FILE *f = fopen(path, "w");

        fputs(MIN2, f);
        fclose(f);
    }
    gp_daemon_reload_policy(path, &h, m, &log);
    gp_daemon_digest(MIN2, strlen(MIN2), d2);
    snprintf(labels, sizeof(labels), "digest=\"%s\"", d2);
    GP_CHECK(metric_value(m, "gpupack_policy_info", labels) == 1);
    GP_CHECK(metric_value(m, "gpupack_policy_last_reload_successful", "") == 1);
    text = gp_metrics_render(m, NULL);
    GP_CHECK(strstr(text, d) == NULL);
    free(text);
    text = capture(lf);
    GP_CHECK(strstr(text, "\"msg\":\"policy loaded\"") != NULL && strstr(text, d) != NULL);
    GP_CHECK(strstr(text, "\"msg\":\"policy reloaded\"") != NULL && strstr(text, d2) != NULL);
    free(text);
    unlink(path);
    gp_policy_holder_destroy(&h);
    gp_log_destroy(&log);
    fclose(lf);
    gp_metrics_free(m);
}

GP_TEST(load_policy_unreadable_exits_2)
{
    gp_policy_holder h;
    char d[GP_DAEMON_DIGEST_SIZE];

    GP_CHECK_INT(gp_daemon_load_policy("prog", "/nonexistent/p.json", &h, d), 2);
}

/* The example review's pod gets three priority-class operations (set the class, remove
 * priority and preemptionPolicy), two MIG operations (requests and limits) and two annotations:
 * one pod, one count per kind. */
GP_TEST(webhook_counts_pods_per_kind)
{
    gp_metrics *m = gp_metrics_new();
    gp_policy_holder h;
    gp_webhook w;
    gp_http_response resp = { 0 };
    char d[GP_DAEMON_DIGEST_SIZE], *body = NULL;
    size_t len = 0;
    gp_err err = { { 0 } };

    gp_cluster *view = gp_cluster_new();

    /* The README's example: a node snapshot offering MIG slices, so the rewrite happens. */
    GP_CHECK(gp_file_read("tests/examples/nodes.json", 1 << 20, &body, &len, &err) == GP_OK);
    GP_CHECK(view != NULL && gp_cluster_set_nodes_json(view, body, len, &err) == GP_OK);
    free(body);
    body = NULL;
    GP_CHECK(gp_file_read("tests/examples/gpu-deployment-review.json", 1 << 20, &body, &len,
                          &err) == GP_OK);
    GP_CHECK_INT(gp_daemon_load_policy("prog", NULL, &h, d), 0);
    gp_webhook_init(&w, &h, view, m, NULL);
    GP_CHECK(metric_value(m, "gpupack_mutations_total", "kind=\"spot\"") == 0);
    {
        char *text = gp_metrics_render(m, NULL);

        GP_CHECK(strstr(text, "gpupack_mutations_total{kind=\"mig\"} 0\n") != NULL);
        GP_CHECK(strstr(text, "gpupack_admission_reviews_total{outcome=\"patched\"} 0\n") != NULL);
        free(text);
    }
    gp_webhook_review(&w, body, len, &resp);
    GP_CHECK_INT(resp.status, 200);
    GP_CHECK(metric_value(m, "gpupack_mutations_total", "kind=\"priority-class\"") == 1);
    GP_CHECK(metric_value(m, "gpupack_mutations_total", "kind=\"annotation\"") == 1);
    GP_CHECK(metric_value(m, "gpupack_mutations_total", "kind=\"mig\"") == 1);
    GP_CHECK(metric_value(m, "gpupack_mutations_total", "kind=\"toleration\"") == 1);
    free(resp.body);
    free(body);
    gp_webhook_destroy(&w);
    gp_policy_holder_destroy(&h);
    gp_metrics_free(m);
}

GP_MAIN(GP_CASE(digest_is_sha256_hex), GP_CASE(policy_read_digests_the_file_bytes),
        GP_CASE(policy_read_names_an_unreadable_file),
        GP_CASE(policy_read_prefixes_errors), GP_CASE(check_policy_output_and_status),
        GP_CASE(metrics_at_start_and_reload), GP_CASE(load_policy_unreadable_exits_2),
        GP_CASE(webhook_counts_pods_per_kind))
