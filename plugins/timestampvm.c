/*
 * timestampvm.c — an example VM plugin for `admin.loadVMs` (see
 * src/node/vm_plugin.h), after Ava Labs' tutorial VM of the same name.
 *
 * Its blocks are: parent id [32] | height u64 BE | timestamp u64 BE (unix
 * seconds) | data [32]. The plugin file is named after the VM id, the cb58
 * of "timestampvm" padded to 32 bytes: tGas3T58KzdjcJ2iKSyiYsWiqYctRXaPTqBCA11BqEkNg8kPc.so
 */
#include <stdio.h>

#include "node/vm_plugin.h"

static const char *const aliases[] = { "timestampvm", "timestamp", NULL };

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static long decode(const uint8_t *b, size_t len, char *out, size_t cap)
{
	if (len != 80)
		return -1;
	char parent[65], data[65];
	for (int i = 0; i < 32; i++) {
		snprintf(parent + 2 * i, 3, "%02x", b[i]);
		snprintf(data + 2 * i, 3, "%02x", b[48 + i]);
	}
	int n = snprintf(out, cap,
			 "{\"parentID\":\"0x%s\",\"height\":%llu,\"timestamp\":%llu,\"data\":\"0x%s\"}",
			 parent, (unsigned long long)be64(b + 32), (unsigned long long)be64(b + 40), data);
	return n < 0 || (size_t)n >= cap ? -1 : n;
}

static const struct sl_vm_plugin plugin = {
	.abi = SL_VM_PLUGIN_ABI,
	.name = "timestampvm",
	.version = "v1.0.0",
	.aliases = aliases,
	.decode = decode,
};

const struct sl_vm_plugin *snowline_vm_plugin(void);
const struct sl_vm_plugin *snowline_vm_plugin(void) { return &plugin; }
