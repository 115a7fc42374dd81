// Signature aggregation against the devnet's own validators, asked over avalanchego's p2p protocol
// (docs/sigagg.md, docs/p2p.md): `snowline devnet --devnet-p2p-port` serves every node with its own
// staking certificate and BLS key, info.peers lists them, `snowline api --peers-from` asks them.
//
// A third of the primary network's asked validators, by count (the keyed validators of the last
// height that info.peers lists, rounded up), misbehave: the lightest ones, in turn absent, signing
// other bytes, never answering, and answering only after the aggregator's deadline. One more is
// slow but within the deadline. Quorum (67%) stays reachable: the misbehaving third holds little
// of the weight, and the suite checks it. Every signed message is checked here with @noble/curves,
// independently of the C: the canonical set made from the devnet manifest's validator set of the
// signing subnet at the height (keyless members in the total only, shared keys merged, order by
// uncompressed key), the signers' weight against the quorum (plus the buffer, when reachable), and
// one BLS verify of their aggregate key over the unsigned bytes with the signature DST.
//
// The devnet runs with --devnet-genesis-signers: its genesis validators, which hold most of the
// primary network's stake, are AddPermissionlessValidatorTx stakers with their node's BLS key (as
// avalanchego's local genesis has signers), so 67% of the primary network is reachable. The seed
// is chosen so that the history ends with a permissioned subnet that has a chain and validators,
// besides L1s. The quorums asked are chosen from the manifest, one just reachable, one just not —
// the failure must then say exactly the honest weight. A past pChainHeight is verified against
// that height's set, which differs from the last one. Messages from a permissioned subnet's chain
// and from an L1's chain are signed by that subnet's validators (the default signing subnet) and
// by no one else. The P-chain's own L1 messages (GET by txHash, quorum 67) must each come back
// signed, verified here against the manifest's set, with the id of the message built here for the
// conversion (from the tx read with avalanchejs), the weight, registration and removal kinds. The
// genesis file's signers are checked too: each proof of possession verifies for its key
// (avalanchego's PoP DST).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { createServer } from 'node:net';
import { bls12_381 as bls } from '@noble/curves/bls12-381';
import { avaxSerial, utils } from '@avalabs/avalanchejs';
import { cb58 } from './lib.mjs';
import { makeDataset, startApi, checkErrorBody, sdkClient, strict, C } from './dataapi-schema-lib.mjs';

const BACKEND = process.env.SNOWLINE_SIGAGG_BACKEND ?? 'sqlite';
const SEED = 'sigagg'; // ends with a permissioned subnet that has a chain and current validators
const TIMEOUT_MS = 3000; // the aggregator's deadline (--sigagg-timeout-ms)
const DST = 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_';
const PRIMARY = '11111111111111111111111111111111LpoYY';
const PATH = '/v1/signatureAggregator/fuji/aggregateSignatures';
const sha256 = (b) => createHash('sha256').update(b).digest();
const big = (x) => BigInt(String(x));
const byWeight = (a, b) => (big(a.weight) < big(b.weight) ? -1 : big(a.weight) > big(b.weight) ? 1 : a.nodeId < b.nodeId ? -1 : 1);

let ds, api, apiUp, m, height, set, honestWeight, roles, listed, nasked;

// A base port whose even ports base..base+2(n-1) nobody listens on now.
async function freeRange(n) {
  for (;;) {
    const base = 20000 + 2 * randomInt(0, 10000);
    const ok = await Promise.all(Array.from({ length: n }, (_, i) => new Promise((res) => {
      const s = createServer();
      s.once('error', () => res(false));
      s.listen(base + 2 * i, '127.0.0.1', () => s.close(() => res(true)));
    })));
    if (ok.every(Boolean)) return base;
  }
}

// The manifest's validator set of a subnet at a height (the last one it states when none is given).
function setOf(manifest, subnetId, h) {
  const vs = manifest.P.validatorSets.filter((s) => s.subnetId === subnetId);
  if (h === undefined) return vs.reduce((a, b) => (big(b.height) > big(a.height) ? b : a));
  return vs.find((s) => Number(s.height) === Number(h));
}

