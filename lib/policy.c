/* SPDX-License-Identifier: Apache-2.0 */
/* The policy document: parsing, validation against a schema table, lookups, and the holder.
 *
 * The schema is data: every JSON object the policy contains is described by an objspec, a table
 * of fields with a kind, a destination offset, bounds, a default and an optional validator.
 * decode_object() walks one table; decode_value() decodes one field by its kind; free_object()
 * walks the same tables to free what decoding allocated, so the two can never disagree. Rules that
 * involve several fields (a toleration's operator and value, a rule's class naming a class) live
 * in an objspec's post() hook, which runs after the object's own fields are decoded.
 *
 * Validation never stops at the first error: every problem is appended to an error list with its
 * JSON path, and the partly built policy is freed at the end when there was any. A policy is only
 * handed out when the whole document is valid.
 *
 * Integers are read from the document's text, not from cJSON's double: after parsing, every
 * number node's valueint is overwritten with the byte offset of its token (see index_numbers()),
 * so "1.5", "1e3" and values beyond 2^53 are caught exactly. */
#include "gpupack/policy.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpupack/dnsname.h"
#include "gpupack/strbuf.h"

#define GP_PATH_MAX 2048 /* bytes of a JSON path in an error message; longer paths are cut */
#define GP_LINE_MAX 4096 /* bytes of one error line */
#define GP_PRICE_MAX_DECIMALS 6                 /* prices are held in micro-dollars */
#define GP_PRICE_MAX_MICRO INT64_C(1000000000000) /* $1,000,000 an hour */

_Static_assert(GP_POLICY_MAX_BYTES < INT_MAX, "number offsets are stored in cJSON's int valueint");
_Static_assert(sizeof(gp_mode) == sizeof(int) && sizeof(gp_placement) == sizeof(int),
               "enum fields are written as int");

/* ---------------------------------------------------------------------------------------------
 * Error list and JSON path. */

typedef struct {
    const char *src; /* the NUL-terminated document, for number tokens */
    char path[GP_PATH_MAX];
    size_t pathlen;
    gp_strbuf errs; /* "path: message\n" lines */
    size_t nerr; /* all errors, including those past GP_POLICY_MAX_ERRORS */
    bool oom;
} vctx;

/* Appends one "path: message" line. Control characters from the document are replaced with '?'
 * so that every error stays on one line. */
