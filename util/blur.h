/*
 * A Gaussian-like blur of a picture's pixels (pure: no wlroots, no threads): three box blurs
 * along each axis, whose widths are chosen so that together they have the Gaussian's variance
 * (W. Kovesi, "Fast almost-Gaussian filtering", 2010). Pixels outside the picture are taken to
 * be those of its edge, as ImageMagick's default virtual pixels are.
 */
#ifndef VEIL_UTIL_BLUR_H
#define VEIL_UTIL_BLUR_H

struct veil_image;

/* Standard deviations of `veil blur <px>`: 1 to this many logical pixels. */
#define VEIL_BLUR_MAX 200
#define VEIL_BLUR_DEFAULT 20

/*
 * How many times smaller per axis a picture may be blurred with standard deviation sigma and
 * then scaled up bilinear, losing nothing one can see: the reduced picture's blur keeps a
 * standard deviation of at least 4 of its pixels. 1 to 8.
 */
int veil_blur_reduction(double sigma);

/*
 * Blurs image (DRM_FORMAT_ARGB8888 premultiplied or XRGB8888) in place with standard
 * deviation sigma, in its own pixels. 0, or -ENOMEM (the image is then unchanged).
 */
int veil_blur_image(struct veil_image *image, double sigma);

/*
 * veil_blur_image() of a picture reduced `reduction` times a side from the one it stands for:
 * outside it, the blur reads the full picture's edge row (as ImageMagick's does) rather than
 * the reduced picture's, whose edge row is the mean of `reduction` rows: the edge of the full
 * picture is estimated from the reduced one's two outer rows (extrapolated to where its first
 * row's centre is) and repeated outwards. A reduction of 1 or less is veil_blur_image().
 */
int veil_blur_image_reduced(struct veil_image *image, double sigma, double reduction);

#endif