// Which validators misbehave: a third (rounded up) of those asked on the primary network — the
// keyed validators of the last height that info.peers lists — by count, the lightest first, in
// turn absent, lying, silent and late (past the deadline); the next one is slow within it.
function choosePolicies(manifest) {
  const last = setOf(manifest, PRIMARY);
  const listed = new Set(manifest.peers.map((p) => p.nodeID ?? p.nodeId));
  const idx = new Map(manifest.nodes.map((n) => [n.nodeId, Number(n.index)]));
  const asked = last.validators.filter((v) => v.publicKey && listed.has(v.nodeId) && idx.has(v.nodeId)).sort(byWeight);
  const nbad = Math.ceil(asked.length / 3);
  assert.ok(nbad >= 1 && asked.length > nbad, `${asked.length} asked validators`);
  const bad = ['absent', 'wrong', 'silent', 'late'];
  const roles = new Map();
  asked.forEach((v, i) => roles.set(v.nodeId, i < nbad ? bad[i % bad.length] : i === nbad ? 'slow' : 'honest'));
  const policy = { absent: 'absent', wrong: 'wrong', silent: 'silent', late: `slow:${TIMEOUT_MS + 2000}`, slow: 'slow:500' };
  return { roles, nasked: asked.length, policy: [...roles].filter(([, r]) => r !== 'honest').map(([n, r]) => `${idx.get(n)}=${policy[r]}`).join(',') };
}

// A member of a set signs when it has a key, info.peers lists it and it is honest (or slow within
// the deadline): how much of the set's weight can sign.
const canSign = (v) => v.publicKey && listed.has(v.nodeId) && ['honest', 'slow', undefined].includes(roles.get(v.nodeId));
const honestOf = (vs) => vs.validators.filter(canSign).reduce((a, v) => a + big(v.weight), 0n);

before(async () => {
  // the devnet's manifest (and so the nodes) follow from the seed: a first look picks the policies
  const probe = await makeDataset({ txs: 5000, seed: SEED, backend: 'sqlite', devnetArgs: ['--devnet-genesis-signers'] });
  let p;
  try { p = choosePolicies(probe.manifest); } finally { await probe.close(); } // its devnet stopped even when that fails
  roles = p.roles;
  nasked = p.nasked;
  // the validators listen while the devnet runs: with no live steps its producer ends, and with it
  // the listeners, so an hour between steps keeps them up without changing the history. Node i
  // listens on base + 2i: a base whose whole range is free now (others may take a port meanwhile:
  // then another base)
  const nodes = probe.manifest.nodes.length;
  for (let attempt = 0; !ds; attempt++) {
    const base = await freeRange(nodes);
    try {
      ds = await makeDataset({ txs: 5000, seed: SEED, backend: BACKEND, intervalMs: 3600000, devnetArgs: ['--devnet-genesis-signers', '--devnet-p2p-port', String(base), '--devnet-p2p-policy', p.policy], readyTimeoutMs: 30000 });
    } catch (e) {
      if (attempt === 2 || !/cannot listen|p2p listeners|not ready/.test(String(e.message))) throw e;
    }
  }
  m = ds.manifest;
  listed = new Set(m.peers.map((x) => x.nodeID));
  const last = setOf(m, PRIMARY);
  height = Number(last.height);
  set = canonical(last.validators);
  // roles are by node, so they hold for the sets of subnets (and other heights) too; a validator
  // the policies name no role for (an L1's) is honest
  honestWeight = honestOf(last);
  assert.ok(honestWeight > 0n, 'some keyed validator is honest');
  const args = ['--rate-anonymous', '0', '--peers-from', ds.devnet.url, '--sigagg-timeout-ms', String(TIMEOUT_MS), '--http-threads', '4'];
  api = await startApi(ds.store, args);
  apiUp = await startApi(ds.store, [...args, '--compat', 'upstream']);
});

after(async () => {
  for (const a of [api, apiUp]) if (a) await a.stop();
  if (ds) await ds.close();
});

// avalanchego's canonical warp set from a manifest set: { list: [{pk (point), raw, weight}], total }
function canonical(validators) {
  let total = 0n;
  const byKey = new Map();
  for (const v of validators) {
    total += big(v.weight);
    if (!v.publicKey) continue;
    const pt = bls.G1.ProjectivePoint.fromHex(v.publicKey.replace(/^0x/, ''));
    const raw = Buffer.from(pt.toRawBytes(false));
    const k = raw.toString('hex');
    const e = byKey.get(k) ?? { pk: pt, raw, weight: 0n };
    e.weight += big(v.weight);
    byKey.set(k, e);
  }
  const list = [...byKey.values()].sort((a, b) => Buffer.compare(a.raw, b.raw));
  return { list, total };
}

