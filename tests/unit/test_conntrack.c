/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/conntrack.c: the deadline rule, and a tracker started and stopped. */
#include "gptest.h"

#include "gpupack/conntrack.h"

GP_TEST(waiting_without_bytes_has_no_deadline)
{
    const char *phase = NULL;

    GP_CHECK(!gp_conntrack_overdue(1000000, 0, 0, 0, 2000, &phase));
    GP_CHECK_STR(phase, "request");
}

/* Bytes still arriving past the deadline are a dribble; a connection that went quiet (a client's
 * spare TLS connection, handshaken and idle) is the idle timeout's, however long it waits. */
GP_TEST(request_deadline_for_a_dribble_only)
{
    const char *phase = NULL;

    GP_CHECK(!gp_conntrack_overdue(12500, 0, 10000, 12000, 2000, &phase));
    GP_CHECK(gp_conntrack_overdue(12500, 0, 10000, 12001, 2000, &phase));
    GP_CHECK_STR(phase, "request");
    GP_CHECK(!gp_conntrack_overdue(99999999, 0, 10000, 10250, 2000, &phase));
}

GP_TEST(body_deadline_from_the_headers)
{
    const char *phase = NULL;

    /* A request begun at 11 s: its own start counts, not the first byte's. */
    GP_CHECK(!gp_conntrack_overdue(12500, 11000, 10000, 10500, 2000, &phase));
    GP_CHECK(gp_conntrack_overdue(13001, 11000, 10000, 10500, 2000, &phase));
    GP_CHECK_STR(phase, "body");
}

GP_TEST(no_deadline_while_answering)
{
    const char *phase = NULL;

    GP_CHECK(!gp_conntrack_overdue(99999999, -1, 10000, 20000, 2000, &phase));
}

GP_TEST(start_and_stop)
{
    gp_conntrack *t = gp_conntrack_start(1, NULL, NULL);
    gp_conn *c;

    GP_CHECK(gp_conntrack_start(0, NULL, NULL) == NULL);
    GP_CHECK(t != NULL);
    c = gp_conntrack_add(t, 0); /* any open descriptor: it is only looked at */
    GP_CHECK(c != NULL);
    gp_conntrack_begun(c);
    gp_conntrack_answering(c);
    gp_conntrack_done(c);
    gp_conntrack_remove(t, c);
    GP_CHECK(gp_conntrack_add(t, 0) != NULL); /* freed by stop */
    gp_conntrack_stop(t);
    gp_conntrack_stop(NULL);
    GP_CHECK(gp_conntrack_add(NULL, 0) == NULL);
}

GP_MAIN(GP_CASE(waiting_without_bytes_has_no_deadline),
        GP_CASE(request_deadline_for_a_dribble_only),
        GP_CASE(body_deadline_from_the_headers), GP_CASE(no_deadline_while_answering),
        GP_CASE(start_and_stop))
