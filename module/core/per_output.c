/* Words given per output name or "*": module/core/per_output.h. */
#include <stdlib.h>
#include <string.h>
#include "module/core/per_output.h"

struct veil_per_output *veil_per_output_find(struct wl_list *list, const char *name) {
	struct veil_per_output *entry;
	wl_list_for_each(entry, list, link) {
		if (strcmp(entry->name, name) == 0) {
			return entry;
		}
	}
	return NULL;
}

struct veil_per_output *veil_per_output_resolve(struct wl_list *list, const char *name,
		unsigned word) {
	struct veil_per_output *entry = veil_per_output_find(list, name);
	if (entry == NULL || !(entry->given & word)) {
		entry = veil_per_output_find(list, "*");
	}
	return entry != NULL && (entry->given & word) ? entry : NULL;
}

void veil_per_output_destroy(struct veil_per_output *entry) {
	if (entry == NULL) {
		return;
	}
	wl_list_remove(&entry->link);
	free(entry->name);
	free(entry);
}

void veil_per_output_finish(struct wl_list *list) {
	struct veil_per_output *entry, *tmp;
	wl_list_for_each_safe(entry, tmp, list, link) {
		veil_per_output_destroy(entry);
	}
}

struct veil_per_output *veil_per_output_set(struct wl_list *list, const char *name,
		unsigned word, size_t size) {
	if (strcmp(name, "*") == 0) {
		struct veil_per_output *entry, *tmp;
		wl_list_for_each_safe(entry, tmp, list, link) {
			entry->given &= ~word;
			if (entry->given == 0) {
				veil_per_output_destroy(entry);
			}
		}
	}
	struct veil_per_output *entry = veil_per_output_find(list, name);
	if (entry == NULL) {
		entry = calloc(1, size);
		if (entry == NULL || (entry->name = strdup(name)) == NULL) {
			free(entry);
			return NULL;
		}
		wl_list_insert(list, &entry->link);
	}
	entry->given |= word;
	return entry;
}
