// decode.test.mjs — `snowline decode` on every item of the shared vectors
// (P/X txs and blocks, coreth blocks, proposervm blocks, warp messages and
// payloads), on containers assembled here (a coreth block carrying an
// atomic tx in its extData, proposervm around C and X blocks), with
// --reencode (decode then encode gives the input back), and on garbage
// (exit 1, an error that names a byte offset).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { BIN } from './lib.mjs';

const VECTORS = process.env.SNOWLINE_VECTORS || new URL('../vectors', import.meta.url).pathname;
const vectors = (f) => JSON.parse(readFileSync(`${VECTORS}/${f}`, 'utf8'));

function run(args) {
  return spawnSync(BIN, ['decode', ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
}
function decode(...args) {
  const r = run(args);
  assert.equal(r.status, 0, `snowline decode ${args.join(' ').slice(0, 120)}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.replace(/([:[,])(\d{16,})(?=[,\]}])/g, '$1"$2"'));
}
function reencodes(hex, ...args) {
  const out = decode('--reencode', ...args, hex);
  assert.equal(out.hex, '0x' + hex, 're-encoded bytes');
}

test('P-chain signed and unsigned txs', () => {
  const v = vectors('pchain-txs.json');
  for (const t of v.signed_txs) {
    const d = decode('--chain', 'P', t.hex);
    assert.equal(d.kind, 'pchain.tx');
    assert.equal(d.type, t.expected.type);
    assert.equal(d.value.id, t.expected.txID);
    reencodes(t.hex);
  }
  for (const t of v.unsigned_txs) {
    const d = decode(t.hex);
    assert.equal(d.kind, 'pchain.unsigned_tx', t.description);
    assert.equal(d.type, t.expected.type);
    reencodes(t.hex);
  }
});

test('X-chain txs', () => {
  for (const t of vectors('xchain-txs.json').txs) {
    const d = decode('--chain', 'X', t.hex);
    assert.equal(d.kind, 'xchain.tx');
    assert.equal(d.type, t.expected.type);
    assert.equal(d.value.id, t.expected.txID);
    if (t.expected.numCredentials) assert.equal(d.value.credentials.length, t.expected.numCredentials);
    reencodes(t.hex);
  }
});

test('P-chain and X-chain blocks, vertices and proposervm blocks', () => {
  const all = [...vectors('pchain-blocks.json').blocks, ...vectors('derived-blocks.json').vectors];
  for (const b of all) {
    const d = decode(b.hex);
    const e = b.expected;
    switch (b.kind) {
      case 'pchain.block':
        assert.equal(d.kind, 'pchain.block', b.description);
        assert.equal(d.type, e.type);
        assert.equal(d.value.id, e.id ?? e.blockID);
        if (e.height !== undefined) assert.equal(d.value.height, e.height);
        if (e.parentID) assert.equal(d.value.parentID, e.parentID);
        break;
      case 'xchain.block':
        assert.equal(d.kind, 'xchain.block');
        assert.equal(d.value.id, e.id);
        assert.deepEqual(d.value.txs.map((t) => t.id), e.txIDs);
        break;
      case 'xchain.vertex':
        assert.equal(d.kind, 'xchain.vertex');
        assert.equal(d.value.id, e.id);
        assert.equal(d.value.height, e.height);
        break;
      case 'proposervm.block':
        assert.equal(d.kind, 'proposervm.block');
        assert.equal(d.type, e.type);
        assert.equal(d.id, e.id);
        assert.equal(d.parentID, e.parentID);
        if (e.innerBlockID) assert.equal(d.inner.value.id, e.innerBlockID);
        break;
      default:
        assert.fail(`unexpected kind ${b.kind}`);
    }
    reencodes(b.hex);
  }
});

test('proposervm vectors: signed blocks, granite epochs, gibberish', () => {
  for (const b of vectors('proposervm.json').vectors) {
    if (b.expected.parseError) {
      const r = run([b.hex]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /at byte \d+/);
      continue;
    }
    const d = decode(b.hex);
    assert.equal(d.kind, 'proposervm.block');
    assert.equal(d.type, b.expected.type);
    assert.equal(d.id, b.expected.id);
    assert.equal(d.proposer, b.expected.proposer);
    assert.equal(d.inner.kind, 'raw'); // the inner block is the byte 0x03
    if (b.expected.epoch) assert.equal(d.epoch.pChainHeight, b.expected.epoch.pChainHeight);
    reencodes(b.hex);
  }
});

test('coreth blocks', () => {
  for (const b of vectors('cchain-blocks.json').vectors) {
    const d = decode('--chain', 'C', b.hex);
    assert.equal(d.kind, 'cchain.block');
    assert.equal(d.value.hash, b.decoded.hash);
    assert.equal(BigInt(d.value.number), BigInt(b.decoded.header.number));
    assert.deepEqual(d.value.transactions.map((t) => t.hash), b.decoded.txHashes);
    assert.deepEqual(d.atomicTxs, []);
    assert.equal(decode(b.hex).kind, 'cchain.block'); // found without --chain too
    reencodes(b.hex);
  }
});

test('warp messages, payloads, L1 messages, conversion data', () => {
  for (const w of vectors('warp.json').vectors) {
    const e = w.expected;
    if (w.kind === 'warp.signed_message') {
      const d = decode(w.hex);
      assert.equal(d.kind, 'warp.message');
      assert.equal(d.value.networkID, e.networkID);
      assert.equal(d.value.sourceChainID, e.sourceChainID);
      assert.equal(d.value.signature.signers, e.signers);
      assert.equal(d.value.decodedPayload.decodedPayload.type, e.innerType);
    } else if (w.kind === 'warp.l1_message') {
      const d = decode('--kind', 'warp.l1_message', w.hex);
      assert.equal(d.type, e.type);
      if (e.validationID) assert.equal(d.value.validationID, e.validationID);
      // without --kind: an L1 message, or (same bytes) a Hash payload
      assert.match(decode(w.hex).kind, /^warp\.(l1_message|payload)$/);
    } else if (w.kind === 'warp.conversion_data') {
      const d = decode(w.hex);
      assert.equal(d.kind, 'warp.conversion_data');
      assert.equal(d.value.conversionID, e.conversionID);
    }
    reencodes(w.hex);
  }
});

// ---- containers assembled here -------------------------------------------------

function rlp(x) {
  const head = (off, n) => {
    if (n < 56) return Buffer.from([off + n]);
    const len = Buffer.from(n.toString(16).padStart(n.toString(16).length + (n.toString(16).length % 2), '0'), 'hex');
    return Buffer.concat([Buffer.from([off + 55 + len.length]), len]);
  };
  if (Array.isArray(x)) {
    const p = Buffer.concat(x.map(rlp));
    return Buffer.concat([head(0xc0, p.length), p]);
  }
  if (x.length === 1 && x[0] < 0x80) return x;
  return Buffer.concat([head(0x80, x.length), x]);
}
const uint = (n) => (n === 0n ? Buffer.alloc(0) : Buffer.from(n.toString(16).padStart(Math.ceil(n.toString(16).length / 2) * 2, '0'), 'hex'));
const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
const u64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64BE(n); return b; };
const fill = (n, v) => Buffer.alloc(n, v);

// A pre-ApricotPhase5 extData: one signed atomic ImportTx (00 00 | tx).
function atomicImport() {
  return Buffer.concat([
    u32(0).subarray(2), u32(0), u32(1), fill(32, 0xcc), fill(32, 0x11),
    u32(1), fill(32, 0x77), u32(3), fill(32, 0xaa), u32(5), u64(1_000_000_000n), u32(1), u32(0),
    u32(1), fill(20, 0x8d), u64(999_000_000n), fill(32, 0xaa),
    u32(1), u32(9), u32(1), fill(64, 0x33), Buffer.from([1]),
  ]);
}

function corethBlock(time, ext) {
  const header = [fill(32, 1), fill(32, 2), fill(20, 3), fill(32, 4), fill(32, 5), fill(32, 6), fill(256, 0),
    uint(1n), uint(42n), uint(8_000_000n), uint(0n), uint(time), Buffer.alloc(0), fill(32, 0), fill(8, 0), fill(32, 9)];
  return rlp([header, [], [], uint(0n), ext]);
}

function proposervm(inner) {
  return Buffer.concat([Buffer.alloc(2), u32(0), fill(32, 0x5a), u64(1_700_000_000n), u64(123n), u32(0),
    u32(inner.length), inner, u32(0)]);
}

test('a coreth block with an atomic tx in its extData, bare and in proposervm', () => {
  const block = corethBlock(1_617_000_000n, atomicImport());
  const hex = block.toString('hex');
  const d = decode(hex);
  assert.equal(d.kind, 'cchain.block');
  assert.equal(d.value.number, '0x2a');
  assert.equal(d.atomicTxs.length, 1);
  assert.equal(d.atomicTxs[0].unsignedTx.outputs[0].amount, 999000000);
  assert.equal(d.atomicTxs[0].unsignedTx.importedInputs[0].input.amount, 1000000000);
  reencodes(hex);

  const wrapped = proposervm(block).toString('hex');
  const w = decode(wrapped);
  assert.equal(w.kind, 'proposervm.block');
  assert.equal(w.pChainHeight, 123);
  assert.equal(w.inner.kind, 'cchain.block');
  assert.equal(w.inner.value.hash, d.value.hash);
  assert.equal(w.inner.atomicTxs.length, 1);
  assert.equal(decode('--chain', 'C', wrapped).inner.kind, 'cchain.block');
  reencodes(wrapped);

  // extData that is not an atomic tx: the block still decodes, the error is said
  const odd = corethBlock(1_617_000_000n, Buffer.from('nonsense')).toString('hex');
  const o = decode('--chain', 'C', odd);
  assert.match(o.atomicTxsError, /at byte \d+ of extData/);
});

test('proposervm around an X-chain block', () => {
  const x = vectors('derived-blocks.json').vectors.find((v) => v.kind === 'xchain.block');
  const wrapped = proposervm(Buffer.from(x.hex, 'hex')).toString('hex');
  const d = decode('--chain', 'X', wrapped);
  assert.equal(d.inner.kind, 'xchain.block');
  assert.equal(d.inner.value.id, x.expected.id);
  reencodes(wrapped);
});

test('garbage: exit 1 and an error naming a byte offset', () => {
  const cases = [
    ['--chain', 'P', '0000000000ff'],
    ['--chain', 'X', '00000000000000000005'],
    ['--chain', 'C', 'f9ffff01'],
    ['deadbeefcafebabe0011223344'],
    ['0000'],
  ];
  for (const args of cases) {
    const r = run(args);
    assert.equal(r.status, 1, `${args.join(' ')}: ${r.stdout}`);
    assert.match(r.stderr, /^decode: not a valid [a-z._]+: .* at byte \d+\n$/, args.join(' '));
  }
  // a truncated real tx names the offset where it ran out
  const t = vectors('pchain-txs.json').signed_txs.find((v) => v.hex.length > 400);
  const r = run(['--chain', 'P', t.hex.slice(0, 300)]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /at byte \d+/);
  // usage errors are 2
  assert.equal(run(['--chain', 'Q', '00']).status, 2);
  assert.equal(run(['--kind', 'nope', '00']).status, 2);
  assert.equal(run(['zz']).status, 1);
});
