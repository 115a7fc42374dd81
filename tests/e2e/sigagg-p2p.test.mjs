// Signature aggregation against the devnet's own validators, asked over avalanchego's p2p protocol
// (docs/sigagg.md, docs/p2p.md): `snowline devnet --devnet-p2p-port` serves every node with its own
// staking certificate and BLS key, info.peers lists them, `snowline api --peers-from` asks them.
//
// A third of the keyed validators that info.peers lists misbehave (absent, signing other bytes,
// never answering) and one is slow but within the deadline. Every signed message is checked here
// with @noble/curves, independently of the C: the canonical set made from the devnet manifest's
// validator set at the height (keyless members in the total only, shared keys merged, order by
// uncompressed key), the signers' weight against the quorum, and one BLS verify of their
// aggregate key over the unsigned bytes with the signature DST.
//
// This history's genesis validators hold most of the primary network's stake and have no BLS key
// (they staked before Durango), so the reachable weight is what the later validators hold: the
// quorums asked are chosen from the manifest, one just reachable, one just not — the failure must
// then say exactly the honest weight. The P-chain's own L1 messages (GET by txHash) use quorum 67,
// out of reach here: each must fail with that same weight (every honest validator signed the
// message built), and for the registration and removal kinds with the id of the message built
// here from the tx's validation id.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { bls12_381 as bls } from '@noble/curves/bls12-381';
import { cb58 } from './lib.mjs';
import { makeDataset, startApi, checkErrorBody, sdkClient, strict, C } from './dataapi-schema-lib.mjs';

const BACKEND = process.env.SNOWLINE_SIGAGG_BACKEND ?? 'sqlite';
const DST = 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_';
const PRIMARY = '11111111111111111111111111111111LpoYY';
const PATH = '/v1/signatureAggregator/fuji/aggregateSignatures';
const sha256 = (b) => createHash('sha256').update(b).digest();
const big = (x) => BigInt(String(x));

let ds, api, apiUp, m, height, set, honestWeight, roles;

// The devnet's nodes by index; which keyed validators misbehave (a third of those listed).
function choosePolicies(manifest) {
  const vs = manifest.P.validatorSets.filter((s) => s.subnetId === PRIMARY);
  const last = vs.reduce((a, b) => (big(b.height) > big(a.height) ? b : a));
  const listed = new Set(manifest.peers.map((p) => p.nodeID ?? p.nodeId));
  const idx = new Map(manifest.nodes.map((n) => [n.nodeId, Number(n.index)]));
  const keyed = last.validators.filter((v) => v.publicKey && listed.has(v.nodeId) && idx.has(v.nodeId));
  const bad = ['absent', 'wrong', 'silent'];
  const nbad = Math.max(1, Math.floor(keyed.length / 3));
  const roles = new Map();
  keyed.forEach((v, i) => roles.set(v.nodeId, i < nbad ? bad[i % 3] : i === nbad ? 'slow' : 'honest'));
  const policy = [...roles].filter(([, r]) => r !== 'honest').map(([n, r]) => `${idx.get(n)}=${r === 'slow' ? 'slow:500' : r}`).join(',');
  return { roles, policy };
}