static void __attribute__((format(printf, 2, 3))) verr(vctx *v, const char *fmt, ...)
{
    char line[GP_LINE_MAX];
    va_list ap;
    int n;

    if (v->nerr++ >= GP_POLICY_MAX_ERRORS)
        return;
    n = snprintf(line, sizeof(line), "%s: ", v->pathlen ? v->path : "document");
    if (n < 0 || (size_t)n >= sizeof(line))
        n = (int)sizeof(line) - 1;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    for (char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    gp_strbuf_puts(&v->errs, line);
    gp_strbuf_put(&v->errs, "\n", 1);
}

/* Path segments: push returns the previous length, which pop restores. */
static size_t path_push_key(vctx *v, const char *key)
{
    size_t old = v->pathlen;
    int n = snprintf(v->path + old, sizeof(v->path) - old, "%s%s", old ? "." : "", key);

    if (n > 0)
        v->pathlen = old + (size_t)n < sizeof(v->path) ? old + (size_t)n : sizeof(v->path) - 1;
    return old;
}

static size_t path_push_index(vctx *v, size_t i)
{
    size_t old = v->pathlen;
    int n = snprintf(v->path + old, sizeof(v->path) - old, "[%zu]", i);

    if (n > 0)
        v->pathlen = old + (size_t)n < sizeof(v->path) ? old + (size_t)n : sizeof(v->path) - 1;
    return old;
}

static void path_pop(vctx *v, size_t old)
{
    v->pathlen = old;
    v->path[old] = '\0';
}

static char *vstrdup(vctx *v, const char *s)
{
    char *d = strdup(s);

    if (d == NULL)
        v->oom = true;
    return d;
}

/* ---------------------------------------------------------------------------------------------
 * String validators. Each returns NULL when s is fine, or the message to report. They are only
 * called on non-empty strings; whether "" is allowed is the field's min length. */

typedef const char *(*str_check)(const char *s);

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
    return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

static const char *check_dns_label(const char *s)
{
    return gp_dns_label(s, strlen(s))
               ? NULL
               : "must be a DNS label (lower-case letters, digits and '-', at most 63, starting "
                 "and ending with a letter or digit)";
}

static const char *check_dns_subdomain(const char *s)
{
    return gp_dns_subdomain(s, strlen(s))
               ? NULL
               : "must be a DNS subdomain (lower-case letters, digits, '-' and '.', at most 253)";
}

/* A label key: an optional DNS subdomain prefix and '/', then a label name. */
static const char *check_label_key(const char *s)
{
    const char *slash = strchr(s, '/');
    bool ok = slash == NULL ? gp_k8s_label_name(s, strlen(s))
                            : gp_dns_subdomain(s, (size_t)(slash - s)) &&
                                  gp_k8s_label_name(slash + 1, strlen(slash + 1));

    return ok ? NULL
              : "must be a label key ([prefix/]name: name of at most 63 letters, digits, '-', '_' "
                "and '.', starting and ending with a letter or digit; prefix a DNS subdomain)";
}

static const char *check_label_value(const char *s)
{
    return gp_k8s_label_name(s, strlen(s))
               ? NULL
               : "must be a label value (at most 63 letters, digits, '-', '_' and '.', starting "
                 "and ending with a letter or digit)";
}

static const char *check_chars(const char *s, const char *extra, const char *msg)
{
    for (; *s; s++)
        if (!is_alnum(*s) && strchr(extra, *s) == NULL)
            return msg;
    return NULL;
}

/* A resource name, optionally ending in the prefix wildcard '*'. */
static const char *check_resource(const char *s)
{
    const char *star = strchr(s, '*');

    if (star != NULL && star[1] != '\0')
        return "'*' is only allowed as the last character";
    if (star == s)
        return "must not be only '*'";
    for (; *s && *s != '*'; s++)
        if (!is_alnum(*s) && strchr("._/-", *s) == NULL)
            return "must contain only letters, digits, '.', '_', '/', '-' and a trailing '*'";
    return NULL;
}

static const char *check_ns_glob(const char *s)
{
    return check_chars(s, "-*?",
                       "must be a namespace glob (lower-case letters, digits, '-', '*' and '?')");
}

static const char *check_kind(const char *s)
{
    if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
        return "must be a kind (a letter, then letters and digits)";
    return check_chars(s, "", "must be a kind (a letter, then letters and digits)");
}

static const char *check_rule_name(const char *s)
{
    return check_chars(s, "._-", "must contain only letters, digits, '.', '_' and '-'");
}

/* A glob over nvidia.com/gpu.product values: a label value's characters plus '*' and '?'. */
static const char *check_model_glob(const char *s)
{
    return check_chars(s, "-_.*?",
                       "must be a GPU model glob (letters, digits, '-', '_', '.', '*' and '?')");
}

/* A Prometheus label name: [a-zA-Z_][a-zA-Z0-9_]*. */
static const char *check_prom_label(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return "must be a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)";
    for (; *s; s++)
        if (!is_alnum(*s) && *s != '_')
            return "must be a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)";
    return NULL;
}

static const char *check_mig_name(const char *s)
{
    for (; *s; s++)
        if (!is_lower_alnum(*s) && strchr(".+-", *s) == NULL)
            return "must contain only lower-case letters, digits, '.', '+' and '-'";
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * The schema tables. */

typedef enum {
    FK_STR,     /* char *; or validated only, when discard is set */
    FK_BOOL,    /* bool */
    FK_TRIBOOL, /* int: -1 absent, 0 false, 1 true */
    FK_INT,     /* int, within min..max */
    FK_I64,     /* int64_t, within min..max */
    FK_NUM,     /* double, a JSON number within dmin..dmax; default ddef */
    FK_ENUM,    /* int (or an int-sized enum), one of choices */
    FK_QTY,     /* gp_qty, from a quantity string */
    FK_QTY_I64, /* int64_t, a positive quantity string in units (or milli-units when milli),
                 * rounded up; the default and the example in messages is def_str */
    FK_PRICE,   /* int64_t micro-dollars, from a decimal-dollar string ("2.50"); default def_str */
    FK_OBJECT,  /* a nested struct (or more fields of the same struct, at off 0), per spec */
    FK_ARRAY,   /* an array of elem_size elements (void *) and a count (size_t) */
    FK_MAP      /* a JSON object of key -> value, as an array of elements holding the key */
} field_kind;

typedef struct {
    const char *name;
    int value;
} choice;

typedef struct vfield vfield;
typedef struct objspec objspec;

struct vfield {
    const char *name; /* JSON key; unused for array elements and map values */
    field_kind kind;
    size_t off;            /* destination, relative to the containing struct */
    size_t count_off;      /* FK_ARRAY, FK_MAP: where the element count goes */
    bool required;         /* absent is an error */
    bool discard;          /* FK_STR: validate, do not store */
    bool fill_absent;      /* FK_OBJECT: apply the nested defaults when the object is absent */
    bool post_absent;      /* FK_OBJECT with fill_absent: run the spec's post then too (seen 0) */
    bool unique;           /* FK_ARRAY: the element's "name" (at key_off) must be unique */
    bool milli;            /* FK_QTY_I64: store milli-units */
    int64_t min, max;      /* FK_INT, FK_I64: value; FK_STR: length (max 0: GP_POLICY_MAX_STR);
                            * FK_ARRAY, FK_MAP: min is the least number of entries */
    double dmin, dmax, ddef; /* FK_NUM: the range and the default */
    int64_t def;           /* FK_BOOL, FK_TRIBOOL, FK_INT, FK_I64, FK_ENUM: the default */
    const char *def_str;   /* FK_STR: the default (NULL: stays NULL); FK_QTY_I64, FK_PRICE:
                            * the default as the document would write it */
    const choice *choices; /* FK_STR, FK_ENUM: the allowed values, ended by {NULL} */
    str_check check;       /* FK_STR: further validation; FK_MAP: validation of the keys */
    const objspec *spec;   /* FK_OBJECT */
    const vfield *elem;    /* FK_ARRAY elements, FK_MAP values: decoded at each element */
    size_t elem_size;      /* FK_ARRAY, FK_MAP */
    size_t key_off;        /* FK_MAP: the element's char * key; FK_ARRAY with unique: the name */
};

/* Cross-field checks, run after an object's fields are decoded; seen has bit i set when fields[i]
 * was present in the document. */
typedef void (*post_fn)(vctx *v, const objspec *spec, void *dst, uint32_t seen);

struct objspec {
    const vfield *fields;
    size_t nfields;
    post_fn post;
};

#define SPEC(fields, post) {fields, sizeof(fields) / sizeof(fields[0]), post}
#define AT(type, member) .off = offsetof(type, member)
#define COUNT(type, member) .count_off = offsetof(type, member)

static bool was_seen(const objspec *spec, uint32_t seen, const char *name)
{
    for (size_t i = 0; i < spec->nfields; i++)
        if (strcmp(spec->fields[i].name, name) == 0)
            return (seen >> i) & 1u;
    return false;
}

/* Post-checks need the path of a member; these report there. */
static void verr_at(vctx *v, const char *member, const char *msg)
{
    size_t old = path_push_key(v, member);

    verr(v, "%s", msg);
    path_pop(v, old);
}

static const choice toleration_ops[] = {{"Exists", 0}, {"Equal", 0}, {NULL, 0}};
static const choice toleration_effects[] = {
    {"", 0}, {"NoSchedule", 0}, {"PreferNoSchedule", 0}, {"NoExecute", 0}, {NULL, 0}};
static const choice selector_ops[] = {
    {"In", 0}, {"NotIn", 0}, {"Exists", 0}, {"DoesNotExist", 0}, {NULL, 0}};
static const choice placements[] = {
    {"preferred", GP_PLACE_PREFERRED}, {"required", GP_PLACE_REQUIRED}, {NULL, 0}};
static const choice spot_filters[] = {
    {"hard", GP_SPOT_FILTER_HARD}, {"soft", GP_SPOT_FILTER_SOFT}, {NULL, 0}};
_Static_assert(sizeof(gp_spot_filter) == sizeof(int), "enum fields are written as int");
static const choice rightsizings[] = {{"off", GP_RIGHTSIZE_OFF},
                                      {"recommend", GP_RIGHTSIZE_RECOMMEND},
                                      {"apply", GP_RIGHTSIZE_APPLY}, {NULL, 0}};
_Static_assert(sizeof(gp_rightsizing) == sizeof(int), "enum fields are written as int");
static const choice modes[] = {{"enforce", GP_MODE_ENFORCE}, {"audit", GP_MODE_AUDIT}, {NULL, 0}};
static const choice api_versions[] = {{"gpupack.io/v1alpha1", 0}, {NULL, 0}};
static const choice kinds[] = {{"Policy", 0}, {NULL, 0}};

/* Kubernetes' rules for a toleration (ValidateTolerations). */
static void toleration_post(vctx *v, const objspec *spec, void *dst, uint32_t seen)
{
    gp_toleration *t = dst;

    t->has_seconds = was_seen(spec, seen, "tolerationSeconds");
    if (t->key && t->op && t->key[0] == '\0' && strcmp(t->op, "Exists") != 0)
        verr_at(v, "operator", "must be \"Exists\" when key is empty");
    if (t->op && t->value && strcmp(t->op, "Exists") == 0 && t->value[0] != '\0')
        verr_at(v, "value", "must be empty when operator is \"Exists\"");
    if (t->has_seconds && t->effect && strcmp(t->effect, "NoExecute") != 0)
        verr_at(v, "tolerationSeconds", "only allowed with effect \"NoExecute\"");
}

static const vfield label_value_str = {.kind = FK_STR, .check = check_label_value};

static const vfield toleration_fields[] = {
    {.name = "key", .kind = FK_STR, AT(gp_toleration, key), .def_str = "",
     .check = check_label_key},
    {.name = "operator", .kind = FK_STR, AT(gp_toleration, op), .def_str = "Equal",
     .choices = toleration_ops},
    {.name = "value", .kind = FK_STR, AT(gp_toleration, value), .def_str = "",
     .check = check_label_value},
    {.name = "effect", .kind = FK_STR, AT(gp_toleration, effect), .def_str = "",
     .choices = toleration_effects},
    {.name = "tolerationSeconds", .kind = FK_I64, AT(gp_toleration, seconds), .min = INT64_MIN,
     .max = INT64_MAX},
};
static const objspec toleration_spec = SPEC(toleration_fields, toleration_post);
static const vfield toleration_elem = {.kind = FK_OBJECT, .spec = &toleration_spec};

/* {key, value} objects (spot.nodeLabels). */
static const vfield label_pair_fields[] = {
    {.name = "key", .kind = FK_STR, AT(gp_label, key), .required = true, .min = 1,
     .check = check_label_key},
    {.name = "value", .kind = FK_STR, AT(gp_label, value), .required = true,
     .check = check_label_value},
};
static const objspec label_pair_spec = SPEC(label_pair_fields, NULL);
static const vfield label_pair_elem = {.kind = FK_OBJECT, .spec = &label_pair_spec};

/* The value of a label map (key -> value), stored as a gp_label whose key is the map key. */
static const vfield label_map_value = {.kind = FK_STR, AT(gp_label, value),
                                       .check = check_label_value};

static void selector_req_post(vctx *v, const objspec *spec, void *dst, uint32_t seen)
{
    gp_selector_req *r = dst;
    bool needs_values;

    (void)spec;
    (void)seen;
    if (r->op == NULL)
        return;
    needs_values = strcmp(r->op, "In") == 0 || strcmp(r->op, "NotIn") == 0;
    if (needs_values && r->nvalues == 0)
        verr_at(v, "values", "must have at least 1 item when operator is \"In\" or \"NotIn\"");
    if (!needs_values && r->nvalues > 0)
        verr_at(v, "values", "must be empty when operator is \"Exists\" or \"DoesNotExist\"");
}

static const vfield selector_req_fields[] = {
    {.name = "key", .kind = FK_STR, AT(gp_selector_req, key), .required = true, .min = 1,
     .check = check_label_key},
    {.name = "operator", .kind = FK_STR, AT(gp_selector_req, op), .required = true,
     .choices = selector_ops},
    {.name = "values", .kind = FK_ARRAY, AT(gp_selector_req, values),
     COUNT(gp_selector_req, nvalues), .elem = &label_value_str, .elem_size = sizeof(char *)},
};
static const objspec selector_req_spec = SPEC(selector_req_fields, selector_req_post);
static const vfield selector_req_elem = {.kind = FK_OBJECT, .spec = &selector_req_spec};

static const vfield selector_fields[] = {
    {.name = "matchLabels", .kind = FK_MAP, AT(gp_label_selector, match_labels),
     COUNT(gp_label_selector, nmatch_labels), .check = check_label_key,
     .elem = &label_map_value, .elem_size = sizeof(gp_label), .key_off = offsetof(gp_label, key)},
    {.name = "matchExpressions", .kind = FK_ARRAY, AT(gp_label_selector, exprs),
     COUNT(gp_label_selector, nexprs), .elem = &selector_req_elem,
     .elem_size = sizeof(gp_selector_req)},
};
static const objspec selector_spec = SPEC(selector_fields, NULL);

static const vfield ns_glob_str = {.kind = FK_STR, .min = 1, .check = check_ns_glob};
static const vfield kind_str = {.kind = FK_STR, .min = 1, .max = 63, .check = check_kind};

static void match_post(vctx *v, const objspec *spec, void *dst, uint32_t seen)
{
    gp_rule *r = dst;

    (void)v;
    r->has_selector = was_seen(spec, seen, "labelSelector");
}

/* A rule's "match" object; its fields live in gp_rule itself. */
static const vfield match_fields[] = {
    {.name = "namespaces", .kind = FK_ARRAY, AT(gp_rule, namespaces), COUNT(gp_rule, nnamespaces),
     .elem = &ns_glob_str, .elem_size = sizeof(char *)},
    {.name = "ownerKinds", .kind = FK_ARRAY, AT(gp_rule, owner_kinds),
     COUNT(gp_rule, nowner_kinds), .elem = &kind_str, .elem_size = sizeof(char *)},
    {.name = "noOwner", .kind = FK_TRIBOOL, AT(gp_rule, no_owner), .def = -1},
    {.name = "labelSelector", .kind = FK_OBJECT, AT(gp_rule, selector), .spec = &selector_spec},
};
static const objspec match_spec = SPEC(match_fields, match_post);

static const vfield rule_fields[] = {
    {.name = "name", .kind = FK_STR, AT(gp_rule, name), .required = true, .min = 1, .max = 63,
     .check = check_rule_name},
    {.name = "class", .kind = FK_STR, AT(gp_rule, class_name), .required = true, .min = 1,
     .max = 63},
    {.name = "match", .kind = FK_OBJECT, .off = 0, .spec = &match_spec, .fill_absent = true},
};
static const objspec rule_spec = SPEC(rule_fields, NULL);
static const vfield rule_elem = {.kind = FK_OBJECT, .spec = &rule_spec};

static const vfield pool_fields[] = {
    {.name = "nodeLabels", .kind = FK_MAP, AT(gp_pool, labels), COUNT(gp_pool, nlabels),
     .required = true, .min = 1, .check = check_label_key, .elem = &label_map_value,
     .elem_size = sizeof(gp_label), .key_off = offsetof(gp_label, key)},
    {.name = "placement", .kind = FK_ENUM, AT(gp_pool, placement), .choices = placements,
     .def = GP_PLACE_PREFERRED},
    {.name = "weight", .kind = FK_INT, AT(gp_pool, weight), .min = 1, .max = 100, .def = 50},
};
static const objspec pool_spec = SPEC(pool_fields, NULL);

static const vfield model_glob_str = {.kind = FK_STR, .min = 1, .max = 63,
                                      .check = check_model_glob};

static const vfield class_fields[] = {
    {.name = "gpuModels", .kind = FK_ARRAY, AT(gp_class, gpu_models), COUNT(gp_class, ngpu_models),
     .elem = &model_glob_str, .elem_size = sizeof(char *)},
    {.name = "excludeGpuModels", .kind = FK_ARRAY, AT(gp_class, exclude_gpu_models),
     COUNT(gp_class, nexclude_gpu_models), .elem = &model_glob_str, .elem_size = sizeof(char *)},
    {.name = "priorityClassName", .kind = FK_STR, AT(gp_class, priority_class), .def_str = "",
     .check = check_dns_subdomain},
    {.name = "checkpointingPriorityClassName", .kind = FK_STR,
     AT(gp_class, checkpointing_priority_class), .def_str = "", .check = check_dns_subdomain},
    {.name = "tolerations", .kind = FK_ARRAY, AT(gp_class, tolerations),
     COUNT(gp_class, ntolerations), .elem = &toleration_elem, .elem_size = sizeof(gp_toleration)},
    {.name = "migAllowed", .kind = FK_BOOL, AT(gp_class, mig_allowed)},
    {.name = "spotAllowed", .kind = FK_BOOL, AT(gp_class, spot_allowed)},
    {.name = "runtimeCapSeconds", .kind = FK_I64, AT(gp_class, runtime_cap_seconds), .min = 1,
     .max = INT32_MAX},
    {.name = "pool", .kind = FK_OBJECT, AT(gp_class, pool), .spec = &pool_spec},
    {.name = "rightsizing", .kind = FK_ENUM, AT(gp_class, rightsizing), .choices = rightsizings,
     .def = GP_RIGHTSIZE_OFF},
};
static const objspec class_spec = SPEC(class_fields, NULL);
static const vfield class_value = {.kind = FK_OBJECT, .spec = &class_spec};

static const vfield mig_fields[] = {
    {.name = "name", .kind = FK_STR, AT(gp_mig_profile, name), .required = true, .min = 1,
     .max = 63, .check = check_mig_name},
    {.name = "memory", .kind = FK_QTY, AT(gp_mig_profile, memory), .required = true},
    {.name = "computeSlices", .kind = FK_INT, AT(gp_mig_profile, slices), .required = true,
     .min = 1, .max = 8},
};
static const objspec mig_spec = SPEC(mig_fields, NULL);
static const vfield mig_elem = {.kind = FK_OBJECT, .spec = &mig_spec};

static const vfield spot_fields[] = {
    {.name = "tolerations", .kind = FK_ARRAY, AT(gp_spot, tolerations),
     COUNT(gp_spot, ntolerations),
     .elem = &toleration_elem, .elem_size = sizeof(gp_toleration)},
    {.name = "nodeLabels", .kind = FK_ARRAY, AT(gp_spot, node_labels), COUNT(gp_spot, nnode_labels),
     .elem = &label_pair_elem, .elem_size = sizeof(gp_label)},
    {.name = "weight", .kind = FK_INT, AT(gp_spot, weight), .min = 1, .max = 100, .def = 50},
};
static const objspec spot_spec = SPEC(spot_fields, NULL);

static const vfield priority_fields[] = {
    {.name = "overrideGlobalDefault", .kind = FK_BOOL,
     AT(gp_priority, override_global_default), .def = 0},
};
static const objspec priority_spec = SPEC(priority_fields, NULL);

static void price_post(vctx *v, const objspec *spec, void *dst, uint32_t seen)
{
    gp_price *pr = dst;

    (void)v;
    pr->has_spot = was_seen(spec, seen, "spot");
}

static const vfield price_fields[] = {
    {.name = "onDemand", .kind = FK_PRICE, AT(gp_price, on_demand_micro), .required = true},
    {.name = "spot", .kind = FK_PRICE, AT(gp_price, spot_micro)},
    {.name = "memory", .kind = FK_QTY, AT(gp_price, memory)},
};
static const objspec price_spec = SPEC(price_fields, price_post);
static const vfield price_value = {.kind = FK_OBJECT, .spec = &price_spec};

/* scoring.prices: both maps live in gp_scoring itself. Keys are label values, as the labels
 * they are matched against. */
static const vfield prices_fields[] = {
    {.name = "instanceTypes", .kind = FK_MAP, AT(gp_scoring, instance_prices),
     COUNT(gp_scoring, ninstance_prices), .check = check_label_value, .elem = &price_value,
     .elem_size = sizeof(gp_price), .key_off = offsetof(gp_price, match)},
    {.name = "gpuProducts", .kind = FK_MAP, AT(gp_scoring, gpu_prices),
     COUNT(gp_scoring, ngpu_prices), .check = check_label_value, .elem = &price_value,
     .elem_size = sizeof(gp_price), .key_off = offsetof(gp_price, match)},
};
static const objspec prices_spec = SPEC(prices_fields, NULL);

static const vfield weights_fields[] = {
    {.name = "cost", .kind = FK_INT, AT(gp_scoring, weight_cost), .min = 0, .max = 1000,
     .def = 100},
    {.name = "fit", .kind = FK_INT, AT(gp_scoring, weight_fit), .min = 0, .max = 1000, .def = 10},
    {.name = "stranding", .kind = FK_INT, AT(gp_scoring, weight_stranding), .min = 0,
     .max = 1000, .def = 3},
    {.name = "gpuNodePenalty", .kind = FK_INT, AT(gp_scoring, weight_gpu_node_penalty),
     .min = 0, .max = 1000, .def = 50},
    {.name = "fragmentation", .kind = FK_INT, AT(gp_scoring, weight_fragmentation), .min = 0,
     .max = 1000, .def = 10},
};
static const objspec weights_spec = SPEC(weights_fields, NULL);

static const vfield typical_fields[] = {
    {.name = "cpuPerGpu", .kind = FK_QTY_I64, AT(gp_scoring, typical_cpu_milli_per_gpu),
     .milli = true, .def_str = "4"},
    {.name = "memoryPerGpu", .kind = FK_QTY_I64, AT(gp_scoring, typical_memory_per_gpu),
     .def_str = "32Gi"},
};
static const objspec typical_spec = SPEC(typical_fields, NULL);

static const vfield mix_fields[] = {
    {.name = "gpus", .kind = FK_INT, AT(gp_mix_entry, gpus), .required = true, .min = 1,
     .max = 16},
    {.name = "cpu", .kind = FK_QTY_I64, AT(gp_mix_entry, cpu_milli), .milli = true,
     .def_str = "1"},
    {.name = "weight", .kind = FK_INT, AT(gp_mix_entry, weight), .required = true, .min = 1,
     .max = 1000000},
};
static const objspec mix_spec = SPEC(mix_fields, NULL);
static const vfield mix_elem = {.kind = FK_OBJECT, .spec = &mix_spec};

static void scoring_post(vctx *v, const objspec *spec, void *dst, uint32_t seen)
{
    const gp_scoring *s = dst;

    (void)spec;
    (void)seen;
    if (s->nmix > GP_POLICY_MAX_MIX) {
        size_t old = path_push_key(v, "workloadMix");

        verr(v, "at most %d shapes", GP_POLICY_MAX_MIX);
        path_pop(v, old);
    }
}

/* The extender's scoring (docs/scoring.md). The nested objects hold more fields of gp_scoring. */
static const vfield scoring_fields[] = {
    {.name = "weights", .kind = FK_OBJECT, .off = 0, .spec = &weights_spec, .fill_absent = true},
    {.name = "spotDiscountPercent", .kind = FK_INT, AT(gp_scoring, spot_discount_pct), .min = 0,
     .max = 99, .def = 60},
    {.name = "spotFilter", .kind = FK_ENUM, AT(gp_scoring, spot_filter), .choices = spot_filters,
     .def = GP_SPOT_FILTER_HARD},
    {.name = "defaultGpuHourlyPrice", .kind = FK_PRICE, AT(gp_scoring, default_gpu_price_micro),
     .def_str = "2.50"},
    {.name = "typicalGpuPod", .kind = FK_OBJECT, .off = 0, .spec = &typical_spec,
     .fill_absent = true},
    {.name = "prices", .kind = FK_OBJECT, .off = 0, .spec = &prices_spec},
    {.name = "workloadMix", .kind = FK_ARRAY, AT(gp_scoring, mix), COUNT(gp_scoring, nmix),
     .elem = &mix_elem, .elem_size = sizeof(gp_mix_entry)},
};
static const objspec scoring_spec = SPEC(scoring_fields, scoring_post);

static const vfield resource_str = {.kind = FK_STR, .min = 1, .check = check_resource};

/* advisor (docs/policy.md): the advisor's thresholds, model labels and dcgm-exporter label names.
 * Absent lists take the defaults of advisor_defaults. */
static const vfield prom_label_str = {.kind = FK_STR, .min = 1, .max = 63,
                                      .check = check_prom_label};
static const vfield label_key_str = {.kind = FK_STR, .min = 1, .max = 316,
                                     .check = check_label_key};
static const vfield class_name_str = {.kind = FK_STR, .min = 1, .max = 63,
                                      .check = check_dns_label};

#define LABEL_LIST(json, member)                                                                 \
    {.name = json, .kind = FK_ARRAY, AT(gp_advisor_policy, label_##member),                     \
     COUNT(gp_advisor_policy, nlabel_##member), .min = 1, .elem = &prom_label_str,              \
     .elem_size = sizeof(char *)}

static const vfield dcgm_label_fields[] = {
    LABEL_LIST("namespace", namespace),
    LABEL_LIST("pod", pod),
    LABEL_LIST("container", container),
    LABEL_LIST("host", host),
};
static const objspec dcgm_label_spec = SPEC(dcgm_label_fields, NULL);

static const char *const def_model_labels[] = {"gpupack.io/model",
                                               "serving.kserve.io/inferenceservice",
                                               "app.kubernetes.io/name"};
static const char *const def_cheaper_classes[] = {"inference"};
static const char *const def_ns_labels[] = {"exported_namespace", "namespace", "pod_namespace"};
static const char *const def_pod_labels[] = {"exported_pod", "pod", "pod_name"};
static const char *const def_container_labels[] = {"exported_container", "container",
                                                   "container_name"};
static const char *const def_host_labels[] = {"Hostname", "hostname"};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Fills an absent list (n == 0) with its default. */
static void default_list(vctx *v, char ***list, size_t *n, const char *const *def, size_t ndef)
{
    if (*n > 0)
        return;
    *list = calloc(ndef, sizeof(char *));
    if (*list == NULL) {
        v->oom = true;
        return;
    }
    *n = ndef;
    for (size_t i = 0; i < ndef; i++)
        (*list)[i] = vstrdup(v, def[i]);
}

static void advisor_post(vctx *v, const objspec *spec, void *dst, uint32_t seen)
{
    gp_advisor_policy *a = dst;

    if (!was_seen(spec, seen, "modelLabels"))
        default_list(v, &a->model_labels, &a->nmodel_labels, def_model_labels,
                     NELEM(def_model_labels));
    if (!was_seen(spec, seen, "cheaperModelClasses"))
        default_list(v, &a->cheaper_model_classes, &a->ncheaper_model_classes,
                     def_cheaper_classes, NELEM(def_cheaper_classes));
    default_list(v, &a->label_namespace, &a->nlabel_namespace, def_ns_labels,
                 NELEM(def_ns_labels));
    default_list(v, &a->label_pod, &a->nlabel_pod, def_pod_labels, NELEM(def_pod_labels));
    default_list(v, &a->label_container, &a->nlabel_container, def_container_labels,
                 NELEM(def_container_labels));
    default_list(v, &a->label_host, &a->nlabel_host, def_host_labels, NELEM(def_host_labels));
}

#define NUM(json, member, lo, hi, d)                                                             \
    {.name = json, .kind = FK_NUM, AT(gp_advisor_policy, member), .dmin = lo, .dmax = hi,        \
     .ddef = d}

static const vfield advisor_fields[] = {
    NUM("idleMeanPercent", idle_mean_pct, 0, 100, 5),
    NUM("idleP95Percent", idle_p95_pct, 0, 100, 10),
    NUM("migHeadroom", mig_headroom, 1.0, 10, 1.2),
    NUM("cheaperModelMaxP95Percent", model_max_p95_pct, 0, 100, 50),
    NUM("runawayFactor", runaway_factor, 1.0, 1000, 3),
    {.name = "runawayMinRuns", .kind = FK_INT, AT(gp_advisor_policy, runaway_min_runs), .min = 1,
     .max = 1000, .def = 3},
    NUM("runawayIdleHours", runaway_idle_hours, 0.0, 8760, 6),
    NUM("idleNodeHours", idle_node_hours, 0.0, 8760, 24),
    NUM("minCoverageHours", min_coverage_hours, 0.0, 8760, 24),
    {.name = "modelLabels", .kind = FK_ARRAY, AT(gp_advisor_policy, model_labels),
     COUNT(gp_advisor_policy, nmodel_labels), .elem = &label_key_str,
     .elem_size = sizeof(char *)},
    {.name = "cheaperModelClasses", .kind = FK_ARRAY,
     AT(gp_advisor_policy, cheaper_model_classes),
     COUNT(gp_advisor_policy, ncheaper_model_classes), .elem = &class_name_str,
     .elem_size = sizeof(char *)},
    {.name = "dcgmLabels", .kind = FK_OBJECT, .off = 0, .spec = &dcgm_label_spec},
};
static const objspec advisor_spec = SPEC(advisor_fields, advisor_post);

static void policy_post(vctx *v, const objspec *spec, void *dst, uint32_t seen);

static const vfield policy_fields[] = {
    {.name = "apiVersion", .kind = FK_STR, .required = true, .discard = true,
     .choices = api_versions},
    {.name = "kind", .kind = FK_STR, .required = true, .discard = true, .choices = kinds},
    {.name = "mode", .kind = FK_ENUM, AT(gp_policy, mode), .choices = modes,
     .def = GP_MODE_ENFORCE},
    {.name = "gpuResources", .kind = FK_ARRAY, AT(gp_policy, gpu_resources),
     COUNT(gp_policy, ngpu_resources), .elem = &resource_str, .elem_size = sizeof(char *)},
    {.name = "excludedNamespaces", .kind = FK_ARRAY, AT(gp_policy, excluded_namespaces),
     COUNT(gp_policy, nexcluded_namespaces), .elem = &ns_glob_str, .elem_size = sizeof(char *)},
    {.name = "tolerations", .kind = FK_ARRAY, AT(gp_policy, tolerations),
     COUNT(gp_policy, ntolerations), .elem = &toleration_elem,
     .elem_size = sizeof(gp_toleration)},
    {.name = "classes", .kind = FK_MAP, AT(gp_policy, classes), COUNT(gp_policy, nclasses),
     .check = check_dns_label, .elem = &class_value, .elem_size = sizeof(gp_class),
     .key_off = offsetof(gp_class, name)},
    {.name = "rules", .kind = FK_ARRAY, AT(gp_policy, rules), COUNT(gp_policy, nrules),
     .elem = &rule_elem, .elem_size = sizeof(gp_rule), .unique = true,
     .key_off = offsetof(gp_rule, name)},
    {.name = "defaultClass", .kind = FK_STR, AT(gp_policy, default_class), .min = 1, .max = 63},
    {.name = "schedulerName", .kind = FK_STR, AT(gp_policy, scheduler_name), .min = 1,
     .max = 253, .check = check_dns_subdomain},
    {.name = "migProfiles", .kind = FK_ARRAY, AT(gp_policy, mig_profiles),
     COUNT(gp_policy, nmig_profiles), .elem = &mig_elem, .elem_size = sizeof(gp_mig_profile),
     .unique = true, .key_off = offsetof(gp_mig_profile, name)},
    {.name = "migProfilesAuthoritative", .kind = FK_BOOL,
     AT(gp_policy, mig_profiles_authoritative), .def = 0},
    {.name = "spot", .kind = FK_OBJECT, AT(gp_policy, spot), .spec = &spot_spec,
     .fill_absent = true},
    {.name = "priority", .kind = FK_OBJECT, AT(gp_policy, priority), .spec = &priority_spec,
     .fill_absent = true},
    {.name = "scoring", .kind = FK_OBJECT, AT(gp_policy, scoring), .spec = &scoring_spec,
     .fill_absent = true},
    {.name = "advisor", .kind = FK_OBJECT, AT(gp_policy, advisor), .spec = &advisor_spec,
     .fill_absent = true, .post_absent = true},
};
static const objspec policy_spec = SPEC(policy_fields, policy_post);
_Static_assert(sizeof(policy_fields) / sizeof(policy_fields[0]) <= 32, "seen is a uint32_t");

static const char *const default_gpu_resources[] = {GP_RES_GPU, GP_RES_MIG_PREFIX "*"};

/* ---------------------------------------------------------------------------------------------
 * Decoding. */

static void decode_value(vctx *v, const vfield *f, void *base, const cJSON *item);
static void decode_object(vctx *v, const objspec *spec, void *dst, const cJSON *obj);

#define FIELD_PTR(type, base, off) ((type *)(void *)((char *)(base) + (off)))

static void report_choices(vctx *v, const choice *choices)
{
    char msg[512];
    size_t n = 0;

    if (choices[1].name == NULL) {
        verr(v, "must be \"%s\"", choices[0].name);
        return;
    }
    msg[0] = '\0';
    for (const choice *c = choices; c->name != NULL && n < sizeof(msg); c++) {
        int w = snprintf(msg + n, sizeof(msg) - n, "%s\"%s\"", c == choices ? "" : ", ", c->name);

        n += w > 0 ? (size_t)w : 0;
    }
    verr(v, "must be one of %s", msg);
}

static const choice *find_choice(const choice *choices, const char *s)
{
    for (const choice *c = choices; c->name != NULL; c++)
        if (strcmp(c->name, s) == 0)
            return c;
    return NULL;
}

/* Checks a string against the field's length bounds, choices and validator. */
static bool string_ok(vctx *v, const vfield *f, const char *s)
{
    size_t len = strlen(s), max = f->max > 0 ? (size_t)f->max : GP_POLICY_MAX_STR;
    const char *msg;

    if (len > max) {
        verr(v, "too long (%zu characters, at most %zu)", len, max);
        return false;
    }
    if (len < (size_t)f->min) {
        verr(v, "must not be empty");
        return false;
    }
    if (f->choices != NULL && find_choice(f->choices, s) == NULL) {
        report_choices(v, f->choices);
        return false;
    }
    if (f->check != NULL && len > 0 && (msg = f->check(s)) != NULL) {
        verr(v, "%s", msg);
        return false;
    }
    return true;
}

static void decode_string(vctx *v, const vfield *f, void *base, const cJSON *item)
{
    if (!cJSON_IsString(item) || item->valuestring == NULL) {
        verr(v, "must be a string");
        return;
    }
    if (!string_ok(v, f, item->valuestring) || f->discard)
        return;
    *FIELD_PTR(char *, base, f->off) = vstrdup(v, item->valuestring);
}

static void decode_enum(vctx *v, const vfield *f, void *base, const cJSON *item)
{
    const choice *c;

    if (!cJSON_IsString(item) || item->valuestring == NULL) {
        verr(v, "must be a string");
        return;
    }
    c = find_choice(f->choices, item->valuestring);
    if (c == NULL) {
        report_choices(v, f->choices);
        return;
    }
    memcpy((char *)base + f->off, &c->value, sizeof(int));
}

/* Reads the integer token at the offset index_numbers() stored in valueint. Returns false when the
 * token has a fraction or an exponent; *overflow is set when it does not fit an int64_t. */
static bool token_integer(const vctx *v, const cJSON *item, int64_t *out, bool *overflow)
{
    const char *p = v->src + item->valueint, *digits;
    bool neg = *p == '-';
    uint64_t mag = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

    *overflow = false;
    if (neg)
        p++;
    digits = p;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');

        if (mag > (limit - d) / 10)
            *overflow = true;
        else
            mag = mag * 10 + d;
    }
    if (p == digits || *p == '.' || *p == 'e' || *p == 'E')
        return false;
    if (!*overflow)
        *out = neg ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
    return true;
}

static void decode_integer(vctx *v, const vfield *f, void *base, const cJSON *item)
{
    int64_t n = 0;
    bool overflow;

    if (!cJSON_IsNumber(item) || !token_integer(v, item, &n, &overflow)) {
        verr(v, "must be an integer");
        return;
    }
    if (overflow || n < f->min || n > f->max) {
        verr(v, "must be %" PRId64 "..%" PRId64, f->min, f->max);
        return;
    }
    if (f->kind == FK_INT)
        *FIELD_PTR(int, base, f->off) = (int)n;
    else
        *FIELD_PTR(int64_t, base, f->off) = n;
}

static void decode_number(vctx *v, const vfield *f, void *base, const cJSON *item)
{
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble)) {
        verr(v, "must be a number");
        return;
    }
    if (item->valuedouble < f->dmin || item->valuedouble > f->dmax) {
        verr(v, "must be %g..%g", f->dmin, f->dmax);
        return;
    }
    *FIELD_PTR(double, base, f->off) = item->valuedouble;
}

static void decode_bool(vctx *v, const vfield *f, void *base, const cJSON *item)
{
    if (!cJSON_IsBool(item)) {
        verr(v, "must be a boolean");
        return;
    }
    if (f->kind == FK_TRIBOOL)
        *FIELD_PTR(int, base, f->off) = cJSON_IsTrue(item) ? 1 : 0;
    else
        *FIELD_PTR(bool, base, f->off) = cJSON_IsTrue(item);
}

static void decode_quantity(vctx *v, const vfield *f, void *base, const cJSON *item)
{
    gp_err err = {{0}};
    gp_qty q;

    if (!cJSON_IsString(item) || item->valuestring == NULL) {
        verr(v, "must be a string (a quantity such as \"20Gi\")");
        return;
    }
    if (gp_qty_parse_str(item->valuestring, &q, &err) != GP_OK) {
        verr(v, "must be a quantity such as \"20Gi\" (%s)", err.msg[0] ? err.msg : "invalid");
        return;
    }
    if (gp_qty_cmp(q, gp_qty_from_units(0)) <= 0) {
        verr(v, "must be positive");
        return;
    }
    *FIELD_PTR(gp_qty, base, f->off) = q;
}

/* A positive quantity as whole units or milli-units, rounded up. Returns NULL or the problem. */
static const char *qty_to_i64(const char *s, bool milli, int64_t *out, gp_err *err)
{
    gp_qty q;

    if (gp_qty_parse_str(s, &q, err) != GP_OK)
        return "invalid";
    if (gp_qty_cmp(q, gp_qty_from_units(0)) <= 0)
        return "positive";
    *out = milli ? gp_qty_ceil_milli(q) : gp_qty_ceil_units(q);
    return NULL;
}

static void decode_qty_i64(vctx *v, const vfield *f, void *base, const cJSON *item)
{
    gp_err err = {{0}};
    const char *why;

    if (!cJSON_IsString(item) || item->valuestring == NULL) {
        verr(v, "must be a string (a quantity such as \"%s\")", f->def_str);
        return;
    }
    why = qty_to_i64(item->valuestring, f->milli, FIELD_PTR(int64_t, base, f->off), &err);
    if (why != NULL && strcmp(why, "positive") == 0)
        verr(v, "must be positive");
    else if (why != NULL)
        verr(v, "must be a quantity such as \"%s\" (%s)", f->def_str,
             err.msg[0] ? err.msg : "invalid");
}

/* Parses a price in dollars: digits, optionally "." and 1..GP_PRICE_MAX_DECIMALS digits, at
 * most GP_PRICE_MAX_MICRO. No sign, exponent or spaces: the value is exact in micro-dollars.
 * Returns NULL, or what to add to the message ("" for a syntax error). */
static const char *parse_price(const char *s, int64_t *out)
{
    int64_t micro = 0;
    int decimals = 0;
    const char *p = s;

    if (*p < '0' || *p > '9')
        return "";
    for (; *p >= '0' && *p <= '9'; p++) {
        micro = micro * 10 + (*p - '0');
        if (micro > GP_PRICE_MAX_MICRO / 1000000)
            return " (at most 1000000)";
    }
    micro *= 1000000;
    if (*p == '.') {
        int64_t scale = 100000;

        if (p[1] < '0' || p[1] > '9')
            return "";
        for (p++; *p >= '0' && *p <= '9'; p++, decimals++) {
            if (decimals == GP_PRICE_MAX_DECIMALS)
                return " (at most 6 decimal places)";
            micro += (*p - '0') * scale;
            scale /= 10;
        }
    }
    if (*p != '\0')
        return "";
    if (micro > GP_PRICE_MAX_MICRO)
        return " (at most 1000000)";
    *out = micro;
    return NULL;
}

static void decode_price(vctx *v, const vfield *f, void *base, const cJSON *item)
{
    const char *why;

    if (!cJSON_IsString(item) || item->valuestring == NULL) {
        verr(v, "must be a string (a price in dollars like \"2.50\")");
        return;
    }
    why = parse_price(item->valuestring, FIELD_PTR(int64_t, base, f->off));
    if (why != NULL)
        verr(v, "must be a price in dollars like \"2.50\"%s", why);
}

/* Counts an object's or array's children, up to limit + 1. */
static size_t count_children(const cJSON *item, size_t limit)
{
    size_t n = 0;

    for (const cJSON *c = item->child; c != NULL && n <= limit; c = c->next)
        n++;
    return n;
}

/* Checks the entry count of an array or map. Returns false when the contents must be skipped. */
static bool count_ok(vctx *v, const vfield *f, size_t n, const char *one, const char *many)
{
    if (n > GP_POLICY_MAX_ITEMS) {
        verr(v, "too many %s (more than %d)", many, GP_POLICY_MAX_ITEMS);
        return false;
    }
    if (n < (size_t)f->min)
        verr(v, "must have at least %" PRId64 " %s", f->min, f->min == 1 ? one : many);
    return true;
}

/* Reports keys that occur more than once in obj (cJSON keeps all of them). */
static void check_duplicate_keys(vctx *v, const cJSON *obj)
{
    for (const cJSON *c = obj->child; c != NULL; c = c->next) {
        for (const cJSON *d = obj->child; d != c; d = d->next) {
            if (strcmp(c->string, d->string) == 0) {
                verr(v, "duplicate key \"%s\"", c->string);
                break;
            }
        }
    }
}

static void check_unique(vctx *v, const vfield *f, char *arr, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        const char *a = *FIELD_PTR(char *, arr + i * f->elem_size, f->key_off);

        for (size_t j = 0; a != NULL && j < i; j++) {
            const char *b = *FIELD_PTR(char *, arr + j * f->elem_size, f->key_off);

            if (b != NULL && strcmp(a, b) == 0) {
                size_t old = path_push_index(v, i);

                path_push_key(v, "name");
                verr(v, "duplicate name \"%s\" (also at index %zu)", a, j);
                path_pop(v, old);
                break;
            }
        }
    }
}

