// observe.test.mjs — what a node observes of its validators, end to end: `snowline node` serves
// platform.getCurrentValidators for its devnet (simulated uptime and connectivity, which the
// devnet's manifest states), and `snowline index --observe-s` samples it into the store's node_obs
// table (src/index/observe.c), read back here with `snowline dump --table node_obs`. The truth is
// the manifest's active primary validators; nothing here reads src/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BIN, cb58, tempDir, cleanup } from './lib.mjs';
import * as L from './dataapi-lib.mjs';

const dir = tempDir('snowline-observe-');
let devnet, store, indexer, manifest, served;

const rpc = async (url, method, params = {}) => {
  const r = await fetch(`${url}/ext/bc/P`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return r.json();
};

before(async () => {
  devnet = await L.startDevnetNode({ dataDir: join(dir, 'node'), txs: 3000, seed: 'snowline-observe' });
  manifest = devnet.manifest();
  served = await rpc(devnet.url, 'platform.getCurrentValidators');
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
    const r = spawnSync(BIN, ['dump', '--store', store, '--table', 'node_obs'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.split('\n').filter((l) => l.startsWith('node_obs\t')).map((l) => l.split('\t'));
  };
  // at least two samples of every validator (one a second)
  await L.waitFor(async () => { const rows = read(); return rows.length === want.size && rows.every((c) => Number(c[5]) >= 2); }, { timeoutMs: 30000, what: () => 'two samples of every validator' });
  const diffs = [];
  for (const [, hex, , uptime, connected, samples, reachable] of read()) {
    const node = 'NodeID-' + cb58(Buffer.from(hex.slice(2, -1), 'hex'));
    const m = want.get(node);
    if (!m) { diffs.push(`${node}: sampled, not an active validator`); continue; }
    if (Number(uptime) !== Math.round(Number(m.uptime) * 10000)) diffs.push(`${node}: uptime ${uptime}, want ${m.uptime}%`);
    if (Number(connected) !== (m.connected ? 1 : 0)) diffs.push(`${node}: connected ${connected}, want ${m.connected}`);
    if (Number(reachable) !== (m.connected ? Number(samples) : 0)) diffs.push(`${node}: reachable in ${reachable} of ${samples} samples`);
  }
  assert.deepEqual(diffs, []);
  // and the canonical dump leaves it out (it is the node's view when asked, not the chain)
  const all = spawnSync(BIN, ['dump', '--store', store], { encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.equal(all.status, 0, all.stderr);
  assert.ok(!/^table node_obs/m.test(all.stdout) && /# left out: table node_obs/.test(all.stdout));
});
