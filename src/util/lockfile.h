/*
 * lockfile.h — one process per data directory.
 *
 * A process that owns a directory (the node's --data-dir, the indexer's
 * store) takes an exclusive flock(2) on <dir>/LOCK and holds it until it
 * exits; the file records the holder's pid for the message a second
 * process gets. The kernel drops the lock when the process dies, kill -9
 * included, so a stale file never blocks a restart.
 */
#ifndef SL_LOCKFILE_H
#define SL_LOCKFILE_H

#include "util/common.h"
#include "util/err.h"

typedef struct sl_dirlock {
	int fd; /* -1 when not held */
} sl_dirlock;

/*
 * Lock dir (which must exist). SL_ERR_CONFLICT when another process holds
 * it — err names the directory and that process's pid — and SL_ERR_IO when
 * the lock file cannot be opened.
 */
SL_MUST_USE sl_err sl_dirlock_take(sl_dirlock *l, const char *dir, char err[512]);
/* The same for any lock file: `what` names the thing it guards in the message. */
SL_MUST_USE sl_err sl_lockfile_take(sl_dirlock *l, const char *path, const char *what, char err[512]);
void sl_dirlock_release(sl_dirlock *l);

#endif