before(async () => {
  // the devnet's manifest (and so the nodes) follow from the seed: a first look picks the policies
  const probe = await makeDataset({ txs: 3000, backend: 'sqlite' });
  const p = choosePolicies(probe.manifest);
  await probe.close();
  roles = p.roles;
  const base = 20000 + 2 * randomInt(0, 10000);
  // the validators listen while the devnet runs: with no live steps its producer ends, and with it
  // the listeners, so an hour between steps keeps them up without changing the history
  ds = await makeDataset({ txs: 3000, backend: BACKEND, intervalMs: 3600000, devnetArgs: ['--devnet-p2p-port', String(base), '--devnet-p2p-policy', p.policy] });
  m = ds.manifest;
  const vs = m.P.validatorSets.filter((s) => s.subnetId === PRIMARY);
  const last = vs.reduce((a, b) => (big(b.height) > big(a.height) ? b : a));
  height = Number(last.height);
  set = canonical(last.validators);
  honestWeight = last.validators.filter((v) => v.publicKey && ['honest', 'slow'].includes(roles.get(v.nodeId))).reduce((a, v) => a + big(v.weight), 0n);
  assert.ok(honestWeight > 0n, 'some keyed validator is honest');
  const args = ['--rate-anonymous', '0', '--peers-from', ds.devnet.url, '--sigagg-timeout-ms', '3000', '--http-threads', '4'];
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

// Verify a signed message against the canonical set at the quorum; resolves the signers' weight.
function verifySigned(hex, quorum, wantUnsigned) {
  const { unsigned, signers, sig } = parseSigned(hex);
  if (wantUnsigned) assert.deepEqual(unsigned, wantUnsigned);
  const bits = BigInt('0x' + signers.toString('hex'));
  assert.ok(bits >> BigInt(set.list.length) === 0n, 'no signer past the set');
  let w = 0n, agg = null;
  set.list.forEach((e, i) => {
    if ((bits >> BigInt(i)) & 1n) {
      w += e.weight;
      agg = agg ? agg.add(e.pk) : e.pk;
    }
  });
  assert.ok(agg, 'signers');
  assert.ok(w * 100n >= set.total * BigInt(quorum), `weight ${w} of ${set.total} reaches ${quorum}%`);
  assert.ok(bls.verify(sig, unsigned, agg, { DST }), 'the aggregate signature verifies');
  return w;
}

function warp(payload) {
  const b = Buffer.alloc(42 + payload.length);
  b.writeUInt32BE(5, 2);
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

async function post(a, body) {
  const r = await fetch(a.url + PATH, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, text: await r.text() };
}

const maxQuorum = () => Number((honestWeight * 100n) / set.total);

test('the reachable quorum: signed by the honest validators, verified with @noble/curves; liars left out', async () => {
  const q = maxQuorum();
  assert.ok(q >= 1, `the honest keyed weight (${honestWeight} of ${set.total}) is at least 1%`);
  const msg = warp(Buffer.concat([Buffer.from('000000000000', 'hex'), randomBytes(32)]));
  const t0 = Date.now();
  const r = await post(api, { message: msg.toString('hex'), quorumPercentage: q, pChainHeight: height });
  assert.equal(r.status, 200, r.text);
  const w = verifySigned(JSON.parse(r.text).signedMessage, q, msg);
  assert.ok(w <= honestWeight);
  // with 0x, the default height (the same: the devnet has stopped), and a buffer up to the reachable
  const r2 = await post(api, { message: '0x' + msg.toString('hex'), quorumPercentage: Math.max(0, q - 1), quorumPercentageBuffer: 1 });
  assert.equal(r2.status, 200, r2.text);
  verifySigned(JSON.parse(r2.text).signedMessage, Math.max(0, q - 1), msg);
  assert.ok(Date.now() - t0 < 20000);
});

test('one percent past it: 503 naming exactly the honest weight', async () => {
  const q = maxQuorum() + 1;
  const msg = warp(Buffer.concat([Buffer.from('000000000000', 'hex'), randomBytes(32)]));
  const r = await post(api, { message: msg.toString('hex'), quorumPercentage: q });
  assert.equal(r.status, 503, r.text);
  const b = checkErrorBody(503, r.text);
  const mm = /quorum not reached: validators of weight (\d+) of (\d+) signed .*; (\d+)% needs (\d+) \(message (\w+)\)/.exec(b.message);
  assert.ok(mm, b.message);
  assert.equal(BigInt(mm[1]), honestWeight, b.message);
  assert.equal(BigInt(mm[2]), set.total);
  assert.equal(mm[5], cb58(sha256(msg)));
});

test('compat upstream: 201 and a strict SignatureAggregationResponse through chainkit', async () => {
  const q = maxQuorum();
  const msg = warp(Buffer.concat([Buffer.from('000000000000', 'hex'), randomBytes(32)]));
  const c = sdkClient(apiUp.url);
  const res = await c.sdk.data.signatureAggregator.aggregate({ network: 'fuji', signatureAggregatorRequest: { message: msg.toString('hex'), quorumPercentage: q } }, c.opts);
  const ex = c.exchanges.at(-1);
  assert.equal(ex.status, 201, ex.text);
  const parsed = strict(C.SignatureAggregationResponse$inboundSchema).safeParse(JSON.parse(ex.text));
  assert.ok(parsed.success, ex.text);
  verifySigned(res.signedMessage, q, msg);
  // the spec's status on the other server
  const r = await post(api, { message: msg.toString('hex'), quorumPercentage: q });
  assert.equal(r.status, 200);
});

function sql(q) {
  return ds.store.startsWith('postgres')
    ? execFileSync('psql', [ds.store, '-qAtc', q], { encoding: 'utf8' }).trim()
    : execFileSync('sqlite3', ['-readonly', ds.store, q], { encoding: 'utf8' }).trim();
}
const blob = (hex) => (ds.store.startsWith('postgres') ? `decode('${hex}', 'hex')` : `x'${hex}'`);
const hexCol = (col) => (ds.store.startsWith('postgres') ? `encode(${col}, 'hex')` : `lower(hex(${col}))`);

test('GET by txHash: each L1 tx kind builds its message, which every honest validator signs (67% is out of reach here)', async () => {
  const kinds = { 35: 'ConvertSubnetToL1Tx', 36: 'RegisterL1ValidatorTx', 37: 'SetL1ValidatorWeightTx' };
  for (const [type, name] of Object.entries(kinds)) {
    const ids = sql(`SELECT ${hexCol('id')} FROM txs WHERE chain = 0 AND type = ${type} LIMIT 3`).split('\n').filter(Boolean);
    assert.ok(ids.length > 0, `the devnet made a ${name}`);
    for (const id of ids) {
      const r = await fetch(`${api.url}${PATH}/${cb58(Buffer.from(id, 'hex'))}`);
      const text = await r.text();
      assert.equal(r.status, 503, `${name}: ${text}`);
      const b = checkErrorBody(503, text);
      const mm = /validators of weight (\d+) of (\d+) signed .*; 67% needs \d+ \(message (\w+)\)/.exec(b.message);
      assert.ok(mm, b.message);
      assert.equal(BigInt(mm[1]), honestWeight, `${name}: every honest validator signed: ${b.message}`);
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
    const b = checkErrorBody(503, await r.text());
    const want = warp(addressedCall(registration(Buffer.from(vid, 'hex'), false)));
    assert.ok(b.message.includes(`(message ${cb58(sha256(want))})`), `a removal: ${b.message}`);
  }
});