function parseSigned(hex) {
  const b = Buffer.from(hex, 'hex');
  assert.equal(b.readUInt16BE(0), 0);
  const plen = b.readUInt32BE(38);
  const ulen = 42 + plen;
  const unsigned = b.subarray(0, ulen);
  assert.equal(b.readUInt32BE(ulen), 0, 'BitSetSignature');
  const slen = b.readUInt32BE(ulen + 4);
  const signers = b.subarray(ulen + 8, ulen + 8 + slen);
  const sig = b.subarray(ulen + 8 + slen);
  assert.equal(sig.length, 96);
  assert.ok(slen > 0 && signers[0] !== 0, 'a minimal bit set');
  return { unsigned, signers, sig };
}

// Verify a signed message against a canonical set (the last primary set unless given) at the
// quorum; resolves the signers' weight.
function verifySigned(hex, quorum, wantUnsigned, against = set) {
  const { unsigned, signers, sig } = parseSigned(hex);
  if (wantUnsigned) assert.deepEqual(unsigned, wantUnsigned);
  const bits = BigInt('0x' + signers.toString('hex'));
  assert.ok(bits >> BigInt(against.list.length) === 0n, 'no signer past the set');
  let w = 0n, agg = null;
  against.list.forEach((e, i) => {
    if ((bits >> BigInt(i)) & 1n) {
      w += e.weight;
      agg = agg ? agg.add(e.pk) : e.pk;
    }
  });
  assert.ok(agg, 'signers');
  assert.ok(w * 100n >= against.total * BigInt(quorum), `weight ${w} of ${against.total} reaches ${quorum}%`);
  assert.ok(bls.verify(sig, unsigned, agg, { DST }), 'the aggregate signature verifies');
  return w;
}

// An unsigned warp message of this network (fuji) from the P-chain (all zero) or another chain.
function warp(payload, chain) {
  const b = Buffer.alloc(42 + payload.length);
  b.writeUInt32BE(5, 2);
  if (chain) chain.copy(b, 6);
  b.writeUInt32BE(payload.length, 38);
  payload.copy(b, 42);
  return b;
}
const addressedCall = (inner) => {
  const b = Buffer.alloc(14 + inner.length);
  b.writeUInt32BE(1, 2);
  b.writeUInt32BE(0, 6);
  b.writeUInt32BE(inner.length, 10);
  inner.copy(b, 14);
  return b;
};
function registration(vid, registered) {
  const b = Buffer.alloc(2 + 4 + 32 + 1);
  b.writeUInt32BE(2, 2);
  vid.copy(b, 6);
  b[38] = registered ? 1 : 0;
  return b;
}

// SubnetToL1Conversion(conversionID) for a ConvertSubnetToL1Tx's stored bytes (00 00 | signed tx),
// read with avalanchejs: conversionID = sha256 of SubnetToL1ConversionData (avalanchego's layout:
// a u32 count before the validators, no byte length; docs/codec-warp.md).
function conversionMessage(txBytes) {
  const codec = utils.getManagerForVM('PVM').getDefaultCodec();
  const [signed] = avaxSerial.SignedTx.fromBytes(new Uint8Array(txBytes.subarray(2)), codec);
  const u = signed.unsignedTx;
  const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
  const u64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; };
  const bytes = (b) => Buffer.concat([u32(b.length), Buffer.from(b)]);
  const parts = [Buffer.alloc(2), Buffer.from(u.subnetID.toBytes()), Buffer.from(u.chainID.toBytes()), bytes(u.address.bytes), u32(u.validators.length)];
  for (const v of u.validators) parts.push(bytes(v.nodeId.bytes), Buffer.from(v.signer.publicKey), u64(v.getWeight()));
  const l1 = Buffer.concat([Buffer.alloc(2), u32(0), sha256(Buffer.concat(parts))]);
  return warp(addressedCall(l1));
}

