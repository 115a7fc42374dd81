// dataapi-rewards.test.mjs — GET /v1/networks/{network}/rewards (spec 000 §4.5, §2.5
// HistoricalReward) against the truth, on one store backend: SQLite here,
// PostgreSQL in dataapi-rewards-pg.test.mjs (the same file on a database of the server
// tests/run.sh starts).
//
// A `fuji` devnet node (`snowline devnet`, the release binary: the ground truth) is indexed by
// `snowline index --genesis` and served by `snowline api` (the ASan binary). The truth is the
// node's own containers replayed by devnet-ledger.mjs (dataapi-lib.mjs readTruth): every reward
// UTXO its RewardValidatorTxs paid (trace.create with `reward`), with the stake it paid for. Nothing
// here reads the store or src/.
//
//  1. every account alone and every node alone: the whole list, every field, both orders;
//  2. several at once: groups of addresses (a reward two of them own shown once), the most a GET
//     takes (64), every node, addresses with nodeIds (both filters hold), the addresses' other forms;
//  3. paging: page sizes 1, 7 and 100 in both orders give each item once, in order;
//  4. every page of every request above parses with the SDK's (@avalanche-sdk/chainkit 0.3.13)
//     ListHistoricalRewardsResponse made strict (no key it does not know), and the SDK itself reads
//     the lists through its own pagination, getting the bodies as they were sent.
// Bad input is dataapi-badinput.test.mjs's (table-driven from routes.c).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir, cleanup } from './lib.mjs';
import * as L from './dataapi-lib.mjs';
import { checkBody, sdkClient, NETWORK, SCHEMAS } from './dataapi-schema-lib.mjs';

const BACKEND = process.env.SNOWLINE_REWARDS_BACKEND ?? 'sqlite';
const TXS = Number(process.env.DATAAPI_TXS || 3000);
const SEED = process.env.DATAAPI_SEED || 'snowline-rewards';
const dir = tempDir('snowline-rewards-');
let devnet, truth, store, indexer, api, url, rewards;
let bodies = 0; // responses checked against the strict schema

before(async () => {
  devnet = await L.startDevnetNode({ dataDir: join(dir, 'node'), txs: TXS, seed: SEED });
  truth = await L.readTruth({ nodeUrl: devnet.url, manifest: devnet.manifest(), genesis: devnet.genesis(), dir });
  assert.deepEqual(truth.problems, [], `the ledger replay disagrees with the manifest:\n${truth.problems.slice(0, 20).join('\n')}`);
  rewards = rewardTruth(truth);
  store = L.freshStore(BACKEND, dir, 'rewards');
  indexer = L.startIndexer({ nodeUrl: devnet.url, store, genesis: devnet.genesisPath });
  await indexer.ready;
  api = await L.startApi({ store });
  await L.waitCaughtUp(api, { target: truth.containers, indexer, timeoutMs: 180000 });
  await indexer.stop();
  url = `${api.url}/v1/networks/fuji/rewards`;
});

after(async () => {
  for (const p of [api, indexer, devnet]) if (p) await p.stop().catch(() => {});
  if (store) L.dropStore(store);
  cleanup(dir);
});

// ---- the truth ------------------------------------------------------------------------------------

/*
 * Every reward the replay paid, oldest first, as a HistoricalReward. Definitions where spec 000 is
 * silent: txHash is the staking tx (the reward UTXO's id is made from it), nodeId, startTimestamp,
 * endTimestamp and amountStaked are its stake's (start: when the stake began counting, as its stake
 * outputs have it), rewardTxHash the RewardValidatorTx that paid it, whose time orders the list
 * (then the UTXO id's bytes); addresses are the UTXO's owners as the API writes every address
 * (bech32, no chain prefix); reward.historicalPrice is not served (no prices).
 */