/* The element array of an array or map field, sized to item's children (stored in base with
 * its count), or NULL when there is none to decode (an error, if any, already recorded). */
static char *alloc_elems(vctx *v, const vfield *f, void *base, const cJSON *item, bool map,
                         size_t *n)
{
    char *arr;

    if (!(map ? cJSON_IsObject(item) : cJSON_IsArray(item))) {
        verr(v, "must be %s", map ? "an object" : "an array");
        return NULL;
    }
    *n = count_children(item, GP_POLICY_MAX_ITEMS);
    if (!count_ok(v, f, *n, map ? "entry" : "item", map ? "entries" : "items") || *n == 0)
        return NULL;
    if (map)
        check_duplicate_keys(v, item);
    if ((arr = calloc(*n, f->elem_size)) == NULL) {
        v->oom = true;
        return NULL;
    }
    *FIELD_PTR(void *, base, f->off) = arr;
    *FIELD_PTR(size_t, base, f->count_off) = *n;
    return arr;
}

/* An array field (map false) or a map field (its keys stored in each element): every element
 * decoded at its own path ("[i]" or ".key"). */
static void decode_elems(vctx *v, const vfield *f, void *base, const cJSON *item, bool map)
{
    size_t n = 0, i = 0;
    char *arr = alloc_elems(v, f, base, item, map, &n);
    const vfield key = { .kind = FK_STR, .min = 1, .check = f->check };

    if (arr == NULL)
        return;
    for (const cJSON *c = item->child; c != NULL; c = c->next, i++) {
        size_t old = map ? path_push_key(v, c->string) : path_push_index(v, i);
        char *elem = arr + i * f->elem_size;

        if (map && string_ok(v, &key, c->string))
            *FIELD_PTR(char *, elem, f->key_off) = vstrdup(v, c->string);
        decode_value(v, f->elem, elem, c);
        path_pop(v, old);
    }
    if (!map && f->unique)
        check_unique(v, f, arr, n);
}

