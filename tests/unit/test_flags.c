/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/flags.c: gp_flags_parse() ("--x v", "--x=v", booleans, lists, choices,
 * unknown flags, missing values, unsigned bounds and trailing garbage, positional arguments),
 * each error with its exact message, and gp_split_hostport() over IPv4, bracketed IPv6 and
 * malformed input.
 *
 * Every test ends with a leak check when built with AddressSanitizer. */
#include "gptest.h"

#include <stdbool.h>

#include "gpupack/flags.h"


typedef struct {
    bool verbose;
    const char *listen;
    const char *policy;
    unsigned port;
} opts;

#define NFLAGS 4

static void table(opts *o, gp_flag f[NFLAGS])
{
    gp_flag t[NFLAGS] = {
        { .name = "verbose", .kind = GP_FLAG_BOOL, .dest = &o->verbose, .help = "log more" },
        { .name = "listen", .kind = GP_FLAG_STRING, .dest = &o->listen, .arg = "HOST:PORT", .help = "where to listen" },
        { .name = "policy", .kind = GP_FLAG_STRING, .dest = &o->policy, .help = "the policy file" },
        { .name = "port", .kind = GP_FLAG_UINT, .dest = &o->port, .min = 1, .max = 65535, .arg = "N", .help = "a port" },
    };

    memcpy(f, t, sizeof(t));
    o->verbose = false;
    o->listen = "default";
    o->policy = NULL;
    o->port = 7;
}

/* Parses the NULL-terminated arguments (after a program name) into o. */
static gp_status parse(opts *o, gp_err *err, const char *const *args)
{
    char *argv[16];
    int argc = 0;
    gp_flag f[NFLAGS];

    table(o, f);
    memset(err, 0, sizeof(*err));
    argv[argc++] = (char *)"prog";
    while (*args != NULL && argc < 15)
        argv[argc++] = (char *)*args++;
    argv[argc] = NULL;
    return gp_flags_parse(f, NFLAGS, argc, argv, err);
}

/* Expects GP_EINVAL with exactly want. */
static void check_fails(const char *const *args, const char *want, int line)
{
    opts o;
    gp_err err;
    gp_status st = parse(&o, &err, args);

    if (st != GP_EINVAL || strcmp(err.msg, want) != 0) {
        printf("  %s:%d: status %d message \"%s\", want GP_EINVAL \"%s\"\n", __FILE__, line, st,
               err.msg, want);
        gp_test_failed = 1;
    }
}
#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define CHECK_FAILS(args, want) check_fails(args, want, __LINE__)

/* --- gp_flags_parse ------------------------------------------------------------------------ */

GP_TEST(no_arguments_keep_defaults)
{
    opts o;
    gp_err err;
    const char *const none[] = { NULL };

    GP_CHECK_INT(parse(&o, &err, none), GP_OK);
    GP_CHECK(!o.verbose);
    GP_CHECK_STR(o.listen, "default");
    GP_CHECK(o.policy == NULL);
    GP_CHECK_INT(o.port, 7);
}

GP_TEST(value_as_next_argument_or_after_equals)
{
    opts o;
    gp_err err;

    GP_CHECK_INT(parse(&o, &err, ARGS("--listen", "1.2.3.4:80", "--policy=/etc/p.json", "--port",
                                      "8443", "--verbose")),
                 GP_OK);
    GP_CHECK_STR(o.listen, "1.2.3.4:80");
    GP_CHECK_STR(o.policy, "/etc/p.json");
    GP_CHECK_INT(o.port, 8443);
    GP_CHECK(o.verbose);

    GP_CHECK_INT(parse(&o, &err, ARGS("--port=1", "--listen=[::]:8443")), GP_OK);
    GP_CHECK_INT(o.port, 1);
    GP_CHECK_STR(o.listen, "[::]:8443");
    /* Only the first '=' separates; the rest belongs to the value. */
    GP_CHECK_INT(parse(&o, &err, ARGS("--policy=a=b")), GP_OK);
    GP_CHECK_STR(o.policy, "a=b");
    /* The last one wins. */
    GP_CHECK_INT(parse(&o, &err, ARGS("--port", "10", "--port=20")), GP_OK);
    GP_CHECK_INT(o.port, 20);
}

GP_TEST(bool_with_value_is_an_error)
{
    CHECK_FAILS(ARGS("--verbose=true"), "--verbose: takes no value");
    CHECK_FAILS(ARGS("--verbose="), "--verbose: takes no value");
}

