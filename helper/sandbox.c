#define _GNU_SOURCE /* CLONE_THREAD */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include "veil-config.h"
#if VEIL_HAVE_SECCOMP
#include <linux/dma-buf.h>
#include <seccomp.h>
#endif
#include "helper/landlock.h"
#include "helper/sandbox.h"
#include "util/image.h"
#include "util/message.h"

/* Sanitizers reserve terabytes of shadow address space: no RLIMIT_AS under them. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static int limit(int resource, rlim_t value, const char *name, char **message) {
	struct rlimit rl = { .rlim_cur = value, .rlim_max = value };
	struct rlimit old;
	if (getrlimit(resource, &old) == 0 && old.rlim_max != RLIM_INFINITY &&
			old.rlim_max < value) {
		rl.rlim_cur = rl.rlim_max = old.rlim_max; /* already lower: keep it */
	}
	if (setrlimit(resource, &rl) != 0) {
		int err = errno;
		veil_message_set(message, "cannot limit %s: %s", name, strerror(err));
		return -err;
	}
	return 0;
}

#if VEIL_HAVE_SECCOMP
/*
 * What decoding needs, found by running libpng, libheif (AVIF through dav1d or aom, HEIC
 * through libde265), libwebp, libtiff and GStreamer's image pipeline under `strace -f -c`:
 * memory, threads and their synchronisation, reading the descriptor given, loading the
 * decoders' plugins read-only, and handing the pixels back in a memfd.
 */
static const char *const allowed[] = {
	/* Memory. */
	"brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "membarrier",
	/* Threads (GStreamer's streaming threads, libheif's and dav1d's workers). */
	"futex", "futex_waitv", "set_robust_list", "get_robust_list", "rseq",
	"set_tid_address", "gettid", "getpid", "getppid", "tgkill", "exit", "exit_group",
	"wait4", "waitid", /* the monitor's; the decoding process can make no child to wait for */
	"sched_yield", "sched_getaffinity", "sched_getparam", "sched_getscheduler",
	"sched_get_priority_min", "sched_get_priority_max", "sched_setscheduler",
	"sched_setparam", "getpriority", "setpriority", "prctl", "nanosleep", "clock_nanosleep",
	"clock_gettime", "clock_getres", "gettimeofday", "time", "times", "getrusage",
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "restart_syscall",
	/* Descriptors already open and the ones GStreamer makes to wake its threads. */
	"read", "pread64", "readv", "preadv", "preadv2", "write", "writev", "lseek", "close",
	"fstat", "newfstatat", "statx", "fstatfs", "statfs", "fcntl", "dup", "dup3",
	"poll", "ppoll", "eventfd2", "pipe2", "getdents64", "readlink", "readlinkat", "access",
	"faccessat", "faccessat2", "getcwd", "getrandom", "uname", "sysinfo", "getuid", "geteuid",
	"getgid", "getegid", "getresuid", "getresgid", "prlimit64", "getrlimit",
	/* The reply: a memfd, sized, sealed, and sent with its header. */
	"memfd_create", "ftruncate", "sendmsg", "recvmsg",
};

static int install_filter(char **message) {
	/*
	 * Anything else fails with EPERM (a library probing the terminal carries on), and the
	 * calls that only an attacker makes end the process.
	 */
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (ctx == NULL) {
		veil_message_set(message, "cannot create the seccomp filter");
		return -ENOMEM;
	}
	int ret = 0;
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]) && ret == 0; i++) {
		int nr = seccomp_syscall_resolve_name(allowed[i]);
		if (nr == __NR_SCMP_ERROR) {
			continue; /* not a call of this architecture */
		}
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	}
	/* Threads, not processes: clone only with CLONE_THREAD; clone3 (flags out of reach of a
	 * filter) says ENOSYS, and glibc falls back to clone. */
	if (ret == 0) {
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
			SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
	}
	if (ret == 0) {
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	}
	/*
	 * A video's frames in the compositor's dmabufs: GStreamer brackets its CPU access to one
	 * with DMA_BUF_IOCTL_SYNC, the only ioctl allowed.
	 */
	if (ret == 0) {
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
			SCMP_A1(SCMP_CMP_EQ, DMA_BUF_IOCTL_SYNC));
	}
	/* GstPoll wakes its threads through a local socket pair: connected to nothing else. */
	if (ret == 0) {
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socketpair), 1,
			SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
	}
	/* Files are opened to read only (plugins, /proc/self/maps, locale data). */
	const unsigned writing = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
	if (ret == 0) {
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
			SCMP_A2(SCMP_CMP_MASKED_EQ, writing, 0));
	}
	if (ret == 0 && seccomp_syscall_resolve_name("open") != __NR_SCMP_ERROR) {
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(open), 1,
			SCMP_A1(SCMP_CMP_MASKED_EQ, writing, 0));
	}
	static const char *const fatal[] = {
		"execve", "execveat", "ptrace", "socket", "connect", "bind", "listen",
		"accept", "accept4", "sendto", "process_vm_writev", "process_vm_readv",
		"kill", "fork", "vfork", "setuid", "setgid", "mount", "unshare", "setns",
		"bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
	};
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]) && ret == 0; i++) {
		int nr = seccomp_syscall_resolve_name(fatal[i]);
		if (nr != __NR_SCMP_ERROR) {
			ret = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0);
		}
	}
	if (ret == 0) {
		ret = seccomp_load(ctx);
	}
	seccomp_release(ctx);
	if (ret < 0) {
		veil_message_set(message, "cannot install the seccomp filter: %s", strerror(-ret));
	}
	return ret;
}
#endif

static int enter(int cpu_seconds, int file, bool signals, char **message) {
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		int err = errno;
		veil_message_set(message, "cannot set no_new_privs: %s", strerror(err));
		return -err;
	}
	/* Not dumpable: no core, and no other process of the user may ptrace it. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/*
	 * Files can only grow up to the largest image: the reply's memfd is the only file it may
	 * write (RLIMIT_FSIZE applies to memfds too, so 0 would forbid the reply).
	 */
	rlim_t fsize = (rlim_t)VEIL_IMAGE_MAX_PIXELS * 4;
	int ret = limit(RLIMIT_CORE, 0, "core dumps", message);
	if (ret == 0 && cpu_seconds > 0) {
		ret = limit(RLIMIT_CPU, (rlim_t)cpu_seconds, "CPU time", message);
	}
	if (ret == 0) {
		ret = limit(RLIMIT_FSIZE, fsize, "file sizes", message);
	}
	if (ret == 0) {
		ret = limit(RLIMIT_NOFILE, VEIL_SANDBOX_MAX_FILES, "open files", message);
	}
	if (ret == 0 && !SANITIZED) {
		ret = limit(RLIMIT_AS, VEIL_SANDBOX_MAX_MEMORY, "memory", message);
	}
	if (ret < 0) {
		return ret;
	}
	/* Before the filter, which refuses landlock's calls. A kernel without it: seccomp only. */
	ret = veil_landlock_restrict(file, signals, message);
	if (ret < 0 && ret != -ENOSYS && ret != -EOPNOTSUPP) {
		return ret;
	}
	ret = 0;
#if VEIL_HAVE_SECCOMP
	ret = install_filter(message);
#endif
	return ret;
}

int veil_sandbox_enter(int cpu_seconds, int file, char **message) {
	return enter(cpu_seconds, file, true, message);
}

int veil_sandbox_enter_monitor(char **message) {
	return enter(VEIL_SANDBOX_MAX_CPU, -1, false, message);
}
