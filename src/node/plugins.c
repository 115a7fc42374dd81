/*
 * plugins.c — admin.loadVMs: scan --plugin-dir for VM plugins (vm_plugin.h).
 *
 * The registry starts with the three VMs built into the primary network
 * (avm, platform, evm), as avalanchego's does, so a plugin named after one of
 * those is "already registered" and skipped. Guarded by node->vms_lock.
 */
#include "node/internal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <sys/stat.h>

#include "crypto/cb58.h"
#include "node/vm_plugin.h"

static const struct {
	const char *id, *alias;
} builtin[] = {
	{ "jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq", "avm" },
	{ "11111111111111111111111111111111LpoYY", "platform" },
	{ "mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6", "evm" },
};

static sl_vm *add_vm(sl_node *n, const uint8_t id[32])
{
	if (n->nvms >= SL_ARRAY_LEN(n->vms))
		return NULL;
	sl_vm *vm = &n->vms[n->nvms++];
	*vm = (sl_vm){ 0 };
	memcpy(vm->id, id, 32);
	sl_cb58_id(vm->id_str, id);
	return vm;
}

static void vm_alias(sl_vm *vm, const char *a)
{
	if (vm->naliases < SL_MAX_VM_ALIASES) {
		char *d = strdup(a);
		if (d)
			vm->aliases[vm->naliases++] = d;
	}
}

static void ensure_builtins(sl_node *n)
{
	if (n->nvms)
		return;
	for (size_t i = 0; i < SL_ARRAY_LEN(builtin); i++) {
		uint8_t id[32];
		const char *msg;
		char mb[96];
		if (sl_cb58_decode_id(builtin[i].id, strlen(builtin[i].id), id, &msg, mb))
			continue;
		sl_vm *vm = add_vm(n, id);
		if (vm) {
			vm_alias(vm, builtin[i].alias);
			vm_alias(vm, vm->id_str);
		}
	}
}

static sl_vm *find_vm(sl_node *n, const char *name, const uint8_t *id)
{
	for (size_t i = 0; i < n->nvms; i++) {
		if (id && !memcmp(n->vms[i].id, id, 32))
			return &n->vms[i];
		for (size_t j = 0; name && j < n->vms[i].naliases; j++)
			if (!strcmp(n->vms[i].aliases[j], name))
				return &n->vms[i];
	}
	return NULL;
}

void sl_vms_release(sl_node *n)
{
	for (size_t i = 0; i < n->nvms; i++)
		for (size_t j = 0; j < n->vms[i].naliases; j++)
			free(n->vms[i].aliases[j]);
	n->nvms = 0; /* plugins stay loaded: their code may still be on a stack */
}

typedef struct loaded {
	char id[64];
	char err[256]; /* empty: loaded */
	sl_vm *vm;
} loaded;

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int load_vms(sl_rpc_call *c)
{
	sl_node *n = c->ctx;
	DIR *d = opendir(n->plugin_dir);
	if (!d) {
		char e[128];
		sl_go_errno(e, errno);
		return sl_rpc_fail(c, "open %s: %s", n->plugin_dir, e);
	}
	/* Read and sort names first: the result must not depend on readdir order. */
	char *names[256];
	size_t nn = 0;
	struct dirent *e;
	while ((e = readdir(d)) && nn < SL_ARRAY_LEN(names)) {
		if (e->d_name[0] == '.')
			continue;
		char path[2048];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", n->plugin_dir, e->d_name);
		if (stat(path, &st) || S_ISDIR(st.st_mode))
			continue;
		names[nn] = sl_arena_strndup(c->arena, e->d_name, strlen(e->d_name));
		if (names[nn])
			nn++;
	}
	closedir(d);
	qsort(names, nn, sizeof *names, cmp_name);

	loaded *res = sl_arena_array(c->arena, nn ? nn : 1, sizeof *res);
	size_t nres = 0;
	if (!res)
		return sl_rpc_fail(c, "out of memory");
	sl_mutex_lock(&n->vms_lock);
	ensure_builtins(n);
	int rc = 0;
	for (size_t i = 0; i < nn; i++) {
		char stem[256];
		snprintf(stem, sizeof stem, "%s", names[i]);
		char *dot = strrchr(stem, '.');
		if (dot && dot != stem)
			*dot = 0;
		uint8_t id[32];
		sl_vm *known = find_vm(n, stem, NULL);
		if (known) {
			continue; /* already registered */
		}
		const char *msg;
		char mb[96];
		if (sl_cb58_decode_id(stem, strlen(stem), id, &msg, mb)) {
			sl_buf b;
			sl_buf_init(&b, 1024);
			sl_buf_adds(&b, "invalid vmID: ");
			sl_go_quote(&b, stem, strlen(stem));
			rc = sl_rpc_fail(c, "%s", sl_buf_str(&b));
			sl_buf_release(&b);
			break;
		}
		if (find_vm(n, NULL, id))
			continue;
		loaded *l = &res[nres++];
		*l = (loaded){ 0 };
		sl_cb58_id(l->id, id);
		char path[2048];
		snprintf(path, sizeof path, "%s/%s", n->plugin_dir, names[i]);
		void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			snprintf(l->err, sizeof l->err, "%s", dlerror());
			continue;
		}
		sl_vm_plugin_fn fn = (sl_vm_plugin_fn)dlsym(h, SL_VM_PLUGIN_SYMBOL);
		const struct sl_vm_plugin *p = fn ? fn() : NULL;
		if (!p || p->abi != SL_VM_PLUGIN_ABI) {
			snprintf(l->err, sizeof l->err, "%s",
				 !fn ? "plugin does not export " SL_VM_PLUGIN_SYMBOL
				     : "plugin ABI version mismatch");
			dlclose(h);
			continue;
		}
		sl_vm *vm = add_vm(n, id);
		if (!vm) {
			snprintf(l->err, sizeof l->err, "too many VMs");
			dlclose(h);
			continue;
		}
		vm->dl = h;
		vm->plugin = p;
		vm_alias(vm, vm->id_str);
		for (size_t k = 0; p->aliases && p->aliases[k]; k++)
			if (!find_vm(n, p->aliases[k], NULL))
				vm_alias(vm, p->aliases[k]);
		l->vm = vm;
	}
	if (rc == 0) {
		sl_jw *w = c->w;
		bool any_failed = false;
		sl_jw_obj(w);
		sl_jw_key(w, "newVMs");
		sl_jw_obj(w);
		for (size_t i = 0; i < nres; i++) {
			if (res[i].err[0]) {
				any_failed = true;
				continue;
			}
			sl_jw_key(w, res[i].id);
			sl_jw_arr(w);
			for (size_t k = 0; k < res[i].vm->naliases; k++)
				if (strcmp(res[i].vm->aliases[k], res[i].vm->id_str))
					sl_jw_str(w, res[i].vm->aliases[k]);
			sl_jw_arr_end(w);
		}
		sl_jw_obj_end(w);
		if (any_failed) {
			sl_jw_key(w, "failedVMs");
			sl_jw_obj(w);
			for (size_t i = 0; i < nres; i++)
				if (res[i].err[0]) {
					sl_jw_key(w, res[i].id);
					sl_jw_str(w, res[i].err);
				}
			sl_jw_obj_end(w);
		}
		sl_jw_obj_end(w);
	}
	sl_mutex_unlock(&n->vms_lock);
	return rc;
}

/* Exported to admin.c through the method table. */
int sl_admin_load_vms(sl_rpc_call *c);
int sl_admin_load_vms(sl_rpc_call *c) { return load_vms(c); }
