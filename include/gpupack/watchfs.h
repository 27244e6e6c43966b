/* SPDX-License-Identifier: Apache-2.0 */
/* Watching files for changes, the way Kubernetes updates mounted ConfigMaps and Secrets.
 *
 * A ConfigMap volume swaps a `..data` symlink inside the mount directory, so the watched path's
 * own inode never changes in place. gp_watch therefore watches each file's parent directory with
 * inotify (for immediacy) and also polls every interval_ms (for filesystems without inotify, or a
 * directory that does not exist yet). It also watches the directory of each path's resolved
 * target, so rewriting a symlinked file in place is seen at once too. A file counts as changed
 * when the resolved target's (device, inode, size, mtime) or its content hash (first 4 MiB)
 * changes; appearing and disappearing are changes too. After an inotify event the watcher waits
 * for 50 ms of quiet (at most 500 ms) before looking, so a burst of writes or renames gives one
 * callback that sees the finished state. The callback runs on the watcher's own thread, never
 * concurrently with itself, at most once per check however many files changed; it must not call
 * gp_watch_stop(). */
#ifndef GPUPACK_WATCHFS_H
#define GPUPACK_WATCHFS_H

#include <stddef.h>

#include "gpupack/status.h"

typedef struct gp_watch gp_watch;

typedef void (*gp_watch_fn)(void *ctx);

/* Starts a watcher thread over npaths files (1 to 8). The paths are copied; interval_ms 0 means
 * 1000. The current state of each file is recorded before returning: only later changes call fn.
 * GP_EINVAL for bad arguments, GP_EIO when the thread or its descriptors cannot be made. */
gp_status gp_watch_start(const char *const *paths, size_t npaths, unsigned interval_ms,
                         gp_watch_fn fn, void *ctx, gp_watch **out, gp_err *err) GP_WUR;

/* Stops the thread (promptly: it is woken through an eventfd, not at its next poll) and frees
 * the watcher. A callback already running finishes first. NULL is harmless. */
void gp_watch_stop(gp_watch *w);

#endif
