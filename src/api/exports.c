/*
 * exports.c — export operations (spec 000 §2.10, §4.4; data-api.md §5-§6):
 * POST /v1/operations/transactions:export, GET /v1/operations/{operationId}
 * and GET /v1/operations/{operationId}/download (the CSV of a finished one).
 *
 * A job is a row of `operations` (store/schema.c v10), so it survives a
 * restart and every API server over the store reads it. The POST checks the
 * body and stores the job RUNNING; a runner thread in every API server
 * claims RUNNING jobs whose lease has run out (an UPDATE … WHERE
 * lease_until < now RETURNING, so one server wins), renews its lease while
 * it works, makes the whole file anew (a job taken over from a server that
 * died starts from scratch) and writes the result in one UPDATE that holds
 * only while the lease is still its own: a job's file is written once.
 *
 * What is a 400 and what is a FAILED operation (docs/api.md, exports): a
 * body the request's schema (openapi CreateEvmTransactionExportRequest /
 * CreatePrimaryNetworkTransactionExportRequest) refuses — not JSON, a
 * missing or unknown `type`, no `options`, a field of the wrong JSON type,
 * an unknown property, a primary-network chain outside its enum, more items
 * than this server takes — is a 400 naming the field. A body the schema
 * takes but that cannot be run here (a date that is not YYYY-MM-DD, dates
 * out of order, an address that is not one, no address, an EVM chain not
 * indexed here, a chain of the other network) becomes an operation that is
 * FAILED at once with metadata.code ErrInvalidRequest and a message naming
 * the field, as the hosted API's OperationStatusCode has it.
 *
 * The file: the txs of the addresses on the chains between the dates, oldest
 * first, one line each (docs/api.md has the columns); at most max_rows lines
 * (COMPLETED_WITH_WARNING, WarnTruncatedExport, metadata.nextDate: the first
 * day left out, to send as the next firstDate).
 */
#include "api/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "crypto/addr.h"
#include "crypto/cb58.h"
#include "util/limits.h"

const char *const api_export_type_names[] = { "TRANSACTION_EXPORT_PRIMARY_NETWORK",
					      "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING",
					      "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE",
					      "TRANSACTION_EXPORT_EVM", NULL };

/* The eight BlockchainId values of PrimaryNetworkOptions.includeChains (openapi): P (both
 * networks), X mainnet, X fuji, C mainnet, C fuji. */
static const struct {
	const char *id;
	int chain;
	const char *network; /* NULL: both */
} pn_chains[] = {
	{ "11111111111111111111111111111111LpoYY", API_P, NULL },
	{ "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM", API_X, "mainnet" },
	{ "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm", API_X, "fuji" },
	{ "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5", API_C, "mainnet" },
	{ "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp", API_C, "fuji" },
	{ "p-chain", API_P, NULL },
	{ "x-chain", API_X, NULL },
	{ "c-chain", API_C, NULL },
};

/* ---- the request ----------------------------------------------------------------------------- */

/* Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* "YYYY-MM-DD" (a real day, years 1970-9999) as days since the epoch; false when it is not one. */
static bool parse_day(const char *s, size_t n, int64_t *day)
{
	if (n != 10 || s[4] != '-' || s[7] != '-')
		return false;
	int v[8], k = 0;
	for (size_t i = 0; i < 10; i++) {
		if (i == 4 || i == 7)
			continue;
		if (s[i] < '0' || s[i] > '9')
			return false;
		v[k++] = s[i] - '0';
	}
	int y = v[0] * 1000 + v[1] * 100 + v[2] * 10 + v[3], m = v[4] * 10 + v[5], d = v[6] * 10 + v[7];
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (y < 1970 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1] + (m == 2 && leap))
		return false;
	*day = days_from_civil(y, m, d);
	return true;
}

/* "YYYY-MM-DD" of days since the epoch (civil_from_days). */
static void format_day(int64_t z, char out[16])
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp + (mp < 10 ? 3 : -9);
	snprintf(out, 16, "%04lld-%02lld-%02lld", (long long)(y + (m <= 2)), (long long)m, (long long)d);
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

/* The length of the valid UTF-8 prefix of p[0..n) (no overlongs, surrogates or code points past
 * U+10FFFF). */
