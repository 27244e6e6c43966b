/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/jsonparse.c, mostly against cJSON's own parser: the same tree on every
 * fixture, on generated documents (escapes, surrogate pairs, numbers of every form, whitespace,
 * nesting) and on edited ones whenever it accepts them; refusals of what is not JSON, and where;
 * the nesting limit counted as gp_json_reject_ambiguous() counts it; every allocation failure
 * left without a leak. Paths are relative to the repository root. */
#include "gptest.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>

#include "gpupack/fileio.h"
#include "gpupack/json.h"
#include "gpupack/jsonparse.h"
#include "jsontree.h"
#include "gpupack/jsonpool.h"

/* ---- comparing with cJSON (trees: jsontree.h) ---- */

enum { BOTH_REFUSE, SAME_TREE, ONLY_CJSON, DIFFERENT };

/* Parses len bytes of s (NUL-terminated) both ways, cJSON as the webhook used to call it.
 * ONLY_CJSON is allowed (gp_json_parse is stricter); DIFFERENT (another tree, or a text cJSON
 * refuses) never is. */
static int compare(const char *s, size_t len)
{
    cJSON *got = gp_json_parse(s, len, 1000, NULL); /* first: at the pool's end when bound */
    cJSON *want = cJSON_ParseWithLengthOpts(s, len + 1, NULL, 1); /* s[len] is a NUL */
    int r;

    if (got == NULL)
        r = want == NULL ? BOTH_REFUSE : ONLY_CJSON;
    else
        r = want != NULL && jt_same_tree(want, got) ? SAME_TREE : DIFFERENT;
    if (r == DIFFERENT)
        printf("  differs on: %.*s\n", (int)(len < 300 ? len : 300), s);
    cJSON_Delete(want);
    cJSON_Delete(got);
    return r;
}

static int compare_str(const char *s)
{
    return compare(s, strlen(s));
}

static cJSON *parse_str(const char *s)
{
    return gp_json_parse(s, strlen(s), 64, NULL);
}

/* ---- fixtures ---- */

static size_t each_json_file(const char *dir, void (*fn)(const char *, size_t))
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;

    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char path[1024], *buf = NULL;
        size_t len = strlen(e->d_name);
        gp_err err = { { 0 } };

        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (gp_file_read(path, 64u << 20, &buf, &len, &err) != GP_OK)
            continue;
        fn(buf, len);
        free(buf);
        n++;
    }
    closedir(d);
    return n;
}

static void fixture_same(const char *s, size_t len)
{
    GP_CHECK_INT(compare(s, len), SAME_TREE);
}

GP_TEST(same_tree_as_cjson_on_every_fixture)
{
    size_t n = each_json_file("tests/fixtures", fixture_same) +
               each_json_file("tests/fixtures/kube-v1.32-captured", fixture_same) +
               each_json_file("tests/examples", fixture_same) +
               each_json_file("tests/extender", fixture_same) +
               each_json_file("manifests/base", fixture_same);

    GP_CHECK(n >= 40);
}

/* ---- generated documents ---- */

static uint64_t rng = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

typedef struct {
    char *s;
    size_t n, cap;
} gen_text;

static void put(gen_text *t, const char *s)
{
    size_t l = strlen(s);

    if (t->n + l + 1 > t->cap) {
        t->cap = (t->n + l + 1) * 2;
        t->s = realloc(t->s, t->cap);
        if (t->s == NULL)
            abort();
    }
    memcpy(t->s + t->n, s, l + 1);
    t->n += l;
}

static void space(gen_text *t)
{
    static const char *const ws[] = { "", "", "", " ", "\n", "\t", "\r\n  " };

    put(t, ws[rnd(7)]);
}

static void gen_string(gen_text *t)
{
    static const char *const parts[] = {
        "a", "Z", "nvidia.com/gpu", " ", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t",
        "\\u0041", "\\u00e9", "\\u20AC", "\\uFFFF", "\\ud83d\\ude00", "\\uD800\\uDC00",
        "\\uDBFF\\uDFFF", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\\u0000", "0", "~1",
        "\\u007f", "\\u0080", "\\u07FF", "\\u0800",
    };
    unsigned n = rnd(6);

    put(t, "\"");
    for (unsigned i = 0; i < n; i++)
        put(t, parts[rnd(sizeof(parts) / sizeof(parts[0]))]);
    if (rnd(8) == 0) /* a long plain run: the 16-byte scan and its tail */
        put(t, "abcdefghijklmnopqrstuvwxyz0123456789");
    put(t, "\"");
}

