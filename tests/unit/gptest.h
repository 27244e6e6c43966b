/* SPDX-License-Identifier: Apache-2.0 */
/* A tiny test harness: each test runs in its own forked process with a time limit, so a crash or
 * a hang fails that test only. Output: one "PASS name" or "FAIL name" line per test, which
 * tests/run.sh counts.
 *
 *   GP_TEST(parses_milli) { GP_CHECK(x == 1); GP_CHECK_STR(s, "a"); GP_CHECK_NEAR(f, 0.5, 1e-9); }
 *   GP_MAIN(parses_milli, other_test)
 */
#ifndef GPTEST_H
#define GPTEST_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define GP_TEST_TIMEOUT_S 20

/* The per-test limit: GP_TEST_TIMEOUT_S, or the environment's GP_TEST_TIMEOUT (seconds, 1..3600;
 * tests/run.sh raises it under valgrind, where key generation alone takes seconds). */
static unsigned gp_test_timeout(void)
{
    const char *s = getenv("GP_TEST_TIMEOUT");
    char *end = NULL;
    long v = s ? strtol(s, &end, 10) : 0;

    return s && end && *end == '\0' && v >= 1 && v <= 3600 ? (unsigned)v : GP_TEST_TIMEOUT_S;
}

extern int gp_test_failed;
int gp_test_failed;

/* Under LeakSanitizer the child's _exit() skips the exit-time leak check, so the harness runs it
 * itself after each test (a no-op symbol-less build otherwise). */
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

#define GP_TEST(name) static void name(void)

#define GP_CHECK(cond)                                                                          \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            printf("  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                   \
            gp_test_failed = 1;                                                                 \
        }                                                                                       \
    } while (0)

#define GP_CHECK_STR(a, b)                                                                      \
    do {                                                                                        \
        const char *gp__a = (a), *gp__b = (b);                                                  \
        if (gp__a == NULL || gp__b == NULL || strcmp(gp__a, gp__b) != 0) {                      \
            printf("  %s:%d: %s == \"%s\", want \"%s\"\n", __FILE__, __LINE__, #a,              \
                   gp__a ? gp__a : "(null)", gp__b ? gp__b : "(null)");                         \
            gp_test_failed = 1;                                                                 \
        }                                                                                       \
    } while (0)

#define GP_CHECK_INT(a, b)                                                                      \
    do {                                                                                        \
        long long gp__a = (long long)(a), gp__b = (long long)(b);                               \
        if (gp__a != gp__b) {                                                                   \
            printf("  %s:%d: %s == %lld, want %lld\n", __FILE__, __LINE__, #a, gp__a, gp__b);   \
            gp_test_failed = 1;                                                                 \
        }                                                                                       \
    } while (0)

/* a and b as doubles within eps of each other (NaN never is); prints both values otherwise. */
#define GP_CHECK_NEAR(a, b, eps)                                                                \
    do {                                                                                        \
        double gp__a = (double)(a), gp__b = (double)(b), gp__e = (double)(eps);                 \
        double gp__d = gp__a - gp__b;                                                           \
        if (!(gp__d <= gp__e && -gp__d <= gp__e)) {                                             \
            printf("  %s:%d: %s == %.17g, want %.17g (within %g)\n", __FILE__, __LINE__, #a,    \
                   gp__a, gp__b, gp__e);                                                        \
            gp_test_failed = 1;                                                                 \
        }                                                                                       \
    } while (0)

typedef struct {
    const char *name;
    void (*fn)(void);
} gp_test_case;

static int gp_test_run_one(const gp_test_case *tc, const char *prog)
{
    pid_t pid;
    int status = 0;

    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        alarm(gp_test_timeout());
        gp_test_failed = 0;
        tc->fn();
        if (__lsan_do_recoverable_leak_check != NULL && __lsan_do_recoverable_leak_check() != 0) {
            printf("  leaks found (see the LeakSanitizer report above)\n");
            gp_test_failed = 1;
        }
        fflush(stdout);
        _exit(gp_test_failed ? 1 : 0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
        printf("FAIL %s.%s (fork failed)\n", prog, tc->name);
        return 1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        printf("PASS %s.%s\n", prog, tc->name);
        return 0;
    }
    if (WIFSIGNALED(status))
        printf("FAIL %s.%s (signal %d%s)\n", prog, tc->name, WTERMSIG(status),
               WTERMSIG(status) == SIGALRM ? ": timed out" : "");
    else
        printf("FAIL %s.%s\n", prog, tc->name);
    return 1;
}

static int gp_test_main(const gp_test_case *cases, size_t n, int argc, char **argv)
{
    const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    int failed = 0;

    for (size_t i = 0; i < n; i++) {
        if (argc > 1 && strstr(cases[i].name, argv[1]) == NULL)
            continue;
        failed += gp_test_run_one(&cases[i], prog);
    }
    return failed ? 1 : 0;
}

#define GP_CASE(fn) { #fn, fn }
#define GP_MAIN(...)                                                                            \
    int main(int argc, char **argv)                                                             \
    {                                                                                           \
        static const gp_test_case gp__cases[] = { __VA_ARGS__ };                                \
        return gp_test_main(gp__cases, sizeof(gp__cases) / sizeof(gp__cases[0]), argc, argv);  \
    }

#endif
