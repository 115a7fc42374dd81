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
//     the lists through its own pagination, getting the bodies as they were sent;
//  5. historicalPrice: `snowline prices` loads a CSV covering some of the rewards' days, in usd
//     and eur; each reward then carries the price of its UTC day in the currency asked for (usd by
//     default), exactly as the file gave it (a string; a number under --compat upstream, which the
//     SDK's strict schema takes), and none on a day or in a currency the file does not cover; the
//     running server's cached pages change with a load; a bad file changes nothing.
// Bad input is dataapi-badinput.test.mjs's (table-driven from routes.c).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tempDir, cleanup, BIN } from './lib.mjs';
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
 * (bech32, no chain prefix); reward.historicalPrice is not served until prices are loaded (5.).
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

// ---- 5. historicalPrice ---------------------------------------------------------------------------------

const DAY = 86400;
const dayOf = (ts) => ts - (((ts % DAY) + DAY) % DAY);
const ymd = (day) => new Date(day * 1000).toISOString().slice(0, 10);

// `snowline prices` on the suite's store: { status, stderr }.
function loadPrices(name, text, args = []) {
  const file = join(dir, name);
  writeFileSync(file, text);
  const r = spawnSync(BIN, ['prices', '--store', store, ...args, file], { encoding: 'utf8', timeout: 60000 });
  return { status: r.status, stderr: r.stderr, file };
}

// Every reward of the request's list, read whole from server base: the parsed items and
// the raw texts of the pages.
async function readRaw(base, query, pageSize = 100) {
  const items = [], texts = [];
  let token;
  for (let pages = 0; ; pages++) {
    const r = await L.apiGet(`${base}/v1/networks/fuji/rewards${L.qs({ ...query, pageSize, pageToken: token })}`);
    assert.equal(r.status, 200, r.text.slice(0, 300));
    texts.push(r.text);
    const body = JSON.parse(r.text);
    items.push(...body.historicalRewards);
    token = body.nextPageToken;
    if (!token) break;
    assert.ok(pages < 1000);
  }
  return { items, texts };
}

// The differences of a list's historicalPrices from what prices (day → value text) says, in currency;
// asNumber: the value a JSON number (--compat upstream) with the same digits in the text.
function diffPrices(items, texts, prices, currency, asNumber, where) {
  const byId = new Map(rewards.map((r) => [r.item.utxoId, r]));
  const diffs = [];
  let shown = 0;
  for (const x of items) {
    const r = byId.get(x.utxoId);
    if (!r) { diffs.push(`${where}: ${x.utxoId} is no reward`); continue; }
    const day = dayOf(r.u.created.ts), want = prices.get(day);
    const { historicalPrice: hp, ...rest } = x.reward;
    diffs.push(...L.diffObj(rest, r.item.reward, `${where} ${x.utxoId} reward`));
    if (want === undefined) {
      if (hp !== undefined) diffs.push(`${where} ${x.utxoId} (${ymd(day)}): historicalPrice ${JSON.stringify(hp)}, want none`);
      continue;
    }
    shown++;
    const wantHp = { currencyCode: currency, value: asNumber ? Number(want) : want };
    if (JSON.stringify(hp) !== JSON.stringify(wantHp)) diffs.push(`${where} ${x.utxoId} (${ymd(day)}): historicalPrice ${JSON.stringify(hp)}, want ${JSON.stringify(wantHp)}`);
  }
  // the digits as loaded, in the text itself (JSON.parse of a number would hide "36.50" vs "36.5")
  const all = texts.join('\n');
  for (const [day, v] of prices) {
    if (!items.some((x) => dayOf(byId.get(x.utxoId)?.u.created.ts ?? -1) === day)) continue;
    const lit = asNumber ? `"value":${v}}` : `"value":"${v}"}`;
    if (!all.includes(`{"currencyCode":"${currency}",${lit}`)) diffs.push(`${where}: the price of ${ymd(day)} is not in the text as ${lit}`);
  }
  return { diffs, shown };
}

