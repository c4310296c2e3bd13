#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>
#include "source/video/video.h"
#include "util/message.h"

/*
 * The one hand-off of frames between threads: a streaming thread puts the newest sample in and
 * writes an eventfd when the slot was empty, so that the compositor wakes at most once a frame;
 * the compositor thread reads the eventfd, wraps the sample as a wlr_buffer
 * (scene/sample_buffer.c) and sets it as the source's frame.
 */

int veil_video_mailbox_init(struct veil_video_mailbox *mailbox) {
	*mailbox = (struct veil_video_mailbox){ .last_pts = GST_CLOCK_TIME_NONE };
	pthread_mutex_init(&mailbox->lock, NULL);
	mailbox->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return mailbox->wake_fd >= 0 ? 0 : -errno;
}

void veil_video_mailbox_finish(struct veil_video_mailbox *mailbox) {
	if (mailbox->sample != NULL) {
		gst_sample_unref(mailbox->sample);
	}
	if (mailbox->wake_fd >= 0) {
		close(mailbox->wake_fd);
	}
	pthread_mutex_destroy(&mailbox->lock);
}

GstSample *veil_video_mailbox_take_seam(struct veil_video_mailbox *mailbox, bool *seam) {
	pthread_mutex_lock(&mailbox->lock);
	GstSample *sample = mailbox->sample;
	mailbox->sample = NULL;
	if (seam != NULL) {
		*seam = mailbox->seam && sample != NULL;
	}
	if (sample != NULL) {
		mailbox->seam = false;
	}
	pthread_mutex_unlock(&mailbox->lock);
	return sample;
}

GstSample *veil_video_mailbox_take(struct veil_video_mailbox *mailbox) {
	return veil_video_mailbox_take_seam(mailbox, NULL);
}

void veil_video_mailbox_reset(struct veil_video_mailbox *mailbox) {
	pthread_mutex_lock(&mailbox->lock);
	GstSample *sample = mailbox->sample;
	mailbox->sample = NULL;
	mailbox->last_buffer = NULL;
	mailbox->last_pts = GST_CLOCK_TIME_NONE;
	mailbox->seam = false;
	pthread_mutex_unlock(&mailbox->lock);
	if (sample != NULL) {
		gst_sample_unref(sample);
	}
}

void veil_video_mailbox_read_wake(struct veil_video_mailbox *mailbox, const char *name) {
	uint64_t count;
	if (read(mailbox->wake_fd, &count, sizeof(count)) < 0 && errno != EAGAIN) {
		wlr_log_errno(WLR_ERROR, "veil: %s: cannot read the frame eventfd", name);
	}
	pthread_mutex_lock(&mailbox->lock);
	mailbox->wake_written = false;
	pthread_mutex_unlock(&mailbox->lock);
}

uint64_t veil_video_mailbox_delivered(struct veil_video_mailbox *mailbox) {
	pthread_mutex_lock(&mailbox->lock);
	uint64_t delivered = mailbox->delivered;
	pthread_mutex_unlock(&mailbox->lock);
	return delivered;
}

/* Streaming thread: a frame to show. Takes the sample. */
static void deliver(struct video_source *src, GstSample *sample) {
	struct veil_video_mailbox *mailbox = &src->mailbox;
	GstBuffer *buffer = gst_sample_get_buffer(sample);
	GstClockTime pts = buffer != NULL ? GST_BUFFER_PTS(buffer) : GST_CLOCK_TIME_NONE;

	pthread_mutex_lock(&mailbox->lock);
	/* A prerolled frame is rendered again when the pipeline plays: hand it over once. */
	bool again = buffer == mailbox->last_buffer && pts == mailbox->last_pts;
	/*
	 * Frames come in presentation order: one earlier than the last is the video's start
	 * again, after a loop's seek (segment or flushing). The first frame again after the seek
	 * that arms looping has the same time as before: no seam.
	 */
	if (!again && GST_CLOCK_TIME_IS_VALID(pts) && GST_CLOCK_TIME_IS_VALID(mailbox->last_pts) &&
			pts < mailbox->last_pts) {
		mailbox->seam = true;
	}
	mailbox->last_buffer = buffer;
	mailbox->last_pts = pts;
	pthread_mutex_unlock(&mailbox->lock);
	if (again) {
		gst_sample_unref(sample);
		return;
	}

	bool copied;
	sample = veil_video_pool_upload(&src->pool, src->udmabuf, src->linear_formats,
		src->n_linear_formats, sample, src->name, &copied);

	pthread_mutex_lock(&mailbox->lock);
	mailbox->copies += copied;
	GstSample *older = mailbox->sample;
	mailbox->sample = sample;
	mailbox->delivered++;
	if (older != NULL) {
		mailbox->dropped++;
	}
	/*
	 * One wake-up per frame at most, and none while an output owes a frame event: the
	 * compositor cannot show the frame before that event, and takes it then (frame_event).
	 * A sample still waiting when the next comes means the event is late: wake then.
	 */
	bool wake = !mailbox->wake_written && (!mailbox->frame_owed || older != NULL);
	mailbox->wake_written = mailbox->wake_written || wake;
	pthread_mutex_unlock(&mailbox->lock);

	if (older != NULL) {
		gst_sample_unref(older);
	}
	if (!wake) {
		return;
	}
	uint64_t one = 1;
	if (write(mailbox->wake_fd, &one, sizeof(one)) != sizeof(one)) {
		wlr_log_errno(WLR_ERROR, "veil: %s: cannot wake the compositor", src->name);
	}
}

