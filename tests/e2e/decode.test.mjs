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
import { utils } from '@avalabs/avalanchejs';
import { BIN, cb58, sha256 } from './lib.mjs';

const VECTORS = process.env.SNOWLINE_VECTORS || new URL('../vectors', import.meta.url).pathname;
const vectors = (f) => JSON.parse(readFileSync(`${VECTORS}/${f}`, 'utf8'));

function run(args) {
  return spawnSync(BIN, ['decode', ...args], { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 60000, killSignal: 'SIGKILL' });
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
    // the inner block is the byte 0x03: no block of any chain, and decode says so
    const r = run([b.hex]);
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stderr, /^snowline decode: the inner block of a proposervm\.block is not a valid [a-z]+\.block: .* at byte \d+ \(byte 0 of the inner block\)/);
    // the wrapper alone, by name
    const d = decode('--kind', 'proposervm.block', b.hex);
    assert.equal(d.kind, 'proposervm.block');
    assert.equal(d.type, b.expected.type);
    assert.equal(d.value.id, b.expected.id);
    assert.equal(d.value.proposer, b.expected.proposer);
    assert.equal(d.value.innerBlock, '0x03');
    if (b.expected.epoch) assert.equal(d.value.epoch.pChainHeight, b.expected.epoch.pChainHeight);
    reencodes(b.hex, '--kind', 'proposervm.block');
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

function proposervm(inner, cert = Buffer.alloc(0), sig = Buffer.alloc(0)) {
  return Buffer.concat([Buffer.alloc(2), u32(0), fill(32, 0x5a), u64(1_700_000_000n), u64(123n),
    u32(cert.length), cert, u32(inner.length), inner, u32(sig.length), sig]);
}

