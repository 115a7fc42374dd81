/*
 * wiring.h — what the subcommands share to put modules together that do not
 * know each other (node/ does not include devnet/: they are in the same
 * layer). Only for src/cmd/.
 */
#ifndef SL_CMD_WIRING_H
#define SL_CMD_WIRING_H

#include "devnet/devnet.h"
#include "node/node.h"

/* devnet_source.c: the devnet as a node producer. `src` must outlive the node. */
typedef struct sl_devnet_source {
	sl_devnet_config cfg;
	unsigned interval_ms; /* live step period; 0 = history only */
} sl_devnet_source;
sl_node_producer sl_devnet_producer(const sl_devnet_source *src);

#endif
