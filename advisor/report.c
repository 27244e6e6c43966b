/* SPDX-License-Identifier: Apache-2.0 */
/* The report subcommand's run (report.h). */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fetch.h"
#include "kubefill.h"
#include "gpupack/advise.h"
#include "gpupack/arena.h"
#include "gpupack/strbuf.h"
#include "query.h"

#define PROG "gpupack-advisor"

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
    }
    return n > 0;
}

gp_status gp_adv_parse_time(const char *s, double *t)
{
    struct tm tm;
    const char *p;
    double frac = 0, off = 0;
    size_t n = s != NULL ? strlen(s) : 0;
    char *end = NULL;

    if (n == 0)
        return GP_EINVAL;
    if (strchr(s, 'T') == NULL && strchr(s, 't') == NULL) {
        double v = strtod(s, &end);

        if (end == s || *end != '\0' || !(v > 0 && v < 1e11) || s[0] < '0' || s[0] > '9')
            return GP_EINVAL;
        *t = v;
        return GP_OK;
    }
    if (n < 20 || !all_digits(s, 4) || s[4] != '-' || !all_digits(s + 5, 2) || s[7] != '-' ||
        !all_digits(s + 8, 2) || (s[10] != 'T' && s[10] != 't') || !all_digits(s + 11, 2) ||
        s[13] != ':' || !all_digits(s + 14, 2) || s[16] != ':' || !all_digits(s + 17, 2))
        return GP_EINVAL;
    memset(&tm, 0, sizeof(tm));
    tm.tm_year = atoi(s) - 1900;
    tm.tm_mon = atoi(s + 5) - 1;
    tm.tm_mday = atoi(s + 8);
    tm.tm_hour = atoi(s + 11);
    tm.tm_min = atoi(s + 14);
    tm.tm_sec = atoi(s + 17);
    if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
        tm.tm_min > 59 || tm.tm_sec > 60)
        return GP_EINVAL;
    p = s + 19;
    if (*p == '.') {
        double scale = 0.1;

        p++;
        if (*p < '0' || *p > '9')
            return GP_EINVAL;
        while (*p >= '0' && *p <= '9') {
            frac += (*p++ - '0') * scale;
            scale /= 10;
        }
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if ((*p == '+' || *p == '-') && all_digits(p + 1, 2) && p[3] == ':' &&
               all_digits(p + 4, 2)) {
        off = (atoi(p + 1) * 3600.0 + atoi(p + 4) * 60.0) * (*p == '-' ? -1 : 1);
        p += 6;
    } else {
        return GP_EINVAL;
    }
    if (*p != '\0')
        return GP_EINVAL;
    *t = (double)timegm(&tm) + frac - off;
    return *t > 0 ? GP_OK : GP_EINVAL;
}

gp_status gp_adv_write_atomic(const char *path, const char *data, size_t len, gp_err *err)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    int fd;
    size_t off = 0;

    if (tmp == NULL) {
        gp_err_set(err, "%s: out of memory", path);
        return GP_ENOMEM;
    }
    snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
    fd = mkstemp(tmp);
    if (fd < 0) {
        gp_err_set(err, "%s: cannot create a temporary file: %s", path, strerror(errno));
        free(tmp);
        return GP_EIO;
    }
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    if (off < len || fchmod(fd, 0644) != 0 || fsync(fd) != 0 || close(fd) != 0 ||
        rename(tmp, path) != 0) {
        gp_err_set(err, "%s: %s", path, strerror(errno));
        if (off < len)
            close(fd);
        unlink(tmp);
        free(tmp);
        return GP_EIO;
    }
    free(tmp);
    return GP_OK;
}

static int fail(const gp_adv_report_opts *o, int rc, const char *msg)
{
    fprintf(o->log, PROG ": %s\n", msg);
    return rc;
}

/* Renders and writes the report. */
static int output(const gp_adv_report_opts *o, const gp_adv_report *rep)
{
    gp_strbuf b;
    gp_err err = { "" };
    char *text = NULL;
    size_t len = 0;
    gp_status st;

    gp_strbuf_init(&b, 0);
    st = gp_adv_render(rep, o->format, o->top, &b, &err);
    if (st == GP_OK)
        st = gp_strbuf_take(&b, &text, &len);
    gp_strbuf_free(&b);
    if (st != GP_OK) {
        free(text);
        return fail(o, 1, err.msg[0] ? err.msg : "rendering the report failed");
    }
    if (o->output != NULL)
        st = gp_adv_write_atomic(o->output, text, len, &err);
    else if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
        gp_err_set(&err, "writing the report to stdout failed");
        st = GP_EIO;
    }
    free(text);
    if (st != GP_OK)
        return fail(o, 1, err.msg);
    if (o->output != NULL && !o->quiet)
        fprintf(o->log, PROG ": wrote %s\n", o->output);
    return 0;
}