static void gen_number(gen_text *t)
{
    static const char *const fixed[] = {
        "0", "-0", "1", "-1", "2147483647", "2147483648", "-2147483648", "-2147483649",
        "999999999999999", "9999999999999999", "9007199254740993", "12345678901234567890123",
        "0.5", "-0.0", "1e400", "-1e400", "1E+2", "1e-2", "2.5E-3", "1e-400", "0.1", "3.14159",
    };
    char buf[64];

    if (rnd(2) == 0) {
        put(t, fixed[rnd(sizeof(fixed) / sizeof(fixed[0]))]);
        return;
    }
    snprintf(buf, sizeof(buf), "%s%u%s%s", rnd(3) == 0 ? "-" : "", rnd(100000),
             rnd(3) == 0 ? ".25" : "", rnd(4) == 0 ? "e7" : "");
    put(t, buf);
}

static void gen_value(gen_text *t, int depth);

static void gen_container(gen_text *t, int depth, bool object)
{
    unsigned n = rnd(5);

    put(t, object ? "{" : "[");
    space(t);
    for (unsigned i = 0; i < n; i++) {
        if (i > 0) {
            put(t, ",");
            space(t);
        }
        if (object) {
            gen_string(t);
            space(t);
            put(t, ":");
            space(t);
        }
        gen_value(t, depth + 1);
        space(t);
    }
    put(t, object ? "}" : "]");
}

static void gen_value(gen_text *t, int depth)
{
    unsigned k = rnd(depth < 6 ? 8 : 5);

    if (k == 0)
        put(t, "true");
    else if (k == 1)
        put(t, "false");
    else if (k == 2)
        put(t, "null");
    else if (k == 3)
        gen_string(t);
    else if (k == 4)
        gen_number(t);
    else
        gen_container(t, depth, k < 7);
}

GP_TEST(same_tree_as_cjson_on_generated_documents)
{
    gen_text t = { 0 };
    int same = 0;

    for (int i = 0; i < 4000; i++) {
        t.n = 0;
        put(&t, "");
        space(&t);
        gen_value(&t, 0);
        space(&t);
        same += compare(t.s, t.n) == SAME_TREE;
    }
    GP_CHECK_INT(same, 4000);
    free(t.s);
}

/* The same with the request pool bound (jsonpool.h): plain strings are copied while scanned
 * straight into the pool's chunk, up to its end, where the long way takes over. */
GP_TEST(same_tree_with_the_pool_bound)
{
    gen_text t = { 0 };
    int same = 0;

    gp_json_pool_install();
    if (!gp_json_pool_active())
        printf("  the pool is off (a sanitizer build, or GPUPACK_JSON_POOL=off): malloc only\n");
    for (int i = 0; i < 2000; i++) {
        gp_json_pool pool;

        gp_json_pool_begin(&pool, 0);
        pool.used = pool.cap > 0 ? pool.cap - 16 * (size_t)rnd(64) : 0; /* near the chunk's end */
        t.n = 0;
        put(&t, "");
        gen_value(&t, 0);
        same += compare(t.s, t.n) == SAME_TREE;
        gp_json_pool_end(&pool);
    }
    GP_CHECK_INT(same, 2000);
    free(t.s);
}

/* Memory of n bytes that ends where an inaccessible page begins: a read or write past its end
 * faults. NULL if mmap fails. */
static unsigned char *guarded(size_t n, void **map, size_t *maplen)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), body = (n + page - 1) / page * page;
    unsigned char *m = mmap(NULL, body + page, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (m == MAP_FAILED || mprotect(m + body, page, PROT_NONE) != 0)
        return NULL;
    *map = m;
    *maplen = body + page;
    return m + body - n;
}