function rewardTruth(T) {
  const stakes = new Map(); // staking tx → { start, end, amount }
  for (const u of T.utxos.values()) {
    if (!u.staked) continue;
    const s = stakes.get(u.txId) ?? stakes.set(u.txId, { start: u.staked.start, end: u.staked.end, amount: 0n }).get(u.txId);
    s.amount += u.amount;
  }
  const genesisNode = new Map(T.manifest.P.genesis.validators.map((v) => [v.txId, v.nodeId]));
  const out = [];
  for (const u of T.utxos.values()) {
    if (!u.reward) continue;
    const s = stakes.get(u.txId), node = T.txById.get(u.txId)?.n.nodeId ?? genesisNode.get(u.txId);
    assert.ok(s && node, `reward ${u.id}: the stake of ${u.txId}`);
    assert.equal(u.created.chain, 'P');
    out.push({
      u, node, owners: u.owners.addrs,
      item: {
        addresses: u.owners.addrs.map((h) => L.bech(T.hrp, h)), txHash: u.txId, amountStaked: String(s.amount), nodeId: node,
        startTimestamp: s.start, endTimestamp: s.end, rewardType: u.reward, utxoId: u.id, outputIndex: u.idx,
        reward: L.assetAmount(T, u.asset, u.amount), rewardTxHash: u.created.txId,
      },
    });
  }
  return out.sort((a, b) => L.cmpUtxoTs(a.u, b.u));
}

// The truth of a request: the rewards owned by one of `addrs` (hex) and on one of `nodes`, in order.
function want({ addrs, nodes, order = 'desc' }) {
  const list = rewards.filter((r) => (!addrs || r.owners.some((a) => addrs.includes(a))) && (!nodes || nodes.includes(r.node)));
  return order === 'desc' ? list.reverse() : list;
}

const addr = (hex) => L.bech(truth.hrp, hex);
const countBy = (list, f) => { const m = new Map(); for (const x of list) m.set(f(x), (m.get(f(x)) ?? 0) + 1); return m; };
const top = (m) => [...m].sort((a, b) => b[1] - a[1]).map(([k]) => k);

// ---- requests ---------------------------------------------------------------------------------------

/*
 * Every page of a request (query: its parameters but pageSize and pageToken): each a 200 whose body
 * parses with the strict schema, at most pageSize items, a next page only after a full one. Resolves
 * the items and the number of pages.
 */
async function readAll(query, pageSize) {
  const items = [];
  let token, pages = 0;
  for (;;) {
    const q = L.qs({ ...query, pageSize, pageToken: token });
    const r = await L.apiGet(url + q);
    assert.equal(r.status, 200, `GET ${url}${q}: ${r.text.slice(0, 300)}`);
    const body = checkBody('rewards', NETWORK, r.text);
    bodies++;
    pages++;
    if (pageSize) assert.ok(body.historicalRewards.length <= pageSize, `${q}: ${body.historicalRewards.length} items in a page of ${pageSize}`);
    items.push(...body.historicalRewards);
    token = body.nextPageToken;
    if (!token) break;
    assert.equal(body.historicalRewards.length, pageSize ?? 10, `${q}: a page short of its size before the end`);
    assert.ok(pages < 5000, `${q}: more than 5000 pages`);
  }
  return { items, pages };
}

// Compare a list read with its truth: the same rewards in the same order, every field.
function diffList(got, w, where) {
  const ids = got.map((x) => x.utxoId), wantIds = w.map((x) => x.item.utxoId);
  if (ids.join() !== wantIds.join()) {
    const g = new Set(ids), s = new Set(wantIds);
    return [`${where}: ${ids.length} rewards (${ids.length - g.size} twice), want ${wantIds.length}; extra ${JSON.stringify(ids.filter((x) => !s.has(x)).slice(0, 3))}, missing ${JSON.stringify(wantIds.filter((x) => !g.has(x)).slice(0, 3))}, first difference at ${ids.findIndex((x, i) => x !== wantIds[i])}`];
  }
  return got.flatMap((x, i) => L.diffObj(x, w[i].item, `${where} [${i}]`));
}

const fail = (diffs, what) => assert.equal(diffs.length, 0, `${what}: ${diffs.length} differences from the truth:\n${diffs.slice(0, 25).join('\n')}`);

// ---- 1. one address, one node ------------------------------------------------------------------------

