// dataapi-truth.test.mjs — the Data API against the truth, on both store backends.
//
// A `fuji` devnet node (`snowline devnet`, DATAAPI_TXS txs, default 3000) is indexed by
// `snowline index --genesis` into SQLite and into a fresh PostgreSQL database, and served by
// `snowline api` (the ASan binary) over each. The truth is the node's own containers, decoded
// here with @avalabs/avalanchejs 5.2.0 and our small walkers, replayed by devnet-ledger.mjs
// (which checks the replay against the devnet's manifest) with a trace of every UTXO's life
// (dataapi-lib.mjs); balances are also checked against the manifest. Every test body runs once
// per backend.
//
//  1. UTXOs of every address on P, X and C, spent and unspent, every field (utxoBytes decoded by
//     avalanchejs): GET with includeSpent, the default unspent list, sortBy amount, the X-chain
//     assetId filter, and one POST over all the addresses at pageSize 1024.
//  2. Balances of every address on P (8 buckets), X (4) and C (atomic memory) at ≥ 5
//     blockTimestamps per address: the genesis, before and after an export, before and after its
//     import, before and while stake is locked, before and after it returns, the history's end
//     (also against the manifest's P balances) and now; and 64 addresses in one request.
//  3. Tx lists of every address on P, X and C (and of every EVM address on C), oldest first,
//     every field the txs determine (consumed and emitted UTXOs, credentials and their keys, BLS
//     credentials, L1 validators of a conversion); a time window and a tx type as filters.
//  4. The txs of every X-chain asset.
//  5. Vertices, and vertices at every height in both orders.
//  6. Blocks by node on P, X and C for every proposer (checked against the manifest's
//     proposers too).
//  7. Paging while the devnet grows: the devnet restarts with live steps; every list above (for
//     one address, asset, height or node each) and the chains' latest txs are read with page sizes
//     1, 7 and the maximum (100; 1024 for POST utxos), in both sort orders where the list has them,
//     while blocks arrive; then the devnet stops, the stores catch up and each
//     reading is checked against the truth at the end: each item exactly once, in order
//     (checkPaging in dataapi-lib.mjs says what that means for each order).
//
// Seed: DATAAPI_SEED (default snowline-dataapi).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir, cleanup } from './lib.mjs';
import * as L from './dataapi-lib.mjs';

const TXS = Number(process.env.DATAAPI_TXS || 3000);
const SEED = process.env.DATAAPI_SEED || 'snowline-dataapi';
const BACKENDS = ['sqlite', 'postgres'];
const LIVE_MS = 100; // a live step (10 txs, 1 s of chain time) this often while the lists are paged
const dir = tempDir('snowline-dataapi-');
const nodeDir = join(dir, 'node');
let devnet, truth, manifest, genesis;
const env = Object.fromEntries(BACKENDS.map((b) => [b, { backend: b }]));
const procs = () => [devnet, ...BACKENDS.flatMap((b) => [env[b].api, env[b].indexer])].filter(Boolean);

before(async () => {
  devnet = await L.startDevnetNode({ dataDir: nodeDir, txs: TXS, seed: SEED });
  manifest = devnet.manifest();
  genesis = devnet.genesis();
  truth = await L.readTruth({ nodeUrl: devnet.url, manifest, genesis, dir });
  assert.deepEqual(truth.problems, [], `the ledger replay of the node's containers disagrees with the manifest:\n${truth.problems.slice(0, 20).join('\n')}`);
  assert.deepEqual(truth.containers, manifest.containers, 'the node serves the manifest\'s containers');
});

after(async () => {
  for (const p of procs()) await p.stop().catch(() => {});
  for (const b of BACKENDS) if (env[b].store) L.dropStore(env[b].store);
  cleanup(dir);
});

const fail = (diffs, what) => assert.equal(diffs.length, 0, `${what}: ${diffs.length} differences from the truth:\n${diffs.slice(0, 25).join('\n')}`);
const addrOf = (hex) => L.bech(truth.hrp, hex);

async function startStack(E, nodeUrl, { fresh }) {
  if (fresh) E.store = L.freshStore(E.backend, dir, `truth_${E.backend}`);
  E.indexer = L.startIndexer({ nodeUrl, store: E.store, genesis: devnet.genesisPath });
  await E.indexer.ready;
  E.api ??= await L.startApi({ store: E.store });
}

