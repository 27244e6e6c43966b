/* SPDX-License-Identifier: Apache-2.0 */
/* The extender's live cluster view (see cache.h). */
#include "gpupack/cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpupack/arena.h"
#include "gpupack/grow.h"
#include "gpupack/k8s.h"
#include "gpupack/nodematch.h"
#include "gpupack/podview.h"

#define NO_NODE UINT32_MAX
#define MAX_PROFILES 256

/* One pod: 40 bytes. MIG usage lives out of line (mig_use): most pods have none, and a pod may
 * use up to GP_USAGE_MAX_MIG profiles, which inline would cost every record 24 bytes. */
typedef struct {
    uint8_t key[16];
    uint32_t node;      /* node id, NO_NODE when not bound or terminated */
    uint32_t gen;       /* list generation that last saw it */
    uint32_t cpu_m;
    uint32_t mem_kib;
    uint16_t gpu;
    uint8_t mig_ref[3]; /* 1 + index into the cache's mig_uses (24 bits, little end first);
                           0: no MIG usage */
    uint8_t used;       /* 0 empty slot, 1 live, 2 tombstone */
    uint8_t flags;      /* REC_* */
    uint8_t cons;       /* GPU model constraint (cons_entry id), 0: none */
} pod_rec;

#define REC_DAEMONSET 1u /* owned by a DaemonSet: not part of the workload mix */
#define REC_CPU_SHAPE 2u /* counted as a CPU-only shape of the mix (bound next to whole GPUs) */
_Static_assert(sizeof(pod_rec) == 40, "a cached pod takes 40 bytes");

/* A pod's MIG slices: profile ids (into the cache's profiles) and counts; n 0: a free entry,
 * next_free then links the free list. */
#define MAX_MIG_USES ((UINT32_C(1) << 24) - 1) /* what a 24-bit mig_ref can name */
_Static_assert(GP_CACHE_MAX_PODS <= MAX_MIG_USES, "every pod can have a mig_use");
typedef struct {
    uint8_t n;
    uint8_t id[GP_USAGE_MAX_MIG];
    uint16_t count[GP_USAGE_MAX_MIG];
    uint32_t next_free; /* 1 + index of the next free entry, 0: none */
} mig_use;
_Static_assert(sizeof(mig_use) == 32, "a pod's MIG usage takes 32 bytes (docs/extender.md)");

typedef struct {
    gp_node node;   /* decoded allocatable and labels; used counters unused */
    gp_node load;   /* what bound pods use: used counters and MIG entries (alloc 0) only */
    uint32_t gen;
    bool present;   /* the Node exists (slots stay for pods that name a deleted node) */
    int8_t model;   /* id of its nvidia.com/gpu.product in the cache's models, -1: none */
} node_slot;

/* A GPU model constraint of pods (class label, gpupack.io/gpu-models annotation, the
 * nvidia.com/gpu.product values of nodeSelector and required node affinity), as a key, and the
 * whole GPUs the bound pods holding it use: what the model pressure is learned from. */
#define MODEL_NAME_MAX 63         /* a label value's longest */
#define MAX_CONS 256            /* ids 1..255; more distinct constraints count as none */
#define CONS_KEY_MAX 2048
#define CONS_SEP '\x1f'         /* between the key's three parts */
#define CONS_VAL_SEP '\x1e'     /* between product values */
typedef struct {
    char *key;      /* NULL: free */
    uint32_t refs;  /* pod records holding it */
    int64_t gpus;   /* whole GPUs of the bound ones */
} cons_entry;

typedef struct {
    uint8_t key[16];
    uint32_t node;
    gp_usage usage;
    int64_t expires_ms;
} assumption;


struct gp_cache {
    pthread_rwlock_t lock;
    gp_policy_holder *policy;
    node_slot *nodes;       /* by id */
    size_t nnodes, cap_nodes;
    uint32_t *node_index;   /* open addressing over node names: id + 1, 0 empty */
    size_t index_cap;
    pod_rec *pods;          /* open addressing over uid keys */
    size_t pods_cap, pods_live, pods_tomb;
    char profiles[MAX_PROFILES][GP_MIG_NAME_MAX];
    size_t nprofiles;
    mig_use *mig_uses;      /* the pods' MIG usage, by pod_rec.mig_ref - 1 */
    size_t nmig_uses, cap_mig_uses;
    uint32_t mig_free;      /* 1 + index of the first free entry, 0: none */
    assumption *assumed;    /* grown on demand up to GP_CACHE_MAX_ASSUMED */
    size_t nassumed, cap_assumed;
    gp_relist node_list, pod_list;
    size_t bound;
    uint64_t bad;
    int64_t sum_gpu, sum_cpu_m, sum_mem; /* over bound GPU pods, for the typical pod */
    gp_frag_shape shape_slots[GP_CACHE_MAX_SHAPES];
    gp_frag_tally shapes; /* bound whole-GPU pods by (GPUs, CPU): the learned workload mix */
    char models[GP_FRAG_MAX_MODELS][MODEL_NAME_MAX + 1]; /* nodes' gpu.product values */
    int nmodels;
    cons_entry cons[MAX_CONS];
    /* The model pressure is recomputed only when what it is learned from changes (bound GPU
     * pods, nodes: pressure_gen, under the write lock) or the policy does; readers share the
     * last result under memo_lock. */
    uint64_t pressure_gen;
    pthread_mutex_t memo_lock;
    struct {
        bool valid, some;
        uint64_t gen;
        gp_policy *pol;  /* referenced: its address cannot come back as another policy */
        int nm;
        double out[GP_FRAG_MAX_MODELS];
    } memo;
};

/* ---- keys and hashing ---- */

static uint64_t fnv1a(const char *s, uint64_t h)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* A UUID's 16 bytes; anything else is hashed into 16 bytes. */
static void uid_key(const char *uid, uint8_t key[16])
{
    size_t n = 0;
    const char *p = uid;

    for (; *p && n < 32; p++) {
        int v = hexval(*p);

        if (*p == '-')
            continue;
        if (v < 0)
            break;
        key[n / 2] = (uint8_t)(n % 2 ? (key[n / 2] | v) : (v << 4));
        n++;
    }
    if (n == 32 && *p == '\0')
        return;
    uint64_t a = fnv1a(uid, 14695981039346656037ULL), b = fnv1a(uid, 0x9e3779b97f4a7c15ULL);

    memcpy(key, &a, 8);
    memcpy(key + 8, &b, 8);
    /* A collision with a real UUID is as unlikely as any 128-bit hash collision. */
}

