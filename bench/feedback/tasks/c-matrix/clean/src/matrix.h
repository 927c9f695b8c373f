#ifndef MATRIX_H
#define MATRIX_H

#include <stddef.h>

/* Small dense matrices and vectors of doubles, row-major, sizes fixed. */
#define DIM 3

typedef struct {
    double v[DIM];
} Vector;

typedef struct {
    double m[DIM][DIM];
} Matrix;

Matrix matrix_identity(void);
Matrix matrix_multiply(const Matrix *a, const Matrix *b);
Matrix matrix_transpose(const Matrix *a);
Vector matrix_apply(const Matrix *a, const Vector *x);
double vector_dot(const Vector *a, const Vector *b);
Vector vector_scale(const Vector *a, double k);

#endif
