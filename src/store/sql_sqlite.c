/*
 * sql_sqlite.c — sql.h on SQLite (the only file that sees sqlite3.h).
 *
 * A store is one database file in WAL mode, so readers (API servers, any
 * number of processes) never block the writer (the indexer) and see only
 * committed transactions. synchronous=NORMAL: a commit is durable against a
 * crash of the process (kill -9) — the WAL is in the OS's cache — and the
 * database is never corrupted by a power loss, which may lose the last
 * commits; the indexer then re-applies them from the node.
 *
 * The writer's checkpoints (copying the WAL into the database, with its
 * fsyncs) run on a thread of their own with a connection of its own, so
 * that they overlap the writer's next transaction instead of lengthening
 * its commit: a catch-up's commit of ~1.5 GB of pages took 2-3 s more to
 * checkpoint. The WAL restarts only when the writer begins a transaction
 * with all of it copied, so past CKPT_WAL_MAX the writer waits for the
 * checkpoint before beginning. While commits are that large (a catch-up) the
 * WAL file is reused as it is; once they are small again (following the
 * node) it is cut back to CKPT_WAL_KEEP when it restarts. Every
 * connection has a busy timeout: two readers opening a WAL database at once
 * can meet SQLITE_BUSY while its index is rebuilt
 * (docs/reference/performance-baselines.md).
 */
#include "store/sql_backend.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "util/lockfile.h"

#define BUSY_TIMEOUT_MS 10000
#define CKPT_AFTER (40ll << 20)	   /* WAL bytes after a commit that call for a checkpoint */
#define CKPT_WAL_MAX (3ll << 30)   /* WAL bytes past which the writer waits for it to be copied */
#define CKPT_WAL_KEEP (64ll << 20) /* what a restarted WAL file is cut back to */

/* The writer's checkpointer: the commit hook (wal_hook) asks, the thread copies. */
typedef struct lite_ckpt {
	sqlite3 *db; /* its own connection, used by the thread only */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;   /* due or stop, to the thread */
	pthread_cond_t done; /* a pass has ended, to the writer */
	int64_t wal_bytes;   /* in the WAL after the last commit */
	int page_size;
	bool keep_wal; /* the writer's journal_size_limit is off (-1), for a catch-up's large commits */
	int rc;	       /* the last pass's error (SQLITE_OK, or BUSY: a reader holds an old snapshot) */
	bool due, running, stop;
} lite_ckpt;

typedef struct lite_conn {
	sqlite3 *db;
	sl_dirlock writer; /* the writer holds <path>-writer: one indexer per store */
	lite_ckpt *ckpt;   /* the writer's (NULL for readers) */
} lite_conn;

static void *ckpt_main(void *arg)
{
	lite_ckpt *k = arg;
	pthread_mutex_lock(&k->mu);
	for (;;) {
		while (!k->due && !k->stop)
			pthread_cond_wait(&k->cv, &k->mu);
		if (k->stop)
			break;
		k->due = false;
		k->running = true;
		pthread_mutex_unlock(&k->mu);
		int rc = sqlite3_wal_checkpoint_v2(k->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		pthread_mutex_lock(&k->mu);
		k->rc = rc;
		k->running = false;
		pthread_cond_broadcast(&k->done);
	}
	pthread_mutex_unlock(&k->mu);
	return NULL;
}

/* After each commit of the writer (its wal_hook, in place of the automatic checkpoint). */
static int ckpt_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
	(void)db, (void)name;
	lite_ckpt *k = arg;
	int64_t bytes = (int64_t)frames * (k->page_size + 24);
	pthread_mutex_lock(&k->mu);
	k->wal_bytes = bytes;
	if (bytes >= CKPT_AFTER) {
		k->due = true;
		pthread_cond_signal(&k->cv);
	}
	pthread_mutex_unlock(&k->mu);
	return SQLITE_OK;
}

/* The writer's WAL file: kept as it is (a catch-up), or cut back to CKPT_WAL_KEEP when it restarts. */
static int wal_limit(sqlite3 *wdb, bool keep)
{
	char sql[64];
	snprintf(sql, sizeof sql, "PRAGMA journal_size_limit = %lld", keep ? -1ll : CKPT_WAL_KEEP);
	return sqlite3_exec(wdb, sql, NULL, NULL, NULL);
}