for (const backend of BACKENDS) {
  describe(`${backend}: the Data API against the truth`, () => {
    const E = env[backend];
    before(async () => {
      const t0 = Date.now();
      await startStack(E, devnet.url, { fresh: true });
      await L.waitCaughtUp(E.api, { target: truth.containers, indexer: E.indexer, timeoutMs: 180000 });
      E.indexMs = Date.now() - t0;
    });

    test('UTXOs of every address on P, X and C, spent and unspent (GET, sortBy, assetId, POST)', async (t) => {
      const diffs = [];
      let n = 0, spent = 0, shared = 0, pages = 0;
      for (const acct of truth.accounts) {
        const a = addrOf(acct.hex);
        for (const c of L.CHAINS) {
          const shape = c === 'P' ? 'P' : 'X';
          const url = `${E.api.base}/${L.ALIAS[c]}/utxos?addresses=${a}`;
          const want = L.utxosOf(truth, c, acct.hex);
          // every UTXO it ever owned there, oldest first, every field
          const all = await L.fetchAllPages(`${url}&includeSpent=true`, 'utxos', { pageSize: 100 });
          pages += all.pages;
          const ids = all.items.map((u) => u.utxoId);
          if (ids.join() !== want.map((u) => u.id).join()) { diffs.push(`${c} ${a} includeSpent: ${ids.length} UTXOs, want ${want.length}: ${listDiff(ids, want.map((u) => u.id))}`); continue; }
          all.items.forEach((g, i) => diffs.push(...L.diffUtxo(truth, g, want[i], shape, `${c} ${a} `)));
          n += ids.length;
          spent += want.filter((u) => u.consumed).length;
          shared += want.filter((u) => u.chain !== c).length;
          // the default list: unspent only
          const unspent = want.filter((u) => !u.consumed).map((u) => u.id);
          const def = (await L.fetchAllPages(url, 'utxos', { pageSize: 100 })).items.map((u) => u.utxoId);
          if (def.join() !== unspent.join()) diffs.push(`${c} ${a} unspent: ${listDiff(def, unspent)}`);
          // by amount, largest first
          const byAmount = want.filter((u) => !u.consumed).sort(L.cmpUtxoAmount).reverse().map((u) => u.id);
          const am = (await L.fetchAllPages(`${url}&sortBy=amount&sortOrder=desc`, 'utxos', { pageSize: 100 })).items.map((u) => u.utxoId);
          if (am.join() !== byAmount.join()) diffs.push(`${c} ${a} sortBy=amount desc: ${listDiff(am, byAmount)}`);
          // one asset of the X-chain (its second one, if any), spent ones too
          const other = [...new Set(want.map((u) => u.asset))].filter((x) => x !== manifest.avaxAssetId)[0];
          if (c === 'X' && other) {
            const wa = want.filter((u) => u.asset === other).map((u) => u.id);
            const ga = (await L.fetchAllPages(`${url}&includeSpent=true&assetId=${other}`, 'utxos', { pageSize: 100 })).items.map((u) => u.utxoId);
            if (ga.join() !== wa.join()) diffs.push(`X ${a} assetId=${other}: ${listDiff(ga, wa)}`);
          }
        }
      }
      // every address at once (POST, largest page): a UTXO owned by several of them once
      const everyone = truth.accounts.map((x) => x.hex);
      for (const c of L.CHAINS) {
        const want = L.utxosOf(truth, c, everyone).map((u) => u.id);
        const got = await L.fetchAllPages(`${E.api.base}/${L.ALIAS[c]}/utxos?includeSpent=true`, 'utxos',
          { pageSize: 1024, body: { addresses: everyone.map(addrOf).join(',') } });
        const ids = got.items.map((u) => u.utxoId);
        if (ids.join() !== want.join()) diffs.push(`POST ${c} (${everyone.length} addresses): ${listDiff(ids, want)}`);
        t.diagnostic(`POST ${c}: ${ids.length} UTXOs of ${everyone.length} addresses in ${got.pages} pages`);
      }
      t.diagnostic(`${n} UTXOs compared field by field (${spent} spent, ${shared} exported to the chain they are listed on) in ${pages} pages; indexing took ${E.indexMs} ms`);
      assert.ok(n > 1000 && spent > 100 && shared > 50, `too little data: ${n} UTXOs, ${spent} spent, ${shared} atomic`);
      fail(diffs, 'UTXOs');
    });

    test('balances of every address on P, X and C at ≥ 5 timestamps (export and import, stake locked and returned)', async (t) => {
      const diffs = [];
      const now = () => Math.floor(Date.now() / 1000);
      const buckets = new Set();
      let n = 0, moments = 0;
      for (const acct of truth.accounts) {
        const a = addrOf(acct.hex);
        const ts = balanceMoments(acct.hex);
        moments += ts.size;
        for (const c of L.CHAINS) for (const tm of [...ts, undefined]) {
          const r = await L.apiGet(`${E.api.base}/${L.ALIAS[c]}/balances?addresses=${a}${tm === undefined ? '' : `&blockTimestamp=${tm}`}`);
          if (r.status !== 200) { diffs.push(`${c} ${a} @${tm}: ${r.status} ${r.text.slice(0, 200)}`); continue; }
          const at = tm ?? now();
          const want = L.expectBalances(truth, c, acct.hex, at);
          const { balances, bad } = L.balancesForm(truth, c, r.json);
          diffs.push(...bad.map((x) => `${c} ${a} @${tm}: ${x}`), ...L.diffObj(balances, want, `${c} ${a} @${tm ?? 'now'}`));
          if (r.json.chainInfo?.chainName !== L.ALIAS[c] || r.json.chainInfo?.network !== 'fuji') diffs.push(`${c} ${a}: chainInfo ${JSON.stringify(r.json.chainInfo)}`);
          for (const [k, v] of Object.entries(want)) if (Object.keys(v).length) buckets.add(`${c}.${k}`);
          n++;
        }
        // the manifest's P balances at the history's end (L1 balance refunds included)
        const m = manifest.P.balances[acct.pAddress];
        if (m) {
          const r = await L.apiGet(`${E.api.base}/p-chain/balances?addresses=${a}&blockTimestamp=${manifest.endTime}`);
          const sum = (...ks) => ks.reduce((s, k) => s + r.json.balances[k].reduce((x, e) => x + BigInt(e.amount), 0n), 0n);
          const got = { unlocked: String(sum('unlockedUnstaked')), locked: String(sum('lockedPlatform', 'lockedStakeable')), staked: String(sum('unlockedStaked', 'lockedStaked', 'pendingStaked')) };
          diffs.push(...L.diffObj(got, m, `manifest P.balances ${acct.pAddress}`));
        }
      }
      // 64 addresses in one request (the most a GET takes, API_MAX_ADDRESSES_GET): a UTXO several of them own counts once
      const all = truth.accounts.slice(0, 64).map((x) => x.hex);
      for (const c of L.CHAINS) for (const tm of [truth.genesisTs, Math.floor((truth.genesisTs + manifest.endTime) / 2), manifest.endTime]) {
        const r = await L.apiGet(`${E.api.base}/${L.ALIAS[c]}/balances?addresses=${all.map(addrOf).join(',')}&blockTimestamp=${tm}`);
        const { balances, bad } = L.balancesForm(truth, c, r.json ?? {});
        if (r.status !== 200) { diffs.push(`${c} ${all.length} addresses @${tm}: ${r.status} ${r.text.slice(0, 200)}`); continue; }
        diffs.push(...bad, ...L.diffObj(balances, L.expectBalances(truth, c, all, tm), `${c} ${all.length} addresses @${tm}`));
      }
      t.diagnostic(`${n} balances at ${moments} moments over ${truth.accounts.length} addresses; buckets seen non-empty: ${[...buckets].sort().join(', ')}`);
      for (const b of ['P.unlockedUnstaked', 'P.unlockedStaked', 'P.lockedStaked', 'P.pendingStaked', 'P.lockedStakeable', 'P.lockedPlatform', 'P.atomicMemoryUnlocked', 'X.unlocked', 'X.locked', 'X.atomicMemoryUnlocked', 'C.atomicMemoryUnlocked'])
        assert.ok(buckets.has(b), `the data set never fills ${b}`);
      fail(diffs, 'balances');
    });

    test('tx lists of every address on P, X and C (and every EVM address on C), every field', async (t) => {
      const diffs = [];
      let n = 0;
      const types = {};
      for (const acct of truth.accounts) {
        for (const c of L.CHAINS) {
          const a = addrOf(acct.hex);
          const want = L.txsOf(truth, c, acct.hex);
          const got = (await L.fetchAllPages(`${E.api.base}/${L.ALIAS[c]}/transactions?addresses=${a}&sortOrder=asc`, 'transactions', { pageSize: 100 })).items;
          const ids = got.map((x) => x.txHash);
          if (ids.join() !== want.map((x) => x.id).join()) { diffs.push(`${c} ${a}: ${listDiff(ids, want.map((x) => x.id))}`); continue; }
          got.forEach((g, i) => { diffs.push(...L.diffTx(truth, g, want[i])); types[`${c}.${want[i].type}`] = (types[`${c}.${want[i].type}`] ?? 0) + 1; });
          n += got.length;
        }
        const evm = acct.evmAddress.slice(2);
        const want = L.txsOf(truth, 'C', evm, { evm: true });
        const got = (await L.fetchAllPages(`${E.api.base}/c-chain/transactions?addresses=0x${evm}&sortOrder=asc`, 'transactions', { pageSize: 100 })).items;
        const ids = got.map((x) => x.txHash);
        if (ids.join() !== want.map((x) => x.id).join()) diffs.push(`C 0x${evm}: ${listDiff(ids, want.map((x) => x.id))}`);
        else got.forEach((g, i) => diffs.push(...L.diffTx(truth, g, want[i])));
        n += got.length;
      }
      // filters, for one address per chain: a time window (both ends inclusive) and one tx type
      for (const c of L.CHAINS) {
        const acct = truth.accounts.map((x) => x.hex).sort((a, b) => L.txsOf(truth, c, b).length - L.txsOf(truth, c, a).length)[0];
        const mine = L.txsOf(truth, c, acct);
        const lo = mine[Math.floor(mine.length / 4)].at.ts, hi = mine[Math.floor((3 * mine.length) / 4)].at.ts;
        const type = mine[Math.floor(mine.length / 2)].type;
        for (const [q, keep] of [[`startTimestamp=${lo}&endTimestamp=${hi}`, (x) => x.at.ts >= lo && x.at.ts <= hi], [`txTypes=${type}`, (x) => x.type === type]]) {
          const want = mine.filter(keep).map((x) => x.id).reverse(); // the default order: latest first
          const got = (await L.fetchAllPages(`${E.api.base}/${L.ALIAS[c]}/transactions?addresses=${addrOf(acct)}&${q}`, 'transactions', { pageSize: 7 })).items.map((x) => x.txHash);
          if (got.join() !== want.join()) diffs.push(`${c} ${addrOf(acct)} ${q}: ${listDiff(got, want)}`);
        }
      }
      t.diagnostic(`${n} txs compared; by type: ${JSON.stringify(types)}`);
      for (const c of L.CHAINS) assert.ok(Object.keys(types).some((k) => k.startsWith(`${c}.`)), `no ${c} tx in any list`);
      fail(diffs, 'tx lists');
    });

    test('txs of every X-chain asset', async (t) => {
      const diffs = [];
      let n = 0;
      for (const A of truth.assets.values()) {
        const want = [...A.txs].reverse(); // latest first: the list has no sortOrder
        const got = (await L.fetchAllPages(`${E.api.base}/x-chain/assets/${A.assetId}/transactions`, 'transactions', { pageSize: 100 })).items;
        const ids = got.map((x) => x.txHash);
        if (ids.join() !== want.map((x) => x.id).join()) { diffs.push(`asset ${A.assetId} (${A.symbol}): ${listDiff(ids, want.map((x) => x.id))}`); continue; }
        got.forEach((g, i) => diffs.push(...L.diffTx(truth, g, want[i])));
        n += got.length;
      }
      t.diagnostic(`${n} txs of ${truth.assets.size} assets`);
      fail(diffs, 'asset txs');
    });

    test('vertices, and vertices at every height in both orders', async (t) => {
      const diffs = [];
      const got = await L.fetchAllPages(`${E.api.base}/x-chain/vertices`, 'vertices', { pageSize: 100 });
      diffs.push(...L.diffObj(got.items, [...truth.vertices].reverse().map(L.expectVertex), 'vertices'));
      const heights = [...new Set(truth.vertices.map((v) => v.height))];
      for (const h of heights) for (const order of ['asc', 'desc']) {
        let want = truth.vertices.filter((v) => v.height === h);
        if (order === 'desc') want = want.reverse();
        const g = await L.fetchAllPages(`${E.api.base}/x-chain/vertices:listByHeight?vertexHeight=${h}&sortOrder=${order}`, 'vertices', { pageSize: 100 });
        diffs.push(...L.diffObj(g.items, want.map(L.expectVertex), `vertices at ${h} ${order}`));
      }
      t.diagnostic(`${got.items.length} vertices, ${heights.length} heights`);
      assert.ok(truth.vertices.length > 20, 'too few vertices');
      fail(diffs, 'vertices');
    });

    test('blocks by node on P, X and C for every proposer', async (t) => {
      const diffs = [];
      let n = 0;
      for (const c of L.CHAINS) {
        const byNode = manifest.chains[c].proposers.byNode;
        const nodes = new Set([...truth.blocks[c].map((b) => b.proposer).filter(Boolean), ...Object.keys(byNode)]);
        for (const node of nodes) {
          const want = L.blocksOf(truth, c, node);
          // the manifest lists the same blocks (container ids) for the node
          const listed = new Set(byNode[node]?.blockIds ?? []);
          if (listed.size !== want.length || want.some((b) => !listed.has(b.containerId))) diffs.push(`${c} ${node}: the manifest lists ${listed.size} blocks, its certificates sign ${want.length}`);
          const got = (await L.fetchAllPages(`${E.api.base}/${L.ALIAS[c]}/nodes/${node}/blocks`, 'blocks', { pageSize: 100 })).items;
          // C: blockType has no truth in the block (the API names it), only that it is a string
          const g = got.map((b) => { if (c !== 'C') return b; const { blockType, ...rest } = b; if (typeof blockType !== 'string') diffs.push(`C block ${b.blockHash}: blockType ${blockType}`); return rest; });
          diffs.push(...L.diffObj(g, want.map((b) => L.expectBlock(c, b, node)), `${c} blocks of ${node}`));
          n += got.length;
        }
      }
      t.diagnostic(`${n} blocks by their proposers`);
      assert.ok(n > 500, `only ${n} signed blocks`);
      fail(diffs, 'blocks by node');
    });

    // The remaining balance a DisableL1ValidatorTx or a SetL1ValidatorWeightTx to weight 0 returns
    // to the validator's remaining-balance owner at (tx id, len(outs)): chain state, not in the tx,
    // so the indexer's L1 fee model makes it. The lists above compare them with the rest; this
    // says the data set has them and each is served, with the amount the ledger replay computed.
    test('L1 balance refunds', async (t) => {
      const refunds = [...truth.utxos.values()].filter((u) => u.chain === 'P' && u.createdBy &&
        ['DisableL1ValidatorTx', 'SetL1ValidatorWeightTx'].includes(truth.txById.get(u.createdBy)?.type) && u.idx >= truth.txById.get(u.createdBy).n.outs.length);
      assert.ok(refunds.length > 0, 'the data set has no refund to check');
      const diffs = [];
      for (const u of refunds) {
        const got = await L.fetchAllPages(`${E.api.base}/p-chain/utxos?addresses=${addrOf(u.owners.addrs[0])}&includeSpent=true`, 'utxos', { pageSize: 100 });
        const x = got.items.find((i) => i.utxoId === u.id);
        if (!x) diffs.push(`${u.id} (${u.txId}:${u.idx}, ${u.amount} nAVAX) is not served`);
        else if (x.amount !== String(u.amount)) diffs.push(`${u.id}: amount ${x.amount}, want ${u.amount}`);
      }
      t.diagnostic(`${refunds.length} refunds`);
      fail(diffs, 'L1 balance refunds');
    });
  });
}