GP_TEST(unknown_flag_is_named)
{
    CHECK_FAILS(ARGS("--nope"), "--nope: unknown flag");
    CHECK_FAILS(ARGS("--nope=3"), "--nope: unknown flag");
    CHECK_FAILS(ARGS("--list", "x"), "--list: unknown flag"); /* no prefixes */
    CHECK_FAILS(ARGS("--listenx", "x"), "--listenx: unknown flag");
    CHECK_FAILS(ARGS("--Verbose"), "--Verbose: unknown flag");
    CHECK_FAILS(ARGS("--verbose", "--nope"), "--nope: unknown flag");
}

GP_TEST(unknown_flag_name_is_bounded)
{
    char arg[300], want[128];

    memset(arg, 'x', sizeof(arg) - 1);
    arg[0] = arg[1] = '-';
    arg[sizeof(arg) - 1] = '\0';
    snprintf(want, sizeof(want), "--%.64s: unknown flag", arg + 2);
    CHECK_FAILS(ARGS(arg), want);
}

GP_TEST(missing_value)
{
    CHECK_FAILS(ARGS("--listen"), "--listen: needs a value (HOST:PORT)");
    CHECK_FAILS(ARGS("--policy"), "--policy: needs a value (value)");
    CHECK_FAILS(ARGS("--policy", "--verbose"), "--policy: needs a value (value)");
    CHECK_FAILS(ARGS("--verbose", "--port"), "--port: needs a value (N)");
    CHECK_FAILS(ARGS("--listen="), "--listen: needs a non-empty HOST:PORT");
    CHECK_FAILS(ARGS("--policy", ""), "--policy: needs a non-empty value");
}

GP_TEST(uint_bounds_and_garbage)
{
    opts o;
    gp_err err;

    GP_CHECK_INT(parse(&o, &err, ARGS("--port", "65535")), GP_OK);
    GP_CHECK_INT(o.port, 65535);
    CHECK_FAILS(ARGS("--port", "0"), "--port: must be a whole number 1..65535, got \"0\"");
    CHECK_FAILS(ARGS("--port", "65536"), "--port: must be a whole number 1..65535, got \"65536\"");
    CHECK_FAILS(ARGS("--port=12abc"), "--port: must be a whole number 1..65535, got \"12abc\"");
    CHECK_FAILS(ARGS("--port", "12 "), "--port: must be a whole number 1..65535, got \"12 \"");
    CHECK_FAILS(ARGS("--port", "4294967297"),
                "--port: must be a whole number 1..65535, got \"4294967297\"");
    CHECK_FAILS(ARGS("--port", "99999999999999999999999"),
                "--port: must be a whole number 1..65535, got \"99999999999999999999999\"");
    CHECK_FAILS(ARGS("--port", "abc"), "--port: expected a number, got \"abc\"");
    CHECK_FAILS(ARGS("--port", "-1"), "--port: expected a number, got \"-1\"");
    CHECK_FAILS(ARGS("--port", "+5"), "--port: expected a number, got \"+5\"");
    CHECK_FAILS(ARGS("--port", " 5"), "--port: expected a number, got \" 5\"");
    CHECK_FAILS(ARGS("--port="), "--port: expected a number, got \"\"");
    /* A failed flag leaves the destination alone. */
    GP_CHECK_INT(parse(&o, &err, ARGS("--port", "70000")), GP_EINVAL);
    GP_CHECK_INT(o.port, 7);
}

GP_TEST(positional_argument_is_an_error)
{
    CHECK_FAILS(ARGS("foo"), "unexpected argument \"foo\" (flags start with --)");
    CHECK_FAILS(ARGS("-v"), "unexpected argument \"-v\" (flags start with --)");
    CHECK_FAILS(ARGS("--verbose", "extra"), "unexpected argument \"extra\" (flags start with --)");
    CHECK_FAILS(ARGS("--port", "5", "6"), "unexpected argument \"6\" (flags start with --)");
    CHECK_FAILS(ARGS(""), "unexpected argument \"\" (flags start with --)");
}

GP_TEST(usage_lists_every_flag)
{
    opts o;
    gp_flag f[NFLAGS];
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    table(&o, f);
    gp_flags_usage(out, "prog", "does things", f, NFLAGS);
    fclose(out);
    GP_CHECK(strncmp(text, "usage: prog [flags]\ndoes things\n\nflags:\n", 40) == 0);
    GP_CHECK(strstr(text, "  --verbose ") != NULL);
    GP_CHECK(strstr(text, "  --listen HOST:PORT ") != NULL);
    GP_CHECK(strstr(text, "where to listen\n") != NULL);
    GP_CHECK(strstr(text, "  --port N ") != NULL);
    free(text);
}

