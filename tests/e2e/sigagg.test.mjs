// Signature aggregation (spec 000 §4.1; docs/sigagg.md): POST and GET
// /v1/signatureAggregator/{network}/aggregateSignatures over a devnet's store.
//
// Without validators to ask (no --peers-from), every request that gets as far as asking is a 503
// that says so, and everything before it is checked: bad bodies and values are 400s whose ErrorBody
// names the field, a future pChainHeight and an unknown signing subnet are 400s, a tx without an
// L1 message is a 404, and each L1 tx kind the devnet produced gets as far as asking.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cb58 } from './lib.mjs';
import { makeDataset, startApi, checkErrorBody } from './dataapi-schema-lib.mjs';

const BACKEND = process.env.SNOWLINE_SIGAGG_BACKEND ?? 'sqlite';
let ds, api, tip;
const NET_FUJI = 5;

before(async () => {
  ds = await makeDataset({ txs: 3000, backend: BACKEND });
  api = await startApi(ds.store, ['--rate-anonymous', '0']);
  tip = Number(sql('SELECT max(height) FROM blocks WHERE chain = 0'));
});

after(async () => {
  if (api) await api.stop();
  if (ds) await ds.close();
});

function sql(q) {
  return ds.store.startsWith('postgres')
    ? execFileSync('psql', [ds.store, '-qAtc', q], { encoding: 'utf8' }).trim()
    : execFileSync('sqlite3', ['-readonly', ds.store, q], { encoding: 'utf8' }).trim();
}
const hexCol = (col) => (ds.store.startsWith('postgres') ? `encode(${col}, 'hex')` : `hex(${col})`);

// An unsigned warp message: 00 00 | networkID | sourceChainID | payload bytes.
function warp(networkId, sourceChain, payload) {
  const b = Buffer.alloc(2 + 4 + 32 + 4 + payload.length);
  b.writeUInt32BE(networkId, 2);
  sourceChain.copy(b, 6);
  b.writeUInt32BE(payload.length, 38);
  payload.copy(b, 42);
  return b;
}
// An AddressedCall with an empty source address, from the P-chain (all-zero chain id).
const hashPayload = Buffer.concat([Buffer.from('000000000000', 'hex'), randomBytes(32)]);
const pMsg = warp(NET_FUJI, Buffer.alloc(32), hashPayload);

const PATH = '/v1/signatureAggregator/fuji/aggregateSignatures';
async function post(body, raw = false) {
  const res = await fetch(api.url + PATH, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: raw ? body : JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}
async function get(hash) {
  const res = await fetch(`${api.url}${PATH}/${encodeURIComponent(hash)}`);
  return { status: res.status, text: await res.text() };
}
function expectError(r, status, names, what) {
  assert.equal(r.status, status, `${what}: ${r.text}`);
  const b = checkErrorBody(status, r.text);
  if (names) assert.ok(b.message.includes(names), `${what}: the message names ${names}: ${b.message}`);
  return b;
}

test('a valid request gets as far as asking the validators: 503 without --peers-from', async () => {
  for (const body of [{ message: pMsg.toString('hex') }, { message: '0x' + pMsg.toString('hex'), quorumPercentage: 50, quorumPercentageBuffer: 50, pChainHeight: tip },
    { message: pMsg.toString('hex'), signingSubnetId: '11111111111111111111111111111111LpoYY', justification: '0001abcd' },
    { message: pMsg.toString('hex'), signingSubnetId: '0x' + '00'.repeat(32), pChainHeight: 1 }]) {
    expectError(await post(body), 503, '--peers-from', JSON.stringify(body).slice(0, 80));
  }
});

test('bad bodies and values: 400 naming the field', async () => {
  const hex = pMsg.toString('hex');
  const subnets = sql(`SELECT ${hexCol('id')} FROM subnets`).split('\n').filter(Boolean);
  assert.ok(subnets.length > 0, 'the devnet made subnets');
  const unknownSubnet = cb58(randomBytes(32));
  const cases = [
    ['not JSON', 'message=00', 'body', true],
    ['an array', '[]', 'body', true],
    ['trailing bytes', `{"message":"${hex}"} x`, 'body', true],
    ['an empty object', {}, 'message'],
    ['an unknown property', { message: hex, quorum: 67 }, 'quorum'],
    ['a repeated property', `{"message":"${hex}","message":"${hex}"}`, 'message', true],
    ['message not hex', { message: 'zz' }, 'message'],
    ['message of odd length', { message: hex + '0' }, 'message'],
    ['message a number', { message: 12 }, 'message'],
    ['message not warp', { message: '0x0001' }, 'message'],
    ['message for another network', { message: warp(1, Buffer.alloc(32), hashPayload).toString('hex') }, 'message'],
    ['a justification alone', { justification: '00' }, 'message'],
    ['justification not hex', { message: hex, justification: '0xzz' }, 'justification'],
    ['quorum over 100', { message: hex, quorumPercentage: 101 }, 'quorumPercentage'],
    ['quorum negative', { message: hex, quorumPercentage: -1 }, 'quorumPercentage'],
    ['quorum fractional', { message: hex, quorumPercentage: 67.5 }, 'quorumPercentage'],
    ['quorum a string', { message: hex, quorumPercentage: '67' }, 'quorumPercentage'],
    ['buffer over 100', { message: hex, quorumPercentageBuffer: 101 }, 'quorumPercentageBuffer'],
    ['quorum + buffer over 100', { message: hex, quorumPercentage: 67, quorumPercentageBuffer: 34 }, 'quorumPercentageBuffer'],
    ['signingSubnetId malformed', { message: hex, signingSubnetId: 'xyz' }, 'signingSubnetId'],
    ['signingSubnetId hex too short', { message: hex, signingSubnetId: '0x00' }, 'signingSubnetId'],
    ['signingSubnetId unknown', { message: hex, signingSubnetId: unknownSubnet }, 'signingSubnetId'],
    ['source chain unknown', { message: warp(NET_FUJI, randomBytes(32), hashPayload).toString('hex') }, 'signingSubnetId'],
    ['pChainHeight in the future', { message: hex, pChainHeight: tip + 1000 }, 'pChainHeight'],
    ['pChainHeight negative', { message: hex, pChainHeight: -1 }, 'pChainHeight'],
  ];
  for (const [what, body, names, raw] of cases) expectError(await post(body, raw), 400, names, what);
  // a known subnet as hex, without 0x: past the checks (503: nobody to ask)
  expectError(await post({ message: hex, signingSubnetId: subnets[0].toLowerCase() }), 503, '--peers-from', 'a subnet in hex');
  // query parameters are not taken
  const r = await fetch(`${api.url}${PATH}?quorumPercentage=67`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ message: hex }) });
  expectError({ status: r.status, text: await r.text() }, 400, 'quorumPercentage', 'a query parameter');
});