static void decode_value(vctx *v, const vfield *f, void *base, const cJSON *item)
{
    switch (f->kind) {
    case FK_STR: decode_string(v, f, base, item); break;
    case FK_BOOL:
    case FK_TRIBOOL: decode_bool(v, f, base, item); break;
    case FK_INT:
    case FK_I64: decode_integer(v, f, base, item); break;
    case FK_NUM: decode_number(v, f, base, item); break;
    case FK_ENUM: decode_enum(v, f, base, item); break;
    case FK_QTY: decode_quantity(v, f, base, item); break;
    case FK_QTY_I64: decode_qty_i64(v, f, base, item); break;
    case FK_PRICE: decode_price(v, f, base, item); break;
    case FK_OBJECT: decode_object(v, f->spec, (char *)base + f->off, item); break;
    case FK_ARRAY: decode_elems(v, f, base, item, false); break;
    case FK_MAP: decode_elems(v, f, base, item, true); break;
    }
}

/* Stores a field's default; absent arrays and maps stay empty. */
static void apply_default(vctx *v, const vfield *f, void *base)
{
    switch (f->kind) {
    case FK_STR:
        if (f->def_str != NULL && !f->discard)
            *FIELD_PTR(char *, base, f->off) = vstrdup(v, f->def_str);
        break;
    case FK_BOOL: *FIELD_PTR(bool, base, f->off) = f->def != 0; break;
    case FK_TRIBOOL:
    case FK_INT: *FIELD_PTR(int, base, f->off) = (int)f->def; break;
    case FK_I64: *FIELD_PTR(int64_t, base, f->off) = f->def; break;
    case FK_NUM: *FIELD_PTR(double, base, f->off) = f->ddef; break;
    case FK_ENUM: {
        int e = (int)f->def;

        memcpy((char *)base + f->off, &e, sizeof(e));
        break;
    }
    case FK_OBJECT:
        if (f->fill_absent)
            decode_object(v, f->spec, (char *)base + f->off, NULL);
        if (f->fill_absent && f->post_absent && f->spec->post != NULL)
            f->spec->post(v, f->spec, (char *)base + f->off, 0);
        break;
    case FK_QTY_I64:
        if (f->def_str != NULL &&
            qty_to_i64(f->def_str, f->milli, FIELD_PTR(int64_t, base, f->off), NULL) != NULL)
            verr(v, "internal error: bad default \"%s\"", f->def_str);
        break;
    case FK_PRICE:
        if (f->def_str != NULL && parse_price(f->def_str, FIELD_PTR(int64_t, base, f->off)))
            verr(v, "internal error: bad default \"%s\"", f->def_str);
        break;
    case FK_QTY:
    case FK_ARRAY:
    case FK_MAP: break;
    }
}

