#include "util/lock.h"

#include <time.h>

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER; /* guards `head` and the links */
static sl_lock_stats *head;

static void reg_add(sl_lock_stats *st, const char *name)
{
	*st = (sl_lock_stats){ .name = name };
	pthread_mutex_lock(&reg_mu);
	st->next = head;
	if (head)
		head->prev = st;
	head = st;
	pthread_mutex_unlock(&reg_mu);
}

static void reg_del(sl_lock_stats *st)
{
	pthread_mutex_lock(&reg_mu);
	if (st->prev)
		st->prev->next = st->next;
	else if (head == st)
		head = st->next;
	if (st->next)
		st->next->prev = st->prev;
	pthread_mutex_unlock(&reg_mu);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void waited(sl_lock_stats *st, uint64_t t0)
{
	uint64_t w = now_ns() - t0;
	atomic_fetch_add_explicit(&st->contended, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&st->wait_ns, w, memory_order_relaxed);
	uint64_t m = atomic_load_explicit(&st->max_wait_ns, memory_order_relaxed);
	while (w > m && !atomic_compare_exchange_weak(&st->max_wait_ns, &m, w))
		;
}

void sl_mutex_init(sl_mutex *m, const char *name)
{
	pthread_mutex_init(&m->mu, NULL);
	reg_add(&m->st, name);
}

void sl_mutex_destroy(sl_mutex *m)
{
	reg_del(&m->st);
	pthread_mutex_destroy(&m->mu);
}

void sl_mutex_lock(sl_mutex *m)
{
	atomic_fetch_add_explicit(&m->st.acquired, 1, memory_order_relaxed);
	if (pthread_mutex_trylock(&m->mu) == 0)
		return;
	uint64_t t0 = now_ns();
	pthread_mutex_lock(&m->mu);
	waited(&m->st, t0);
}

void sl_mutex_unlock(sl_mutex *m) { pthread_mutex_unlock(&m->mu); }

void sl_rwlock_init(sl_rwlock *l, const char *name)
{
	pthread_rwlock_init(&l->rw, NULL);
	reg_add(&l->st, name);
}

void sl_rwlock_destroy(sl_rwlock *l)
{
	reg_del(&l->st);
	pthread_rwlock_destroy(&l->rw);
}

void sl_rwlock_rdlock(sl_rwlock *l)
{
	atomic_fetch_add_explicit(&l->st.acquired, 1, memory_order_relaxed);
	if (pthread_rwlock_tryrdlock(&l->rw) == 0)
		return;
	uint64_t t0 = now_ns();
	pthread_rwlock_rdlock(&l->rw);
	waited(&l->st, t0);
}

void sl_rwlock_wrlock(sl_rwlock *l)
{
	atomic_fetch_add_explicit(&l->st.acquired, 1, memory_order_relaxed);
	if (pthread_rwlock_trywrlock(&l->rw) == 0)
		return;
	uint64_t t0 = now_ns();
	pthread_rwlock_wrlock(&l->rw);
	waited(&l->st, t0);
}

void sl_rwlock_unlock(sl_rwlock *l) { pthread_rwlock_unlock(&l->rw); }

void sl_lock_report(sl_buf *out)
{
	sl_buf_adds(out, "# snowline lock profile: contention of the process's own locks\n"
			 "# lock\tacquired\tcontended\twait_ns\tmax_wait_ns\n");
	pthread_mutex_lock(&reg_mu);
	for (sl_lock_stats *st = head; st; st = st->next)
		sl_buf_addf(out, "%s\t%llu\t%llu\t%llu\t%llu\n", st->name,
			    (unsigned long long)atomic_load(&st->acquired),
			    (unsigned long long)atomic_load(&st->contended),
			    (unsigned long long)atomic_load(&st->wait_ns),
			    (unsigned long long)atomic_load(&st->max_wait_ns));
	pthread_mutex_unlock(&reg_mu);
}

void sl_deadline(struct timespec *until, clockid_t clock, unsigned ms)
{
	clock_gettime(clock, until);
	until->tv_sec += ms / 1000;
	until->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until->tv_nsec >= 1000000000L) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000L;
	}
}