// ---------------------------------------------------------------------------------------------
// paging while the devnet grows

// The moments to ask an address's balances at: the genesis and just before, the history's end;
// around one of its UTXOs exported to another chain and imported there; around the period of one
// of its stakes that was pending first, and of one returned.
function balanceMoments(hex) {
  const mine = truth.byOwner.get(hex) ?? [];
  const ts = new Set([truth.genesisTs - 1, truth.genesisTs, manifest.endTime]);
  const moved = mine.find((u) => u.chain !== u.dest && u.consumed && !u.genesis);
  if (moved) for (const x of [moved.created.ts - 1, moved.created.ts, moved.consumed.at.ts - 1, moved.consumed.at.ts]) ts.add(x);
  for (const s of [mine.find((u) => u.staked && u.unstaked && u.staked.start > u.created.ts), mine.find((u) => u.staked && u.unstaked)])
    if (s) for (const x of [s.created.ts - 1, s.staked.start, s.staked.start + 1, s.unstaked.ts - 1, s.unstaked.ts]) ts.add(x);
  return ts;
}

// A short description of how two id lists differ.
function listDiff(got, want) {
  const g = new Set(got), w = new Set(want);
  const extra = got.filter((x) => !w.has(x)), missing = want.filter((x) => !g.has(x));
  const twice = got.length - g.size;
  if (!extra.length && !missing.length) return `${got.length} items (${twice} shown twice), want ${want.length}; first difference at ${got.findIndex((x, i) => x !== want[i])}`;
  return `${got.length} items, want ${want.length}; extra ${JSON.stringify(extra.slice(0, 4))}; missing ${JSON.stringify(missing.slice(0, 4))}`;
}

