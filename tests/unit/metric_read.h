/* SPDX-License-Identifier: Apache-2.0 */
/* Reads one sample of a registry the way a scraper does: from gp_metrics_render()'s text. The
 * value of the series name{labels} (labels "" or NULL: none) for a counter or gauge, its
 * observation count (name_count) for a histogram, 0 when the series is absent.
 *
 *   GP_CHECK(metric_value(m, "gpupack_requests_total", "code=\"200\"") == 1);
 */
#ifndef METRIC_READ_H
#define METRIC_READ_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpupack/metrics.h"

/* The value on the line that starts with name, suffix, {labels} and a space, or NAN. */
static double metric_line(const char *text, const char *name, const char *suffix,
                          const char *labels)
{
    char prefix[512];
    size_t n;

    snprintf(prefix, sizeof(prefix), "%s%s%s%s%s ", name, suffix, *labels ? "{" : "", labels,
             *labels ? "}" : "");
    n = strlen(prefix);
    for (const char *l = text; l != NULL && *l != '\0'; l = strchr(l, '\n'), l = l ? l + 1 : l)
        if (strncmp(l, prefix, n) == 0)
            return strtod(l + n, NULL);
    return NAN;
}

static double metric_value(gp_metrics *m, const char *name, const char *labels)
{
    char *text = gp_metrics_render(m, NULL);
    double v;

    if (text == NULL)
        return 0;
    v = metric_line(text, name, "", labels ? labels : "");
    if (isnan(v))
        v = metric_line(text, name, "_count", labels ? labels : "");
    free(text);
    return isnan(v) ? 0 : v;
}

#endif
