/*
 * compat.h — the one setting that chooses, where the specification and the
 * real system it describes disagree, which one snowline follows (README has
 * the table of every such difference).
 */
#ifndef SL_COMPAT_H
#define SL_COMPAT_H

typedef enum sl_compat {
	SL_COMPAT_SPEC,	    /* the specification (docs/spec): the default */
	SL_COMPAT_UPSTREAM, /* avalanchego and the hosted Data API */
} sl_compat;

#endif