static size_t utf8_valid(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t c = p[i];
		size_t k = c < 0x80		? 1
			   : (c & 0xe0) == 0xc0 ? 2
			   : (c & 0xf0) == 0xe0 ? 3
			   : (c & 0xf8) == 0xf0 ? 4
						: 0;
		if (!k || i + k > n)
			return i;
		uint32_t cp = k == 1 ? c : k == 2 ? c & 0x1fu : k == 3 ? c & 0x0fu : c & 0x07u;
		for (size_t j = 1; j < k; j++) {
			if ((p[i + j] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (p[i + j] & 0x3fu);
		}
		static const uint32_t least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
		if (cp < least[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += k;
	}
	return n;
}

typedef struct pstate {
	const api_net *net;
	char *msg; /* 256 */
	api_export_verdict verdict;
	sl_buf text; /* an unquoted string */
} pstate;

static bool bad(pstate *p, api_export_verdict v, const char *fmt, ...) SL_PRINTF(3, 4);
static bool bad(pstate *p, api_export_verdict v, const char *fmt, ...)
{
	if (p->verdict != API_EXPORT_OK)
		return false; /* the first failure is the one told */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->msg, 256, fmt, ap);
	va_end(ap);
	/* a value quoted in it may have been cut inside a character: the message stays UTF-8 */
	p->msg[utf8_valid((const uint8_t *)p->msg, strlen(p->msg))] = 0;
	p->verdict = v;
	return false;
}

/* The unquoted text of a string value into p->text (NUL-terminated); false when it is none. */
static bool string_of(pstate *p, sl_span v, const char *field)
{
	if (sl_json_type(v) != SL_JT_STRING)
		return bad(p, API_EXPORT_BAD_BODY, "%s must be a string, not a JSON %s", field,
			   sl_json_kind_name(sl_json_type(v)));
	sl_buf_reset(&p->text);
	sl_json_unquote(v, &p->text);
	sl_buf_addc(&p->text, 0);
	if (p->text.err)
		return bad(p, API_EXPORT_BAD_BODY, "%s is too long", field);
	p->text.len--;
	return true;
}

/* Is an object's raw key (escapes and all) this name? */
static bool key_is(pstate *p, sl_span k, const char *name)
{
	size_t n = strlen(name);
	if (k.len == n + 2 && !memcmp(k.p + 1, name, n))
		return true;
	if (k.len > 6 * n + 2 || !memchr(k.p, '\\', k.len))
		return false;
	sl_buf_reset(&p->text);
	sl_json_unquote(k, &p->text);
	return !p->text.err && p->text.len == n && !memcmp(p->text.p, name, n);
}

/* Count a string array's items; false (a 400) when it is not an array of at most `most` strings. */
static bool string_array(pstate *p, sl_span v, const char *field, size_t most)
{
	if (sl_json_type(v) != SL_JT_ARRAY)
		return bad(p, API_EXPORT_BAD_BODY, "%s must be an array of strings, not a JSON %s", field,
			   sl_json_kind_name(sl_json_type(v)));
	sl_jiter it;
	sl_span e;
	size_t n = 0;
	sl_json_iter_init(&it, v);
	while (sl_json_arr_next(&it, &e)) {
		if (sl_json_type(e) != SL_JT_STRING)
			return bad(p, API_EXPORT_BAD_BODY, "%s[%zu] must be a string, not a JSON %s", field,
				   n, sl_json_kind_name(sl_json_type(e)));
		if (++n > most)
			return bad(p, API_EXPORT_BAD_BODY, "%s takes at most %zu items", field, most);
	}
	return true;
}

/* An address list into out->addrs: bech32 (P-/X-/C- prefix optional) or, with evm, 0x…. */
static void read_addresses(pstate *p, sl_span v, const char *field, bool evm, api_export_req *out)
{
	sl_jiter it;
	sl_span e;
	size_t i = 0;
	sl_json_iter_init(&it, v);
	while (p->verdict == API_EXPORT_OK && sl_json_arr_next(&it, &e)) {
		if (!string_of(p, e, field))
			return;
		if (out->naddrs == API_EXPORT_MAX_ADDRESSES) {
			bad(p, API_EXPORT_BAD_BODY,
			    "options.addresses and options.cChainEvmAddresses take at most %d addresses together",
			    API_EXPORT_MAX_ADDRESSES);
			return;
		}
		api_addr a;
		char why[128] = "";
		const char *s = sl_buf_str(&p->text);
		bool parsed = api_parse_address(p->net, s, p->text.len, evm, &a, why);
		if (!parsed || a.evm != evm) {
			bad(p, API_EXPORT_INVALID, "%s[%zu] '%.80s' is not %s: %s", field, i, s,
			    evm ? "an EVM address (0x and 40 hex digits)" : "an address of this network",
			    !parsed ? why
			    : a.evm ? "it is an EVM address"
				    : "it is not an EVM address");
			return;
		}
		bool dup = false;
		for (size_t k = 0; k < out->naddrs; k++)
			dup |= out->addrs[k].evm == a.evm && !memcmp(out->addrs[k].bytes, a.bytes, 20);
		if (!dup)
			out->addrs[out->naddrs++] = a;
		i++;
	}
}

api_export_verdict api_export_parse(const api_net *net, const uint8_t *body, size_t n, api_export_req *out,
				    char msg[256])
{
	memset(out, 0, sizeof *out);
	msg[0] = 0;
	pstate p = { .net = net, .msg = msg };
	size_t a, b;
	char jmsg[128];
	if (sl_json_scan((const char *)body, n, &a, &b, jmsg)) {
		snprintf(msg, 256, "the body must be JSON, {\"type\": …, \"options\": {…}}: %s", jmsg);
		return API_EXPORT_BAD_BODY;
	}
	for (size_t i = b; i < n; i++)
		if (body[i] != ' ' && body[i] != '\t' && body[i] != '\r' && body[i] != '\n') {
			snprintf(msg, 256, "the body must be one JSON object and nothing after it");
			return API_EXPORT_BAD_BODY;
		}
	/* JSON is UTF-8 (RFC 8259 §8.1); the body is kept as text */
	size_t valid = utf8_valid(body, n);
	if (valid < n) {
		snprintf(msg, 256, "the body must be UTF-8: byte %zu is not", valid);
		return API_EXPORT_BAD_BODY;
	}
	sl_span root = { body + a, b - a }, k, v, type = { 0 }, options = { 0 }, dates[4] = { { 0 } };
	if (sl_json_type(root) != SL_JT_OBJECT) {
		snprintf(msg, 256, "the body must be a JSON object, {\"type\": …, \"options\": {…}}");
		return API_EXPORT_BAD_BODY;
	}
	static const char *const date_names[4] = { "firstDate", "lastDate", "startDate", "endDate" };
	sl_buf_init(&p.text, SL_JSON_UNQUOTE_MAX(256));
	sl_jiter it;
	sl_json_iter_init(&it, root);
	while (p.verdict == API_EXPORT_OK && sl_json_obj_next(&it, &k, &v)) {
		bool known = false;
		if (key_is(&p, k, "type"))
			type = v, known = true;
		else if (key_is(&p, k, "options"))
			options = v, known = true;
		for (int d = 0; d < 4 && !known; d++)
			if (key_is(&p, k, date_names[d]))
				dates[d] = v, known = true;
		if (!known)
			bad(&p, API_EXPORT_BAD_BODY,
			    "the body has an unknown property %.*s; it takes type, firstDate, lastDate, "
			    "startDate, endDate and options",
			    (int)SL_MIN(k.len, 60u), (const char *)k.p);
	}
	/* type */
	if (p.verdict == API_EXPORT_OK && !type.len)
		bad(&p, API_EXPORT_BAD_BODY, "type is required: one of %s, %s, %s, %s",
		    api_export_type_names[0], api_export_type_names[1], api_export_type_names[2],
		    api_export_type_names[3]);
	if (p.verdict == API_EXPORT_OK && string_of(&p, type, "type")) {
		int t = -1;
		for (int i = 0; api_export_type_names[i]; i++)
			if (!strcmp(sl_buf_str(&p.text), api_export_type_names[i]))
				t = i;
		if (t < 0)
			bad(&p, API_EXPORT_BAD_BODY, "type must be one of %s, %s, %s, %s, not '%.64s'",
			    api_export_type_names[0], api_export_type_names[1], api_export_type_names[2],
			    api_export_type_names[3], sl_buf_str(&p.text));
		else
			out->type = (api_export_type)t;
	}
	bool evm = out->type == API_EXPORT_EVM;
	/* options: the schema's shape first (400s), then what it names (FAILED) */
	sl_span addrs = { 0 }, cevm = { 0 }, chains = { 0 };
	if (p.verdict == API_EXPORT_OK && !options.len)
		bad(&p, API_EXPORT_BAD_BODY, "options is required: {%s}",
		    evm ? "\"addresses\": […], \"includeChains\": […]"
			: "\"includeChains\": […], \"addresses\": […]");
	if (p.verdict == API_EXPORT_OK && sl_json_type(options) != SL_JT_OBJECT)
		bad(&p, API_EXPORT_BAD_BODY, "options must be an object, not a JSON %s",
		    sl_json_kind_name(sl_json_type(options)));
	if (p.verdict == API_EXPORT_OK) {
		sl_json_iter_init(&it, options);
		while (p.verdict == API_EXPORT_OK && sl_json_obj_next(&it, &k, &v)) {
			if (key_is(&p, k, "addresses"))
				addrs = v;
			else if (key_is(&p, k, "includeChains"))
				chains = v;
			else if (!evm && key_is(&p, k, "cChainEvmAddresses"))
				cevm = v;
			else
				bad(&p, API_EXPORT_BAD_BODY,
				    "options has an unknown property %.*s; it takes %s",
				    (int)SL_MIN(k.len, 60u), (const char *)k.p,
				    evm ? "addresses and includeChains"
					: "includeChains, addresses and cChainEvmAddresses");
		}
	}
	if (p.verdict == API_EXPORT_OK && !chains.len)
		bad(&p, API_EXPORT_BAD_BODY, "options.includeChains is required (%s)",
		    evm ? "EVM chain ids, e.g. [\"43114\"]" : "e.g. [\"p-chain\", \"x-chain\", \"c-chain\"]");
	if (p.verdict == API_EXPORT_OK && evm && !addrs.len)
		bad(&p, API_EXPORT_BAD_BODY, "options.addresses is required (EVM addresses, 0x…)");
	if (p.verdict == API_EXPORT_OK)
		string_array(&p, chains, "options.includeChains", API_EXPORT_MAX_CHAINS);
	if (p.verdict == API_EXPORT_OK && addrs.len)
		string_array(&p, addrs, "options.addresses", API_EXPORT_MAX_ADDRESSES);
	if (p.verdict == API_EXPORT_OK && cevm.len)
		string_array(&p, cevm, "options.cChainEvmAddresses", API_EXPORT_MAX_ADDRESSES);
	/* the chains: the primary network's enum is the schema's (400); EVM ids are any string */
	sl_span e;
	size_t i = 0;
	if (p.verdict == API_EXPORT_OK)
		sl_json_iter_init(&it, chains);
	while (p.verdict == API_EXPORT_OK && sl_json_arr_next(&it, &e)) {
		if (!string_of(&p, e, "options.includeChains"))
			break;
		const char *s = sl_buf_str(&p.text);
		if (evm) {
			uint64_t id = 0;
			bool ok = p.text.len > 0 && p.text.len <= 19 && s[0] != '0';
			for (size_t c = 0; ok && c < p.text.len; c++) {
				ok = s[c] >= '0' && s[c] <= '9';
				id = id * 10 + (uint64_t)(s[c] - '0');
			}
			if (!ok) {
				bad(&p, API_EXPORT_INVALID,
				    "options.includeChains[%zu] '%.40s' is not an EVM chain id (a decimal number)",
				    i, s);
				break;
			}
			bool dup = false;
			for (size_t c = 0; c < out->nevm; c++)
				dup |= out->evm[c] == id;
			if (!dup)
				out->evm[out->nevm++] = id;
		} else {
			int found = -1;
			for (size_t c = 0; c < SL_ARRAY_LEN(pn_chains) && found < 0; c++)
				if (!strcmp(s, pn_chains[c].id))
					found = (int)c;
			if (found < 0) {
				bad(&p, API_EXPORT_BAD_BODY,
				    "options.includeChains[%zu] must be p-chain, x-chain, c-chain or one of the "
				    "primary network's chain ids, not '%.64s'",
				    i, s);
				break;
			}
			/* a chain id of mainnet or fuji names a chain of this store only on that network (a
			 * local network's X and C ids are none of the enum's: its aliases name them) */
			const char *cn = pn_chains[found].network;
			if (cn && strcmp(cn, net->name)) {
				bad(&p, API_EXPORT_INVALID,
				    "options.includeChains[%zu] '%.64s' is a chain of %s; this store holds %s",
				    i, s, cn, net->name);
				break;
			}
			out->chains |= API_CHAIN(pn_chains[found].chain);
		}
		i++;
	}
	/* the dates: strings by the schema; YYYY-MM-DD or a FAILED operation */
	int64_t day[4] = { 0 };
	bool has[4] = { false };
	for (int d = 0; d < 4 && p.verdict == API_EXPORT_OK; d++) {
		if (!dates[d].len || !string_of(&p, dates[d], date_names[d]))
			continue;
		if (!parse_day(sl_buf_str(&p.text), p.text.len, &day[d]))
			bad(&p, API_EXPORT_INVALID,
			    "%s must be a day YYYY-MM-DD (1970 or later), not '%.40s'", date_names[d],
			    sl_buf_str(&p.text));
		has[d] = true;
	}
	if (p.verdict == API_EXPORT_OK) {
		/* firstDate/lastDate; the deprecated startDate/endDate stand in for an absent one */
		int f = has[0] ? 0 : has[2] ? 2 : -1, l = has[1] ? 1 : has[3] ? 3 : -1;
		out->from = f < 0 ? 0 : day[f] * 86400;
		out->to = l < 0 ? INT64_MAX : (day[l] + 1) * 86400;
		if (f >= 0 && l >= 0 && day[f] > day[l])
			bad(&p, API_EXPORT_INVALID, "%s must not be after %s", date_names[f], date_names[l]);
	}
	/* the addresses */
	if (p.verdict == API_EXPORT_OK && addrs.len)
		read_addresses(&p, addrs, "options.addresses", evm, out);
	if (p.verdict == API_EXPORT_OK && cevm.len)
		read_addresses(&p, cevm, "options.cChainEvmAddresses", true, out);
	if (p.verdict == API_EXPORT_OK && !out->naddrs)
		bad(&p, API_EXPORT_INVALID, "%s",
		    evm ? "options.addresses: give at least one address"
			: "options.addresses or options.cChainEvmAddresses: give at least one address");
	if (p.verdict == API_EXPORT_OK && (evm ? !out->nevm : !out->chains))
		bad(&p, API_EXPORT_INVALID, "options.includeChains: name at least one chain");
	sl_buf_release(&p.text);
	return p.verdict;
}

/* ---- the operation ------------------------------------------------------------------------------ */

typedef struct op_row {
	char type[48], status[32], code[32], next_date[16];
	char *message; /* arena */
	int64_t created_ms, updated_ms;
	bool has_code, has_next;
} op_row;

static const sl_sql q_op_get = { "SELECT type, status, message, code, next_date, created_ms, updated_ms "
				 "FROM operations WHERE id = ?" };
static const sl_sql q_op_insert = { "INSERT INTO operations (id, type, request, status, message, code, "
				    "created_ms, updated_ms, max_rows) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)" };
static const sl_sql q_op_file = { "SELECT status, result FROM operations WHERE id = ?" };

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void copy_col(sl_stmt *s, int i, char *out, size_t cap)
{
	size_t n;
	const char *t = sl_col_text(s, i, &n);
	n = SL_MIN(n, cap - 1);
	memcpy(out, t, n);
	out[n] = 0;
}

/* The row of an operation id: 1 found, 0 none, <0 after api_fail. */
static int op_read(api_req *r, const char *id, op_row *o)
{
	memset(o, 0, sizeof *o);
	sl_stmt *s = sl_stmt_get(r->db, &q_op_get);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_bind_text(s, 0, id, strlen(id));
	sl_err e = sl_stmt_query(s);
	int found = 0;
	if (!e && sl_stmt_next(s, &e)) {
		found = 1;
		copy_col(s, 0, o->type, sizeof o->type);
		copy_col(s, 1, o->status, sizeof o->status);
		size_t n;
		const char *m = sl_col_text(s, 2, &n);
		o->message = sl_col_null(s, 2) ? NULL : sl_arena_strndup(r->arena, m, n);
		o->has_code = !sl_col_null(s, 3);
		copy_col(s, 3, o->code, sizeof o->code);
		o->has_next = !sl_col_null(s, 4);
		copy_col(s, 4, o->next_date, sizeof o->next_date);
		o->created_ms = sl_col_i64(s, 5);
		o->updated_ms = sl_col_i64(s, 6);
		while (sl_stmt_next(s, &e))
			;
	}
	if (e)
		return api_fail_store(r, e);
	return found;
}

static bool done_status(const char *st)
{
	return !strcmp(st, "COMPLETED") || !strcmp(st, "COMPLETED_WITH_WARNING");
}

/* The URL of an operation's file: absolute with the request's Host when it is a plain host[:port]. */
static void file_url(api_req *r, const char *id, sl_buf *out)
{
	const char *host = sl_http_req_header(r->http, "Host");
	bool ok = host && *host && strlen(host) <= 255;
	for (const char *c = host; ok && *c; c++)
		ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		     strchr(".-:[]", *c);
	if (ok)
		sl_buf_addf(out, "http://%s", host);
	sl_buf_addf(out, "/v1/operations/%s/download", id);
}

/* OperationStatusResponse (data-api.md §6): createdAtTimestamp/updatedAtTimestamp in unix seconds
 * (spec 000 §2's convention); message always; metadata when it has something. */
static void op_write(api_req *r, const char *id, const op_row *o)
{
	sl_jw *w = &r->w;
	sl_jw_obj(w);
	sl_jw_key(w, "operationId");
	sl_jw_str(w, id);
	sl_jw_key(w, "operationType");
	sl_jw_str(w, o->type);
	sl_jw_key(w, "operationStatus");
	sl_jw_str(w, o->status);
	if (o->message) {
		sl_jw_key(w, "message");
		sl_jw_str(w, o->message);
	}
	bool file = done_status(o->status);
	if (o->has_code || o->has_next || file) {
		sl_jw_key(w, "metadata");
		sl_jw_obj(w);
		if (o->has_code) {
			sl_jw_key(w, "code");
			sl_jw_str(w, o->code);
		}
		if (file) {
			sl_buf u;
			sl_buf_init(&u, 1024);
			file_url(r, id, &u);
			sl_jw_key(w, "downloadUrl");
			sl_jw_strn(w, (const char *)u.p, u.len);
			sl_buf_release(&u);
		}
		if (o->has_next) {
			sl_jw_key(w, "nextDate");
			sl_jw_str(w, o->next_date);
		}
		sl_jw_obj_end(w);
	}
	sl_jw_key(w, "createdAtTimestamp");
	sl_jw_i64(w, floor_div(o->created_ms, 1000));
	sl_jw_key(w, "updatedAtTimestamp");
	sl_jw_i64(w, floor_div(o->updated_ms, 1000));
	sl_jw_obj_end(w);
}

/* A random version-4 UUID. */
static bool new_uuid(char out[40])
{
	uint8_t b[16];
	FILE *f = fopen("/dev/urandom", "rb");
	bool ok = f && fread(b, 1, sizeof b, f) == sizeof b;
	if (f)
		fclose(f);
	if (!ok)
		return false;
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
	snprintf(out, 40, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	return true;
}

static const sl_sql q_evm_chain = { "SELECT 1 FROM evm_chains WHERE evm = ?" };

/* The EVM chains of a request that this store does not index: the first one into msg. */
static sl_err unknown_evm_chain(sl_conn *c, const api_export_req *q, char msg[256], bool *unknown)
{
	*unknown = false;
	for (size_t i = 0; i < q->nevm && !*unknown; i++) {
		SL_STMT(c, q_evm_chain);
		sl_bind_i64(s, 0, (int64_t)q->evm[i]);
		sl_err e = sl_stmt_query(s);
		bool found = false;
		while (!e && sl_stmt_next(s, &e))
			found = true;
		if (e)
			return e;
		if (!found) {
			snprintf(msg, 256, "options.includeChains: EVM chain %llu is not indexed here",
				 (unsigned long long)q->evm[i]);
			*unknown = true;
		}
	}
	return SL_OK;
}

int api_post_export(api_req *r)
{
	sl_api *a = r->api;
	api_export_req q;
	char msg[256];
	api_export_verdict v = api_export_parse(&a->net, r->http->body, r->http->body_len, &q, msg);
	if (v == API_EXPORT_BAD_BODY)
		return api_fail(r, 400, "%s", msg);
	if (!a->wdb)
		return api_fail(
			r, 503,
			"export operations are not available on this server (its store is not writable)");
	if (v == API_EXPORT_OK && q.type == API_EXPORT_EVM) {
		bool unknown;
		sl_err e = unknown_evm_chain(r->db, &q, msg, &unknown);
		if (e)
			return api_fail_store(r, e);
		if (unknown)
			v = API_EXPORT_INVALID;
	}
	char id[40];
	if (!new_uuid(id))
		return api_fail(r, 500, "cannot make an operation id");
	op_row o = { .message = v == API_EXPORT_OK ? "the export is queued" : msg,
		     .has_code = v != API_EXPORT_OK };
	snprintf(o.type, sizeof o.type, "%s", api_export_type_names[q.type]);
	snprintf(o.status, sizeof o.status, "%s", v == API_EXPORT_OK ? "RUNNING" : "FAILED");
	snprintf(o.code, sizeof o.code, "ErrInvalidRequest");
	o.created_ms = o.updated_ms = now_ms();
	char err[256];
	sl_conn *c = sl_db_acquire(a->wdb, 5000, err);
	if (!c)
		return api_fail(r, 503, "the store is busy; try again");
	sl_stmt *s = sl_stmt_get(c, &q_op_insert);
	sl_err e = SL_ERR_STORE;
	if (s) {
		sl_bind_text(s, 0, id, strlen(id));
		sl_bind_text(s, 1, o.type, strlen(o.type));
		sl_bind_text(s, 2, (const char *)r->http->body, r->http->body_len);
		sl_bind_text(s, 3, o.status, strlen(o.status));
		sl_bind_text(s, 4, o.message, strlen(o.message));
		if (o.has_code)
			sl_bind_text(s, 5, o.code, strlen(o.code));
		else
			sl_bind_null(s, 5);
		sl_bind_i64(s, 6, o.created_ms);
		sl_bind_i64(s, 7, o.updated_ms);
		sl_bind_i64(s, 8,
			    (int64_t)(a->cfg.export_max_rows ? a->cfg.export_max_rows : API_EXPORT_MAX_ROWS));
		e = sl_stmt_exec(s);
	}
	if (e)
		SL_LOG(a->log, SL_ERROR, "export: cannot store operation %s: %s", id, sl_conn_error(c));
	sl_db_release(a->wdb, c);
	if (e)
		return api_fail(r, e == SL_ERR_UNAVAILABLE || e == SL_ERR_TIMEOUT ? 503 : 500,
				"the store failed to keep the operation");
	SL_LOG(a->log, SL_INFO, "export %s: %s %s%s%s", id, o.type, o.status, v ? ": " : "", v ? msg : "");
	if (v == API_EXPORT_OK)
		api_exports_wake(a->exports);
	op_write(r, id, &o);
	return 0;
}

/* {operationId}: at most 64 characters of [0-9a-zA-Z-] (anything else is no operation of ours). */
static const char *op_id(api_req *r)
{
	const char *id = r->operationId;
	if (!id || !*id || strlen(id) > 64)
		return NULL;
	for (const char *c = id; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      *c == '-'))
			return NULL;
	return id;
}

int api_get_operation(api_req *r)
{
	const char *id = op_id(r);
	op_row o;
	int found = id ? op_read(r, id, &o) : 0;
	if (found < 0)
		return -1;
	if (!found)
		return api_fail(r, 404, "operationId: no operation '%.64s'",
				r->operationId ? r->operationId : "");
	op_write(r, id, &o);
	return 0;
}

int api_get_operation_file(api_req *r)
{
	const char *id = op_id(r);
	if (!id)
		return api_fail(r, 404, "operationId: no operation '%.64s'",
				r->operationId ? r->operationId : "");
	sl_stmt *s = sl_stmt_get(r->db, &q_op_file);
	if (!s)
		return api_fail_store(r, SL_ERR_STORE);
	sl_bind_text(s, 0, id, strlen(id));
	sl_err e = sl_stmt_query(s);
	int found = 0;
	char status[32] = "";
	if (!e && sl_stmt_next(s, &e)) {
		found = 1;
		copy_col(s, 0, status, sizeof status);
		if (done_status(status)) {
			size_t n;
			const uint8_t *p = sl_col_blob(s, 1, &n);
			sl_buf_reset(&r->resp->body);
			sl_buf_add(&r->resp->body, p, n);
		}
		while (sl_stmt_next(s, &e))
			;
	}
	if (e)
		return api_fail_store(r, e);
	if (!found)
		return api_fail(r, 404, "operationId: no operation '%.64s'", id);
	if (!done_status(status))
		return api_fail(r, 404, "operation %s has no file: it is %s", id, status);
	r->resp->content_type = "text/csv; charset=utf-8";
	char *cd = sl_arena_alloc(r->arena, 128);
	if (cd) {
		snprintf(cd, 128, "attachment; filename=\"%s.csv\"", id);
		sl_http_resp_header(r->resp, "Content-Disposition", cd);
	}
	return 0;
}

/* ---- the runner ---------------------------------------------------------------------------------- */

#define EXPORT_POLL_MS 500    /* how often an idle runner looks for jobs */
#define EXPORT_PAGE 1024      /* rows of one read of an address's txs */
#define EXPORT_LEASE_MS 30000 /* a claimed job is this server's for so long, renewed at a third */

struct api_exports {
	sl_api *a;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, wake;
	char owner[48]; /* this server, in lease_owner */
	uint64_t max_rows, lease_ms, pause_ms;
};

/* One line of a file, found: its place in the order (ts, chain, k1, k2) and which of the request's
 * addresses took part (bit i: addrs[i]). */
typedef struct xrow {
	int64_t ts, ch, k1, k2;
	int64_t type;
	uint64_t mask;
} xrow;

static int xrow_cmp(const xrow *a, const xrow *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->ch != b->ch)
		return a->ch < b->ch ? -1 : 1;
	if (a->k1 != b->k1)
		return a->k1 < b->k1 ? -1 : 1;
	if (a->k2 != b->k2)
		return a->k2 < b->k2 ? -1 : 1;
	return 0;
}

static int xrow_qcmp(const void *a, const void *b) { return xrow_cmp(a, b); }

typedef struct job {
	struct api_exports *x;
	char id[72];
	api_export_req q;
	sl_conn *rd;	 /* a read connection of the API's pool */
	int64_t renewed; /* ms */
	bool lost;	 /* the lease is gone (or the server stops) */
	bool stopped;	 /* the server stops: the job is handed back */
	xrow *rows, *src, *tmp;
	size_t nrows, nsrc, cap; /* cap: max_rows + 1 */
	char fail[256];
} job;

static const sl_sql q_candidates = { "SELECT id FROM operations WHERE status = 'RUNNING' AND "
				     "(lease_until IS NULL OR lease_until < ?) ORDER BY created_ms LIMIT 8" };
static const sl_sql q_claim = {
	"UPDATE operations SET lease_owner = ?, lease_until = ?, message = 'the export is running' "
	"WHERE id = ? AND "
	"status = 'RUNNING' AND (lease_until IS NULL OR lease_until < ?) RETURNING request, max_rows"
};
static const sl_sql q_renew = { "UPDATE operations SET lease_until = ? WHERE id = ? AND lease_owner = ? AND "
				"status = 'RUNNING' RETURNING id" };
static const sl_sql q_release = {
	"UPDATE operations SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND "
	"lease_owner = ? AND status = 'RUNNING'"
};
static const sl_sql q_finish = {
	"UPDATE operations SET status = ?, message = ?, code = ?, next_date = ?, "
	"rows = ?, result = ?, updated_ms = ?, lease_owner = NULL, lease_until = NULL "
	"WHERE id = ? AND lease_owner = ? AND status = 'RUNNING' RETURNING id"
};

/* Sleep up to ms, or less when woken; true when the runner is to stop. */
static bool nap(struct api_exports *x, int64_t ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(ms / 1000);
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_sec++, ts.tv_nsec -= 1000000000L;
	pthread_mutex_lock(&x->mu);
	while (!x->stop && !x->wake)
		if (pthread_cond_timedwait(&x->cv, &x->mu, &ts))
			break;
	x->wake = false;
	bool stop = x->stop;
	pthread_mutex_unlock(&x->mu);
	return stop;
}

static bool stopping(struct api_exports *x)
{
	pthread_mutex_lock(&x->mu);
	bool s = x->stop;
	pthread_mutex_unlock(&x->mu);
	return s;
}

void api_exports_wake(struct api_exports *x)
{
	if (!x)
		return;
	pthread_mutex_lock(&x->mu);
	x->wake = true;
	pthread_cond_signal(&x->cv);
	pthread_mutex_unlock(&x->mu);
}

/* A statement of the writer's that returns a row when it applied: 1 applied, 0 not, <0 error. */
static int write_returning(sl_stmt *s)
{
	sl_err e = sl_stmt_query(s);
	int got = 0;
	while (!e && sl_stmt_next(s, &e))
		got = 1;
	return e ? -1 : got;
}

/* Renew the lease when a third of it has passed (and pause between reads when configured); false
 * when the job is to be left: the lease is lost or the server stops. */
static bool keep(job *j, bool pause)
{
	struct api_exports *x = j->x;
	if ((pause && x->pause_ms && nap(x, (int64_t)x->pause_ms)) || stopping(x))
		j->lost = j->stopped = true;
	int64_t now = now_ms();
	if (!j->lost && now - j->renewed >= (int64_t)x->lease_ms / 3) {
		char err[256];
		sl_conn *c = sl_db_acquire(x->a->wdb, 5000, err);
		sl_stmt *s = c ? sl_stmt_get(c, &q_renew) : NULL;
		int got = -1;
		if (s) {
			sl_bind_i64(s, 0, now + (int64_t)x->lease_ms);
			sl_bind_text(s, 1, j->id, strlen(j->id));
			sl_bind_text(s, 2, x->owner, strlen(x->owner));
			got = write_returning(s);
		}
		if (c)
			sl_db_release(x->a->wdb, c);
		if (got == 1)
			j->renewed = now;
		else if (got == 0 || now - j->renewed >= (int64_t)x->lease_ms) {
			SL_LOG(x->a->log, SL_WARN,
			       "export %s: this server's lease is gone; another takes the job", j->id);
			j->lost = true;
		}
	}
	return !j->lost;
}

/* rows ∪ src (both sorted, no key twice) into rows, at most cap, addresses' bits joined. */
static void merge(job *j)
{
	size_t a = 0, b = 0, n = 0;
	while (n < j->cap && (a < j->nrows || b < j->nsrc)) {
		int c = a == j->nrows ? 1 : b == j->nsrc ? -1 : xrow_cmp(&j->rows[a], &j->src[b]);
		if (c < 0)
			j->tmp[n++] = j->rows[a++];
		else if (c > 0)
			j->tmp[n++] = j->src[b++];
		else {
			j->tmp[n] = j->rows[a++];
			j->tmp[n++].mask |= j->src[b++].mask;
		}
	}
	xrow *t = j->rows;
	j->rows = j->tmp;
	j->tmp = t;
	j->nrows = n;
	j->nsrc = 0;
}

/* The txs the file may hold, by type (docs/api.md, exports). */
static bool pn_wanted(api_export_type t, int chain, int64_t type)
{
	if (t == API_EXPORT_PN)
		return true;
	if (t == API_EXPORT_PN_STAKING) /* a stake's start and its end */
		return chain == API_P && (type == 12 || type == 14 || type == 20 || type == 25 || type == 26);
	/* SIMPLE: value moved between addresses: BaseTx, ImportTx, ExportTx */
	if (chain == API_P)
		return type == 34 || type == 17 || type == 18;
	if (chain == API_X)
		return type == 0 || type == 3 || type == 4;
	return true; /* the C-chain's atomic txs are imports and exports */
}

/* An address's txs of a chain in seq order (its primary key's: no sort), the days' between. A chain's
 * seq is the order its txs were accepted in, and their times follow it (block times do not go back;
 * a DAG-era X tx's is its container's acceptance time), so the first `cap` of an address in seq
 * order are its first `cap` in time. */
static const sl_sql q_pn_page = {
	"SELECT seq, ts, type FROM addr_txs WHERE chain = ? AND addr = ? AND seq > ? "
	"AND ts >= ? AND ts < ? ORDER BY seq LIMIT ?"
};
static const sl_sql q_evm_page = {
	"SELECT a.block, a.tx_idx, t.ts FROM evm_addr_txs a JOIN evm_txs t ON t.evm = a.evm AND "
	"t.block = a.block AND t.idx = a.tx_idx WHERE a.evm = ? AND a.addr = ? AND t.ts >= ? AND t.ts < ? "
	"AND (a.block > ? OR (a.block = ? AND a.tx_idx > ?)) ORDER BY a.block, a.tx_idx LIMIT ?"
};

/* The rows of one address on one chain (space: addr_txs' chain, or an EVM chain id) into j->src,
 * then merged: at most cap of them, in order. */
static sl_err collect_source(job *j, int64_t space, int chain, size_t ai)
{
	const api_addr *ad = &j->q.addrs[ai];
	bool evm = j->q.type == API_EXPORT_EVM;
	int64_t c1 = -1, c2 = -1; /* the cursor: seq, or (block, idx) */
	for (bool more = true; more && j->nsrc < j->cap;) {
		sl_stmt *s = sl_stmt_get(j->rd, evm ? &q_evm_page : &q_pn_page);
		if (!s)
			return SL_ERR_STORE;
		sl_bind_i64(s, 0, space);
		sl_bind_blob(s, 1, ad->bytes, 20);
		if (evm) {
			sl_bind_i64(s, 2, j->q.from);
			sl_bind_i64(s, 3, j->q.to);
			sl_bind_i64(s, 4, c1);
			sl_bind_i64(s, 5, c1);
			sl_bind_i64(s, 6, c2);
			sl_bind_i64(s, 7, EXPORT_PAGE);
		} else {
			sl_bind_i64(s, 2, c1);
			sl_bind_i64(s, 3, j->q.from);
			sl_bind_i64(s, 4, j->q.to);
			sl_bind_i64(s, 5, EXPORT_PAGE);
		}
		sl_err e = sl_stmt_query(s);
		size_t got = 0;
		while (!e && sl_stmt_next(s, &e)) {
			got++;
			int64_t k1 = sl_col_i64(s, 0), v1 = sl_col_i64(s, 1), v2 = sl_col_i64(s, 2);
			xrow x = { .mask = 1ull << ai };
			if (evm) {
				c1 = k1, c2 = v1;
				x.ts = v2, x.ch = space, x.k1 = k1, x.k2 = v1;
			} else {
				c1 = k1;
				x.ts = v1, x.ch = chain, x.k1 = k1, x.type = v2;
				if (!pn_wanted(j->q.type, chain, v2))
					continue;
			}
			if (j->nsrc < j->cap)
				j->src[j->nsrc++] = x;
		}
		if (e)
			return e;
		more = got == EXPORT_PAGE;
		if (!keep(j, true))
			return SL_OK;
	}
	/* in time order for the merge (equal times keep their seq order) */
	qsort(j->src, j->nsrc, sizeof *j->src, xrow_qcmp);
	merge(j);
	return SL_OK;
}

static void csv_date(sl_buf *b, int64_t ts)
{
	time_t t = (time_t)ts;
	struct tm tm;
	if (!gmtime_r(&t, &tm)) {
		sl_buf_adds(b, ",");
		return;
	}
	sl_buf_addf(b, ",%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		    tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* A big-endian unsigned integer of up to 32 bytes in decimal. */
static void csv_uint(sl_buf *b, const uint8_t *p, size_t n)
{
	uint8_t v[32] = { 0 };
	n = SL_MIN(n, sizeof v);
	memcpy(v + sizeof v - n, p, n);
	char digits[80];
	size_t k = sizeof digits;
	bool zero;
	do {
		unsigned rem = 0;
		zero = true;
		for (size_t i = 0; i < sizeof v; i++) {
			unsigned cur = rem << 8 | v[i];
			v[i] = (uint8_t)(cur / 10);
			rem = cur % 10;
			zero &= v[i] == 0;
		}
		digits[--k] = (char)('0' + rem);
	} while (!zero && k > 0);
	sl_buf_add(b, digits + k, sizeof digits - k);
}

static void csv_addresses(job *j, sl_buf *b, uint64_t mask)
{
	sl_buf_addc(b, ',');
	bool first = true;
	for (size_t i = 0; i < j->q.naddrs; i++) {
		if (!(mask >> i & 1))
			continue;
		if (!first)
			sl_buf_addc(b, ' ');
		first = false;
		if (j->q.addrs[i].evm) {
			sl_buf_adds(b, "0x");
			sl_buf_add_hex(b, j->q.addrs[i].bytes, 20);
		} else {
			sl_bech32_write(b, j->x->a->net.hrp, j->q.addrs[i].bytes, 20);
		}
	}
	sl_buf_addc(b, '\n');
}

static const sl_sql q_pn_tx = { "SELECT id, height, block FROM txs WHERE chain = ? AND seq = ?" };
static const sl_sql q_evm_tx = { "SELECT hash, sender, recipient, value, status, gas_used, effective_price, "
				 "created FROM evm_txs WHERE evm = ? AND block = ? AND idx = ?" };

static void csv_hex_col(sl_buf *b, sl_stmt *s, int col)
{
	sl_buf_addc(b, ',');
	size_t n;
	const uint8_t *p = sl_col_blob(s, col, &n);
	if (sl_col_null(s, col))
		return;
	sl_buf_adds(b, "0x");
	sl_buf_add_hex(b, p, n);
}

/* One line of the file. */
static sl_err csv_row(job *j, sl_buf *b, const xrow *x)
{
	bool evm = j->q.type == API_EXPORT_EVM;
	sl_stmt *s = sl_stmt_get(j->rd, evm ? &q_evm_tx : &q_pn_tx);
	if (!s)
		return SL_ERR_STORE;
	sl_bind_i64(s, 0, x->ch);
	sl_bind_i64(s, 1, x->k1);
	if (evm)
		sl_bind_i64(s, 2, x->k2);
	sl_err e = sl_stmt_query(s);
	bool found = false;
	while (!e && sl_stmt_next(s, &e)) {
		if (found)
			continue;
		found = true;
		if (evm) {
			sl_buf_addf(b, "%lld,%lld,%lld,%lld", (long long)x->ch, (long long)x->k1,
				    (long long)x->k2, (long long)x->ts);
			csv_date(b, x->ts);
			csv_hex_col(b, s, 0);
			csv_hex_col(b, s, 1);
			csv_hex_col(b, s, 2);
			size_t n;
			const uint8_t *p = sl_col_blob(s, 3, &n);
			sl_buf_addc(b, ',');
			csv_uint(b, p, n);
			sl_buf_addf(b, ",%lld,", (long long)sl_col_i64(s, 5));
			p = sl_col_blob(s, 6, &n);
			csv_uint(b, p, n);
			sl_buf_addf(b, ",%lld", (long long)sl_col_i64(s, 4));
			csv_hex_col(b, s, 7);
		} else {
			int c = (int)x->ch;
			uint8_t id[32];
			char cb[64];
			sl_col_copy(s, 0, id, 32);
			sl_cb58_id(cb, id);
			sl_buf_addf(b, "%c,%s,%s,%s,%lld", "PXC"[c], j -> x -> a -> net.chain_str[c], cb,
				    api_tx_type_name(c, (uint32_t)x->type), (long long)x->ts);
			csv_date(b, x->ts);
			sl_buf_addc(b, ',');
			if (!sl_col_null(s, 1))
				sl_buf_add_i64(b, sl_col_i64(s, 1));
			sl_buf_addc(b, ',');
			if (!sl_col_null(s, 2)) { /* the C-chain's blocks are EVM ones: 0x hex */
				sl_col_copy(s, 2, id, 32);
				if (c == API_C) {
					sl_buf_adds(b, "0x");
					sl_buf_add_hex(b, id, 32);
				} else {
					sl_cb58_id(cb, id);
					sl_buf_adds(b, cb);
				}
			}
		}
		csv_addresses(j, b, x->mask);
	}
	if (!e && !found)
		return sl_conn_fail(j->rd, SL_ERR_STORE, "a tx of an address's list is not in the store");
	return e;
}

static const char *const pn_header =
	"chain,blockchainId,txHash,txType,timestamp,date,blockNumber,blockHash,addresses\n";
static const char *const evm_header =
	"chainId,blockNumber,txIndex,timestamp,date,txHash,from,to,value,gasUsed,"
	"gasPrice,status,contractAddress,addresses\n";

typedef struct outcome {
	const char *status, *code;
	char message[256];
	char next[16];
	bool has_next;
	size_t rows;
} outcome;

/* Make the file of a claimed job into csv; SL_OK with the outcome (or j->lost), or a store error. */
static sl_err produce(job *j, sl_buf *csv, outcome *out)
{
	const api_export_req *q = &j->q;
	if (q->type == API_EXPORT_EVM) {
		for (size_t c = 0; c < q->nevm && !j->lost; c++)
			for (size_t i = 0; i < q->naddrs && !j->lost; i++) {
				sl_err e = collect_source(j, (int64_t)q->evm[c], 0, i);
				if (e)
					return e;
			}
	} else {
		for (int c = 0; c < 3 && !j->lost; c++) {
			if (!(q->chains & API_CHAIN(c)))
				continue;
			for (size_t i = 0; i < q->naddrs && !j->lost; i++) {
				const api_addr *ad = &q->addrs[i];
				if (ad->evm && c != API_C)
					continue; /* cChainEvmAddresses: the C-chain's atomic txs only */
				sl_err e = collect_source(j, ad->evm ? 3 : c, c, i);
				if (e)
					return e;
			}
		}
	}
	if (j->lost)
		return SL_OK;
	/* past the cap: end at the start of the day of the first line left out, unless that is the
	 * first day (then the cap's lines of it, and the next day after it) */
	size_t n = j->nrows;
	size_t max = j->cap - 1;
	*out = (outcome){ .status = "COMPLETED" };
	if (n > max) {
		int64_t day = floor_div(j->rows[max].ts, 86400);
		size_t cut = max;
		while (cut > 0 && floor_div(j->rows[cut - 1].ts, 86400) == day)
			cut--;
		out->status = "COMPLETED_WITH_WARNING";
		out->code = "WarnTruncatedExport";
		out->has_next = true;
		if (cut > 0) {
			n = cut;
			format_day(day, out->next);
			snprintf(
				out->message, sizeof out->message,
				"the export holds more than %zu txs: this file ends before %s; ask again with "
				"firstDate %s for the rest",
				max, out->next, out->next);
		} else {
			n = max;
			format_day(day + 1, out->next);
			char d[16];
			format_day(day, d);
			snprintf(
				out->message, sizeof out->message,
				"%s alone has more than %zu txs: this file holds the first %zu of them, and the "
				"rest of that day is left out; ask again with firstDate %s for what follows",
				d, max, max, out->next);
		}
	}
	sl_buf_adds(csv, q->type == API_EXPORT_EVM ? evm_header : pn_header);
	for (size_t i = 0; i < n; i++) {
		sl_err e = csv_row(j, csv, &j->rows[i]);
		if (e)
			return e;
		if (i % 256 == 255 && !keep(j, false))
			return SL_OK;
	}
	out->rows = n;
	if (out->status[9] == 0) /* "COMPLETED" */
		snprintf(out->message, sizeof out->message, "the export is done: %zu txs", n);
	return SL_OK;
}

/* Write the end of a job, if the lease is still this server's. */
static void finish(job *j, const outcome *o, const sl_buf *csv)
{
	struct api_exports *x = j->x;
	char err[256];
	sl_conn *c = sl_db_acquire(x->a->wdb, 10000, err);
	sl_stmt *s = c ? sl_stmt_get(c, &q_finish) : NULL;
	int got = -1;
	if (s) {
		sl_bind_text(s, 0, o->status, strlen(o->status));
		sl_bind_text(s, 1, o->message, strlen(o->message));
		if (o->code)
			sl_bind_text(s, 2, o->code, strlen(o->code));
		else
			sl_bind_null(s, 2);
		if (o->has_next)
			sl_bind_text(s, 3, o->next, strlen(o->next));
		else
			sl_bind_null(s, 3);
		sl_bind_i64(s, 4, (int64_t)o->rows);
		if (csv)
			sl_bind_blob(s, 5, csv->p ? csv->p : (const uint8_t *)"", csv->len);
		else
			sl_bind_null(s, 5);
		sl_bind_i64(s, 6, now_ms());
		sl_bind_text(s, 7, j->id, strlen(j->id));
		sl_bind_text(s, 8, x->owner, strlen(x->owner));
		got = write_returning(s);
	}
	if (got < 0)
		SL_LOG(x->a->log, SL_WARN,
		       "export %s: cannot write its end (%s); it is run again when its lease ends", j->id,
		       c ? sl_conn_error(c) : err);
	else if (got == 0)
		SL_LOG(x->a->log, SL_WARN,
		       "export %s: the lease was lost before the end; another server's end counts", j->id);
	else
		SL_LOG(x->a->log, SL_INFO, "export %s: %s, %zu rows, %zu bytes (server %s)", j->id, o->status,
		       o->rows, csv ? csv->len : 0, x->owner);
	if (c)
		sl_db_release(x->a->wdb, c);
}

/* The server stops mid-job: clear the lease, so that the next runner takes the job at once. */
static void hand_back(job *j)
{
	struct api_exports *x = j->x;
	char err[256];
	sl_conn *c = sl_db_acquire(x->a->wdb, 2000, err);
	sl_stmt *s = c ? sl_stmt_get(c, &q_release) : NULL;
	sl_err e = SL_ERR_STORE;
	if (s) {
		sl_bind_text(s, 0, j->id, strlen(j->id));
		sl_bind_text(s, 1, x->owner, strlen(x->owner));
		e = sl_stmt_exec(s);
	}
	SL_LOG(x->a->log, e ? SL_WARN : SL_INFO, "export %s: handed back (the server stops)%s", j->id,
	       e ? "; it is taken again when its lease ends" : "");
	if (c)
		sl_db_release(x->a->wdb, c);
}

/* Claim one job whose lease has ended and run it; false when there was none. */
static bool run_one(struct api_exports *x)
{
	sl_api *a = x->a;
	char err[256];
	job *j = calloc(1, sizeof *j);
	if (!j)
		return false;
	j->x = x;
	sl_buf req;
	sl_buf_init(&req, 64u << 20);
	sl_conn *c = sl_db_acquire(a->wdb, 5000, err);
	bool claimed = false;
	int64_t now = now_ms();
	if (c) {
		char ids[8][72];
		size_t nids = 0;
		sl_stmt *s = sl_stmt_get(c, &q_candidates);
		sl_err e = SL_ERR_STORE;
		if (s) {
			sl_bind_i64(s, 0, now);
			e = sl_stmt_query(s);
			while (!e && sl_stmt_next(s, &e))
				if (nids < 8)
					copy_col(s, 0, ids[nids++], sizeof ids[0]);
		}
		for (size_t i = 0; !e && i < nids && !claimed; i++) {
			if (!(s = sl_stmt_get(c, &q_claim)))
				break;
			sl_bind_text(s, 0, x->owner, strlen(x->owner));
			sl_bind_i64(s, 1, now + (int64_t)x->lease_ms);
			sl_bind_text(s, 2, ids[i], strlen(ids[i]));
			sl_bind_i64(s, 3, now);
			e = sl_stmt_query(s);
			while (!e && sl_stmt_next(s, &e)) {
				size_t n;
				const char *t = sl_col_text(s, 0, &n);
				sl_buf_reset(&req);
				sl_buf_add(&req, t, n);
				int64_t m = sl_col_i64(s, 1);
				j->cap = (m > 0 ? (size_t)m : (size_t)x->max_rows) + 1;
				snprintf(j->id, sizeof j->id, "%s", ids[i]);
				claimed = true;
			}
		}
		if (e)
			SL_LOG(a->log, SL_WARN, "export: cannot look for jobs: %s", sl_conn_error(c));
		sl_db_release(a->wdb, c);
	}
	if (!claimed) {
		sl_buf_release(&req);
		free(j);
		return false;
	}
	SL_LOG(a->log, SL_INFO, "export %s: claimed by server %s", j->id, x->owner);
	j->renewed = now;
	outcome o = { .status = "FAILED", .code = "ErrInvalidRequest" };
	sl_buf csv;
	sl_buf_init(&csv, SL_HTTP_MAX_RESPONSE);
	bool have_csv = false;
	if (api_export_parse(&a->net, req.p, req.len, &j->q, o.message) != API_EXPORT_OK) {
		/* it was checked when it was posted; a request that fails now is told as it fails */
	} else if (!(j->rows = malloc(sizeof(xrow) * j->cap)) || !(j->src = malloc(sizeof(xrow) * j->cap)) ||
		   !(j->tmp = malloc(sizeof(xrow) * j->cap))) {
		o.code = "ErrInternal";
		snprintf(o.message, sizeof o.message, "out of memory");
	} else if (!(j->rd = sl_db_acquire(a->db, 10000, err))) {
		j->lost = true; /* the store is away: the job is run again when the lease ends */
	} else {
		sl_err e = produce(j, &csv, &o);
		if (!e && csv.err) {
			o = (outcome){ .status = "FAILED", .code = "ErrInternal" };
			snprintf(
				o.message, sizeof o.message,
				"the file would be larger than this server keeps (%u MiB): ask for fewer days",
				SL_HTTP_MAX_RESPONSE >> 20);
		} else if (e == SL_ERR_UNAVAILABLE || e == SL_ERR_TIMEOUT) {
			j->lost = true;
		} else if (e) {
			SL_LOG(a->log, SL_ERROR, "export %s: store: %s", j->id, sl_conn_error(j->rd));
			o = (outcome){ .status = "FAILED", .code = "ErrInternal" };
			snprintf(o.message, sizeof o.message, "the store failed to answer");
		} else {
			have_csv = true;
		}
		sl_db_release(a->db, j->rd);
	}
	if (!j->lost)
		finish(j, &o, have_csv && !strncmp(o.status, "COMPLETED", 9) ? &csv : NULL);
	else if (j->stopped)
		hand_back(j);
	sl_buf_release(&csv);
	sl_buf_release(&req);
	free(j->rows);
	free(j->src);
	free(j->tmp);
	free(j);
	return true;
}

static void *runner(void *arg)
{
	struct api_exports *x = arg;
	while (!stopping(x))
		if (!run_one(x) && nap(x, EXPORT_POLL_MS))
			break;
	return NULL;
}

struct api_exports *api_exports_start(sl_api *a, char err[512])
{
	struct api_exports *x = calloc(1, sizeof *x);
	if (!x) {
		snprintf(err, 512, "out of memory");
		return NULL;
	}
	x->a = a;
	x->max_rows = a->cfg.export_max_rows ? a->cfg.export_max_rows : API_EXPORT_MAX_ROWS;
	x->lease_ms = a->cfg.export_lease_ms ? a->cfg.export_lease_ms : EXPORT_LEASE_MS;
	x->pause_ms = a->cfg.export_pause_ms;
	char id[40];
	if (!new_uuid(id)) {
		snprintf(err, 512, "cannot read /dev/urandom");
		free(x);
		return NULL;
	}
	snprintf(x->owner, sizeof x->owner, "%.8s-%ld", id, (long)getpid());
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->cv, NULL);
	if (pthread_create(&x->th, NULL, runner, x)) {
		snprintf(err, 512, "cannot start the export runner");
		pthread_mutex_destroy(&x->mu);
		pthread_cond_destroy(&x->cv);
		free(x);
		return NULL;
	}
	return x;
}

void api_exports_stop(struct api_exports *x)
{
	if (!x)
		return;
	pthread_mutex_lock(&x->mu);
	x->stop = true;
	pthread_cond_signal(&x->cv);
	pthread_mutex_unlock(&x->mu);
	pthread_join(x->th, NULL);
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->cv);
	free(x);
}
