#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "module/message.h"

static char *format(const char *fmt, va_list args) {
	va_list copy;
	va_copy(copy, args);
	int len = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (len < 0) {
		return NULL;
	}
	char *str = malloc((size_t)len + 1);
	if (str == NULL) {
		return NULL;
	}
	vsnprintf(str, (size_t)len + 1, fmt, args);
	return str;
}

char *veil_message(const char *fmt, ...) {
	va_list args;
	va_start(args, fmt);
	char *str = format(fmt, args);
	va_end(args);
	return str;
}

void veil_message_set(char **dst, const char *fmt, ...) {
	if (dst == NULL) {
		return;
	}
	va_list args;
	va_start(args, fmt);
	*dst = format(fmt, args);
	va_end(args);
}