GP_TEST(dash_h_is_help)
{
    bool help = false, v = false;
    gp_flag f[2] = {
        { .name = "help", .kind = GP_FLAG_BOOL, .dest = &help, .help = "show this help" },
        { .name = "verbose", .kind = GP_FLAG_BOOL, .dest = &v, .help = "log more" },
    };
    char *argv[] = { "prog", "--verbose", "-h", NULL };
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_flags_parse(f, 2, 3, argv, &err), GP_OK);
    GP_CHECK(help && !v); /* asking for help reads nothing else */
    /* Without a help flag in the table, -h is an unexpected argument like any other. */
    GP_CHECK_INT(gp_flags_parse(f + 1, 1, 3, argv, &err), GP_EINVAL);
}

/* --help and --version win over anything wrong elsewhere on the line; a flag marked once is
 * refused the second time; a function flag may take an empty value. */
static gp_status keep_value(void *ctx, const char *v, gp_err *err)
{
    (void)err;
    *(const char **)ctx = v;
    return GP_OK;
}

GP_TEST(help_wins_once_refuses_func_takes_empty)
{
    bool help = false, version = false;
    const char *out = NULL, *label = NULL;
    gp_flag_func fn = { keep_value, &label };
    gp_flag f[4] = {
        { .name = "help", .kind = GP_FLAG_BOOL, .dest = &help, .help = "show this help" },
        { .name = "version", .kind = GP_FLAG_BOOL, .dest = &version, .help = "the version" },
        { .name = "out", .kind = GP_FLAG_STRING, .dest = &out, .arg = "DIR", .help = "d",
          .once = true },
        { .name = "label", .kind = GP_FLAG_FUNC, .dest = &fn, .arg = "TEXT", .help = "l" },
    };
    char *bad_then_help[] = { "prog", "--bogus", "--out", "--help", NULL };
    char *version_too[] = { "prog", "--out", "x", "--version", NULL };
    char *twice[] = { "prog", "--out", "a", "--out=b", NULL };
    char *empty[] = { "prog", "--label", "", "--out", "help", NULL };
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_flags_parse(f, 4, 4, bad_then_help, &err), GP_OK);
    GP_CHECK(help && !version && out == NULL);
    help = false;
    GP_CHECK_INT(gp_flags_parse(f, 4, 4, version_too, &err), GP_OK);
    GP_CHECK(version && !help && out == NULL);
    version = false;
    GP_CHECK_INT(gp_flags_parse(f, 4, 4, twice, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "--out: given more than once");
    out = NULL;
    GP_CHECK_INT(gp_flags_parse(f, 4, 5, empty, &err), GP_OK); /* "help" as a value is a value */
    GP_CHECK(!help && label != NULL && *label == '\0');
    GP_CHECK_STR(out, "help");
}

GP_TEST(usage_wraps_at_100_columns)
{
    bool b = false;
    const char *str = NULL;
    gp_flag f[2] = {
        { .name = "kubeconfig", .kind = GP_FLAG_STRING, .dest = &str, .arg = "FILE",
          .help = "live cluster view through this kubeconfig (default: in-cluster when "
          "KUBERNETES_SERVICE_HOST is set), with words enough to need a third line of help "
          "text here" },
        { .name = "snapshot-priorityclasses-and-more", .kind = GP_FLAG_BOOL, .dest = &b, .help = "short" },
    };
    char *text = NULL, *line;
    size_t len = 0, lines = 0;
    FILE *out = open_memstream(&text, &len);

    gp_flags_usage(out, "prog", "does things", f, 2);
    fclose(out);
    for (line = text; *line;) {
        size_t n = strcspn(line, "\n");

        if (n > GP_FLAGS_HELP_COLUMNS) {
            printf("  line longer than %d: %.*s\n", GP_FLAGS_HELP_COLUMNS, (int)n, line);
            gp_test_failed = 1;
        }
        lines++;
        line += n + (line[n] == '\n');
    }
    GP_CHECK(strstr(text, "  --kubeconfig FILE            live cluster view") != NULL);
    GP_CHECK(lines == 11); /* usage, summary, blank, "flags:", 3 + 2 help lines, blank, -h */
    GP_CHECK(strstr(text, "  --snapshot-priorityclasses-and-more\n                               short\n") !=
             NULL);
    GP_CHECK(strstr(text, "-h is --help") != NULL);
    free(text);
}

