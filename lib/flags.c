/* SPDX-License-Identifier: Apache-2.0 */
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

static gp_status add_to_list(const gp_flag *f, const char *v, gp_err *err)
{
    gp_flag_list *l = f->dest;
    size_t max = f->max < GP_FLAG_LIST_MAX ? f->max : GP_FLAG_LIST_MAX;

    if (l->n >= max) {
        gp_err_set(err, "--%s: more than %zu values", f->name, max);
        return GP_EINVAL;
    }
    l->v[l->n++] = v;
    return GP_OK;
}

static gp_status pick_choice(const gp_flag *f, const char *v, gp_err *err)
{
    gp_flag_choice *c = f->dest;
    char all[256] = "";

    for (unsigned i = 0; c->names[i] != NULL; i++) {
        if (strcmp(v, c->names[i]) == 0) {
            c->index = i;
            return GP_OK;
        }
        snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s",
                 i == 0 ? "" : c->names[i + 1] != NULL ? ", " : " or ", c->names[i]);
    }
    gp_err_set(err, "--%s: must be %s, got \"%.64s\"", f->name, all, v);
    return GP_EINVAL;
}

static gp_status set_value(const gp_flag *f, const char *v, gp_err *err)
{
    if (*v == '\0' && (f->kind == GP_FLAG_STRING || f->kind == GP_FLAG_LIST ||
                        f->kind == GP_FLAG_CHOICE)) {
        gp_err_set(err, "--%s: needs a non-empty %s", f->name, f->arg ? f->arg : "value");
        return GP_EINVAL;
    }
    switch (f->kind) {
    case GP_FLAG_LIST:
        return add_to_list(f, v, err);
    case GP_FLAG_CHOICE:
        return pick_choice(f, v, err);
    case GP_FLAG_FUNC:
        return ((const gp_flag_func *)f->dest)->fn(((const gp_flag_func *)f->dest)->ctx, v, err);
    case GP_FLAG_STRING:
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

/* --help (or -h) and --version anywhere: sets the table's flag of that name and returns true. */
static bool asks_for(const gp_flag *flags, size_t n, int argc, char **argv, const char *name)
{
    const gp_flag *f = find(flags, n, name, strlen(name));

    if (f == NULL || f->kind != GP_FLAG_BOOL)
        return false;
    for (int i = 1; i < argc; i++) {
        if ((strncmp(argv[i], "--", 2) == 0 && strcmp(argv[i] + 2, name) == 0) ||
            (strcmp(name, "help") == 0 && strcmp(argv[i], "-h") == 0)) {
            *(bool *)f->dest = true;
            return true;
        }
    }
    return false;
}

/* A flag marked once given a second time. */
static bool repeated(const gp_flag *flags, const gp_flag *f, unsigned char *seen, gp_err *err)
{
    size_t k = (size_t)(f - flags);

    if (!f->once || k >= GP_FLAGS_MAX)
        return false;
    if (seen[k]) {
        gp_err_set(err, "--%s: given more than once", f->name);
        return true;
    }
    seen[k] = 1;
    return false;
}

gp_status gp_flags_parse(const gp_flag *flags, size_t n, int argc, char **argv, gp_err *err)
{
    unsigned char seen[GP_FLAGS_MAX] = { 0 };

    if (asks_for(flags, n, argc, argv, "help") || asks_for(flags, n, argc, argv, "version"))
        return GP_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *eq;
        const gp_flag *f;
        size_t len;

        if (strcmp(a, "-h") == 0 && (f = find(flags, n, "help", 4)) != NULL &&
            f->kind == GP_FLAG_BOOL) {
            *(bool *)f->dest = true;
            continue;
        }
        if (strncmp(a, "--", 2) != 0) {
            gp_err_set(err, "unexpected argument \"%.64s\" (flags start with --)", a);
            return GP_EINVAL;
        }
        a += 2;
        eq = strchr(a, '=');
        len = eq ? (size_t)(eq - a) : strlen(a);
        f = find(flags, n, a, len);
        if (f == NULL) {
            gp_err_set(err, "--%.*s: unknown flag", (int)(len > 64 ? 64 : len), a);
            return GP_EINVAL;
        }
        if (repeated(flags, f, seen, err))
            return GP_EINVAL;
        if (f->kind == GP_FLAG_BOOL) {
            if (eq != NULL) {
                gp_err_set(err, "--%s: takes no value", f->name);
                return GP_EINVAL;
            }
            *(bool *)f->dest = true;
            continue;
        }
        if (eq == NULL && (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0)) {
            gp_err_set(err, "--%s: needs a value (%s)", f->name, f->arg ? f->arg : "value");
            return GP_EINVAL;
        }
        if (set_value(f, eq ? eq + 1 : argv[++i], err) != GP_OK)
            return GP_EINVAL;
    }
    return GP_OK;
}

/* Writes text from column col on, wrapped at spaces to GP_FLAGS_HELP_COLUMNS; continuation
 * lines start at column indent. A word longer than a line is written whole. */
static void wrap(FILE *out, const char *text, size_t col, size_t indent)
{
    const char *p = text;

    while (*p != '\0') {
        size_t room = GP_FLAGS_HELP_COLUMNS > col ? GP_FLAGS_HELP_COLUMNS - col : 0;
        size_t len = strlen(p), cut = len;

        if (len > room) {
            cut = room;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = strcspn(p, " ");
        }
        fprintf(out, "%.*s\n", (int)cut, p);
        p += cut;
        while (*p == ' ')
            p++;
        if (*p != '\0')
            fprintf(out, "%*s", (int)indent, "");
        col = indent;
    }
}

void gp_flags_usage(FILE *out, const char *prog, const char *summary, const gp_flag *flags,
                    size_t n)
{
    fprintf(out, "usage: %s [flags]\n%s\n\nflags:\n", prog, summary);
    for (size_t i = 0; i < n; i++) {
        char left[64];
        int w;

        snprintf(left, sizeof(left), "--%s%s%s", flags[i].name, flags[i].arg ? " " : "",
                 flags[i].arg ? flags[i].arg : "");
        w = fprintf(out, "  %-28s", left);
        if (w > 30) /* a long flag: its help starts on the next line */
            fprintf(out, "\n%31s", "");
        else
            fputc(' ', out);
        wrap(out, flags[i].help, 31, 31);
    }
    fprintf(out, "\n-h is --help. Values go as --flag VALUE or --flag=VALUE.\n");
}

int gp_flags_fail(FILE *out, const char *prog, const char *msg)
{
    fprintf(out, "%s: %s\nsee %s --help\n", prog, msg, prog);
    return 2;
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

gp_status gp_duration_parse(const char *s, double *seconds)
{
    double total = 0;
    const char *p = s;

    if (s == NULL || *s == '\0')
        return GP_EINVAL;
    while (*p != '\0') {
        double v = 0, unit;
        const char *start = p;

        while (*p >= '0' && *p <= '9' && v < 1e12)
            v = v * 10 + (*p++ - '0');
        if (p == start)
            return GP_EINVAL;
        switch (*p++) {
        case 's': unit = 1; break;
        case 'm': unit = 60; break;
        case 'h': unit = 3600; break;
        case 'd': unit = 86400; break;
        case 'w': unit = 604800; break;
        default: return GP_EINVAL;
        }
        total += v * unit;
    }
    if (!(total > 0) || total > 1e11)
        return GP_EINVAL;
    *seconds = total;
    return GP_OK;
}
