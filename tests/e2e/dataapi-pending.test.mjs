// dataapi-pending.test.mjs — GET /v1/networks/{network}/rewards:listPending (spec 000 §4.5, §2.5
// PendingReward) and GET …/blockchains/p-chain/transactions:listStaking (§4.3) against the truth, on
// one store backend: SQLite here, PostgreSQL in dataapi-pending-pg.test.mjs (the same file on a
// database of the server tests/run.sh starts).
//
// A `fuji` devnet node (`snowline devnet`, the release binary: the ground truth) is indexed by
// `snowline index --genesis` and served by `snowline api` (the ASan binary). The truth is the
// devnet's manifest (P.validators and P.delegators: period, weight, status, potential reward,
// rewards owner, fee, validator) and the node's own containers replayed by devnet-ledger.mjs
// (dataapi-lib.mjs buildTruth: which block accepted and ended each staker, who took part in each tx,
// the supply after each P block). "Now" is the chain's time: the last P block's. Nothing here reads
// the store or src/.
//
// Devnet histories always pass Durango, so at their end no staker waits for a later start. To see
// pending ones, a second node serves a prefix of the same P-chain (cut where the most stakers wait:
// `snowline node --import` of the first k+1 P blocks), indexed and served the same way; its truth is
// the same history's, cut at block k.
//
//  1. every account alone and every node alone: the whole list, every field, both orders;
//  2. several at once (groups, 64 addresses, every node, addresses with nodeIds, co-owners once);
//     an ended staker is absent;
//  3. paging: page sizes 1, 7 and 100 in both orders give each item once, in order;
//  4. the prefix: pending stakers (progress 0, the reward formula on the supply of then), ended and
//     current ones, by address and node; listStaking leaves the pending ones out;
//  5. listStaking: every account's active staking txs (every field, as …/transactions renders them),
//     groups, each filter (txTypes, startTimestamp, endTimestamp, sortOrder) changing the list;
//  6. every body parses with the SDK's schemas made strict, and the SDK reads both lists through its
//     own pagination unchanged.
// Bad input is dataapi-badinput.test.mjs's (table-driven from routes.c).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir, cleanup, startNode, writeClog, BIN_RELEASE } from './lib.mjs';
import { readNodeIndexes } from './devnet-lib.mjs';
import { potentialReward, split } from './devnet-ledger.mjs';
import * as L from './dataapi-lib.mjs';
import { checkBody, sdkClient, NETWORK, SCHEMAS } from './dataapi-schema-lib.mjs';

const BACKEND = process.env.SNOWLINE_PENDING_BACKEND ?? 'sqlite';
const TXS = Number(process.env.DATAAPI_TXS || 3000);
const SEED = process.env.DATAAPI_SEED || 'snowline-pending';
const PRIMARY = '11111111111111111111111111111111LpoYY';
// the txs that stake (a permissioned subnet validator's AddSubnetValidatorTx stakes nothing)
const STAKING = new Set(['AddValidatorTx', 'AddDelegatorTx', 'AddPermissionlessValidatorTx', 'AddPermissionlessDelegatorTx']);
const dir = tempDir('snowline-pending-');
let devnet, truth, M, stakers, full, cut, cutNode;
const procs = [];
let bodies = 0; // responses checked against the strict schema

// A store of a node's history, its indexer (stopped once it holds `target`) and an API over it.
async function serve(nodeUrl, name, target) {
  const store = L.freshStore(BACKEND, dir, name);
  const indexer = L.startIndexer({ nodeUrl, store, genesis: devnet.genesisPath });
  procs.push(indexer);
  await indexer.ready;
  const api = await L.startApi({ store });
  procs.push(api);
  await L.waitCaughtUp(api, { target, indexer, timeoutMs: 180000 });
  await indexer.stop();
  return { api, store };
}