GP_TEST(fail_is_one_line_and_a_pointer)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    GP_CHECK_INT(gp_flags_fail(out, "gpupack-x", "--threads: needs a value (N)"), 2);
    fclose(out);
    GP_CHECK_STR(text, "gpupack-x: --threads: needs a value (N)\nsee gpupack-x --help\n");
    free(text);
}

/* --- gp_split_hostport --------------------------------------------------------------------- */

static void check_hp(const char *s, const char *want_host, int want_port, int line)
{
    char host[64] = "unset";
    int port = -5;
    gp_err err = { { 0 } };
    gp_status st = gp_split_hostport(s, host, sizeof(host), &port, &err);

    if (st != GP_OK || strcmp(host, want_host) != 0 || port != want_port) {
        printf("  %s:%d: \"%s\": status %d host \"%s\" port %d (%s), want \"%s\" %d\n", __FILE__,
               line, s, st, host, port, err.msg, want_host, want_port);
        gp_test_failed = 1;
    }
}
#define CHECK_HP(s, h, p) check_hp(s, h, p, __LINE__)

static void check_hp_bad(const char *s, size_t hostsz, int line)
{
    char host[64] = "unset", want[160];
    int port = -5;
    gp_err err = { { 0 } };
    gp_status st = gp_split_hostport(s, host, hostsz, &port, &err);

    snprintf(want, sizeof(want),
             "expected HOST:PORT (e.g. 0.0.0.0:8443 or [::]:8443), got \"%.64s\"", s);
    if (st != GP_EINVAL || strcmp(err.msg, want) != 0 || port != -5 ||
        strcmp(host, "unset") != 0) {
        printf("  %s:%d: \"%s\": status %d host \"%s\" port %d message \"%s\"\n", __FILE__, line,
               s, st, host, port, err.msg);
        gp_test_failed = 1;
    }
}
#define CHECK_HP_BAD(s) check_hp_bad(s, 64, __LINE__)

GP_TEST(hostport_ipv4_and_names)
{
    CHECK_HP("0.0.0.0:8443", "0.0.0.0", 8443);
    CHECK_HP("127.0.0.1:0", "127.0.0.1", 0);
    CHECK_HP("localhost:65535", "localhost", 65535);
    CHECK_HP("webhook.gpupack-system.svc:443", "webhook.gpupack-system.svc", 443);
}

GP_TEST(hostport_ipv6)
{
    CHECK_HP("[::1]:8443", "::1", 8443);
    CHECK_HP("[::]:80", "::", 80);
    CHECK_HP("[fe80::1%eth0]:9", "fe80::1%eth0", 9);
    CHECK_HP_BAD("::1:8443"); /* IPv6 needs brackets */
    CHECK_HP_BAD("[::1]");
    CHECK_HP_BAD("[::1]:");
    CHECK_HP_BAD("[::1]8443");
    CHECK_HP_BAD("[::1:8443");
    CHECK_HP_BAD("[]:8443");
}

GP_TEST(hostport_bad_ports)
{
    CHECK_HP_BAD("localhost");
    CHECK_HP_BAD("host:70000");
    CHECK_HP_BAD("host:65536");
    CHECK_HP_BAD("host:");
    CHECK_HP_BAD("host:-1");
    CHECK_HP_BAD("host:+80");
    CHECK_HP_BAD("host: 80");
    CHECK_HP_BAD("host:80x");
    CHECK_HP_BAD("host:99999999999999999999");
    CHECK_HP_BAD("");
}

GP_TEST(hostport_empty_host_is_an_error)
{
    /* ":8443" means every IPv4 address, as Go's net.SplitHostPort reads it; a port is still
     * required. */
    CHECK_HP(":8443", "0.0.0.0", 8443);
    CHECK_HP_BAD(":");
}

GP_TEST(hostport_host_buffer_bound)
{
    char host[8] = "";
    int port = 0;

    check_hp_bad("abcdefgh:80", 8, __LINE__); /* 8 characters need 9 bytes */
    GP_CHECK_INT(gp_split_hostport("abcdefg:80", host, sizeof(host), &port, NULL), GP_OK);
    GP_CHECK_STR(host, "abcdefg");
    GP_CHECK_INT(port, 80);
}