// The L1 message inside a SetL1ValidatorWeightTx's signed warp message (read with avalanchejs):
// unsigned (00 00 | network | chain | payload bytes) → AddressedCall (00 00 | 1 | source address
// bytes | payload bytes) → the L1ValidatorWeight message.
function weightMessageOf(txBytes) {
  const codec = utils.getManagerForVM('PVM').getDefaultCodec();
  const [signed] = avaxSerial.SignedTx.fromBytes(new Uint8Array(txBytes.subarray(2)), codec);
  const w = Buffer.from(signed.unsignedTx.message.bytes);
  const payload = w.subarray(42, 42 + w.readUInt32BE(38));
  const src = payload.readUInt32BE(6);
  const inner = payload.subarray(14 + src, 14 + src + payload.readUInt32BE(10 + src));
  assert.equal(inner.readUInt32BE(2), 3, 'an L1ValidatorWeight message');
  return inner;
}

async function post(a, body) {
  const r = await fetch(a.url + PATH, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, text: await r.text() };
}

// A Hash payload from a chain: the devnet's C-chain unless another chain id (cb58) is given. Its
// validators sign any message of an X- or C-chain (a P-chain message only when it is one of the
// P-chain's L1 messages, true to its state), and of a subnet's chain when they validate that subnet.
const anyMessage = (chainId = m.chains.C.id) =>
  warp(Buffer.concat([Buffer.from('000000000000', 'hex'), randomBytes(32)]), Buffer.from(utils.base58check.decode(chainId)));

const maxQuorum = () => Number((honestWeight * 100n) / set.total);

test('a third of the asked validators misbehave, quorum still reachable: signed by the honest ones, verified with @noble/curves; liars left out', async () => {
  const bad = [...roles.values()].filter((r) => !['honest', 'slow'].includes(r)).length;
  assert.ok(bad * 3 >= nasked, `${bad} of ${nasked} asked validators misbehave`);
  assert.ok(honestWeight * 100n >= set.total * 67n, `the honest weight ${honestWeight} of ${set.total} reaches 67%`);
  const q = maxQuorum();
  const msg = anyMessage();
  const t0 = Date.now();
  const r = await post(api, { message: msg.toString('hex'), quorumPercentage: q, pChainHeight: height });
  assert.equal(r.status, 200, r.text);
  const w = verifySigned(JSON.parse(r.text).signedMessage, q, msg);
  assert.ok(w <= honestWeight);
  // with 0x, the default height (the same: the devnet has stopped), and a buffer up to the reachable
  const r2 = await post(api, { message: '0x' + msg.toString('hex'), quorumPercentage: q - 1, quorumPercentageBuffer: 1 });
  assert.equal(r2.status, 200, r2.text);
  verifySigned(JSON.parse(r2.text).signedMessage, q, msg);
  assert.ok(Date.now() - t0 < 20000);
});

test('the buffer: quorum q with buffer b reaches q + b when that is reachable, and quorum alone when not', async () => {
  const top = maxQuorum();
  const q = Math.max(1, top - 20);
  assert.ok(q + 10 <= top, `room for a buffer below the reachable ${top}%`);
  for (const b of [10, top - q]) {
    const msg = anyMessage();
    const r = await post(api, { message: msg.toString('hex'), quorumPercentage: q, quorumPercentageBuffer: b });
    assert.equal(r.status, 200, r.text);
    verifySigned(JSON.parse(r.text).signedMessage, q + b, msg);
  }
  // past the reachable: still signed at the quorum, by every honest validator (it waited for them all)
  const b = 100 - q;
  assert.ok(q + b > top);
  const msg = anyMessage();
  const r = await post(api, { message: msg.toString('hex'), quorumPercentage: q, quorumPercentageBuffer: b });
  assert.equal(r.status, 200, r.text);
  assert.equal(verifySigned(JSON.parse(r.text).signedMessage, q, msg), honestWeight);
});

test('one percent past it: 503 naming exactly the honest weight', async () => {
  const q = maxQuorum() + 1;
  const msg = anyMessage();
  const r = await post(api, { message: msg.toString('hex'), quorumPercentage: q });
  assert.equal(r.status, 503, r.text);
  const b = checkErrorBody(503, r.text);
  const mm = /quorum not reached: validators of weight (\d+) of (\d+) signed .*; (\d+)% needs (\d+) \(message (\w+)\)/.exec(b.message);
  assert.ok(mm, b.message);
  assert.equal(BigInt(mm[1]), honestWeight, b.message);
  assert.equal(BigInt(mm[2]), set.total);
  assert.equal(mm[5], cb58(sha256(msg)));
});

