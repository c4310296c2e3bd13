#ifndef VEIL_MODULE_WLR_CHECK_H
#define VEIL_MODULE_WLR_CHECK_H

#include <stdbool.h>

/*
 * Whether the wlroots this process calls is the minor version veil was built for; logs why not.
 * veil_scene_create() refuses to start otherwise.
 */
bool veil_wlroots_check(void);

#endif
