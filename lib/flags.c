#include "gpupack/flags.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gp_flag *find(const gp_flag *flags, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(flags[i].name) == len && strncmp(flags[i].name, name, len) == 0)
            return &flags[i];
    return NULL;
}

static gp_status parse_uint(const gp_flag *f, const char *v, gp_err *err)
{
    char *end = NULL;
    unsigned long x;

    errno = 0;
    if (*v < '0' || *v > '9') {
        gp_err_set(err, "--%s: expected a number, got \"%.64s\"", f->name, v);
        return GP_EINVAL;
    }
    x = strtoul(v, &end, 10);
    if (errno != 0 || *end != '\0' || x < f->min || x > f->max) {
        gp_err_set(err, "--%s: must be a whole number %u..%u, got \"%.64s\"", f->name, f->min,
                   f->max, v);
        return GP_EINVAL;
    }
    *(unsigned *)f->dest = (unsigned)x;
    return GP_OK;
}

static gp_status set_value(const gp_flag *f, const char *v, gp_err *err)
{
    switch (f->kind) {
    case GP_FLAG_STRING:
        if (*v == '\0') {
            gp_err_set(err, "--%s: needs a non-empty %s", f->name, f->arg ? f->arg : "value");
            return GP_EINVAL;
        }
        *(const char **)f->dest = v;
        return GP_OK;
    case GP_FLAG_UINT:
        return parse_uint(f, v, err);
    case GP_FLAG_BOOL:
        break;
    }
    gp_err_set(err, "--%s: takes no value", f->name);
    return GP_EINVAL;
}

gp_status gp_flags_parse(const gp_flag *flags, size_t n, int argc, char **argv, gp_err *err)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *eq;
        const gp_flag *f;
        size_t len;

        if (strncmp(a, "--", 2) != 0) {
            gp_err_set(err, "unexpected argument \"%.64s\" (flags start with --)", a);
            return GP_EINVAL;
        }
        a += 2;
        eq = strchr(a, '=');
        len = eq ? (size_t)(eq - a) : strlen(a);
        f = find(flags, n, a, len);
        if (f == NULL) {
            gp_err_set(err, "--%.*s: unknown flag (see --help)", (int)(len > 64 ? 64 : len), a);
            return GP_EINVAL;
        }
        if (f->kind == GP_FLAG_BOOL) {
            if (eq != NULL) {
                gp_err_set(err, "--%s: takes no value", f->name);
                return GP_EINVAL;
            }
            *(bool *)f->dest = true;
            continue;
        }
        if (eq == NULL && i + 1 >= argc) {
            gp_err_set(err, "--%s: needs a value (%s)", f->name, f->arg ? f->arg : "value");
            return GP_EINVAL;
        }
        if (set_value(f, eq ? eq + 1 : argv[++i], err) != GP_OK)
            return GP_EINVAL;
    }
    return GP_OK;
}

void gp_flags_usage(FILE *out, const char *prog, const char *summary, const gp_flag *flags,
                    size_t n)
{
    fprintf(out, "usage: %s [flags]\n%s\n\nflags:\n", prog, summary);
    for (size_t i = 0; i < n; i++) {
        char left[64];

        snprintf(left, sizeof(left), "--%s%s%s", flags[i].name, flags[i].arg ? " " : "",
                 flags[i].arg ? flags[i].arg : "");
        fprintf(out, "  %-28s %s\n", left, flags[i].help);
    }
}

gp_status gp_split_hostport(const char *s, char *host, size_t hostsz, int *port, gp_err *err)
{
    const char *colon, *hs = s, *he;
    char *end = NULL;
    long p;

    if (*s == '[') {
        he = strchr(s, ']');
        if (he == NULL || he[1] != ':')
            goto bad;
        hs = s + 1;
        colon = he + 1;
    } else {
        colon = strrchr(s, ':');
        if (colon == NULL || memchr(s, ':', (size_t)(colon - s)) != NULL)
            goto bad;
        he = colon;
    }
    if ((he == hs && *s == '[') || (size_t)(he - hs) >= hostsz)
        goto bad;
    errno = 0;
    p = strtol(colon + 1, &end, 10);
    if (colon[1] < '0' || colon[1] > '9' || errno || *end || p < 0 || p > 65535)
        goto bad;
    if (he == hs) {
        /* ":8443", as Go's net.SplitHostPort accepts it: every IPv4 address. */
        snprintf(host, hostsz, "0.0.0.0");
    } else {
        memcpy(host, hs, (size_t)(he - hs));
        host[he - hs] = '\0';
    }
    *port = (int)p;
    return GP_OK;
bad:
    gp_err_set(err, "expected HOST:PORT (e.g. 0.0.0.0:8443 or [::]:8443), got \"%.64s\"", s);
    return GP_EINVAL;
}