/* The key of a pod without metadata.uid (a hand-written snapshot): a hash of namespace and name
 * whose variant bits (byte 8: 111) are those RFC 4122 reserves, so it never equals the key of a
 * real uid, which kube-apiserver makes an RFC 4122 UUID (variant 10); against a uid that is not
 * a UUID (hashed by uid_key()) a clash is as unlikely as any 125-bit hash collision. */
static void name_key(const char *ns, const char *name, uint8_t key[16])
{
    uint64_t a = fnv1a(name, fnv1a("/", fnv1a(ns, 0x84222325cbf29ce4ULL)));
    uint64_t b = fnv1a(name, fnv1a("/", fnv1a(ns, 0x2545f4914f6cdd1dULL)));

    memcpy(key, &a, 8);
    memcpy(key + 8, &b, 8);
    key[8] |= 0xe0;
}

static size_t key_hash(const uint8_t key[16])
{
    uint64_t a, b;

    memcpy(&a, key, 8);
    memcpy(&b, key + 8, 8);
    return (size_t)((a ^ (b * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL);
}

/* ---- node table ---- */

static bool index_grow(gp_cache *c)
{
    size_t ncap = c->index_cap ? c->index_cap * 2 : 1024;
    uint32_t *ni = calloc(ncap, sizeof(*ni));

    if (ni == NULL)
        return false;
    for (size_t id = 0; id < c->nnodes; id++) {
        size_t h = (size_t)fnv1a(c->nodes[id].node.name, 14695981039346656037ULL) & (ncap - 1);

        while (ni[h] != 0)
            h = (h + 1) & (ncap - 1);
        ni[h] = (uint32_t)id + 1;
    }
    free(c->node_index);
    c->node_index = ni;
    c->index_cap = ncap;
    return true;
}

static uint32_t node_find(const gp_cache *c, const char *name)
{
    size_t h;

    if (c->index_cap == 0)
        return NO_NODE;
    h = (size_t)fnv1a(name, 14695981039346656037ULL) & (c->index_cap - 1);
    while (c->node_index[h] != 0) {
        uint32_t id = c->node_index[h] - 1;

        if (strcmp(c->nodes[id].node.name, name) == 0)
            return id;
        h = (h + 1) & (c->index_cap - 1);
    }
    return NO_NODE;
}

/* The id for a node name, creating an absent slot when new. NO_NODE when full. */
static uint32_t node_intern(gp_cache *c, const char *name)
{
    uint32_t id = node_find(c, name);
    node_slot *ns;
    size_t h;

    if (id != NO_NODE)
        return id;
    if (c->nnodes >= GP_CACHE_MAX_NODES || strlen(name) > GP_NODE_NAME_MAX)
        return NO_NODE;
    ns = gp_grow(c->nodes, &c->cap_nodes, c->nnodes + 1, sizeof(*ns));
    if (ns == NULL)
        return NO_NODE;
    c->nodes = ns;
    if ((c->nnodes + 1) * 2 > c->index_cap && !index_grow(c))
        return NO_NODE;
    id = (uint32_t)c->nnodes++;
    memset(&c->nodes[id], 0, sizeof(c->nodes[id]));
    snprintf(c->nodes[id].node.name, sizeof(c->nodes[id].node.name), "%s", name);
    h = (size_t)fnv1a(name, 14695981039346656037ULL) & (c->index_cap - 1);
    while (c->node_index[h] != 0)
        h = (h + 1) & (c->index_cap - 1);
    c->node_index[h] = id + 1;
    return id;
}

static int profile_intern(gp_cache *c, const char *name)
{
    for (size_t i = 0; i < c->nprofiles; i++)
        if (strcmp(c->profiles[i], name) == 0)
            return (int)i;
    if (c->nprofiles == MAX_PROFILES)
        return -1;
    snprintf(c->profiles[c->nprofiles], GP_MIG_NAME_MAX, "%s", name);
    return (int)c->nprofiles++;
}

/* The id of a nvidia.com/gpu.product value, added when new (reusing the id of a model no present
 * node has once 31 are in use); -1 when NULL, too long, or 31 models are on present nodes (such
 * nodes take no part in the model pressure). */
static int8_t model_intern(gp_cache *c, const char *name)
{
    if (name == NULL || strlen(name) > MODEL_NAME_MAX)
        return -1;
    for (int i = 0; i < c->nmodels; i++)
        if (strcmp(c->models[i], name) == 0)
            return (int8_t)i;
    if (c->nmodels < GP_FRAG_MAX_MODELS - 1) { /* one id stays for nodes without the label */
        snprintf(c->models[c->nmodels], sizeof(c->models[0]), "%s", name);
        return (int8_t)c->nmodels++;
    }
    /* Full: reuse the id of a model no present node has any more. */
    bool used[GP_FRAG_MAX_MODELS] = { false };
    for (size_t id = 0; id < c->nnodes; id++)
        if (c->nodes[id].present && c->nodes[id].model >= 0)
            used[c->nodes[id].model] = true;
    for (int i = 0; i < c->nmodels; i++) {
        if (used[i])
            continue;
        for (size_t id = 0; id < c->nnodes; id++) /* absent nodes must not keep the old name */
            if (c->nodes[id].model == i)
                c->nodes[id].model = -1;
        snprintf(c->models[i], sizeof(c->models[0]), "%s", name);
        return (int8_t)i;
    }
    return -1;
}

/* A reference to the constraint key (added when new); 0 for "" or when the table is full. */
static uint8_t cons_acquire(gp_cache *c, const char *key)
{
    int free_id = 0;

    if (key[0] == '\0')
        return 0;
    for (int i = 1; i < MAX_CONS; i++) {
        if (c->cons[i].key == NULL) {
            if (free_id == 0)
                free_id = i;
        } else if (strcmp(c->cons[i].key, key) == 0) {
            c->cons[i].refs++;
            return (uint8_t)i;
        }
    }
    if (free_id == 0 || (c->cons[free_id].key = strdup(key)) == NULL)
        return 0;
    c->cons[free_id].refs = 1;
    c->cons[free_id].gpus = 0;
    return (uint8_t)free_id;
}

static void cons_release(gp_cache *c, uint8_t id)
{
    if (id == 0 || c->cons[id].refs == 0 || --c->cons[id].refs > 0)
        return;
    free(c->cons[id].key);
    c->cons[id].key = NULL;
    c->cons[id].gpus = 0;
}

/* ---- pod table ---- */

static pod_rec *pod_find(gp_cache *c, const uint8_t key[16])
{
    size_t h;

    if (c->pods_cap == 0)
        return NULL;
    h = key_hash(key) & (c->pods_cap - 1);
    while (c->pods[h].used != 0) {
        if (c->pods[h].used == 1 && memcmp(c->pods[h].key, key, 16) == 0)
            return &c->pods[h];
        h = (h + 1) & (c->pods_cap - 1);
    }
    return NULL;
}

static bool pods_rehash(gp_cache *c, size_t ncap)
{
    pod_rec *np = calloc(ncap, sizeof(*np));

    if (np == NULL)
        return false;
    for (size_t i = 0; i < c->pods_cap; i++) {
        size_t h;

        if (c->pods[i].used != 1)
            continue;
        h = key_hash(c->pods[i].key) & (ncap - 1);
        while (np[h].used != 0)
            h = (h + 1) & (ncap - 1);
        np[h] = c->pods[i];
    }
    free(c->pods);
    c->pods = np;
    c->pods_cap = ncap;
    c->pods_tomb = 0;
    return true;
}

static pod_rec *pod_insert(gp_cache *c, const uint8_t key[16])
{
    size_t h;

    if (c->pods_live >= GP_CACHE_MAX_PODS)
        return NULL;
    if ((c->pods_live + c->pods_tomb + 1) * 10 > c->pods_cap * 7) {
        size_t ncap = c->pods_cap ? c->pods_cap : 1024;

        while ((c->pods_live + 1) * 10 > ncap * 5)
            ncap *= 2;
        if (!pods_rehash(c, ncap))
            return NULL;
    }
    h = key_hash(key) & (c->pods_cap - 1);
    while (c->pods[h].used == 1)
        h = (h + 1) & (c->pods_cap - 1);
    if (c->pods[h].used == 2)
        c->pods_tomb--;
    memset(&c->pods[h], 0, sizeof(c->pods[h]));
    memcpy(c->pods[h].key, key, 16);
    c->pods[h].used = 1;
    c->pods[h].node = NO_NODE;
    c->pods_live++;
    return &c->pods[h];
}

/* ---- MIG usage, out of line ---- */

static uint32_t rec_mig_ref(const pod_rec *r)
{
    return (uint32_t)r->mig_ref[0] | (uint32_t)r->mig_ref[1] << 8 | (uint32_t)r->mig_ref[2] << 16;
}

static void rec_set_mig_ref(pod_rec *r, uint32_t ref)
{
    r->mig_ref[0] = (uint8_t)ref;
    r->mig_ref[1] = (uint8_t)(ref >> 8);
    r->mig_ref[2] = (uint8_t)(ref >> 16);
}

/* The record's MIG usage, or NULL when it has none. */
static const mig_use *rec_mig(const gp_cache *c, const pod_rec *r)
{
    uint32_t ref = rec_mig_ref(r);

    return ref != 0 ? &c->mig_uses[ref - 1] : NULL;
}

/* A cleared entry's reference (from the free list, else grown); 0 on allocation failure. */
static uint32_t mig_use_new(gp_cache *c)
{
    uint32_t ref = c->mig_free;

    if (ref != 0) {
        c->mig_free = c->mig_uses[ref - 1].next_free;
    } else {
        if (c->nmig_uses >= MAX_MIG_USES)
            return 0;
        mig_use *nm = gp_grow(c->mig_uses, &c->cap_mig_uses, c->nmig_uses + 1, sizeof(*nm));

        if (nm == NULL)
            return 0;
        c->mig_uses = nm;
        ref = (uint32_t)++c->nmig_uses;
    }
    memset(&c->mig_uses[ref - 1], 0, sizeof(mig_use));
    return ref;
}

/* Gives the record's entry back (when it has one). */
static void rec_mig_release(gp_cache *c, pod_rec *r)
{
    uint32_t ref = rec_mig_ref(r);

    if (ref == 0)
        return;
    c->mig_uses[ref - 1].n = 0;
    c->mig_uses[ref - 1].next_free = c->mig_free;
    c->mig_free = ref;
    rec_set_mig_ref(r, 0);
}

/* ---- usage accounting ---- */

static int64_t nonneg(int64_t v)
{
    return v < 0 ? 0 : v;
}

/* Counts (sign 1) or uncounts (sign -1) a bound pod's shape in the learned mix, when the mix
 * counts it (gp_frag_mix_counts()). A CPU-only record remembers whether it was counted, so
 * removal balances even if the node changed meanwhile. */
static void shape_count(gp_cache *c, pod_rec *r, int sign)
{
    gp_frag_task t = {.cpu_milli = r->cpu_m, .num_gpu = r->gpu,
                      .gpu_milli = r->gpu ? GP_FRAG_MILLI : 0};
    gp_frag_bound b = {.next_to_gpus = sign > 0 ? c->nodes[r->node].node.gpu_alloc > 0
                                                : (r->flags & REC_CPU_SHAPE) != 0,
                       .daemonset = (r->flags & REC_DAEMONSET) != 0,
                       .mig = rec_mig_ref(r) != 0};
    gp_frag_task shape;

    if (!gp_frag_mix_counts(&t, &b, &shape))
        return;
    gp_frag_tally_add(&c->shapes, &shape, sign);
    if (r->gpu == 0)
        r->flags = (uint8_t)(sign > 0 ? r->flags | REC_CPU_SHAPE : r->flags & ~REC_CPU_SHAPE);
}

/* A pod record's usage as gp_node_apply_usage() takes it. */
static void rec_usage(const gp_cache *c, const pod_rec *r, gp_usage *u)
{
    const mig_use *m = rec_mig(c, r);

    memset(u, 0, sizeof(*u));
    u->gpu = r->gpu;
    u->cpu_m = r->cpu_m;
    u->mem = (int64_t)r->mem_kib * 1024;
    for (uint8_t i = 0; m != NULL && i < m->n; i++) {
        memcpy(u->mig_profile[i], c->profiles[m->id[i]], GP_MIG_NAME_MAX);
        u->mig[i] = m->count[i];
    }
    u->nmig = m != NULL ? m->n : 0;
}

/* Adds (sign 1) or removes (sign -1) a pod record's usage on its node. */
static void rec_apply(gp_cache *c, pod_rec *r, int sign)
{
    gp_usage u;

    if (r->node == NO_NODE || r->node >= c->nnodes)
        return;
    rec_usage(c, r, &u);
    gp_node_apply_usage(&c->nodes[r->node].load, &u, sign);
    c->bound = (size_t)nonneg((int64_t)c->bound + sign);
    shape_count(c, r, sign);
    if (r->gpu > 0)
        c->pressure_gen++;
    if (r->gpu > 0 && r->cons != 0)
        c->cons[r->cons].gpus = nonneg(c->cons[r->cons].gpus + sign * (int64_t)r->gpu);
    if (r->gpu > 0) {
        c->sum_gpu = nonneg(c->sum_gpu + sign * (int64_t)r->gpu);
        c->sum_cpu_m = nonneg(c->sum_cpu_m + sign * (int64_t)r->cpu_m);
        c->sum_mem = nonneg(c->sum_mem + sign * (int64_t)r->mem_kib * 1024);
    }
}

static uint32_t sat32(int64_t v)
{
    return v < 0 ? 0 : v > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static uint16_t sat16(int64_t v)
{
    return v < 0 ? 0 : v > UINT16_MAX ? UINT16_MAX : (uint16_t)v;
}

/* The record's MIG usage from u: its entry reused, taken or given back. A pod whose MIG usage
 * finds no room (allocation failure, more than MAX_PROFILES profile names in the cache) still
 * counts its GPUs, CPU and memory; the miss is counted as a skipped object. */
static void rec_set_mig(gp_cache *c, pod_rec *r, const gp_usage *u)
{
    uint32_t ref = rec_mig_ref(r);
    mig_use *m;

    if (u->nmig == 0) {
        rec_mig_release(c, r);
        return;
    }
    if (ref == 0 && (ref = mig_use_new(c)) == 0) {
        c->bad++;
        return;
    }
    rec_set_mig_ref(r, ref);
    m = &c->mig_uses[ref - 1];
    m->n = 0;
    for (uint8_t i = 0; i < u->nmig && i < GP_USAGE_MAX_MIG; i++) {
        int id = profile_intern(c, u->mig_profile[i]);

        if (id < 0) {
            c->bad++;
            continue;
        }
        m->id[m->n] = (uint8_t)id;
        m->count[m->n++] = sat16(u->mig[i]);
    }
    if (m->n == 0)
        rec_mig_release(c, r);
}

static void rec_set_usage(gp_cache *c, pod_rec *r, const gp_usage *u)
{
    r->gpu = sat16(u->gpu);
    r->cpu_m = sat32(u->cpu_m);
    r->mem_kib = sat32((u->mem + 1023) / 1024);
    rec_set_mig(c, r, u);
}

static void assumption_drop(gp_cache *c, const uint8_t key[16])
{
    for (size_t i = 0; i < c->nassumed; i++) {
        if (memcmp(c->assumed[i].key, key, 16) == 0) {
            c->assumed[i] = c->assumed[--c->nassumed];
            return;
        }
    }
}

/* ---- lifecycle ---- */

gp_cache *gp_cache_new(gp_policy_holder *policy)
{
    gp_cache *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return NULL;
    if (pthread_rwlock_init(&c->lock, NULL) != 0) {
        free(c);
        return NULL;
    }
    if (pthread_mutex_init(&c->memo_lock, NULL) != 0) {
        pthread_rwlock_destroy(&c->lock);
        free(c);
        return NULL;
    }
    c->policy = policy;
    gp_frag_tally_init(&c->shapes, c->shape_slots, GP_CACHE_MAX_SHAPES);
    return c;
}

void gp_cache_free(gp_cache *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->nnodes; i++)
        gp_node_clear(&c->nodes[i].node);
    for (size_t i = 0; i < MAX_CONS; i++)
        free(c->cons[i].key);
    free(c->nodes);
    free(c->node_index);
    free(c->pods);
    free(c->mig_uses);
    free(c->assumed);
    gp_policy_unref(c->memo.pol);
    pthread_mutex_destroy(&c->memo_lock);
    pthread_rwlock_destroy(&c->lock);
    free(c);
}

/* ---- nodes ---- */

static void node_remove(gp_cache *c, uint32_t id)
{
    char name[GP_NODE_NAME_MAX + 1];

    memcpy(name, c->nodes[id].node.name, sizeof(name));
    c->pressure_gen++;
    gp_node_clear(&c->nodes[id].node);
    memset(&c->nodes[id].node, 0, sizeof(c->nodes[id].node));
    memcpy(c->nodes[id].node.name, name, sizeof(name));
    c->nodes[id].present = false;
}

static void node_upsert(gp_cache *c, const cJSON *obj, const char *name)
{
    gp_policy *pol = gp_policy_holder_get(c->policy);
    gp_node n;
    gp_status st = gp_node_from_json(obj, pol, &n, NULL);
    uint32_t id;

    gp_policy_unref(pol);
    if (st != GP_OK) {
        c->bad++;
        return;
    }
    id = node_intern(c, name);
    if (id == NO_NODE) {
        gp_node_clear(&n);
        c->bad++;
        return;
    }
    gp_node_clear(&c->nodes[id].node);
    c->nodes[id].node = n;
    c->nodes[id].model = model_intern(c, n.gpu_product);
    c->pressure_gen++;
    c->nodes[id].present = true;
    c->nodes[id].gen = c->node_list.gen;
}

void gp_cache_node_event(gp_cache *c, const char *type, const cJSON *node)
{
    const char *name = gp_object_name(node);
    uint32_t id;

    if (name == NULL) {
        pthread_rwlock_wrlock(&c->lock);
        c->bad++;
        pthread_rwlock_unlock(&c->lock);
        return;
    }
    pthread_rwlock_wrlock(&c->lock);
    if (type != NULL && strcmp(type, "DELETED") == 0) {
        id = node_find(c, name);
        if (id != NO_NODE && c->nodes[id].present)
            node_remove(c, id);
    } else {
        node_upsert(c, node, name);
    }
    pthread_rwlock_unlock(&c->lock);
}

/* A full list of one kind starts: what it does not deliver is stale at its end. */
static void list_begin(gp_cache *c, gp_relist *r)
{
    pthread_rwlock_wrlock(&c->lock);
    gp_relist_begin(r);
    pthread_rwlock_unlock(&c->lock);
}

/* A full list of one kind is complete: drop_stale removes what it did not deliver. */
static void list_end(gp_cache *c, gp_relist *r, void (*drop_stale)(gp_cache *))
{
    pthread_rwlock_wrlock(&c->lock);
    drop_stale(c);
    gp_relist_end(r);
    pthread_rwlock_unlock(&c->lock);
}

static void drop_stale_nodes(gp_cache *c)
{
    for (size_t id = 0; id < c->nnodes; id++)
        if (c->nodes[id].present && c->nodes[id].gen != c->node_list.gen)
            node_remove(c, (uint32_t)id);
}

void gp_cache_nodes_begin(gp_cache *c)
{
    list_begin(c, &c->node_list);
}

void gp_cache_nodes_end(gp_cache *c)
{
    list_end(c, &c->node_list, drop_stale_nodes);
}

/* ---- pods ---- */

typedef struct {
    uint8_t key[16];     /* from metadata.uid, else from namespace/name (name_key()) */
    const char *node;
    bool terminated;
    bool daemonset;
    gp_usage usage;
    char cons[CONS_KEY_MAX]; /* the GPU model constraint's key, "" when none */
} pod_info;

/* A key being built in a fixed buffer; over when it did not fit. */
typedef struct {
    char *p;
    size_t len, cap;
    bool over;
} keybuf;

static void kput(keybuf *b, const char *s, char end)
{
    size_t n = strlen(s);

    if (b->over || b->len + n + 2 > b->cap) {
        b->over = true;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    if (end != '\0')
        b->p[b->len++] = end;
    b->p[b->len] = '\0';
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* True when s holds one of the key's separators (such a pod's constraint is not learned). */
static bool has_sep(const char *s)
{
    return s != NULL && (strchr(s, CONS_SEP) != NULL || strchr(s, CONS_VAL_SEP) != NULL);
}

/* The key of a bound GPU pod's model constraint into pi->cons: "class SEP annotation SEP" and,
 * when nodeSelector or required affinity restricts nvidia.com/gpu.product, 'P' and the values
 * both allow, sorted, each ended by CONS_VAL_SEP. "" when the pod has none of them, or when it
 * cannot be told reliably (a key longer than CONS_KEY_MAX, more than GP_MAX_PRODUCTS values, a
 * separator byte in a value): such a pod counts as free to run on any model. */
static void pod_constraint(const gp_pod *pod, pod_info *pi)
{
    const char *cls = gp_pod_label(pod, GP_LABEL_CLASS);
    const char *ann = gp_pod_annotation(pod, GP_ANN_GPU_MODELS);
    keybuf key = { pi->cons, 0, sizeof(pi->cons), false };
    gp_products ps;

    pi->cons[0] = '\0';
    if (pi->usage.gpu <= 0 || !gp_pod_gpu_products(pod, &ps) || has_sep(cls) || has_sep(ann))
        return;
    if (!cls && !ann && ps.any)
        return;
    for (size_t i = 0; i < ps.n; i++)
        if (has_sep(ps.v[i]))
            return;
    kput(&key, cls ? cls : "", CONS_SEP);
    kput(&key, ann ? ann : "", CONS_SEP);
    if (!ps.any) {
        qsort(ps.v, ps.n, sizeof(ps.v[0]), str_cmp);
        kput(&key, "P", '\0');
        for (size_t i = 0; i < ps.n; i++)
            kput(&key, ps.v[i], CONS_VAL_SEP);
    }
    if (key.over)
        pi->cons[0] = '\0';
}

/* The pod's key: its uid; without one (kube-apiserver always sends it; a hand-written snapshot
 * may not), its namespace and name. False when it has neither uid nor name. */
static bool pod_key(const cJSON *obj, const gp_pod *pod, uint8_t key[16])
{
    const cJSON *uid = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "uid");

    if (cJSON_IsString(uid) && *uid->valuestring != '\0') {
        uid_key(uid->valuestring, key);
        return true;
    }
    if (pod->name == NULL || *pod->name == '\0')
        return false;
    name_key(pod->namespace, pod->name, key);
    return true;
}

/* A pod's usage. More MIG profiles than GP_USAGE_MAX_MIG still count with what fits (GPUs, CPU,
 * memory, the first profiles): dropping the pod would make its node look empty. */
static bool pod_usage(const gp_pod *pod, gp_usage *out)
{
    gp_status st = gp_usage_from_pod(pod, out, NULL);

    return st == GP_OK || st == GP_ETOOBIG;
}

static bool pod_decode(const cJSON *obj, pod_info *pi)
{
    const cJSON *phase = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "status"), "phase");
    gp_arena a;
    gp_pod pod;
    bool ok;

    pi->terminated = cJSON_IsString(phase) && (strcmp(phase->valuestring, "Succeeded") == 0 ||
                                               strcmp(phase->valuestring, "Failed") == 0);
    gp_arena_init(&a, 4u * 1024 * 1024);
    ok = gp_pod_from_json(obj, "", &a, &pod, NULL) == GP_OK && pod_key(obj, &pod, pi->key) &&
         pod_usage(&pod, &pi->usage);
    /* node_name borrows from obj, which outlives this call. */
    pi->node = ok ? pod.node_name : NULL;
    pi->daemonset = ok && pod.owner_kind != NULL && strcmp(pod.owner_kind, "DaemonSet") == 0;
    if (ok)
        pod_constraint(&pod, pi);
    gp_arena_free(&a);
    return ok;
}

