/* A look's strings: copied with it, freed with it (struct veil_look, module/words/command.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "module/words/command.h"

int veil_look_copy(struct veil_look *dst, const struct veil_look *src) {
	*dst = *src;
	if (src->dark_path != NULL && (dst->dark_path = strdup(src->dark_path)) == NULL) {
		*dst = (struct veil_look){0};
		return -ENOMEM;
	}
	return 0;
}

void veil_look_finish(struct veil_look *look) {
	if (look == NULL) {
		return;
	}
	free(look->dark_path);
	look->dark_path = NULL;
}
