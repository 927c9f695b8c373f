#include "ring.h"

#include <stdlib.h>

bool ring_init(Ring *ring, size_t capacity)
{
    ring->data = calloc(capacity, sizeof *ring->data);
    ring->capacity = capacity;
    ring->head = 0;
    ring->count = 0;
    return ring->data != NULL;
}

void ring_free(Ring *ring)
{
    free(ring->data);
    ring->data = NULL;
    ring->capacity = ring->count = 0;
}

void ring_push(Ring *ring, int value)
{
    size_t tail = (ring->head + ring->count) % ring->capacity;
    ring->data[tail] = value;

    if (ring->count < ring->capacity) {
        ring->count++;
    } else {
        ring->head = (ring->head + 1) % ring->capacity;
    }
}

bool ring_pop(Ring *ring, int *out)
{
    if (ring->count == 0) {
        return false;
    }
    *out = ring->data[ring->head];
    ring->head = (ring->head + 1) % ring->capacity;
    ring->count--;
    return true;
}

size_t ring_copy(const Ring *ring, int *out, size_t max)
{
    size_t n = ring->count < max ? ring->count : max;
    for (size_t i = 0; i < n; i++) {
        out[i] = ring->data[(ring->head + i) % ring->capacity];
    }
    return n;
}

long ring_sum(const Ring *ring)
{
    long sum = 0;
    for (size_t i = 0; i < ring->count; i++) {
        sum += ring->data[(ring->head + i) % ring->capacity];
    }
    return sum;
}