/*
 * The lists the paging test reads, chosen from the truth before the devnet grows (addresses and
 * nodes with tens of items, so page size 1 costs tens of requests). Each: the URL, the array's
 * name, its largest page, its orders (sortOrder, or the one fixed order), the identity of an API
 * item, and its truth at the end (T): items in ascending list order with what must be indexed for
 * the API to show them (deps) and whether they stay in the list (stable: spent UTXOs leave the
 * unspent list).
 */
function pagingLists(T0) {
  // the candidate with the most items in [lo, hi]; else the one nearest that range
  const pick = (cands, size, lo, hi) => {
    const all = cands.map((x) => [x, size(x)]);
    assert.ok(all.length, 'no candidate');
    const dist = (n) => (n < lo ? lo - n : n > hi ? n - hi : 0);
    return all.sort((a, b) => dist(a[1]) - dist(b[1]) || b[1] - a[1])[0][0];
  };
  const accts = T0.accounts.map((a) => a.hex);
  const aP = pick(accts, (h) => L.utxosOf(T0, 'P', h).length, 15, 60);
  const aX = pick(accts, (h) => L.utxosOf(T0, 'X', h).filter((u) => !u.consumed).length, 10, 50);
  const cs = accts.map((h) => [h, L.utxosOf(T0, 'C', h).length]).sort((a, b) => b[1] - a[1]).slice(0, 2).map(([h]) => h);
  const tP = pick(accts, (h) => L.txsOf(T0, 'P', h).length, 15, 60);
  const tX = pick(accts, (h) => L.txsOf(T0, 'X', h).length, 15, 60);
  const evms = T0.accounts.map((a) => a.evmAddress.slice(2));
  const tC = pick(evms, (e) => L.txsOf(T0, 'C', e, { evm: true }).length, 4, 40);
  const asset = pick([...T0.assets.values()].filter((a) => a.assetId !== T0.manifest.avaxAssetId), (a) => a.txs.length, 8, 60);
  const height = pick([...new Set(T0.vertices.map((v) => v.height))], (h) => T0.vertices.filter((v) => v.height === h).length, 2, 10);
  const top = (c) => pick([...new Set(T0.blocks[c].map((b) => b.proposer).filter(Boolean))], (nd) => L.blocksOf(T0, c, nd).length, 10, 150);
  const utxoItems = (c, hexes, cmp, unspent) => (T) => L.utxosOf(T, c, hexes).sort(cmp).map((u) => ({ key: u.id, deps: [u.created.dep], stable: !unspent || !u.consumed }));
  const txItems = (c, h, evm) => (T) => L.txsOf(T, c, h, { evm }).map((t) => ({ key: t.id, deps: evm ? [t.at.dep] : t.parties.get(h), stable: true }));
  const both = ['asc', 'desc'];
  const lists = [
    // the chains' latest txs grow with every live step: oldest first, a reading sees new ones at its end
    ...L.CHAINS.map((c) => ({ name: `${c} latest txs`, path: `${L.ALIAS[c]}/transactions`, key: 'transactions', max: 100, orders: both, id: (x) => x.txHash,
      truth: (T) => T.txs[c].map((t) => ({ key: t.id, deps: [t.at.dep], stable: true })) })),
    { name: `P UTXOs of ${addrOf(aP)} (includeSpent, by time)`, path: `p-chain/utxos?addresses=${addrOf(aP)}&includeSpent=true&sortBy=timestamp`, key: 'utxos', max: 100, orders: both, id: (u) => u.utxoId, truth: utxoItems('P', aP, L.cmpUtxoTs, false) },
    { name: `X unspent UTXOs of ${addrOf(aX)} (by amount)`, path: `x-chain/utxos?addresses=${addrOf(aX)}&sortBy=amount`, key: 'utxos', max: 100, orders: both, id: (u) => u.utxoId, truth: utxoItems('X', aX, L.cmpUtxoAmount, true) },
    { name: `C UTXOs of 2 addresses (POST, includeSpent)`, path: 'c-chain/utxos?includeSpent=true', body: { addresses: cs.map(addrOf).join(',') }, key: 'utxos', max: 1024, orders: both, id: (u) => u.utxoId, truth: utxoItems('C', cs, L.cmpUtxoTs, false) },
    { name: `P txs of ${addrOf(tP)}`, path: `p-chain/transactions?addresses=${addrOf(tP)}`, key: 'transactions', max: 100, orders: both, id: (x) => x.txHash, truth: txItems('P', tP, false) },
    { name: `X txs of ${addrOf(tX)}`, path: `x-chain/transactions?addresses=${addrOf(tX)}`, key: 'transactions', max: 100, orders: both, id: (x) => x.txHash, truth: txItems('X', tX, false) },
    { name: `C atomic txs of 0x${tC}`, path: `c-chain/transactions?addresses=0x${tC}`, key: 'transactions', max: 100, orders: both, id: (x) => x.txHash, truth: txItems('C', tC, true) },
    { name: `txs of asset ${asset.symbol}`, path: `x-chain/assets/${asset.assetId}/transactions`, key: 'transactions', max: 100, orders: ['desc*'], id: (x) => x.txHash,
      truth: (T) => T.assets.get(asset.assetId).txs.map((t) => ({ key: t.id, deps: [t.at.dep], stable: true })) },
    { name: 'vertices', path: 'x-chain/vertices', key: 'vertices', max: 100, orders: ['desc*'], id: (v) => v.vertexHash,
      truth: (T) => T.vertices.map((v) => ({ key: v.id, deps: [{ kind: 'X/vtx', index: v.index }], stable: true })) },
    { name: `vertices at height ${height}`, path: `x-chain/vertices:listByHeight?vertexHeight=${height}`, key: 'vertices', max: 100, orders: both, id: (v) => v.vertexHash,
      truth: (T) => T.vertices.filter((v) => v.height === height).map((v) => ({ key: v.id, deps: [{ kind: 'X/vtx', index: v.index }], stable: true })) },
    ...L.CHAINS.map((c) => {
      const nd = top(c);
      return { name: `${c} blocks of ${nd}`, path: `${L.ALIAS[c]}/nodes/${nd}/blocks`, key: 'blocks', max: 100, orders: ['desc*'], id: (b) => b.blockHash,
        truth: (T) => L.blocksOf(T, c, nd).reverse().map((b) => ({ key: b.id, deps: [{ kind: `${c}/block`, index: b.index }], stable: true })) };
    }),
  ];
  return lists;
}

