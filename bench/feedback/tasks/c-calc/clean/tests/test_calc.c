#include "calc.h"
#include "check.h"

static long eval(const char *text)
{
    long result = -999;
    if (!calc_eval(text, &result)) {
        return -999;
    }
    return result;
}

static void test_numbers(void)
{
    CHECK_EQ(0, eval("0"));
    CHECK_EQ(42, eval(" 42 "));
    CHECK_EQ(-7, eval("-7"));
}

static void test_precedence(void)
{
    CHECK_EQ(7, eval("1 + 2 * 3"));
    CHECK_EQ(9, eval("(1 + 2) * 3"));
    CHECK_EQ(2, eval("8 / 2 / 2"));
    CHECK_EQ(1, eval("6 - 3 - 2"));
}

static void test_errors(void)
{
    CHECK_EQ(-999, eval("1 +"));
    CHECK_EQ(-999, eval("(1 + 2"));
    CHECK_EQ(-999, eval("4 / 0"));
    CHECK_EQ(-999, eval("2 2"));
}

static void test_count_tokens(void)
{
    CHECK_EQ(7, calc_count_tokens("(12 + 3) * 4"));
    CHECK_EQ(0, calc_count_tokens("   "));
}

int main(void)
{
    RUN(test_numbers);
    RUN(test_precedence);
    RUN(test_errors);
    RUN(test_count_tokens);
    return check_failures != 0;
}
