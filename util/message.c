#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/message.h"

char *veil_message_v(const char *fmt, va_list args) {
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
	char *str = veil_message_v(fmt, args);
	va_end(args);
	return str;
}

void veil_message_set(char **dst, const char *fmt, ...) {
	if (dst == NULL) {
		return;
	}
	va_list args;
	va_start(args, fmt);
	*dst = veil_message_v(fmt, args);
	va_end(args);
}

int veil_message_fail(char **message, int err, const char *fmt, ...) {
	if (message != NULL) {
		va_list args;
		va_start(args, fmt);
		*message = veil_message_v(fmt, args);
		va_end(args);
	}
	return err;
}

size_t veil_utf8_length(const unsigned char *p) {
	size_t len;
	if (p[0] < 0x80) {
		return 1;
	} else if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
	} else {
		return 0;
	}
	/* The second byte's range rules out overlong forms, surrogates and code points too high. */
	unsigned char lo = p[0] == 0xe0 ? 0xa0 : p[0] == 0xf0 ? 0x90 : 0x80;
	unsigned char hi = p[0] == 0xed ? 0x9f : p[0] == 0xf4 ? 0x8f : 0xbf;
	if (p[1] < lo || p[1] > hi) {
		return 0;
	}
	for (size_t i = 2; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			return 0;
		}
	}
	return len;
}

bool veil_utf8_printable(const char *str) {
	const unsigned char *p = (const unsigned char *)str;
	while (*p != '\0') {
		size_t len = veil_utf8_length(p);
		if (len == 0 || *p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] < 0xa0) ||
				(p[0] == 0xef && p[1] == 0xbf && p[2] == 0xbd)) {
			return false;
		}
		p += len;
	}
	return true;
}

const char *veil_message_quote(char buf[static VEIL_QUOTE_SIZE], const char *word) {
	const unsigned char *p = (const unsigned char *)word;
	size_t len = 0;
	while (*p != '\0') {
		size_t n = veil_utf8_length(p);
		if (len + (n > 0 ? n : 1) > VEIL_QUOTE_SIZE - sizeof("...")) {
			memcpy(buf + len, "...", sizeof("..."));
			return buf;
		}
		if (n == 0 || *p < 0x20 || *p == 0x7f) {
			buf[len++] = '?';
			p++;
		} else {
			memcpy(buf + len, p, n);
			len += n;
			p += n;
		}
	}
	buf[len] = '\0';
	return buf;
}

char *veil_message_sanitize(char *str) {
	if (str == NULL) {
		return NULL;
	}
	unsigned char *p = (unsigned char *)str;
	while (*p != '\0') {
		size_t len = veil_utf8_length(p);
		if (len == 0) {
			*p++ = '?';
		} else if (len == 1 && *p < 0x20) {
			*p++ = ' ';
		} else {
			p += len;
		}
	}
	return str;
}