static const vfield *find_field(const objspec *spec, const char *name)
{
    for (size_t i = 0; i < spec->nfields; i++)
        if (strcmp(spec->fields[i].name, name) == 0)
            return &spec->fields[i];
    return NULL;
}

/* Decodes obj into dst per spec. obj NULL means "absent": only the defaults are stored. */
static void decode_object(vctx *v, const objspec *spec, void *dst, const cJSON *obj)
{
    uint32_t seen = 0;

    if (obj != NULL) {
        if (!cJSON_IsObject(obj)) {
            verr(v, "must be an object");
            return;
        }
        if (count_children(obj, GP_POLICY_MAX_ITEMS) > GP_POLICY_MAX_ITEMS) {
            verr(v, "too many keys (more than %d)", GP_POLICY_MAX_ITEMS);
            return;
        }
        check_duplicate_keys(v, obj);
        for (const cJSON *c = obj->child; c != NULL; c = c->next)
            if (find_field(spec, c->string) == NULL)
                verr_at(v, c->string, "unknown field");
    }
    for (size_t i = 0; i < spec->nfields; i++) {
        const vfield *f = &spec->fields[i];
        const cJSON *item = obj ? cJSON_GetObjectItemCaseSensitive(obj, f->name) : NULL;
        size_t old;

        if (item == NULL) {
            if (f->required && obj != NULL)
                verr_at(v, f->name, "is required");
            apply_default(v, f, dst);
            continue;
        }
        seen |= 1u << i;
        old = path_push_key(v, f->name);
        decode_value(v, f, dst, item);
        path_pop(v, old);
    }
    if (obj != NULL && spec->post != NULL)
        spec->post(v, spec, dst, seen);
}

