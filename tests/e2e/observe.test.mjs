// observe.test.mjs — what a node observes of its validators, end to end: `snowline node` serves
// platform.getCurrentValidators and info.peers for its devnet (simulated uptime, connectivity and
// peers, which the devnet's manifest states), and `snowline index --observe-s` samples both into
// the store's node_obs table (src/index/observe.c), read back here with `snowline dump --table
// node_obs`. The truth is the manifest's active primary validators, subnet and L1 validators and
// peers; nothing here reads src/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createInfoApiClient } from '@avalanche-sdk/client';
import { Avalanche } from 'avalanche';
import { BIN, cb58, tempDir, cleanup } from './lib.mjs';
import * as L from './dataapi-lib.mjs';

const PRIMARY = '11111111111111111111111111111111LpoYY';

const dir = tempDir('snowline-observe-');
let devnet, store, indexer, manifest, served, peers;

const rpc = async (url, method, params = {}, path = '/ext/bc/P') => {
  const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return r.json();
};
const info = (method, params) => rpc(devnet.url, method, params, '/ext/info');

before(async () => {
  devnet = await L.startDevnetNode({ dataDir: join(dir, 'node'), txs: 3000, seed: 'snowline-observe' });
  manifest = devnet.manifest();
  served = await rpc(devnet.url, 'platform.getCurrentValidators');
  peers = await info('info.peers', {});
  store = L.freshStore('sqlite', dir, 'observe');
  indexer = L.startIndexer({ nodeUrl: devnet.url, store, genesis: devnet.genesisPath, args: ['--observe-s', '1'] });
  await indexer.ready;
});

after(async () => {
  for (const p of [indexer, devnet]) if (p) await p.stop().catch(() => {});
  if (store) L.dropStore(store);
  cleanup(dir);
});

// The manifest's active primary validators: node → { txId, uptime, connected, … }.
const active = () => new Map(manifest.P.validators.filter((v) => v.validationStatus === 'active' && v.txType !== 'AddSubnetValidatorTx').map((v) => [v.nodeId, v]));

test('platform.getCurrentValidators: the active primary validators, with the uptime and connectivity the manifest states', () => {
  const want = active();
  assert.ok(want.size >= 5, `only ${want.size} active validators`);
  const got = served.result?.validators;
  assert.ok(Array.isArray(got), JSON.stringify(served).slice(0, 300));
  assert.equal(got.length, want.size);
  const diffs = [];
  for (const v of got) {
    const m = want.get(v.nodeID);
    if (!m) { diffs.push(`${v.nodeID}: not an active validator`); continue; }
    // avalanchego's shapes: json.Uint64 as strings, json.Float32 as a string with 4 decimals
    const exp = { txID: m.txId, startTime: String(m.startTime), endTime: String(m.endTime), weight: String(m.weight), potentialReward: String(m.potentialReward),
      delegationFee: (m.delegationFee / 10000).toFixed(4), uptime: m.uptime, connected: m.connected };
    for (const [k, x] of Object.entries(exp)) if (v[k] !== x) diffs.push(`${v.nodeID}.${k}: ${JSON.stringify(v[k])}, want ${JSON.stringify(x)}`);
    if (!/^\d+$/.test(v.delegatorCount) || !/^\d+$/.test(v.delegatorWeight)) diffs.push(`${v.nodeID}: delegatorCount/Weight ${v.delegatorCount}/${v.delegatorWeight}`);
  }
  // some are seen below avalanchego's 80% requirement (the devnet aborts their rewards), some not connected
  assert.ok(got.some((v) => Number(v.uptime) < 80) || [...want.values()].every((m) => Number(m.uptime) >= 80));
  assert.deepEqual(diffs, []);
});

test('a subnet id other than the primary network\'s: no validators known', async () => {
  const r = await rpc(devnet.url, 'platform.getCurrentValidators', { subnetID: manifest.P.subnets[0].subnetId });
  assert.deepEqual(r.result, { validators: [] });
});