static void pod_delete(gp_cache *c, const uint8_t key[16])
{
    pod_rec *r = pod_find(c, key);

    assumption_drop(c, key);
    if (r == NULL)
        return;
    rec_apply(c, r, -1);
    cons_release(c, r->cons);
    rec_mig_release(c, r);
    r->cons = 0;
    r->used = 2;
    c->pods_live--;
    c->pods_tomb++;
}

static void pod_upsert(gp_cache *c, const pod_info *pi, const uint8_t key[16])
{
    pod_rec *r = pod_find(c, key);
    uint32_t node = NO_NODE;

    if (r == NULL && (r = pod_insert(c, key)) == NULL) {
        c->bad++;
        return;
    }
    rec_apply(c, r, -1);
    if (pi->node != NULL && !pi->terminated) {
        node = node_intern(c, pi->node);
        assumption_drop(c, key); /* bound for real: the assumption has done its job */
    }
    rec_set_usage(c, r, &pi->usage);
    /* Only bound pods count: pending and finished ones would take table slots for nothing. */
    const char *cons = node != NO_NODE ? pi->cons : "";
    if (r->cons == 0 || strcmp(c->cons[r->cons].key, cons) != 0) {
        cons_release(c, r->cons);
        r->cons = cons_acquire(c, cons);
    }
    r->flags = (uint8_t)((r->flags & ~REC_DAEMONSET) | (pi->daemonset ? REC_DAEMONSET : 0));
    r->node = node;
    r->gen = c->pod_list.gen;
    rec_apply(c, r, +1);
}