/* References between parts of the document, and the defaults that are lists. */
static void policy_post(vctx *v, const objspec *spec, void *dst, uint32_t seen)
{
    gp_policy *p = dst;
    size_t n = sizeof(default_gpu_resources) / sizeof(default_gpu_resources[0]);

    if (!was_seen(spec, seen, "gpuResources")) {
        p->gpu_resources = calloc(n, sizeof(char *));
        if (p->gpu_resources == NULL) {
            v->oom = true;
            return;
        }
        p->ngpu_resources = n;
        for (size_t i = 0; i < n; i++)
            p->gpu_resources[i] = vstrdup(v, default_gpu_resources[i]);
    }
    for (size_t i = 0; i < p->nrules; i++) {
        const char *cls = p->rules[i].class_name;

        if (cls != NULL && gp_policy_class(p, cls) == NULL) {
            size_t old = path_push_key(v, "rules");

            path_push_index(v, i);
            path_push_key(v, "class");
            verr(v, "unknown class \"%s\"", cls);
            path_pop(v, old);
        }
    }
    if (p->default_class != NULL && gp_policy_class(p, p->default_class) == NULL) {
        size_t old = path_push_key(v, "defaultClass");

        verr(v, "unknown class \"%s\"", p->default_class);
        path_pop(v, old);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Freeing, by the same tables. */

static void free_object(const objspec *spec, void *dst);

static void free_value(const vfield *f, void *base)
{
    switch (f->kind) {
    case FK_STR:
        if (!f->discard)
            free(*FIELD_PTR(char *, base, f->off));
        break;
    case FK_OBJECT: free_object(f->spec, (char *)base + f->off); break;
    case FK_ARRAY:
    case FK_MAP: {
        char *arr = *FIELD_PTR(char *, base, f->off);
        size_t n = *FIELD_PTR(size_t, base, f->count_off);

        for (size_t i = 0; arr != NULL && i < n; i++) {
            if (f->kind == FK_MAP)
                free(*FIELD_PTR(char *, arr + i * f->elem_size, f->key_off));
            free_value(f->elem, arr + i * f->elem_size);
        }
        free(arr);
        break;
    }
    default: break;
    }
}

static void free_object(const objspec *spec, void *dst)
{
    for (size_t i = 0; i < spec->nfields; i++)
        free_value(&spec->fields[i], dst);
}

static void policy_free(gp_policy *p)
{
    if (p == NULL)
        return;
    free_object(&policy_spec, p);
    free(p);
}

/* ---------------------------------------------------------------------------------------------
 * The document. */

/* Stores in each number node's valueint the byte offset of its token in src. cJSON keeps children
 * in document order, and outside strings only number tokens contain '-' or digits, so the n-th
 * number node is the n-th number token. */
static void index_numbers(cJSON *node, const char *src, size_t *pos)
{
    for (; node != NULL; node = node->next) {
        if (cJSON_IsNumber(node)) {
            size_t p = *pos;
            bool in_str = false;

            for (; src[p] != '\0'; p++) {
                if (in_str) {
                    if (src[p] == '\\')
                        p++;
                    else if (src[p] == '"')
                        in_str = false;
                } else if (src[p] == '"') {
                    in_str = true;
                } else if (src[p] == '-' || (src[p] >= '0' && src[p] <= '9')) {
                    break;
                }
            }
            node->valueint = (int)p;
            while (src[p] != '\0' && strchr("+-.eE0123456789", src[p]) != NULL)
                p++;
            *pos = p;
        }
        if (cJSON_IsArray(node) || cJSON_IsObject(node))
            index_numbers(node->child, src, pos);
    }
}

static void line_col(const char *s, size_t off, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (s[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* Finds a "\u0000" escape, which cJSON would silently turn into the end of the string. Returns
 * its offset, or (size_t)-1. The document has parsed, so backslashes only occur in strings. */
static size_t find_nul_escape(const char *s)
{
    for (size_t i = 0; s[i] != '\0'; i++) {
        if (s[i] != '\\')
            continue;
        if (strncmp(s + i + 1, "u0000", 5) == 0)
            return i;
        if (s[i + 1] != '\0')
            i++;
    }
    return (size_t)-1;
}

static bool only_space(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
            return false;
    return true;
}

/* Parses src (NUL-terminated, len bytes) into a cJSON tree, or reports why not. */
static cJSON *parse_document(vctx *v, const char *src, size_t len)
{
    const char *nul = memchr(src, '\0', len), *end = NULL;
    size_t line, col, off;
    cJSON *root;

    if (nul != NULL) {
        off = (size_t)(nul - src);
        line_col(src, off, &line, &col);
        verr(v, "NUL byte at byte %zu (line %zu, column %zu)", off, line, col);
        return NULL;
    }
    if (only_space(src, len)) {
        verr(v, "empty document");
        return NULL;
    }
    /* len + 1: cJSON wants to see the terminating NUL inside the buffer. */
    root = cJSON_ParseWithLengthOpts(src, len + 1, &end, 1);
    if (root == NULL) {
        off = end != NULL && end >= src && end <= src + len ? (size_t)(end - src) : 0;
        line_col(src, off, &line, &col);
        verr(v, "invalid JSON at byte %zu (line %zu, column %zu)", off, line, col);
        return NULL;
    }
    off = find_nul_escape(src);
    if (off != (size_t)-1) {
        line_col(src, off, &line, &col);
        verr(v, "\\u0000 is not allowed in strings (byte %zu, line %zu, column %zu)", off, line,
             col);
        cJSON_Delete(root);
        return NULL;
    }
    off = 0;
    index_numbers(root, src, &off);
    return root;
}

static void digest(const char *s, size_t len, char out[17])
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    snprintf(out, 17, "%016" PRIx64, h);
}

/* Hands the error list to the caller (or frees it), adding the summary of suppressed errors. */
static void finish_errors(vctx *v, char **errors)
{
    char *text = NULL;
    size_t n;

    if (v->nerr > GP_POLICY_MAX_ERRORS)
        gp_strbuf_printf(&v->errs, "... and %zu more errors\n", v->nerr - GP_POLICY_MAX_ERRORS);
    if (v->oom || gp_strbuf_take(&v->errs, &text, &n) != GP_OK)
        text = strdup("document: out of memory\n");
    if (errors != NULL)
        *errors = text;
    else
        free(text);
}

gp_status gp_policy_parse(const char *json, size_t len, gp_policy **out, char **errors)
{
    vctx *v = calloc(1, sizeof(*v));
    gp_status st = GP_EINVAL;
    gp_policy *p = NULL;
    cJSON *root = NULL;
    char *src = NULL;

    *out = NULL;
    if (errors != NULL)
        *errors = NULL;
    if (v == NULL)
        return GP_ENOMEM;
    if (len > GP_POLICY_MAX_BYTES) {
        verr(v, "larger than %d bytes", GP_POLICY_MAX_BYTES);
        st = GP_ETOOBIG;
        goto fail;
    }
    src = malloc(len + 1);
    p = calloc(1, sizeof(*p));
    if (src == NULL || p == NULL) {
        v->oom = true;
        goto fail;
    }
    memcpy(src, json, len);
    src[len] = '\0';
    v->src = src;
    root = parse_document(v, src, len);
    if (root == NULL)
        goto fail;
    decode_object(v, &policy_spec, p, root);
    if (v->nerr > 0 || v->oom)
        goto fail;
    atomic_init(&p->refs, 1);
    digest(json, len, p->digest);
    *out = p;
    p = NULL;
    st = GP_OK;
fail:
    if (v->oom || v->errs.failed)
        st = GP_ENOMEM;
    if (st != GP_OK)
        finish_errors(v, errors);
    gp_strbuf_free(&v->errs);
    free(v);
    cJSON_Delete(root);
    free(src);
    policy_free(p);
    return st;
}

gp_status gp_policy_default(gp_policy **out, char **errors)
{
    return gp_policy_parse(gp_default_policy_json, gp_default_policy_json_len, out, errors);
}

gp_policy *gp_policy_ref(gp_policy *p)
{
    if (p != NULL)
        atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
    return p;
}

void gp_policy_unref(gp_policy *p)
{
    if (p != NULL && atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) == 1)
        policy_free(p);
}

/* ---------------------------------------------------------------------------------------------
 * Lookups. */

const gp_class *gp_policy_class(const gp_policy *p, const char *name)
{
    if (p == NULL || name == NULL)
        return NULL;
    for (size_t i = 0; i < p->nclasses; i++)
        if (p->classes[i].name != NULL && strcmp(p->classes[i].name, name) == 0)
            return &p->classes[i];
    return NULL;
}

bool gp_policy_is_gpu_resource(const gp_policy *p, const char *resource)
{
    if (p == NULL || resource == NULL)
        return false;
    for (size_t i = 0; i < p->ngpu_resources; i++) {
        const char *r = p->gpu_resources[i];
        size_t n = strlen(r);

        if (n > 0 && r[n - 1] == '*' ? strncmp(resource, r, n - 1) == 0
                                     : strcmp(resource, r) == 0)
            return true;
    }
    return false;
}

bool gp_policy_namespace_excluded(const gp_policy *p, const char *ns)
{
    return p != NULL && gp_glob_any(p->excluded_namespaces, p->nexcluded_namespaces, ns);
}

bool gp_glob_any(char *const *globs, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (gp_glob_match(globs[i], s))
            return true;
    return false;
}

/* Iterative matching with one backtrack point (the last '*'): O(len(pattern) * len(s)) at worst,
 * no recursion. */
bool gp_glob_match(const char *pattern, const char *s)
{
    const char *p = pattern, *star = NULL, *resume = NULL;

    if (pattern == NULL || s == NULL)
        return false;
    while (*s != '\0') {
        if (*p == '*') {
            star = p++;
            resume = s;
        } else if (*p != '\0' && (*p == '?' || *p == *s)) {
            p++;
            s++;
        } else if (star != NULL) {
            p = star + 1;
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

/* ---------------------------------------------------------------------------------------------
 * The holder. */

/* The slot's typed reference counting. */
static void *policy_ref(void *p) { return gp_policy_ref(p); }
static void policy_unref(void *p) { gp_policy_unref(p); }

void gp_policy_holder_init(gp_policy_holder *h, gp_policy *initial)
{
    gp_snapshot_init(&h->slot, initial, policy_ref, policy_unref);
}

gp_policy *gp_policy_holder_get(gp_policy_holder *h)
{
    return gp_snapshot_get(&h->slot);
}

void gp_policy_holder_set(gp_policy_holder *h, gp_policy *next)
{
    gp_snapshot_set(&h->slot, next);
}

void gp_policy_holder_destroy(gp_policy_holder *h)
{
    gp_snapshot_destroy(&h->slot);
}
