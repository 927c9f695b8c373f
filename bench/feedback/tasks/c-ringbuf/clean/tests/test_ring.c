#include "check.h"
#include "ring.h"

static void test_push_and_pop(void)
{
    Ring r;
    ring_init(&r, 3);
    ring_push(&r, 1);
    ring_push(&r, 2);
    int v = 0;
    CHECK_EQ(1, ring_pop(&r, &v));
    CHECK_EQ(1, v);
    CHECK_EQ(1, r.count);
    ring_free(&r);
}

static void test_pop_empty(void)
{
    Ring r;
    ring_init(&r, 2);
    int v = 7;
    CHECK_EQ(0, ring_pop(&r, &v));
    CHECK_EQ(7, v);
    ring_free(&r);
}

static void test_oldest_is_dropped(void)
{
    Ring r;
    ring_init(&r, 3);
    for (int i = 1; i <= 5; i++) {
        ring_push(&r, i);
    }
    int out[3] = {0};
    CHECK_EQ(3, ring_copy(&r, out, 3));
    CHECK_EQ(3, out[0]);
    CHECK_EQ(5, out[2]);
    ring_free(&r);
}

static void test_sum(void)
{
    Ring r;
    ring_init(&r, 4);
    for (int i = 1; i <= 6; i++) {
        ring_push(&r, i);
    }
    CHECK_EQ(18, ring_sum(&r));
    ring_free(&r);
}

int main(void)
{
    RUN(test_push_and_pop);
    RUN(test_pop_empty);
    RUN(test_oldest_is_dropped);
    RUN(test_sum);
    return check_failures != 0;
}
