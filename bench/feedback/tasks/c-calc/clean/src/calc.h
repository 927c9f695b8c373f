#ifndef CALC_H
#define CALC_H

#include <stdbool.h>
#include <stddef.h>

/* Integer arithmetic expressions: + - * / and parentheses, left to right
   within a precedence level. */
typedef struct {
    const char *text;
    size_t pos;
    bool failed;
} Parser;

bool calc_eval(const char *text, long *result);
size_t calc_count_tokens(const char *text);

#endif