/* The pool path's 16-byte loads and stores stay inside the text and the pool's chunk: the text
 * ends at a guard page, and so does the chunk, whose free space is left at 0..1 KB. (The
 * sanitizer builds do not use the pool: this is their check of it.) */
GP_TEST(pool_path_inside_text_and_chunk)
{
    const size_t chunk = 64 * 1024;
    void *tmap, *cmap;
    size_t tlen, clen;
    unsigned char *cbase = guarded(chunk, &cmap, &clen);
    gen_text t = { 0 };
    int same = 0;

    gp_json_pool_install();
    if (!gp_json_pool_active()) {
        printf("  the pool is off (a sanitizer build, or GPUPACK_JSON_POOL=off): nothing here\n");
        munmap(cmap, clen);
        return;
    }
    GP_CHECK(cbase != NULL);
    for (int i = 0; i < 3000 && cbase != NULL; i++) {
        gp_json_pool pool;
        unsigned char *text;
        cJSON *got, *want;

        t.n = 0;
        put(&t, "");
        gen_value(&t, 0);
        if ((text = guarded(t.n, &tmap, &tlen)) == NULL)
            abort();
        memcpy(text, t.s, t.n); /* no NUL after it: the guard page */
        want = cJSON_Parse(t.s); /* before the pool is bound */
        gp_json_pool_begin(&pool, 0);
        pool.base = cbase;
        pool.cap = chunk;
        pool.used = chunk - 16 * (size_t)rnd(64);
        got = gp_json_parse((const char *)text, t.n, 64, NULL);
        same += got != NULL && want != NULL && jt_same_tree(got, want);
        gp_json_pool_end(&pool);
        cJSON_Delete(want);
        munmap(tmap, tlen);
    }
    GP_CHECK_INT(same, 3000);
    munmap(cmap, clen);
    free(t.s);
}

/* Random edits of generated documents: whatever gp_json_parse accepts, cJSON accepts as the
 * same tree; nothing crashes (the sanitizers watch the reads). */
GP_TEST(edited_documents_accepted_only_as_cjson_reads_them)
{
    static const char bytes[] = "{}[]\",:\\u0123456789-+.eEtrufalsn \t\n\r\x01\x7f\xc3";
    gen_text t = { 0 };
    int differ = 0, accepted = 0, refused = 0;

    for (int i = 0; i < 20000; i++) {
        size_t at;
        int r;

        t.n = 0;
        put(&t, "");
        gen_container(&t, 0, rnd(2) == 0);
        at = rnd((unsigned)t.n);
        if (i % 3 == 0) {
            t.s[at] = bytes[rnd(sizeof(bytes) - 1)];
        } else if (i % 3 == 1) {
            memmove(t.s + at, t.s + at + 1, t.n - at);
            t.n--;
        } else {
            t.n = at; /* cut short */
            t.s[at] = '\0';
        }
        r = compare(t.s, t.n);
        differ += r == DIFFERENT;
        accepted += r == SAME_TREE;
        refused += r == BOTH_REFUSE || r == ONLY_CJSON;
    }
    GP_CHECK_INT(differ, 0);
    GP_CHECK(accepted > 100); /* edits inside strings and numbers often leave JSON */
    GP_CHECK(refused > 10000);
    free(t.s);
}

/* ---- refusals ---- */

static void check_refused(const char *s, gp_json_fail kind, size_t offset)
{
    gp_json_error err = { GP_JSON_OK, 0, "" };
    cJSON *got = gp_json_parse(s, strlen(s), 64, &err);

    if (got != NULL || err.kind != kind || err.offset != offset) {
        printf("  %s: got %s, kind %d at %zu; want kind %d at %zu\n", s, got ? "a tree" : "NULL",
               (int)err.kind, err.offset, (int)kind, offset);
        gp_test_failed = 1;
    }
    cJSON_Delete(got);
}

