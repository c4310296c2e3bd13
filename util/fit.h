/*
 * Which of a wallpaper's pictures suits an output: one rule for KDE Plasma wallpaper packages
 * (contents/images/WxH.ext) and the <size> choices of a GNOME background XML.
 *
 * GNOME's rule (gnome-desktop's gnome-bg.c, find_best_size()), in the output's buffer pixels
 * (its logical size times its scale, turned by its transform: a portrait output is taller than
 * wide): first among the pictures at least as large as the output on both sides, else among all
 * of them, the one whose aspect ratio is nearest the output's, and of those with the same ratio
 * the one whose width is nearest the output's. A 21:9 output (2.39) thus gets a 16:9 picture
 * (1.78, cropped top and bottom) rather than a 32:9 one (3.56, cropped more at the sides).
 * Before the output has a size (0x0), the largest picture. Pure: no files, no outputs.
 */
#ifndef VEIL_UTIL_FIT_H
#define VEIL_UTIL_FIT_H

#include <stdbool.h>
#include <stddef.h>

struct veil_fit_size {
	int width, height;
};

/*
 * The index of the picture of sizes that fits an output of width x height buffer pixels best,
 * or -1 when n is 0 (sizes of 0 or less are passed over; -1 when all are).
 */
int veil_fit_choose(const struct veil_fit_size *sizes, size_t n, int width, int height);

/*
 * Why that picture, for the status, into buf: "16:9, at least 1920x1080" (its ratio, as large
 * as the output or larger), or "16:9, the largest (smaller than 2560x1440)".
 */
void veil_fit_why(const struct veil_fit_size *picture, int width, int height, char *buf,
	size_t size);

/* A picture's size from its file name, "1920x1080.png": false for any other name. */
bool veil_fit_size_from_name(const char *name, struct veil_fit_size *size);

#endif
