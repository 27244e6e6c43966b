/* SPDX-License-Identifier: Apache-2.0 */
/* Command-line flags, as a table: each flag has a name, a kind, where its value goes and a
 * one-line help text. Parsing reports the first bad flag by name ("--listen: expected HOST:PORT").
 * Every program prints usage from the same table, so --help never drifts from what is parsed. */
#ifndef GPUPACK_FLAGS_H
#define GPUPACK_FLAGS_H

#include <stdbool.h>
#include <stdio.h>

#include "gpupack/status.h"

/* GP_FLAG_LIST: repeatable, each value appended (at most the flag's max, up to
 * GP_FLAG_LIST_MAX). GP_FLAG_CHOICE: one of a list of names, stored as its index.
 * GP_FLAG_FUNC: each value handed to a function, in command-line order (repeatable). */
typedef enum {
    GP_FLAG_BOOL, GP_FLAG_STRING, GP_FLAG_UINT, GP_FLAG_LIST, GP_FLAG_CHOICE, GP_FLAG_FUNC
} gp_flag_kind;

#define GP_FLAG_LIST_MAX 64

typedef struct {
    const char *v[GP_FLAG_LIST_MAX];
    size_t n;
} gp_flag_list;

typedef struct {
    const char *const *names; /* the accepted values, NULL-terminated; set by the caller */
    unsigned index;           /* which one was given (left alone when the flag is absent) */
} gp_flag_choice;

/* Takes one value of a GP_FLAG_FUNC flag; on GP_EINVAL err names the flag and what is wrong
 * ("--seeds wants A-B, not \"x\""). */
typedef struct {
    gp_status (*fn)(void *ctx, const char *value, gp_err *err);
    void *ctx;
} gp_flag_func;

typedef struct {
    const char *name;  /* without the leading "--" */
    gp_flag_kind kind;
    void *dest;        /* bool *, const char **, unsigned *, gp_flag_list *, gp_flag_choice *,
                        * gp_flag_func * */
    unsigned min, max; /* bounds for GP_FLAG_UINT; max values for GP_FLAG_LIST */
    const char *arg;   /* value placeholder for help ("FILE") */
    const char *help;
    bool once;         /* a second occurrence is an error (else the last one wins) */
} gp_flag;

#define GP_FLAGS_MAX 64 /* flags a table may mark once (the first GP_FLAGS_MAX rows) */

#define GP_FLAGS_HELP_COLUMNS 100 /* --help lines are at most this wide */

/* Parses argv against the table ("--name value" and "--name=value"; "-h" sets the table's
 * "help" flag when it has one). When --help (or -h) or --version is anywhere on the command line
 * and the table has that flag, only it is set and the rest is not read: asking for help never
 * fails. A flag marked once may not be given twice. Positional arguments are errors, and so is a separate value that
 * starts with "--" ("--out --force" lacks the directory). Returns GP_EINVAL with a
 * one-line message naming the flag ("--threads: must be a whole number 1..256, got \"x\""). */
gp_status gp_flags_parse(const gp_flag *flags, size_t n, int argc, char **argv, gp_err *err) GP_WUR;

/* --help: "usage: PROG [flags]", the summary, then one entry per flag with its help wrapped to
 * GP_FLAGS_HELP_COLUMNS. */
void gp_flags_usage(FILE *out, const char *prog, const char *summary, const gp_flag *flags,
                    size_t n);

/* A usage error as every gpupack program reports one: "PROG: MSG" and "see PROG --help" on out.
 * Returns 2, the exit status for usage errors. */
int gp_flags_fail(FILE *out, const char *prog, const char *msg);

/* Splits "HOST:PORT" or "[V6]:PORT" into host (copied into buf) and port. */
gp_status gp_split_hostport(const char *s, char *host, size_t hostsz, int *port, gp_err *err) GP_WUR;

/* A duration such as "30s", "5m", "2h", "7d", "1w" or "1h30m" (units s, m, h, d, w; digits
 * only, no sign or fraction) in seconds; more than 0 and at most 1e11. GP_EINVAL otherwise. */
gp_status gp_duration_parse(const char *s, double *seconds) GP_WUR;

#endif