GP_TEST(refuses_what_is_not_json_and_says_where)
{
    check_refused("", GP_JSON_SYNTAX, 0);
    check_refused("  ", GP_JSON_SYNTAX, 2);
    check_refused("{", GP_JSON_SYNTAX, 1);
    check_refused("}", GP_JSON_SYNTAX, 0);
    check_refused("[1,]", GP_JSON_SYNTAX, 3);
    check_refused("[,1]", GP_JSON_SYNTAX, 1);
    check_refused("[1 2]", GP_JSON_SYNTAX, 3);
    check_refused("{\"a\"}", GP_JSON_SYNTAX, 4);
    check_refused("{\"a\":}", GP_JSON_SYNTAX, 5);
    check_refused("{a:1}", GP_JSON_SYNTAX, 1);
    check_refused("{\"a\":1,}", GP_JSON_SYNTAX, 7);
    check_refused("01", GP_JSON_SYNTAX, 0);
    check_refused("-01", GP_JSON_SYNTAX, 1);
    check_refused("-", GP_JSON_SYNTAX, 1);
    check_refused("1.", GP_JSON_SYNTAX, 2);
    check_refused("1.e5", GP_JSON_SYNTAX, 2);
    check_refused("1e", GP_JSON_SYNTAX, 2);
    check_refused("1e+", GP_JSON_SYNTAX, 3);
    check_refused(".5", GP_JSON_SYNTAX, 0);
    check_refused("+1", GP_JSON_SYNTAX, 0);
    check_refused("\"abc", GP_JSON_SYNTAX, 4);
    check_refused("\"a\\", GP_JSON_SYNTAX, 2);
    check_refused("\"\\x\"", GP_JSON_SYNTAX, 1);
    check_refused("\"\\u12\"", GP_JSON_SYNTAX, 1);
    check_refused("\"\\uZZZZ\"", GP_JSON_SYNTAX, 1);
    check_refused("\"\\uDC00\"", GP_JSON_SYNTAX, 1);
    check_refused("\"\\uD800\"", GP_JSON_SYNTAX, 1);
    check_refused("\"\\uD800\\u0041\"", GP_JSON_SYNTAX, 1);
    check_refused("\"a\tb\"", GP_JSON_SYNTAX, 2);
    check_refused("\"a\nb\"", GP_JSON_SYNTAX, 2);
    check_refused("tru", GP_JSON_SYNTAX, 0);
    check_refused("nul", GP_JSON_SYNTAX, 0);
    check_refused("True", GP_JSON_SYNTAX, 0);
    check_refused("{} {}", GP_JSON_SYNTAX, 3);
    check_refused("[1]x", GP_JSON_SYNTAX, 3);
    check_refused("\v1", GP_JSON_SYNTAX, 0);
    check_refused("1\f", GP_JSON_SYNTAX, 1);
    check_refused("NaN", GP_JSON_SYNTAX, 0);
    check_refused("0x10", GP_JSON_SYNTAX, 1);
    GP_CHECK(gp_json_parse("{}\0", 3, 64, NULL) == NULL); /* a NUL is not the end */
}

GP_TEST(every_cut_of_an_object_is_refused)
{
    static const char doc[] =
        "{\"a\":[1,-2.5e3,\"x\\u00e9\\n\",true,false,null,{}],\"b\":{\"c\":[]}}";
    cJSON *whole = parse_str(doc);

    GP_CHECK(whole != NULL);
    cJSON_Delete(whole);
    for (size_t n = 0; n < strlen(doc); n++) {
        cJSON *got = gp_json_parse(doc, n, 64, NULL);

        if (got != NULL) {
            printf("  accepted the first %zu bytes\n", n);
            gp_test_failed = 1;
        }
        cJSON_Delete(got);
    }
}

GP_TEST(byte_order_mark_and_whitespace_around)
{
    cJSON *t = parse_str("\xEF\xBB\xBF \t\r\n{\"a\" : [ 1 , 2 ] }\n");

    GP_CHECK(t != NULL && cJSON_GetArraySize(cJSON_GetObjectItem(t, "a")) == 2);
    cJSON_Delete(t);
    GP_CHECK_INT(compare_str("\xEF\xBB\xBF[true]"), SAME_TREE);
    GP_CHECK_INT(compare_str("\xEF\xBB\xBF" "1"), SAME_TREE);
}

/* ---- values ---- */