before(async () => {
  devnet = await L.startDevnetNode({ dataDir: join(dir, 'node'), txs: TXS, seed: SEED });
  procs.push(devnet);
  const idx = await readNodeIndexes(devnet.url);
  truth = L.buildTruth(idx, devnet.manifest(), { genesis: devnet.genesis(), dir });
  assert.deepEqual(truth.problems, [], `the ledger replay disagrees with the manifest:\n${truth.problems.slice(0, 20).join('\n')}`);
  M = truth.manifest;
  stakers = stakerTruth();
  full = await serve(devnet.url, 'pending', truth.containers);
  full.k = truth.blocks.P.length - 1;
  // the prefix: the first k+1 P blocks, k where the most stakers wait for their start
  const k = cutIndex();
  const clog = writeClog(join(dir, 'cut.clog'), idx['P/block'].slice(0, k + 1).map((c) => ({ kind: 'P/block', id: L.idBytes(c.id), ts: c.ts, bytes: c.bytes })));
  cutNode = await startNode(['--index-enabled', '--import', clog, '--network-id', '5', '--data-dir', join(dir, 'cut-node')], { bin: BIN_RELEASE });
  procs.push(cutNode);
  cut = await serve(cutNode.url, 'pending_cut', { 'P/block': k + 1, 'C/block': 0, 'X/tx': 0, 'X/block': 0, 'X/vtx': 0 });
  cut.k = k;
});

after(async () => {
  for (const p of procs.reverse()) await p.stop().catch(() => {});
  for (const s of [full, cut]) if (s) L.dropStore(s.store);
  cleanup(dir);
});

// ---- the truth ------------------------------------------------------------------------------------

/*
 * Every staker of the manifest (validators and delegators of every subnet) with what a cut of the
 * history needs: the P block (container index) that accepted it (-1: the genesis) and its place in
 * the chain (the list's order; the genesis validators first, by id), and the block that ended it:
 * a primary staker's RewardValidatorTx (its option block), a subnet validator's
 * RemoveSubnetValidatorTx.
 */
function stakerTruth() {
  const genesis = new Set(M.P.genesis.validators.map((v) => v.txId));
  const list = [...M.P.validators, ...M.P.delegators].map((m) => {
    const t = truth.txById.get(m.txId);
    assert.ok(t || genesis.has(m.txId), `staker ${m.txId}: its tx`);
    return { m, id: m.txId, idb: L.idBytes(m.txId), genesis: !t, t, order: t ? t.at.order : -1, accepted: t ? t.at.dep.index : -1,
      primary: m.subnetId === PRIMARY, delegator: /Delegator/.test(m.txType), start: Number(m.startTime), end: Number(m.endTime),
      ownersHex: (m.rewardOwner?.addresses ?? []).map(L.addrHex), endedIn: Infinity };
  });
  const byId = new Map(list.map((s) => [s.id, s]));
  for (const t of truth.txs.P) {
    if (t.type === 'RewardValidatorTx') byId.get(t.n.stakerTxId).endedIn = t.at.dep.index;
    if (t.type === 'RemoveSubnetValidatorTx') {
      // the validator of that node and subnet it removed: current at its time
      const s = list.find((x) => !x.primary && x.m.nodeId === t.n.nodeId && x.m.subnetId === t.n.subnetId && x.order < t.at.order && x.start <= t.at.ts && x.end > t.at.ts);
      assert.ok(s, `${t.id}: the subnet validator it removes`);
      s.endedIn = t.at.dep.index;
    }
  }
  for (const s of list) {
    if (!s.delegator) continue;
    s.validator = s.m.validatorTxId ? byId.get(s.m.validatorTxId)
      : list.find((v) => !v.delegator && v.primary && v.m.nodeId === s.m.nodeId && v.start <= s.start && v.end >= s.end);
    assert.ok(s.validator, `delegator ${s.id}: its validator`);
  }
  return list;
}

// A staker's state after P block k (at time T): absent (not accepted yet), ended, pending, active.
function stateAt(s, k, T) {
  if (s.accepted > k) return 'absent';
  if (s.endedIn <= k || (!s.primary && s.end <= T)) return 'ended';
  return s.start > T ? 'pending' : 'active';
}

const cmpStaker = (a, b) => a.order - b.order || Buffer.compare(a.idb, b.idb);

/*
 * The pending rewards after P block k (the store's now: that block's time), oldest first as
 * PendingReward items. Definitions (docs/api.md): the primary network's validators and delegators not
 * ended; progress the percentage of the period elapsed at now, floored to hundredths; estimatedReward
 * the potential reward fixed when it started (the manifest's), or for one not started the formula on
 * the supply after block k, a delegator's part after its validator's fee (reward.Split).
 */
