#include "calc.h"

#include <ctype.h>
#include <string.h>

static long parse_sum(Parser *p);

static void skip_space(Parser *p)
{
    while (isspace((unsigned char)p->text[p->pos])) {
        p->pos++;
    }
}

static bool accept(Parser *p, char c)
{
    skip_space(p);
    if (p->text[p->pos] == c) {
        p->pos++;
        return true;
    }
    return false;
}

static long parse_number(Parser *p)
{
    skip_space(p);
    if (!isdigit((unsigned char)p->text[p->pos])) {
        p->failed = true;
        return 0;
    }
    long value = 0;
    while (isdigit((unsigned char)p->text[p->pos])) {
        value = value * 10 + (p->text[p->pos] - '0');
        p->pos++;
    }
    return value;
}

static long parse_atom(Parser *p)
{
    if (accept(p, '(')) {
        long value = parse_sum(p);
        if (!accept(p, ')')) {
            p->failed = true;
        }
        return value;
    }
    if (accept(p, '-')) {
        return -parse_atom(p);
    }
    return parse_number(p);
}

static long parse_product(Parser *p)
{
    long value = parse_atom(p);
    for (;;) {
        if (accept(p, '*')) {
            value *= parse_atom(p);
        } else if (accept(p, '/')) {
            long divisor = parse_atom(p);
            if (divisor == 0) {
                p->failed = true;
                return 0;
            }
            value /= divisor;
        } else {
            return value;
        }
    }
}

static long parse_sum(Parser *p)
{
    long value = parse_product(p);
    for (;;) {
        if (accept(p, '+')) {
            value += parse_product(p);
        } else if (accept(p, '-')) {
            value -= parse_product(p);
        } else {
            return value;
        }
    }
}

bool calc_eval(const char *text, long *result)
{
    Parser p = {text, 0, false};
    long value = parse_sum(&p);
    skip_space(&p);
    if (p.failed || p.text[p.pos] != '\0') {
        return false;
    }
    *result = value;
    return true;
}

size_t calc_count_tokens(const char *text)
{
    size_t tokens = 0;
    size_t len = strlen(text);
    for (size_t i = 0; i < len; i++) {
        if (isdigit((unsigned char)text[i])) {
            while (i + 1 < len && isdigit((unsigned char)text[i + 1])) {
                i++;
            }
            tokens++;
        } else if (strchr("+-*/()", text[i]) != NULL) {
            tokens++;
        }
    }
    return tokens;
}