// The fields of a proposervm block (statelessBlock or Granite) that decode reports on.
function pvmFields(buf) {
  const type = buf.readUInt32BE(2);
  let o = 54;
  const cert = buf.subarray(o + 4, o + 4 + buf.readUInt32BE(o)); o += 4 + cert.length;
  const innerAt = o + 4;
  const inner = buf.subarray(innerAt, innerAt + buf.readUInt32BE(o)); o += 4 + inner.length;
  if (type === 2) o += 24;
  const sig = buf.subarray(o + 4, o + 4 + buf.readUInt32BE(o));
  return { cert, inner, innerAt, sig };
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
    // the failure, then (for more than 4 bytes) that the last 4 were no checksum either
    assert.match(r.stderr, /^snowline decode: not a valid [a-z._]+: .* at byte \d+\n(snowline decode: \(nor is it a container with a bad checksum: .*\)\n)?$/, args.join(' '));
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

// ---- regressions: decode used to hide these ---------------------------------------

const pContainer = () => Buffer.from(vectors('derived-blocks.json').vectors.find((v) => v.kind === 'proposervm.block' && v.expected.innerBlockID).hex, 'hex');
const failure = (args) => {
  const r = run(args);
  assert.equal(r.status, 1, `${args.join(' ').slice(0, 80)}: exit ${r.status}: ${r.stdout.slice(0, 200)}`);
  return r.stderr;
};
const INNER = /^snowline decode: the inner block of a proposervm\.block is not a valid ([a-z]+\.[a-z_]+): (.*) at byte (\d+) \(byte (\d+) of the inner block\)\n/;

test('a proposervm wrapper whose inner block does not decode is an error: which format, why, where', () => {
  const c = pContainer();
  const { innerAt } = pvmFields(c);
  // four bytes of the inner block set to ff: its tx count (after version, type, parent, height)
  const bad = Buffer.from(c);
  bad.fill(0xff, innerAt + 46, innerAt + 50);
  let m = failure([bad.toString('hex')]).match(INNER);
  assert.ok(m, 'names the inner block');
  assert.equal(m[1], 'pchain.block');
  assert.equal(Number(m[3]), innerAt + 46, 'offset in the whole input');
  assert.equal(Number(m[4]), 46, 'offset in the inner block');
  m = failure(['--chain', 'P', bad.toString('hex')]).match(INNER);
  assert.equal(m?.[1], 'pchain.block');
  // an intact P container read as an X-chain one
  m = failure(['--chain', 'X', c.toString('hex')]).match(INNER);
  assert.ok(m, 'names the inner block');
  assert.equal(m[1], 'xchain.block');
  assert.equal(Number(m[3]), innerAt + 2, 'the block type id');
  // and the intact container still decodes as P
  assert.equal(decode('--chain', 'P', c.toString('hex')).inner.kind, 'pchain.block');
});

test('--chain limits the formats tried: warp only without --chain, with --chain warp or --kind', () => {
  const c = pContainer();
  const truncated = c.subarray(0, 200).toString('hex');
  for (const chain of ['P', 'X', 'C']) {
    const e = failure(['--chain', chain, truncated]);
    assert.doesNotMatch(e, /warp/, `--chain ${chain}: ${e}`);
  }
  assert.match(failure(['--chain', 'P', truncated]), /^snowline decode: not a valid (proposervm\.block|pchain\.[a-z_]+): /);
  const msg = vectors('warp.json').vectors.find((v) => v.kind === 'warp.signed_message').hex;
  assert.match(failure(['--chain', 'P', msg]), /^snowline decode: not a valid pchain\./);
  assert.equal(decode('--chain', 'warp', msg).kind, 'warp.message');
  assert.equal(decode(msg).kind, 'warp.message');
  assert.equal(decode('--kind', 'warp.message', msg).kind, 'warp.message');
  assert.equal(run(['--chain', 'warp', c.toString('hex')]).status, 1);
});

test('the index API checksum: verified and dropped, or a mismatch said as such', () => {
  const c = pContainer();
  const sum = sha256(c).subarray(28);
  const plain = decode(c.toString('hex'));
  assert.deepEqual(decode('0x' + Buffer.concat([c, sum]).toString('hex')), plain);
  const wrong = Buffer.concat([c, Buffer.from(sum.map((b, i) => (i === 0 ? b ^ 1 : b)))]);
  for (const args of [[], ['--chain', 'P']]) {
    const e = failure([...args, wrong.toString('hex')]);
    assert.match(e, /^snowline decode: checksum mismatch: the input ends in [0-9a-f]{8}, but the index API checksum of the 449 bytes before it is [0-9a-f]{8} \(those bytes decode as proposervm\.block\)\n$/);
  }
  // a tx with a wrong checksum too (not "trailing bytes" of some other format)
  const tx = Buffer.from(vectors('pchain-txs.json').signed_txs.find((t) => t.expected.type === 'BaseTx').hex, 'hex');
  assert.match(failure([Buffer.concat([tx, Buffer.from('00000000', 'hex')]).toString('hex')]), /checksum mismatch.*decode as pchain\.tx/);
  // nothing decodes either way: the failure, and that the last 4 bytes were no checksum
  const e = failure([c.subarray(0, 300).toString('hex')]);
  assert.match(e, /^snowline decode: not a valid [a-z._]+: .* at byte \d+\nsnowline decode: \(nor is it a container with a bad checksum: /);
});

test('txs nested in blocks carry their Go type', () => {
  const pTypes = new Map(vectors('pchain-txs.json').signed_txs.map((t) => [t.expected.txID, t.expected.type]));
  const xTypes = new Map(vectors('xchain-txs.json').txs.map((t) => [t.expected.txID, t.expected.type]));
  let seen = 0;
  for (const b of vectors('derived-blocks.json').vectors) {
    if (!['pchain.block', 'xchain.block', 'xchain.vertex'].includes(b.kind)) continue;
    const v = decode(b.hex).value;
    for (const tx of [...(v.txs ?? []), ...(v.tx ? [v.tx] : [])]) {
      assert.equal(typeof tx.type, 'string', `${b.description}: tx ${tx.id} has no type`);
      const want = (b.kind === 'pchain.block' ? pTypes : xTypes).get(tx.id);
      if (want) assert.equal(tx.type, want, `${b.description}: tx ${tx.id}`);
      if (b.kind === 'pchain.block' && tx.unsignedTx.time !== undefined && !tx.unsignedTx.networkID) assert.equal(tx.type, 'AdvanceTimeTx');
      seen++;
    }
  }
  assert.ok(seen >= 8, `${seen} nested txs`);
  const blk = decode(corethBlock(1_617_000_000n, atomicImport()).toString('hex'));
  assert.equal(blk.atomicTxs[0].type, 'UnsignedImportTx');
});

test('a signed proposervm block shows the proposer, its certificate and its signature', () => {
  const signed = vectors('proposervm.json').vectors.find((v) => v.expected.proposer && v.expected.type === 'statelessBlock');
  const { cert, sig } = pvmFields(Buffer.from(signed.hex, 'hex'));
  assert.ok(cert.length > 100 && sig.length > 0);
  const inner = Buffer.from(vectors('derived-blocks.json').vectors.find((v) => v.expected.type === 'ApricotStandardBlock').hex, 'hex');
  const hex = proposervm(inner, cert, sig).toString('hex');
  const d = decode('--chain', 'P', hex);
  assert.equal(d.proposer, signed.expected.proposer);
  assert.equal(d.certificate, '0x' + cert.toString('hex'));
  assert.equal(d.signature, '0x' + sig.toString('hex'));
  assert.equal(d.inner.type, 'ApricotStandardBlock');
  reencodes(hex);
  const unsigned = decode(pContainer().toString('hex'));
  assert.equal(unsigned.proposer, null);
  assert.equal(unsigned.certificate, '0x');
  assert.equal(unsigned.signature, '0x');
});

test('ConvertSubnetToL1Tx: the validation id each validator gets', () => {
  let n = 0;
  for (const t of [...vectors('pchain-txs.json').signed_txs, ...vectors('pchain-txs.json').unsigned_txs]) {
    if (t.expected.type !== 'ConvertSubnetToL1Tx') continue;
    const u = decode(t.hex).value.unsignedTx;
    const subnet = Buffer.from(utils.base58check.decode(u.subnetID));
    u.validators.forEach((v, i) => {
      n++;
      const id = sha256(Buffer.concat([subnet, u32(i)]));
      assert.equal(v.validationID, cb58(id), `validator ${i}`);
      assert.equal(v.validationIDHex, '0x' + id.toString('hex'), `validator ${i}`);
    });
  }
  assert.ok(n >= 2, `${n} validators`);
});

// Every "addresses" array anywhere in a decoded value.
function addressesIn(x, out = []) {
  if (Array.isArray(x)) x.forEach((y) => addressesIn(y, out));
  else if (x && typeof x === 'object') {
    for (const [k, v] of Object.entries(x)) {
      if (k === 'addresses' && Array.isArray(v)) out.push(...v);
      else addressesIn(v, out);
    }
  }
  return out;
}

test('owner addresses: one form everywhere, "<chain>-<hrp>1…" with the network\'s HRP', () => {
  const v = vectors('pchain-txs.json');
  let n = 0;
  for (const t of [...v.signed_txs, ...v.unsigned_txs]) {
    const d = decode('--chain', 'P', t.hex);
    const hrp = { 1: 'avax', 5: 'fuji', 10: 'testing', 12345: 'local' }[d.value.unsignedTx.networkID] ?? 'custom';
    for (const a of addressesIn(d.value)) {
      assert.match(a, new RegExp(`^P-${hrp}1[02-9ac-hj-np-z]{38}$`), `${t.description}: ${a}`);
      n++;
    }
    for (const a of addressesIn(decode('--chain', 'P', '--network-id', '5', t.hex).value)) assert.match(a, /^P-fuji1/);
  }
  assert.ok(n > 40, `${n} addresses`);
  const reg = vectors('warp.json').vectors.find((w) => w.expected.type === 'RegisterL1Validator').hex;
  for (const a of addressesIn(decode('--kind', 'warp.l1_message', '--network-id', '5', reg).value)) assert.match(a, /^P-fuji1/);
  for (const a of addressesIn(decode('--kind', 'warp.l1_message', reg).value)) assert.match(a, /^P-avax1/);
});

test('C-chain extData: the layout of the block\'s time on mainnet and Fuji, either elsewhere', () => {
  // one pre-ApricotPhase5 tx (no batch count) in a block dated after mainnet's and Fuji's ApricotPhase5
  const late = corethBlock(1_700_000_000n, atomicImport()).toString('hex');
  for (const net of ['1', '5']) assert.match(decode('--network-id', net, late).atomicTxsError, /at byte \d+ of extData/, `network ${net}`);
  for (const args of [[], ['--network-id', '12345']]) assert.equal(decode(...args, late).atomicTxs.length, 1, args.join(' '));
  // the same tx in a block before ApricotPhase5 is right on mainnet
  assert.equal(decode('--network-id', '1', corethBlock(1_617_000_000n, atomicImport()).toString('hex')).atomicTxs.length, 1);
});

test('command line: --help, and a bad argument named with the reason (exit 2)', () => {
  const h = run(['--help']);
  assert.equal(h.status, 0);
  assert.match(h.stdout, /^usage: snowline decode /);
  assert.match(h.stdout, /--network-id/);
  const bad = [
    [['--chian', 'P', '00'], /unknown option '--chian'/],
    [['--chain'], /option '--chain' needs a value/],
    [['--chain', 'Q', '00'], /--chain: 'Q' is not a chain/],
    [['--chain=Q', '00'], /--chain: 'Q' is not a chain/],
    [['--network-id', 'abc', '00'], /--network-id: 'abc' is not a network id/],
    [['--network-id', '-1', '00'], /--network-id: '-1' is not a network id/],
    [['--kind', 'nope', '00'], /--kind: 'nope' is not a format/],
    [['--reencode=yes', '00'], /option '--reencode' takes no value/],
    [['00', '11'], /more than one input: '00' and '11'/],
    [[], /no input/],
  ];
  for (const [args, re] of bad) {
    const r = run(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, new RegExp('^snowline decode: ' + re.source), args.join(' '));
  }
  const tx = vectors('pchain-txs.json').signed_txs[2];
  assert.equal(decode('--chain=P', '--network-id=5', tx.hex).value.id, tx.expected.txID);
  assert.equal(decode(tx.hex, '--chain', 'P').value.id, tx.expected.txID); // options after the input too
});