function pendingAt(k) {
  const b = truth.blocks.P[k], T = b.ts, supply = BigInt(b.state.supply);
  const out = [];
  for (const s of stakers) {
    const st = stateAt(s, k, T);
    if (!s.primary || (st !== 'active' && st !== 'pending')) continue;
    const weight = BigInt(s.m.weight);
    let total = st === 'pending' ? potentialReward(supply, weight, BigInt(s.end - s.start)) : BigInt(s.m.potentialReward);
    if (s.delegator) total = split(total, s.validator.m.delegationFee)[0];
    const hund = st === 'pending' || T <= s.start ? 0n : T >= s.end ? 10000n : (BigInt(T - s.start) * 10000n) / BigInt(s.end - s.start);
    out.push({
      s, st, owners: s.ownersHex, node: s.m.nodeId,
      item: {
        addresses: s.m.rewardOwner.addresses.map((a) => a.replace(/^P-/, '')), txHash: s.id, amountStaked: String(weight), nodeId: s.m.nodeId,
        startTimestamp: s.start, endTimestamp: s.end, rewardType: s.delegator ? 'DELEGATOR' : 'VALIDATOR', progress: Number(hund) / 100,
        estimatedReward: L.assetAmount(truth, M.avaxAssetId, total),
      },
    });
  }
  return out.sort((x, y) => cmpStaker(x.s, y.s));
}

// The truth of a request on a store: the pending rewards owned by one of addrs (hex) and on one of nodes.
function want(store, { addrs, nodes, order = 'desc' }) {
  const list = pendingAt(store.k).filter((r) => (!addrs || r.owners.some((a) => addrs.includes(a))) && (!nodes || nodes.includes(r.node)));
  return order === 'desc' ? list.reverse() : list;
}

// The active staking txs after block k that one of addrs (hex) took part in, oldest first, filtered.
function stakingAt(k, { addrs, types, start, end, order = 'desc' }) {
  const T = truth.blocks.P[k].ts;
  const active = new Set(stakers.filter((s) => stateAt(s, k, T) === 'active').map((s) => s.id));
  const list = truth.txs.P.filter((t) => STAKING.has(t.type) && active.has(t.id) && addrs.some((a) => t.parties.has(a))
    && (!types || types.includes(t.type)) && (start === undefined || t.at.ts >= start) && (end === undefined || t.at.ts <= end));
  return order === 'desc' ? list.reverse() : list;
}

// The prefix: a standard block (not a proposal: its decision is in the next) where the most primary stakers wait.
function cutIndex() {
  let best = -1, most = 0;
  truth.blocks.P.forEach((b, k) => {
    if (b.type === 'BanffProposalBlock' || !b.state) return;
    const n = stakers.filter((s) => s.primary && stateAt(s, k, b.ts) === 'pending').length;
    if (n > most) { most = n; best = k; }
  });
  assert.ok(best >= 0, 'a moment with pending stakers');
  return best;
}

const addr = (hex) => L.bech(truth.hrp, hex);
const countBy = (list, f) => { const m = new Map(); for (const x of list) m.set(f(x), (m.get(f(x)) ?? 0) + 1); return m; };
const top = (m) => [...m].sort((a, b) => b[1] - a[1]).map(([k]) => k);

// ---- requests ---------------------------------------------------------------------------------------

const pendingUrl = (s) => `${s.api.url}/v1/networks/fuji/rewards:listPending`;
const stakingUrl = (s) => `${s.api.url}/v1/networks/fuji/blockchains/p-chain/transactions:listStaking`;

/*
 * Every page of a request (query: its parameters but pageSize and pageToken): each a 200 whose body
 * parses with the strict schema, at most pageSize items, a next page only after a full one. Resolves
 * the items and the number of pages.
 */