test('compat upstream: 201 and a strict SignatureAggregationResponse through chainkit, POST and GET', async () => {
  const q = maxQuorum();
  const msg = anyMessage();
  const c = sdkClient(apiUp.url);
  const res = await c.sdk.data.signatureAggregator.aggregate({ network: 'fuji', signatureAggregatorRequest: { message: msg.toString('hex'), quorumPercentage: q } }, c.opts);
  const ex = c.exchanges.at(-1);
  assert.equal(ex.status, 201, ex.text);
  const parsed = strict(C.SignatureAggregationResponse$inboundSchema).safeParse(JSON.parse(ex.text));
  assert.ok(parsed.success, ex.text);
  verifySigned(res.signedMessage, q, msg);
  // GET by txHash through chainkit's own method: a conversion's message, signed at 67%
  const id = sql(`SELECT ${hexCol('id')} FROM txs WHERE chain = 0 AND type = 35 LIMIT 1`);
  assert.ok(id, 'the devnet made a ConvertSubnetToL1Tx');
  const txHash = cb58(Buffer.from(id, 'hex'));
  const got = await c.sdk.data.signatureAggregator.get({ network: 'fuji', txHash }, c.opts);
  const gx = c.exchanges.at(-1);
  assert.equal(gx.method, 'GET');
  assert.ok(gx.url.endsWith(`${PATH}/${txHash}`), gx.url);
  assert.equal(gx.status, 201, gx.text);
  const gp = strict(C.SignatureAggregationResponse$inboundSchema).safeParse(JSON.parse(gx.text));
  assert.ok(gp.success, gx.text);
  verifySigned(got.signedMessage, 67);
  // the spec's status on the other server
  const r = await post(api, { message: msg.toString('hex'), quorumPercentage: q });
  assert.equal(r.status, 200);
  assert.equal((await fetch(`${api.url}${PATH}/${txHash}`)).status, 200);
});

test('a past pChainHeight: signed by that height\'s set, which differs from the last one', async () => {
  // the past height whose keyed members differ most from the last set's, where 67% can sign
  const lastKeys = new Set(set.list.map((e) => e.raw.toString('hex')));
  const past = m.P.validatorSets.filter((s) => s.subnetId === PRIMARY && Number(s.height) > 0 && Number(s.height) < height)
    .map((s) => {
      const c = canonical(s.validators);
      const keys = new Set(c.list.map((e) => e.raw.toString('hex')));
      const diff = [...keys].filter((k) => !lastKeys.has(k)).length + [...lastKeys].filter((k) => !keys.has(k)).length;
      return { s, c, diff, ok: honestOf(s) * 100n >= c.total * 67n };
    })
    .filter((x) => x.ok && x.diff > 0)
    .sort((a, b) => b.diff - a.diff);
  assert.ok(past.length > 0, 'a past height with another set');
  const { s, c, diff } = past[0];
  const msg = anyMessage();
  const r = await post(api, { message: msg.toString('hex'), pChainHeight: Number(s.height) });
  assert.equal(r.status, 200, r.text);
  const signed = JSON.parse(r.text).signedMessage;
  const w = verifySigned(signed, 67, msg, c);
  assert.ok(w <= honestOf(s), `height ${s.height} (${diff} keys differ): ${w}`);
  // the same bit set read against the last set would not verify
  assert.throws(() => verifySigned(signed, 67, msg, set));
});

// The subnets whose sets at the last height can reach 67% with their honest validators, of a kind:
// permissioned ones (isL1 false) or L1s, each with a chain; the one with the most members first.
function subnetsOf(l1) {
  return m.P.subnets.filter((sn) => sn.isL1 === l1 && sn.chains.length > 0)
    .map((sn) => ({ sn, vs: setOf(m, sn.subnetId, height) }))
    .filter(({ vs }) => vs && honestOf(vs) * 100n >= canonical(vs.validators).total * 67n)
    .sort((a, b) => b.vs.validators.length - a.vs.validators.length);
}

