#ifndef STR_H
#define STR_H

#include <stdbool.h>
#include <stddef.h>

/* Small string helpers over NUL-terminated strings, in place where they can. */
char *str_trim(char *s);
size_t str_count_fields(const char *s, char sep);
void str_upper(char *s);
bool str_starts_with(const char *s, const char *prefix);
size_t str_replace_char(char *s, char from, char to);

#endif