async function readAll(url, kind, query, pageSize) {
  const [key, chain] = kind === 'pendingRewards' ? ['pendingRewards', NETWORK] : ['transactions', 'P'];
  const items = [];
  let token, pages = 0;
  for (;;) {
    const q = L.qs({ ...query, pageSize, pageToken: token });
    const r = await L.apiGet(url + q);
    assert.equal(r.status, 200, `GET ${url}${q}: ${r.text.slice(0, 300)}`);
    const body = checkBody(kind, chain, r.text);
    bodies++;
    pages++;
    if (pageSize) assert.ok(body[key].length <= pageSize, `${q}: ${body[key].length} items in a page of ${pageSize}`);
    items.push(...body[key]);
    token = body.nextPageToken;
    if (!token) break;
    assert.equal(body[key].length, pageSize ?? 10, `${q}: a page short of its size before the end`);
    assert.ok(pages < 5000, `${q}: more than 5000 pages`);
  }
  return { items, pages };
}
const pending = (store, query, pageSize = 100) => readAll(pendingUrl(store), 'pendingRewards', query, pageSize);
const staking = (store, query, pageSize = 100) => readAll(stakingUrl(store), 'stakingTransactions', query, pageSize);

// A pending list read against its truth: the same stakers in the same order, every field.
function diffPending(got, w, where) {
  const ids = got.map((x) => x.txHash), wantIds = w.map((x) => x.item.txHash);
  if (ids.join() !== wantIds.join()) {
    const g = new Set(ids), s = new Set(wantIds);
    return [`${where}: ${ids.length} items (${ids.length - g.size} twice), want ${wantIds.length}; extra ${JSON.stringify(ids.filter((x) => !s.has(x)).slice(0, 3))}, missing ${JSON.stringify(wantIds.filter((x) => !g.has(x)).slice(0, 3))}, first difference at ${ids.findIndex((x, i) => x !== wantIds[i])}`];
  }
  return got.flatMap((x, i) => L.diffObj(x, w[i].item, `${where} [${i}]`));
}

// A staking list read against its truth: the same txs in the same order, each as the truth renders it.
function diffStaking(got, w, where) {
  const ids = got.map((x) => x.txHash), wantIds = w.map((t) => t.id);
  if (ids.join() !== wantIds.join()) {
    const g = new Set(ids), s = new Set(wantIds);
    return [`${where}: ${ids.length} txs, want ${wantIds.length}; extra ${JSON.stringify(ids.filter((x) => !s.has(x)).slice(0, 3))}, missing ${JSON.stringify(wantIds.filter((x) => !g.has(x)).slice(0, 3))}, first difference at ${ids.findIndex((x, i) => x !== wantIds[i])}`];
  }
  return got.flatMap((x, i) => L.diffTx(truth, x, w[i]));
}

const fail = (diffs, what) => assert.equal(diffs.length, 0, `${what}: ${diffs.length} differences from the truth:\n${diffs.slice(0, 25).join('\n')}`);

// ---- 0. the truth agrees with the manifest -----------------------------------------------------------

test('the truth: now is the last P block\'s time, and the states after it are the manifest\'s', () => {
  const last = truth.blocks.P[full.k];
  assert.equal(last.ts, Number(M.endTime), 'the manifest\'s endTime is the last P block\'s time');
  assert.equal(String(last.state.supply), String(M.supply), 'the supply after the last block');
  const names = { active: 'active', pending: 'pending' };
  for (const s of stakers) {
    const st = stateAt(s, full.k, last.ts);
    const m = s.m.validationStatus;
    assert.ok(names[st] ? m === names[st] : (m === 'completed' || m === 'removed'), `${s.id}: ${st}, the manifest says ${m}`);
  }
});

// ---- 1. one address, one node ------------------------------------------------------------------------