GP_TEST(numbers_as_cjson_reads_them)
{
    static const char *const nums[] = {
        "0", "-0", "7", "-7", "2147483647", "2147483648", "-2147483648", "-2147483649",
        "999999999999999", "1000000000000000", "9007199254740993", "18446744073709551616",
        "0.1", "1e400", "-1e400", "1e-400", "1E+2", "6.02214076e23", "-0.0", "4.9e-324",
    };
    static const char longnum[] = /* 71 characters: copied to the heap for strtod */
        "100000000000000000000000000000000000000000000000000000000000000000000.5";
    char buf[128];
    cJSON *t;

    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        snprintf(buf, sizeof(buf), "[%s]", nums[i]);
        GP_CHECK_INT(compare_str(buf), SAME_TREE);
    }
    /* (Debian's cJSON reads a number this long whole, upstream 1.7.15 only its first 63
     * characters: compared with strtod here) */
    t = gp_json_parse(longnum, strlen(longnum), 64, NULL);
    GP_CHECK(t != NULL && t->valuedouble == strtod(longnum, NULL));
    cJSON_Delete(t);
    t = parse_str("[1e400,2147483648,-3000000000,-0,12.5]");
    GP_CHECK(t != NULL);
    if (t != NULL) {
        GP_CHECK(isinf(cJSON_GetArrayItem(t, 0)->valuedouble));
        GP_CHECK_INT(cJSON_GetArrayItem(t, 0)->valueint, INT_MAX);
        GP_CHECK_INT(cJSON_GetArrayItem(t, 1)->valueint, INT_MAX);
        GP_CHECK_INT(cJSON_GetArrayItem(t, 2)->valueint, INT_MIN);
        GP_CHECK(signbit(cJSON_GetArrayItem(t, 3)->valuedouble));
        GP_CHECK_INT(cJSON_GetArrayItem(t, 4)->valueint, 12);
    }
    cJSON_Delete(t);
}

