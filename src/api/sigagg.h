/*
 * sigagg.h — signature aggregation (spec 000 §4.1; docs/sigagg.md): a warp
 * message signed by enough of a subnet's weight, from its validators' own
 * BLS signatures.
 *
 * The core here needs no network and no store:
 *
 *   sl_sigagg_set_build   avalanchego's canonical warp validator set
 *                         (validators.FlattenValidatorSet) from a set read by
 *                         height (api/vset.h): the total weight counts every
 *                         member; members without a BLS key are left out of
 *                         the list; members sharing a key are one entry of
 *                         their summed weight; the list is ordered by the
 *                         96-byte uncompressed key. A signer's bit in the
 *                         signed message is its index in this list.
 *   sl_sigagg_run         asks the members (through a source, below) for
 *                         their signature of the unsigned message, checks
 *                         each answer, adds them up with blst until quorum
 *                         plus buffer is reached (or every member answered
 *                         and quorum is), writes the signed message
 *                         (BitSetSignature) and verifies it against the set
 *                         as a verifier would (avalanchego's
 *                         BitSetSignature.Verify: minimal bit set, weight,
 *                         one BLS verify of the aggregate key).
 *
 * Checking answers: a signature is decoded (on G2, in the subgroup) when it
 * arrives; the answers are then verified in batches, optimistically — the
 * pending ones' aggregate against their aggregate key, one pairing check —
 * and a batch that fails is halved until the liars are found (logged), so one
 * liar among k costs about 2·log2(k) checks. A batch is checked whenever the
 * pending weight would reach the target, and once at the end.
 *
 * Quorum: weight w reaches q percent of total t when w·100 ≥ t·q (128-bit,
 * as avalanchego's VerifyWeight with big integers). A message needs at least
 * one signer even at q = 0 (an empty aggregate is refused by verifiers).
 */
#ifndef SL_API_SIGAGG_H
#define SL_API_SIGAGG_H

#include "api/vset.h"
#include "crypto/bls.h"
#include "util/buf.h"
#include "util/log.h"

#define SL_SIGAGG_TIMEOUT_MS 10000 /* how long a run waits for answers, by default */

typedef struct sl_sigagg_vdr {
	sl_bls_pk pk;
	uint8_t raw[SL_BLS_PK_RAW_LEN]; /* the sort key */
	uint64_t weight;		/* summed over the members sharing the key */
} sl_sigagg_vdr;

typedef struct sl_sigagg_set {
	uint64_t height;
	uint8_t subnet[32];
	sl_sigagg_vdr *v; /* canonical order */
	size_t n;
	uint8_t (*nodes)[20]; /* the members with a key, ascending */
	uint32_t *node_vdr;   /* nodes[i]'s index in v */
	size_t nnodes;
	uint64_t total; /* every member's weight, keyless ones included */
} sl_sigagg_set;

/* SL_ERR_RANGE when the weights overflow, SL_ERR_INVALID when a stored key is not a key (why says). */
SL_MUST_USE sl_err sl_sigagg_set_build(const sl_vset *vs, sl_sigagg_set *out, char why[160]);
void sl_sigagg_set_release(sl_sigagg_set *s);
/* The canonical index of a node's key; -1 when the node is not a member with a key. */
long sl_sigagg_set_find(const sl_sigagg_set *s, const uint8_t node[20]);

/* Does weight w reach pct percent of total (w·100 ≥ total·pct)? */
bool sl_sigagg_reaches(uint64_t w, uint64_t total, unsigned pct);
/* The least weight that reaches pct percent of total. */
uint64_t sl_sigagg_needed(uint64_t total, unsigned pct);

/* ---- where signatures come from ---- */