void gp_cache_pod_event(gp_cache *c, const char *type, const cJSON *pod)
{
    pod_info pi;
    bool ok;

    memset(&pi, 0, sizeof(pi));
    ok = pod_decode(pod, &pi);
    pthread_rwlock_wrlock(&c->lock);
    if (!ok) {
        c->bad++;
    } else {
        if (type != NULL && strcmp(type, "DELETED") == 0)
            pod_delete(c, pi.key);
        else
            pod_upsert(c, &pi, pi.key);
    }
    pthread_rwlock_unlock(&c->lock);
}

static void drop_stale_pods(gp_cache *c)
{
    for (size_t i = 0; i < c->pods_cap; i++) {
        if (c->pods[i].used == 1 && c->pods[i].gen != c->pod_list.gen) {
            uint8_t key[16];

            memcpy(key, c->pods[i].key, 16);
            pod_delete(c, key);
        }
    }
    gp_heap_trim(); /* a relist parsed every pod in the cluster, page by page */
}

void gp_cache_pods_begin(gp_cache *c)
{
    list_begin(c, &c->pod_list);
}

void gp_cache_pods_end(gp_cache *c)
{
    list_end(c, &c->pod_list, drop_stale_pods);
}

/* ---- snapshots ---- */

/* metadata.<field> when it is a string, else "". */
static const char *meta_str(const cJSON *obj, const char *field)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), field);

    return cJSON_IsString(v) ? v->valuestring : "";
}

