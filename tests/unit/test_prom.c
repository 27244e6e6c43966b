/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/prom.c's configuration checks and argument checks (the requests themselves
 * are tested against a real Prometheus by tests/e2e/prometheus.sh). */
#include "gptest.h"

#include <math.h>

#include "gpupack/prom.h"

static gp_status make(const gp_prom_config *cfg, const char *want)
{
    gp_prom *p = (gp_prom *)1;
    gp_err err = { "" };
    gp_status st = gp_prom_new(cfg, &p, &err);

    if (st == GP_OK) {
        gp_prom_free(p);
    } else {
        GP_CHECK(p == NULL);
        if (want == NULL || strstr(err.msg, want) == NULL) {
            printf("  error \"%s\", want \"%s\"\n", err.msg, want ? want : "(none)");
            gp_test_failed = 1;
        }
    }
    return st;
}

GP_TEST(config_checks)
{
    const char *good[] = { "X-Scope-OrgID: t1", "X-Empty:" };
    const char *bad_name[] = { "X Scope: t1" }, *no_colon[] = { "X-Scope-OrgID" };
    const char *crlf[] = { "X-A: b\r\nX-B: c" };

    GP_CHECK_INT(make(&(gp_prom_config){ .url = "http://127.0.0.1:9090/", .headers = good,
                                         .nheaders = 2 }, NULL), GP_OK);
    GP_CHECK_INT(make(&(gp_prom_config){ .url = "https://prom/prefix" }, NULL), GP_OK);
    GP_CHECK_INT(make(&(gp_prom_config){ .url = NULL }, "want an http:// or https:// URL"), GP_EINVAL);
    GP_CHECK_INT(make(&(gp_prom_config){ .url = "ftp://x" }, "want an http:// or https:// URL"), GP_EINVAL);
    GP_CHECK_INT(make(&(gp_prom_config){ .url = "http://x", .cert_file = "c" }, "both"), GP_EINVAL);
    GP_CHECK_INT(make(&(gp_prom_config){ .url = "http://x", .headers = bad_name, .nheaders = 1 },
                      "want \"Name: value\""), GP_EINVAL);
    GP_CHECK_INT(make(&(gp_prom_config){ .url = "http://x", .headers = no_colon, .nheaders = 1 },
                      "want \"Name: value\""), GP_EINVAL);
    GP_CHECK_INT(make(&(gp_prom_config){ .url = "http://x", .headers = crlf, .nheaders = 1 },
                      "want \"Name: value\""), GP_EINVAL);
    GP_CHECK_INT(make(&(gp_prom_config){ .url = "http://x", .headers = good, .nheaders = 33 },
                      "more than 32"), GP_EINVAL);
    gp_prom_free(NULL);
}

GP_TEST(range_arguments)
{
    gp_prom *p = NULL;
    gp_prom_result *r = (gp_prom_result *)1;
    gp_err err = { "" };

    GP_CHECK_INT(gp_prom_new(&(gp_prom_config){ .url = "http://127.0.0.1:1" }, &p, &err), GP_OK);
    GP_CHECK_INT(gp_prom_query_range(p, "up", 10, 5, 1, &r, &err), GP_EINVAL);
    GP_CHECK(r == NULL);
    GP_CHECK_INT(gp_prom_query_range(p, "up", 0, 5, 0, &r, &err), GP_EINVAL);
    GP_CHECK_INT(gp_prom_query_range(p, "up", 0, 5, NAN, &r, &err), GP_EINVAL);
    GP_CHECK(strstr(err.msg, "step > 0") != NULL);
    GP_CHECK_INT(gp_prom_last_stats(p).attempts, 0);
    gp_prom_free(p);
}

GP_TEST(token_file_missing)
{
    gp_prom *p = NULL;
    gp_prom_result *r = NULL;
    gp_err err = { "" };

    GP_CHECK_INT(gp_prom_new(&(gp_prom_config){ .url = "http://127.0.0.1:1",
                                                .token_file = "/nonexistent/token" }, &p, &err),
                 GP_OK);
    GP_CHECK(gp_prom_query(p, "up", NAN, &r, &err) != GP_OK);
    GP_CHECK(r == NULL);
    GP_CHECK(strstr(err.msg, "prometheus bearer token") != NULL);
    GP_CHECK(strstr(err.msg, "/nonexistent/token") != NULL);
    gp_prom_free(p);
}

static void url_bad(const char *url, const char *want)
{
    gp_err err = { "" };

    GP_CHECK_INT(gp_prom_url_check(url, &err), GP_EINVAL);
    if (strstr(err.msg, want) == NULL) {
        printf("  \"%s\": error \"%s\", want \"%s\"\n", url, err.msg, want);
        gp_test_failed = 1;
    }
}

/* What the advisor refuses as a bad --prometheus before any query. */
GP_TEST(url_checks)
{
    gp_err err = { "" };

    GP_CHECK_INT(gp_prom_url_check("http://127.0.0.1:9090", &err), GP_OK);
    GP_CHECK_INT(gp_prom_url_check("https://prom.example/prefix/", &err), GP_OK);
    GP_CHECK_INT(gp_prom_url_check("http://[::1]:65535", &err), GP_OK);
    url_bad("http://", "No host part");
    url_bad("http://:9090", "No host part");
    url_bad("http://exa mple", "a space or control character at byte 10");
    url_bad("http://example\t", "control character");
    url_bad("http://127.0.0.1:99999", "not a usable URL");
    url_bad("http://127.0.0.1:0", "port 0 is out of range 1-65535");
    url_bad("http://127.0.0.1:x", "not a usable URL");
    url_bad("ftp://x", "want an http:// or https:// URL");
    url_bad("", "want an http:// or https:// URL");
    url_bad(NULL, "want an http:// or https:// URL");
}

GP_TEST(url_password_redacted)
{
    char buf[128];

    GP_CHECK_STR(gp_prom_url_redact("http://user:s3cret@h:9090/x", buf, sizeof(buf)),
                 "http://user:***@h:9090/x");
    GP_CHECK_STR(gp_prom_url_redact("https://u:p@q:w@h/", buf, sizeof(buf)), "https://u:***@h/");
    GP_CHECK_STR(gp_prom_url_redact("http://u@h:0/x@y", buf, sizeof(buf)), "http://u@h:0/x@y");
    GP_CHECK_STR(gp_prom_url_redact("http://h:9090/a:b@c", buf, sizeof(buf)),
                 "http://h:9090/a:b@c");
    GP_CHECK_STR(gp_prom_url_redact("u:pw@h:1", buf, sizeof(buf)), "u:***@h:1");
    GP_CHECK_STR(gp_prom_url_redact("http://a:secret@h", buf, 12), "http://a:**");
}

GP_MAIN(GP_CASE(config_checks), GP_CASE(url_checks), GP_CASE(range_arguments), GP_CASE(token_file_missing),
        GP_CASE(url_password_redacted))