for (const [kind, l1] of [['a permissioned subnet', false], ['an L1', true]]) {
  test(`a message from ${kind}'s chain: signed by that subnet's validators (the default signing subnet), by no one else`, async () => {
    const found = subnetsOf(l1);
    assert.ok(found.length > 0, `${kind} with a chain and validators that can sign 67%`);
    const { sn, vs } = found[0];
    const c = canonical(vs.validators);
    for (const chain of sn.chains) {
      const msg = anyMessage(chain.chainId);
      const r = await post(api, { message: msg.toString('hex') }); // quorum 67, the last height
      assert.equal(r.status, 200, `${sn.subnetId} chain ${chain.chainId}: ${r.text}`);
      const w = verifySigned(JSON.parse(r.text).signedMessage, 67, msg, c);
      assert.ok(w <= honestOf(vs));
    }
    // the same message signed by the primary network: only those of its validators that validate
    // this subnet sign (the nodes that run its chains), so the weight that signed is exactly theirs
    const members = new Set(vs.validators.map((v) => v.nodeId));
    const want = setOf(m, PRIMARY).validators.filter((v) => members.has(v.nodeId) && canSign(v)).reduce((a, v) => a + big(v.weight), 0n);
    const msg = anyMessage(sn.chains[0].chainId);
    const r = await post(api, { message: msg.toString('hex'), signingSubnetId: PRIMARY, quorumPercentage: 67 });
    assert.equal(r.status, 503, r.text);
    const mm = /quorum not reached: validators of weight (\d+) of (\d+) signed/.exec(checkErrorBody(503, r.text).message);
    assert.ok(mm, r.text);
    assert.equal(BigInt(mm[1]), want, r.text);
    assert.equal(BigInt(mm[2]), set.total);
    if (!l1) assert.ok(want > 0n, 'a permissioned validator is a primary validator');
  });
}

function sql(q) {
  return ds.store.startsWith('postgres')
    ? execFileSync('psql', [ds.store, '-qAtc', q], { encoding: 'utf8' }).trim()
    : execFileSync('sqlite3', ['-readonly', ds.store, q], { encoding: 'utf8' }).trim();
}
const blob = (hex) => (ds.store.startsWith('postgres') ? `decode('${hex}', 'hex')` : `x'${hex}'`);
const hexCol = (col) => (ds.store.startsWith('postgres') ? `encode(${col}, 'hex')` : `lower(hex(${col}))`);

