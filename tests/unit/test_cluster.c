/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/cluster.c: the MIG profiles a NodeList offers (allocatable > 0 only, unique,
 * sorted, non-MIG resources ignored), the PriorityClass list, error messages for input that is
 * not a `kubectl get -o json` list, lookups, the name limit and reference counting.
 *
 * JSON is written with single quotes; q() turns it into JSON. Every test ends with a leak check
 * when built with AddressSanitizer (a reference-counting mistake shows up as a leak or a
 * use-after-free). */
#include "gptest.h"

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gpupack/cluster.h"


/* A malloc'd copy of text with every single quote turned into a double quote. */
static char *q(const char *text)
{
    char *s = strdup(text);

    for (char *c = s; *c; c++)
        if (*c == '\'')
            *c = '"';
    return s;
}

static gp_status set_nodes(gp_cluster *c, const char *text, gp_err *err)
{
    char *s = q(text);
    gp_status st = gp_cluster_set_nodes_json(c, s, strlen(s), err);

    free(s);
    return st;
}

static gp_status set_pcs(gp_cluster *c, const char *text, gp_err *err)
{
    char *s = q(text);
    gp_status st = gp_cluster_set_priority_classes_json(c, s, strlen(s), err);

    free(s);
    return st;
}

/* The names joined by ",". */
static const char *joined(char **names, size_t n)
{
    static char buf[1024];

    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? "," : "", names[i]);
    return buf;
}

#define NODE(alloc) "{'metadata':{'name':'n'},'status':{'allocatable':" alloc "}}"

/* --- nodes --------------------------------------------------------------------------------- */

/* True when the view lists profile among the MIG profiles some node offers. */
static bool offers(const gp_cluster *c, const char *profile)
{
    for (size_t i = 0; c != NULL && i < c->nmig_profiles; i++)
        if (strcmp(c->mig_profiles[i], profile) == 0)
            return true;
    return false;
}

GP_TEST(new_view_knows_nothing)
{
    gp_cluster *c = gp_cluster_new();

    GP_CHECK(c != NULL);
    if (c == NULL)
        return;
    GP_CHECK_INT(atomic_load(&c->refs), 1);
    GP_CHECK(!c->has_nodes);
    GP_CHECK(!c->has_priority_classes);
    GP_CHECK_INT(c->nmig_profiles, 0);
    GP_CHECK_INT(c->npriority_classes, 0);
    GP_CHECK(!offers(c, "1g.10gb"));
    GP_CHECK(!gp_cluster_has_priority_class(c, "gpu-inference"));
    gp_cluster_unref(c);
}

GP_TEST(nodes_profiles_positive_unique_sorted)
{
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    GP_CHECK_INT(set_nodes(c, "{'kind':'NodeList','items':["
                              NODE("{'cpu':'64','nvidia.com/gpu':'8',"
                                   "'nvidia.com/mig-3g.40gb':'2','nvidia.com/mig-1g.10gb':'0'}") ","
                              NODE("{'nvidia.com/mig-1g.10gb':'7','nvidia.com/mig-3g.40gb':'1',"
                                   "'nvidia.com/mig-2g.20gb':'500m'}") ","
                              "{'metadata':{'name':'no-status'}},"
                              "{'status':{}},"
                              NODE("{'nvidia.com/mig-7g.80gb':'0'}") "]}",
                          &err),
                 GP_OK);
    GP_CHECK(c->has_nodes);
    GP_CHECK_STR(joined(c->mig_profiles, c->nmig_profiles), "1g.10gb,2g.20gb,3g.40gb");
    GP_CHECK(offers(c, "1g.10gb"));
    GP_CHECK(offers(c, "2g.20gb"));
    GP_CHECK(offers(c, "3g.40gb"));
    GP_CHECK(!offers(c, "7g.80gb")); /* allocatable 0 everywhere */
    GP_CHECK(!offers(c, "gpu"));
    GP_CHECK(!offers(c, "nvidia.com/mig-1g.10gb"));
    GP_CHECK(!offers(c, ""));
    gp_cluster_unref(c);
}