test('every account alone and every node alone: the whole list, every field, both orders', async (t) => {
  const diffs = [];
  let n = 0;
  for (const acct of truth.accounts) {
    for (const order of ['desc', 'asc']) {
      const { items } = await readAll({ addresses: acct.pAddress, ...(order === 'asc' ? { sortOrder: 'asc' } : {}) }, 100);
      diffs.push(...diffList(items, want({ addrs: [acct.hex], order }), `${acct.pAddress} ${order}`));
      n += items.length;
    }
  }
  const nodes = [...new Set([...rewards.map((r) => r.node), ...truth.manifest.nodes.map((x) => x.nodeId)])];
  for (const node of nodes) {
    for (const order of ['desc', 'asc']) {
      const { items } = await readAll({ nodeIds: node, sortOrder: order }, 100);
      diffs.push(...diffList(items, want({ nodes: [node], order }), `${node} ${order}`));
    }
  }
  const types = countBy(rewards, (r) => r.item.rewardType);
  t.diagnostic(`${rewards.length} rewards (${JSON.stringify(Object.fromEntries(types))}) on ${new Set(rewards.map((r) => r.node)).size} nodes; ${n} items read by address`);
  assert.ok(rewards.length >= 50, `only ${rewards.length} rewards in the data set`);
  for (const k of ['VALIDATOR', 'DELEGATOR', 'VALIDATOR_FEE']) assert.ok(types.get(k) >= 3, `too few ${k} rewards`);
  assert.ok(truth.accounts.filter((a) => want({ addrs: [a.hex] }).length).length >= 5, 'too few accounts with rewards');
  assert.ok(nodes.some((nd) => !want({ nodes: [nd] }).length), 'a node without rewards (an empty list)');
  fail(diffs, 'one address or node');
});

// ---- 2. several at once ------------------------------------------------------------------------------

test('several at once: groups of addresses, 64 addresses, every node, addresses on nodes, other address forms', async (t) => {
  const diffs = [];
  const accts = truth.accounts;
  const groups = Array.from({ length: Math.ceil(accts.length / 8) }, (_, i) => accts.slice(i * 8, i * 8 + 8));
  for (const [i, g] of groups.entries()) {
    const q = { addresses: g.map((a) => (i % 2 ? a.xAddress : a.pAddress)).join(',') };
    diffs.push(...diffList((await readAll(q, 100)).items, want({ addrs: g.map((a) => a.hex) }), `group ${i}`));
  }
  // the most a GET takes, and an address without any chain prefix
  const many = accts.slice(0, 64);
  diffs.push(...diffList((await readAll({ addresses: many.map((a) => addr(a.hex)).join(','), sortOrder: 'asc' }, 100)).items,
    want({ addrs: many.map((a) => a.hex), order: 'asc' }), '64 addresses'));
  // every node with rewards at once
  const nodes = [...new Set(rewards.map((r) => r.node))];
  assert.ok(nodes.length <= 64);
  diffs.push(...diffList((await readAll({ nodeIds: nodes.join(',') }, 100)).items, want({ nodes }), 'every node'));
  // addresses with nodeIds: the addresses' rewards for stakes on those nodes
  const byAcct = top(countBy(rewards.flatMap((r) => r.owners), (h) => h)).filter((h) => accts.some((a) => a.hex === h));
  const two = byAcct.slice(0, 2), mine = want({ addrs: two });
  const theirNodes = top(countBy(mine, (r) => r.node));
  assert.ok(theirNodes.length >= 2, 'the two accounts with the most rewards have them on two nodes');
  for (const ns of [theirNodes.slice(0, 1), theirNodes.slice(1, 3)]) {
    for (const order of ['desc', 'asc']) {
      const w = want({ addrs: two, nodes: ns, order });
      assert.ok(w.length > 0 && w.length < mine.length, 'a filter that keeps some and drops some');
      diffs.push(...diffList((await readAll({ addresses: two.map(addr).join(','), nodeIds: ns.join(','), sortOrder: order }, 100)).items, w, `2 addresses on ${ns.length} nodes ${order}`));
    }
  }
  // a reward two of the addresses own is shown once
  const shared = rewards.filter((r) => new Set(r.owners).size > 1);
  t.diagnostic(`${groups.length} groups of 8; ${shared.length} rewards with more than one owner`);
  if (shared.length) {
    const owners = [...new Set(shared[0].owners)];
    diffs.push(...diffList((await readAll({ addresses: owners.map(addr).join(',') }, 100)).items, want({ addrs: owners }), 'co-owners'));
  }
  fail(diffs, 'several at once');
});