/* Fills d from the snapshot files and the API (kubefill.h) and says what it added. */
static int fill_in(const gp_adv_report_opts *o, gp_adv_data *d)
{
    gp_adv_fill_stats st = {0};
    gp_err err = { "" };

    for (size_t i = 0; i < o->nsnapshots; i++)
        if (gp_adv_fill_file(d, o->pol, o->snapshots[i], &st, &err) != GP_OK)
            return fail(o, 2, err.msg);
    if (o->kube != NULL && gp_adv_fill_from_api(d, o->pol, o->kube, &st, &err) != GP_OK)
        return fail(o, GP_ADV_RC_KUBE, err.msg);
    if ((o->nsnapshots > 0 || o->kube != NULL) && !o->quiet)
        fprintf(o->log, PROG ": from Kubernetes objects: %zu pod labels, %zu owners, %zu nodes "
                "filled in\n", st.pod_labels, st.owners, st.nodes);
    return 0;
}

/* Assembles the answers (freed once assembled: the analysis needs only the data) and analyses
 * them into *rep. */
static int analyse(const gp_adv_report_opts *o, const gp_advq_set *qs, gp_adv_results *res,
                   gp_adv_report *rep)
{
    gp_adv_data d;
    gp_err err = { "" };
    gp_status st = gp_adv_assemble(o->pol, qs, res, &d, &err);
    int rc;

    gp_adv_results_free(res);
    gp_heap_trim();
    if (st != GP_OK)
        return fail(o, 1, err.msg);
    if ((rc = fill_in(o, &d)) != 0) {
        gp_adv_data_free(&d);
        return rc;
    }
    for (size_t i = 0; i < d.nnotes; i++) {
        if (strncmp(d.notes[i], "Prometheus warning", 18) != 0) /* already shown */
            fprintf(o->log, PROG ": note: %s\n", d.notes[i]);
    }
    st = gp_advise(&d, o->pol, rep, &err);
    gp_adv_data_free(&d);
    if (st != GP_OK) {
        gp_adv_report_free(rep);
        memset(rep, 0, sizeof(*rep));
        return fail(o, 1, err.msg[0] ? err.msg : gp_status_str(st));
    }
    return 0;
}

int gp_adv_analyse(const gp_adv_report_opts *o, gp_adv_report *rep)
{
    gp_adv_window w;
    gp_advq_set qs;
    gp_adv_results res;
    gp_prom *p = NULL;
    gp_err err = { "" };
    gp_adv_fetch_opts fo = { .out = o->log, .show_queries = o->show_queries, .quiet = o->quiet };
    int rc;

    memset(rep, 0, sizeof(*rep));
    if (gp_adv_window_make(o->until, o->since, o->step, &w, &err) != GP_OK) {
        fprintf(o->log, PROG ": %s\nsee " PROG " --help\n", err.msg);
        return 2;
    }
    w.part_steps = o->query_steps;
    if (gp_advq_build(o->pol, &w, &qs, &err) != GP_OK)
        return fail(o, 2, err.msg);
    if (gp_prom_new(o->prom, &p, &err) != GP_OK) {
        gp_advq_set_free(&qs);
        fprintf(o->log, PROG ": %s: %s\nsee " PROG " --help\n",
                strstr(err.msg, "header") != NULL ? "--prometheus-header" : "--prometheus",
                err.msg);
        return 2;
    }
    if (gp_adv_fetch(p, &qs, &fo, &res, &err) != GP_OK)
        rc = fail(o, 1, err.msg);
    else
        rc = analyse(o, &qs, &res, rep);
    gp_adv_results_free(&res);
    gp_prom_free(p);
    gp_advq_set_free(&qs);
    return rc;
}

int gp_adv_report_run(const gp_adv_report_opts *o)
{
    gp_adv_report rep;
    int rc = gp_adv_analyse(o, &rep);

    if (rc == GP_ADV_RC_KUBE)
        rc = 1;
    if (rc == 0)
        rc = output(o, &rep);
    gp_adv_report_free(&rep);
    return rc;
}
