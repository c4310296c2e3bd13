/* A status description printed, as text or as JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "clients/veilctl/veilctl.h"
#include "veil-control-unstable-v1-client-protocol.h"
#include "util/mode_protocol.h"

const char *veilctl_kind_name(uint32_t kind) {
	static const char *const names[] = { "none", "off", "color", "image", "video" };
	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "unknown";
}

const char *veilctl_state_name(uint32_t state) {
	static const char *const names[] = { "off", "shown", "paused", "hidden" };
	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "unknown";
}

/* A mode as the protocol numbers it (util/mode_protocol.h). */
static const char *mode_name(uint32_t number) {
	enum veil_mode mode;
	return veil_mode_from_protocol(number, &mode) ? veil_mode_name(mode) : "unknown";
}

void veilctl_json_string_print(const char *s) {
	if (s == NULL) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", stdout);
			break;
		case '\\':
			fputs("\\\\", stdout);
			break;
		case '\n':
			fputs("\\n", stdout);
			break;
		case '\t':
			fputs("\\t", stdout);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				printf("\\u%04x", *p);
			} else {
				putchar(*p);
			}
		}
	}
	putchar('"');
}

void veilctl_status_print_json(const struct status *status, const char *only) {
	putchar('{');
	bool first = true;
	for (size_t i = 0; i < status->n_outputs; i++) {
		const struct output_status *o = &status->outputs[i];
		if (only != NULL && strcmp(only, o->name) != 0) {
			continue;
		}
		if (!first) {
			putchar(',');
		}
		first = false;
		veilctl_json_string_print(o->name);
		printf(":{\"kind\":\"%s\",\"state\":\"%s\",\"setting\":", veilctl_kind_name(o->kind),
			veilctl_state_name(o->state));
		veilctl_json_string_print(o->setting);
		if (o->has_mode) {
			printf(",\"mode\":\"%s\",\"color\":\"#%06" PRIx32 "\"", mode_name(o->mode),
				o->color & 0xffffff);
		}
		if (o->label != NULL) {
			fputs(",\"file\":", stdout);
			veilctl_json_string_print(o->label);
			printf(",\"width\":%" PRIu32 ",\"height\":%" PRIu32, o->width, o->height);
		}
		if (o->decoder != NULL) {
			fputs(",\"decoder\":", stdout);
			veilctl_json_string_print(o->decoder);
		}
		printf(",\"frames\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"error\":", o->shown,
			o->dropped);
		veilctl_json_string_print(o->error);
		/* The compositor wrote the values as JSON: they go out as they came. */
		for (size_t j = 0; j < o->n_details; j++) {
			putchar(',');
			veilctl_json_string_print(o->details[j].name);
			printf(":%s", o->details[j].value);
		}
		putchar('}');
	}
	puts("}");
}

void veilctl_status_print_text(const struct status *status, const char *only) {
	if (status->n_outputs == 0) {
		puts("The compositor has no outputs.");
		return;
	}
	for (size_t i = 0; i < status->n_outputs; i++) {
		const struct output_status *o = &status->outputs[i];
		if (only != NULL && strcmp(only, o->name) != 0) {
			continue;
		}
		printf("%s: %s, %s\n", o->name, veilctl_kind_name(o->kind), veilctl_state_name(o->state));
		if (o->setting != NULL) {
			printf("  setting: %s\n", strcmp(o->setting, "*") == 0 ?
				"* (every output)" : o->setting);
		}
		if (o->has_mode) {
			printf("  mode:    %s, #%06" PRIx32 "\n", mode_name(o->mode),
				o->color & 0xffffff);
		}
		if (o->label != NULL) {
			printf("  file:    %s", o->label);
			if (o->width > 0 && o->height > 0) {
				printf(" (%" PRIu32 "x%" PRIu32 ")", o->width, o->height);
			}
			putchar('\n');
		}
		if (o->decoder != NULL) {
			printf("  decoder: %s\n", o->decoder);
		}
		printf("  frames:  %" PRIu64 " shown, %" PRIu64 " dropped\n", o->shown, o->dropped);
		if (o->error != NULL) {
			printf("  error:   %s\n", o->error);
		}
		for (size_t j = 0; j < o->n_details; j++) {
			const struct detail *d = &o->details[j];
			/* The source's internals and the node count are for --json. */
			if (strcmp(d->value, "null") != 0 && strcmp(d->value, "false") != 0 &&
					strcmp(d->name, "source") != 0 && strcmp(d->name, "nodes") != 0) {
				printf("  %s: %s\n", d->name, d->value);
			}
		}
	}
}