/* One pod of a snapshot, as a list item; but a pod that cannot be keyed (neither uid nor name)
 * or whose key an earlier item of the file had is an error naming it: the view would otherwise
 * silently be a pod short. Other undecodable pods are skipped and counted, as in a list. */
static gp_status snapshot_pod(gp_cache *c, const cJSON *obj, int i, gp_err *err)
{
    pod_info pi;
    pod_rec *r;
    bool dup;

    if (*meta_str(obj, "uid") == '\0' && *meta_str(obj, "name") == '\0') {
        gp_err_set(err, "pods snapshot: items[%d] has neither metadata.uid nor metadata.name", i);
        return GP_EINVAL;
    }
    memset(&pi, 0, sizeof(pi));
    if (!pod_decode(obj, &pi)) {
        gp_cache_pod_event(c, NULL, obj); /* counted as skipped */
        return GP_OK;
    }
    pthread_rwlock_wrlock(&c->lock);
    dup = (r = pod_find(c, pi.key)) != NULL && r->gen == c->pod_list.gen;
    if (!dup)
        pod_upsert(c, &pi, pi.key);
    pthread_rwlock_unlock(&c->lock);
    if (dup) {
        gp_err_set(err, "pods snapshot: items[%d] (%s/%s) is a pod an earlier item already "
                   "gave (the same metadata.uid, or without one the same namespace and name)",
                   i, meta_str(obj, "namespace"), meta_str(obj, "name"));
        return GP_EINVAL;
    }
    return GP_OK;
}

