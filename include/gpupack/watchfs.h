/* Watching files for changes, the way Kubernetes updates mounted ConfigMaps and Secrets.
 *
 * A ConfigMap volume swaps a `..data` symlink inside the mount directory, so the watched path's
 * own inode never changes in place. gp_watch therefore watches each file's parent directory with
 * inotify (for immediacy) and also polls every interval_ms (for filesystems without inotify). A file
 * counts as changed when the resolved target's (device, inode, size, mtime) or its content hash
 * changes. The callback runs on the watcher's own thread, never concurrently with itself. */
#ifndef GPUPACK_WATCHFS_H
#define GPUPACK_WATCHFS_H

#include <stddef.h>

#include "gpupack/status.h"

typedef struct gp_watch gp_watch;

typedef void (*gp_watch_fn)(void *ctx);

/* Starts a watcher thread over npaths files (at most 8). The paths are copied. */
gp_status gp_watch_start(const char *const *paths, size_t npaths, unsigned interval_ms,
                         gp_watch_fn fn, void *ctx, gp_watch **out, gp_err *err) GP_WUR;

/* Stops the thread and frees the watcher. NULL is harmless. */
void gp_watch_stop(gp_watch *w);

#endif