/* The kinds gpupack-certs and gpupack-sim need: repeatable values and one of a few names. */
static gp_status parse_kinds(gp_flag_list *l, gp_flag_choice *c, gp_err *err,
                             const char *const *args)
{
    static const char *const names[] = { "ecdsa", "rsa", NULL };
    gp_flag f[] = {
        { .name = "ip", .kind = GP_FLAG_LIST, .dest = l, .min = 0, .max = 2, .arg = "IP", .help = "an extra address" },
        { .name = "key-type", .kind = GP_FLAG_CHOICE, .dest = c, .arg = "T", .help = "the key" },
    };
    char *argv[16];
    int argc = 0;

    memset(l, 0, sizeof(*l));
    *c = (gp_flag_choice){ names, 0 };
    memset(err, 0, sizeof(*err));
    argv[argc++] = (char *)"prog";
    while (*args != NULL && argc < 15)
        argv[argc++] = (char *)*args++;
    argv[argc] = NULL;
    return gp_flags_parse(f, 2, argc, argv, err);
}

GP_TEST(lists_and_choices)
{
    gp_flag_list l = { { NULL }, 0 };
    gp_flag_choice c = { NULL, 0 };
    gp_err err;

    GP_CHECK_INT(parse_kinds(&l, &c, &err, ARGS("--ip", "a", "--key-type=rsa", "--ip=b")), GP_OK);
    GP_CHECK_INT(l.n, 2);
    GP_CHECK_STR(l.v[0], "a");
    GP_CHECK_STR(l.v[1], "b");
    GP_CHECK_INT(c.index, 1);
    GP_CHECK_INT(parse_kinds(&l, &c, &err, ARGS("--ip", "a", "--ip", "b", "--ip", "c")),
                 GP_EINVAL);
    GP_CHECK_STR(err.msg, "--ip: more than 2 values");
    GP_CHECK_INT(parse_kinds(&l, &c, &err, ARGS("--key-type", "dsa")), GP_EINVAL);
    GP_CHECK_STR(err.msg, "--key-type: must be ecdsa or rsa, got \"dsa\"");
    GP_CHECK_INT(parse_kinds(&l, &c, &err, ARGS("--ip=")), GP_EINVAL);
    GP_CHECK_STR(err.msg, "--ip: needs a non-empty IP");
}

static gp_status collect_even(void *ctx, const char *v, gp_err *err)
{
    char *seen = ctx;

    if ((v[0] - '0') % 2 != 0) {
        gp_err_set(err, "--even: %s is odd", v);
        return GP_EINVAL;
    }
    strncat(seen, v, 8);
    return GP_OK;
}

GP_TEST(functions_take_values_in_order)
{
    char seen[16] = "";
    gp_flag_func fn = { collect_even, seen };
    gp_flag f[] = { { .name = "even", .kind = GP_FLAG_FUNC, .dest = &fn, .arg = "N",
                      .help = "an even digit" } };
    char *ok[] = { "prog", "--even", "4", "--even=2", NULL };
    char *bad[] = { "prog", "--even", "3", NULL };
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_flags_parse(f, 1, 4, ok, &err), GP_OK);
    GP_CHECK_STR(seen, "42");
    GP_CHECK_INT(gp_flags_parse(f, 1, 3, bad, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "--even: 3 is odd");
}

GP_MAIN(GP_CASE(no_arguments_keep_defaults), GP_CASE(value_as_next_argument_or_after_equals),
        GP_CASE(bool_with_value_is_an_error), GP_CASE(unknown_flag_is_named),
        GP_CASE(unknown_flag_name_is_bounded), GP_CASE(missing_value),
        GP_CASE(uint_bounds_and_garbage), GP_CASE(positional_argument_is_an_error),
        GP_CASE(usage_lists_every_flag), GP_CASE(dash_h_is_help),
        GP_CASE(help_wins_once_refuses_func_takes_empty),
        GP_CASE(usage_wraps_at_100_columns), GP_CASE(fail_is_one_line_and_a_pointer), GP_CASE(hostport_ipv4_and_names), GP_CASE(hostport_ipv6),
        GP_CASE(hostport_bad_ports), GP_CASE(hostport_empty_host_is_an_error),
        GP_CASE(hostport_host_buffer_bound), GP_CASE(lists_and_choices),
        GP_CASE(functions_take_values_in_order))