test('GET by txHash: each L1 tx kind builds its message, signed by 67% of the primary network', async () => {
  const kinds = { 35: 'ConvertSubnetToL1Tx', 36: 'RegisterL1ValidatorTx', 37: 'SetL1ValidatorWeightTx' };
  for (const [type, name] of Object.entries(kinds)) {
    const ids = sql(`SELECT ${hexCol('id')} FROM txs WHERE chain = 0 AND type = ${type} LIMIT 3`).split('\n').filter(Boolean);
    assert.ok(ids.length > 0, `the devnet made a ${name}`);
    for (const id of ids) {
      const r = await fetch(`${api.url}${PATH}/${cb58(Buffer.from(id, 'hex'))}`);
      const text = await r.text();
      assert.equal(r.status, 200, `${name}: ${text}`);
      const signed = JSON.parse(text).signedMessage;
      const w = verifySigned(signed, 67);
      assert.ok(w * 100n >= set.total * 67n && w <= honestWeight, `${name}: ${w} of ${set.total}`);
      const mm = [null, null, null, cb58(sha256(parseSigned(signed).unsigned))];
      // a conversion: SubnetToL1Conversion(the conversion id made here from the tx)
      if (type === '35') {
        const bytes = Buffer.from(sql(`SELECT ${hexCol('bytes')} FROM txs WHERE chain = 0 AND id = ${blob(id)}`), 'hex');
        assert.equal(mm[3], cb58(sha256(conversionMessage(bytes))), `${name}: the conversion message`);
      }
      // a weight: L1ValidatorWeight(validationID, the last weight change's nonce and weight) — the
      // P-chain signs only the weight of now — or, once removed, L1ValidatorRegistration(…, false)
      if (type === '37') {
        const inner = weightMessageOf(Buffer.from(sql(`SELECT ${hexCol('bytes')} FROM txs WHERE chain = 0 AND id = ${blob(id)}`), 'hex'));
        const vid = inner.subarray(6, 38);
        const [wt, minNonce, gone] = sql(`SELECT ${hexCol('weight')}, min_nonce, removed_tx IS NOT NULL FROM l1_validators WHERE vid = ${blob(vid.toString('hex'))}`).split('|');
        let want;
        if (gone === '1' || gone === 't') want = warp(addressedCall(registration(vid, false)));
        else {
          const now = Buffer.alloc(2 + 4 + 32 + 16);
          now.writeUInt32BE(3, 2);
          vid.copy(now, 6);
          now.writeBigUInt64BE(BigInt(minNonce) - 1n, 38);
          now.writeBigUInt64BE(BigInt('0x' + wt), 46);
          if (BigInt(minNonce) - 1n === inner.readBigUInt64BE(38)) assert.deepEqual(now, inner, `${name}: the last weight tx's own message`);
          want = warp(addressedCall(now));
        }
        assert.equal(mm[3], cb58(sha256(want)), `${name}: the weight message`);
      }
      // a registration: L1ValidatorRegistration(validationID, registered now)
      if (type === '36') {
        const row = sql(`SELECT ${hexCol('vid')}, removed_tx IS NULL FROM l1_validators WHERE tx = ${blob(id)}`);
        const [vid, live] = row.split('|');
        const want = warp(addressedCall(registration(Buffer.from(vid, 'hex'), live === '1' || live === 't')));
        assert.equal(mm[3], cb58(sha256(want)), `${name}: the registration message`);
      }
    }
  }
  // the removals (weight 0): L1ValidatorRegistration(validationID, false)
  const removed = sql(`SELECT ${hexCol('removed_tx')}, ${hexCol('vid')} FROM l1_validators WHERE removed_tx IS NOT NULL LIMIT 3`).split('\n').filter(Boolean);
  assert.ok(removed.length > 0, 'the devnet removed an L1 validator');
  for (const line of removed) {
    const [tx, vid] = line.split('|');
    const r = await fetch(`${api.url}${PATH}/${cb58(Buffer.from(tx, 'hex'))}`);
    const text = await r.text();
    assert.equal(r.status, 200, `a removal: ${text}`);
    const want = warp(addressedCall(registration(Buffer.from(vid, 'hex'), false)));
    verifySigned(JSON.parse(text).signedMessage, 67, want);
  }
});

test('POST on the primary network reaches 67%', async () => {
  const msg = anyMessage();
  const r = await post(api, { message: msg.toString('hex'), quorumPercentage: 67, pChainHeight: height });
  assert.equal(r.status, 200, r.text);
  verifySigned(JSON.parse(r.text).signedMessage, 67, msg);
});