// ---- 3. paging ---------------------------------------------------------------------------------------

test('paging: page sizes 1, 7 and 100 in both orders give each item once, in order', async (t) => {
  const accts = truth.accounts;
  const topAcct = top(countBy(rewards.flatMap((r) => r.owners), (h) => h)).find((h) => accts.some((a) => a.hex === h));
  const topNode = top(countBy(rewards, (r) => r.node))[0];
  const eight = accts.slice(0, 8).map((a) => a.hex);
  const nodes = [...new Set(rewards.map((r) => r.node))];
  const lists = [
    { name: `address ${addr(topAcct)}`, q: { addresses: addr(topAcct) }, w: { addrs: [topAcct] } },
    { name: `node ${topNode}`, q: { nodeIds: topNode }, w: { nodes: [topNode] } },
    { name: '8 addresses', q: { addresses: eight.map(addr).join(',') }, w: { addrs: eight } },
    { name: 'every node', q: { nodeIds: nodes.join(',') }, w: { nodes } },
    { name: `address on node ${topNode}`, q: { addresses: addr(topAcct), nodeIds: topNode }, w: { addrs: [topAcct], nodes: [topNode] } },
  ];
  const diffs = [];
  let pages = 0;
  for (const l of lists) {
    for (const order of ['asc', 'desc']) {
      const w = want({ ...l.w, order });
      for (const size of [1, 7, 100]) {
        const r = await readAll({ ...l.q, sortOrder: order }, size);
        pages += r.pages;
        diffs.push(...diffList(r.items, w, `${l.name}, ${order}, pageSize ${size}`));
        if (size === 1) assert.equal(r.pages, Math.max(w.length, 1), `${l.name}: one page per item`);
      }
    }
  }
  assert.ok(want(lists[0].w).length >= 8 && want(lists[1].w).length >= 8, 'lists long enough to page');
  t.diagnostic(`${lists.length} lists read in ${pages} pages`);
  fail(diffs, 'paging');
});

// ---- 4. the SDK ----------------------------------------------------------------------------------------

test('the official SDK reads the lists through its own pagination, unchanged; every body was strict', async () => {
  const cl = sdkClient(api.url);
  const schema = SCHEMAS.rewards.branches[0];
  const nodes = [...new Set(rewards.map((r) => r.node))];
  const calls = [
    [{ addresses: truth.accounts.slice(0, 16).map((a) => a.pAddress).join(','), pageSize: 7 }, want({ addrs: truth.accounts.slice(0, 16).map((a) => a.hex) })],
    [{ nodeIds: nodes.slice(0, 3).join(','), sortOrder: 'asc', currency: 'eur' }, want({ nodes: nodes.slice(0, 3), order: 'asc' })],
    [{ nodeIds: nodes[0], network: 'testnet', pageSize: 100 }, want({ nodes: [nodes[0]] })],
  ];
  for (const [req, w] of calls) {
    const start = cl.exchanges.length;
    const got = [];
    for await (const page of await cl.data.rewards.listHistoricalRewards(req, cl.opts)) got.push(page.result);
    const ex = cl.exchanges.slice(start);
    assert.equal(ex.length, got.length, 'one exchange per page');
    ex.forEach((e, i) => {
      assert.equal(e.status, 200, `${e.url}: ${e.text.slice(0, 300)}`);
      assert.deepEqual(got[i], schema.parse(checkBody('rewards', NETWORK, e.text)), `${e.url}: the SDK's page differs from the body sent`);
    });
    fail(diffList(got.flatMap((p) => p.historicalRewards), w, `SDK ${JSON.stringify(req)}`), 'the SDK');
  }
  assert.ok(bodies > 200, `only ${bodies} bodies checked`);
});
