// dataapi-balances.test.mjs — balances of addresses that own more assets than anything else here.
//
// A `fuji` devnet of 12,000 txs over 2 accounts: each account ends up owning UTXOs of more than
// 64 X-chain assets (the other tests' devnets spread ~30 assets over 64 accounts; the balances
// once kept 64 entries a bucket and dropped the rest). Indexed into SQLite and into PostgreSQL,
// each address's X-chain balances at the history's end must be the manifest's (X.balances: every
// asset, locked and unlocked together), each asset listed once, and the two backends' answers
// the same bytes: a bucket lists its assets in the order of the address's UTXOs, whatever plan a
// backend picks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir, cleanup } from './lib.mjs';
import * as L from './dataapi-lib.mjs';

const BACKENDS = ['sqlite', 'postgres'];
const dir = tempDir('snowline-balances-');
const env = Object.fromEntries(BACKENDS.map((b) => [b, { backend: b }]));
let devnet, manifest;

before(async () => {
  devnet = await L.startDevnetNode({ dataDir: join(dir, 'node'), txs: 12000, seed: 'snowline-balances', extra: ['--devnet-accounts', '2'] });
  manifest = devnet.manifest();
  await Promise.all(BACKENDS.map(async (b) => {
    const e = env[b];
    e.store = L.freshStore(b, dir, 'balances');
    e.indexer = L.startIndexer({ nodeUrl: devnet.url, store: e.store, genesis: devnet.genesisPath });
    await e.indexer.ready;
    e.api = await L.startApi({ store: e.store });
    await L.waitCaughtUp(e.api, { nodeUrl: devnet.url, indexer: e.indexer, timeoutMs: 300000 });
  }));
});

after(async () => {
  for (const b of BACKENDS) for (const p of [env[b].api, env[b].indexer]) if (p) await p.stop().catch(() => {});
  if (devnet) await devnet.stop().catch(() => {});
  for (const b of BACKENDS) if (env[b].store) L.dropStore(env[b].store);
  cleanup(dir);
});

test('X balances of addresses owning 64+ assets: every asset once, as the manifest has them, the same on both backends', async () => {
  const addrs = Object.keys(manifest.X.balances);
  assert.equal(addrs.length, 2);
  const bodies = [];
  for (const a of addrs) {
    const want = manifest.X.balances[a];
    assert.ok(Object.keys(want).length > 64, `${a} owns ${Object.keys(want).length} assets: the devnet no longer makes this case`);
    const got = {};
    for (const b of BACKENDS) {
      const r = await L.apiGet(`${env[b].api.base}/x-chain/balances?addresses=${a}&blockTimestamp=${manifest.endTime}`);
      assert.equal(r.status, 200, `${b}: ${r.text.slice(0, 300)}`);
      const { locked, unlocked, atomicMemoryLocked, atomicMemoryUnlocked } = r.json.balances;
      const sums = {};
      for (const [bucket, list] of Object.entries({ locked, unlocked })) {
        const seen = new Set();
        for (const e of list) {
          assert.ok(!seen.has(e.assetId), `${b} ${a}: ${e.assetId} twice in ${bucket}`);
          seen.add(e.assetId);
          sums[e.assetId] = (sums[e.assetId] ?? 0n) + BigInt(e.amount);
        }
      }
      assert.deepEqual([...atomicMemoryLocked, ...atomicMemoryUnlocked].filter((e) => e.sharedWithChainId === undefined), []);
      got[b] = sums;
      bodies.push([b, a, JSON.stringify(r.json.balances)]);
    }
    const asStrings = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== 0n && v !== '0').map(([k, v]) => [k, String(v)]).sort());
    for (const b of BACKENDS) assert.deepEqual(asStrings(got[b]), asStrings(want), `${b} ${a}: X balances at the history's end`);
  }
  for (const a of addrs) {
    const [s, p] = BACKENDS.map((b) => bodies.find(([bb, aa]) => bb === b && aa === a)[2]);
    assert.equal(p, s, `${a}: PostgreSQL's balances are SQLite's, in the same order`);
  }
});
