/*
 * fuzz_sigagg_body.c — hostile bodies into POST …/aggregateSignatures's
 * parser (api/sigagg_body.c).
 *
 * Input: the body. Properties:
 *  - a refusal names a field of the body (or the body itself) and says why;
 *  - an acceptance has a message or a justification, quorum + buffer at most
 *    100, and is a fixed point: the body written again from what was parsed
 *    (hex with 0x, the subnet as hex) parses to the same values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/sigagg.h"
#include "fuzz.h"

static const char *const names[] = { "body",
				     "message",
				     "justification",
				     "signingSubnetId",
				     "quorumPercentage",
				     "quorumPercentageBuffer",
				     "pChainHeight" };

static void hexkey(sl_buf *b, const char *k, const uint8_t *p, size_t n)
{
	sl_buf_addf(b, "\"%s\":\"0x", k);
	sl_buf_add_hex(b, p, n);
	sl_buf_adds(b, "\",");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_sigagg_body a, b;
	const char *param;
	char why[256];
	if (sl_sigagg_body_parse(data, size, &a, &param, why)) {
		bool known = false;
		for (size_t i = 0; param && i < SL_ARRAY_LEN(names); i++)
			known |= !strcmp(param, names[i]);
		if (!known || !why[0])
			abort();
		sl_sigagg_body_release(&a);
		return 0;
	}
	if (param || (!a.has_msg && !a.has_justification) || a.quorum + a.buffer > 100)
		abort();
	sl_buf w;
	sl_buf_init(&w, 8 * size + 1024);
	sl_buf_adds(&w, "{");
	if (a.has_msg)
		hexkey(&w, "message", a.msg, a.msg_len);
	if (a.has_justification)
		hexkey(&w, "justification", a.justification, a.justification_len);
	if (a.has_subnet)
		hexkey(&w, "signingSubnetId", a.subnet, 32);
	sl_buf_addf(&w, "\"quorumPercentage\":%u,\"quorumPercentageBuffer\":%u,\"pChainHeight\":%llu}",
		    a.quorum, a.buffer, (unsigned long long)a.height);
	if (w.err || sl_sigagg_body_parse(w.p, w.len, &b, &param, why))
		abort();
	if (b.has_msg != a.has_msg || b.msg_len != a.msg_len ||
	    (a.msg_len && memcmp(a.msg, b.msg, a.msg_len)) || b.has_justification != a.has_justification ||
	    b.justification_len != a.justification_len ||
	    (a.justification_len && memcmp(a.justification, b.justification, a.justification_len)) ||
	    b.has_subnet != a.has_subnet || memcmp(a.subnet, b.subnet, 32) || a.quorum != b.quorum ||
	    a.buffer != b.buffer || a.height != b.height)
		abort();
	sl_buf_release(&w);
	sl_sigagg_body_release(&a);
	sl_sigagg_body_release(&b);
	return 0;
}