GP_TEST(strings_decoded_as_cjson_decodes_them)
{
    cJSON *t = parse_str("[\"a\\u00e9\\u20ac\\ud83d\\ude00\\\"\\\\\\/\\b\\f\\n\\r\\t\","
                         "\"x\\u0000y\"]");

    GP_CHECK(t != NULL);
    if (t != NULL) {
        GP_CHECK_STR(cJSON_GetArrayItem(t, 0)->valuestring,
                     "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"\\/\b\f\n\r\t");
        GP_CHECK_STR(cJSON_GetArrayItem(t, 1)->valuestring, "x"); /* ends at the NUL */
    }
    cJSON_Delete(t);
    GP_CHECK_INT(compare_str("[\"x\\u0000y\",\"\\uDBFF\\uDFFF\",\"\\u0800\\u07ff\\u0080\\u007F\"]"),
                 SAME_TREE);
}

/* ---- nesting ---- */

static char *nested(int levels, const char *open, const char *inner, const char *close)
{
    size_t lo = strlen(open), li = strlen(inner), lc = strlen(close);
    char *s = malloc((size_t)levels * (lo + lc) + li + 1), *p = s;

    if (s == NULL)
        abort();
    for (int i = 0; i < levels; i++, p += lo)
        memcpy(p, open, lo);
    memcpy(p, inner, li);
    p += li;
    for (int i = 0; i < levels; i++, p += lc)
        memcpy(p, close, lc);
    *p = '\0';
    return s;
}

/* gp_json_parse(max_depth 8) accepts exactly what gp_json_reject_ambiguous(8) passes. */
static void depth_agrees(int levels, const char *open, const char *inner, const char *close)
{
    char *s = nested(levels, open, inner, close);
    gp_json_error err = { GP_JSON_OK, 0, "" };
    cJSON *got = gp_json_parse(s, strlen(s), 8, &err), *ref = cJSON_Parse(s);
    gp_err e = { { 0 } };
    bool ref_ok = ref != NULL && gp_json_reject_ambiguous(s, strlen(s), ref, 8, &e) == GP_OK;

    if ((got != NULL) != ref_ok || (got == NULL && err.kind != GP_JSON_DEPTH)) {
        printf("  %d levels of %s%s%s: parse %s (kind %d), reject_ambiguous %s\n", levels, open,
               inner, close, got ? "ok" : "refused", (int)err.kind, ref_ok ? "ok" : "refused");
        gp_test_failed = 1;
    }
    cJSON_Delete(got);
    cJSON_Delete(ref);
    free(s);
}

GP_TEST(nesting_limit_counted_as_reject_ambiguous_counts)
{
    char *deep = nested(100000, "[", "", "]"); /* bounded recursion, not a crash */
    gp_json_error err;

    for (int levels = 1; levels <= 12; levels++) {
        depth_agrees(levels, "[", "", "]");
        depth_agrees(levels, "[", "1", "]");
        depth_agrees(levels, "{\"a\":", "{}", "}");
        depth_agrees(levels, "[{\"a\":", "[]", "}]");
    }
    GP_CHECK(gp_json_parse(deep, strlen(deep), 64, &err) == NULL);
    GP_CHECK_INT(err.kind, GP_JSON_DEPTH);
    GP_CHECK_INT(err.offset, 65);
    free(deep);
    /* cJSON's own limit, 1,000 containers deep, is max_depth 999 here (the root at 0) */
    for (int levels = 999; levels <= 1001; levels++) {
        char *s = nested(levels, "[", "", "]");
        cJSON *mine = gp_json_parse(s, strlen(s), 999, NULL), *theirs = cJSON_Parse(s);

        GP_CHECK((mine != NULL) == (levels <= 1000));
        GP_CHECK((theirs != NULL) == (levels <= 1000));
        cJSON_Delete(mine);
        cJSON_Delete(theirs);
        free(s);
    }
}

/* ---- duplicate names ---- */

/* An object of n members named from a few names (so that some repeat), nested once at random. */
static void gen_named_object(gen_text *t, unsigned n, int depth)
{
    static const char *const names[] = { "\"a\"", "\"b\"", "\"ab\"", "\"ba\"", "\"a\\u0000x\"",
                                          "\"\\u0061\"", "\"\"", "\"abc\"", "\"cab\"" };
    char own[32];

    put(t, "{");
    for (unsigned i = 0; i < n; i++) {
        if (i > 0)
            put(t, ",");
        if (rnd(3) == 0) { /* a name no other member has */
            snprintf(own, sizeof(own), "\"m%u\"", i);
            put(t, own);
        } else {
            put(t, names[rnd(sizeof(names) / sizeof(names[0]))]);
        }
        put(t, ":");
        if (depth < 2 && rnd(4) == 0)
            gen_named_object(t, rnd(6), depth + 1);
        else
            put(t, "1");
    }
    put(t, "}");
}

/* gp_json_parse_unambiguous refuses exactly what gp_json_find_duplicate_key finds in cJSON's
 * tree, naming the same member in a flat object; gp_json_parse takes both. Small objects
 * (compared by summary) and large ones (sorted). */
GP_TEST(duplicates_refused_as_find_duplicate_key_finds_them)
{
    gen_text t = { 0 };
    int agree = 0, dups = 0, runs = 3000;

    for (int i = 0; i < runs; i++) {
        gp_json_error err = { GP_JSON_OK, 0, "" };
        cJSON *ref, *got, *lax;
        const char *dup = NULL;
        gp_status st;

        t.n = 0;
        put(&t, "");
        gen_named_object(&t, rnd(i % 2 ? 8 : 40), 0);
        ref = cJSON_Parse(t.s);
        st = gp_json_find_duplicate_key(ref, &dup);
        got = gp_json_parse_unambiguous(t.s, t.n, 64, &err);
        lax = gp_json_parse(t.s, t.n, 64, NULL);
        dups += dup != NULL;
        /* the same name when there is one object; nested ones are checked inner first here */
        if (st == GP_OK ? got != NULL && err.kind == GP_JSON_OK
                        : got == NULL && err.kind == GP_JSON_DUPLICATE &&
                              (strchr(t.s + 1, '{') != NULL || strcmp(err.name, dup) == 0))
            agree++;
        else
            printf("  disagree on %s\n", t.s);
        GP_CHECK(lax != NULL);
        cJSON_Delete(ref);
        cJSON_Delete(got);
        cJSON_Delete(lax);
    }
    GP_CHECK_INT(agree, runs);
    GP_CHECK(dups > runs / 4 && dups < runs);
    free(t.s);
}

GP_TEST(duplicate_named_with_its_object)
{
    static const char doc[] = "{\"a\":{\"x\":1,\"y\":2,\"x\":3},\"b\":1}";
    gp_json_error err = { GP_JSON_OK, 0, "" };
    char longdoc[300], m[32];
    gen_text t = { 0 };
    cJSON *ok;

    GP_CHECK(gp_json_parse_unambiguous(doc, strlen(doc), 64, &err) == NULL);
    GP_CHECK_INT(err.kind, GP_JSON_DUPLICATE);
    GP_CHECK_INT(err.offset, 5);
    GP_CHECK_STR(err.name, "x");
    snprintf(longdoc, sizeof(longdoc), "{\"%0100d\":1,\"%0100d\":2}", 7, 7);
    GP_CHECK(gp_json_parse_unambiguous(longdoc, strlen(longdoc), 64, &err) == NULL);
    GP_CHECK_INT(strlen(err.name), GP_JSON_NAME_KEPT); /* cut for the message */
    /* past GP_JSON_SMALL_OBJECT members, both repeats beyond the first 16 */
    put(&t, "{");
    for (int i = 0; i < 20; i++) {
        snprintf(m, sizeof(m), "\"m%d\":%d,", i, i);
        put(&t, m);
    }
    put(&t, "\"m17\":0}");
    GP_CHECK(gp_json_parse_unambiguous(t.s, t.n, 64, &err) == NULL);
    GP_CHECK_INT(err.kind, GP_JSON_DUPLICATE);
    GP_CHECK_STR(err.name, "m17");
    t.s[t.n - 5] = 'x'; /* "m1x": no repeat */
    ok = gp_json_parse_unambiguous(t.s, t.n, 64, &err);
    GP_CHECK(ok != NULL);
    cJSON_Delete(ok);
    free(t.s);
}

/* ---- memory ---- */

static long live, allowed;

static void *count_malloc(size_t n)
{
    if (allowed-- <= 0)
        return NULL;
    live++;
    return malloc(n);
}

static void count_free(void *p)
{
    if (p != NULL)
        live--;
    free(p);
}

GP_TEST(every_allocation_failure_leaves_nothing)
{
    static const char doc[] = "{\"a\":[1,2.5,\"x\\n\",\"plain\",true,null],\"b\":{\"c\":{}}}";
    cJSON_Hooks h = { count_malloc, count_free };
    long need;
    cJSON *t;

    cJSON_InitHooks(&h);
    allowed = LONG_MAX;
    t = parse_str(doc);
    GP_CHECK(t != NULL);
    need = LONG_MAX - allowed;
    cJSON_Delete(t);
    GP_CHECK_INT(live, 0);
    GP_CHECK(need > 10);
    for (long k = 0; k < need; k++) {
        gp_json_error err = { GP_JSON_OK, 0, "" };

        allowed = k;
        t = gp_json_parse(doc, strlen(doc), 64, &err);
        GP_CHECK(t == NULL);
        GP_CHECK_INT(err.kind, GP_JSON_NOMEM);
        GP_CHECK_INT(live, 0);
        cJSON_Delete(t);
    }
    cJSON_InitHooks(NULL);
}

GP_MAIN(GP_CASE(same_tree_as_cjson_on_every_fixture),
        GP_CASE(same_tree_as_cjson_on_generated_documents), GP_CASE(same_tree_with_the_pool_bound),
        GP_CASE(pool_path_inside_text_and_chunk),
        GP_CASE(edited_documents_accepted_only_as_cjson_reads_them),
        GP_CASE(refuses_what_is_not_json_and_says_where),
        GP_CASE(every_cut_of_an_object_is_refused),
        GP_CASE(byte_order_mark_and_whitespace_around), GP_CASE(numbers_as_cjson_reads_them),
        GP_CASE(strings_decoded_as_cjson_decodes_them),
        GP_CASE(nesting_limit_counted_as_reject_ambiguous_counts),
        GP_CASE(duplicates_refused_as_find_duplicate_key_finds_them),
        GP_CASE(duplicate_named_with_its_object),
        GP_CASE(every_allocation_failure_leaves_nothing))
