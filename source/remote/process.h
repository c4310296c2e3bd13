/*
 * Starting, killing and reaping veil-decoder processes (source/remote/process.c), from veil's
 * worker threads. A helper is addressed by a pidfd where the kernel has them: the compositor's
 * own SIGCHLD handling (veil-tinywl's and labwc's waitpid(-1) loops) may reap it first, and its
 * pid could then be reused.
 */
#ifndef VEIL_SOURCE_REMOTE_PROCESS_H
#define VEIL_SOURCE_REMOTE_PROCESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* How long a dying helper gets to exit before it is killed. */
#define VEIL_HELPER_EXIT_GRACE_MS 2000
/* How soon a released helper killed at the end of its grace is looked at again. */
#define VEIL_HELPER_KILLED_MS 100

struct veil_helper {
	pid_t pid;
	int pidfd; /* -1 without pidfds */
	int sock; /* the compositor's end of the helper's socketpair (wire.h) */
};

/*
 * Starts the helper at path with a new socketpair, its end as the helper's VEIL_WIRE_FD, and envp
 * as its environment (veil_helper_env_copy()'s: the process's own is not read on veil's threads,
 * where a compositor's setenv() could change it under the read). 0, or a negative errno with a
 * sentence in *message.
 */
int veil_helper_start(struct veil_helper *helper, const char *path, char *const envp[],
	char **message);

/*
 * The compositor's thread: a copy of the process's environment as it is now, for the helpers'
 * starts (NULL when memory is short); freed with veil_helper_env_free() (NULL is allowed).
 */
char **veil_helper_env_copy(void);
void veil_helper_env_free(char **envp);

/* Whether the helper has not ended yet (it may still be about to). */
bool veil_helper_alive(const struct veil_helper *helper);

/* SIGKILL (its decoding process dies with it: PR_SET_PDEATHSIG). */
void veil_helper_kill(const struct veil_helper *helper);

/*
 * Closes the socket, waits up to ms for the helper to end (then kills it) and reaps it, unless
 * the compositor already did. The helper is then gone.
 */
void veil_helper_end(struct veil_helper *helper, int ms);

/*
 * Closes the socket of a helper that has answered and leaves it to end by itself: on a busy
 * machine its exit (at the workers' low priority) takes longer than its decode. It is reaped
 * by veil_helper_reap_released(), or now when too many are still exiting. Through
 * veil_helper_spare_release(), whose thread reaps it.
 */
void veil_helper_release(struct veil_helper *helper);

/*
 * Reaps the released helpers that have ended and kills those whose grace is over. Returns when
 * to call it again (veil_helper_now_ms()'s clock), or -1 when no released helper is left.
 */
int64_t veil_helper_reap_released(void);

/* Kills and reaps every released helper still running. */
void veil_helper_end_released(void);

int64_t veil_helper_now_ms(void);

#endif
