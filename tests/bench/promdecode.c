/* SPDX-License-Identifier: Apache-2.0 */
/* Decodes one Prometheus response body from a file with gp_promjson_decode, caps raised so that
 * any body fits, and prints the series, samples, decode time and peak RSS (with and without the
 * body itself). What docs/benchmarks.md's decoder figures are measured with; nothing ships it.
 * Usage: bench-promdecode FILE [default-caps] (the second: the decoder's own caps, to time a
 * refusal) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "gpupack/promjson.h"

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long max_rss_kb(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    gp_prom_limits lim = { .max_series = 10000000, .max_samples = 1000000000 };
    gp_prom_result *r = NULL;
    gp_err err = { { 0 } };
    size_t len, samples = 0;
    long before;
    double t0, t1;
    char *body;
    FILE *f;

    if (argc < 2 || argc > 3 || (f = fopen(argv[1], "rb")) == NULL) {
        fprintf(stderr, "usage: bench-promdecode FILE [default-caps]\n");
        return 2;
    }
    fseek(f, 0, SEEK_END);
    len = (size_t)ftell(f);
    rewind(f);
    body = malloc(len + 1);
    if (body == NULL || fread(body, 1, len, f) != len) {
        fprintf(stderr, "bench-promdecode: cannot read %s\n", argv[1]);
        free(body);
        fclose(f);
        return 1;
    }
    fclose(f);
    body[len] = '\0';
    before = max_rss_kb();
    t0 = now();
    if (gp_promjson_decode(body, len, argc == 3 ? NULL : &lim, &r, &err) != GP_OK) {
        fprintf(stderr,
                "bench-promdecode: %s after %.3f s, peak RSS %.1f MiB (%.1f MiB above the body)\n",
                err.msg, now() - t0, (double)max_rss_kb() / 1024,
                (double)(max_rss_kb() - before) / 1024);
        return 1;
    }
    t1 = now();
    for (size_t i = 0; i < r->nseries; i++)
        samples += r->series[i].nsamples;
    printf("body %.1f MB, %zu series, %zu samples: decode %.3f s, peak RSS %.1f MiB "
           "(%.1f MiB above the body read in)\n",
           (double)len / 1e6, r->nseries, samples, t1 - t0, (double)max_rss_kb() / 1024,
           (double)(max_rss_kb() - before) / 1024);
    gp_prom_result_free(r);
    free(body);
    return 0;
}