static gp_status load_list(gp_cache *c, const char *json, size_t len, bool nodes, gp_err *err)
{
    const char *what = nodes ? "nodes" : "pods";
    const cJSON *items, *it;
    cJSON *root = cJSON_ParseWithLength(json, len);
    gp_status st = GP_OK;
    int i = 0;

    if (root == NULL) {
        gp_err_set(err, "%s snapshot is not valid JSON", what);
        return GP_EINVAL;
    }
    items = cJSON_GetObjectItemCaseSensitive(root, "items");
    if (!cJSON_IsArray(items)) {
        cJSON_Delete(root);
        gp_err_set(err, "%s snapshot has no \"items\" array (expected `kubectl get %s%s -o json`)",
                   what, what, nodes ? "" : " -A");
        return GP_EINVAL;
    }
    nodes ? gp_cache_nodes_begin(c) : gp_cache_pods_begin(c);
    cJSON_ArrayForEach(it, items)
    {
        if (nodes)
            gp_cache_node_event(c, NULL, it);
        else if ((st = snapshot_pod(c, it, i++, err)) != GP_OK)
            break;
    }
    /* A refused file leaves the pods unsynced: nothing scores from half a view. */
    if (st == GP_OK)
        nodes ? gp_cache_nodes_end(c) : gp_cache_pods_end(c);
    cJSON_Delete(root);
    gp_heap_trim();
    return st;
}

gp_status gp_cache_load_snapshot(gp_cache *c, const char *nodes_json, size_t nodes_len,
                                 const char *pods_json, size_t pods_len, gp_err *err)
{
    gp_status st = GP_OK;

    if (nodes_json != NULL)
        st = load_list(c, nodes_json, nodes_len, true, err);
    if (st == GP_OK && pods_json != NULL)
        st = load_list(c, pods_json, pods_len, false, err);
    return st;
}

/* ---- assumptions ---- */

