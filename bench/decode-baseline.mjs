#!/usr/bin/env node
// decode-baseline.mjs — the decode bench's input, and its avalanchejs side.
//
//   node bench/decode-baseline.mjs --make-set FILE [--count 50000]
//   node bench/decode-baseline.mjs --run FILE [--rounds 3]
//
// --make-set writes a large mixed set of containers: every P-chain tx and
// block, X-chain tx and block, coreth block and warp message of the shared
// vectors (tests/vectors, or $SNOWLINE_VECTORS), the txs
// @avalabs/avalanchejs builds for every P- and X-chain type
// (tests/e2e/ajs-txs.mjs), and proposervm blocks wrapping the P, X and C
// blocks; replicated round-robin to --count records. A record is
//
//   kind u8 | length u32 big-endian | bytes
//
// with the kinds `snowline decode --bench` knows: P pchain.tx, Q pchain.tx
// carrying a BLS proof of possession (avalanchejs verifies those while
// parsing, a pairing per tx, so they get their own row), B pchain.block, X xchain.tx, Y xchain.block, C cchain.block, W warp
// message, p/x/c proposervm around a P/X/C block.
//
// --run decodes every P and X tx record of FILE with avalanchejs (its
// codec's unpack of a SignedTx; it has no block, coreth or warp codec),
// best of --rounds, and prints {"kinds":{"pchain.tx":{containers, bytes,
// seconds}, …}}. Of the Q records it decodes the first --pop-sample (300):
// each costs milliseconds, and the table compares rates.
import { readFileSync, writeFileSync } from 'node:fs';
import { buildAll, ajsUnpack } from '../tests/e2e/ajs-txs.mjs';

const VECTORS = process.env.SNOWLINE_VECTORS || new URL('../tests/vectors', import.meta.url).pathname;
const vec = (f) => JSON.parse(readFileSync(`${VECTORS}/${f}`, 'utf8'));
const hexb = (h) => Buffer.from(h, 'hex');

function args(argv) {
  const o = { count: 50000, rounds: 3, popSample: 300 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--make-set') o.makeSet = argv[++i];
    else if (a === '--run') o.run = argv[++i];
    else if (a === '--count') o.count = Number(argv[++i]);
    else if (a === '--rounds') o.rounds = Number(argv[++i]);
    else if (a === '--pop-sample') o.popSample = Number(argv[++i]);
    else throw new Error(`unknown argument ${a}`);
  }
  if (!(o.count > 0) || !(o.rounds > 0) || (!o.makeSet === !o.run)) {
    throw new Error('usage: decode-baseline.mjs --make-set FILE [--count N] | --run FILE [--rounds N]');
  }
  return o;
}

// An unsigned proposervm statelessBlock around `inner` (id rules do not matter here).
function wrap(inner, i) {
  const head = Buffer.alloc(2 + 4 + 32 + 8 + 8 + 4);
  head.fill(i & 0xff, 6, 38);
  head.writeBigInt64BE(1_700_000_000n + BigInt(i), 38);
  head.writeBigUInt64BE(1_000_000n + BigInt(i), 46);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(inner.length);
  return Buffer.concat([head, len, inner, Buffer.alloc(4)]);
}

// Does avalanchejs meet a BLS proof of possession in this P-chain tx?
function hasPop(bytes) {
  const u = ajsUnpack('P', bytes).unsignedTx;
  return Boolean(u.signer?.proof || u.validators?.some?.((v) => v.signer));
}

async function makeSet(file, count) {
  const base = [];
  const add = (kind, bytes) => base.push([kind, Buffer.from(bytes)]);
  for (const v of vec('pchain-txs.json').signed_txs) add('P', hexb(v.hex));
  for (const v of vec('pchain-txs.json').unsigned_txs) if (v.derived_signed_no_creds) add('P', hexb(v.derived_signed_no_creds.hex));
  for (const v of vec('xchain-txs.json').txs) add('X', hexb(v.hex));
  const blocks = [...vec('pchain-blocks.json').blocks, ...vec('derived-blocks.json').vectors];
  for (const v of blocks) if (v.kind === 'pchain.block') add('B', hexb(v.hex));
  for (const v of blocks) if (v.kind === 'xchain.block') add('Y', hexb(v.hex));
  for (const v of vec('cchain-blocks.json').vectors) add('C', hexb(v.hex));
  for (const v of vec('warp.json').vectors) if (v.kind === 'warp.signed_message') add('W', hexb(v.hex));
  for (const t of await buildAll(vec('warp.json').vectors)) add(t.chain, t.bytes);
  for (const r of base) if (r[0] === 'P' && hasPop(r[1])) r[0] = 'Q';
  const inner = { B: 'p', Y: 'x', C: 'c' };
  base.filter(([k]) => inner[k]).forEach(([k, b], i) => add(inner[k], wrap(b, i)));

  const parts = [];
  for (let i = 0; i < count; i++) {
    const [kind, bytes] = base[i % base.length];
    const h = Buffer.alloc(5);
    h.write(kind, 0, 'latin1');
    h.writeUInt32BE(bytes.length, 1);
    parts.push(h, bytes);
  }
  writeFileSync(file, Buffer.concat(parts));
}

function run(file, rounds, popSample) {
  const buf = readFileSync(file);
  const recs = { P: [], Q: [], X: [] };
  for (let off = 0; off < buf.length;) {
    const kind = String.fromCharCode(buf[off]);
    const n = buf.readUInt32BE(off + 1);
    if (recs[kind]) recs[kind].push(new Uint8Array(buf.buffer, buf.byteOffset + off + 5, n));
    off += 5 + n;
  }
  const out = { rounds, kinds: {} };
  recs.Q = recs.Q.slice(0, popSample);
  for (const [kind, name] of [['P', 'pchain.tx'], ['Q', 'pchain.tx+pop'], ['X', 'xchain.tx']]) {
    const list = recs[kind];
    if (!list.length) continue;
    let best = Infinity;
    for (let r = 0; r < rounds; r++) {
      const t0 = process.hrtime.bigint();
      for (const b of list) ajsUnpack(kind === 'X' ? 'X' : 'P', b);
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      if (s < best) best = s;
    }
    out.kinds[name] = { containers: list.length, bytes: list.reduce((a, b) => a + b.length, 0), seconds: best };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

const o = args(process.argv.slice(2));
if (o.makeSet) await makeSet(o.makeSet, o.count);
else run(o.run, o.rounds, o.popSample);