GP_TEST(nodes_ignore_non_mig_and_bad_values)
{
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    GP_CHECK_INT(set_nodes(c, "{'items':[" NODE("{'nvidia.com/gpu':'8','amd.com/gpu':'1',"
                                                "'nvidia.com/mig-':'1','nvidia.com/mig-a':2,"
                                                "'nvidia.com/mig-b':'lots','nvidia.com/mig-c':'-1',"
                                                "'nvidia.com/mig-d':null,"
                                                "'example.com/nvidia.com/mig-e':'1',"
                                                "'nvidia.com/MIG-f':'1',"
                                                "'nvidia.com/mig-1g.5gb+me':'1'}") "]}",
                          &err),
                 GP_OK);
    GP_CHECK(c->has_nodes);
    GP_CHECK_STR(joined(c->mig_profiles, c->nmig_profiles), "1g.5gb+me");
    gp_cluster_unref(c);
}

GP_TEST(nodes_missing_items_is_an_error)
{
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    GP_CHECK_INT(set_nodes(c, "{'kind':'NodeList'}", &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "node list has no \"items\" array (expected `kubectl get ... -o json`)");
    GP_CHECK(!c->has_nodes);
    GP_CHECK_INT(set_nodes(c, "{'items':{}}", &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "node list has no \"items\" array (expected `kubectl get ... -o json`)");
    GP_CHECK_INT(set_nodes(c, "[]", &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "node list has no \"items\" array (expected `kubectl get ... -o json`)");
    GP_CHECK(!c->has_nodes);
    gp_cluster_unref(c);
}

GP_TEST(nodes_invalid_json_is_an_error)
{
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    GP_CHECK_INT(set_nodes(c, "{'items':[", &err), GP_EINVAL);
    GP_CHECK(strncmp(err.msg, "node list is not valid JSON (near byte ", 39) == 0);
    GP_CHECK_INT(set_nodes(c, "", &err), GP_EINVAL);
    GP_CHECK(strncmp(err.msg, "node list is not valid JSON (near byte ", 39) == 0);
    GP_CHECK(!c->has_nodes);
    GP_CHECK_INT(c->nmig_profiles, 0);
    gp_cluster_unref(c);
}

GP_TEST(nodes_only_len_bytes_are_read)
{
    static const char text[] = "{\"items\":[]}GARBAGE";
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_cluster_set_nodes_json(c, text, 12, &err), GP_OK);
    GP_CHECK(c->has_nodes);
    GP_CHECK_INT(c->nmig_profiles, 0);
    gp_cluster_unref(c);
}

GP_TEST(nodes_replaced_on_success_kept_on_failure)
{
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    GP_CHECK_INT(set_nodes(c, "{'items':[" NODE("{'nvidia.com/mig-1g.10gb':'1'}") "]}", &err),
                 GP_OK);
    GP_CHECK_INT(set_nodes(c, "{'items':[" NODE("{'nvidia.com/mig-2g.20gb':'1',"
                                                "'nvidia.com/mig-1g.20gb':'3'}") "]}",
                           &err),
                 GP_OK);
    GP_CHECK_STR(joined(c->mig_profiles, c->nmig_profiles), "1g.20gb,2g.20gb");
    GP_CHECK(!offers(c, "1g.10gb"));
    GP_CHECK_INT(set_nodes(c, "not json", &err), GP_EINVAL);
    GP_CHECK(c->has_nodes);
    GP_CHECK_STR(joined(c->mig_profiles, c->nmig_profiles), "1g.20gb,2g.20gb");
    gp_cluster_unref(c);
}

GP_TEST(nodes_too_large)
{
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    /* The length is checked before the bytes are read. */
    GP_CHECK_INT(gp_cluster_set_nodes_json(c, "{}", (size_t)GP_CLUSTER_MAX_BYTES + 1, &err),
                 GP_ETOOBIG);
    GP_CHECK_STR(err.msg, "node list larger than 268435456 bytes");
    GP_CHECK(!c->has_nodes);
    gp_cluster_unref(c);
}

/* An empty list is known and empty (has_nodes / has_priority_classes true, no names). Under
 * -fsanitize=undefined this also guards against qsort(NULL, 0, ...) (regression: both setters
 * used to call it for a list without names). */
GP_TEST(empty_lists_are_known_and_empty)
{
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    GP_CHECK_INT(set_nodes(c, "{'items':[]}", &err), GP_OK);
    GP_CHECK(c->has_nodes);
    GP_CHECK_INT(c->nmig_profiles, 0);
    GP_CHECK(!offers(c, "1g.10gb"));
    GP_CHECK_INT(set_pcs(c, "{'items':[]}", &err), GP_OK);
    GP_CHECK(c->has_priority_classes);
    GP_CHECK_INT(c->npriority_classes, 0);
    GP_CHECK(!gp_cluster_has_priority_class(c, "gpu-inference"));
    gp_cluster_unref(c);
}

/* The nodes offering MIG profiles are kept with their name, labels (string values, sorted by
 * key) and profiles; the others are not kept. */
GP_TEST(nodes_kept_with_labels)
{
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    GP_CHECK_INT(set_nodes(c, "{'items':["
                              "{'metadata':{'name':'a','labels':{'zone':'z1','pool':'a100','n':5}},"
                              "'status':{'allocatable':{'nvidia.com/mig-2g.20gb':'1',"
                              "'nvidia.com/mig-1g.10gb':'3'}}},"
                              "{'metadata':{'name':'cpu','labels':{'x':'y'}},"
                              "'status':{'allocatable':{'cpu':'8'}}},"
                              "{'status':{'allocatable':{'nvidia.com/mig-3g.40gb':'1'}}}]}",
                          &err),
                 GP_OK);
    GP_CHECK_INT(c->nnodes, 2);
    if (c->nnodes == 2) {
        const gp_cluster_node *a = &c->nodes[0], *b = &c->nodes[1];

        GP_CHECK_STR(a->name, "a");
        GP_CHECK_INT(a->nlabels, 2);
        if (a->nlabels == 2) {
            GP_CHECK_STR(a->labels[0].key, "pool");
            GP_CHECK_STR(a->labels[0].value, "a100");
            GP_CHECK_STR(a->labels[1].key, "zone");
        }
        GP_CHECK_STR(joined(a->profiles, a->nprofiles), "1g.10gb,2g.20gb");
        /* The allocatable instances, in the sorted profiles' order. */
        GP_CHECK_INT(a->counts[0], 3);
        GP_CHECK_INT(a->counts[1], 1);
        GP_CHECK_STR(b->name, "");
        GP_CHECK_INT(b->nlabels, 0);
        GP_CHECK_STR(joined(b->profiles, b->nprofiles), "3g.40gb");
    }
    GP_CHECK_STR(joined(c->mig_profiles, c->nmig_profiles), "1g.10gb,2g.20gb,3g.40gb");
    gp_cluster_unref(c);
}

GP_TEST(nodes_label_limit)
{
    size_t cap = 64 + (GP_CLUSTER_MAX_NODE_LABELS + 1) * 24;
    char *s = malloc(cap);
    size_t o = (size_t)snprintf(s, cap, "{\"items\":[{\"metadata\":{\"name\":\"big\","
                                           "\"labels\":{");
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    for (size_t i = 0; i <= GP_CLUSTER_MAX_NODE_LABELS; i++)
        o += (size_t)snprintf(s + o, cap - o, "%s\"l%zu\":\"v\"", i ? "," : "", i);
    snprintf(s + o, cap - o, "}},\"status\":{\"allocatable\":{\"nvidia.com/mig-1g.10gb\":"
                             "\"1\"}}}]}");
    GP_CHECK_INT(gp_cluster_set_nodes_json(c, s, strlen(s), &err), GP_ETOOBIG);
    GP_CHECK_STR(err.msg, "node big: more than 1024 labels");
    GP_CHECK(!c->has_nodes);
    GP_CHECK_INT(c->nnodes, 0);
    free(s);
    gp_cluster_unref(c);
}

/* --- priority classes ---------------------------------------------------------------------- */

GP_TEST(priority_classes_list)
{
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    GP_CHECK_INT(set_pcs(c, "{'apiVersion':'v1','kind':'List','items':["
                            "{'metadata':{'name':'gpu-training'},'value':100},"
                            "{'metadata':{'name':'gpu-inference'},'value':1000},"
                            "{'metadata':{'name':'system-node-critical'}},"
                            "{'metadata':{'name':'gpu-inference'}},"
                            "{'metadata':{'name':5}},{'metadata':{}},{},'junk']}",
                        &err),
                 GP_OK);
    GP_CHECK(c->has_priority_classes);
    GP_CHECK(!c->has_nodes);
    GP_CHECK_STR(joined(c->priority_classes, c->npriority_classes),
                 "gpu-inference,gpu-training,system-node-critical");
    GP_CHECK(gp_cluster_has_priority_class(c, "gpu-inference"));
    GP_CHECK(gp_cluster_has_priority_class(c, "gpu-training"));
    GP_CHECK(gp_cluster_has_priority_class(c, "system-node-critical"));
    GP_CHECK(!gp_cluster_has_priority_class(c, "gpu-interactive"));
    GP_CHECK(!gp_cluster_has_priority_class(c, "gpu-inferenc"));
    GP_CHECK(!gp_cluster_has_priority_class(c, "GPU-INFERENCE"));
    gp_cluster_unref(c);
}

GP_TEST(priority_classes_errors)
{
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    GP_CHECK_INT(set_pcs(c, "{'kind':'PriorityClassList'}", &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "PriorityClass list has no \"items\" array (expected `kubectl get ... "
                          "-o json`)");
    GP_CHECK_INT(set_pcs(c, "{'items':[}", &err), GP_EINVAL);
    GP_CHECK(strncmp(err.msg, "PriorityClass list is not valid JSON (near byte ", 48) == 0);
    GP_CHECK(!c->has_priority_classes);
    gp_cluster_unref(c);
}

GP_TEST(priority_classes_name_limit)
{
    size_t n = GP_CLUSTER_MAX_NAMES + 1, cap = 32 + n * 40;
    char *s = malloc(cap);
    size_t o = (size_t)snprintf(s, cap, "{\"items\":[");
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(s + o, cap - o, "%s{\"metadata\":{\"name\":\"pc-%zu\"}}",
                              i ? "," : "", i);
    snprintf(s + o, cap - o, "]}");
    GP_CHECK_INT(gp_cluster_set_priority_classes_json(c, s, strlen(s), &err), GP_ETOOBIG);
    GP_CHECK_STR(err.msg, "more than 4096 distinct names");
    GP_CHECK(!c->has_priority_classes);
    GP_CHECK_INT(c->npriority_classes, 0);
    free(s);
    gp_cluster_unref(c);
}

/* The globalDefault PriorityClass: the one the Priority admission plugin gives pods that name
 * none; with several (a race can make more than one), the lowest value, as the plugin picks. */
GP_TEST(priority_classes_global_default)
{
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    GP_CHECK(gp_cluster_global_default(c) == NULL); /* unknown */
    GP_CHECK_INT(set_pcs(c, "{'items':[{'metadata':{'name':'a'},'value':10},"
                            "{'metadata':{'name':'b'},'value':5,'globalDefault':false}]}", &err),
                 GP_OK);
    GP_CHECK(gp_cluster_global_default(c) == NULL); /* none is */
    GP_CHECK_INT(set_pcs(c, "{'items':[{'metadata':{'name':'high'},'value':1000,"
                            "'globalDefault':true},{'metadata':{'name':'low'},'value':10,"
                            "'globalDefault':true},{'metadata':{'name':'tie'},'value':10,"
                            "'globalDefault':true},{'metadata':{'name':'x'},'value':1}]}", &err),
                 GP_OK);
    GP_CHECK_STR(gp_cluster_global_default(c), "low");
    GP_CHECK(gp_cluster_has_priority_class(c, "high"));
    /* A failed reload keeps it; a successful one without any drops it. */
    GP_CHECK_INT(set_pcs(c, "nope", &err), GP_EINVAL);
    GP_CHECK_STR(gp_cluster_global_default(c), "low");
    GP_CHECK_INT(set_pcs(c, "{'items':[{'metadata':{'name':'low'},'value':10}]}", &err), GP_OK);
    GP_CHECK(gp_cluster_global_default(c) == NULL);
    GP_CHECK(gp_cluster_global_default(NULL) == NULL);
    gp_cluster_unref(c);
}

/* --- the live view -------------------------------------------------------------------------- */

typedef struct {
    int published;
    gp_cluster *last;
} sink;

static void sink_publish(void *ctx, gp_cluster *view)
{
    sink *k = ctx;

    k->published++;
    gp_cluster_unref(k->last);
    k->last = view;
}

static void live_event(gp_cluster_live *l, bool pc, const char *type, const char *text)
{
    char *s = q(text);
    cJSON *o = cJSON_Parse(s);

    if (pc)
        gp_cluster_live_pc(l, type, o);
    else
        gp_cluster_live_node(l, type, o);
    cJSON_Delete(o);
    free(s);
}

/* A PriorityClass becoming (or ceasing to be) the global default publishes a new view; an update
 * that changes neither the flag nor the value does not. */
GP_TEST(live_priority_classes_global_default)
{
    sink k = { 0 };
    gp_cluster_live *l = gp_cluster_live_new(sink_publish, &k);

    gp_cluster_live_pcs_begin(l);
    live_event(l, true, NULL, "{'metadata':{'name':'gpu-training'},'value':50000}");
    live_event(l, true, NULL, "{'metadata':{'name':'default-low'},'value':0,'globalDefault':true}");
    gp_cluster_live_pcs_end(l);
    GP_CHECK_INT(k.published, 1);
    GP_CHECK_STR(gp_cluster_global_default(k.last), "default-low");
    live_event(l, true, "MODIFIED", "{'metadata':{'name':'default-low','resourceVersion':'9'},"
                                    "'value':0,'globalDefault':true,'description':'x'}");
    GP_CHECK_INT(k.published, 1);
    live_event(l, true, "MODIFIED", "{'metadata':{'name':'default-low'},'value':0}");
    GP_CHECK_INT(k.published, 2);
    GP_CHECK(gp_cluster_global_default(k.last) == NULL);
    live_event(l, true, "ADDED", "{'metadata':{'name':'other'},'value':7,'globalDefault':true}");
    GP_CHECK_INT(k.published, 3);
    GP_CHECK_STR(gp_cluster_global_default(k.last), "other");
    live_event(l, true, "DELETED", "{'metadata':{'name':'other'}}");
    GP_CHECK_INT(k.published, 4);
    GP_CHECK(gp_cluster_global_default(k.last) == NULL);
    gp_cluster_live_free(l);
    gp_cluster_unref(k.last);
}

#define LNODE(name, labels, alloc) "{'metadata':{'name':'" name "','resourceVersion':'1'," \
                                   "'labels':{" labels "}},'status':{'allocatable':{" alloc "}}}"

/* The live view rebuilds when a MIG node's labels or profiles change, not on heartbeats, and not
 * when a node without MIG profiles is relabelled. */
GP_TEST(live_nodes_labels_and_profiles)
{
    sink k = { 0 };
    gp_cluster_live *l = gp_cluster_live_new(sink_publish, &k);

    gp_cluster_live_nodes_begin(l);
    live_event(l, false, NULL, LNODE("a", "'pool':'a100'", "'nvidia.com/mig-1g.10gb':'7'"));
    live_event(l, false, NULL, LNODE("cpu", "'x':'1'", "'cpu':'8'"));
    gp_cluster_live_nodes_end(l);
    GP_CHECK_INT(k.published, 1);
    GP_CHECK(k.last != NULL && k.last->has_nodes && k.last->nnodes == 1);
    if (k.last != NULL && k.last->nnodes == 1) {
        GP_CHECK_STR(k.last->nodes[0].name, "a");
        GP_CHECK_INT(k.last->nodes[0].nlabels, 1);
    }
    /* A heartbeat: new resourceVersion and conditions, same labels and profiles. */
    live_event(l, false, "MODIFIED", "{'metadata':{'name':'a','resourceVersion':'2','labels':{"
                                     "'pool':'a100'}},'status':{'conditions':[{'type':'Ready'}],"
                                     "'allocatable':{'nvidia.com/mig-1g.10gb':'7'}}}");
    GP_CHECK_INT(k.published, 1);
    /* The non-MIG node relabelled: nothing the view shows. */
    live_event(l, false, "MODIFIED", LNODE("cpu", "'x':'2'", "'cpu':'8'"));
    GP_CHECK_INT(k.published, 1);
    /* The MIG node relabelled. */
    live_event(l, false, "MODIFIED", LNODE("a", "'pool':'h100'", "'nvidia.com/mig-1g.10gb':'7'"));
    GP_CHECK_INT(k.published, 2);
    if (k.last != NULL && k.last->nnodes == 1 && k.last->nodes[0].nlabels == 1)
        GP_CHECK_STR(k.last->nodes[0].labels[0].value, "h100");
    /* Its profiles change. */
    live_event(l, false, "MODIFIED", LNODE("a", "'pool':'h100'", "'nvidia.com/mig-3g.40gb':'2'"));
    GP_CHECK_INT(k.published, 3);
    if (k.last != NULL && k.last->nnodes == 1) {
        GP_CHECK_STR(joined(k.last->nodes[0].profiles, k.last->nodes[0].nprofiles), "3g.40gb");
        GP_CHECK_INT(k.last->nodes[0].counts[0], 2);
    }
    /* The number of instances changes (a MIG reconfiguration): the view follows. */
    live_event(l, false, "MODIFIED", LNODE("a", "'pool':'h100'", "'nvidia.com/mig-3g.40gb':'1'"));
    GP_CHECK_INT(k.published, 4);
    if (k.last != NULL && k.last->nnodes == 1)
        GP_CHECK_INT(k.last->nodes[0].counts[0], 1);
    /* The CPU node sliced: now it counts. */
    live_event(l, false, "MODIFIED", LNODE("cpu", "'x':'2'", "'nvidia.com/mig-1g.10gb':'1'"));
    GP_CHECK_INT(k.published, 5);
    GP_CHECK(k.last != NULL && k.last->nnodes == 2);
    live_event(l, false, "DELETED", LNODE("a", "", ""));
    GP_CHECK_INT(k.published, 6);
    GP_CHECK(k.last != NULL && k.last->nnodes == 1);
    gp_cluster_live_free(l);
    gp_cluster_unref(k.last);
}

#define GPU_NODE(name, product)                                                                    \
    LNODE(name, "'nvidia.com/gpu.product':'" product "'", "'nvidia.com/gpu':'8'")

/* Every node's GPU product is in the view (for the webhook's GPU model affinity): a product
 * appearing, changing or going publishes; heartbeats do not. */
GP_TEST(live_nodes_gpu_products)
{
    sink k = { 0 };
    gp_cluster_live *l = gp_cluster_live_new(sink_publish, &k);

    gp_cluster_live_nodes_begin(l);
    live_event(l, false, NULL, GPU_NODE("g1", "NVIDIA-L4"));
    live_event(l, false, NULL, GPU_NODE("g2", "NVIDIA-A100-SXM4-80GB"));
    live_event(l, false, NULL, GPU_NODE("g3", "NVIDIA-L4"));
    live_event(l, false, NULL, LNODE("cpu", "'x':'1'", "'cpu':'8'"));
    gp_cluster_live_nodes_end(l);
    GP_CHECK_INT(k.published, 1);
    if (k.last != NULL)
        GP_CHECK_STR(joined(k.last->gpu_products, k.last->ngpu_products),
                     "NVIDIA-A100-SXM4-80GB,NVIDIA-L4");
    live_event(l, false, "MODIFIED", GPU_NODE("g1", "NVIDIA-L4"));
    GP_CHECK_INT(k.published, 1);
    live_event(l, false, "MODIFIED", GPU_NODE("g1", "NVIDIA-H100-80GB-HBM3"));
    GP_CHECK_INT(k.published, 2);
    if (k.last != NULL)
        GP_CHECK_STR(joined(k.last->gpu_products, k.last->ngpu_products),
                     "NVIDIA-A100-SXM4-80GB,NVIDIA-H100-80GB-HBM3,NVIDIA-L4");
    live_event(l, false, "DELETED", GPU_NODE("g2", "NVIDIA-A100-SXM4-80GB"));
    GP_CHECK_INT(k.published, 3);
    if (k.last != NULL)
        GP_CHECK_STR(joined(k.last->gpu_products, k.last->ngpu_products),
                     "NVIDIA-H100-80GB-HBM3,NVIDIA-L4");
    /* The label removed. */
    live_event(l, false, "MODIFIED", LNODE("g3", "'x':'1'", "'nvidia.com/gpu':'8'"));
    GP_CHECK_INT(k.published, 4);
    if (k.last != NULL)
        GP_CHECK_STR(joined(k.last->gpu_products, k.last->ngpu_products), "NVIDIA-H100-80GB-HBM3");
    live_event(l, false, "DELETED", LNODE("cpu", "", ""));
    GP_CHECK_INT(k.published, 4);
    gp_cluster_live_free(l);
    gp_cluster_unref(k.last);
}

/* --- lookups and references ---------------------------------------------------------------- */

GP_TEST(lookups_on_null_view)
{
    GP_CHECK(!offers(NULL, "1g.10gb"));
    GP_CHECK(!gp_cluster_has_priority_class(NULL, "gpu-inference"));
    GP_CHECK(gp_cluster_ref(NULL) == NULL);
    gp_cluster_unref(NULL); /* harmless */
}

GP_TEST(refcount)
{
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    GP_CHECK_INT(set_nodes(c, "{'items':[" NODE("{'nvidia.com/mig-1g.10gb':'1'}") "]}", &err),
                 GP_OK);
    GP_CHECK(gp_cluster_ref(c) == c);
    GP_CHECK_INT(atomic_load(&c->refs), 2);
    GP_CHECK(gp_cluster_ref(c) == c);
    GP_CHECK_INT(atomic_load(&c->refs), 3);
    gp_cluster_unref(c);
    gp_cluster_unref(c);
    GP_CHECK_INT(atomic_load(&c->refs), 1);
    /* Still alive and usable with one reference left. */
    GP_CHECK(offers(c, "1g.10gb"));
    gp_cluster_unref(c); /* frees; a leak or a double free would fail under ASan */
}

GP_MAIN(GP_CASE(new_view_knows_nothing), GP_CASE(nodes_profiles_positive_unique_sorted),
        GP_CASE(nodes_ignore_non_mig_and_bad_values), GP_CASE(nodes_missing_items_is_an_error),
        GP_CASE(nodes_invalid_json_is_an_error), GP_CASE(nodes_only_len_bytes_are_read),
        GP_CASE(nodes_replaced_on_success_kept_on_failure), GP_CASE(nodes_too_large),
        GP_CASE(empty_lists_are_known_and_empty), GP_CASE(nodes_kept_with_labels),
        GP_CASE(nodes_label_limit), GP_CASE(live_nodes_labels_and_profiles),
        GP_CASE(live_nodes_gpu_products), GP_CASE(priority_classes_list),
        GP_CASE(priority_classes_errors), GP_CASE(priority_classes_name_limit),
        GP_CASE(priority_classes_global_default), GP_CASE(live_priority_classes_global_default),
        GP_CASE(lookups_on_null_view), GP_CASE(refcount))