test('pending rewards: every account alone and every node alone, every field, both orders', async (t) => {
  const diffs = [];
  const all = pendingAt(full.k);
  for (const acct of truth.accounts) {
    for (const order of ['desc', 'asc']) {
      const { items } = await pending(full, { addresses: acct.pAddress, ...(order === 'asc' ? { sortOrder: 'asc' } : {}) });
      diffs.push(...diffPending(items, want(full, { addrs: [acct.hex], order }), `${acct.pAddress} ${order}`));
    }
  }
  const nodes = [...new Set([...stakers.map((s) => s.m.nodeId), ...M.nodes.map((x) => x.nodeId)])];
  for (const node of nodes) {
    for (const order of ['desc', 'asc']) {
      const { items } = await pending(full, { nodeIds: node, sortOrder: order });
      diffs.push(...diffPending(items, want(full, { nodes: [node], order }), `${node} ${order}`));
    }
  }
  const types = countBy(all, (r) => r.item.rewardType);
  t.diagnostic(`${all.length} pending rewards (${JSON.stringify(Object.fromEntries(types))}) on ${new Set(all.map((r) => r.node)).size} nodes, now ${truth.blocks.P[full.k].ts}`);
  assert.ok(types.get('VALIDATOR') >= 5 && types.get('DELEGATOR') >= 5, 'validators and delegators');
  assert.ok(all.some((r) => r.s.genesis), 'a genesis validator');
  assert.ok(all.some((r) => r.s.delegator && r.s.validator.m.delegationFee > 0), 'a delegator whose validator takes a fee');
  assert.ok(truth.accounts.filter((a) => want(full, { addrs: [a.hex] }).length).length >= 5, 'accounts with pending rewards');
  assert.ok(nodes.some((nd) => !want(full, { nodes: [nd] }).length), 'a node without any (an empty list)');
  fail(diffs, 'one address or node');
});

// ---- 2. several at once ------------------------------------------------------------------------------

test('pending rewards: several at once, both filters, co-owners once, ended stakers absent', async (t) => {
  const diffs = [];
  const accts = truth.accounts;
  const all = pendingAt(full.k);
  const groups = Array.from({ length: Math.ceil(accts.length / 8) }, (_, i) => accts.slice(i * 8, i * 8 + 8));
  for (const [i, g] of groups.entries()) {
    const q = { addresses: g.map((a) => (i % 2 ? a.xAddress : a.pAddress)).join(',') };
    diffs.push(...diffPending((await pending(full, q)).items, want(full, { addrs: g.map((a) => a.hex) }), `group ${i}`));
  }
  const many = accts.slice(0, 64);
  diffs.push(...diffPending((await pending(full, { addresses: many.map((a) => addr(a.hex)).join(','), sortOrder: 'asc' })).items,
    want(full, { addrs: many.map((a) => a.hex), order: 'asc' }), '64 addresses'));
  const nodes = [...new Set(all.map((r) => r.node))];
  assert.ok(nodes.length <= 64);
  diffs.push(...diffPending((await pending(full, { nodeIds: nodes.join(',') })).items, want(full, { nodes }), 'every node'));
  // addresses with nodeIds: the addresses' pending rewards on those nodes
  const byAcct = top(countBy(all.flatMap((r) => r.owners), (h) => h)).filter((h) => accts.some((a) => a.hex === h));
  const two = byAcct.slice(0, 2), mine = want(full, { addrs: two });
  const theirNodes = top(countBy(mine, (r) => r.node));
  assert.ok(theirNodes.length >= 2, 'the two accounts with the most pending rewards have them on two nodes');
  for (const ns of [theirNodes.slice(0, 1), theirNodes.slice(1, 3)]) {
    for (const order of ['desc', 'asc']) {
      const w = want(full, { addrs: two, nodes: ns, order });
      assert.ok(w.length > 0 && w.length < mine.length, 'a filter that keeps some and drops some');
      diffs.push(...diffPending((await pending(full, { addresses: two.map(addr).join(','), nodeIds: ns.join(','), sortOrder: order })).items, w, `2 addresses on ${ns.length} nodes ${order}`));
    }
  }
  // a staker two of the addresses own is listed once
  const shared = all.filter((r) => new Set(r.owners).size > 1);
  t.diagnostic(`${shared.length} pending rewards with more than one owner`);
  assert.ok(shared.length > 0, 'a staker with co-owners');
  const owners = [...new Set(shared[0].owners)];
  diffs.push(...diffPending((await pending(full, { addresses: owners.map(addr).join(',') })).items, want(full, { addrs: owners }), 'co-owners'));
  // an ended staker is in no list of its owners or node (the lists above hold exactly the truth; this
  // names the case): one that ended by its RewardValidatorTx, of an owner and node that still have others
  const ended = stakers.filter((s) => s.primary && stateAt(s, full.k, truth.blocks.P[full.k].ts) === 'ended'
    && want(full, { addrs: s.ownersHex }).length && want(full, { nodes: [s.m.nodeId] }).length);
  assert.ok(ended.length > 0, 'an ended staker whose owner and node have pending rewards');
  for (const s of ended.slice(0, 5)) {
    for (const q of [{ addresses: s.ownersHex.map(addr).join(',') }, { nodeIds: s.m.nodeId }]) {
      const { items } = await pending(full, q);
      assert.ok(items.length > 0 && !items.some((x) => x.txHash === s.id), `${s.id} (ended) is not listed for ${JSON.stringify(q)}`);
    }
  }
  fail(diffs, 'several at once');
});

