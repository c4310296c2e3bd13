#include <stdlib.h>
#include "source/video/video.h"
#include "util/message.h"

/* Looping, the player's (player.c), with the source's count and its failure. */

/* The load job, after the first frame. */
void veil_video_start_looping(struct video_source *src) {
	veil_player_start_looping(&src->player);
}

void veil_video_handle_loop_end(struct video_source *src, bool eos) {
	src->loops++;
	char *message = NULL;
	if (veil_player_loop_end(&src->player, eos, veil_video_mailbox_delivered(&src->mailbox),
			&message) == VEIL_LOOP_STOP) {
		veil_video_source_fail(src, message != NULL ? message :
			"The video stopped on its last frame");
	}
	free(message);
}