/* Before the writer begins: past CKPT_WAL_MAX, wait for the copy, so this transaction restarts
 * the WAL. A checkpoint's I/O error is the writer's to report. */
static int ckpt_settle(lite_ckpt *k, sqlite3 *wdb)
{
	pthread_mutex_lock(&k->mu);
	while (k->wal_bytes >= CKPT_WAL_MAX && (k->due || k->running))
		pthread_cond_wait(&k->done, &k->mu);
	int rc = k->rc;
	k->rc = SQLITE_OK;
	bool keep = k->wal_bytes >= CKPT_AFTER;
	pthread_mutex_unlock(&k->mu);
	if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
		rc = SQLITE_OK;
	if (rc == SQLITE_OK && keep != k->keep_wal && (rc = wal_limit(wdb, keep)) == SQLITE_OK)
		k->keep_wal = keep;
	return rc;
}

static void ckpt_free(lite_ckpt *k)
{
	sqlite3_close_v2(k->db);
	pthread_cond_destroy(&k->done);
	pthread_cond_destroy(&k->cv);
	pthread_mutex_destroy(&k->mu);
	free(k);
}

static void ckpt_stop(lite_ckpt *k)
{
	if (!k)
		return;
	pthread_mutex_lock(&k->mu);
	k->stop = true;
	pthread_cond_signal(&k->cv);
	pthread_mutex_unlock(&k->mu);
	pthread_join(k->thread, NULL);
	ckpt_free(k);
}

