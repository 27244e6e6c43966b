/* SPDX-License-Identifier: Apache-2.0 */
/* The filter's GPU model rules as required node affinity (see gpuaff.h). */
#include "gpupack/gpuaff.h"

#include <stdlib.h>
#include <string.h>

#include "gpupack/dnsname.h"
#include "gpupack/k8s.h"
#include "gpupack/score.h"

/* Models one requirement lists. Past it further models are left out of the list: an In list
 * would narrow (never widen) what the pod may use. */
#define MAX_VALUES 256

/* The values a requirement lists: sorted, unique. */
typedef struct {
    const char *v[MAX_VALUES];
    size_t n;
} valset;

static void valset_add(valset *s, const char *v)
{
    size_t i = 0;

    while (i < s->n && strcmp(s->v[i], v) < 0)
        i++;
    if ((i < s->n && strcmp(s->v[i], v) == 0) || s->n == MAX_VALUES)
        return;
    memmove(&s->v[i + 1], &s->v[i], (s->n - i) * sizeof(char *));
    s->v[i] = v;
    s->n++;
}

static bool is_glob(const char *g)
{
    return strpbrk(g, "*?") != NULL;
}

/* Adds what glob g stands for: itself when exact (and a label value: the annotation's entries
 * are not checked elsewhere), else the known models it matches. Known models are label values
 * already: the view keeps only those, and the policy checks its price keys. */
static void expand(valset *s, const char *g, const gp_cluster *view, const gp_policy *pol)
{
    if (!is_glob(g)) {
        if (gp_k8s_label_name(g, strlen(g)))
            valset_add(s, g);
        return;
    }
    for (size_t i = 0; view != NULL && i < view->ngpu_products; i++)
        if (gp_glob_match(g, view->gpu_products[i]))
            valset_add(s, view->gpu_products[i]);
    for (size_t i = 0; i < pol->scoring.ngpu_prices; i++)
        if (gp_glob_match(g, pol->scoring.gpu_prices[i].match))
            valset_add(s, pol->scoring.gpu_prices[i].match);
}

static const char *globs_text(gp_arena *a, const char *const *g, size_t n)
{
    const char *s = "";

    for (size_t i = 0; i < n && s != NULL; i++)
        s = gp_arena_printf(a, "%s%s%.63s", s, i ? "," : "", g[i]);
    return s;
}

/* Appends "key op [values]" to out's models, and its text to out->models_text. */
static gp_status add_req(gp_arena *a, gp_gpu_affinity *out, const char *op, const valset *s)
{
    gp_selector_req *r = &out->models[out->nmodels];
    const char *t = out->models_text ? gp_arena_printf(a, "%s, ", out->models_text) : "";

    r->key = GP_LABEL_GPU_PRODUCT;
    r->op = (char *)op;
    r->nvalues = s->n;
    r->values = gp_arena_alloc(a, s->n * sizeof(char *));
    if (r->values == NULL || t == NULL)
        return GP_ENOMEM;
    memcpy(r->values, s->v, s->n * sizeof(char *));
    out->models_text =
        gp_arena_printf(a, "%s" GP_LABEL_GPU_PRODUCT " %s (%s)", t, op, globs_text(a, s->v, s->n));
    out->nmodels++;
    return out->models_text ? GP_OK : GP_ENOMEM;
}

static gp_status warn(gp_gpu_affinity *out, const char *w)
{
    if (w == NULL)
        return GP_ENOMEM;
    if (out->nwarnings < GP_GPU_AFFINITY_MAX_WARNINGS)
        out->warnings[out->nwarnings++] = w;
    return GP_OK;
}

/* One allow list (who: "class X gpuModels" or "annotation ..."): In the models it names. */
static gp_status allow(gp_arena *a, gp_gpu_affinity *out, const char *const *g, size_t n,
                       const char *who, const gp_cluster *view, const gp_policy *pol)
{
    valset s = { .n = 0 };
    gp_status st = GP_OK;

    if (n == 0)
        return GP_OK;
    for (size_t i = 0; i < n; i++)
        expand(&s, g[i], view, pol);
    if (s.n == 0) {
        st = warn(out, gp_arena_printf(a,
                                       "%s (%s) names no GPU model known to the cluster: "
                                       "the pod stays Pending until one is listed exactly",
                                       who, globs_text(a, g, n)));
        valset_add(&s, GP_GPU_AFFINITY_NO_MODEL);
    }
    return st == GP_OK ? add_req(a, out, "In", &s) : st;
}

static gp_status deny(gp_arena *a, gp_gpu_affinity *out, const char *const *g, size_t n,
                      const gp_cluster *view, const gp_policy *pol)
{
    valset s = { .n = 0 };

    for (size_t i = 0; i < n; i++)
        expand(&s, g[i], view, pol);
    return s.n > 0 ? add_req(a, out, "NotIn", &s) : GP_OK;
}

/* Who restricts the models: the class, the annotation or both. */
static const char *models_from(const gp_demand *d, const gp_class *cls, gp_arena *a)
{
    size_t ca = cls ? cls->ngpu_models : 0, cd = cls ? cls->nexclude_gpu_models : 0;
    bool by_cls = ca + cd > 0, by_ann = d->nallow > ca || d->ndeny > cd;

    if (!by_cls)
        return "annotation " GP_ANN_GPU_MODELS;
    return gp_arena_printf(a, by_ann ? "class %s and annotation " GP_ANN_GPU_MODELS : "class %s",
                           cls->name);
}

static gp_status models(const gp_demand *d, const gp_class *cls, const gp_cluster *view,
                        const gp_policy *pol, gp_arena *a, gp_gpu_affinity *out)
{
    size_t ncls = cls ? cls->ngpu_models : 0;
    const char *by_cls = cls ? gp_arena_printf(a, "class %s gpuModels", cls->name) : "";
    gp_status st;

    out->models = gp_arena_alloc(a, 3 * sizeof(gp_selector_req));
    if (out->models == NULL || by_cls == NULL)
        return GP_ENOMEM;
    st = allow(a, out, d->allow_models, ncls, by_cls, view, pol);
    if (st == GP_OK)
        st = allow(a, out, d->allow_models + ncls, d->nallow - ncls,
                   "annotation " GP_ANN_GPU_MODELS, view, pol);
    if (st == GP_OK)
        st = deny(a, out, d->deny_models, d->ndeny, view, pol);
    if (st != GP_OK || out->nmodels == 0)
        return st;
    out->models_from = models_from(d, cls, a);
    return out->models_from ? GP_OK : GP_ENOMEM;
}

gp_status gp_gpu_affinity_of(const gp_pod *pod, const gp_policy *pol, const gp_class *cls,
                             const gp_cluster *view, gp_arena *a, gp_gpu_affinity *out, gp_err *err)
{
    gp_demand d;
    gp_status st;

    memset(out, 0, sizeof(*out));
    if ((cls == NULL || cls->ngpu_models + cls->nexclude_gpu_models == 0) &&
        gp_pod_annotation(pod, GP_ANN_GPU_MODELS) == NULL)
        return GP_OK; /* no model constraint to state (most pods): the demand is not needed */
    st = gp_demand_for_class(pod, pol, cls, a, &d, err);
    if (st != GP_OK || d.never_filter || !d.gpu)
        return st;
    return models(&d, cls, view, pol, a, out);
}