// ---- 3. paging ---------------------------------------------------------------------------------------

test('pending rewards: page sizes 1, 7 and 100 in both orders give each item once, in order', async (t) => {
  const all = pendingAt(full.k);
  const accts = truth.accounts;
  const topAcct = top(countBy(all.flatMap((r) => r.owners), (h) => h)).find((h) => accts.some((a) => a.hex === h));
  const topNode = top(countBy(all, (r) => r.node))[0];
  const sixteen = accts.slice(0, 16).map((a) => a.hex);
  const nodes = [...new Set(all.map((r) => r.node))];
  const lists = [
    { name: `address ${addr(topAcct)}`, q: { addresses: addr(topAcct) }, w: { addrs: [topAcct] } },
    { name: `node ${topNode}`, q: { nodeIds: topNode }, w: { nodes: [topNode] } },
    { name: '16 addresses', q: { addresses: sixteen.map(addr).join(',') }, w: { addrs: sixteen } },
    { name: 'every node', q: { nodeIds: nodes.join(',') }, w: { nodes } },
  ];
  const diffs = [];
  let pages = 0;
  for (const l of lists) {
    for (const order of ['asc', 'desc']) {
      const w = want(full, { ...l.w, order });
      for (const size of [1, 7, 100]) {
        const r = await pending(full, { ...l.q, sortOrder: order }, size);
        pages += r.pages;
        diffs.push(...diffPending(r.items, w, `${l.name}, ${order}, pageSize ${size}`));
        if (size === 1) assert.equal(r.pages, Math.max(w.length, 1), `${l.name}: one page per item`);
      }
    }
  }
  assert.ok(want(full, lists[1].w).length >= 8 && want(full, lists[2].w).length >= 8, 'lists long enough to page');
  t.diagnostic(`${lists.length} lists read in ${pages} pages`);
  fail(diffs, 'paging');
});

// ---- 4. the prefix: stakers waiting for their start ---------------------------------------------------------

test('a prefix of the chain: pending stakers (progress 0, the formula on the supply of then), by address and node; listStaking leaves them out', async (t) => {
  const all = pendingAt(cut.k);
  const waiting = all.filter((r) => r.st === 'pending');
  t.diagnostic(`cut after P block ${cut.k} (time ${truth.blocks.P[cut.k].ts}): ${all.length} pending rewards, ${waiting.length} of stakers not started`);
  assert.ok(waiting.some((r) => r.s.delegator) && waiting.some((r) => !r.s.delegator), 'validators and delegators waiting');
  assert.ok(all.some((r) => r.st === 'active' && !r.s.genesis), 'current stakers too');
  assert.ok(stakers.some((s) => s.primary && stateAt(s, cut.k, truth.blocks.P[cut.k].ts) === 'ended'), 'and ended ones');
  const diffs = [];
  for (const acct of truth.accounts) {
    const w = want(cut, { addrs: [acct.hex] });
    if (!w.length && acct !== truth.accounts[0]) continue;
    for (const order of ['desc', 'asc']) diffs.push(...diffPending((await pending(cut, { addresses: acct.pAddress, sortOrder: order }, 7)).items, want(cut, { addrs: [acct.hex], order }), `cut: ${acct.pAddress} ${order}`));
  }
  for (const node of new Set(all.map((r) => r.node))) diffs.push(...diffPending((await pending(cut, { nodeIds: node })).items, want(cut, { nodes: [node] }), `cut: ${node}`));
  fail(diffs, 'the prefix');
  // the active staking txs of the owners of waiting stakes: the started ones only (the txs' ids and
  // order: their fields are those of the whole history's truth, which knows what came after the cut)
  const owners = [...new Set(waiting.flatMap((r) => r.owners))].filter((h) => truth.accounts.some((a) => a.hex === h)).slice(0, 16);
  const got = (await staking(cut, { addresses: owners.map(addr).join(',') }, 7)).items.map((x) => x.txHash);
  assert.deepEqual(got, stakingAt(cut.k, { addrs: owners }).map((x) => x.id), 'listStaking on the prefix');
  const theirs = new Set(truth.txs.P.filter((x) => owners.some((a) => x.parties.has(a))).map((x) => x.id));
  assert.ok(waiting.some((r) => theirs.has(r.s.id)), 'the owners took part in waiting stakes');
  assert.ok(waiting.every((r) => !got.includes(r.s.id)), 'no stake waiting for its start is active');
  assert.ok(got.length > 0, 'started ones are');
});

