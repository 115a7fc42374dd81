#include "crypto/addr.h"

#include "crypto/cb58.h"

static const char charset[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

const char *sl_addr_hrp(uint32_t network_id)
{
	switch (network_id) {
	case 1: return "avax";
	case 2: return "cascade";
	case 3: return "denali";
	case 4: return "everest";
	case 5: return "fuji";
	case 10: return "testing";
	case 12345: return "local";
	default: return "custom";
	}
}

static uint32_t polymod_step(uint32_t chk, uint8_t v)
{
	static const uint32_t gen[5] = { 0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3 };
	uint32_t top = chk >> 25;
	chk = (chk & 0x1ffffff) << 5 ^ v;
	for (int i = 0; i < 5; i++)
		if ((top >> i) & 1)
			chk ^= gen[i];
	return chk;
}

static uint32_t hrp_polymod(const char *hrp, size_t n)
{
	uint32_t chk = 1;
	for (size_t i = 0; i < n; i++)
		chk = polymod_step(chk, (uint8_t)hrp[i] >> 5);
	chk = polymod_step(chk, 0);
	for (size_t i = 0; i < n; i++)
		chk = polymod_step(chk, (uint8_t)hrp[i] & 31);
	return chk;
}

void sl_bech32_write(sl_buf *out, const char *hrp, const uint8_t *data, size_t n)
{
	size_t hn = strlen(hrp);
	uint32_t chk = hrp_polymod(hrp, hn);
	sl_buf_add(out, hrp, hn);
	sl_buf_addc(out, '1');
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		acc = (acc << 8 | data[i]) & 0xfff;
		bits += 8;
		while (bits >= 5) {
			bits -= 5;
			uint8_t v = (acc >> bits) & 31;
			chk = polymod_step(chk, v);
			sl_buf_addc(out, charset[v]);
		}
	}
	if (bits) {
		uint8_t v = (acc << (5 - bits)) & 31;
		chk = polymod_step(chk, v);
		sl_buf_addc(out, charset[v]);
	}
	for (int i = 0; i < 6; i++)
		chk = polymod_step(chk, 0);
	chk ^= 1;
	for (int i = 0; i < 6; i++)
		sl_buf_addc(out, charset[(chk >> (5 * (5 - i))) & 31]);
}

static int charset_rev(char c)
{
	for (int i = 0; i < 32; i++)
		if (charset[i] == c)
			return i;
	return -1;
}

sl_err sl_bech32_decode(const char *s, size_t slen, char hrp[SL_HRP_MAX_LEN + 1], uint8_t *out, size_t max,
			size_t *outlen)
{
	if (slen < 8 || slen > SL_BECH32_MAX_LEN)
		return SL_ERR_INVALID;
	bool lower = false, upper = false;
	size_t sep = 0;
	for (size_t i = 0; i < slen; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 33 || c > 126)
			return SL_ERR_INVALID;
		lower |= c >= 'a' && c <= 'z';
		upper |= c >= 'A' && c <= 'Z';
		if (c == '1')
			sep = i;
	}
	if (lower && upper)
		return SL_ERR_INVALID;
	if (sep < 1 || sep > SL_HRP_MAX_LEN || sep + 7 > slen)
		return SL_ERR_INVALID;
	for (size_t i = 0; i < sep; i++) {
		char c = s[i];
		hrp[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
	}
	hrp[sep] = 0;
	uint32_t chk = hrp_polymod(hrp, sep);
	uint32_t acc = 0;
	int bits = 0;
	size_t n = 0, ndata = slen - sep - 1;
	for (size_t i = 0; i < ndata; i++) {
		char c = s[sep + 1 + i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		int v = charset_rev(c);
		if (v < 0)
			return SL_ERR_INVALID;
		chk = polymod_step(chk, (uint8_t)v);
		if (i + 6 >= ndata)
			continue; /* checksum characters */
		acc = (acc << 5 | (uint32_t)v) & 0xfff;
		bits += 5;
		if (bits >= 8) {
			bits -= 8;
			if (n >= max)
				return SL_ERR_TOO_LARGE;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	if (chk != 1)
		return SL_ERR_CHECKSUM;
	if (bits >= 5 || (acc & ((1u << bits) - 1)))
		return SL_ERR_INVALID; /* padding must be short and zero */
	*outlen = n;
	return SL_OK;
}

void sl_addr_write(sl_buf *out, const char *chain_alias, const char *hrp, const uint8_t addr[20])
{
	sl_buf_adds(out, chain_alias);
	sl_buf_addc(out, '-');
	sl_bech32_write(out, hrp, addr, 20);
}

sl_err sl_addr_parse(const char *s, size_t slen, char *alias, size_t alias_cap, char hrp[SL_HRP_MAX_LEN + 1],
		     uint8_t addr[20])
{
	const char *dash = memchr(s, '-', slen);
	if (!dash)
		return SL_ERR_INVALID;
	size_t an = (size_t)(dash - s);
	if (an == 0 || an >= alias_cap)
		return SL_ERR_INVALID;
	memcpy(alias, s, an);
	alias[an] = 0;
	size_t n = 0;
	sl_err e = sl_bech32_decode(dash + 1, slen - an - 1, hrp, addr, 20, &n);
	if (e)
		return e;
	return n == 20 ? SL_OK : SL_ERR_INVALID;
}

void sl_nodeid_write(sl_buf *out, const uint8_t id[20])
{
	sl_buf_adds(out, "NodeID-");
	sl_cb58_write(out, id, 20);
}

void sl_jw_nodeid(sl_jw *w, const uint8_t id[20])
{
	sl_jw_value(w);
	sl_buf_addc(w->out, '"');
	sl_nodeid_write(w->out, id);
	sl_buf_addc(w->out, '"');
}

sl_err sl_nodeid_parse(const char *s, size_t slen, uint8_t id[20])
{
	static const char prefix[] = "NodeID-";
	if (slen < sizeof prefix - 1 || memcmp(s, prefix, sizeof prefix - 1))
		return SL_ERR_INVALID;
	uint8_t tmp[64];
	size_t n = 0;
	const char *msg;
	char msgbuf[128];
	sl_err e = sl_cb58_decode(s + 7, slen - 7, tmp, sizeof tmp, &n, &msg, msgbuf);
	if (e)
		return e;
	if (n != 20)
		return SL_ERR_INVALID;
	memcpy(id, tmp, 20);
	return SL_OK;
}
