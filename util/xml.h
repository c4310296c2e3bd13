#ifndef VEIL_UTIL_XML_H
#define VEIL_UTIL_XML_H

#include "veil-config.h"
#if VEIL_HAVE_LIBXML2
#include <stdbool.h>
#include <stddef.h>
#include <libxml/tree.h>

/*
 * XML from a file veil did not write (a timed background, a HEIF's XMP), read as such: no
 * network, no DTD loaded, no entity substituted (no XML_PARSE_NOENT, and no external entity
 * where libxml2 can refuse them), libxml2's own limits on depth and text (no XML_PARSE_HUGE),
 * errors kept rather than printed. Returns the document, to free with xmlFreeDoc(); or NULL with
 * *why, malloc()ed: "not well-formed XML (line N): <libxml2's reason>" (NULL when out of
 * memory). A document with a DOCTYPE is refused: "XML with a DOCTYPE (...)". Either reads
 * after "'file' is ".
 */
xmlDoc *veil_xml_read(const char *data, size_t size, char **why);
/*
 * The same, but a DOCTYPE that only names an external DTD (never loaded) and declares nothing
 * is read: GNOME's wallpaper lists have `<!DOCTYPE wallpapers SYSTEM "gnome-wp-list.dtd">`.
 */
xmlDoc *veil_xml_read_named_dtd(const char *data, size_t size, char **why);

#endif
#endif