test('genesis signers: AddPermissionlessValidatorTx stakers whose proof of possession verifies, keyed at height 0', async () => {
  const { readFileSync } = await import('node:fs');
  const g = JSON.parse(readFileSync(ds.genesis, 'utf8'));
  const POP_DST = 'BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_';
  assert.ok(g.stakers.length > 0);
  const v0 = m.P.validatorSets.find((s) => s.subnetId === PRIMARY && Number(s.height) === 0);
  assert.ok(v0, 'the manifest states the primary set at height 0');
  const keyAt0 = new Map(v0.validators.map((v) => [v.nodeId, v.publicKey]));
  const byTx = new Map(m.P.genesis.validators.map((v) => [v.txId, v]));
  const rows = new Map(sql(`SELECT ${hexCol('tx')}, type, ${hexCol('bls_key')}, ${hexCol('bls_pop')}, rewards_owner = delegation_owner FROM stakers WHERE seq = 0`)
    .split('\n').filter(Boolean).map((l) => l.split('|')).map(([tx, ...rest]) => [cb58(Buffer.from(tx, 'hex')), rest]));
  for (const s of g.stakers) {
    assert.ok(s.signer, `${s.nodeId} has a signer`);
    const pk = Buffer.from(s.signer.publicKey.replace(/^0x/, ''), 'hex');
    const pop = Buffer.from(s.signer.proofOfPossession.replace(/^0x/, ''), 'hex');
    assert.equal(pk.length, 48);
    assert.equal(pop.length, 96);
    assert.ok(bls.verify(pop, pk, pk, { DST: POP_DST }), `${s.nodeId}: the proof of possession verifies`);
    assert.equal(keyAt0.get(s.nodeId), s.signer.publicKey, `${s.nodeId}: its key in the set at height 0`);
    // the tx: avalanchejs reads an AddPermissionlessValidatorTx of the primary network with this
    // signer, no credentials, and its id is the bytes' sha256
    const txb = Buffer.from(s.tx.replace(/^0x/, ''), 'hex');
    assert.equal(cb58(sha256(txb)), s.txId, 'txId = sha256(tx bytes)');
    const codec = utils.getManagerForVM('PVM').getDefaultCodec();
    const [signed, rest] = avaxSerial.SignedTx.fromBytes(new Uint8Array(txb.subarray(2)), codec);
    assert.equal(rest.length, 0);
    const u = signed.unsignedTx;
    assert.equal(u._type, 'pvm.AddPermissionlessValidator'); // avalanchejs's type symbol for it
    assert.equal(signed.credentials.length, 0);
    assert.equal('0x' + Buffer.from(u.signer.proof.publicKey).toString('hex'), s.signer.publicKey);
    assert.equal('0x' + Buffer.from(u.signer.proof.signature).toString('hex'), s.signer.proofOfPossession);
    assert.equal(u.subnetValidator.subnetId.toString(), PRIMARY);
    assert.equal(u.subnetValidator.validator.nodeId.toString(), s.nodeId);
    assert.equal(BigInt(u.subnetValidator.validator.weight.value()), BigInt(s.weight));
    assert.equal(u.shares.value(), s.shares);
    const mv = byTx.get(s.txId);
    assert.equal(mv.txType, 'AddPermissionlessValidatorTx');
    assert.equal(mv.blsPublicKey, s.signer.publicKey);
    // the store: a type 25 staker with its key and proof, both owners the rewards owner
    assert.ok(rows.has(s.txId), `${s.txId} is a staker at seq 0`);
    const [type, key, p, same] = rows.get(s.txId);
    assert.equal(type, '25');
    assert.equal('0x' + key, s.signer.publicKey);
    assert.equal('0x' + p, s.signer.proofOfPossession);
    assert.ok(same === '1' || same === 't');
    // the validators list: its blsCredentials
    const r = await fetch(`${api.url}/v1/networks/fuji/validators?nodeIds=${s.nodeId}&pageSize=100`);
    assert.equal(r.status, 200);
    const v = (await r.json()).validators.find((x) => x.txHash === s.txId);
    assert.ok(v, `${s.txId} is listed`);
    assert.deepEqual(v.blsCredentials, { publicKey: s.signer.publicKey, proofOfPossession: s.signer.proofOfPossession });
  }
});

test('the indexer refuses a genesis staker whose signer or tx is wrong, naming the staker and field', async () => {
  const { readFileSync, writeFileSync, mkdtempSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { spawnSync } = await import('node:child_process');
  const { BIN } = await import('./lib.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'snowline-gensig-'));
  try {
    const g = JSON.parse(readFileSync(ds.genesis, 'utf8'));
    const flip = (hex) => hex.slice(0, -2) + (hex.endsWith('00') ? '01' : '00');
    const cases = [
      [(x) => { x.stakers[1].signer.publicKey = x.stakers[1].signer.publicKey.slice(0, -2); }, /stakers\[1\]\.signer: needs publicKey \(48 bytes in hex\)/],
      [(x) => { delete x.stakers[0].signer.proofOfPossession; }, /stakers\[0\]\.signer: needs publicKey .* and proofOfPossession/],
      [(x) => { x.stakers[2].tx = flip(x.stakers[2].tx); }, /stakers\[2\]\.tx: not 0x-hex bytes whose sha256 is its txId/],
    ];
    for (const [i, [edit, want]] of cases.entries()) {
      const x = JSON.parse(JSON.stringify(g));
      edit(x);
      const file = join(dir, `g${i}.json`);
      writeFileSync(file, JSON.stringify(x));
      const r = spawnSync(BIN, ['index', '--node', ds.devnet.url, '--store', join(dir, `s${i}.db`), '--genesis', file, '--progress', 'off'],
        { encoding: 'utf8', timeout: 60000 });
      assert.notEqual(r.status, 0, `case ${i}: exit ${r.status}\n${r.stderr}`);
      assert.match(r.stderr + r.stdout, want, `case ${i}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
