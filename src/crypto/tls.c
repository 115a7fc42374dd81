/*
 * tls.c — TLS 1.3 sessions over OpenSSL for the p2p layer (tls.h).
 */
#include "crypto/tls.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct sl_tls_ctx {
	SSL_CTX *ssl;
	bool server;
};

struct sl_tls {
	SSL *ssl;
	int fd;
	uint8_t *peer_cert;
	size_t peer_cert_len;
};

int64_t sl_tls_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A socket BIO that never raises SIGPIPE (send with MSG_NOSIGNAL): a peer
 * closing its end must be an error here, not the end of the process.
 */
static int bio_write(BIO *b, const char *p, size_t n, size_t *put)
{
	BIO_clear_retry_flags(b);
	ssize_t r = send(BIO_get_fd(b, NULL), p, n, MSG_NOSIGNAL);
	if (r >= 0) {
		*put = (size_t)r;
		return 1;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		BIO_set_retry_write(b);
	return 0;
}

static int bio_read(BIO *b, char *p, size_t n, size_t *got)
{
	BIO_clear_retry_flags(b);
	ssize_t r = recv(BIO_get_fd(b, NULL), p, n, 0);
	if (r > 0) {
		*got = (size_t)r;
		return 1;
	}
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		BIO_set_retry_read(b);
	return 0;
}

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	switch (cmd) {
	case BIO_C_SET_FD:
		BIO_set_data(b, (void *)(intptr_t) * (int *)ptr);
		BIO_set_init(b, 1);
		return 1;
	case BIO_C_GET_FD:
		if (ptr)
			*(int *)ptr = (int)(intptr_t)BIO_get_data(b);
		return (long)(intptr_t)BIO_get_data(b);
	case BIO_CTRL_FLUSH: return 1;
	default: return 0;
	}
}

static BIO_METHOD *g_bio;
static pthread_once_t g_bio_once = PTHREAD_ONCE_INIT;
static void bio_create(void)
{
	g_bio = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR,
			     "sl_nosigpipe");
	if (g_bio && (!BIO_meth_set_write_ex(g_bio, bio_write) || !BIO_meth_set_read_ex(g_bio, bio_read) ||
		      !BIO_meth_set_ctrl(g_bio, bio_ctrl))) {
		BIO_meth_free(g_bio);
		g_bio = NULL;
	}
}

/* Staking certificates are self-signed and carry no chain: accept any; the caller checks the NodeID. */
static int accept_any(int ok, X509_STORE_CTX *store) { return 1; }

static EVP_PKEY *pkey_of(const sl_staking_key *key)
{
	EVP_PKEY *pk = NULL;
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	BIGNUM *d = BN_bin2bn(key->d, 32, NULL);
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
	if (!bld || !d || !pc ||
	    !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, d) ||
	    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, key->pub, sizeof key->pub))
		goto out;
	params = OSSL_PARAM_BLD_to_param(bld);
	if (!params || EVP_PKEY_fromdata_init(pc) != 1 ||
	    EVP_PKEY_fromdata(pc, &pk, EVP_PKEY_KEYPAIR, params) != 1)
		pk = NULL;
out:
	OSSL_PARAM_free(params);
	EVP_PKEY_CTX_free(pc);
	BN_clear_free(d);
	OSSL_PARAM_BLD_free(bld);
	return pk;
}

