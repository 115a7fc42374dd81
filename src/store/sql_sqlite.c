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

typedef struct lite_side lite_side;

typedef struct lite_conn {
	sqlite3 *db;
	sl_dirlock writer; /* the writer holds <path>-writer: one indexer per store */
	lite_ckpt *ckpt;   /* the writer's (NULL for readers) */
	lite_side *side;   /* the writer's side file (NULL: the store has none) */
	sqlite3 *rdb;	   /* the writer's reads of side tables: both files, read-only (made when needed) */
	bool attached;	   /* a reader's: the side file is attached as `side` */
	bool reader; /* SL_DB_READ: attaches the side file (a loader's BEGIN IMMEDIATE would lock it too) */
	bool may_split;	     /* a reader's store had nothing indexed: its writer may still make a side file */
	sqlite3_stmt *touch; /* a read of the side file, which takes its snapshot first */
	unsigned mb;
	char path[1024];
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

/*
 * The side file. A store made by this version keeps the tables that take most of a catch-up's
 * rows — an address's UTXOs (addr_utxos), its activity (addr_txs) and an asset's txs
 * (asset_txs) — in a second database file, <path>-side, which a thread of its own writes: SQLite
 * writes one file from one thread at a time, and on two cores the indexer's writer was one
 * thread at its limit while the other core waited (docs/store.md has the measurements).
 *
 * The writer does not run those tables' INSERT and UPDATE statements: it records them (the
 * statement's text once, then its bound values), and at its commit logs the records in the main
 * file (side_log, one row per 16 MiB part of a group), in the same transaction as the rows they
 * go with. Once that commit is done, the group's statements are run in the side file, which
 * records the group (side_state.applied) in the same transaction. So the side file
 * never holds what the main file does not (a reader takes its snapshot of the side file first),
 * and a crash between the two commits loses nothing: the next writer applies the groups logged
 * after the side file's last before it writes anything (each statement is an idempotent
 * upsert, so a group applied twice changes nothing). Following the node, the writer runs the
 * statements itself, in a transaction of the side file that it commits right after its own; only
 * during a bulk catch-up (the deferred indexes dropped) does the side thread run each group while
 * the writer goes on to the next, one group at most behind.
 *
 * A store made before keeps those tables in its main file and is written as before. Which one a
 * store is: its main file has side_log, and side_log's row 0 holds the id that the side file's
 * side_state holds too, so that the files of two stores are never taken for one.
 */
#define SIDE_SUFFIX "-side"
#define SIDE_PART (16u << 20) /* bytes of records a side_log row holds at most */
#define SIDE_STMTS 16	      /* side statements a process may have (write.c has five) */
#define SIDE_ID_LEN 16

static const char *const side_tables[] = { "addr_utxos", "addr_txs", "asset_txs" };

/* A group handed to the side thread: its statements' texts (header) and its records. */
typedef struct side_group {
	int64_t grp;
	uint8_t *hdr, *rec;
	size_t hdr_len, rec_len;
	char *ddl; /* or DDL to run there (the deferred indexes), with the writer waiting */
	struct side_group *next;
} side_group;

typedef struct lite_side {
	char path[1100];
	sqlite3 *db;	 /* the side file's writer connection: the thread's while it runs a group */
	lite_ckpt *ckpt; /* its checkpoints */
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;   /* work or stop, to the thread */
	pthread_cond_t done; /* a group is applied (or failed), to the writer */
	side_group *head, *tail;
	int pending;
	bool stop;
	int rc; /* the thread's first failure (SQLITE_OK: none), which the writer reports */
	char err[256];
	int64_t applied; /* the last group in the side file */
	/* the thread's prepared statements, by text */
	struct {
		char *sql;
		sqlite3_stmt *st;
	} cache[SIDE_STMTS];
	int ncache;
	/* the writer's: the side statements' texts (a record names one by its slot), and the group
	 * being recorded */
	char *texts[SIDE_STMTS];
	int ntexts;
	uint8_t *rec;
	size_t rec_len, rec_cap;
	bool rec_failed; /* out of memory while recording: the commit fails */
	int64_t grp;	 /* the last group logged */
	/* Following the node, the writer runs the side statements itself, in a transaction of the
	 * side file it opens with its own and commits right after it (btx); during a bulk catch-up
	 * (the meta row deferred_indexes: bulk) the side thread runs them while the writer goes on.
	 * ddl: the transaction ran DDL of the side tables, after which bulk is read again. */
	bool bulk, btx, ddl;
	sqlite3_stmt *mark;		 /* UPDATE side_state (on db, by whichever thread writes it) */
	sqlite3_stmt *log_del, *log_ins; /* side_log's, on the main file's writer connection */
} lite_side;

static bool side_grow(uint8_t **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap : 1u << 16;
	while (c < need)
		c *= 2;
	uint8_t *q = realloc(*p, c);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

static void side_append(lite_side *d, const void *p, size_t n)
{
	if (d->rec_failed || !side_grow(&d->rec, &d->rec_cap, d->rec_len + n)) {
		d->rec_failed = true;
		return;
	}
	memcpy(d->rec + d->rec_len, p, n);
	d->rec_len += n;
}

/* The header of a group: how many texts, then each as u32 length and bytes. */
static uint8_t *side_header(const lite_side *d, size_t *len)
{
	size_t n = 1;
	for (int i = 0; i < d->ntexts; i++)
		n += 4 + strlen(d->texts[i]);
	uint8_t *h = malloc(n), *p = h;
	if (!h)
		return NULL;
	*p++ = (uint8_t)d->ntexts;
	for (int i = 0; i < d->ntexts; i++) {
		uint32_t l = (uint32_t)strlen(d->texts[i]);
		memcpy(p, &l, 4);
		memcpy(p + 4, d->texts[i], l);
		p += 4 + l;
	}
	*len = n;
	return h;
}

static int side_fail(lite_side *d, int rc, const char *what)
{
	if (d->rc == SQLITE_OK) {
		d->rc = rc;
		snprintf(d->err, sizeof d->err, "side file: %s: %s", what, sqlite3_errmsg(d->db));
	}
	return rc;
}

/* The thread's statement for a text. */
static sqlite3_stmt *side_stmt(lite_side *d, const char *sql, size_t len)
{
	for (int i = 0; i < d->ncache; i++)
		if (strlen(d->cache[i].sql) == len && !memcmp(d->cache[i].sql, sql, len))
			return d->cache[i].st;
	if (d->ncache == SIDE_STMTS)
		return NULL;
	char *copy = strndup(sql, len);
	sqlite3_stmt *st = NULL;
	if (!copy || sqlite3_prepare_v3(d->db, copy, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
		free(copy);
		return NULL;
	}
	d->cache[d->ncache].sql = copy;
	d->cache[d->ncache++].st = st;
	return st;
}

/* Bind value i of a side statement: type 0 NULL, 1 integer, 2 blob, 3 text (bytes not copied). */
static void bind_value(sqlite3_stmt *st, int i, int type, int64_t v, const void *p, size_t n)
{
	switch (type) {
	case 1: sqlite3_bind_int64(st, i + 1, v); break;
	case 2: sqlite3_bind_blob64(st, i + 1, p, n, SQLITE_STATIC); break;
	case 3: sqlite3_bind_text64(st, i + 1, p, n, SQLITE_STATIC, SQLITE_UTF8); break;
	default: sqlite3_bind_null(st, i + 1);
	}
}

/* The side file's last group, in its open transaction. */
static int side_mark(lite_side *d, int64_t grp)
{
	int rc = d->mark ? SQLITE_OK
			 : sqlite3_prepare_v3(d->db, "UPDATE side_state SET applied = ?", -1,
					      SQLITE_PREPARE_PERSISTENT, &d->mark, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_int64(d->mark, 1, grp);
	rc = sqlite3_step(d->mark) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(d->db);
	sqlite3_reset(d->mark);
	return rc;
}

/* Run one group's records in the side file, with its number, in one transaction. The records
 * were made by this process or read back from side_log: either way every length is checked. */
static int side_apply(lite_side *d, int64_t grp, const uint8_t *hdr, size_t hlen, const uint8_t *rec,
		      size_t rlen)
{
	sqlite3_stmt *by_slot[256] = { 0 };
	const uint8_t *p = hdr, *end = hdr + hlen;
	if (p >= end)
		return side_fail(d, SQLITE_CORRUPT, "a group without its header");
	int n = *p++;
	for (int i = 0; i < n; i++) {
		uint32_t l;
		if ((size_t)(end - p) < 4 || (memcpy(&l, p, 4), (size_t)(end - p) - 4 < l))
			return side_fail(d, SQLITE_CORRUPT, "a group's header is cut short");
		if (!(by_slot[i] = side_stmt(d, (const char *)p + 4, l)))
			return side_fail(d, SQLITE_ERROR, "prepare");
		p += 4 + l;
	}
	int rc = ckpt_settle(d->ckpt, d->db);
	if (rc != SQLITE_OK)
		return side_fail(d, rc, "checkpoint");
	if ((rc = sqlite3_exec(d->db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) != SQLITE_OK)
		return side_fail(d, rc, "begin");
	p = rec, end = rec + rlen;
	while (rc == SQLITE_OK && p < end) {
		if (end - p < 2 || !by_slot[p[0]]) {
			rc = side_fail(d, SQLITE_CORRUPT, "a record names no statement");
			break;
		}
		sqlite3_stmt *st = by_slot[p[0]];
		int nv = p[1];
		p += 2;
		for (int i = 0; rc == SQLITE_OK && i < nv; i++) {
			if (p >= end) {
				rc = side_fail(d, SQLITE_CORRUPT, "a record is cut short");
				break;
			}
			int t = *p++;
			int64_t v = 0;
			uint32_t l = 0;
			if (t > 3) {
				rc = side_fail(d, SQLITE_CORRUPT, "a record's value of no known type");
				break;
			}
			if ((t == 1 && end - p < 8) ||
			    (t >= 2 && (end - p < 4 || (memcpy(&l, p, 4), (size_t)(end - p) - 4 < l)))) {
				rc = side_fail(d, SQLITE_CORRUPT, "a record is cut short");
				break;
			}
			if (t == 1)
				memcpy(&v, p, 8), p += 8;
			else if (t >= 2)
				p += 4;
			bind_value(st, i, t, v, p, l);
			p += l;
		}
		if (rc != SQLITE_OK)
			break;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		rc = rc == SQLITE_DONE ? SQLITE_OK : side_fail(d, rc, "write");
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	if (rc == SQLITE_OK && (rc = side_mark(d, grp)) != SQLITE_OK)
		side_fail(d, rc, "side_state");
	if (rc == SQLITE_OK && (rc = sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		side_fail(d, rc, "commit");
	if (rc != SQLITE_OK)
		sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static void group_free(side_group *g)
{
	if (!g)
		return;
	free(g->hdr);
	free(g->rec);
	free(g->ddl);
	free(g);
}

static void *side_main(void *arg)
{
	lite_side *d = arg;
	pthread_mutex_lock(&d->mu);
	for (;;) {
		while (!d->head && !d->stop)
			pthread_cond_wait(&d->cv, &d->mu);
		if (!d->head)
			break;
		side_group *g = d->head;
		bool failed = d->rc != SQLITE_OK;
		pthread_mutex_unlock(&d->mu);
		int rc = SQLITE_OK;
		if (!failed && g->ddl) {
			if ((rc = sqlite3_exec(d->db, g->ddl, NULL, NULL, NULL)) != SQLITE_OK)
				side_fail(d, rc, g->ddl);
		} else if (!failed) {
			rc = side_apply(d, g->grp, g->hdr, g->hdr_len, g->rec, g->rec_len);
		}
		pthread_mutex_lock(&d->mu);
		if (!failed && rc == SQLITE_OK && !g->ddl)
			d->applied = g->grp;
		d->head = g->next;
		if (!d->head)
			d->tail = NULL;
		d->pending--;
		pthread_cond_broadcast(&d->done);
		pthread_mutex_unlock(&d->mu);
		group_free(g);
		pthread_mutex_lock(&d->mu);
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

/* Queue g, once fewer than `room` groups wait; with wait, until it is done. The thread's failure,
 * as an error of c. */
static sl_err side_push(sl_conn *c, lite_side *d, side_group *g, int room, bool wait)
{
	pthread_mutex_lock(&d->mu);
	while (d->pending >= room)
		pthread_cond_wait(&d->done, &d->mu);
	if (d->tail)
		d->tail->next = g;
	else
		d->head = g;
	d->tail = g;
	d->pending++;
	pthread_cond_signal(&d->cv);
	while (wait && d->pending)
		pthread_cond_wait(&d->done, &d->mu);
	int rc = d->rc;
	pthread_mutex_unlock(&d->mu);
	return rc == SQLITE_OK ? SL_OK : sl_conn_fail(c, SL_ERR_STORE, "%s", d->err);
}

/* Until the side thread has applied every group queued. */
static sl_err side_wait(sl_conn *c, lite_side *d)
{
	pthread_mutex_lock(&d->mu);
	while (d->pending)
		pthread_cond_wait(&d->done, &d->mu);
	int rc = d->rc;
	pthread_mutex_unlock(&d->mu);
	return rc == SQLITE_OK ? SL_OK : sl_conn_fail(c, SL_ERR_STORE, "%s", d->err);
}

static sl_err err_of(int rc);

/* DDL of the side tables (the deferred indexes: sl_store_build_indexes), run in the side file. */
static sl_err side_ddl(sl_conn *c, lite_side *d, const char *sql)
{
	d->ddl = true; /* dropping or building the deferred indexes starts or ends a bulk catch-up */
	if (!d->bulk) {
		sl_err e = side_wait(c, d);
		if (e)
			return e;
		int rc = sqlite3_exec(d->db, sql, NULL, NULL, NULL);
		return rc == SQLITE_OK
			       ? SL_OK
			       : sl_conn_fail(c, err_of(rc), "side file: %s: %s", sql, sqlite3_errmsg(d->db));
	}
	side_group *g = calloc(1, sizeof *g);
	if (!g || !(g->ddl = strdup(sql))) {
		free(g);
		return sl_conn_fail(c, SL_ERR_NOMEM, "out of memory");
	}
	return side_push(c, d, g, INT32_MAX, true);
}

/* Does sql name a side table (or one of their indexes, whose names begin with the table's)? */
static bool names_side_table(const char *sql)
{
	for (size_t i = 0; i < SL_ARRAY_LEN(side_tables); i++)
		for (const char *p = sql; (p = strstr(p, side_tables[i])); p++) {
			char before = p == sql ? ' ' : p[-1];
			if (before == ' ' || before == '(' || before == '.' || before == '"')
				return true;
		}
	return false;
}

/* Is sql a write of a side table (INSERT INTO t / UPDATE t, t followed by a space)? */
static bool writes_side_table(const char *sql)
{
	const char *p = !strncmp(sql, "INSERT INTO ", 12) ? sql + 12
			: !strncmp(sql, "UPDATE ", 7)	  ? sql + 7
							  : NULL;
	if (!p)
		return false;
	for (size_t i = 0; i < SL_ARRAY_LEN(side_tables); i++) {
		size_t l = strlen(side_tables[i]);
		if (!strncmp(p, side_tables[i], l) && p[l] == ' ')
			return true;
	}
	return false;
}

static bool one_row(sqlite3 *db, const char *sql, const char *arg)
{
	sqlite3_stmt *st = NULL;
	bool yes = false;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (arg)
			sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
		yes = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return yes;
}

static bool has_side_log(sqlite3 *db)
{
	return one_row(db, "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = 'side_log'",
		       NULL);
}

/* A bulk catch-up is under way while the deferred indexes are dropped (their meta row,
 * sl_store_defer_indexes): read when a side file opens and after DDL of its tables. */
static bool deferred(sqlite3 *adb)
{
	return one_row(adb, "SELECT 1 FROM meta WHERE key = 'deferred_indexes'", NULL);
}

static void side_free(lite_side *d)
{
	if (!d)
		return;
	if (d->started) {
		pthread_mutex_lock(&d->mu);
		d->stop = true;
		pthread_cond_signal(&d->cv);
		pthread_mutex_unlock(&d->mu);
		pthread_join(d->thread, NULL);
	}
	while (d->head) {
		side_group *g = d->head;
		d->head = g->next;
		group_free(g);
	}
	ckpt_stop(d->ckpt);
	sqlite3_finalize(d->mark);
	sqlite3_finalize(d->log_del); /* the writer's connection is still open: disconnect closes it after */
	sqlite3_finalize(d->log_ins);
	for (int i = 0; i < d->ncache; i++) {
		sqlite3_finalize(d->cache[i].st);
		free(d->cache[i].sql);
	}
	for (int i = 0; i < d->ntexts; i++)
		free(d->texts[i]);
	sqlite3_close_v2(d->db); /* after its checkpointer: it checkpoints what is left */
	free(d->rec);
	pthread_cond_destroy(&d->done);
	pthread_cond_destroy(&d->cv);
	pthread_mutex_destroy(&d->mu);
	free(d);
}

/* The side file's id (side_state), into id; false when it has none. */
static bool side_state_id(sqlite3 *db, uint8_t id[SIDE_ID_LEN], int64_t *applied)
{
	sqlite3_stmt *st = NULL;
	bool ok = false;
	if (sqlite3_prepare_v2(db, "SELECT id, applied FROM side_state", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == SIDE_ID_LEN) {
		memcpy(id, sqlite3_column_blob(st, 0), SIDE_ID_LEN);
		*applied = sqlite3_column_int64(st, 1);
		ok = true;
	}
	sqlite3_finalize(st);
	return ok;
}

/* Apply the groups the main file logged after the side file's last (a crash came between the
 * two commits), then start the thread. */
static int side_recover(lite_side *d, sqlite3 *adb)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(adb, "SELECT id, body FROM side_log WHERE id > ? ORDER BY id", -1, &st,
				    NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_int64(st, 1, ((d->applied + 1) << 16) - 1);
	int64_t grp = -1;
	uint8_t *hdr = NULL, *rec = NULL;
	size_t hlen = 0, rlen = 0, rcap = 0;
	d->grp = d->applied;
	for (;;) {
		int step = sqlite3_step(st);
		int64_t id = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
		if (grp >= 0 && (step != SQLITE_ROW || id >> 16 != grp)) {
			if ((rc = side_apply(d, grp, hdr, hlen, rec, rlen)) != SQLITE_OK)
				break;
			d->applied = d->grp = grp;
			free(hdr);
			hdr = NULL, hlen = rlen = 0, grp = -1;
		}
		if (step != SQLITE_ROW) {
			rc = step == SQLITE_DONE ? SQLITE_OK : step;
			break;
		}
		const uint8_t *b = sqlite3_column_blob(st, 1);
		size_t n = (size_t)sqlite3_column_bytes(st, 1);
		grp = id >> 16;
		if ((id & 0xffff) == 0) {
			if (!(hdr = malloc(n ? n : 1))) {
				rc = SQLITE_NOMEM;
				break;
			}
			memcpy(hdr, b, n);
			hlen = n;
		} else {
			if (!side_grow(&rec, &rcap, rlen + n)) {
				rc = SQLITE_NOMEM;
				break;
			}
			memcpy(rec + rlen, b, n);
			rlen += n;
		}
	}
	sqlite3_finalize(st);
	free(hdr);
	free(rec);
	return rc;
}

/*
 * The side file of the store whose writer is adb, path: made and the tables moved into it when
 * setup (a store with nothing indexed yet), else opened, checked against the main file and
 * brought up to it. NULL with err when it cannot be.
 */
static lite_side *side_open(sqlite3 *adb, const char *path, unsigned mb, bool setup, char err[256])
{
	lite_side *d = calloc(1, sizeof *d);
	if (!d) {
		snprintf(err, 256, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cv, NULL);
	pthread_cond_init(&d->done, NULL);
	snprintf(d->path, sizeof d->path, "%s" SIDE_SUFFIX, path);
	char pragmas[512];
	snprintf(pragmas, sizeof pragmas,
		 "PRAGMA page_size = %d; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; "
		 "PRAGMA secure_delete = OFF; PRAGMA cache_size = -%u; PRAGMA temp_store = MEMORY; "
		 "CREATE TABLE IF NOT EXISTS side_state (id BLOB NOT NULL, applied INTEGER NOT NULL)",
		 NEW_PAGE_SIZE, mb * 1024);
	int rc = sqlite3_open_v2(
		d->path, &d->db,
		SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READWRITE | (setup ? SQLITE_OPEN_CREATE : 0), NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(d->db, BUSY_TIMEOUT_MS);
		rc = sqlite3_exec(d->db, pragmas, NULL, NULL, NULL);
	}
	if (rc != SQLITE_OK) {
		snprintf(err, 256, "cannot open %s: %s", d->path,
			 d->db ? sqlite3_errmsg(d->db) : sqlite3_errstr(rc));
		side_free(d);
		return NULL;
	}
	uint8_t id[SIDE_ID_LEN], mine[SIDE_ID_LEN];
	int64_t applied = 0;
	bool has_id = side_state_id(d->db, id, &applied);
	if (setup) {
		/* a side file left by a setup that crashed may be reused; one with rows is another store's */
		bool used = has_id && applied != 0;
		for (size_t i = 0; !used && i < SL_ARRAY_LEN(side_tables); i++) {
			char q[128];
			snprintf(q, sizeof q, "SELECT 1 FROM %s LIMIT 1", side_tables[i]);
			used = one_row(d->db, q, NULL);
		}
		if (used) {
			snprintf(err, 256,
				 "%s holds another store's rows: remove it, or give the store it belongs to",
				 d->path);
			side_free(d);
			return NULL;
		}
		/* the tables and their indexes as the migrations made them, then gone from the main file */
		sqlite3_stmt *st = NULL;
		rc = sqlite3_prepare_v2(adb,
					"SELECT name, sql FROM main.sqlite_master WHERE tbl_name IN "
					"('addr_utxos', 'addr_txs', 'asset_txs') AND sql IS NOT NULL "
					"ORDER BY type = 'table' DESC, rowid",
					-1, &st, NULL);
		while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(st, 0);
			if (!one_row(d->db, "SELECT 1 FROM sqlite_master WHERE name = ?", name))
				rc = sqlite3_exec(d->db, (const char *)sqlite3_column_text(st, 1), NULL, NULL,
						  NULL);
		}
		sqlite3_finalize(st);
		sqlite3_randomness(SIDE_ID_LEN, mine);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(d->db, "DELETE FROM side_state", NULL, NULL, NULL);
		if (rc == SQLITE_OK &&
		    (rc = sqlite3_prepare_v2(d->db, "INSERT INTO side_state (id, applied) VALUES (?, 0)", -1,
					     &st, NULL)) == SQLITE_OK) {
			sqlite3_bind_blob(st, 1, mine, SIDE_ID_LEN, SQLITE_STATIC);
			rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
			sqlite3_finalize(st);
		}
		if (rc != SQLITE_OK) {
			snprintf(err, 256, "cannot make %s: %s", d->path, sqlite3_errmsg(d->db));
			side_free(d);
			return NULL;
		}
		rc = sqlite3_exec(
			adb,
			"SAVEPOINT side_setup; DROP TABLE addr_utxos; DROP TABLE addr_txs; DROP TABLE asset_txs; "
			"CREATE TABLE side_log (id INTEGER PRIMARY KEY, body BLOB NOT NULL)",
			NULL, NULL, NULL);
		if (rc == SQLITE_OK &&
		    (rc = sqlite3_prepare_v2(adb, "INSERT INTO side_log (id, body) VALUES (0, ?)", -1, &st,
					     NULL)) == SQLITE_OK) {
			sqlite3_bind_blob(st, 1, mine, SIDE_ID_LEN, SQLITE_STATIC);
			rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
			sqlite3_finalize(st);
		}
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(adb, "RELEASE side_setup", NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			snprintf(err, 256, "cannot move the address tables to %s: %s", d->path,
				 sqlite3_errmsg(adb));
			sqlite3_exec(adb, "ROLLBACK TO side_setup; RELEASE side_setup", NULL, NULL, NULL);
			side_free(d);
			return NULL;
		}
		memcpy(id, mine, SIDE_ID_LEN);
		has_id = true;
	} else {
		/* the main file's id of its side file */
		sqlite3_stmt *st = NULL;
		bool same = false;
		if (has_id &&
		    sqlite3_prepare_v2(adb, "SELECT body FROM side_log WHERE id = 0", -1, &st, NULL) ==
			    SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == SIDE_ID_LEN)
			same = !memcmp(sqlite3_column_blob(st, 0), id, SIDE_ID_LEN);
		sqlite3_finalize(st);
		if (!same) {
			snprintf(err, 256, "%s is not the side file of %s (its id differs, or it has none)",
				 d->path, path);
			side_free(d);
			return NULL;
		}
	}
	d->applied = applied;
	d->bulk = deferred(adb);
	if (!(d->ckpt = ckpt_start(d->db, d->path, err))) {
		side_free(d);
		return NULL;
	}
	if ((rc = side_recover(d, adb)) != SQLITE_OK) {
		snprintf(err, 256, "cannot bring %s up to %s: %s", d->path, path,
			 d->err[0] ? d->err : sqlite3_errstr(rc));
		side_free(d);
		return NULL;
	}
	if (pthread_create(&d->thread, NULL, side_main, d)) {
		snprintf(err, 256, "cannot start the thread of %s", d->path);
		side_free(d);
		return NULL;
	}
	d->started = true;
	return d;
}

/* The slot of a side statement's text (registered on its first prepare). */
static int side_slot(lite_side *d, const char *sql)
{
	for (int i = 0; i < d->ntexts; i++)
		if (!strcmp(d->texts[i], sql))
			return i;
	if (d->ntexts == SIDE_STMTS)
		return -1;
	if (!(d->texts[d->ntexts] = strdup(sql)))
		return -1;
	return d->ntexts++;
}

/* The side file's page cache: half the writer's (its tables are about half the rows). */
static unsigned side_mb(unsigned mb) { return mb / 2 > 16 ? mb / 2 : 16; }

/* A reader's: the side file attached as `side`, with a cache like the main file's. */
static bool side_attach(lite_conn *lc, char err[256])
{
	char path[1100], pragma[64];
	snprintf(path, sizeof path, "%s" SIDE_SUFFIX, lc->path);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(lc->db, "ATTACH DATABASE ? AS side", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(lc->db);
	}
	sqlite3_finalize(st);
	snprintf(pragma, sizeof pragma, "PRAGMA side.cache_size = -%u", lc->mb * 1024);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(lc->db, pragma, NULL, NULL, NULL);
	/* a side file that is not there is made empty by ATTACH: its tables missing says so */
	if (rc == SQLITE_OK &&
	    !one_row(lc->db, "SELECT 1 FROM side.sqlite_master WHERE name = 'side_state'", NULL))
		rc = SQLITE_CANTOPEN;
	if (rc != SQLITE_OK) {
		snprintf(err, 256, "cannot attach %s: %s", path, sqlite3_errmsg(lc->db));
		return false;
	}
	lc->attached = true;
	return true;
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
	lc->reader = !write && !load;
	lc->mb = mb;
	snprintf(lc->path, sizeof lc->path, "%s", path);
	if ((write || lc->reader) && has_side_log(db)) {
		if (write ? !(lc->side = side_open(db, path, side_mb(mb), false, err))
			  : !side_attach(lc, err)) {
			lc->db = NULL;
			ckpt_stop(lc->ckpt);
			goto fail;
		}
	} else {
		/* the writer makes a side file only for a store with nothing indexed (opened()) */
		lc->may_split = lc->reader && !one_row(db, "SELECT 1 FROM txs LIMIT 1", NULL);
	}
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
	sqlite3_finalize(lc->touch);
	sqlite3_close_v2(lc->rdb);
	side_free(lc->side); /* after its last group, which the writer's commit has waited for or queued */
	ckpt_stop(lc->ckpt); /* before the writer's close, which checkpoints what is left */
	sqlite3_close_v2(lc->db);
	sl_dirlock_release(&lc->writer);
	free(lc);
}

#define DB(c) (((lite_conn *)(c)->impl)->db)
#define LC(c) ((lite_conn *)(c)->impl)

/* After the schema is made or checked: a writer's store with nothing indexed yet gets its side
 * file (the address tables move there while they are empty). */
static sl_err opened(sl_conn *c, sl_db_mode mode)
{
	lite_conn *lc = LC(c);
	if (mode != SL_DB_WRITE || lc->side || has_side_log(lc->db))
		return SL_OK;
	static const char *const empty[] = { "SELECT 1 FROM addr_utxos LIMIT 1",
					     "SELECT 1 FROM addr_txs LIMIT 1",
					     "SELECT 1 FROM asset_txs LIMIT 1", "SELECT 1 FROM txs LIMIT 1" };
	for (size_t i = 0; i < SL_ARRAY_LEN(empty); i++)
		if (one_row(lc->db, empty[i], NULL))
			return SL_OK; /* a store indexed before: its tables stay where they are */
	if (!one_row(lc->db, "SELECT 1 FROM main.sqlite_master WHERE name = 'addr_utxos'", NULL))
		return SL_OK; /* an older schema (a migration's test): nothing to move */
	char err[256];
	if (!(lc->side = side_open(lc->db, lc->path, side_mb(lc->mb), true, err)))
		return sl_conn_fail(c, SL_ERR_STORE, "%s", err);
	return SL_OK;
}

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
	if (LC(c)->side && names_side_table(sql))
		return side_ddl(c, LC(c)->side, sql); /* a side table's DDL: run in the side file */
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
	lite_side *d = LC(c)->side;
	if (d) {
		pthread_mutex_lock(&d->mu);
		rc = d->rc;
		pthread_mutex_unlock(&d->mu);
		if (rc != SQLITE_OK)
			return sl_conn_fail(c, SL_ERR_STORE, "%s", d->err);
	}
	sl_err e = exec_raw(c, "BEGIN IMMEDIATE");
	if (e || !d || d->bulk)
		return e;
	if ((e = side_wait(c, d))) /* the side thread's last group, before the writer takes its file */
		goto undo;
	if ((rc = ckpt_settle(d->ckpt, d->db)) == SQLITE_OK)
		rc = sqlite3_exec(d->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		e = sl_conn_fail(c, err_of(rc), "side file: begin: %s", sqlite3_errmsg(d->db));
		goto undo;
	}
	d->btx = true;
	return SL_OK;
undo:
	sqlite3_exec(DB(c), "ROLLBACK", NULL, NULL, NULL);
	return e;
}

/* The recorded group into side_log, in the writer's transaction: its header as part 0, its records
 * in parts of SIDE_PART; the groups the side file has are deleted first. */
static sl_err side_log(sl_conn *c, lite_side *d, int64_t grp, const uint8_t *hdr, size_t hlen)
{
	pthread_mutex_lock(&d->mu);
	int64_t applied = d->applied;
	pthread_mutex_unlock(&d->mu);
	int rc = SQLITE_OK;
	if (!d->log_del)
		rc = sqlite3_prepare_v3(DB(c), "DELETE FROM side_log WHERE id > 0 AND id < ?", -1,
					SQLITE_PREPARE_PERSISTENT, &d->log_del, NULL);
	if (rc == SQLITE_OK && !d->log_ins)
		rc = sqlite3_prepare_v3(DB(c), "INSERT INTO side_log (id, body) VALUES (?, ?)", -1,
					SQLITE_PREPARE_PERSISTENT, &d->log_ins, NULL);
	sqlite3_stmt *del = d->log_del, *ins = d->log_ins;
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(del, 1, (applied + 1) << 16);
		rc = sqlite3_step(del) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(DB(c));
		sqlite3_reset(del);
	}
	for (size_t off = 0, part = 0; rc == SQLITE_OK && (part == 0 || off < d->rec_len); part++) {
		const uint8_t *p = part ? d->rec + off : hdr;
		size_t n = part ? SL_MIN((size_t)SIDE_PART, d->rec_len - off) : hlen;
		if (part > 0xfffe) {
			rc = SQLITE_TOOBIG;
			break;
		}
		sqlite3_bind_int64(ins, 1, grp << 16 | (int64_t)part);
		sqlite3_bind_blob64(ins, 2, p, n, SQLITE_STATIC);
		rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(DB(c));
		sqlite3_reset(ins);
		if (part)
			off += n;
	}
	return rc == SQLITE_OK ? SL_OK : fail(c, rc, "side_log");
}

/* The writer's commit, with the group its side statements recorded logged in it; then the side
 * file's transaction that ran the group is committed, or (bulk) the group goes to the side
 * thread. */
static sl_err commit(sl_conn *c)
{
	lite_side *d = LC(c)->side;
	if (!d)
		return exec_raw(c, "COMMIT");
	if (d->rec_failed) {
		d->rec_len = 0, d->rec_failed = false;
		return sl_conn_fail(c, SL_ERR_NOMEM, "out of memory recording the side file's rows");
	}
	sl_err e = SL_OK;
	int64_t grp = d->grp + 1;
	uint8_t *hdr = NULL;
	size_t hlen = 0;
	if (d->rec_len) {
		if (!(hdr = side_header(d, &hlen)))
			return sl_conn_fail(c, SL_ERR_NOMEM, "out of memory");
		e = side_log(c, d, grp, hdr, hlen);
	}
	int rc;
	if (!e && d->btx && d->rec_len && (rc = side_mark(d, grp)) != SQLITE_OK)
		/* the writer ran the group in the side file's transaction: its number goes with it */
		e = sl_conn_fail(c, err_of(rc), "side file: side_state: %s", sqlite3_errmsg(d->db));
	if (!e)
		e = exec_raw(c, "COMMIT");
	if (e) {
		free(hdr); /* the caller rolls back, which drops the records with the rows they go with */
		return e;
	}
	if (d->ddl)
		d->bulk = deferred(DB(c)), d->ddl = false;
	if (d->btx) {
		/* after the main file's commit, which logged the group: a crash between the two loses
		 * nothing (the next writer applies the log) */
		d->btx = false;
		rc = sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
			e = sl_conn_fail(c, err_of(rc), "side file: commit: %s", sqlite3_errmsg(d->db));
		}
		free(hdr);
		if (!e && d->rec_len) {
			pthread_mutex_lock(&d->mu);
			d->applied = grp;
			pthread_mutex_unlock(&d->mu);
			d->grp = grp;
		}
		d->rec_len = 0;
		return e;
	}
	if (!d->rec_len)
		return SL_OK;
	side_group *g = calloc(1, sizeof *g);
	if (!g) {
		free(hdr);
		return sl_conn_fail(c, SL_ERR_NOMEM, "out of memory");
	}
	*g = (side_group){ .grp = grp, .hdr = hdr, .hdr_len = hlen, .rec = d->rec, .rec_len = d->rec_len };
	d->rec = NULL;
	d->rec_len = d->rec_cap = 0;
	d->grp = grp;
	return side_push(c, d, g, 1, false);
}

static void rollback(sl_conn *c)
{
	lite_side *d = LC(c)->side;
	if (d) {
		d->rec_len = 0, d->rec_failed = false;
		d->ddl = false;
		if (d->btx)
			sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
		d->btx = false;
	}
	if (!sqlite3_get_autocommit(DB(c)))
		sqlite3_exec(DB(c), "ROLLBACK", NULL, NULL, NULL);
}

/* Deferred: the snapshot is taken by the first read and held until the end. With a side file,
 * its snapshot is taken first: the side file then holds nothing the main file's does not (a
 * group reaches it after the main file's commit). A reader that opened an empty store before its
 * writer made the side file attaches it now; once the store has txs without one, it has none. */
static sl_err begin_read(sl_conn *c)
{
	lite_conn *lc = LC(c);
	char err[256];
	if (lc->may_split) {
		if (has_side_log(lc->db)) {
			if (!side_attach(lc, err))
				return sl_conn_fail(c, SL_ERR_STORE, "%s", err);
			lc->may_split = false;
		} else if (one_row(lc->db, "SELECT 1 FROM txs LIMIT 1", NULL)) {
			lc->may_split = false;
		}
	}
	sl_err e = exec_raw(c, "BEGIN DEFERRED");
	if (e || !lc->attached)
		return e;
	int rc = lc->touch ? SQLITE_OK
			   : sqlite3_prepare_v3(lc->db, "SELECT 1 FROM side.side_state", -1,
						SQLITE_PREPARE_PERSISTENT, &lc->touch, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(lc->touch) == SQLITE_ROW ? SQLITE_OK : SQLITE_CORRUPT;
	sqlite3_reset(lc->touch);
	if (rc != SQLITE_OK) {
		sqlite3_exec(lc->db, "ROLLBACK", NULL, NULL, NULL);
		return sl_conn_fail(c, SL_ERR_STORE, "the side file has no side_state");
	}
	return SL_OK;
}

/* A bound value of a side statement, until its exec records it: int, or bytes in the scratch. */
typedef struct side_val {
	uint8_t type; /* 0 NULL, 1 integer, 2 blob, 3 text */
	int64_t i;
	size_t off, n;
} side_val;

typedef struct lite_stmt {
	sqlite3_stmt *st; /* NULL for a side statement */
	bool row;	  /* a row is current */
	bool done;	  /* stepped to the end */
	int64_t changes;
	lite_side *wait; /* a writer's read of a side table: after the side thread has caught up */
	/* a side statement's (a write of a side table by the writer): recorded, not run */
	lite_side *side;
	sqlite3_stmt *bst; /* its statement in the side file, when the writer runs it itself */
	int slot, nparams;
	side_val *v;
	uint8_t *scratch;
	size_t slen, scap;
} lite_stmt;

/* Parameters of a side statement's text: its ?s (write.c's have no string literals). */
static int count_params(const char *sql)
{
	int n = 0;
	for (const char *p = sql; *p; p++)
		n += *p == '?';
	return n;
}

static void *prepare(sl_conn *c, const char *sql, int *nparams)
{
	lite_stmt *ls = calloc(1, sizeof *ls);
	if (!ls) {
		sl_conn_fail(c, SL_ERR_NOMEM, "out of memory");
		return NULL;
	}
	lite_side *d = LC(c)->side;
	if (d && writes_side_table(sql)) {
		ls->side = d;
		ls->nparams = *nparams = count_params(sql);
		ls->slot = side_slot(d, sql);
		ls->v = calloc((size_t)(ls->nparams ? ls->nparams : 1), sizeof *ls->v);
		if (ls->slot < 0 || ls->nparams > SL_SQL_MAX_PARAMS || ls->nparams > 255 || !ls->v) {
			sl_conn_fail(c, SL_ERR_NOMEM, "cannot record %s", sql);
			free(ls->v);
			free(ls);
			return NULL;
		}
		return ls;
	}
	sqlite3 *db = DB(c);
	if (d && names_side_table(sql)) {
		/* the writer reads a side table (a dump, a test): on a connection to both files */
		lite_conn *lc = LC(c);
		char err[256];
		if (!lc->rdb) {
			lite_conn r = { .path = "", .mb = 16 };
			snprintf(r.path, sizeof r.path, "%s", lc->path);
			if (sqlite3_open_v2(lc->path, &r.db, SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READONLY,
					    NULL) != SQLITE_OK ||
			    !side_attach(&r, err)) {
				sl_conn_fail(c, SL_ERR_STORE, "cannot read %s with its side file", lc->path);
				sqlite3_close_v2(r.db);
				free(ls);
				return NULL;
			}
			sqlite3_busy_timeout(r.db, BUSY_TIMEOUT_MS);
			lc->rdb = r.db;
		}
		db = lc->rdb;
		ls->wait = d;
	}
	int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &ls->st, NULL);
	if (rc != SQLITE_OK) {
		sl_conn_fail(c, err_of(rc), "prepare: %s", sqlite3_errmsg(db));
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
	sqlite3_finalize(ls->bst);
	free(ls->v);
	free(ls->scratch);
	free(ls);
}

static void reset(sl_stmt *s)
{
	lite_stmt *ls = s->impl;
	if (ls->side) {
		memset(ls->v, 0, (size_t)ls->nparams * sizeof *ls->v);
		ls->slen = 0;
		ls->changes = 0;
		return;
	}
	sqlite3_reset(ls->st);
	sqlite3_clear_bindings(ls->st);
	ls->row = ls->done = false;
	ls->changes = 0;
}

#define ST(s) (((lite_stmt *)(s)->impl)->st)

/* A side statement's value i (sql.c has checked i against its parameters). */
static void side_bind(lite_stmt *ls, int i, uint8_t type, int64_t v, const void *p, size_t n)
{
	if (type >= 2 && (n > UINT32_MAX || !side_grow(&ls->scratch, &ls->scap, ls->slen + n))) {
		ls->side->rec_failed = true;
		return;
	}
	ls->v[i] = (side_val){ .type = type, .i = v, .off = ls->slen, .n = n };
	if (type >= 2 && n) {
		memcpy(ls->scratch + ls->slen, p, n);
		ls->slen += n;
	}
}

static void bind_i64(sl_stmt *s, int i, int64_t v)
{
	lite_stmt *ls = s->impl;
	if (ls->side)
		side_bind(ls, i, 1, v, NULL, 0);
	else
		sqlite3_bind_int64(ls->st, i + 1, v);
}
static void bind_blob(sl_stmt *s, int i, const void *p, size_t n)
{
	lite_stmt *ls = s->impl;
	if (ls->side)
		side_bind(ls, i, 2, 0, p, n);
	else
		sqlite3_bind_blob64(ls->st, i + 1, p, n, SQLITE_TRANSIENT);
}
static void bind_text(sl_stmt *s, int i, const char *p, size_t n)
{
	lite_stmt *ls = s->impl;
	if (ls->side)
		side_bind(ls, i, 3, 0, p, n);
	else
		sqlite3_bind_text64(ls->st, i + 1, p, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}
static void bind_null(sl_stmt *s, int i)
{
	lite_stmt *ls = s->impl;
	if (ls->side)
		side_bind(ls, i, 0, 0, NULL, 0);
	else
		sqlite3_bind_null(ls->st, i + 1);
}

/* A side statement's exec: its record (slot, count, each value) appended to the group. Outside a
 * transaction it is a group of its own, committed at once. */
/* A side statement's exec: its record (slot, count, each value) appended to the group, and run in
 * the side file's transaction when the writer has one open (following the node). Outside a
 * transaction it is a transaction of its own. */
static sl_err side_exec(sl_stmt *s)
{
	lite_stmt *ls = s->impl;
	lite_side *d = ls->side;
	sl_conn *c = s->conn;
	if (sqlite3_get_autocommit(DB(c))) {
		sl_err e = begin(c);
		if (!e && !(e = side_exec(s)))
			e = commit(c);
		if (e)
			rollback(c);
		return e;
	}
	uint8_t head[2] = { (uint8_t)ls->slot, (uint8_t)ls->nparams };
	side_append(d, head, 2);
	for (int i = 0; i < ls->nparams; i++) {
		const side_val *v = &ls->v[i];
		side_append(d, &v->type, 1);
		if (v->type == 1) {
			side_append(d, &v->i, 8);
		} else if (v->type >= 2) {
			uint32_t n = (uint32_t)v->n;
			side_append(d, &n, 4);
			side_append(d, ls->scratch + v->off, v->n);
		}
	}
	ls->changes = 1;
	if (!d->btx)
		return SL_OK;
	/* the writer runs it: its statement in the side file, prepared at its first run there */
	if (!ls->bst) {
		const char *sql = d->texts[ls->slot];
		int rc = sqlite3_prepare_v3(d->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &ls->bst, NULL);
		if (rc != SQLITE_OK)
			return sl_conn_fail(c, err_of(rc), "side file: prepare: %s", sqlite3_errmsg(d->db));
	}
	for (int i = 0; i < ls->nparams; i++) {
		const side_val *v = &ls->v[i];
		bind_value(ls->bst, i, v->type, v->i, ls->scratch + v->off, v->n);
	}
	int rc;
	while ((rc = sqlite3_step(ls->bst)) == SQLITE_ROW)
		;
	sl_err e = rc == SQLITE_DONE ? SL_OK
				     : sl_conn_fail(c, err_of(rc), "side file: %s", sqlite3_errmsg(d->db));
	sqlite3_reset(ls->bst);
	sqlite3_clear_bindings(ls->bst);
	return e;
}

static sl_err exec(sl_stmt *s)
{
	lite_stmt *ls = s->impl;
	if (ls->side)
		return side_exec(s);
	sl_err w = ls->wait ? side_wait(s->conn, ls->wait) : SL_OK;
	if (w)
		return w;
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
	if (ls->side)
		return sl_conn_fail(s->conn, SL_ERR_INVALID, "a write of a side table asked for rows");
	if (ls->wait) {
		sl_err w = side_wait(s->conn, ls->wait);
		if (w)
			return w;
	}
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
	.opened = opened,
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