/* One request to ask: the unsigned message (and its justification) for the members nodes[0..n). */
typedef struct sl_sigagg_ask {
	uint32_t network_id;
	const uint8_t *source_chain; /* 32 bytes: the chain whose ACP-118 handler is asked */
	sl_span msg;		     /* the unsigned warp message */
	sl_span justification;	     /* may be empty */
	const uint8_t (*nodes)[20];
	size_t n;
	unsigned timeout_ms;
} sl_sigagg_ask;

/* An answer: sig[0..len) as the member sent it (not yet checked). Return false to stop asking. */
typedef bool (*sl_sigagg_answer_fn)(void *actx, const uint8_t node[20], const uint8_t *sig, size_t len);

/*
 * A source asks the members (concurrently, each once) and calls `answer` on the calling thread for
 * each answer that comes, until answer returns false, every member has answered or failed, or the
 * timeout passed; then it returns. The p2p client (src/p2p) is the real one; `snowline api` wires
 * it (cmd/api.c). Members it cannot reach simply give no answer.
 */
typedef struct sl_sigagg_source {
	void *ctx;
	void (*ask)(void *ctx, const sl_sigagg_ask *q, sl_sigagg_answer_fn answer, void *actx);
} sl_sigagg_source;

/* ---- one run ---- */

typedef struct sl_sigagg_req {
	uint32_t network_id;
	sl_span msg;	       /* the unsigned message (it must decode: sl_warp_unsigned_decode) */
	sl_span justification; /* may be empty */
	unsigned quorum;       /* percent, 0-100 */
	unsigned buffer;       /* percent, quorum + buffer <= 100 */
	unsigned timeout_ms;   /* 0: SL_SIGAGG_TIMEOUT_MS */
} sl_sigagg_req;

typedef struct sl_sigagg_result {
	uint64_t signed_weight, needed, total;
	size_t signers, answers, bad; /* canonical entries in the message; answers seen; answers refused */
	char why[256];		      /* on failure: what happened, for the ErrorBody */
} sl_sigagg_result;

/*
 * Aggregate: the signed message (unsigned bytes, BitSetSignature) appended to out. SL_ERR_UNAVAILABLE
 * when quorum was not reached (why: the weight that signed and what was needed), SL_ERR_INVALID
 * for a request that cannot be signed (an empty set, a message that does not decode), SL_ERR_NOMEM,
 * SL_ERR_INTERNAL when the aggregate does not verify (a bug).
 */
SL_MUST_USE sl_err sl_sigagg_run(const sl_sigagg_set *set, const sl_sigagg_req *req,
				 const sl_sigagg_source *src, sl_logger *log, sl_sigagg_result *res,
				 sl_buf *out);

/*
 * Verify a signed message against a set as avalanchego's BitSetSignature.Verify does with quorum
 * pct/100 (network id not checked). SL_OK, or an error with why.
 */
SL_MUST_USE sl_err sl_sigagg_verify(const sl_sigagg_set *set, const uint8_t *p, size_t n, unsigned pct,
				    char why[160]);

/* ---- the POST body (sigagg_api.c; fuzz/fuzz_sigagg_body.c) ---- */

typedef struct sl_sigagg_body {
	uint8_t *msg, *justification; /* malloc'd bytes (NULL when absent) */
	size_t msg_len, justification_len;
	bool has_msg, has_justification, has_subnet;
	uint8_t subnet[32];
	unsigned quorum, buffer; /* 67 and 0 when absent */
	uint64_t height;	 /* 0: the current height */
} sl_sigagg_body;

/*
 * Parse {"message", "justification", "signingSubnetId", "quorumPercentage",
 * "quorumPercentageBuffer", "pChainHeight"} (spec 000 §4.1). On failure: SL_ERR_INVALID, *param the
 * name of the parameter at fault ("body" for the body itself) and why a sentence for the 400.
 * Release the body either way.
 */
SL_MUST_USE sl_err sl_sigagg_body_parse(const uint8_t *p, size_t n, sl_sigagg_body *out, const char **param,
					char why[256]);
void sl_sigagg_body_release(sl_sigagg_body *b);

#endif