sl_tls_ctx *sl_tls_ctx_new(const sl_staking_key *key, const uint8_t *cert, size_t cert_len, bool server)
{
	sl_tls_ctx *c = calloc(1, sizeof *c);
	EVP_PKEY *pk = pkey_of(key);
	const uint8_t *p = cert;
	X509 *x = cert_len <= SL_STAKING_CERT_MAX * 8 ? d2i_X509(NULL, &p, (long)cert_len) : NULL;
	if (!c || !pk || !x)
		goto fail;
	c->server = server;
	c->ssl = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
	if (!c->ssl || SSL_CTX_set_min_proto_version(c->ssl, TLS1_3_VERSION) != 1 ||
	    SSL_CTX_use_certificate(c->ssl, x) != 1 || SSL_CTX_use_PrivateKey(c->ssl, pk) != 1 ||
	    SSL_CTX_check_private_key(c->ssl) != 1)
		goto fail;
	SSL_CTX_set_verify(c->ssl, SSL_VERIFY_PEER | (server ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
			   accept_any);
	SSL_CTX_set_mode(c->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_CTX_set_session_cache_mode(c->ssl, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_num_tickets(c->ssl, 0);
	X509_free(x);
	EVP_PKEY_free(pk);
	return c;
fail:
	ERR_clear_error();
	X509_free(x);
	EVP_PKEY_free(pk);
	sl_tls_ctx_free(c);
	return NULL;
}

void sl_tls_ctx_free(sl_tls_ctx *c)
{
	if (!c)
		return;
	SSL_CTX_free(c->ssl);
	free(c);
}

/* Wait for fd to be readable (want_write false) or writable until the deadline. */
static sl_err wait_fd(int fd, bool want_write, int64_t deadline_ms)
{
	for (;;) {
		int64_t left = deadline_ms - sl_tls_now_ms();
		if (left <= 0)
			return SL_ERR_TIMEOUT;
		struct pollfd pf = { .fd = fd, .events = want_write ? POLLOUT : POLLIN };
		int r = poll(&pf, 1, (int)SL_MIN(left, 1000 * 1000));
		if (r > 0)
			return SL_OK; /* errors and hangups too: the next SSL call reports them */
		if (r < 0 && errno != EINTR)
			return SL_ERR_IO;
	}
}

/* After an SSL call returned r <= 0: wait and go on (SL_OK), or why not. */
static sl_err after(sl_tls *t, int r, int64_t deadline_ms)
{
	int e = SSL_get_error(t->ssl, r);
	ERR_clear_error();
	if (e == SSL_ERROR_WANT_READ)
		return wait_fd(t->fd, false, deadline_ms);
	if (e == SSL_ERROR_WANT_WRITE)
		return wait_fd(t->fd, true, deadline_ms);
	return SL_ERR_UNAVAILABLE;
}

sl_err sl_tls_handshake(sl_tls_ctx *ctx, int fd, int64_t deadline_ms, sl_tls **out)
{
	*out = NULL;
	sl_tls *t = calloc(1, sizeof *t);
	if (!t) {
		close(fd);
		return SL_ERR_NOMEM;
	}
	t->fd = fd;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		sl_tls_free(t);
		return SL_ERR_IO;
	}
	pthread_once(&g_bio_once, bio_create);
	t->ssl = SSL_new(ctx->ssl);
	BIO *bio = g_bio ? BIO_new(g_bio) : NULL;
	if (!t->ssl || !bio) {
		BIO_free(bio);
		sl_tls_free(t);
		return SL_ERR_NOMEM;
	}
	BIO_set_fd(bio, fd, BIO_NOCLOSE);
	SSL_set_bio(t->ssl, bio, bio);
	if (ctx->server)
		SSL_set_accept_state(t->ssl);
	else
		SSL_set_connect_state(t->ssl);
	for (;;) {
		int r = SSL_do_handshake(t->ssl);
		if (r == 1)
			break;
		sl_err err = after(t, r, deadline_ms);
		if (err) {
			sl_tls_free(t);
			return err;
		}
	}
	X509 *peer = SSL_get1_peer_certificate(t->ssl);
	int n = peer ? i2d_X509(peer, &t->peer_cert) : -1;
	X509_free(peer);
	if (n <= 0) {
		sl_tls_free(t);
		return SL_ERR_UNAVAILABLE;
	}
	t->peer_cert_len = (size_t)n;
	*out = t;
	return SL_OK;
}

sl_err sl_tls_read(sl_tls *t, void *buf, size_t n, int64_t deadline_ms)
{
	uint8_t *p = buf;
	while (n > 0) {
		size_t got = 0;
		int r = SSL_read_ex(t->ssl, p, n, &got);
		if (r == 1) {
			p += got;
			n -= got;
			continue;
		}
		sl_err err = after(t, r, deadline_ms);
		if (err)
			return err;
	}
	return SL_OK;
}

sl_err sl_tls_wait(sl_tls *t, int wake_fd, int64_t deadline_ms, bool *woken)
{
	*woken = false;
	for (;;) {
		/* a peek reads records off the socket (handshake messages after the handshake, such as
		 * session tickets, are handled on the way) and reports whether application data is
		 * there, consuming none of it */
		uint8_t b;
		size_t got = 0;
		int r = SSL_peek_ex(t->ssl, &b, 1, &got);
		if (r == 1)
			return SL_OK;
		int e = SSL_get_error(t->ssl, r);
		ERR_clear_error();
		if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
			return SL_ERR_UNAVAILABLE;
		int64_t left = deadline_ms - sl_tls_now_ms();
		if (left <= 0)
			return SL_ERR_TIMEOUT;
		struct pollfd pf[2] = { { .fd = t->fd,
					  .events = e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN },
					{ .fd = wake_fd, .events = POLLIN } };
		int n = poll(pf, wake_fd >= 0 ? 2 : 1, (int)SL_MIN(left, 1000 * 1000));
		if (n < 0 && errno != EINTR)
			return SL_ERR_IO;
		if (n > 0 && wake_fd >= 0 && pf[1].revents) {
			*woken = true;
			return SL_OK;
		}
	}
}

bool sl_tls_readable(sl_tls *t)
{
	if (SSL_pending(t->ssl) > 0)
		return true;
	struct pollfd pf = { .fd = t->fd, .events = POLLIN };
	return poll(&pf, 1, 0) > 0;
}

sl_err sl_tls_write(sl_tls *t, const void *buf, size_t n, int64_t deadline_ms)
{
	const uint8_t *p = buf;
	while (n > 0) {
		size_t put = 0;
		int r = SSL_write_ex(t->ssl, p, n, &put);
		if (r == 1) {
			p += put;
			n -= put;
			continue;
		}
		sl_err err = after(t, r, deadline_ms);
		if (err)
			return err;
	}
	return SL_OK;
}

const uint8_t *sl_tls_peer_cert(const sl_tls *t, size_t *len)
{
	*len = t->peer_cert_len;
	return t->peer_cert;
}

void sl_tls_shutdown(sl_tls *t) { shutdown(t->fd, SHUT_RDWR); }

void sl_tls_thread_end(void) { OPENSSL_thread_stop(); }

void sl_tls_free(sl_tls *t)
{
	if (!t)
		return;
	SSL_free(t->ssl);
	OPENSSL_free(t->peer_cert);
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}
