/*
 * GNOME's timed background XML (`<background><starttime>...<static>...<transition>...`) read
 * into a schedule (module/show/timed_schedule.h) with libxml2: no network, no DTD, no entity of its
 * own, at most VEIL_TIMED_XML_MAX_BYTES. Runs on a worker (module/show/timed.c).
 */
#ifndef VEIL_MODULE_TIMED_XML_H
#define VEIL_MODULE_TIMED_XML_H

#include <stdbool.h>
#include <stddef.h>
#include "module/show/timed_schedule.h"

/* GNOME's files are a few kilobytes. */
#define VEIL_TIMED_XML_MAX_BYTES (1 << 20)

/*
 * Parses size bytes of data, which name (the file, for messages) holds, into *schedule: file
 * names not starting with '/' are taken relative to dir. Checks the times, not the files.
 * 0, or -EINVAL (-ENOMEM) with *message naming the file; *schedule is empty on failure.
 */
int veil_timed_xml_parse(const char *data, size_t size, const char *name, const char *dir,
	struct veil_timed_schedule *schedule, char **message);
/*
 * Reads the file at path (resolved), parses it, and checks that each picture it names is a file
 * that can be read. Same result.
 */
int veil_timed_xml_load(const char *path, struct veil_timed_schedule *schedule, char **message);

#endif