test('historicalPrice: loaded prices shown by the reward\'s UTC day and the currency asked for, exactly; none where unknown', async (t) => {
  const days = [...new Set(rewards.map((r) => dayOf(r.u.created.ts)))].sort((a, b) => a - b);
  assert.ok(days.length >= 3, `the rewards fall on ${days.length} days; want 3 or more`);
  // usd: every other day of the rewards (and a day before them all); eur: the first and last
  // day only, with other digits. Values keep trailing zeros and many fraction digits: exact text.
  const usd = new Map(), eur = new Map();
  days.forEach((d, i) => { if (i % 2 === 0) usd.set(d, `${30 + i}.${String(i).padStart(2, '0')}50`); });
  usd.set(days[0] - 10 * DAY, '1');
  eur.set(days[0], '0.000000000000000001');
  eur.set(days.at(-1), '123456789012345678.5');
  const csv = ['date,currency,price',
    ...[...usd].map(([d, v]) => `${ymd(d)},usd,${v}`), ...[...eur].map(([d, v]) => `${ymd(d)},EUR,${v}`)].join('\r\n') + '\r\n';
  // the lists as the running server has them cached: no prices yet
  const nodes = [...new Set(rewards.map((r) => r.node))];
  const every = { nodeIds: nodes.join(',') };
  const before = await readRaw(api.url, every);
  assert.ok(before.items.length === rewards.length && before.items.every((x) => !('historicalPrice' in x.reward)), 'no prices before the load');

  const ld = loadPrices('prices.csv', csv);
  assert.equal(ld.status, 0, ld.stderr);
  assert.match(ld.stderr, new RegExp(`^snowline prices: loaded ${usd.size + eur.size} prices from `));

  const diffs = [];
  let shown = 0;
  // default (usd), usd asked for, eur, a currency not loaded; both orders; the same server (its cache
  // must have seen the load)
  for (const [q, prices, cur] of [[{}, usd, 'usd'], [{ currency: 'usd', sortOrder: 'asc' }, usd, 'usd'],
    [{ currency: 'eur' }, eur, 'eur'], [{ currency: 'jpy', sortOrder: 'asc' }, new Map(), 'jpy']]) {
    const got = await readRaw(api.url, { ...every, ...q });
    assert.equal(got.items.length, rewards.length);
    const d = diffPrices(got.items, got.texts, prices, cur, false, `spec ${JSON.stringify(q)}`);
    diffs.push(...d.diffs);
    shown += d.shown;
    if (prices.size) assert.ok(d.shown > 0 && d.shown < rewards.length, `${cur}: ${d.shown} of ${rewards.length} shown; want some, not all`);
    for (const x of got.items) if (x.reward.historicalPrice) assert.equal(typeof x.reward.historicalPrice.value, 'string', 'spec 000: Price.value is a string');
  }
  // by address, in pages of 3: each page reads its own prices
  const acct = truth.accounts.find((a) => want({ addrs: [a.hex] }).length >= 5);
  for (const order of ['desc', 'asc']) {
    const got = await readRaw(api.url, { addresses: acct.pAddress, sortOrder: order }, 3);
    assert.equal(got.items.length, want({ addrs: [acct.hex] }).length);
    diffs.push(...diffPrices(got.items, got.texts, usd, 'usd', false, `spec ${acct.pAddress} ${order} pages of 3`).diffs);
  }
  fail(diffs, 'historicalPrice (spec)');
  t.diagnostic(`${days.length} reward days, ${usd.size} usd and ${eur.size} eur prices; ${shown} prices shown`);

  // --compat upstream: the value a number; every page strict for the SDK, and the SDK reads them
  const up = await L.startApi({ store, args: ['--compat', 'upstream'] });
  try {
    const udiffs = [];
    for (const [q, prices, cur] of [[{}, usd, 'usd'], [{ currency: 'eur', sortOrder: 'asc' }, eur, 'eur'], [{ addresses: acct.pAddress, nodeIds: undefined }, usd, 'usd']]) {
      const got = await readRaw(up.url, { ...every, ...q });
      for (const text of got.texts) checkBody('rewards', NETWORK, text);
      udiffs.push(...diffPrices(got.items, got.texts, prices, cur, true, `upstream ${JSON.stringify(q)}`).diffs);
    }
    const cl = sdkClient(up.url);
    const got = [];
    for await (const page of await cl.data.rewards.listHistoricalRewards({ nodeIds: every.nodeIds, currency: 'usd', pageSize: 7 }, cl.opts)) got.push(...page.result.historicalRewards);
    assert.equal(got.length, rewards.length);
    const sdkShown = got.filter((x) => x.reward.historicalPrice);
    assert.ok(sdkShown.length > 0 && sdkShown.every((x) => x.reward.historicalPrice.currencyCode === 'usd' && typeof x.reward.historicalPrice.value === 'number'));
    fail(udiffs, 'historicalPrice (--compat upstream)');
  } finally {
    await up.stop();
  }

  // a bad file: refused with its line and field, nothing written; a later load replaces a price
  const bad = loadPrices('bad.csv', `${ymd(days[1])},usd,7\n${ymd(days[1])},usd,7,5\n`);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^snowline prices: .*bad\.csv: line 2: 4 fields, want 3/);
  const still = await readRaw(api.url, every);
  fail(diffPrices(still.items, still.texts, usd, 'usd', false, 'after a bad file').diffs, 'a bad file changes nothing');
  const usd2 = new Map(usd).set(days[1], '7.0');
  const again = loadPrices('more.csv', `${ymd(days[1])},usd,7.0\n`);
  assert.equal(again.status, 0, again.stderr);
  const after = await readRaw(api.url, every);
  fail(diffPrices(after.items, after.texts, usd2, 'usd', false, 'after a second load').diffs, 'a second load');
});