void gp_cache_assume(gp_cache *c, const char *uid, const char *node, const gp_usage *u,
                     int64_t now_ms, int64_t ttl_ms)
{
    uint8_t key[16];
    pod_rec *r;
    uint32_t id;

    uid_key(uid, key);
    pthread_rwlock_wrlock(&c->lock);
    for (size_t i = 0; i < c->nassumed;) {
        if (c->assumed[i].expires_ms <= now_ms)
            c->assumed[i] = c->assumed[--c->nassumed];
        else
            i++;
    }
    r = pod_find(c, key);
    id = node_find(c, node);
    if ((r == NULL || r->node == NO_NODE) && id != NO_NODE) {
        assumption_drop(c, key);
        if (c->nassumed < GP_CACHE_MAX_ASSUMED) {
            assumption *na = gp_grow(c->assumed, &c->cap_assumed, c->nassumed + 1, sizeof(*na));

            c->assumed = na ? na : c->assumed;
        }
        if (c->nassumed < c->cap_assumed) {
            assumption *as = &c->assumed[c->nassumed++];

            memcpy(as->key, key, 16);
            as->node = id;
            as->usage = *u;
            as->expires_ms = now_ms + ttl_ms;
        }
    }
    pthread_rwlock_unlock(&c->lock);
}

/* ---- readers ---- */

bool gp_cache_synced(gp_cache *c)
{
    bool ok;

    pthread_rwlock_rdlock(&c->lock);
    ok = c->node_list.synced && c->pod_list.synced;
    pthread_rwlock_unlock(&c->lock);
    return ok;
}

void gp_cache_rdlock(gp_cache *c)
{
    pthread_rwlock_rdlock(&c->lock);
}

void gp_cache_unlock(gp_cache *c)
{
    pthread_rwlock_unlock(&c->lock);
}

static void view_add_mig(gp_node *out, const char *profile, int32_t n)
{
    for (uint8_t i = 0; i < out->nmig; i++) {
        if (strcmp(out->mig[i].profile, profile) == 0) {
            out->mig[i].used += n;
            return;
        }
    }
    if (out->nmig < GP_NODE_MAX_MIG) {
        gp_mig_count *m = &out->mig[out->nmig++];

        snprintf(m->profile, sizeof(m->profile), "%s", profile);
        m->alloc = 0;
        m->used = n;
    }
}

/* Adds what a node's bound pods use (its load) to a view of the node. */
static void add_load(const gp_node *load, gp_node *out)
{
    out->gpu_used += load->gpu_used;
    out->cpu_used_m += load->cpu_used_m;
    out->mem_used += load->mem_used;
    out->pods_used += load->pods_used;
    out->gpu_pods += load->gpu_pods;
    for (uint8_t i = 0; i < load->nmig; i++)
        view_add_mig(out, load->mig[i].profile, load->mig[i].used);
}

static void add_assumed(gp_cache *c, uint32_t id, const gp_cache_at *at, gp_node *out)
{
    for (size_t i = 0; i < c->nassumed; i++) {
        const assumption *as = &c->assumed[i];

        if (as->node != id || as->expires_ms <= at->now_ms)
            continue;
        if (at->has_self && memcmp(as->key, at->self, 16) == 0)
            continue;
        gp_node_apply_usage(out, &as->usage, +1);
    }
}

/* The node's capacity without its usage. Field by field: the whole struct is mostly the name's
 * 254 bytes and unused MIG slots, and prioritize makes this copy for every node of a call. The
 * assertion is there to make a new field of gp_node come here too. */
_Static_assert(sizeof(gp_node) == 592, "gp_node changed: copy the new field in view_copy()");
static void view_copy(const gp_node *n, gp_node *out)
{
    size_t len = strnlen(n->name, GP_NODE_NAME_MAX);

    memcpy(out->name, n->name, len);
    out->name[len] = '\0';
    out->instance_type = n->instance_type;
    out->gpu_product = n->gpu_product;
    out->spot = n->spot;
    out->unschedulable = n->unschedulable;
    out->gpu_alloc = n->gpu_alloc;
    out->gpu_used = 0;
    out->nmig = n->nmig;
    for (uint8_t i = 0; i < n->nmig; i++) {
        out->mig[i] = n->mig[i];
        out->mig[i].used = 0;
    }
    out->cpu_alloc_m = n->cpu_alloc_m;
    out->cpu_used_m = 0;
    out->mem_alloc = n->mem_alloc;
    out->mem_used = 0;
    out->pods_alloc = n->pods_alloc;
    out->pods_used = 0;
    out->gpu_pods = 0;
}

gp_cache_at gp_cache_at_for(const char *uid, int64_t now_ms)
{
    gp_cache_at at = { .now_ms = now_ms };

    if (uid != NULL && *uid != '\0') {
        uid_key(uid, at.self);
        at.has_self = true;
    }
    return at;
}

bool gp_cache_view(gp_cache *c, const char *name, const gp_cache_at *at, gp_node *out)
{
    uint32_t id = node_find(c, name);

    if (id == NO_NODE || !c->nodes[id].present)
        return false;
    view_copy(&c->nodes[id].node, out);
    add_load(&c->nodes[id].load, out);
    add_assumed(c, id, at, out);
    return true;
}

bool gp_cache_add_usage(gp_cache *c, const char *name, const gp_cache_at *at, gp_node *out)
{
    uint32_t id = node_find(c, name);

    if (id == NO_NODE)
        return false;
    add_load(&c->nodes[id].load, out);
    add_assumed(c, id, at, out);
    return true;
}

size_t gp_cache_node_names(gp_cache *c, const char **names, size_t max)
{
    size_t n = 0;

    for (size_t id = 0; id < c->nnodes && n < max; id++)
        if (c->nodes[id].present)
            names[n++] = c->nodes[id].node.name;
    return n;
}

gp_typical gp_cache_typical(gp_cache *c, const gp_policy *pol)
{
    gp_typical t = { .cpu_m_per_gpu = pol->scoring.typical_cpu_milli_per_gpu,
                     .mem_per_gpu = pol->scoring.typical_memory_per_gpu,
                     .mix = NULL };

    if (c->sum_gpu > 0) {
        t.cpu_m_per_gpu = c->sum_cpu_m / c->sum_gpu;
        t.mem_per_gpu = c->sum_mem / c->sum_gpu;
    }
    return t;
}