/* The writer's checkpointer, on a connection of its own to path; NULL with the reason in err. */
static lite_ckpt *ckpt_start(sqlite3 *wdb, const char *path, char err[256])
{
	lite_ckpt *k = calloc(1, sizeof *k);
	if (!k) {
		snprintf(err, 256, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->cv, NULL);
	pthread_cond_init(&k->done, NULL);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(wdb, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		k->page_size = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	int rc = wal_limit(wdb, false);
	if (rc == SQLITE_OK)
		rc = sqlite3_open_v2(path, &k->db, SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(k->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
	if (rc != SQLITE_OK || k->page_size <= 0) {
		snprintf(err, 256, "cannot set up the checkpoints of %s: %s", path,
			 k->db ? sqlite3_errmsg(k->db) : sqlite3_errstr(rc));
		ckpt_free(k);
		return NULL;
	}
	if (pthread_create(&k->thread, NULL, ckpt_main, k)) {
		snprintf(err, 256, "cannot start the checkpoint thread of %s", path);
		ckpt_free(k);
		return NULL;
	}
	sqlite3_wal_hook(wdb, ckpt_hook, k);
	return k;
}

/*
 * The writer's page cache in transparent huge pages. SQLite's cache takes its pages one at a time
 * from the heap as it fills, so a catch-up's 4 GiB cache was a million page faults on the
 * writer's thread, each zeroing 4 KiB, and its B-tree searches a TLB miss at each page (on the
 * 3M-tx devnet the writer's thread took 209-223 s of CPU without this, 198-203 with it, in runs
 * taken in turn: docs/operations.md). SQLite's allocations of a page's size (the writer's page
 * with its header) come from one region reserved at the writer's connect and given huge pages,
 * in order as the cache grows (so memory is committed as before, 2 MiB at a time), and go back
 * to a free list; every other allocation, and the pages once the region is used up, go to
 * SQLite's own allocator. Every connection of the process shares it (the readers' pages, if of
 * the same size, while there is room).
 *
 * The kernel zeroes a huge page at its first touch, and on a virtual machine whose host backs
 * memory lazily that is slow (perf put 15 s of the writer's thread of a 3M-tx catch-up in
 * clear_page, about 300 MB/s). A thread of its own (pages_fill) faults the region in
 * (MADV_POPULATE_WRITE, which leaves the contents as they are) PAGES_AHEAD bytes ahead of what
 * the cache has taken, so the writer finds its pages ready and the zeroing runs on another core.
 */
#define NEW_PAGE_SIZE 16384	 /* a store made now (docs/store.md) */
#define PAGE_HDR_MAX 1024	 /* SQLite's header of a cached page is some 200 bytes */
#define PAGES_AHEAD (256u << 20) /* bytes of the region made ready beyond those handed out */
#define PAGES_STEP (16u << 20)	 /* and how many at a time */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

static struct {
	pthread_mutex_t mu;
	_Atomic(uintptr_t) base, end; /* the region, or 0 */
	_Atomic(int) lo, hi;	      /* the request sizes it serves: [page, page + PAGE_HDR_MAX] */
	uintptr_t next;		      /* the first byte never handed out */
	void *free;		      /* blocks given back, a list through their first word */
	uintptr_t ready;	      /* the region below it is faulted in (or being) */
	pthread_cond_t wanted;	      /* next came within PAGES_AHEAD / 2 of ready */
} g_pages = { .mu = PTHREAD_MUTEX_INITIALIZER, .wanted = PTHREAD_COND_INITIALIZER };
static sqlite3_mem_methods g_heap; /* SQLite's own */

static bool in_pages(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	return a >= atomic_load_explicit(&g_pages.base, memory_order_relaxed) &&
	       a < atomic_load_explicit(&g_pages.end, memory_order_relaxed);
}
static int page_block(void) { return atomic_load_explicit(&g_pages.hi, memory_order_relaxed); }
/* A request the region serves (none before it is reserved: hi is 0). */
static bool page_sized(int n)
{
	return n >= atomic_load_explicit(&g_pages.lo, memory_order_relaxed) && n <= page_block() && n > 0;
}

static void *pages_malloc(int n)
{
	if (page_sized(n)) {
		void *p = NULL;
		pthread_mutex_lock(&g_pages.mu);
		if (g_pages.free) {
			p = g_pages.free;
			memcpy(&g_pages.free, p, sizeof(void *));
		} else if (g_pages.next + (uintptr_t)page_block() <= atomic_load(&g_pages.end)) {
			p = (void *)g_pages.next;
			g_pages.next += (uintptr_t)page_block();
			if (g_pages.next + PAGES_AHEAD / 2 > g_pages.ready)
				pthread_cond_signal(&g_pages.wanted);
		}
		pthread_mutex_unlock(&g_pages.mu);
		if (p)
			return p;
	}
	return g_heap.xMalloc(n);
}
static void pages_free(void *p)
{
	if (!in_pages(p)) {
		g_heap.xFree(p);
		return;
	}
	pthread_mutex_lock(&g_pages.mu);
	memcpy(p, &g_pages.free, sizeof(void *));
	g_pages.free = p;
	pthread_mutex_unlock(&g_pages.mu);
}
static int pages_size(void *p) { return in_pages(p) ? page_block() : g_heap.xSize(p); }
static void *pages_realloc(void *p, int n)
{
	if (!in_pages(p))
		return g_heap.xRealloc(p, n);
	if (n <= page_block())
		return p;
	void *q = g_heap.xMalloc(n);
	if (q) {
		memcpy(q, p, (size_t)page_block());
		pages_free(p);
	}
	return q;
}
static int pages_roundup(int n) { return page_sized(n) ? n : g_heap.xRoundup(n); }
static int pages_init(void *app) { return g_heap.xInit(app); }
static void pages_shutdown(void *app) { g_heap.xShutdown(app); }

/* The page size in a database file's header (NEW_PAGE_SIZE for a file not made yet). */
static int page_size_of(const char *path)
{
	uint8_t h[18];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(h, 1, sizeof h, f) : 0;
	if (f)
		fclose(f);
	if (n < sizeof h || memcmp(h, "SQLite format 3", 16))
		return NEW_PAGE_SIZE;
	int v = h[16] << 8 | h[17];
	return v == 1 ? 65536 : v >= 512 ? v : NEW_PAGE_SIZE;
}

/* The thread that faults the region in ahead of the cache, until it has all of it. */
static void *pages_fill(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&g_pages.mu);
	for (;;) {
		uintptr_t end = atomic_load(&g_pages.end);
		if (g_pages.ready >= end)
			break;
		if (g_pages.ready >= g_pages.next + PAGES_AHEAD) {
			pthread_cond_wait(&g_pages.wanted, &g_pages.mu);
			continue;
		}
		uintptr_t from = g_pages.ready, to = from + PAGES_STEP < end ? from + PAGES_STEP : end;
		g_pages.ready = to;
		pthread_mutex_unlock(&g_pages.mu);
		bool ok = !madvise((void *)from, to - from, MADV_POPULATE_WRITE);
		pthread_mutex_lock(&g_pages.mu);
		if (!ok)
			break; /* an older kernel: the writer faults its pages in itself */
	}
	pthread_mutex_unlock(&g_pages.mu);
	return NULL;
}

/* At a writer's connect: the region, for a cache of that many bytes of pages of that size. */
static void pages_reserve(size_t bytes, int page)
{
	pthread_mutex_lock(&g_pages.mu);
	if (!atomic_load(&g_pages.base)) {
		int block = (page + PAGE_HDR_MAX + 63) & ~63;
		/* an eighth more than the cache's bytes, which count the headers too */
		size_t len = (bytes + bytes / 8) / (size_t)block * (size_t)block;
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);
		if (p != MAP_FAILED) {
			madvise(p, len, MADV_HUGEPAGE); /* a hint: without it, small pages */
			g_pages.next = g_pages.ready = (uintptr_t)p;
			atomic_store(&g_pages.lo, page);
			atomic_store(&g_pages.hi, block);
			atomic_store(&g_pages.end, (uintptr_t)p + len);
			atomic_store(&g_pages.base, (uintptr_t)p);
			pthread_t t; /* without it, the writer faults its pages in as before */
			if (!pthread_create(&t, NULL, pages_fill, NULL))
				pthread_detach(t);
		}
	}
	pthread_mutex_unlock(&g_pages.mu);
}

/* Before SQLite's first use: the allocator above, and no memory statistics (their global mutex
 * was taken on every allocation, some 10% of the indexer's writing). */
static pthread_once_t g_config_once = PTHREAD_ONCE_INIT;
static void configure(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	static sqlite3_mem_methods m = { pages_malloc,	pages_free, pages_realloc,  pages_size,
					 pages_roundup, pages_init, pages_shutdown, NULL };
	if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &g_heap) == SQLITE_OK) {
		m.pAppData = g_heap.pAppData;
		sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
	}
}

