#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "helper/memfd_pixels.h"
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

/* A new memfd for pixels, to be sealed before it is sent. -errno on failure. */
static int create(void) {
	int fd = memfd_create("veil-pixels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	return fd >= 0 ? fd : -errno;
}

/* What the compositor checks before it maps a picture (source/remote/client.c). */
static int seal(int fd) {
	int seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
	return fcntl(fd, F_ADD_SEALS, seals) == 0 ? 0 : -errno;
}

static void *memfd_alloc(size_t size) {
	if (size == 0) {
		return malloc(1);
	}
	int fd = create();
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

/*
 * A copy of pixels the allocator took from the heap, into a new memfd. write(), not a mapping
 * and memcpy(): shmem allocates the pages in bulk in the write path instead of taking one page
 * fault for each 4 KiB of a mapping.
 */
static int copy_to_memfd(const void *data, size_t size, int *out) {
	int fd = create();
	if (fd < 0) {
		return fd;
	}
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, (const uint8_t *)data + done, size - done);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			int ret = n < 0 ? -errno : -EIO;
			close(fd);
			return ret;
		}
		done += (size_t)n;
	}
	*out = fd;
	return 0;
}

int veil_memfd_pixels_hand_over(void *data, size_t size, int *fd) {
	struct block block;
	int ret;
	if (take(data, &block)) {
		/* F_SEAL_WRITE needs the file to have no writable mapping left. */
		munmap(block.data, block.size);
		*fd = block.fd;
	} else {
		ret = copy_to_memfd(data, size, fd);
		free(data);
		if (ret < 0) {
			return ret;
		}
	}
	ret = seal(*fd);
	if (ret < 0) {
		close(*fd);
		*fd = -1;
	}
	return ret;
}
