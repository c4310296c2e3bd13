#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "decode/isolate/memfd_pixels.h"
#include "util/pixels.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/*
 * A decode holds at most a picture and its scaled copy at once: a few blocks are plenty. When
 * they are taken, or a memfd cannot be made, blocks come from the heap and are copied out.
 */
#define BLOCKS 8

struct block {
	void *data; /* NULL: a free slot */
	size_t size;
	int fd;
};

static struct block blocks[BLOCKS];
/* Decoders may allocate on GStreamer's streaming threads. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *memfd_alloc(size_t size) {
	if (size == 0) {
		return malloc(1);
	}
	int fd = memfd_create("veil-pixels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		return malloc(size);
	}
	void *data = MAP_FAILED;
	if (ftruncate(fd, (off_t)size) == 0) {
		data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	}
	if (data == MAP_FAILED) {
		close(fd);
		return malloc(size);
	}
	/* Without MADV_POPULATE_WRITE (Linux < 5.14) the pages fault in as they are written. */
	madvise(data, size, MADV_POPULATE_WRITE);
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < BLOCKS; i++) {
		if (blocks[i].data == NULL) {
			blocks[i] = (struct block){ .data = data, .size = size, .fd = fd };
			pthread_mutex_unlock(&lock);
			return data;
		}
	}
	pthread_mutex_unlock(&lock);
	munmap(data, size);
	close(fd);
	return malloc(size);
}

/* Takes data's block out of the table; false when data is the heap's. */
static bool take(void *data, struct block *out) {
	bool found = false;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < BLOCKS; i++) {
		if (blocks[i].data == data) {
			*out = blocks[i];
			blocks[i] = (struct block){0};
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return found;
}

static void memfd_free(void *data) {
	struct block block;
	if (!take(data, &block)) {
		free(data);
		return;
	}
	munmap(block.data, block.size);
	close(block.fd);
}

static const struct veil_pixels_allocator allocator = {
	.alloc = memfd_alloc,
	.free = memfd_free,
};

void veil_memfd_pixels_install(void) {
	veil_pixels_set_allocator(&allocator);
}

int veil_memfd_pixels_seal(void *data, int *fd) {
	struct block block;
	if (!take(data, &block)) {
		return -ENOENT;
	}
	/* F_SEAL_WRITE needs the file to have no writable mapping left. */
	munmap(block.data, block.size);
	if (fcntl(block.fd, F_ADD_SEALS,
			F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
		int err = errno;
		close(block.fd);
		return -err;
	}
	*fd = block.fd;
	return 0;
}
