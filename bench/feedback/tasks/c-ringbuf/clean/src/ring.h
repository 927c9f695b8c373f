#ifndef RING_H
#define RING_H

#include <stdbool.h>
#include <stddef.h>

/* A fixed-size ring buffer of ints: the oldest value is dropped when full. */
typedef struct {
    int *data;
    size_t capacity;
    size_t head; /* index of the oldest value */
    size_t count;
} Ring;

bool ring_init(Ring *ring, size_t capacity);
void ring_free(Ring *ring);
void ring_push(Ring *ring, int value);
bool ring_pop(Ring *ring, int *out);
size_t ring_copy(const Ring *ring, int *out, size_t max);
long ring_sum(const Ring *ring);

#endif
