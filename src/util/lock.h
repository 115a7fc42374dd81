/*
 * lock.h — named mutexes and read-write locks that count their contention.
 *
 * Every lock shared between threads in snowline is one of these, so that
 * admin.lockProfile can report, per lock: acquisitions, how many had to
 * wait, total and longest wait. Uncontended acquisition costs one trylock;
 * the clock is read only when a thread has to wait.
 *
 * Locks register themselves on init in a process-wide list (for the
 * profile) and leave it on destroy. Names must be static strings.
 */
#ifndef SL_LOCK_H
#define SL_LOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "util/buf.h"

typedef struct sl_lock_stats {
	const char *name;
	_Atomic uint64_t acquired, contended, wait_ns, max_wait_ns;
	struct sl_lock_stats *next, *prev; /* registry links, guarded by the registry lock */
} sl_lock_stats;

typedef struct sl_mutex {
	pthread_mutex_t mu;
	sl_lock_stats st;
} sl_mutex;

typedef struct sl_rwlock {
	pthread_rwlock_t rw;
	sl_lock_stats st;
} sl_rwlock;

void sl_mutex_init(sl_mutex *m, const char *name);
void sl_mutex_destroy(sl_mutex *m);
void sl_mutex_lock(sl_mutex *m);
void sl_mutex_unlock(sl_mutex *m);

void sl_rwlock_init(sl_rwlock *l, const char *name);
void sl_rwlock_destroy(sl_rwlock *l);
void sl_rwlock_rdlock(sl_rwlock *l);
void sl_rwlock_wrlock(sl_rwlock *l);
void sl_rwlock_unlock(sl_rwlock *l);

/* A deadline `ms` from now on `clock` (CLOCK_REALTIME for a default condition variable, or the
 * clock the condition was made with), for pthread_cond_timedwait and its kin. */
void sl_deadline(struct timespec *until, clockid_t clock, unsigned ms);

/* Write the contention report of every live lock, one line per lock. */
void sl_lock_report(sl_buf *out);

#endif