test('GET by txHash: 400 for a malformed hash, 404 for no tx or one without an L1 message', async () => {
  expectError(await get('not-a-hash'), 400, 'txHash', 'malformed');
  expectError(await get(cb58(randomBytes(32))), 404, null, 'unknown');
  const base = sql(`SELECT ${hexCol('id')} FROM txs WHERE chain = 0 AND type = 34 LIMIT 1`) ||
    sql(`SELECT ${hexCol('id')} FROM txs WHERE chain = 0 AND type NOT IN (35, 36, 37) LIMIT 1`);
  assert.ok(base, 'a P-chain tx without an L1 message');
  expectError(await get(cb58(Buffer.from(base, 'hex'))), 404, 'not one the P-chain attests', 'not an L1 tx');
  const x = sql(`SELECT ${hexCol('id')} FROM txs WHERE chain = 1 LIMIT 1`);
  expectError(await get(cb58(Buffer.from(x, 'hex'))), 404, null, 'an X-chain tx');
});

test('--peers-from: the validators the node lists are asked; none answering is a 503 with the weight', async () => {
  // the devnet node lists its validators at loopback ports where nothing answers the p2p protocol
  const peers = await (await fetch(ds.devnet.url + '/ext/info', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'info.peers', params: {} }) })).json();
  assert.ok(peers.result.peers.length > 0, 'the devnet lists peers');
  const a2 = await startApi(ds.store, ['--rate-anonymous', '0', '--peers-from', ds.devnet.url, '--sigagg-timeout-ms', '1500']);
  try {
    const res = await fetch(a2.url + PATH, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ message: pMsg.toString('hex') }) });
    const b = expectError({ status: res.status, text: await res.text() }, 503, 'quorum not reached', 'nobody answers');
    const m = /weight (\d+) of (\d+) signed .*; 67% needs (\d+)/.exec(b.message);
    assert.ok(m, b.message);
    const [signed, total, needs] = m.slice(1).map(BigInt);
    assert.equal(signed, 0n);
    assert.ok(total > 0n);
    assert.equal(needs, (total * 67n + 99n) / 100n);
    // a GET by txHash goes the same way
    const conv = sql(`SELECT ${hexCol('id')} FROM txs WHERE chain = 0 AND type = 35 LIMIT 1`);
    const g = await fetch(`${a2.url}${PATH}/${cb58(Buffer.from(conv, 'hex'))}`);
    expectError({ status: g.status, text: await g.text() }, 503, 'quorum not reached', 'GET, nobody answers');
  } finally {
    await a2.stop();
  }
  // a --peers-from that does not answer: the API does not start
  await assert.rejects(startApi(ds.store, ['--peers-from', 'http://127.0.0.1:1']), /peers-from/);
});

test('GET by txHash: each L1 tx kind the devnet made builds its message and gets as far as asking', async () => {
  const kinds = { 35: 'ConvertSubnetToL1Tx', 36: 'RegisterL1ValidatorTx', 37: 'SetL1ValidatorWeightTx' };
  for (const [type, name] of Object.entries(kinds)) {
    const ids = sql(`SELECT ${hexCol('id')} FROM txs WHERE chain = 0 AND type = ${type} LIMIT 3`).split('\n').filter(Boolean);
    assert.ok(ids.length > 0, `the devnet made a ${name}`);
    for (const id of ids) expectError(await get(cb58(Buffer.from(id, 'hex'))), 503, '--peers-from', name);
  }
});