// ---- 5. listStaking ---------------------------------------------------------------------------------------

test('listStaking: every account\'s active staking txs, every field, both orders; groups; paging', async (t) => {
  const diffs = [];
  let n = 0;
  for (const acct of truth.accounts) {
    for (const order of ['desc', 'asc']) {
      const { items } = await staking(full, { addresses: acct.pAddress, ...(order === 'asc' ? { sortOrder: 'asc' } : {}) });
      diffs.push(...diffStaking(items, stakingAt(full.k, { addrs: [acct.hex], order }), `${acct.pAddress} ${order}`));
      n += items.length;
    }
  }
  const accts = truth.accounts;
  for (const [i, g] of Array.from({ length: Math.ceil(accts.length / 16) }, (_, i) => accts.slice(i * 16, i * 16 + 16)).entries()) {
    diffs.push(...diffStaking((await staking(full, { addresses: g.map((a) => (i % 2 ? a.xAddress : addr(a.hex))).join(',') })).items,
      stakingAt(full.k, { addrs: g.map((a) => a.hex) }), `group ${i}`));
  }
  const every = accts.slice(0, 64).map((a) => a.hex);
  const w = stakingAt(full.k, { addrs: every });
  for (const order of ['asc', 'desc']) {
    for (const size of [1, 7, 100]) {
      const r = await staking(full, { addresses: every.map(addr).join(','), sortOrder: order }, size);
      diffs.push(...diffStaking(r.items, stakingAt(full.k, { addrs: every, order }), `64 addresses ${order} pageSize ${size}`));
      if (size === 1) assert.equal(r.pages, Math.max(w.length, 1));
    }
  }
  const types = countBy(w, (x) => x.type);
  t.diagnostic(`${w.length} active staking txs of the accounts (${JSON.stringify(Object.fromEntries(types))}); ${n} read one account at a time`);
  assert.ok(types.size >= 2 && w.length >= 10, 'several types of active staking txs');
  // an ended staker's tx is not active: some account took part in one
  assert.ok(truth.txs.P.some((x) => STAKING.has(x.type) && every.some((a) => x.parties.has(a)) && !w.includes(x)), 'ended staking txs exist and are left out');
  fail(diffs, 'listStaking');
});

test('listStaking: txTypes, startTimestamp, endTimestamp and sortOrder each change the list as they should', async () => {
  const every = truth.accounts.slice(0, 64).map((a) => a.hex);
  const q = { addresses: every.map(addr).join(',') };
  const w = stakingAt(full.k, { addrs: every });
  const diffs = [];
  // each type alone, and two at once (repeated, as the SDK sends them)
  const types = [...new Set(w.map((x) => x.type))];
  for (const ty of types) {
    const f = stakingAt(full.k, { addrs: every, types: [ty] });
    assert.ok(f.length > 0 && f.length < w.length, `${ty}: keeps some, drops some`);
    diffs.push(...diffStaking((await staking(full, { ...q, txTypes: ty })).items, f, `txTypes ${ty}`));
  }
  diffs.push(...diffStaking((await staking(full, { ...q, txTypes: types.slice(0, 2) }, 7)).items, stakingAt(full.k, { addrs: every, types: types.slice(0, 2) }), 'two txTypes'));
  // a type no active staking tx has: nothing
  diffs.push(...diffStaking((await staking(full, { ...q, txTypes: 'ImportTx' })).items, [], 'txTypes ImportTx'));
  // time windows: from the middle, up to the middle, and between
  const times = w.map((x) => x.at.ts).sort((a, b) => a - b);
  const lo = times[Math.floor(times.length / 3)], hi = times[Math.floor((2 * times.length) / 3)];
  for (const [s, e] of [[lo, undefined], [undefined, hi], [lo, hi]]) {
    const f = stakingAt(full.k, { addrs: every, start: s, end: e });
    assert.ok(f.length > 0 && f.length < w.length, `[${s}, ${e}]: keeps some, drops some`);
    for (const order of ['asc', 'desc']) diffs.push(...diffStaking((await staking(full, { ...q, startTimestamp: s, endTimestamp: e, sortOrder: order }, 7)).items, stakingAt(full.k, { addrs: every, start: s, end: e, order }), `[${s}, ${e}] ${order}`));
  }
  // sortOrder: asc is the reverse of the default (desc)
  const asc = (await staking(full, { ...q, sortOrder: 'asc' })).items.map((x) => x.txHash);
  const dflt = (await staking(full, q)).items.map((x) => x.txHash);
  assert.ok(asc.length > 1);
  assert.deepEqual(asc, [...dflt].reverse());
  fail(diffs, 'filters');
});

