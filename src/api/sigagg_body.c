/*
 * sigagg_body.c — the body of POST …/aggregateSignatures (sigagg.h): one
 * JSON object, each field at most once, nothing after it. Every failure names
 * the field and says what it takes.
 */
#include <stdlib.h>

#include "api/sigagg.h"
#include "crypto/cb58.h"
#include "util/hex.h"
#include "util/jsonv.h"

void sl_sigagg_body_release(sl_sigagg_body *b)
{
	free(b->msg);
	free(b->justification);
	*b = (sl_sigagg_body){ 0 };
}

/* A JSON string's text, unquoted into t (which the caller releases). False when v is not a string. */
static bool text_of(sl_span v, sl_buf *t)
{
	sl_buf_init(t, SL_JSON_UNQUOTE_MAX(v.len));
	if (sl_json_type(v) != SL_JT_STRING)
		return false;
	sl_json_unquote(v, t);
	return !t->err;
}

/* Hex with an optional 0x: malloc'd bytes. */
static bool hex_of(sl_span v, uint8_t **out, size_t *len, char why[256], const char *name)
{
	sl_buf t;
	if (!text_of(v, &t)) {
		sl_buf_release(&t);
		snprintf(why, 256, "%s must be a string of hex digits (0x optional)", name);
		return false;
	}
	const char *s = sl_buf_str(&t);
	size_t n = t.len;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2, n -= 2;
	*out = malloc(n / 2 + 1);
	bool ok = *out && n % 2 == 0 && !sl_hex_decode(s, n, *out, n / 2 + 1, len);
	if (!ok)
		snprintf(why, 256, "%s must be hex digits (0x optional), an even number of them", name);
	sl_buf_release(&t);
	return ok;
}

/* A whole number in [0, max] (digits only: no sign, fraction or exponent). */
static bool uint_of(sl_span v, uint64_t max, uint64_t *out)
{
	if (sl_json_type(v) != SL_JT_NUMBER || !v.len)
		return false;
	uint64_t x = 0;
	for (size_t i = 0; i < v.len; i++) {
		uint8_t c = v.p[i];
		if (c < '0' || c > '9' || x > (max - (uint64_t)(c - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(c - '0');
	}
	*out = x;
	return true;
}

static bool subnet_of(sl_span v, uint8_t out[32], char why[256])
{
	sl_buf t;
	bool ok = text_of(v, &t);
	if (ok) {
		const char *s = sl_buf_str(&t), *msg = "";
		char mb[96];
		size_t n = t.len, got = 0;
		if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			ok = n == 66 && !sl_hex_decode(s + 2, 64, out, 32, &got) && got == 32;
		else if (n == 64 && !sl_hex_decode(s, 64, out, 32, &got) && got == 32)
			ok = true;
		else
			ok = !sl_cb58_decode_id(s, n, out, &msg, mb);
	}
	if (!ok)
		snprintf(why, 256,
			 "signingSubnetId must be a subnet id: cb58, or 32 bytes of hex (0x optional)");
	sl_buf_release(&t);
	return ok;
}

sl_err sl_sigagg_body_parse(const uint8_t *p, size_t n, sl_sigagg_body *out, const char **param,
			    char why[256])
{
	*out = (sl_sigagg_body){ .quorum = 67 };
	*param = "body";
	why[0] = 0;
	size_t a, b;
	char msg[128];
	if (sl_json_scan((const char *)p, n, &a, &b, msg)) {
		snprintf(why, 256, "the body must be a JSON object with message and/or justification: %s",
			 msg);
		return SL_ERR_INVALID;
	}
	for (size_t i = b; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n') {
			snprintf(why, 256, "the body must be one JSON object and nothing after it");
			return SL_ERR_INVALID;
		}
	sl_span root = { p + a, b - a }, k, v;
	if (sl_json_type(root) != SL_JT_OBJECT) {
		snprintf(why, 256, "the body must be a JSON object with message and/or justification");
		return SL_ERR_INVALID;
	}
	static const char *const fields[] = { "message",	  "justification",	    "signingSubnetId",
					      "quorumPercentage", "quorumPercentageBuffer", "pChainHeight" };
	bool seen[6] = { 0 };
	bool has_buffer = false;
	sl_jiter it;
	sl_json_iter_init(&it, root);
	while (sl_json_obj_next(&it, &k, &v)) {
		int f = -1;
		for (int i = 0; i < 6; i++)
			if (k.len == strlen(fields[i]) + 2 && !memcmp(k.p + 1, fields[i], k.len - 2))
				f = i;
		if (f < 0) {
			snprintf(why, 256,
				 "the body has an unknown property %.*s; it takes message, justification, "
				 "signingSubnetId, quorumPercentage, quorumPercentageBuffer and pChainHeight",
				 (int)SL_MIN(k.len, 60u), (const char *)k.p);
			return SL_ERR_INVALID;
		}
		*param = fields[f];
		if (seen[f]) {
			snprintf(why, 256, "%s is given more than once", fields[f]);
			return SL_ERR_INVALID;
		}
		seen[f] = true;
		if (sl_json_type(v) == SL_JT_NULL) /* null: as if absent */
			continue;
		uint64_t x = 0;
		switch (f) {
		case 0:
			if (!hex_of(v, &out->msg, &out->msg_len, why, "message"))
				return SL_ERR_INVALID;
			out->has_msg = true;
			break;
		case 1:
			if (!hex_of(v, &out->justification, &out->justification_len, why, "justification"))
				return SL_ERR_INVALID;
			out->has_justification = true;
			break;
		case 2:
			if (!subnet_of(v, out->subnet, why))
				return SL_ERR_INVALID;
			out->has_subnet = true;
			break;
		case 3:
		case 4:
			if (!uint_of(v, 100, &x)) {
				snprintf(why, 256, "%s must be a whole number from 0 to 100", fields[f]);
				return SL_ERR_INVALID;
			}
			if (f == 3)
				out->quorum = (unsigned)x;
			else
				out->buffer = (unsigned)x, has_buffer = true;
			break;
		case 5:
			if (!uint_of(v, INT64_MAX, &x)) {
				snprintf(
					why, 256,
					"pChainHeight must be a whole number, 0 or more (0: the current height)");
				return SL_ERR_INVALID;
			}
			out->height = x;
			break;
		}
	}
	if (out->quorum + out->buffer > 100) {
		*param = has_buffer ? "quorumPercentageBuffer" : "quorumPercentage";
		snprintf(why, 256, "quorumPercentage + quorumPercentageBuffer must be at most 100 (%u + %u)",
			 out->quorum, out->buffer);
		return SL_ERR_INVALID;
	}
	if (!out->has_msg && !out->has_justification) {
		*param = "message";
		snprintf(why, 256, "message or justification is required (hex, 0x optional)");
		return SL_ERR_INVALID;
	}
	*param = NULL;
	return SL_OK;
}
