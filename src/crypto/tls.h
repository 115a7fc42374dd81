/*
 * tls.h — TLS 1.3 sessions authenticated by staking certificates, as
 * avalanchego's peers use them (network/peer/tls_config.go): both sides
 * present a self-signed certificate, neither checks a chain (there is none);
 * a peer is known by the NodeID of the certificate it presented, which the
 * caller reads with sl_tls_peer_cert() and checks itself.
 *
 * Sockets are non-blocking; every call that waits takes an absolute deadline
 * in milliseconds of CLOCK_MONOTONIC (sl_tls_now_ms()) and fails with
 * SL_ERR_TIMEOUT when it passes. A session is used by one thread at a time;
 * sl_tls_shutdown() may be called from another thread to wake it.
 */
#ifndef SL_CRYPTO_TLS_H
#define SL_CRYPTO_TLS_H

#include "crypto/staking.h"
#include "util/common.h"
#include "util/err.h"

typedef struct sl_tls_ctx sl_tls_ctx;
typedef struct sl_tls sl_tls;

/* Milliseconds of CLOCK_MONOTONIC: the clock every deadline here is on. */
int64_t sl_tls_now_ms(void);

/* A context presenting cert (DER) with key; server or client side. NULL on failure. */
sl_tls_ctx *sl_tls_ctx_new(const sl_staking_key *key, const uint8_t *cert, size_t cert_len, bool server);
void sl_tls_ctx_free(sl_tls_ctx *ctx);

/*
 * The TLS handshake on a connected socket fd (made non-blocking here; the
 * session owns it from now on, and closes it even when this fails).
 * SL_ERR_UNAVAILABLE when the peer fails the handshake or presents no
 * certificate, SL_ERR_TIMEOUT past the deadline.
 */
SL_MUST_USE sl_err sl_tls_handshake(sl_tls_ctx *ctx, int fd, int64_t deadline_ms, sl_tls **out);

/*
 * Wait until at least one byte of application data can be read without blocking (SL_OK, *woken
 * false), or wake_fd (>= 0: an eventfd or a pipe's read end, polled beside the socket and never
 * read here) becomes readable (SL_OK, *woken true). Nothing is consumed: a timeout or a wake
 * leaves the session where it was. SL_ERR_UNAVAILABLE when the link closes or fails.
 */
SL_MUST_USE sl_err sl_tls_wait(sl_tls *t, int wake_fd, int64_t deadline_ms, bool *woken);
/* Read exactly n bytes. SL_ERR_UNAVAILABLE when the link closes or fails. */
SL_MUST_USE sl_err sl_tls_read(sl_tls *t, void *buf, size_t n, int64_t deadline_ms);
/* Whether bytes are waiting to be read (buffered in TLS, or on the socket). */
bool sl_tls_readable(sl_tls *t);
/* Write all n bytes. */
SL_MUST_USE sl_err sl_tls_write(sl_tls *t, const void *buf, size_t n, int64_t deadline_ms);

/* The DER of the certificate the peer presented; valid while t lives. */
const uint8_t *sl_tls_peer_cert(const sl_tls *t, size_t *len);

/* Wake any thread blocked on t (shutdown(2) of the socket); safe from another thread. */
void sl_tls_shutdown(sl_tls *t);
/* Close the socket and free the session. NULL is fine. */
void sl_tls_free(sl_tls *t);

/* Free what OpenSSL keeps for the calling thread (its random generators, its error queue). A
 * detached thread calls it before it reports its end: what OpenSSL's own clean-up at the thread's
 * exit would free can otherwise still be in hand when the process ends. */
void sl_tls_thread_end(void);

#endif
