#include "str.h"

#include <ctype.h>
#include <string.h>

char *str_trim(char *s)
{
    while (isspace((unsigned char)*s)) {
        s++;
    }
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1])) {
        len--;
    }
    s[len] = '\0';
    return s;
}

size_t str_count_fields(const char *s, char sep)
{
    if (*s == '\0') {
        return 0;
    }
    size_t fields = 1;
    for (; *s != '\0'; s++) {
        if (*s == sep) {
            fields++;
        }
    }
    return fields;
}

void str_upper(char *s)
{
    for (; *s != '\0'; s++) {
        *s = (char)toupper((unsigned char)*s);
    }
}

bool str_starts_with(const char *s, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(s, prefix, n) == 0;
}

size_t str_replace_char(char *s, char from, char to)
{
    size_t replaced = 0;
    for (; *s != '\0'; s++) {
        if (*s == from) {
            *s = to;
            replaced++;
        }
    }
    return replaced;
}
