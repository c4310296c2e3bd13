/* A still frame repeated into a larger one, so that tile mode needs few scene nodes. */
#ifndef VEIL_SCENE_TILE_BUFFER_H
#define VEIL_SCENE_TILE_BUFFER_H

struct wlr_buffer;

/*
 * Repeats frame (which must allow read access to its data pointer, as veil's still frames do)
 * a whole number of times across and down, until it is at least min_width x min_height.
 * Returns a new buffer that the caller locks and drops (see veil_pixel_buffer_create()), or NULL
 * when frame cannot be read or memory is short.
 */
struct wlr_buffer *veil_tile_buffer_create(struct wlr_buffer *frame, int min_width,
	int min_height);

#endif
