#include "util/lockfile.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

sl_err sl_dirlock_take(sl_dirlock *l, const char *dir, char err[512])
{
	char path[1100], what[1200];
	snprintf(path, sizeof path, "%s/LOCK", dir);
	snprintf(what, sizeof what, "the data directory %s", dir);
	return sl_lockfile_take(l, path, what, err);
}

sl_err sl_lockfile_take(sl_dirlock *l, const char *path, const char *what, char err[512])
{
	l->fd = -1;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0) {
		snprintf(err, 512, "cannot open %s: %s", path, strerror(errno));
		return SL_ERR_IO;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;
		char pid[24] = "";
		ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
		pid[n > 0 ? n : 0] = 0;
		pid[strcspn(pid, "\n")] = 0;
		close(fd);
		if (e == EWOULDBLOCK) {
			snprintf(err, 512, "%s is in use by another snowline process%s%s%s", what,
				 pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "");
			return SL_ERR_CONFLICT;
		}
		snprintf(err, 512, "cannot lock %s: %s", path, strerror(e));
		return SL_ERR_IO;
	}
	char pid[24];
	int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n) {
		/* the pid is only for the message; the lock itself holds */
	}
	l->fd = fd;
	return SL_OK;
}

void sl_dirlock_release(sl_dirlock *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}
