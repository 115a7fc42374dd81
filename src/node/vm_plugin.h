/*
 * vm_plugin.h — the C ABI of snowline VM plugins (admin.loadVMs).
 *
 * A plugin is a shared object in --plugin-dir named after its VM: either the
 * VM id in cb58 (e.g. tGas3T58KzdjcJ2iKSyiYsWiqYctRXaPTqBCA11BqEkNg8kPc.so)
 * or an alias of an already registered VM. It exports one function,
 *
 *     const struct sl_vm_plugin *snowline_vm_plugin(void);
 *
 * returning a static descriptor. snowline never frees or writes it; the
 * plugin stays loaded until the process exits. decode() must be thread-safe
 * and must not keep pointers into `bytes` after it returns.
 */
#ifndef SL_VM_PLUGIN_H
#define SL_VM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#define SL_VM_PLUGIN_ABI 1
#define SL_VM_PLUGIN_SYMBOL "snowline_vm_plugin"

struct sl_vm_plugin {
	uint32_t abi;		    /* SL_VM_PLUGIN_ABI */
	const char *name;	    /* human-readable name */
	const char *version;	    /* e.g. "v1.0.0" */
	const char *const *aliases; /* NULL-terminated list of the VM's aliases */
	/*
	 * Decode one container of this VM as JSON into out[0..cap). Returns the
	 * length written (no NUL needed), or a negative number if the bytes are
	 * not a container of this VM or out is too small.
	 */
	long (*decode)(const uint8_t *bytes, size_t len, char *out, size_t cap);
};

typedef const struct sl_vm_plugin *(*sl_vm_plugin_fn)(void);

#endif
