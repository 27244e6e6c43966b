/* SPDX-License-Identifier: Apache-2.0 */
/* DNS names (see dnsname.h). */
#include "gpupack/dnsname.h"

#include <string.h>

static bool label_char(char c, bool upper)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (upper && c >= 'A' && c <= 'Z');
}

/* s[0..n): 1 to 63 label characters, beginning and ending with one, and any of inner between. */
static bool name_ok(const char *s, size_t n, bool upper, const char *inner)
{
    if (n == 0 || n > GP_DNS_LABEL_MAX || !label_char(s[0], upper) ||
        !label_char(s[n - 1], upper))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!label_char(s[i], upper) && (s[i] == '\0' || strchr(inner, s[i]) == NULL))
            return false;
    return true;
}

static bool label_ok(const char *s, size_t n, bool upper)
{
    return name_ok(s, n, upper, "-");
}

/* Every dot-separated label of s[0..n) is a label ("a..b" and a trailing dot are not). */
static bool labels_ok(const char *s, size_t n, bool upper)
{
    size_t start = 0;

    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (!label_ok(s + start, i - start, upper))
                return false;
            start = i + 1;
        }
    }
    return true;
}

bool gp_k8s_label_name(const char *s, size_t n)
{
    return name_ok(s, n, true, "-_.");
}

bool gp_dns_label(const char *s, size_t n)
{
    return label_ok(s, n, false);
}

bool gp_dns_subdomain(const char *s, size_t n)
{
    return n > 0 && n <= GP_DNS_SUBDOMAIN_MAX && labels_ok(s, n, false);
}

bool gp_dns_host(const char *s)
{
    size_t n = strlen(s);
    size_t skip = strncmp(s, "*.", 2) == 0 ? 2 : 0;

    return n > 0 && n <= GP_DNS_SUBDOMAIN_MAX && labels_ok(s + skip, n - skip, true);
}
