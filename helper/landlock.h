/*
 * The files veil-decoder may still read once it is sandboxed, with landlock where the kernel
 * has it (Linux 5.13 and later): the system's libraries, plugins and data under /usr, glibc's
 * library cache, its own /proc entries, the CPU topology, GStreamer's registry and the plugin
 * directories the compositor's environment names, and the file the compositor sent (opened
 * again through /proc/self/fd: a video's demuxer seeks in it); /dev may be listed. Nothing may
 * be written, made, removed or renamed anywhere; on ABI 4 and later no TCP port bound or
 * connected; on ABI 6 and later no abstract socket outside the sandbox connected, no process
 * outside it signalled.
 */
#ifndef VEIL_HELPER_LANDLOCK_H
#define VEIL_HELPER_LANDLOCK_H

#include <stdbool.h>

/*
 * Restricts the calling process (and every thread it starts afterwards) to the above; needs
 * no_new_privs set already. 0 when restricted; -ENOSYS or -EOPNOTSUPP when the kernel has no
 * landlock (nothing changed); another negative errno with a sentence in *message. file: the
 * descriptor of the file the compositor sent, -1 for none. signals: no signal may be sent to a
 * process outside the domain (where the kernel scopes them, landlock ABI 6); the monitor's
 * domain allows them, for its child's parent-death signal, which the kernel sends as it.
 */
int veil_landlock_restrict(int file, bool signals, char **message);

#endif
