/*
 * A file name in the words: control characters refused, `~` and `$VAR` expanded with wordexp()
 * as sway's bg does (no command substitution), the result joined and checked for length.
 */

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wordexp.h>
#include "module/words/command.h"
#include "module/words/words.h"
#include "util/message.h"

const char *veil_words_find_control(const char *s) {
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f) {
			return s;
		}
	}
	return NULL;
}

/* ASCII only: isalpha() would follow the compositor's locale, and the shell does not. */
bool veil_words_is_name_start(char c) {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_name_char(char c) {
	return veil_words_is_name_start(c) || (c >= '0' && c <= '9');
}

/*
 * Joins words with single spaces, as sway's join_args does, but leaves out empty words: they add
 * nothing to a name, and glibc's wordexp() makes one of a leading '' or "" ("''a" gives "" and
 * "a"), which would otherwise become a stray space.
 */
char *veil_words_join(char *const words[], size_t count) {
	size_t size = 1;
	for (size_t i = 0; i < count; i++) {
		size += strlen(words[i]) + 1;
	}
	char *joined = calloc(1, size);
	if (joined == NULL) {
		return NULL;
	}
	char *end = joined;
	for (size_t i = 0; i < count; i++) {
		if (words[i][0] == '\0') {
			continue;
		}
		if (end != joined) {
			*end++ = ' ';
		}
		size_t len = strlen(words[i]);
		memcpy(end, words[i], len + 1);
		end += len;
	}
	return joined;
}

/*
 * Rewrites a file name for wordexp() so that ~, $NAME, ${NAME...}, quotes and backslashes keep
 * their shell meaning but everything else is literal. Outside quotes a backslash goes before:
 *  - spaces, so that a name given quoted ("my  file.png", one word) keeps its spaces;
 *  - ; & | < > ( ) { }, which wordexp() refuses (WRDE_BADCHAR) but which are harmless in a file
 *    name: nothing is ever run, so there is no reason to refuse "a;b.png";
 *  - * ? [ ], as a wallpaper is one file: globbing in the compositor's directory would surprise;
 *  - a $ that starts no variable name: $1, $$ or $@ would expand to the compositor's own argv
 *    and pid, which no file name means.
 * Also finds the first variable that is not set, as wordexp()'s WRDE_BADVAL does not name it.
 */
static int escape_name(const char *name, char **escaped, char **unset, char **message) {
	char shown[VEIL_QUOTE_SIZE];
	const char *problem = NULL;
	char quote = '\0';

	/* At most one backslash is added per character. */
	char *out = malloc(2 * strlen(name) + 1);
	if (out == NULL) {
		return veil_message_fail(message, -ENOMEM, "Out of memory");
	}
	char *o = out;
	for (const char *p = name; *p != '\0'; p++) {
		if (quote == '\'') {
			quote = *p == '\'' ? '\0' : quote;
		} else if (*p == '\\') {
			if (p[1] == '\0') {
				problem = "ends in a backslash: write \\\\ for one that is part of the name";
				goto error;
			}
			*o++ = *p++;
		} else if (*p == '$') {
			bool braced = p[1] == '{';
			const char *var = p + 1 + braced;
			size_t len = 0;
			if (!veil_words_is_name_start(*var)) {
				*o++ = '\\';
			} else {
				len = 1;
				while (is_name_char(var[len])) {
					len++;
				}
				char *var_name = *unset == NULL ? strndup(var, len) : NULL;
				if (var_name != NULL && getenv(var_name) == NULL) {
					*unset = var_name;
				} else {
					free(var_name);
				}
			}
			if (braced && veil_words_is_name_start(*var)) {
				/* ${NAME...} goes to wordexp() whole, up to its '}'. */
				const char *end = strchr(var, '}');
				if (end == NULL) {
					problem = "has a ${ without its }";
					goto error;
				}
				/*
				 * But not ${NAME=word} or ${NAME:=word}: wordexp() would setenv() in
				 * the compositor, whose other threads read the environment; nor
				 * ${NAME?word} or ${NAME:?word}, whose word wordexp() prints on the
				 * compositor's stderr. Nor a $ in the word, which the rules above would
				 * not see ($$, $0, nested assignments).
				 */
				const char *op = var + len;
				if (op[0] == ':') {
					op++;
				}
				if (op[0] == '=') {
					problem = "assigns a variable (${NAME=...} or ${NAME:=...}): "
						"veil changes no environment, use ${NAME:-...}";
					goto error;
				}
				if (op[0] == '?') {
					problem = "has ${NAME?...} or ${NAME:?...}: use ${NAME} or "
						"${NAME:-...}";
					goto error;
				}
				if (memchr(op, '$', (size_t)(end - op)) != NULL) {
					problem = "has a $ inside ${...}: veil expands no nested "
						"variables";
					goto error;
				}
				memcpy(o, p, (size_t)(end - p));
				o += end - p;
				p = end;
			}
		} else if (quote == '"') {
			quote = *p == '"' ? '\0' : quote;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (strchr(" ;&|<>(){}*?[]", *p) != NULL) {
			*o++ = '\\';
		}
		*o++ = *p;
	}
	if (quote != '\0') {
		problem = quote == '"' ? "has a \" without its pair: write \\\" for one that is part of "
			"the name" : "has a ' without its pair: write \\' for one that is part of the name";
		goto error;
	}
	*o = '\0';
	*escaped = out;
	return 0;

error:
	free(out);
	return veil_message_fail(message, -EINVAL,
		"File name '%s' %s", veil_message_quote(shown, name), problem);
}

static int too_long(char **message, const char *name) {
	char shown[VEIL_QUOTE_SIZE];
	return veil_message_fail(message, -ENAMETOOLONG,
		"File name '%s' is too long: %zu bytes, at most %d",
		veil_message_quote(shown, name), strlen(name), PATH_MAX - 1);
}

/*
 * Expands ~ and $VAR in a file name with wordexp(), as sway's bg does, but with commands refused:
 * this runs inside the user's compositor. Relative names stay relative.
 */
int veil_words_expand_name(const char *name, char **path, char **message) {
	char shown[VEIL_QUOTE_SIZE], shown_var[VEIL_QUOTE_SIZE];
	char *escaped = NULL;
	char *unset = NULL;
	char *joined = NULL;
	wordexp_t words = {0};
	int ret;

	const char *control = veil_words_find_control(name);
	if (control != NULL) {
		ret = veil_message_fail(message, -EINVAL,
			"File name '%s' has a control character (byte 0x%02x): "
			"rename the file", veil_message_quote(shown, name), (unsigned char)*control);
		goto out;
	}
	/*
	 * Refused up front, quoted or not. escape_name() would only make "$(...)" a literal name,
	 * never run it, but such a name is far likelier a mistake than a file: say so. WRDE_NOCMD
	 * stays as the guard that wordexp() itself runs nothing.
	 */
	if (strstr(name, "$(") != NULL || strchr(name, '`') != NULL) {
		ret = veil_message_fail(message, -EINVAL,
			"File name '%s' has a command substitution ($(...) or "
			"`...`): veil runs no commands, give the file name itself",
			veil_message_quote(shown, name));
		goto out;
	}
	/* Expansion may shorten a name, but not this much: spare wordexp() 64 KiB of words. */
	if (strlen(name) >= PATH_MAX) {
		ret = too_long(message, name);
		goto out;
	}
	ret = escape_name(name, &escaped, &unset, message);
	if (ret < 0) {
		goto out;
	}

	switch (wordexp(escaped, &words, WRDE_NOCMD | WRDE_UNDEF)) {
	case 0:
		break;
	case WRDE_NOSPACE:
		/* The only error after which the words given so far are to be freed. */
		wordfree(&words);
		ret = veil_message_fail(message, -ENOMEM, "Out of memory");
		goto out;
	case WRDE_BADVAL:
		if (unset != NULL) {
			ret = veil_message_fail(message, -EINVAL, "Variable '%s' in file name '%s' is not set",
				veil_message_quote(shown_var, unset), veil_message_quote(shown, name));
		} else {
			ret = veil_message_fail(message, -EINVAL,
				"File name '%s' uses a variable that is not set",
				veil_message_quote(shown, name));
		}
		goto out;
	case WRDE_CMDSUB:
		ret = veil_message_fail(message, -EINVAL,
			"File name '%s' has a command substitution: veil runs "
			"no commands", veil_message_quote(shown, name));
		goto out;
	default:
		ret = veil_message_fail(message, -EINVAL, "File name '%s' is not valid shell syntax",
			veil_message_quote(shown, name));
		goto out;
	}

	/* Only a variable's value is split into several words: join them back, as sway does. */
	joined = veil_words_join(words.we_wordv, words.we_wordc);
	wordfree(&words);
	if (joined == NULL) {
		ret = veil_message_fail(message, -ENOMEM, "Out of memory");
		goto out;
	}
	if (joined[0] == '\0') {
		ret = veil_message_fail(message, -EINVAL, "File name '%s' is empty once expanded",
			veil_message_quote(shown, name));
		goto out;
	}
	control = veil_words_find_control(joined);
	if (control != NULL) {
		ret = veil_message_fail(message, -EINVAL,
			"File name '%s' has a control character (byte 0x%02x) "
			"once expanded", veil_message_quote(shown, name), (unsigned char)*control);
		goto out;
	}
	if (strlen(joined) >= PATH_MAX) {
		ret = too_long(message, joined);
		goto out;
	}
	*path = joined;
	joined = NULL;
	ret = 0;

out:
	free(joined);
	free(unset);
	free(escaped);
	return ret;
}
