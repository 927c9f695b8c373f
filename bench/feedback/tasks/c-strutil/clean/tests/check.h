/* A minimal test harness: each failed check prints FILE:LINE:TEST:FAIL. */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>

static int check_failures;
static const char *check_test;

#define CHECK_EQ(want, got)                                                    \
    do {                                                                       \
        long long w_ = (long long)(want), g_ = (long long)(got);               \
        if (w_ != g_) {                                                        \
            printf("%s:%d:%s:FAIL: expected %lld, got %lld (%s)\n", __FILE__,  \
                   __LINE__, check_test, w_, g_, #got);                        \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

#define RUN(test)                                                              \
    do {                                                                       \
        check_test = #test;                                                    \
        int before_ = check_failures;                                          \
        test();                                                                \
        printf("%s %s\n", check_failures == before_ ? "PASS" : "FAIL", #test); \
    } while (0)

#endif
