/*
 * veil's modes as the control protocol carries them (protocol/veil-control-unstable-v1.xml,
 * zveil_control_manager_v1.mode): the protocol numbers them as enum veil_mode does, so a mode
 * crosses it as its number, the same way in the compositor (module/control/control.c) and in
 * veilctl. Include it after either side's generated header: both define the protocol's enum, which
 * the checks below hold to veil's.
 */
#ifndef VEIL_UTIL_MODE_PROTOCOL_H
#define VEIL_UTIL_MODE_PROTOCOL_H

#include <stdbool.h>
#include <stdint.h>
#include "util/mode.h"

_Static_assert(ZVEIL_CONTROL_MANAGER_V1_MODE_STRETCH == (int)VEIL_MODE_STRETCH &&
	ZVEIL_CONTROL_MANAGER_V1_MODE_FILL == (int)VEIL_MODE_FILL &&
	ZVEIL_CONTROL_MANAGER_V1_MODE_FIT == (int)VEIL_MODE_FIT &&
	ZVEIL_CONTROL_MANAGER_V1_MODE_CENTER == (int)VEIL_MODE_CENTER &&
	ZVEIL_CONTROL_MANAGER_V1_MODE_TILE == (int)VEIL_MODE_TILE &&
	ZVEIL_CONTROL_MANAGER_V1_MODE_SOLID_COLOR == (int)VEIL_MODE_SOLID_COLOR &&
	ZVEIL_CONTROL_MANAGER_V1_MODE_INTEGER == (int)VEIL_MODE_INTEGER,
	"the control protocol's modes are numbered as enum veil_mode");

static inline uint32_t veil_mode_to_protocol(enum veil_mode mode) {
	return (uint32_t)mode;
}

/* false for a number the protocol does not define. */
static inline bool veil_mode_from_protocol(uint32_t number, enum veil_mode *mode) {
	if (veil_mode_name((enum veil_mode)number) == NULL) {
		return false;
	}
	*mode = (enum veil_mode)number;
	return true;
}

#endif
