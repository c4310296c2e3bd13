/*
 * Words given per output name or "*" that are not wallpapers (`fps` and `battery`,
 * module/policy/; `xray` and `blur`, module/xray/): an entry per name, embedded first in the
 * room's own struct, with a bit per word given. An output's own word beats "*"'s, and
 * `output * veil <word>` replaces the outputs' own word on the same thing, as settings do.
 */
#ifndef VEIL_MODULE_CORE_PER_OUTPUT_H
#define VEIL_MODULE_CORE_PER_OUTPUT_H

#include <stddef.h>
#include <wayland-server-core.h>

struct veil_per_output {
	struct wl_list link; /* the room's list */
	char *name; /* an output name or "*" */
	unsigned given; /* a bit per word given for the name */
};

/* name's entry in list (veil_per_output.link), or NULL. */
struct veil_per_output *veil_per_output_find(struct wl_list *list, const char *name);
/*
 * The entry whose word (a bit) applies to the output named name: its own, else "*"'s; or NULL
 * when neither was given the word.
 */
struct veil_per_output *veil_per_output_resolve(struct wl_list *list, const char *name,
	unsigned word);
/*
 * Gives name the word (a bit): for "*", the outputs' own word on the same thing goes first (an
 * entry left with no word is destroyed). Returns name's entry, found or made (size bytes of
 * zeroes, the entry first in them), for the caller to write the word's value in; NULL without
 * memory.
 */
struct veil_per_output *veil_per_output_set(struct wl_list *list, const char *name,
	unsigned word, size_t size);
/* Takes the entry out of its list and frees it, with the struct it is first in. */
void veil_per_output_destroy(struct veil_per_output *entry);
/* Destroys every entry of list. */
void veil_per_output_finish(struct wl_list *list);

#endif
