// dataapi-cache.test.mjs — the API's response cache (src/api/cache.c) on both backends: a request
// made again is answered from it byte for byte; once the indexer has applied more of a live
// devnet, every answer is what a server without a cache (--cache-mb 0) says of the same store.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import * as L from './dataapi-lib.mjs';
import { tempDir, cleanup } from './lib.mjs';

const BACKENDS = ['sqlite', 'postgres'];
const dir = tempDir('snowline-cache-');
let devnet;
const env = {};

// the lists a wallet asks for, newest first, for the first accounts on each chain
function lists(manifest) {
  const out = [];
  for (const a of manifest.accounts.slice(0, 4)) {
    const c = a.xAddress.replace(/^X-/, 'C-');
    out.push(`p-chain/transactions?addresses=${a.pAddress}&pageSize=10`);
    out.push(`x-chain/transactions?addresses=${a.xAddress}&pageSize=10`);
    out.push(`c-chain/transactions?addresses=${c}&pageSize=10`);
    out.push(`x-chain/utxos?addresses=${a.xAddress}&pageSize=10&includeSpent=true&sortOrder=desc`);
    out.push(`p-chain/utxos?addresses=${a.pAddress}&pageSize=10&sortOrder=desc`);
  }
  return out;
}

const withoutToken = (text) => {
  const j = JSON.parse(text);
  delete j.nextPageToken; // carries its issue time, to the second
  return JSON.stringify(j);
};

async function cacheHits(api) {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  const m = text.match(/^snowline_api_cache_lookups_total\{result="hit"\} (\d+)$/m);
  assert.ok(m, 'the cache is in /metrics');
  return Number(m[1]);
}

async function applied(api) {
  return Object.fromEntries(Object.entries((await L.health(api)).indexes).map(([k, v]) => [k, v.applied]));
}

before(async () => {
  devnet = await L.startDevnetNode({ dataDir: join(dir, 'node'), txs: 600, seed: 'snowline-cache', intervalMs: 250 });
  for (const b of BACKENDS) {
    const E = (env[b] = {});
    E.store = L.freshStore(b, dir, `cache_${b}`);
    E.indexer = L.startIndexer({ nodeUrl: devnet.url, store: E.store, genesis: devnet.genesisPath });
    await E.indexer.ready;
    E.cached = await L.startApi({ store: E.store });
    E.plain = await L.startApi({ store: E.store, args: ['--cache-mb', '0'] });
    await L.waitCaughtUp(E.cached, { nodeUrl: devnet.url, indexer: E.indexer });
  }
});

after(async () => {
  for (const E of Object.values(env)) {
    for (const p of [E.cached, E.plain, E.indexer]) await p?.stop();
    if (E.store) L.dropStore(E.store);
  }
  await devnet?.stop();
  cleanup(dir);
});

describe('the response cache', () => {
  for (const b of BACKENDS) {
    test(`${b}: the same request twice, while the store stands still: the same bytes, the second from the cache`, async () => {
      const E = env[b];
      await E.indexer.stop(); // the store stands still
      const url = `${E.cached.base}/${lists(devnet.manifest())[1]}`;
      const first = await L.apiGet(url);
      assert.equal(first.status, 200, first.text);
      const hits = await cacheHits(E.cached);
      const again = await L.apiGet(url);
      assert.equal(again.text, first.text);
      assert.equal(await cacheHits(E.cached), hits + 1);
      // the cache answers by target and store only: a server without it says the same
      const plain = await L.apiGet(`${E.plain.base}/${lists(devnet.manifest())[1]}`);
      assert.equal(withoutToken(plain.text), withoutToken(first.text));
      // errors are not cached: a bad request stays a 400 naming its parameter
      for (let i = 0; i < 2; i++) {
        const bad = await L.apiGet(`${url}&pageSize=0`);
        assert.equal(bad.status, 400);
        assert.match(bad.json.message, /pageSize/);
      }
    });

    test(`${b}: after the indexer applies more, every answer is the new store's`, async () => {
      const E = env[b];
      const urls = lists(devnet.manifest());
      const before = [];
      for (const u of urls) before.push((await L.apiGet(`${E.cached.base}/${u}`)).text);
      const was = await applied(E.cached);
      // the indexer again, until each chain has taken more blocks, then still
      E.indexer = L.startIndexer({ nodeUrl: devnet.url, store: E.store, genesis: devnet.genesisPath });
      const until = Date.now() + 60000;
      for (;;) {
        const now = await applied(E.cached);
        if (['P/block', 'X/block', 'C/block'].every((k) => now[k] >= was[k] + 8)) break;
        assert.ok(Date.now() < until, `the store did not grow: ${JSON.stringify(was)} -> ${JSON.stringify(now)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      await E.indexer.stop();
      let changed = 0;
      for (const [i, u] of urls.entries()) {
        const got = await L.apiGet(`${E.cached.base}/${u}`);
        const want = await L.apiGet(`${E.plain.base}/${u}`);
        assert.equal(got.status, 200, `${u}: ${got.text}`);
        assert.equal(withoutToken(got.text), withoutToken(want.text), `${u}: the cached server answers with what the store held before`);
        if (withoutToken(got.text) !== withoutToken(before[i])) changed++;
      }
      assert.ok(changed > 0, 'none of the lists changed while the devnet grew: the test shows nothing');
    });
  }
});
