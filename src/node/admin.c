/*
 * admin.c — the `admin` service at /ext/admin (only with --api-admin-enabled).
 *
 * Behaviour and error texts: docs/reference/node-rpc.md §5. Profiles go
 * to --profile-dir: cpu.profile (gperftools CPU profiler, read it with
 * `google-pprof --text snowline cpu.profile`), mem.profile (tcmalloc heap
 * profile in release builds), lock.profile (contention of our own locks).
 */
#include "node/internal.h"

#include <dirent.h>
#include <errno.h>
#include <time.h>
#include <fcntl.h>
#include <gperftools/profiler.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef SL_HAVE_TCMALLOC
#include <gperftools/heap-profiler.h>
#endif

#include "crypto/cb58.h"
#include "util/limits.h"

int sl_admin_load_vms(sl_rpc_call *c);

static void empty_result(sl_rpc_call *c)
{
	sl_jw_obj(c->w);
	sl_jw_obj_end(c->w);
}

static int alias(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	const sl_rpc_val *endpoint = &c->args[0], *al = &c->args[1];
	if (al->slen > SL_ALIAS_MAX_LEN)
		return sl_rpc_fail(c, "alias length is too long");
	char base[SL_HTTP_MAX_PATH], path[SL_HTTP_MAX_PATH], msg[1200];
	snprintf(base, sizeof base, "/ext/%s", endpoint->set ? endpoint->s : "");
	snprintf(path, sizeof path, "/ext/%s", al->set ? al->s : "");
	sl_rwlock_wrlock(&n->routes_lock);
	sl_err e = sl_routes_alias(n->routes, base, path, msg);
	sl_rwlock_unlock(&n->routes_lock);
	if (e)
		return sl_rpc_fail(c, "%s", msg);
	SL_LOG(n->log, SL_INFO, "API alias %s → %s", path, base);
	empty_result(c);
	return 0;
}

static int alias_chain(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	const char *chain = c->args[0].set ? c->args[0].s : "";
	const char *al = c->args[1].set ? c->args[1].s : "";
	if (c->args[1].slen > SL_ALIAS_MAX_LEN)
		return sl_rpc_fail(c, "alias length is too long");
	sl_mutex_lock(&n->chains_lock);
	int ci = sl_chains_lookup_locked(n, chain);
	if (ci < 0) {
		sl_mutex_unlock(&n->chains_lock);
		return sl_rpc_fail(c, "there is no ID with alias: %s", chain);
	}
	if (sl_chains_lookup_locked(n, al) >= 0) {
		sl_mutex_unlock(&n->chains_lock);
		return sl_rpc_fail(c, "alias already mapped to an ID: %s", al);
	}
	sl_chain *ch = &n->chains[ci];
	char *d = ch->naliases < SL_MAX_CHAIN_ALIASES ? strdup(al) : NULL;
	if (!d) {
		sl_mutex_unlock(&n->chains_lock);
		return sl_rpc_fail(c, "too many aliases");
	}
	ch->aliases[ch->naliases++] = d;
	char base[128], rel[SL_HTTP_MAX_PATH], path[SL_HTTP_MAX_PATH + 16], msg[1200];
	snprintf(base, sizeof base, "/ext/bc/%s", ch->id_str);
	sl_mutex_unlock(&n->chains_lock);
	/* path.Join("bc", alias): cleaned, relative to /ext/. */
	snprintf(rel, sizeof rel, "/bc/%s", al);
	char clean[SL_HTTP_MAX_PATH + 2];
	if (!sl_path_clean(rel, clean, sizeof clean))
		return sl_rpc_fail(c, "alias length is too long");
	size_t cl = strlen(clean);
	if (cl > 1 && clean[cl - 1] == '/')
		clean[cl - 1] = 0; /* path.Join drops trailing slashes */
	snprintf(path, sizeof path, "/ext%s", strcmp(clean, "/") ? clean : "");
	sl_rwlock_wrlock(&n->routes_lock);
	sl_err e = sl_routes_alias(n->routes, base, path, msg);
	sl_rwlock_unlock(&n->routes_lock);
	if (e)
		return sl_rpc_fail(c, "%s", msg);
	empty_result(c);
	return 0;
}

static int get_chain_aliases(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	const char *chain = c->args[0].set ? c->args[0].s : "";
	uint8_t id[32];
	const char *msg;
	char mb[96];
	if (sl_cb58_decode_id(chain, c->args[0].set ? c->args[0].slen : 0, id, &msg, mb))
		return sl_rpc_fail(c, "%s", msg);
	sl_jw_obj(c->w);
	sl_jw_key(c->w, "aliases");
	sl_mutex_lock(&n->chains_lock);
	int ci = -1;
	for (int i = 0; i < SL_CHAIN__COUNT; i++)
		if (!memcmp(n->chains[i].id, id, 32))
			ci = i;
	if (ci < 0) {
		sl_jw_null(c->w);
	} else {
		sl_jw_arr(c->w);
		for (size_t i = 0; i < n->chains[ci].naliases; i++)
			sl_jw_str(c->w, n->chains[ci].aliases[i]);
		sl_jw_arr_end(c->w);
	}
	sl_mutex_unlock(&n->chains_lock);
	sl_jw_obj_end(c->w);
	return 0;
}