describe('paging while the devnet grows', () => {
  let lists;
  before(async () => {
    lists = pagingLists(truth);
    // the devnet again, now adding a step of 10 txs every LIVE_MS; both stores follow it
    for (const b of BACKENDS) await env[b].indexer?.stop();
    await devnet.stop();
    devnet = await L.startDevnetNode({ dataDir: nodeDir, txs: TXS, seed: SEED, intervalMs: LIVE_MS });
    for (const b of BACKENDS) env[b].indexer = L.startIndexer({ nodeUrl: devnet.url, store: env[b].store, genesis: devnet.genesisPath });
  });

  for (const backend of BACKENDS) {
    test(`${backend}: every list read with page sizes 1, 7 and the largest, in each order, while blocks arrive`, async (t) => {
      const E = env[backend];
      assert.ok(E.api, 'needs the static suite\'s stack');
      await L.waitCaughtUp(E.api, { nodeUrl: devnet.url, indexer: E.indexer });
      const start = await L.nodeCounts(devnet.url);
      E.readings = [];
      for (const list of lists) for (const order of list.orders) for (const size of [1, 7, list.max]) {
        const applied = Object.fromEntries(Object.entries((await L.health(E.api)).indexes).map(([k, v]) => [k, v.applied]));
        const sep = list.path.includes('?') ? '&' : '?';
        const url = `${E.api.base}/${list.path}${order.endsWith('*') ? '' : `${sep}sortOrder=${order}`}`;
        const { items, pages } = await L.fetchAllPages(url, list.key, { pageSize: size, body: list.body, maxPages: 20000 });
        E.readings.push({ list, order, size, applied, keys: items.map(list.id), pages });
      }
      const end = await L.nodeCounts(devnet.url);
      const grew = L.KINDS.filter((k) => end[k] > start[k]);
      t.diagnostic(`${E.readings.length} readings, ${E.readings.reduce((s, r) => s + r.pages, 0)} pages; the node went from ${JSON.stringify(start)} to ${JSON.stringify(end)}`);
      assert.ok(grew.includes('P/block') && grew.includes('X/block') && grew.includes('C/block'), 'the devnet did not grow while the lists were read');
    });
  }

  describe('once the devnet stops', () => {
    let T;
    before(async () => {
      // stop the live steps; a restart without them serves the same containers with their manifest
      for (const b of BACKENDS) await env[b].indexer.stop();
      await devnet.stop();
      devnet = await L.startDevnetNode({ dataDir: nodeDir, txs: TXS, seed: SEED, intervalMs: 0 });
      for (const b of BACKENDS) env[b].indexer = L.startIndexer({ nodeUrl: devnet.url, store: env[b].store, genesis: devnet.genesisPath });
      T = await L.readTruth({ nodeUrl: devnet.url, manifest: devnet.manifest(), genesis, dir });
      assert.deepEqual(T.problems, [], `the ledger replay after the live steps:\n${T.problems.slice(0, 20).join('\n')}`);
      for (const b of BACKENDS) await L.waitCaughtUp(env[b].api, { target: T.containers, indexer: env[b].indexer, timeoutMs: 180000 });
    });

    for (const backend of BACKENDS) {
      test(`${backend}: each item exactly once, in order; nothing missing that was there all along`, (t) => {
        const E = env[backend];
        assert.ok(E.readings?.length, 'needs the readings');
        const problems = [];
        let appeared = 0, total = 0;
        for (const r of E.readings) {
          const items = r.list.truth(T);
          const pos = new Map(items.map((x, i) => [x.key, i]));
          const isApplied = L.appliedIn(r.applied);
          const must = new Set(items.filter((x) => x.stable && isApplied(x.deps)).map((x) => x.key));
          const desc = r.order.startsWith('desc');
          problems.push(...L.checkPaging({ items: r.keys, key: (k) => k, must, may: new Set(pos.keys()), cmp: (a, b) => pos.get(a) - pos.get(b), desc,
            where: `${r.list.name}, ${r.order.replace('*', '')}, pageSize ${r.size}` }));
          // items the store did not have when the reading began, shown by it
          appeared += r.keys.filter((k) => pos.has(k) && !isApplied(items[pos.get(k)].deps)).length;
          total += r.keys.length;
        }
        t.diagnostic(`${E.readings.length} readings, ${total} items; ${appeared} of them were indexed after their reading began (asc lists show them at the end)`);
        assert.ok(appeared > 0, 'no reading saw an item indexed while it was paged: the test did not exercise growth');
        fail(problems, 'paging');
      });
    }

    for (const backend of BACKENDS) {
      test(`${backend}: after the growth every paged list equals the truth`, async () => {
        const E = env[backend];
        const diffs = [];
        for (const list of lists) {
          const want = list.truth(T).filter((x) => x.stable).map((x) => x.key);
          const order = list.orders[0];
          const sep = list.path.includes('?') ? '&' : '?';
          const url = `${E.api.base}/${list.path}${order.endsWith('*') ? '' : `${sep}sortOrder=${order}`}`;
          const got = (await L.fetchAllPages(url, list.key, { pageSize: list.max, body: list.body })).items.map(list.id);
          const w = order.startsWith('desc') ? [...want].reverse() : want;
          if (got.join() !== w.join()) diffs.push(`${list.name}: ${listDiff(got, w)}`);
        }
        fail(diffs, 'lists after the growth');
      });
    }
  });
});
