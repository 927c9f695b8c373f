#include "matrix.h"

double vector_dot(const Vector *a, const Vector *b)
{
    double sum = 0.0;
    for (size_t i = 0; i < DIM; i++) {
        sum += a->v[i] * b->v[i];
    }
    return sum;
}

Vector vector_scale(const Vector *a, double k)
{
    Vector r;
    for (size_t i = 0; i < DIM; i++) {
        r.v[i] = a->v[i] * k;
    }
    return r;
}
