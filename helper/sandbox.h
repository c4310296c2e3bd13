/*
 * What veil-decoder gives up before it parses anything (docs/reliability.md, "The decoder
 * process", lists it): new privileges, memory and CPU time past its limits, core dumps, more
 * than a few descriptors, every file but the system's libraries and data (with landlock:
 * landlock.h), and every system call outside an allow-list (with libseccomp).
 */
#ifndef VEIL_HELPER_SANDBOX_H
#define VEIL_HELPER_SANDBOX_H

#include <stdint.h>
#include "wire/wire.h"

/* Address space: the largest image (VEIL_IMAGE_MAX_PIXELS * 4 = 512 MiB) several times over. */
#define VEIL_SANDBOX_MAX_MEMORY ((uint64_t)4 << 30)
/* CPU seconds of a still's decoding process (VEIL_WIRE_MAX_CPU, wire.h). */
#define VEIL_SANDBOX_MAX_CPU VEIL_WIRE_MAX_CPU
/* Open descriptors: GStreamer's pipeline needs a few pipes and eventfds, plugins mapped. */
#define VEIL_SANDBOX_MAX_FILES 64

/*
 * Applies it all to the calling process (every thread started afterwards inherits it), with
 * at most cpu_seconds of CPU time (0: no limit, for an animation's decoder, which runs as long
 * as it plays: the compositor limits each frame's wall-clock time instead). file, when >= 0,
 * is the descriptor the compositor sent, which may then be opened again through
 * /proc/self/fd (a video's demuxer reads it with filesrc, to seek). 0, or a negative errno with
 * a sentence in *message. Irreversible.
 */
int veil_sandbox_enter(int cpu_seconds, int file, char **message);
/*
 * The same for the monitor of a decoding process (helper/serve.c), which may still send
 * signals out of its landlock domain: the kernel sends its child's parent-death signal as the
 * dying monitor, and a domain scoped for signals left the decoding process running.
 */
int veil_sandbox_enter_monitor(char **message);

#endif
