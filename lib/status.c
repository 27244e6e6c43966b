/* SPDX-License-Identifier: Apache-2.0 */
#include "gpupack/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gp_err_set(gp_err *err, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
}

void gp_err_prefix(gp_err *err, const char *prefix)
{
    char tmp[GP_ERR_MAX];
    int n;

    if (err == NULL)
        return;
    n = snprintf(tmp, sizeof(tmp), "%.200s: %.*s", prefix, GP_ERR_MAX - 210, err->msg);
    if (n > 0)
        memcpy(err->msg, tmp, sizeof(err->msg));
}

const char *gp_status_str(gp_status st)
{
    switch (st) {
    case GP_OK: return "ok";
    case GP_EINVAL: return "invalid input";
    case GP_ENOMEM: return "out of memory";
    case GP_EIO: return "I/O error";
    case GP_ERANGE: return "out of range";
    case GP_ETOOBIG: return "too large";
    case GP_ENOTFOUND: return "not found";
    case GP_EINTERNAL: return "internal error";
    }
    return "unknown status";
}
