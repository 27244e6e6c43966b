/* SPDX-License-Identifier: Apache-2.0 */
/* DNS names as Kubernetes and certificates check them (RFC 1123): the one home for "is this a
 * label / a subdomain / a host name", used by the policy validator and the certificate
 * generator. Pure. */
#ifndef GPUPACK_DNSNAME_H
#define GPUPACK_DNSNAME_H

#include <stdbool.h>
#include <stddef.h>

#define GP_DNS_LABEL_MAX 63      /* also Kubernetes Service and namespace names */
#define GP_DNS_SUBDOMAIN_MAX 253

/* s[0..n) is a label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most GP_DNS_LABEL_MAX characters. */
bool gp_dns_label(const char *s, size_t n);

/* s[0..n) is a Kubernetes label name or a non-empty label value:
 * [A-Za-z0-9]([-_.A-Za-z0-9]*[A-Za-z0-9])?, at most 63 characters. */
bool gp_k8s_label_name(const char *s, size_t n);

/* s[0..n) is a subdomain: dot-separated labels, at most GP_DNS_SUBDOMAIN_MAX characters. */
bool gp_dns_subdomain(const char *s, size_t n);

/* s is a host name for a certificate's DNS SAN: a subdomain in which upper-case letters are
 * allowed too and the first label may be "*" (a wildcard). */
bool gp_dns_host(const char *s);

#endif
