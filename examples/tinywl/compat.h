/*
 * The differences between the wlroots versions veil-tinywl builds against, kept in one place so
 * that the rest of the compositor reads as plain code for either of them.
 */
#ifndef TINYWL_COMPAT_H
#define TINYWL_COMPAT_H

#include "veil-config.h"

#if VEIL_WLR_MINOR >= 20
/* xdg_wm_base v7 added the "constrained" toplevel states. */
#define COMPAT_XDG_SHELL_VERSION 7
#else
#define COMPAT_XDG_SHELL_VERSION 6
#endif

/*
 * Both versions have ext-image-copy-capture-v1 and its output source; 0.19's headers include the
 * generated protocol header, which meson generates for both (see examples/meson.build).
 */
#define COMPAT_EXT_IMAGE_COPY_CAPTURE_VERSION 1
#define COMPAT_EXT_OUTPUT_IMAGE_CAPTURE_SOURCE_VERSION 1

#endif
