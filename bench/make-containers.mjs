#!/usr/bin/env node
// make-containers.mjs — writes a container log for `snowline node --import`,
// and optionally the JSON-RPC response the node should give for one of them.
//
//   node bench/make-containers.mjs --out FILE [--count 10000] [--size 600]
//        [--index 2] [--seed bench] [--response N --response-out FILE]
//
// Container log (all integers big-endian):
//
//   offset  size  field
//   0       8     magic "SLCLOG01"
//   then one record per container:
//   +0      1     index: 0=P/block 1=C/block 2=X/tx 3=X/block 4=X/vtx
//   +1      32    id = sha256(bytes)
//   +33     8     timestamp, int64 unix nanoseconds
//   +41     4     len, uint32
//   +45     len   bytes
//   +45+len 4     checksum: last 4 bytes of sha256(record bytes +0 .. +45+len)
//
// Container bytes are pseudo-random but deterministic (sha256 counter
// stream over --seed), so two runs with the same arguments write the same
// file. Timestamps start at 2024-01-01T00:00:00Z and advance ~1.5 s each.
// Only node built-ins are used.
import { createHash } from 'node:crypto';
import { openSync, writeSync, closeSync, writeFileSync } from 'node:fs';

const INDEXES = { 'P/block': 0, 'C/block': 1, 'X/tx': 2, 'X/block': 3, 'X/vtx': 4 };

function parseArgs(argv) {
	const o = { count: 10000, size: 600, index: 2, seed: 'bench', out: null, response: null, responseOut: null };
	for (let i = 0; i < argv.length; i++) {
		const k = argv[i], v = argv[i + 1];
		const need = () => { if (v === undefined) throw new Error(`${k} needs a value`); i++; return v; };
		switch (k) {
		case '--out': o.out = need(); break;
		case '--count': o.count = Number(need()); break;
		case '--size': o.size = Number(need()); break;
		case '--index': { const x = need(); o.index = x in INDEXES ? INDEXES[x] : Number(x); break; }
		case '--seed': o.seed = need(); break;
		case '--response': o.response = Number(need()); break;
		case '--response-out': o.responseOut = need(); break;
		default: throw new Error(`unknown argument ${k}`);
		}
	}
	if (!o.out) throw new Error('--out FILE is required');
	for (const [k, max] of [['count', 1e8], ['size', 2 << 20]])
		if (!Number.isInteger(o[k]) || o[k] < 1 || o[k] > max) throw new Error(`--${k} must be 1..${max}`);
	if (!Number.isInteger(o.index) || o.index < 0 || o.index > 4) throw new Error('--index must be 0..4 or a name');
	if (o.response !== null && (!Number.isInteger(o.response) || o.response < 0 || o.response >= o.count))
		throw new Error('--response must be an index below --count');
	if ((o.response === null) !== (o.responseOut === null))
		throw new Error('--response and --response-out go together');
	return o;
}

const sha256 = (...parts) => { const h = createHash('sha256'); for (const p of parts) h.update(p); return h.digest(); };

function containerBytes(seed, i, size) {
	const out = Buffer.alloc(size);
	const prefix = Buffer.from(`${seed}:${i}:`);
	for (let off = 0, ctr = 0; off < size; off += 32, ctr++) {
		const c = Buffer.alloc(4);
		c.writeUInt32BE(ctr);
		sha256(prefix, c).copy(out, off, 0, Math.min(32, size - off));
	}
	return out;
}

const BASE_NS = 1704067200n * 1000000000n; // 2024-01-01T00:00:00Z
const timestampOf = (i) => BASE_NS + BigInt(i) * 1500000000n + BigInt((i * 7919) % 1000000) * 1000n + 123n;

// Base58 (Bitcoin alphabet) of bytes + 4-byte sha256 checksum: Avalanche's cb58.
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function cb58(bytes) {
	const b = Buffer.concat([bytes, sha256(bytes).subarray(28)]);
	let n = BigInt('0x' + b.toString('hex'));
	let s = '';
	while (n > 0n) { s = B58[Number(n % 58n)] + s; n /= 58n; }
	for (const x of b) { if (x !== 0) break; s = '1' + s; }
	return s;
}

// Go's time.RFC3339Nano in UTC: fraction with trailing zeros removed, "Z".
function rfc3339nano(ns) {
	const secs = ns / 1000000000n, frac = ns % 1000000000n;
	const d = new Date(Number(secs) * 1000).toISOString().slice(0, 19);
	let f = frac.toString().padStart(9, '0').replace(/0+$/, '');
	return d + (f ? '.' + f : '') + 'Z';
}

function response(i, id, bytes, ts) {
	const hex = '0x' + Buffer.concat([bytes, sha256(bytes).subarray(28)]).toString('hex');
	const result = { id: cb58(id), bytes: hex, timestamp: rfc3339nano(ts), encoding: 'hex', index: String(i) };
	return JSON.stringify({ jsonrpc: '2.0', result, id: 1 }) + '\n';
}

function main() {
	const o = parseArgs(process.argv.slice(2));
	const fd = openSync(o.out, 'w');
	const chunks = [Buffer.from('SLCLOG01')];
	let pending = 8;
	const flush = () => { writeSync(fd, Buffer.concat(chunks)); chunks.length = 0; pending = 0; };
	for (let i = 0; i < o.count; i++) {
		const bytes = containerBytes(o.seed, i, o.size);
		const id = sha256(bytes);
		const ts = timestampOf(i);
		const head = Buffer.alloc(45);
		head.writeUInt8(o.index, 0);
		id.copy(head, 1);
		head.writeBigInt64BE(ts, 33);
		head.writeUInt32BE(bytes.length, 41);
		const sum = sha256(head, bytes).subarray(28);
		chunks.push(head, bytes, sum);
		pending += head.length + bytes.length + 4;
		if (i === o.response) writeFileSync(o.responseOut, response(i, id, bytes, ts));
		if (pending >= 1 << 20) flush();
	}
	flush();
	closeSync(fd);
}

try {
	main();
} catch (e) {
	process.stderr.write(`make-containers: ${e.message}\n`);
	process.exit(2);
}