test('snowline index --observe-s samples them into node_obs, counting the samples', async () => {
  const want = active();
  const read = () => {
    const r = spawnSync(BIN, ['dump', '--store', store, '--table', 'node_obs'], { encoding: 'utf8', timeout: 60000, killSignal: 'SIGKILL' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.split('\n').filter((l) => l.startsWith('node_obs\t')).map((l) => l.split('\t'));
  };
  // at least two samples of every validator (one a second)
  await L.waitFor(async () => { const rows = read(); return rows.length === want.size && rows.every((c) => Number(c[5]) >= 2); }, { timeoutMs: 30000, what: () => 'two samples of every validator' });
  const diffs = [];
  const peerOf = new Map(manifest.peers.map((p) => [p.nodeID, p]));
  let benchedRows = 0;
  for (const [, hex, , uptime, connected, samples, reachable, version, ...benched] of read()) {
    const node = 'NodeID-' + cb58(Buffer.from(hex.slice(2, -1), 'hex'));
    const m = want.get(node);
    if (!m) { diffs.push(`${node}: sampled, not an active validator`); continue; }
    if (Number(uptime) !== Math.round(Number(m.uptime) * 10000)) diffs.push(`${node}: uptime ${uptime}, want ${m.uptime}%`);
    if (Number(connected) !== (m.connected ? 1 : 0)) diffs.push(`${node}: connected ${connected}, want ${m.connected}`);
    if (Number(reachable) !== (m.connected ? Number(samples) : 0)) diffs.push(`${node}: reachable in ${reachable} of ${samples} samples`);
    // info.peers, asked with every sample: the version the node's peer runs (NULL: never listed), and in
    // how many samples it was benched on P, X, C (a node the peers do not list: in none)
    const p = peerOf.get(node);
    const wantVersion = p ? `'${p.version}'` : 'NULL';
    if (version !== wantVersion) diffs.push(`${node}: version ${version}, want ${wantVersion}`);
    ['P', 'X', 'C'].forEach((c, i) => {
      const exp = p?.benched.includes(c) ? Number(samples) : 0;
      if (Number(benched[i]) !== exp) diffs.push(`${node}: benched on ${c} in ${benched[i]} of ${samples} samples, want ${exp}`);
    });
    if (benched.some((b) => Number(b) > 0)) benchedRows++;
  }
  assert.deepEqual(diffs, []);
  assert.ok(benchedRows > 0, 'a validator benched on some chain');
  // and the canonical dump leaves it out (it is the node's view when asked, not the chain)
  const all = spawnSync(BIN, ['dump', '--store', store], { encoding: 'utf8', maxBuffer: 1 << 30, timeout: 120000, killSignal: 'SIGKILL' });
  assert.equal(all.status, 0, all.stderr);
  assert.ok(!/^table node_obs/m.test(all.stdout) && /# left out: table node_obs/.test(all.stdout));
});

// ---- info.peers ------------------------------------------------------------------------------------------

// The subnets a node validates now (the manifest's active permissioned subnet validators and L1 validators
// not removed), with the primary network, as avalanchego's set.Set marshals them: sorted by their JSON bytes.
const trackedOf = (node) => {
  const subs = new Set([PRIMARY]);
  for (const v of manifest.P.validators) if (v.nodeId === node && v.txType === 'AddSubnetValidatorTx' && v.validationStatus === 'active') subs.add(v.subnetId);
  for (const v of manifest.P.l1Validators) if (v.nodeId === node && !v.removed) subs.add(v.subnetId);
  return [...subs].sort((a, b) => Buffer.compare(Buffer.from(JSON.stringify(a)), Buffer.from(JSON.stringify(b))));
};
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

test('info.peers: the connected active validators and the other subnets\' validators, as the manifest states them, in avalanchego\'s shape', () => {
  const want = [...active().values()].filter((m) => m.connected);
  assert.ok(want.length >= 5, `only ${want.length} connected validators`);
  assert.deepEqual(peers.result, { numPeers: String(manifest.peers.length), peers: manifest.peers });
  // then every node that validates a subnet or an L1 (not removed) but not the primary network, by node index
  const index = new Map(manifest.nodes.map((n) => [n.nodeId, Number(n.index)]));
  const others = [...new Set(manifest.P.l1Validators.filter((v) => !v.removed).map((v) => v.nodeId)
    .concat(manifest.P.validators.filter((v) => v.txType === 'AddSubnetValidatorTx' && v.validationStatus === 'active').map((v) => v.nodeId)))]
    .filter((n) => !active().has(n)).sort((a, b) => index.get(a) - index.get(b));
  assert.ok(others.length > 0, 'a node that validates only an L1');
  assert.deepEqual(manifest.peers.slice(0, want.length).map((p) => p.nodeID).sort(), want.map((m) => m.nodeId).sort());
  assert.deepEqual(manifest.peers.slice(want.length).map((p) => p.nodeID), others);
  for (const p of manifest.peers.slice(want.length)) assert.deepEqual(p.benched, [], `${p.nodeID} validates no primary chain`);
  const diffs = [];
  const ports = new Set();
  for (const p of manifest.peers) {
    // peer.Info's fields in its order, then benched
    assert.deepEqual(Object.keys(p), ['ip', 'publicIP', 'nodeID', 'version', 'upgradeTime', 'lastSent', 'lastReceived', 'observedUptime', 'trackedSubnets', 'supportedACPs', 'objectedACPs', 'benched']);
    const port = /^127\.0\.0\.1:(\d+)$/.exec(p.ip)?.[1];
    if (!port || (Number(port) - 9651) % 2 !== 0 || p.publicIP !== p.ip) diffs.push(`${p.nodeID}: ip ${p.ip} / ${p.publicIP}`);
    ports.add(port);
    if (!/^avalanchego\/1\.14\.[0-2]$/.test(p.version)) diffs.push(`${p.nodeID}: version ${p.version}`);
    if (p.upgradeTime !== manifest.durangoTime) diffs.push(`${p.nodeID}: upgradeTime ${p.upgradeTime}`);
    for (const k of ['lastSent', 'lastReceived']) {
      const t = Date.parse(p[k]) / 1000;
      if (!RFC3339.test(p[k]) || t > manifest.endTime || t < manifest.endTime - 10) diffs.push(`${p.nodeID}: ${k} ${p[k]}, chain time ${manifest.endTime}`);
    }
    if (!/^(97|98|99|100)$/.test(p.observedUptime)) diffs.push(`${p.nodeID}: observedUptime ${JSON.stringify(p.observedUptime)} (json.Uint32: a string)`);
    if (JSON.stringify(p.trackedSubnets) !== JSON.stringify(trackedOf(p.nodeID))) diffs.push(`${p.nodeID}: trackedSubnets ${p.trackedSubnets}, want ${trackedOf(p.nodeID)}`);
    if (p.supportedACPs.length || p.objectedACPs.length) diffs.push(`${p.nodeID}: ACPs`);
    if (!p.benched.every((c, i, a) => ['P', 'X', 'C'].includes(c) && (i === 0 || 'PXC'.indexOf(a[i - 1]) < 'PXC'.indexOf(c)))) diffs.push(`${p.nodeID}: benched ${p.benched}`);
  }
  assert.deepEqual(diffs, []);
  assert.equal(ports.size, manifest.peers.length, 'a port per node');
  assert.ok(manifest.peers.some((p) => p.trackedSubnets.length > 1), 'a peer that validates a subnet');
  assert.ok(manifest.peers.some((p) => p.benched.length > 0), 'a benched peer');
});

test('info.peers nodeIDs: those peers, in the order given (one not a peer left out, one given twice listed twice); [] and null: all', async () => {
  const [a, b] = manifest.peers.slice(-2);
  const stranger = [...active().values()].find((m) => !m.connected)?.nodeId ?? 'NodeID-111111111111111111116DBWJs';
  const r = await info('info.peers', { nodeIDs: [b.nodeID, stranger, a.nodeID, null, b.nodeID] });
  assert.deepEqual(r.result, { numPeers: '3', peers: [b, a, b] });
  assert.deepEqual((await info('info.peers', { nodeIDs: [] })).result, peers.result);
  assert.deepEqual((await info('info.peers', { nodeIDs: null })).result, peers.result);
  assert.deepEqual((await info('info.peers')).result, peers.result);
  // ids.NodeID's decoding: the prefix is required; a bad one fails the whole call as an argument error
  for (const bad of [['NodeID-'], [a.nodeID.slice(7)], [5], 'x']) {
    const e = await info('info.peers', { nodeIDs: bad });
    assert.equal(e.error?.message, 'couldn\'t unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls', JSON.stringify(bad));
  }
});

test('info.peers through the npm clients: @avalanche-sdk/client and avalanche.js', async () => {
  const port = Number(new URL(devnet.url).port);
  const sdk = createInfoApiClient({ transport: { type: 'http', url: devnet.url + '/ext/info', config: { retryCount: 0 } } });
  assert.deepEqual(await sdk.peers({}), peers.result);
  const one = manifest.peers[0];
  assert.deepEqual(await sdk.peers({ nodeIDs: [one.nodeID] }), { numPeers: '1', peers: [one] });
  const av = new Avalanche('127.0.0.1', port, 'http').Info();
  assert.deepEqual(await av.peers(), manifest.peers);
  assert.deepEqual(await av.peers([one.nodeID]), [one]);
});
