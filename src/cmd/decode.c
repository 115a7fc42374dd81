/*
 * snowline decode — print a container, block, tx or warp message as JSON.
 *
 *   snowline decode [--chain P|X|C|warp] [--network-id N] [--kind FORMAT] [--reencode] HEX|@FILE
 *   snowline decode --bench FILE [--rounds N] [--network-id N]
 *
 * A thin command over codec/formats.h, which holds the formats, the order
 * they are tried in, the proposervm rule and the error reporting; what is
 * left here is the input (hex or a file, the index API's checksum), the
 * choice of the set to try, and the exit status. docs/decode.md is the
 * user's page; the rules are repeated in --help.
 *
 * The set: --kind names one format of the whole input (no unwrapping);
 * --chain P|X|C gives the chain's formats, its block possibly inside a
 * proposervm wrapper; --chain warp the warp formats; neither, all of them.
 *
 * The checksum rule. The index API's hex ends in 4 checksum bytes (the
 * last 4 of sha256 of the rest); other tools print bytes without them. So:
 *   1. input ending in the checksum of the bytes before it: the checksum
 *      is dropped and the rest decoded (a false match has odds 2^-32);
 *   2. otherwise every byte is decoded; when that works there was no
 *      checksum;
 *   3. when it fails and the input is longer than 4 bytes, the bytes
 *      without the last 4 are decoded too: if they decode, the input is a
 *      container whose checksum does not verify, and that is the error
 *      ("checksum mismatch", exit 1), not "trailing bytes" in some other
 *      format;
 *   4. when neither decodes, the whole input's failure is reported (unless
 *      only without the last 4 bytes did a proposervm wrapper parse: then
 *      its inner block's failure is), and a second line says the last 4
 *      bytes were no checksum either.
 *
 * --bench (hidden; bench/decode.sh drives it) decodes a file of records
 * `kind u8 | length u32be | bytes` (kinds in `bench_kinds[]`) --rounds
 * times and prints the best round per kind as one JSON object. Each record
 * is decoded as the indexer will: in a fresh arena, by sl_fmt_decode() with
 * its known format, or sl_container_decode() with its index's set.
 *
 * Exit 0 on success; 1 when the input does not decode (what failed, in
 * which format the attempt got furthest, and the byte offset go to
 * stderr); 2 on a bad command line (the argument and why).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cmd/cmd.h"
#include "codec/formats.h"
#include "crypto/hash.h"
#include "util/arena.h"
#include "util/hex.h"
#include "util/limits.h"

#define DECODE_ARENA_CAP (256u << 20)
#define DECODE_MAX_INPUT (4u * SL_MAX_CONTAINER)
#define BENCH_MAX_FILE (1u << 30)
#define BENCH_MAX_ROUNDS 1000

struct opts {
	const char *chain;     /* --chain as given, or NULL */
	const char *kind;      /* --kind as given, or NULL */
	sl_container_fmts set; /* what to try */
	uint32_t network_id;   /* 0: not given */
	bool reencode;
	const char *input;
	const char *bench;
	unsigned rounds;
};

/* ---- input ------------------------------------------------------------------ */