static int logger_not_found(sl_rpc_call *c, const char *name, size_t len)
{
	sl_buf b;
	sl_buf_init(&b, 4096);
	sl_buf_adds(&b, "logger with name ");
	sl_go_quote(&b, name, len);
	sl_buf_adds(&b, " not found");
	int rc = sl_rpc_fail(c, "%s", sl_buf_str(&b));
	sl_buf_release(&b);
	return rc;
}

static int cmp_logger(const void *a, const void *b)
{
	return strcmp(sl_log_name(*(sl_logger *const *)a), sl_log_name(*(sl_logger *const *)b));
}

/* {"loggerLevels":{...}} for one logger, or all when name is empty; keys sorted. */
static void write_levels(sl_jw *w, sl_logger *only)
{
	sl_logger *ls[SL_MAX_LOGGERS];
	size_t n = 0;
	if (only)
		ls[n++] = only;
	else
		for (sl_logger *l; (l = sl_log_at(n)) && n < SL_MAX_LOGGERS;)
			ls[n++] = l;
	qsort(ls, n, sizeof *ls, cmp_logger);
	sl_jw_obj(w);
	sl_jw_key(w, "loggerLevels");
	sl_jw_obj(w);
	for (size_t i = 0; i < n; i++) {
		sl_jw_keyn(w, sl_log_name(ls[i]), strlen(sl_log_name(ls[i])));
		sl_jw_obj(w);
		sl_jw_key(w, "logLevel");
		sl_jw_str(w, sl_level_name(sl_log_level(ls[i])));
		sl_jw_key(w, "displayLevel");
		sl_jw_str(w, sl_level_name(sl_log_display_level(ls[i])));
		sl_jw_obj_end(w);
	}
	sl_jw_obj_end(w);
	sl_jw_obj_end(w);
}

static int get_logger_level(sl_rpc_call *c)
{
	const sl_rpc_val *name = &c->args[0];
	sl_logger *l = NULL;
	if (name->set && name->slen) {
		l = sl_log_find(name->s);
		if (!l || strlen(name->s) != name->slen)
			return logger_not_found(c, name->s, name->slen);
	}
	write_levels(c->w, l);
	return 0;
}

static int set_logger_level(sl_rpc_call *c)
{
	const sl_rpc_val *name = &c->args[0], *lv = &c->args[1], *dv = &c->args[2];
	if (!lv->set && !dv->set)
		return sl_rpc_fail(c, "need to specify either displayLevel or logLevel");
	sl_logger *only = NULL;
	if (name->set && name->slen) {
		only = sl_log_find(name->s);
		if (!only || strlen(name->s) != name->slen)
			return logger_not_found(c, name->s, name->slen);
	}
	for (size_t i = 0;; i++) {
		sl_logger *l = only ? (i ? NULL : only) : sl_log_at(i);
		if (!l)
			break;
		if (lv->set)
			sl_log_set_level(l, (sl_level)lv->enc);
		if (dv->set)
			sl_log_set_display_level(l, (sl_level)dv->enc);
	}
	if (c->compat == SL_COMPAT_UPSTREAM)
		write_levels(c->w, only);
	else
		empty_result(c);
	return 0;
}

/* mkdir -p with mode 0750, as avalanchego's profiler does. */
static int make_dirs(const char *dir)
{
	char p[1024];
	snprintf(p, sizeof p, "%s", dir);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0750) && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(p, 0750) && errno != EEXIST ? -1 : 0;
}

static int profile_path(sl_rpc_call *c, const char *file, char out[1200])
{
	sl_node *n = c->ctx;
	if (make_dirs(n->profile_dir))
		return sl_rpc_fail(c, "mkdir %s: %s", n->profile_dir, strerror(errno));
	snprintf(out, 1200, "%s/%s", n->profile_dir, file);
	return 0;
}

static int write_file(sl_rpc_call *c, const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0)
		return sl_rpc_fail(c, "open %s: %s", path, strerror(errno));
	const uint8_t *b = p;
	while (len) {
		ssize_t w = write(fd, b, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return sl_rpc_fail(c, "write %s: %s", path, strerror(errno));
		}
		b += w;
		len -= (size_t)w;
	}
	if (close(fd))
		return sl_rpc_fail(c, "close %s: %s", path, strerror(errno));
	return 0;
}