static void *connect(const sl_db_config *cfg, const char *path, char err[256])
{
	pthread_once(&g_config_once, configure);
	unsigned mb = cfg->cache_mb ? cfg->cache_mb : cfg->mode == SL_DB_WRITE ? 256 : 64;
	if (cfg->mode == SL_DB_WRITE)
		pages_reserve((size_t)mb << 20, page_size_of(path));
	sqlite3 *db = NULL;
	lite_conn *lc = calloc(1, sizeof *lc);
	if (!lc) {
		snprintf(err, 256, "out of memory");
		return NULL;
	}
	lc->writer.fd = -1;
	if (cfg->mode == SL_DB_WRITE) {
		char lock[1100], what[1200], e512[512];
		snprintf(lock, sizeof lock, "%s-writer", path);
		snprintf(what, sizeof what, "the store %s", path);
		if (sl_lockfile_take(&lc->writer, lock, what, e512)) {
			snprintf(err, 256, "%s", e512);
			free(lc);
			return NULL;
		}
	}
	bool write = cfg->mode == SL_DB_WRITE, load = cfg->mode == SL_DB_LOAD;
	int flags = SQLITE_OPEN_NOMUTEX | (write  ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
					   : load ? SQLITE_OPEN_READWRITE
						  : SQLITE_OPEN_READONLY);
	int rc = sqlite3_open_v2(path, &db, flags, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, 256, "cannot open %s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(db, 1);
	/* The writer's: pages of NEW_PAGE_SIZE for a store made now; WAL, a commit durable against a
	 * crash of the process (this file's first comment); and freed space left as it is (Debian
	 * builds SQLite to zero it, SQLITE_SECURE_DELETE: a memset of each row a spend rewrites, for a
	 * privacy a store of public chain data has no use for; the writer's thread took 184-188 s of
	 * CPU instead of 202-207 on the 3M-tx devnet, docs/operations.md). */
	char mode[256];
	if (write)
		snprintf(mode, sizeof mode,
			 "PRAGMA page_size = %d; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; "
			 "PRAGMA secure_delete = OFF;",
			 NEW_PAGE_SIZE);
	else
		snprintf(mode, sizeof mode, "%s",
			 load ? "PRAGMA synchronous = NORMAL;" : "PRAGMA query_only = 1;");
	char pragmas[512];
	snprintf(pragmas, sizeof pragmas,
		 "PRAGMA cache_size = -%u; PRAGMA temp_store = MEMORY; PRAGMA mmap_size = 1073741824; %s",
		 mb * 1024, mode);
	char *msg = NULL;
	if (sqlite3_exec(db, pragmas, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, 256, "cannot set up %s: %s", path, msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		goto fail;
	}
	if (write && !(lc->ckpt = ckpt_start(db, path, err)))
		goto fail;
	lc->db = db;
	return lc;
fail:
	sqlite3_close(db);
	sl_dirlock_release(&lc->writer);
	free(lc);
	return NULL;
}

static void disconnect(void *impl)
{
	lite_conn *lc = impl;
	if (!lc)
		return;
	ckpt_stop(lc->ckpt); /* before the writer's close, which checkpoints what is left */
	sqlite3_close_v2(lc->db);
	sl_dirlock_release(&lc->writer);
	free(lc);
}

#define DB(c) (((lite_conn *)(c)->impl)->db)

static sl_err err_of(int rc)
{
	return (rc & 0xff) == SQLITE_BUSY	  ? SL_ERR_TIMEOUT
	       : (rc & 0xff) == SQLITE_FULL	  ? SL_ERR_IO
	       : (rc & 0xff) == SQLITE_IOERR	  ? SL_ERR_IO
	       : (rc & 0xff) == SQLITE_NOMEM	  ? SL_ERR_NOMEM
	       : (rc & 0xff) == SQLITE_CONSTRAINT ? SL_ERR_CONFLICT
						  : SL_ERR_STORE;
}

static sl_err fail(sl_conn *c, int rc, const char *what)
{
	return sl_conn_fail(c, err_of(rc), "%s: %s", what, sqlite3_errmsg(DB(c)));
}

static sl_err exec_raw(sl_conn *c, const char *sql)
{
	int rc = sqlite3_exec(DB(c), sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? SL_OK : fail(c, rc, "sqlite");
}

/* BEGIN IMMEDIATE: the writer takes the write lock at once, so a busy wait happens at begin, not mid-batch. */
static sl_err begin(sl_conn *c)
{
	lite_ckpt *k = ((lite_conn *)c->impl)->ckpt;
	int rc = k ? ckpt_settle(k, DB(c)) : SQLITE_OK;
	if (rc != SQLITE_OK) /* the checkpointer's connection met it: its code says what */
		return sl_conn_fail(c, err_of(rc), "sqlite: checkpoint: %s", sqlite3_errstr(rc));
	return exec_raw(c, "BEGIN IMMEDIATE");
}
static sl_err commit(sl_conn *c) { return exec_raw(c, "COMMIT"); }
static void rollback(sl_conn *c)
{
	if (!sqlite3_get_autocommit(DB(c)))
		sqlite3_exec(DB(c), "ROLLBACK", NULL, NULL, NULL);
}
/* Deferred: the snapshot is taken by the first read and held until the end. */
static sl_err begin_read(sl_conn *c) { return exec_raw(c, "BEGIN DEFERRED"); }

typedef struct lite_stmt {
	sqlite3_stmt *st;
	bool row;  /* a row is current */
	bool done; /* stepped to the end */
	int64_t changes;
} lite_stmt;

static void *prepare(sl_conn *c, const char *sql, int *nparams)
{
	lite_stmt *ls = calloc(1, sizeof *ls);
	if (!ls) {
		sl_conn_fail(c, SL_ERR_NOMEM, "out of memory");
		return NULL;
	}
	int rc = sqlite3_prepare_v3(DB(c), sql, -1, SQLITE_PREPARE_PERSISTENT, &ls->st, NULL);
	if (rc != SQLITE_OK) {
		fail(c, rc, "prepare");
		free(ls);
		return NULL;
	}
	*nparams = sqlite3_bind_parameter_count(ls->st);
	return ls;
}

static void finalize(void *impl)
{
	lite_stmt *ls = impl;
	sqlite3_finalize(ls->st);
	free(ls);
}

static void reset(sl_stmt *s)
{
	lite_stmt *ls = s->impl;
	sqlite3_reset(ls->st);
	sqlite3_clear_bindings(ls->st);
	ls->row = ls->done = false;
	ls->changes = 0;
}

#define ST(s) (((lite_stmt *)(s)->impl)->st)
static void bind_i64(sl_stmt *s, int i, int64_t v) { sqlite3_bind_int64(ST(s), i + 1, v); }
static void bind_blob(sl_stmt *s, int i, const void *p, size_t n)
{
	sqlite3_bind_blob64(ST(s), i + 1, p, n, SQLITE_TRANSIENT);
}
static void bind_text(sl_stmt *s, int i, const char *p, size_t n)
{
	sqlite3_bind_text64(ST(s), i + 1, p, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}
static void bind_null(sl_stmt *s, int i) { sqlite3_bind_null(ST(s), i + 1); }

static sl_err exec(sl_stmt *s)
{
	lite_stmt *ls = s->impl;
	int rc;
	while ((rc = sqlite3_step(ls->st)) == SQLITE_ROW)
		; /* a statement run for its effect: rows it may return are dropped */
	sl_err e = rc == SQLITE_DONE ? SL_OK : fail(s->conn, rc, "exec");
	ls->changes = sqlite3_changes64(DB(s->conn));
	sqlite3_reset(ls->st);
	return e;
}

static sl_err query(sl_stmt *s)
{
	lite_stmt *ls = s->impl;
	ls->row = ls->done = false;
	return SL_OK; /* the first step happens in next() */
}

static bool next(sl_stmt *s, sl_err *err)
{
	lite_stmt *ls = s->impl;
	if (ls->done)
		return false;
	int rc = sqlite3_step(ls->st);
	if (rc == SQLITE_ROW)
		return ls->row = true;
	ls->row = false;
	ls->done = true;
	if (rc != SQLITE_DONE)
		*err = fail(s->conn, rc, "query");
	return false;
}

static int64_t changes(sl_stmt *s) { return ((lite_stmt *)s->impl)->changes; }
static bool col_null(sl_stmt *s, int i) { return sqlite3_column_type(ST(s), i) == SQLITE_NULL; }
static sl_coltype col_type(sl_stmt *s, int i)
{
	switch (sqlite3_column_type(ST(s), i)) {
	case SQLITE_NULL: return SL_COL_NULL;
	case SQLITE_INTEGER: return SL_COL_INT;
	case SQLITE_BLOB: return SL_COL_BLOB;
	case SQLITE_TEXT: return SL_COL_TEXT;
	default: return SL_COL_OTHER;
	}
}
static int col_count(sl_stmt *s) { return sqlite3_column_count(ST(s)); }
static int64_t col_i64(sl_stmt *s, int i) { return sqlite3_column_int64(ST(s), i); }
static const uint8_t *col_blob(sl_stmt *s, int i, size_t *n)
{
	const uint8_t *p = sqlite3_column_blob(ST(s), i);
	*n = (size_t)sqlite3_column_bytes(ST(s), i);
	return p;
}
static const char *col_text(sl_stmt *s, int i, size_t *n)
{
	const char *p = (const char *)sqlite3_column_text(ST(s), i);
	*n = (size_t)sqlite3_column_bytes(ST(s), i);
	return p ? p : "";
}

const sl_backend sl_backend_sqlite = {
	.name = "sqlite",
	.connect = connect,
	.disconnect = disconnect,
	.exec_raw = exec_raw,
	.begin = begin,
	.commit = commit,
	.rollback = rollback,
	.begin_read = begin_read,
	.prepare = prepare,
	.finalize = finalize,
	.reset = reset,
	.bind_i64 = bind_i64,
	.bind_blob = bind_blob,
	.bind_text = bind_text,
	.bind_null = bind_null,
	.exec = exec,
	.query = query,
	.next = next,
	.changes = changes,
	.col_null = col_null,
	.col_type = col_type,
	.col_count = col_count,
	.col_i64 = col_i64,
	.col_blob = col_blob,
	.col_text = col_text,
};
