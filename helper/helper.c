/*
 * veil-decoder: decodes one still image for the compositor that started it, in a sandbox
 * (helper/sandbox.c), and hands the pixels back in a sealed memfd (wire.h). Started by
 * source/remote/client.c with its socket as descriptor 3; not meant to be run by hand.
 */
#define _GNU_SOURCE /* close_range */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include "helper/serve.h"

int main(int argc, char *argv[]) {
	/* Nothing but the standard streams and the socket: whatever else leaked is closed. */
	close_range(VEIL_WIRE_FD + 1, ~0u, 0);
	struct veil_wire_request request;
	int fd;
	int ret = veil_serve_receive(VEIL_WIRE_FD, 1u << VEIL_WIRE_DECODE, &request, &fd);
	if (ret == -EPIPE) {
		return 0; /* a spare helper (source/remote/spare.c) no longer needed */
	}
	if (ret < 0) {
		fprintf(stderr, "veil-decoder: no valid request (%d); started by hand?\n", ret);
		return 2;
	}
	ret = veil_serve_fork(VEIL_WIRE_FD, fd);
	if (ret < 0) {
		veil_serve_fail(VEIL_WIRE_FD, ret, "cannot start the decoding process");
		return 1;
	}
	/* _exit: no atexit handlers (GStreamer's, the sanitizers') run in the sandbox. */
	_exit(veil_serve_decode(VEIL_WIRE_FD, &request, fd));
}