static int start_cpu_profiler(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	char path[1200];
	int rc = 0;
	sl_mutex_lock(&n->prof_lock);
	if (n->cpu_profiling)
		rc = sl_rpc_fail(c, "cpu profiler already running");
	else if (!(rc = profile_path(c, "cpu.profile", path))) {
		/* Create the file now with the right mode, as avalanchego opens it at start. */
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
		if (fd >= 0)
			close(fd);
		if (fd < 0)
			rc = sl_rpc_fail(c, "open %s: %s", path, strerror(errno));
		else if (!ProfilerStart(path))
			rc = sl_rpc_fail(c, "cpu profiling already in use");
		else
			n->cpu_profiling = true;
	}
	sl_mutex_unlock(&n->prof_lock);
	if (!rc)
		empty_result(c);
	return rc;
}

static int stop_cpu_profiler(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	int rc = 0;
	sl_mutex_lock(&n->prof_lock);
	if (!n->cpu_profiling)
		rc = sl_rpc_fail(c, "cpu profiler doesn't exist");
	else {
		ProfilerStop();
		n->cpu_profiling = false;
	}
	sl_mutex_unlock(&n->prof_lock);
	if (!rc)
		empty_result(c);
	return rc;
}

#ifdef SL_HAVE_TCMALLOC
/* The profiler dumps a file per GiB allocated while it runs: remove any the window left. */
static void remove_window_dumps(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, ".heap-window.", 13))
			continue;
		char path[1300];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
}
#endif

static int memory_profile(sl_rpc_call *c)
{
	char path[1200];
	if (profile_path(c, "mem.profile", path))
		return -1;
	int rc;
#ifdef SL_HAVE_TCMALLOC
	/*
	 * tcmalloc's heap profiler records the stack of every allocation, which
	 * slows every request many times over, and tcmalloc reads its sampling
	 * settings only when the process starts. So the profiler runs only inside
	 * this call: for SL_HEAP_PROFILE_WINDOW_MS it records what the node
	 * allocates; the allocations still live at the end are written (pprof's
	 * heap format) and it stops. One profile at a time (prof_lock).
	 */
	sl_node *n = c->ctx;
	char prefix[1200];
	snprintf(prefix, sizeof prefix, "%s/.heap-window", n->profile_dir);
	sl_mutex_lock(&n->prof_lock);
	char *prof = NULL;
	if (!IsHeapProfilerRunning()) {
		HeapProfilerStart(prefix);
		struct timespec ts = { SL_HEAP_PROFILE_WINDOW_MS / 1000,
				       (SL_HEAP_PROFILE_WINDOW_MS % 1000) * 1000000L };
		nanosleep(&ts, NULL);
		prof = GetHeapProfile();
		HeapProfilerStop();
		remove_window_dumps(n->profile_dir);
	}
	sl_mutex_unlock(&n->prof_lock);
	if (prof) {
		rc = write_file(c, path, prof, strlen(prof));
		free(prof);
	} else {
		rc = sl_rpc_fail(c, "heap profiler is already running");
	}
#else
	/* Sanitizer builds replace the allocator; write glibc's allocator report. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return sl_rpc_fail(c, "out of memory");
	fprintf(f,
		"<!-- snowline memory profile: this build has no tcmalloc; allocator statistics follow -->\n");
	malloc_info(0, f);
	fclose(f);
	rc = write_file(c, path, text, len);
	free(text);
#endif
	if (!rc)
		empty_result(c);
	return rc;
}

static int lock_profile(sl_rpc_call *c)
{
	char path[1200];
	if (profile_path(c, "lock.profile", path))
		return -1;
	sl_buf b;
	sl_buf_init(&b, 1u << 20);
	sl_lock_report(&b);
	int rc = write_file(c, path, b.p, b.len);
	sl_buf_release(&b);
	if (!rc)
		empty_result(c);
	return rc;
}

const sl_rpc_method sl_admin_methods[] = {
	{ "Alias", alias, { { "endpoint", SL_RPC_STRING }, { "alias", SL_RPC_STRING } }, 2 },
	{ "AliasChain", alias_chain, { { "chain", SL_RPC_STRING }, { "alias", SL_RPC_STRING } }, 2 },
	{ "GetChainAliases", get_chain_aliases, { { "chain", SL_RPC_STRING } }, 1 },
	{ "GetLoggerLevel", get_logger_level, { { "loggerName", SL_RPC_STRING } }, 1 },
	{ "SetLoggerLevel",
	  set_logger_level,
	  { { "loggerName", SL_RPC_STRING }, { "logLevel", SL_RPC_LEVEL }, { "displayLevel", SL_RPC_LEVEL } },
	  3 },
	{ "LoadVMs", sl_admin_load_vms, { { 0 } }, 0 },
	{ "StartCPUProfiler", start_cpu_profiler, { { 0 } }, 0 },
	{ "StopCPUProfiler", stop_cpu_profiler, { { 0 } }, 0 },
	{ "MemoryProfile", memory_profile, { { 0 } }, 0 },
	{ "LockProfile", lock_profile, { { 0 } }, 0 },
};
const size_t sl_admin_nmethods = SL_ARRAY_LEN(sl_admin_methods);