// ---- 6. the SDK ----------------------------------------------------------------------------------------

test('the official SDK reads both lists through its own pagination, unchanged; every body was strict', async () => {
  const cl = sdkClient(full.api.url);
  const all = pendingAt(full.k);
  const nodes = [...new Set(all.map((r) => r.node))];
  const sixteen = truth.accounts.slice(0, 16);
  const calls = [
    ['pendingRewards', NETWORK, (d, o) => d.rewards.listPendingRewards({ addresses: sixteen.map((a) => a.pAddress).join(','), pageSize: 7 }, o),
      (p) => diffPending(p.flatMap((x) => x.pendingRewards), want(full, { addrs: sixteen.map((a) => a.hex) }), 'SDK pending by address')],
    ['pendingRewards', NETWORK, (d, o) => d.rewards.listPendingRewards({ nodeIds: nodes.slice(0, 3).join(','), sortOrder: 'asc', network: 'testnet', pageSize: 3 }, o),
      (p) => diffPending(p.flatMap((x) => x.pendingRewards), want(full, { nodes: nodes.slice(0, 3), order: 'asc' }), 'SDK pending by node')],
    ['stakingTransactions', 'P', (d, o) => d.transactions.listActiveStakingTransactions({ blockchainId: 'p-chain', addresses: sixteen.map((a) => a.pAddress).join(','), pageSize: 5 }, o),
      (p) => diffStaking(p.flatMap((x) => x.transactions), stakingAt(full.k, { addrs: sixteen.map((a) => a.hex) }), 'SDK listStaking')],
    ['stakingTransactions', 'P', (d, o) => d.transactions.listActiveStakingTransactions({ blockchainId: PRIMARY, addresses: sixteen.map((a) => a.xAddress).join(','), txTypes: ['AddPermissionlessDelegatorTx'], sortOrder: 'asc', pageSize: 4 }, o),
      (p) => diffStaking(p.flatMap((x) => x.transactions), stakingAt(full.k, { addrs: sixteen.map((a) => a.hex), types: ['AddPermissionlessDelegatorTx'], order: 'asc' }), 'SDK listStaking by type')],
  ];
  for (const [kind, chain, call, check] of calls) {
    const start = cl.exchanges.length;
    const got = [];
    for await (const page of await call(cl.data, cl.opts)) got.push(page.result);
    const ex = cl.exchanges.slice(start);
    assert.equal(ex.length, got.length, 'one exchange per page');
    assert.ok(ex.length > 1, 'more than one page');
    const s = SCHEMAS[kind];
    ex.forEach((e, i) => {
      assert.equal(e.status, 200, `${e.url}: ${e.text.slice(0, 300)}`);
      const network = /\/testnet\//.test(e.url) ? 'testnet' : 'fuji';
      assert.deepEqual(got[i], s.branches[s.want[chain]].parse(checkBody(kind, chain, e.text, { network })), `${e.url}: the SDK's page differs from the body sent`);
    });
    fail(check(got), 'the SDK');
  }
  assert.ok(bodies > 200, `only ${bodies} bodies checked`);
});
