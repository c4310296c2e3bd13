#include <stdlib.h>
#include "util/pixels.h"

static const struct veil_pixels_allocator *current;

void veil_pixels_set_allocator(const struct veil_pixels_allocator *allocator) {
	current = allocator;
}

void *veil_pixels_alloc(size_t size) {
	if (current != NULL) {
		return current->alloc(size);
	}
	return malloc(size);
}

void veil_pixels_free(void *data) {
	if (data == NULL) {
		return;
	}
	if (current != NULL) {
		current->free(data);
	} else {
		free(data);
	}
}
