/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/dnsname.c: labels, subdomains and certificate host names at their length
 * limits, with bad characters, leading and trailing '-', empty labels and wildcards. */
#include "gptest.h"

#include "gpupack/dnsname.h"

#define L(s) gp_dns_label(s, strlen(s))
#define SUB(s) gp_dns_subdomain(s, strlen(s))

GP_TEST(labels)
{
    char long_label[GP_DNS_LABEL_MAX + 2];

    GP_CHECK(L("a") && L("gpupack-webhook") && L("0a9"));
    GP_CHECK(!L("") && !L("-a") && !L("a-") && !L("A") && !L("a.b") && !L("a_b"));
    memset(long_label, 'a', sizeof(long_label) - 1);
    long_label[GP_DNS_LABEL_MAX] = '\0';
    GP_CHECK(L(long_label));
    long_label[GP_DNS_LABEL_MAX] = 'a';
    long_label[GP_DNS_LABEL_MAX + 1] = '\0';
    GP_CHECK(!L(long_label));
}

GP_TEST(subdomains)
{
    char name[GP_DNS_SUBDOMAIN_MAX + 2];

    GP_CHECK(SUB("gpupack.io") && SUB("a") && SUB("a-b.c"));
    GP_CHECK(!SUB("") && !SUB("a..b") && !SUB("a.") && !SUB(".a") && !SUB("Gpupack.io"));
    for (size_t i = 0; i < sizeof(name) - 1; i++)
        name[i] = i % 2 ? '.' : 'a';
    name[GP_DNS_SUBDOMAIN_MAX] = '\0';
    GP_CHECK(SUB(name));
    name[GP_DNS_SUBDOMAIN_MAX] = '.';
    name[GP_DNS_SUBDOMAIN_MAX + 1] = '\0';
    GP_CHECK(!SUB(name));
}

GP_TEST(certificate_hosts)
{
    GP_CHECK(gp_dns_host("*.example.com") && gp_dns_host("Webhook.NS.svc"));
    GP_CHECK(!gp_dns_host("") && !gp_dns_host("*") && !gp_dns_host("a.*.b"));
    GP_CHECK(!gp_dns_host("bad_name") && !gp_dns_host("a..b") && !gp_dns_host("a."));
}

GP_MAIN(GP_CASE(labels), GP_CASE(subdomains), GP_CASE(certificate_hosts))
