#include "check.h"
#include "matrix.h"

static const Matrix A = {{{1, 2, 3}, {4, 5, 6}, {7, 8, 10}}};

static void test_identity_changes_nothing(void)
{
    Matrix i = matrix_identity();
    Matrix r = matrix_multiply(&A, &i);
    CHECK_EQ(6, r.m[1][2]);
    CHECK_EQ(10, r.m[2][2]);
}

static void test_multiply(void)
{
    Matrix r = matrix_multiply(&A, &A);
    CHECK_EQ(30, r.m[0][0]);
    CHECK_EQ(81, r.m[1][1]);
}

static void test_transpose(void)
{
    Matrix t = matrix_transpose(&A);
    CHECK_EQ(2, t.m[1][0]);
    CHECK_EQ(8, t.m[1][2]);
}

static void test_apply_and_scale(void)
{
    Vector x = {{1, 0, -1}};
    Vector y = matrix_apply(&A, &x);
    CHECK_EQ(-2, y.v[0]);
    CHECK_EQ(-3, y.v[2]);
    Vector z = vector_scale(&y, -2);
    CHECK_EQ(6, z.v[2]);
}

int main(void)
{
    RUN(test_identity_changes_nothing);
    RUN(test_multiply);
    RUN(test_transpose);
    RUN(test_apply_and_scale);
    return check_failures != 0;
}
