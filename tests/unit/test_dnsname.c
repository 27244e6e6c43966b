/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/dnsname.c: labels, subdomains and certificate host names at their length
 * limits, with bad characters, leading and trailing '-', empty labels and wildcards. */
#include "gptest.h"

#include "gpupack/dnsname.h"

#define L(s) gp_dns_label(s, strlen(s))
#define SUB(s) gp_dns_subdomain(s, strlen(s))

/* ok() accepts a well-formed name of exactly max characters and refuses one of max + 1
 * ("a.a.a..." when dotted, so that only the total length is wrong). */
static void check_limit(bool (*ok)(const char *, size_t), size_t max, bool dotted)
{
    char name[GP_DNS_SUBDOMAIN_MAX + 2];

    for (size_t i = 0; i < sizeof(name); i++)
        name[i] = dotted && i % 2 ? '.' : 'a';
    GP_CHECK(ok(name, max));
    GP_CHECK(!ok(name, max + 1 + (dotted && max % 2 == 1))); /* never end on a dot */
}

GP_TEST(labels)
{
    GP_CHECK(L("a") && L("gpupack-webhook") && L("0a9"));
    GP_CHECK(!L("") && !L("-a") && !L("a-") && !L("A") && !L("a.b") && !L("a_b"));
    check_limit(gp_dns_label, GP_DNS_LABEL_MAX, false);
}

GP_TEST(subdomains)
{
    GP_CHECK(SUB("gpupack.io") && SUB("a") && SUB("a-b.c"));
    GP_CHECK(!SUB("") && !SUB("a..b") && !SUB("a.") && !SUB(".a") && !SUB("Gpupack.io"));
    check_limit(gp_dns_subdomain, GP_DNS_SUBDOMAIN_MAX, true);
}

GP_TEST(certificate_hosts)
{
    GP_CHECK(gp_dns_host("*.example.com") && gp_dns_host("Webhook.NS.svc"));
    GP_CHECK(!gp_dns_host("") && !gp_dns_host("*") && !gp_dns_host("a.*.b"));
    GP_CHECK(!gp_dns_host("bad_name") && !gp_dns_host("a..b") && !gp_dns_host("a."));
}

GP_MAIN(GP_CASE(labels), GP_CASE(subdomains), GP_CASE(certificate_hosts))