size_t gp_cache_mix(gp_cache *c, gp_arena *a, size_t max, gp_frag_mix *out)
{
    gp_frag_shape *scratch = NULL;

    out->n = 0;
    out->shapes = NULL;
    if (c->shapes.n == 0 || max == 0 ||
        (scratch = gp_arena_alloc_raw(a, c->shapes.n * sizeof(*scratch))) == NULL)
        return 0;
    out->n = gp_frag_tally_mix(&c->shapes, scratch, GP_CACHE_MIX_POPULARITY, max);
    out->shapes = scratch;
    return out->n;
}

/* Splits a constraint key (pod_constraint()) into m; strings from a. False on allocation
 * failure. */
static bool cons_parse(const char *key, gp_arena *a, gp_model_demand *m)
{
    const char *ann = strchr(key, CONS_SEP), *prod = ann ? strchr(ann + 1, CONS_SEP) : NULL;
    char *copy;

    memset(m, 0, sizeof(*m));
    if (prod == NULL || (copy = gp_arena_strdup(a, key)) == NULL)
        return false;
    copy[ann - key] = copy[prod - key] = '\0';
    m->class_label = ann > key ? copy : NULL;
    m->annotation = prod > ann + 1 ? copy + (ann - key) + 1 : NULL;
    if (prod[1] != 'P')
        return true;
    size_t n = 0;
    for (const char *p = prod + 2; *p; p++)
        n += *p == CONS_VAL_SEP;
    const char **vals = gp_arena_alloc(a, (n ? n : 1) * sizeof(*vals));
    if (vals == NULL)
        return false;
    for (char *p = copy + (prod - key) + 2; *p && m->nproducts < n;) {
        char *end = strchr(p, CONS_VAL_SEP);

        if (end == NULL) /* pod_constraint() ends every value: not reached */
            break;
        *end = '\0';
        vals[m->nproducts++] = p;
        p = end + 1;
    }
    m->products = vals;
    m->products_set = true;
    return true;
}

/* Computes the pressure into c->memo (memo_lock held). */
static void pressure_compute(gp_cache *c, const gp_policy *pol, gp_arena *a)
{
    int64_t model_gpus[GP_FRAG_MAX_MODELS] = { 0 };
    const char *names[GP_FRAG_MAX_MODELS];
    gp_model_demand *d = NULL;
    size_t n = 0;

    c->memo.some = false;
    c->memo.nm = 0;
    for (size_t i = 1; i < MAX_CONS; i++) {
        if (c->cons[i].key == NULL || c->cons[i].gpus <= 0)
            continue;
        if (d == NULL && (d = gp_arena_alloc(a, MAX_CONS * sizeof(*d))) == NULL)
            return;
        if (!cons_parse(c->cons[i].key, a, &d[n]))
            return;
        d[n++].gpus = c->cons[i].gpus;
    }
    if (n == 0)
        return;
    /* The nodes' models, and last (name NULL) the GPU nodes without the label, which the filter
     * judges as such: their GPUs count in the cluster's as the pods on them do in the demand. */
    int nm = c->nmodels + 1;
    for (int m = 0; m < c->nmodels; m++)
        names[m] = c->models[m];
    names[c->nmodels] = NULL;
    for (size_t id = 0; id < c->nnodes; id++) {
        const node_slot *ns = &c->nodes[id];

        if (ns->present && ns->node.gpu_alloc > 0 && (ns->model >= 0 || !ns->node.gpu_product))
            model_gpus[ns->model >= 0 ? ns->model : c->nmodels] += ns->node.gpu_alloc;
    }
    c->memo.some = gp_score_model_pressure(d, n, c->sum_gpu, names, model_gpus, nm, pol,
                                           c->memo.out);
    c->memo.nm = nm;
}

void gp_cache_pressure(gp_cache *c, const gp_policy *pol, gp_arena *a, gp_typical *t)
{
    const char **names;
    double *out;

    t->model_pressure = NULL;
    pthread_mutex_lock(&c->memo_lock);
    if (!c->memo.valid || c->memo.gen != c->pressure_gen || c->memo.pol != pol) {
        gp_arena scratch;

        gp_arena_init(&scratch, 0);
        pressure_compute(c, pol, &scratch);
        gp_arena_free(&scratch);
        if (c->memo.pol != pol) {
            gp_policy_unref(c->memo.pol);
            c->memo.pol = gp_policy_ref((gp_policy *)pol);
        }
        c->memo.gen = c->pressure_gen;
        c->memo.valid = true;
    }
    if (c->memo.some && (names = gp_arena_alloc(a, (size_t)c->memo.nm * sizeof(*names))) &&
        (out = gp_arena_alloc(a, (size_t)c->memo.nm * sizeof(*out)))) {
        for (int m = 0; m < c->memo.nm; m++) {
            names[m] = m < c->nmodels ? c->models[m] : NULL;
            out[m] = c->memo.out[m];
        }
        t->model_pressure = out;
        t->models = names;
        t->nmodels = c->memo.nm;
    }
    pthread_mutex_unlock(&c->memo_lock);
}

gp_cache_stats gp_cache_get_stats(gp_cache *c)
{
    gp_cache_stats s;
    size_t present = 0;

    pthread_rwlock_rdlock(&c->lock);
    for (size_t id = 0; id < c->nnodes; id++)
        present += c->nodes[id].present;
    s.nodes = present;
    s.pods = c->pods_live;
    s.bound = c->bound;
    s.assumed = c->nassumed;
    s.bad = c->bad;
    s.shapes = 0;
    for (size_t i = 0; i < c->shapes.n; i++)
        s.shapes += c->shapes.slot[i].freq > 0;
    s.constraints = 0;
    for (size_t i = 1; i < MAX_CONS; i++)
        s.constraints += c->cons[i].key != NULL;
    s.models = (size_t)c->nmodels;
    s.nodes_synced = c->node_list.synced;
    s.pods_synced = c->pod_list.synced;
    s.bytes = sizeof(*c) + c->cap_nodes * sizeof(node_slot) + c->index_cap * sizeof(uint32_t) +
              c->pods_cap * sizeof(pod_rec) + c->cap_mig_uses * sizeof(mig_use) +
              c->cap_assumed * sizeof(assumption);
    pthread_rwlock_unlock(&c->lock);
    return s;
}
