#include <string.h>

#include "check.h"
#include "str.h"

static void test_trim(void)
{
    char text[] = "  hello world \t\n";
    CHECK_EQ(0, strcmp("hello world", str_trim(text)));
    char blank[] = "   ";
    CHECK_EQ(0, strlen(str_trim(blank)));
}

static void test_count_fields(void)
{
    CHECK_EQ(3, str_count_fields("a,b,c", ','));
    CHECK_EQ(2, str_count_fields("a,", ','));
    CHECK_EQ(0, str_count_fields("", ','));
}

static void test_upper(void)
{
    char text[] = "abc-1";
    str_upper(text);
    CHECK_EQ(0, strcmp("ABC-1", text));
}

static void test_starts_with(void)
{
    CHECK_EQ(1, str_starts_with("run-check", "run"));
    CHECK_EQ(0, str_starts_with("run", "run-check"));
    CHECK_EQ(1, str_starts_with("x", ""));
}

static void test_replace_char(void)
{
    char text[] = "a-b-c";
    CHECK_EQ(2, str_replace_char(text, '-', '_'));
    CHECK_EQ(0, strcmp("a_b_c", text));
}

int main(void)
{
    RUN(test_trim);
    RUN(test_count_fields);
    RUN(test_upper);
    RUN(test_starts_with);
    RUN(test_replace_char);
    return check_failures != 0;
}