/* Hex text (whitespace around it ignored, optional 0x) into out; false if not hex. */
static bool parse_hex(const char *s, size_t n, sl_buf *out)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++, n--;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2, n -= 2;
	if (n % 2)
		return false;
	for (size_t i = 0; i < n; i += 2) {
		int hi = sl_hex_digit((unsigned char)s[i]), lo = sl_hex_digit((unsigned char)s[i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		uint8_t byte = (uint8_t)(hi << 4 | lo);
		sl_buf_add(out, &byte, 1);
	}
	return out->err == SL_OK;
}

/* The whole of a file into out (capped by out's maximum). */
static bool read_file(const char *path, sl_buf *out)
{
	char err[256];
	if (!sl_buf_read_file(out, path, err))
		return true;
	fprintf(stderr, "snowline decode: %s\n", err);
	return false;
}

static bool read_input(const char *arg, sl_buf *out)
{
	if (arg[0] != '@') {
		if (parse_hex(arg, strlen(arg), out))
			return true;
		fprintf(stderr, "snowline decode: input is not hex (give hex, or @FILE)\n");
		return false;
	}
	sl_buf raw;
	sl_buf_init(&raw, 2 * DECODE_MAX_INPUT + 16);
	bool ok = read_file(arg + 1, &raw);
	if (ok && !parse_hex((const char *)raw.p, raw.len, out)) {
		sl_buf_reset(out);
		sl_buf_add(out, raw.p, raw.len); /* not hex: raw bytes */
		ok = out->err == SL_OK;
	}
	sl_buf_release(&raw);
	return ok;
}

/* ---- decode ----------------------------------------------------------------- */

static void print_attempt(const sl_fmt_attempt *at, const char *suffix)
{
	char line[512];
	sl_fmt_attempt_describe(at, line, sizeof line);
	fprintf(stderr, "snowline decode: %s%s\n", line, suffix);
}

static const char *container_kind(const sl_decoded_container *c)
{
	return c->wrapped ? sl_fmt_name(SL_FMT_PROPOSERVM_BLOCK) : sl_fmt_name(c->value.fmt);
}

static int run(const struct opts *o)
{
	int rc = 1;
	sl_buf in, out;
	sl_buf_init(&in, DECODE_MAX_INPUT);
	sl_buf_init(&out, SL_HTTP_MAX_RESPONSE);
	sl_arena a;
	sl_arena_init(&a, DECODE_ARENA_CAP);
	if (!read_input(o->input, &in))
		goto done;
	const uint8_t *p = in.p ? in.p : (const uint8_t *)"";
	size_t n = in.len;

	/* the checksum rule (top of the file) */
	uint8_t sum[4] = { 0 };
	bool has_tail = n > 4, sum_ok = false;
	if (has_tail) {
		sl_checksum4(p, n - 4, sum);
		sum_ok = memcmp(sum, p + n - 4, 4) == 0;
	}
	sl_decoded_container c;
	sl_fmt_attempt at;
	if (sl_container_decode(&a, o->set, p, sum_ok ? n - 4 : n, o->network_id, &c, &at) != SL_OK) {
		if (sum_ok || !has_tail) {
			print_attempt(&at, "");
			goto done;
		}
		sl_fmt_attempt at2;
		bool body_ok = sl_container_decode(&a, o->set, p, n - 4, o->network_id, &c, &at2) == SL_OK;
		const uint8_t *t = p + n - 4;
		if (body_ok) {
			fprintf(stderr,
				"snowline decode: checksum mismatch: the input ends in %02x%02x%02x%02x, but the index API "
				"checksum of the %zu bytes before it is %02x%02x%02x%02x (those bytes decode as %s)\n",
				t[0], t[1], t[2], t[3], n - 4, sum[0], sum[1], sum[2], sum[3],
				container_kind(&c));
			goto done;
		}
		if (at2.in_inner &&
		    !at.in_inner) /* a wrapper parsed only without them: the likelier reading */
			print_attempt(&at2, " (without the last 4 bytes)");
		else
			print_attempt(&at, "");
		fprintf(stderr,
			"snowline decode: (nor is it a container with a bad checksum: the last 4 bytes %02x%02x%02x%02x are "
			"not the index API checksum %02x%02x%02x%02x, and the bytes before them do not decode "
			"either)\n",
			t[0], t[1], t[2], t[3], sum[0], sum[1], sum[2], sum[3]);
		goto done;
	}

	sl_jw w;
	sl_jw_init(&w, &out);
	sl_jw_obj(&w);
	if (o->reencode) {
		sl_buf enc;
		sl_buf_init(&enc, 2 * DECODE_MAX_INPUT);
		sl_err err = sl_container_encode(&enc, &c);
		if (err == SL_OK) {
			sl_jw_key(&w, "kind");
			sl_jw_str(&w, container_kind(&c));
			sl_jw_key(&w, "hex");
			sl_jw_hex(&w, enc.p, enc.len);
		}
		sl_buf_release(&enc);
		if (err != SL_OK) {
			fprintf(stderr, "snowline decode: re-encoding the %s failed: %s\n",
				container_kind(&c), sl_err_name(err));
			goto done;
		}
	} else {
		sl_container_write_json_fields(&w, &c, true);
	}
	sl_jw_obj_end(&w);
	if (out.err) {
		fprintf(stderr, "snowline decode: output too large\n");
		goto done;
	}
	fwrite(out.p, 1, out.len, stdout);
	fputc('\n', stdout);
	rc = 0;
done:
	sl_arena_release(&a);
	sl_buf_release(&out);
	sl_buf_release(&in);
	return rc;
}

/* ---- bench ------------------------------------------------------------------ */

/*
 * A record's kind says what the indexer knows: which chain and index the
 * bytes came from. The first seven are one known format; the proposervm
 * kinds are containers of P/block, X/block and C/block.
 */
enum {
	BK_PTX,
	BK_PTX_POP,
	BK_PBLOCK,
	BK_XTX,
	BK_XBLOCK,
	BK_CBLOCK,
	BK_WARP,
	BK_VM_P,
	BK_VM_X,
	BK_VM_C,
	BK__COUNT
};
static const struct {
	char tag;
	const char *name;
	sl_fmt fmt; /* the known format, for the kinds before BK_VM_P */
} bench_kinds[BK__COUNT] = {
	[BK_PTX] = { 'P', "pchain.tx", SL_FMT_PCHAIN_TX },
	[BK_PTX_POP] = { 'Q', "pchain.tx+pop", SL_FMT_PCHAIN_TX },
	[BK_PBLOCK] = { 'B', "pchain.block", SL_FMT_PCHAIN_BLOCK },
	[BK_XTX] = { 'X', "xchain.tx", SL_FMT_XCHAIN_TX },
	[BK_XBLOCK] = { 'Y', "xchain.block", SL_FMT_XCHAIN_BLOCK },
	[BK_CBLOCK] = { 'C', "cchain.block", SL_FMT_CCHAIN_BLOCK },
	[BK_WARP] = { 'W', "warp.message", SL_FMT_WARP_MESSAGE },
	[BK_VM_P] = { 'p', "proposervm+pchain.block", SL_FMT_PROPOSERVM_BLOCK },
	[BK_VM_X] = { 'x', "proposervm+xchain.block", SL_FMT_PROPOSERVM_BLOCK },
	[BK_VM_C] = { 'c', "proposervm+cchain.block", SL_FMT_PROPOSERVM_BLOCK },
};

static sl_err bench_one(sl_arena *a, int kind, const uint8_t *p, size_t n, uint32_t network_id,
			sl_fmt_attempt *at)
{
	sl_decoded_container c;
	switch (kind) {
	case BK_VM_P: return sl_container_decode(a, SL_CONTAINER_P_BLOCK, p, n, network_id, &c, at);
	case BK_VM_X: return sl_container_decode(a, SL_CONTAINER_X_BLOCK, p, n, network_id, &c, at);
	case BK_VM_C: return sl_container_decode(a, SL_CONTAINER_C_BLOCK, p, n, network_id, &c, at);
	default:
		*at = (sl_fmt_attempt){ .fmt = bench_kinds[kind].fmt };
		return sl_fmt_decode(a, bench_kinds[kind].fmt, p, n, network_id, &c.value, &at->err);
	}
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct bench_rec {
	int kind;
	const uint8_t *p;
	uint32_t n;
};

static int run_bench(const struct opts *o)
{
	int rc = 1;
	sl_buf file, out;
	sl_buf_init(&file, BENCH_MAX_FILE);
	sl_buf_init(&out, 1u << 16);
	struct bench_rec *recs = NULL;
	if (!read_file(o->bench, &file))
		goto done;
	size_t cap = file.len / 5 + 1, nrec = 0;
	recs = calloc(cap, sizeof *recs);
	if (!recs)
		goto done;
	for (size_t off = 0; off < file.len;) {
		int kind = -1;
		for (int k = 0; k < BK__COUNT; k++)
			if (file.p[off] == (uint8_t)bench_kinds[k].tag)
				kind = k;
		if (kind < 0 || file.len - off < 5 || sl_be32(file.p + off + 1) > file.len - off - 5) {
			fprintf(stderr, "snowline decode: bench file: bad record at byte %zu\n", off);
			goto done;
		}
		recs[nrec++] = (struct bench_rec){ kind, file.p + off + 5, sl_be32(file.p + off + 1) };
		off += 5 + (size_t)recs[nrec - 1].n;
	}

	uint64_t count[BK__COUNT] = { 0 }, bytes[BK__COUNT] = { 0 };
	double best[BK__COUNT];
	for (int k = 0; k < BK__COUNT; k++)
		best[k] = 1e30;
	for (size_t i = 0; i < nrec; i++)
		count[recs[i].kind]++, bytes[recs[i].kind] += recs[i].n;

	/* each kind timed on its own, so the caller can compare any subset */
	for (unsigned round = 0; round < o->rounds; round++) {
		for (int k = 0; k < BK__COUNT; k++) {
			if (!count[k])
				continue;
			double t0 = now_seconds();
			for (size_t i = 0; i < nrec; i++) {
				if (recs[i].kind != k)
					continue;
				sl_arena a;
				sl_arena_init(&a, DECODE_ARENA_CAP);
				sl_fmt_attempt at;
				sl_err err = bench_one(&a, k, recs[i].p, recs[i].n, o->network_id, &at);
				sl_arena_release(&a);
				if (err != SL_OK) {
					char line[512];
					sl_fmt_attempt_describe(&at, line, sizeof line);
					fprintf(stderr, "snowline decode: bench record %zu (%s): %s\n", i,
						bench_kinds[k].name, line);
					goto done;
				}
			}
			double t = now_seconds() - t0;
			if (t < best[k])
				best[k] = t;
		}
	}

	sl_jw w;
	sl_jw_init(&w, &out);
	sl_jw_obj(&w);
	sl_jw_key(&w, "rounds");
	sl_jw_u64(&w, o->rounds);
	sl_jw_key(&w, "kinds");
	sl_jw_obj(&w);
	for (int k = 0; k < BK__COUNT; k++) {
		if (!count[k])
			continue;
		char secs[64];
		int m = snprintf(secs, sizeof secs, "%.9f", best[k]);
		sl_jw_key(&w, bench_kinds[k].name);
		sl_jw_obj(&w);
		sl_jw_key(&w, "containers");
		sl_jw_u64(&w, count[k]);
		sl_jw_key(&w, "bytes");
		sl_jw_u64(&w, bytes[k]);
		sl_jw_key(&w, "seconds");
		sl_jw_raw(&w, secs, (size_t)m);
		sl_jw_obj_end(&w);
	}
	sl_jw_obj_end(&w);
	sl_jw_obj_end(&w);
	if (out.err)
		goto done;
	fwrite(out.p, 1, out.len, stdout);
	fputc('\n', stdout);
	rc = 0;
done:
	free(recs);
	sl_buf_release(&out);
	sl_buf_release(&file);
	return rc;
}

/* ---- options ---------------------------------------------------------------- */

static const char synopsis[] =
	"usage: snowline decode [--chain P|X|C|warp] [--network-id N] [--kind FORMAT] [--reencode] HEX|@FILE\n";

static int help(void)
{
	fputs(synopsis, stdout);
	fputs("\n"
	      "Decode a container, block, tx or warp message of the primary network and print it as JSON:\n"
	      "{\"kind\":FORMAT,\"type\":GO_TYPE,\"value\":{...}}, or for a proposervm-wrapped block the\n"
	      "wrapper's fields and \"inner\":{kind, type, value}.\n"
	      "\n"
	      "  HEX           hex bytes, with or without 0x, with or without the index API's checksum\n"
	      "  @FILE         a file holding hex text or raw bytes\n"
	      "  --chain C     try only chain C's formats: P, X or C (its blocks also inside a proposervm\n"
	      "                wrapper), or warp; without --chain and --kind, every format is tried\n"
	      "  --kind F      decode the whole input as format F only (no unwrapping):\n"
	      "               ",
	      stdout);
	for (unsigned f = 0; f < SL_FMT__COUNT; f++)
		printf(" %s", sl_fmt_name((sl_fmt)f));
	fputs("\n"
	      "  --network-id N  the network the bytes come from (1 mainnet, 5 Fuji, ...): the address HRP,\n"
	      "                and the C-chain extData layout (on mainnet and Fuji only the layout the\n"
	      "                block's time calls for; elsewhere, or when not given, the other one too)\n"
	      "  --reencode    print {\"kind\",\"hex\"}: the decoded value encoded again\n"
	      "  --help        this text\n"
	      "Options also take the form --name=value.\n"
	      "\n"
	      "The checksum: input that ends in the index API checksum of the bytes before it is decoded\n"
	      "without it. Other input is decoded whole; if that fails but the input without its last\n"
	      "4 bytes decodes, the error is a checksum mismatch.\n"
	      "\n"
	      "Exit status: 0 decoded; 1 not decodable (the format whose attempt got furthest, why, and the\n"
	      "byte offset in the input, on stderr); 2 a bad command line.\n",
	      stdout);
	return 0;
}

/* A command-line error: what and why, the synopsis, exit 2. */
static int bad_usage(const char *fmt, ...) SL_PRINTF(1, 2);
static int bad_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("snowline decode: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs(synopsis, stderr);
	fputs("(snowline decode --help for more)\n", stderr);
	return 2;
}

static bool parse_u32(const char *s, uint32_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end || end == s || s[0] == '-' || s[0] == '+' || s[0] == ' ' || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static bool parse_chain(const char *c, sl_container_fmts *set)
{
	if (!strcmp(c, "P") || !strcmp(c, "p"))
		*set = SL_CONTAINER_CHAIN_P;
	else if (!strcmp(c, "X") || !strcmp(c, "x"))
		*set = SL_CONTAINER_CHAIN_X;
	else if (!strcmp(c, "C") || !strcmp(c, "c"))
		*set = SL_CONTAINER_CHAIN_C;
	else if (!strcmp(c, "warp"))
		*set = SL_CONTAINER_CHAIN_WARP;
	else
		return false;
	return true;
}

enum opt_id { OPT_HELP, OPT_CHAIN, OPT_NETWORK_ID, OPT_KIND, OPT_REENCODE, OPT_BENCH, OPT_ROUNDS };
static const struct {
	const char *name;
	enum opt_id id;
	bool takes_value;
} options[] = {
	{ "help", OPT_HELP, false },
	{ "chain", OPT_CHAIN, true },
	{ "network-id", OPT_NETWORK_ID, true },
	{ "kind", OPT_KIND, true },
	{ "reencode", OPT_REENCODE, false },
	{ "bench", OPT_BENCH, true },
	{ "rounds", OPT_ROUNDS, true },
};

int cmd_decode(int argc, char **argv)
{
	struct opts o = { .set = SL_CONTAINER_ANY, .rounds = 3 };
	bool only_inputs = false; /* after "--" */
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!only_inputs && !strcmp(arg, "--")) {
			only_inputs = true;
			continue;
		}
		if (!only_inputs && !strcmp(arg, "-h"))
			return help();
		if (only_inputs || arg[0] != '-') {
			if (o.input)
				return bad_usage("more than one input: '%s' and '%s'", o.input, arg);
			o.input = arg;
			continue;
		}
		/* an option: --name, --name value or --name=value */
		const char *name = arg[1] == '-' ? arg + 2 : arg + 1;
		const char *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		int which = -1;
		for (size_t k = 0; k < SL_ARRAY_LEN(options); k++)
			if (arg[1] == '-' && strlen(options[k].name) == len &&
			    !strncmp(options[k].name, name, len))
				which = (int)k;
		if (which < 0)
			return bad_usage("unknown option '%s'", arg);
		const char *val = NULL;
		if (options[which].takes_value) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return bad_usage("option '--%s' needs a value", options[which].name);
		} else if (eq) {
			return bad_usage("option '--%s' takes no value (got '%s')", options[which].name,
					 eq + 1);
		}
		switch (options[which].id) {
		case OPT_HELP: return help();
		case OPT_CHAIN:
			if (!parse_chain(val, &o.set))
				return bad_usage("--chain: '%s' is not a chain (P, X, C or warp)", val);
			o.chain = val;
			break;
		case OPT_NETWORK_ID:
			if (!parse_u32(val, &o.network_id) || o.network_id == 0)
				return bad_usage(
					"--network-id: '%s' is not a network id (a number from 1 to 4294967295)",
					val);
			break;
		case OPT_KIND: o.kind = val; break;
		case OPT_REENCODE: o.reencode = true; break;
		case OPT_BENCH: o.bench = val; break;
		case OPT_ROUNDS: {
			uint32_t r;
			if (!parse_u32(val, &r) || r == 0 || r > BENCH_MAX_ROUNDS)
				return bad_usage("--rounds: '%s' is not a number from 1 to %d", val,
						 BENCH_MAX_ROUNDS);
			o.rounds = r;
			break;
		}
		}
	}
	if (o.kind) {
		sl_fmt f;
		if (!sl_fmt_parse(o.kind, &f))
			return bad_usage("--kind: '%s' is not a format (snowline decode --help lists them)",
					 o.kind);
		if (o.chain && !(o.set.bare & SL_FMTS(f)))
			return bad_usage("--kind %s is not a format of --chain %s", o.kind, o.chain);
		o.set = (sl_container_fmts){ SL_FMTS(f), 0 };
	}
	if (o.bench)
		return o.input ? bad_usage("--bench takes no other input (got '%s')", o.input)
			       : run_bench(&o);
	if (!o.input)
		return bad_usage("no input: give HEX or @FILE");
	return run(&o);
}
