/*
 * veil-decoder's side of wire/wire.h, shared by its main() and by the tests' hostile
 * helper (tests/integration/hostile-decoder.c), which misbehaves on request and otherwise
 * decodes as the real one does.
 */
#ifndef VEIL_HELPER_SERVE_H
#define VEIL_HELPER_SERVE_H

#include <stddef.h>
#include <stdint.h>
#include "util/image.h"
#include "wire/wire.h"

/*
 * Receives a request of one of the ops (a mask of 1 << op): DECODE with the file's descriptor
 * (*fd), NEXT without one (*fd is -1), MEMORY with its dmabuf (or none, memory -1). 0, -EPIPE
 * when the compositor closed its end, -EPROTO for any other message, or another negative
 * errno.
 */
int veil_serve_receive(int sock, uint32_t ops, struct veil_wire_request *request, int *fd);
/*
 * Sends a reply, with pixels_fd when >= 0. The header's magic and version are filled in.
 * 0 or a negative errno.
 */
int veil_serve_send(int sock, struct veil_wire_reply *reply, int pixels_fd);
/* Sends a failure: status (negative errno) and a sentence. */
int veil_serve_fail(int sock, int status, const char *message);
/*
 * Forks the process that decodes. Returns 0 in it (it dies with its parent); in the parent,
 * the monitor, closes file, enters the sandbox, waits for the child, sends a -ECHILD reply
 * when the child ended without one (exit status not 0), and exits. A negative errno when fork
 * failed.
 */
int veil_serve_fork(int sock, int file);
/*
 * Makes size bytes of the heap ready to be written without a page fault each 4 KiB, for the
 * decoders' own buffers: once, before the sandbox, in a new decoding process.
 */
void veil_serve_prepare_heap(size_t size);
/*
 * A memfd of size bytes for a frame the helper writes again and again (an animation's or a
 * video's slot): sealed against growing and shrinking (not writing), mapped shared and
 * writable into *data, populated at once. 0, or a negative errno.
 */
int veil_serve_slot_memfd(size_t size, uint8_t **data, int *fd);
/* The bytes of a picture the size the request asks to cover; 0 when it asks for none. */
size_t veil_serve_cover_bytes(const struct veil_wire_request *request);
/* The filter a request shrinks with (a value the compositor would not send: smooth). */
enum veil_image_filter veil_serve_filter(const struct veil_wire_request *request);
/*
 * The real work for a request: GStreamer started when its decoder is the one asked for, the
 * sandbox entered, the file decoded with veil_still_decode(), the pixels put in a sealed memfd
 * and sent; an animation's request goes to veil_serve_anim(), a video's to veil_serve_video().
 * Returns the process's exit status: 0 once a reply (success or failure) is sent.
 */
int veil_serve_decode(int sock, const struct veil_wire_request *request, int fd);
/*
 * An animation (serve_anim.c): the sandbox entered, the file read and its decoder opened, then
 * one reply a frame, the first at once and each later one for a NEXT request, until the
 * compositor closes its end (exit status 0) or a frame fails (its reply sent, then 0).
 */
int veil_serve_anim(int sock, const struct veil_wire_request *request, int fd);
/*
 * A video (serve_video.c): GStreamer started, the sandbox entered (the file may be opened
 * again, without a CPU limit), its pipeline built and prerolled, then one reply a frame as it
 * plays, until the compositor closes its end (exit status 0) or the video fails (its reply
 * sent, then 0). NEXT requests release slots and play, pause or cap it.
 */
int veil_serve_video(int sock, const struct veil_wire_request *request, int fd);

#endif