GstFlowReturn veil_video_handle_new_sample(GstAppSink *sink, gpointer data) {
	GstSample *sample = gst_app_sink_pull_sample(sink);
	if (sample != NULL) {
		deliver(data, sample);
	}
	return GST_FLOW_OK;
}

GstFlowReturn veil_video_handle_new_preroll(GstAppSink *sink, gpointer data) {
	GstSample *sample = gst_app_sink_pull_preroll(sink);
	if (sample != NULL) {
		deliver(data, sample);
	}
	return GST_FLOW_OK;
}

struct wlr_buffer *veil_video_wrap_sample(struct video_source *src, GstSample *sample,
		int *err, char **message) {
	struct wlr_buffer *frame = NULL;
	*err = 0;
	GstCaps *caps = gst_sample_get_caps(sample);
	if (caps == NULL) {
		veil_message_set(message, "A video frame came without caps");
		*err = -EINVAL;
		goto out;
	}
	/* Samples share their pad's caps: parse them only when they change. */
	if (src->caps == NULL || (caps != src->caps && !gst_caps_is_equal(caps, src->caps))) {
		struct veil_sample_format format;
		char *why = NULL;
		*err = veil_sample_format_from_caps(&format, caps, &why);
		if (*err < 0) {
			veil_message_set(message, "The video can't be shown: %s",
				why != NULL ? why : "unsupported caps");
			free(why);
			goto out;
		}
		if (format.width > VEIL_VIDEO_MAX_SIDE || format.height > VEIL_VIDEO_MAX_SIDE) {
			veil_message_set(message, "The video is %dx%d, larger than %dx%d",
				format.width, format.height, VEIL_VIDEO_MAX_SIDE, VEIL_VIDEO_MAX_SIDE);
			*err = -EFBIG;
			goto out;
		}
		if (src->caps != NULL && (format.width != src->format.width ||
				format.height != src->format.height)) {
			wlr_log(WLR_INFO, "veil: %s: video size changed from %dx%d to %dx%d",
				src->name, src->format.width, src->format.height,
				format.width, format.height);
		}
		gst_caps_replace(&src->caps, caps);
		src->format = format;
		src->base.opaque = format.opaque;
	}

	int64_t position = veil_player_sample_position_ms(sample);
	frame = veil_sample_buffer_create_with_format(sample, &src->format);
	if (frame == NULL) {
		veil_message_set(message, "A video frame can't be handed to the renderer");
		*err = -ENOTSUP;
	} else {
		src->position_ms = position;
	}

out:
	gst_sample_unref(sample);
	return frame;
}

void veil_video_take_waiting_frame(struct video_source *src) {
	if (src->failed || !src->created) {
		return;
	}
	bool seam = false;
	GstSample *sample = veil_video_mailbox_take_seam(&src->mailbox, &seam);
	if (sample == NULL) {
		veil_video_log_decoder(src);
		return;
	}
	int err;
	char *message = NULL;
	struct wlr_buffer *frame = veil_video_wrap_sample(src, sample, &err, &message);
	if (frame == NULL) {
		veil_video_source_fail(src, message != NULL ? message : "The video can't be shown");
		free(message);
		return;
	}
	src->frames++;
	veil_video_log_decoder(src);
	if (seam && src->base.frame != NULL) {
		/* Holders see the loop's last frame still (a loopfade keeps it). */
		wl_signal_emit_mutable(&src->base.events.loop, &src->base);
	}
	/* Sets width and height from the frame: holders re-layout when the size changed. */
	veil_source_set_frame(&src->base, frame);
	wlr_buffer_drop(frame);
}

int veil_video_handle_wake(int fd, uint32_t mask, void *data) {
	struct video_source *src = data;
	src->wakeups++;
	veil_video_mailbox_read_wake(&src->mailbox, src->name);
	veil_video_take_waiting_frame(src);
	return 0;
}

void veil_video_set_frame_owed(struct video_source *src, bool owed) {
	struct veil_video_mailbox *mailbox = &src->mailbox;
	pthread_mutex_lock(&mailbox->lock);
	mailbox->frame_owed = owed;
	bool waiting = !owed && mailbox->sample != NULL && !mailbox->wake_written;
	pthread_mutex_unlock(&mailbox->lock);
	/* No event will come for a sample that waited for one: take it now. */
	if (waiting) {
		veil_video_take_waiting_frame(src);
	}
}
