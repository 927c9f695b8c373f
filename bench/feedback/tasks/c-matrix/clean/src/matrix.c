#include "matrix.h"

Matrix matrix_identity(void)
{
    Matrix r = {{{0}}};
    for (size_t i = 0; i < DIM; i++) {
        r.m[i][i] = 1.0;
    }
    return r;
}

Matrix matrix_multiply(const Matrix *a, const Matrix *b)
{
    Matrix r = {{{0}}};
    for (size_t i = 0; i < DIM; i++) {
        for (size_t j = 0; j < DIM; j++) {
            for (size_t k = 0; k < DIM; k++) {
                r.m[i][j] += a->m[i][k] * b->m[k][j];
            }
        }
    }
    return r;
}

Matrix matrix_transpose(const Matrix *a)
{
    Matrix r;
    for (size_t i = 0; i < DIM; i++) {
        for (size_t j = 0; j < DIM; j++) {
            r.m[j][i] = a->m[i][j];
        }
    }
    return r;
}

Vector matrix_apply(const Matrix *a, const Vector *x)
{
    Vector r = {{0}};
    for (size_t i = 0; i < DIM; i++) {
        Vector row;
        for (size_t j = 0; j < DIM; j++) {
            row.v[j] = a->m[i][j];
        }
        r.v[i] = vector_dot(&row, x);
    }
    return r;
}
