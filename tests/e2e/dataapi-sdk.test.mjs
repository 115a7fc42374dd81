// The Data API through the official SDK (@avalanche-sdk/chainkit 0.3.13, pinned in package.json):
// every endpoint of part 1, and the rewards, staking and validators lists of part 2, on a fuji devnet indexed by
// `snowline index`, called by the real SDK against `snowline api` on loopback. Each response must
//   - be accepted by the SDK (its zod schemas, closed enums, the exact status),
//   - parse with the chain's own schema made strict (no key the schema does not know, anywhere),
//   - be the union branch the SDK takes for it, with chainInfo naming the chain and network asked for,
//   - reach the SDK unchanged (the SDK's page deep-equals the JSON on the wire).
// The calls vary parameters (sorts, filters, page sizes, ids and aliases, testnet, API keys) and
// read every page, and the last test checks that every field of every response schema that the
// devnet can produce was seen at least once, and every transaction type the devnet made.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from './lib.mjs';
import { makeDataset, startApi, sdkClient, checkBody, checkErrorBody, keyPaths, readRouteTable, SCHEMAS, NETWORK } from './dataapi-schema-lib.mjs';
import * as E from '@avalanche-sdk/chainkit/models/errors';

const ALIAS = { P: 'p-chain', X: 'x-chain', C: 'c-chain' };
// the store's backend: SQLite here; dataapi-sdk-pg.test.mjs runs this file again on PostgreSQL
const BACKEND = process.env.SNOWLINE_SDK_BACKEND ?? 'sqlite';
let ds, m, api, apiUp, anon, keyed, upstream, accounts, chainId;

before(async () => {
  ds = await makeDataset({ txs: 2000, backend: BACKEND });
  m = ds.manifest;
  accounts = m.accounts;
  chainId = { P: m.network.pChainId, X: m.network.xChainId, C: m.network.cChainId };
  // an API key, hashed in a keys file, which the SDK sends as x-glacier-api-key
  const [key, line] = execFileSync(BIN, ['api', '--new-key', 'sdk-test'], { encoding: 'utf8', timeout: 30000, killSignal: 'SIGKILL' }).trim().split('\n');
  const keys = join(ds.dir, 'keys');
  writeFileSync(keys, `# made by dataapi-sdk.test.mjs\n${line}\n`);
  api = await startApi(ds.store, ['--keys-file', keys, '--rate-anonymous', '0', '--rate-key', '0']);
  apiUp = await startApi(ds.store, ['--rate-anonymous', '0', '--compat', 'upstream']);
  anon = sdkClient(api.url);
  keyed = sdkClient(api.url, { apiKey: key });
  upstream = sdkClient(apiUp.url);
});

after(async () => {
  for (const p of [api, apiUp]) if (p) await p.stop();
  if (ds) await ds.close();
});

// ---- the calls ---------------------------------------------------------------------------------------

const seen = new Map(); // "kind/chain" -> Set of key paths seen in bodies
const txTypes = { P: new Set(), X: new Set(), C: new Set() };
const formats = new Set();
function record(kind, chain, body) {
  const k = `${kind}/${chain}`;
  if (!seen.has(k)) seen.set(k, new Set());
  keyPaths(body, '', seen.get(k));
  if (kind === 'transactions' || kind === 'assetTransactions') {
    for (const t of body.transactions) { txTypes[chain].add(t.txType); if (t.chainFormat) formats.add(t.chainFormat); }
  }
}

// One SDK call of a list; reads every page the SDK offers (at most maxPages). Every exchange must
// have one of `status`, pass checkBody, and reach the SDK unchanged. Returns the bodies.
// Without maxPages the list must end within 2,000 pages (it is read whole); with it, at most
// maxPages are read.
async function pages(cl, kind, chain, call, { status = [200], maxPages, network = 'fuji' } = {}) {
  const start = cl.exchanges.length;
  const res = await call(cl.data, cl.opts);
  const got = [];
  if (res && typeof res[Symbol.asyncIterator] === 'function') {
    for await (const p of res) {
      got.push(p.result);
      if (got.length === (maxPages ?? 2000)) {
        assert.ok(maxPages || !p.result.nextPageToken, 'a list of more than 2,000 pages');
        break;
      }
    }
  } else {
    got.push(res.result ?? res);
  }
  const ex = cl.exchanges.slice(start);
  assert.equal(ex.length, got.length, 'one exchange per page');
  return ex.map((e, i) => {
    assert.ok(status.includes(e.status), `${e.method} ${e.url}: ${e.status} ${e.text.slice(0, 400)}`);
    let body;
    try { body = checkBody(kind, chain, e.text, { network }); } catch (err) { throw new Error(`${e.method} ${e.url}: ${err.message}`); }
    // what the SDK made of it: the body itself, but for the contents of free-form objects, which it drops
    const s = SCHEMAS[kind];
    assert.deepEqual(got[i], s.branches[s.want[chain]].parse(body), `${e.url}: the SDK's page differs from the body sent`);
    record(kind, chain, body);
    return body;
  });
}
const items = (bodies, key) => bodies.flatMap((b) => b[key]);

const groups = (list, n) => Array.from({ length: Math.ceil(list.length / n) }, (_, i) => list.slice(i * n, i * n + n));
const bech = (a) => a.xAddress.slice(2); // fuji1…, without a chain prefix
const addrOf = { P: (a) => a.pAddress, X: (a) => a.xAddress, C: (a) => 'C-' + bech(a) };

// ---- UTXOs -----------------------------------------------------------------------------------------------

for (const ch of ['P', 'X', 'C']) {
  test(`utxos on the ${ch}-chain: GET and POST with the SDK, every page, sorts and filters`, async () => {
    const all = accounts.map(addrOf[ch]);
    // POST (v2) with every account and the largest page: the whole set, spent ones too
    const whole = items(await pages(keyed, 'utxos', ch, (d, o) => d.utxos.listByAddressesV2({
      blockchainId: ALIAS[ch], pageSize: 1024, includeSpent: true, primaryNetworkAddressesBodyDto: { addresses: all.join(',') },
    }, o)), 'utxos');
    assert.ok(whole.length > 0, 'the devnet made UTXOs on this chain');
    assert.equal(new Set(whole.map((u) => u.utxoId)).size, whole.length, 'each UTXO once');
    // the same list in small pages, through the SDK's pagination: the same UTXOs in the same order
    const paged = items(await pages(anon, 'utxos', ch, (d, o) => d.utxos.listByAddressesV2({
      blockchainId: chainId[ch], pageSize: 37, includeSpent: true, primaryNetworkAddressesBodyDto: { addresses: all.join(',') },
    }, o)), 'utxos');
    assert.deepEqual(paged.map((u) => u.utxoId), whole.map((u) => u.utxoId));
    // GET, eight addresses at a time (the default page of 10 for the first group): the union is the same set
    const byGet = new Set();
    for (const [i, g] of groups(all, 8).entries()) {
      for (const u of items(await pages(i % 2 ? keyed : anon, 'utxos', ch, (d, o) => d.utxos.listByAddresses({
        blockchainId: ALIAS[ch], addresses: g.join(','), includeSpent: true, ...(i ? { pageSize: 100 } : {}),
      }, o)), 'utxos')) byGet.add(u.utxoId);
    }
    assert.deepEqual([...byGet].sort(), whole.map((u) => u.utxoId).sort());
    // unspent only (the default), by amount and by time, both orders; addresses without a chain prefix
    const unspent = whole.filter((u) => !u.consumingTxHash);
    for (const [sortBy, sortOrder] of [['amount', 'desc'], ['amount', 'asc'], ['timestamp', 'desc'], [undefined, undefined]]) {
      const got = items(await pages(anon, 'utxos', ch, (d, o) => d.utxos.listByAddressesV2({
        blockchainId: ALIAS[ch], pageSize: 500, sortBy, sortOrder, primaryNetworkAddressesBodyDto: { addresses: accounts.map(bech).join(',') },
      }, o)), 'utxos');
      assert.deepEqual(got.map((u) => u.utxoId).sort(), unspent.map((u) => u.utxoId).sort(), `unspent, ${sortBy} ${sortOrder}`);
      if (sortBy === 'amount') {
        // the same order in pages of 9 (each address is read in windows the merge refills)
        const small = items(await pages(keyed, 'utxos', ch, (d, o) => d.utxos.listByAddressesV2({
          blockchainId: ALIAS[ch], pageSize: 9, sortBy, sortOrder, primaryNetworkAddressesBodyDto: { addresses: accounts.map(bech).join(',') },
        }, o)), 'utxos');
        assert.deepEqual(small.map((u) => u.utxoId), got.map((u) => u.utxoId), `pages of 9, ${sortBy} ${sortOrder}`);
      }
      const key = sortBy === 'amount' ? (u) => BigInt(u.asset.amount) : (u) => BigInt(u.blockTimestamp ?? u.timestamp);
      for (let i = 1; i < got.length; i++) {
        const a = key(got[i - 1]), b = key(got[i]);
        assert.ok(sortOrder === 'desc' ? a >= b : a <= b, `${sortBy} ${sortOrder ?? '(default)'} order at ${i}`);
      }
    }
    // minUtxoAmount, on testnet (fuji's other name: chainInfo says what was asked)
    const min = unspent.map((u) => BigInt(u.asset.amount)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[Math.floor(unspent.length / 2)] ?? 0n;
    const big = items(await pages(anon, 'utxos', ch, (d, o) => d.utxos.listByAddressesV2({
      blockchainId: ALIAS[ch], network: 'testnet', pageSize: 1024, minUtxoAmount: Number(min), primaryNetworkAddressesBodyDto: { addresses: all.join(',') },
    }, o), { network: 'testnet' }), 'utxos');
    assert.deepEqual(big.map((u) => u.utxoId).sort(), unspent.filter((u) => BigInt(u.asset.amount) >= BigInt(Number(min))).map((u) => u.utxoId).sort());
    // X: each asset on its own (NFT and property outputs have their own utxoType, groupId, payload)
    if (ch === 'X') {
      for (const a of m.X.assets) {
        const got = items(await pages(anon, 'utxos', ch, (d, o) => d.utxos.listByAddresses({
          blockchainId: 'x-chain', assetId: a.assetId, includeSpent: true, pageSize: 100, addresses: all.slice(0, 64).join(','),
        }, o)), 'utxos');
        assert.ok(got.every((u) => u.asset.assetId === a.assetId), `only ${a.assetId}`);
        // filtered in small pages from every account (rows of other assets are read past)
        const ps = a.assetId === m.network.avaxAssetId ? 100 : 2;
        const small = items(await pages(anon, 'utxos', ch, (d, o) => d.utxos.listByAddressesV2({
          blockchainId: 'x-chain', assetId: a.assetId, includeSpent: true, pageSize: ps, primaryNetworkAddressesBodyDto: { addresses: all.join(',') },
        }, o)), 'utxos');
        assert.deepEqual(small.map((u) => u.utxoId).sort(), got.map((u) => u.utxoId).sort(), `${a.assetId} in pages of ${ps}`);
        assert.deepEqual(got.map((u) => u.utxoId).sort(), whole.filter((u) => u.asset.assetId === a.assetId).map((u) => u.utxoId).sort());
      }
    }
  });
}

test('utxos: POST under --compat upstream answers as the route table says, and the SDK takes it', async () => {
  // spec 000 says 200 (every POST above was taken only as a 200); the SDK takes 200 and 201
  const route = readRouteTable().find((r) => r.method === 'POST' && r.path.endsWith('/utxos'));
  const want = route.upstream201 ? 201 : 200;
  for (const ch of ['P', 'X', 'C']) {
    await pages(upstream, 'utxos', ch, (d, o) => d.utxos.listByAddressesV2({
      blockchainId: ALIAS[ch], pageSize: 200, primaryNetworkAddressesBodyDto: { addresses: accounts.slice(0, 20).map(addrOf[ch]).join(',') },
    }, o), { status: [want] });
  }
  assert.ok(upstream.exchanges.length >= 3 && upstream.exchanges.every((e) => e.status === want));
  await pages(anon, 'utxos', 'X', (d, o) => d.utxos.listByAddressesV2({
    blockchainId: 'x-chain', pageSize: 200, primaryNetworkAddressesBodyDto: { addresses: accounts[0].xAddress },
  }, o), { status: [200] });
});

// ---- transactions ---------------------------------------------------------------------------------------

for (const ch of ['P', 'X', 'C']) {
  test(`transactions on the ${ch}-chain: by address, latest, every type, time windows, both orders`, async () => {
    const forAddr = ch === 'C' ? (a, i) => (i % 2 ? a.evmAddress : 'C-' + bech(a)) : addrOf[ch];
    const all = accounts.map(forAddr);
    // by address, 16 at a time, every page; newest first by default
    const byAddr = new Map();
    for (const [i, g] of groups(all, 16).entries()) {
      const txs = items(await pages(i % 2 ? keyed : anon, 'transactions', ch, (d, o) => d.transactions.listLatest({
        blockchainId: i % 2 ? chainId[ch] : ALIAS[ch], addresses: g.join(','), pageSize: 100,
      }, o)), 'transactions');
      const ts = txs.map((t) => t.blockTimestamp ?? t.timestamp);
      for (let k = 1; k < ts.length; k++) assert.ok(ts[k - 1] >= ts[k], 'newest first');
      for (const t of txs) byAddr.set(t.txHash, t);
    }
    assert.ok(byAddr.size > 0);
    // the latest transactions of the chain, no address: every page
    const latest = items(await pages(anon, 'transactions', ch, (d, o) => d.transactions.listLatest({ blockchainId: ALIAS[ch], pageSize: 100 }, o)), 'transactions');
    assert.equal(new Set(latest.map((t) => t.txHash)).size, latest.length, 'each transaction once');
    // every type the devnet made, filtered by txTypes (with every address: the filter needs addresses)
    const made = ch === 'C' ? ['ImportTx', 'ExportTx'] : Object.keys(m[ch].txCounts);
    for (const type of made) {
      const txs = items(await pages(anon, 'transactions', ch, (d, o) => d.transactions.listLatest({
        blockchainId: ALIAS[ch], addresses: all.slice(0, 64).join(','), txTypes: [type], pageSize: 100, sortOrder: 'asc',
      }, o), { maxPages: 3 }), 'transactions');
      assert.ok(txs.length > 0, `a ${type} on the ${ch}-chain`);
      assert.ok(txs.every((t) => t.txType === type), `only ${type}`);
      const ts = txs.map((t) => t.blockTimestamp ?? t.timestamp);
      for (let k = 1; k < ts.length; k++) assert.ok(ts[k - 1] <= ts[k], 'oldest first (asc)');
    }
    for (const type of made) assert.ok(txTypes[ch].has(type), `${type} seen on the ${ch}-chain`);
    // a window of time, for a few addresses
    const t0 = Number(m.startTime), t1 = Number(m.endTime);
    const from = Math.floor(t0 + (t1 - t0) / 3), to = Math.floor(t0 + (2 * (t1 - t0)) / 3);
    const win = items(await pages(anon, 'transactions', ch, (d, o) => d.transactions.listLatest({
      blockchainId: ALIAS[ch], network: 'testnet', addresses: all.slice(0, 32).join(','), startTimestamp: from, endTimestamp: to, pageSize: 50,
    }, o), { network: 'testnet' }), 'transactions');
    for (const t of win) {
      const ts = t.blockTimestamp ?? t.timestamp;
      assert.ok(ts >= from && ts <= to, `${t.txHash} at ${ts} is outside [${from}, ${to}]`);
    }
  });
}

test('asset transactions: every asset of the X-chain, every page, with type and time filters', async () => {
  for (const a of m.X.assets) {
    const txs = items(await pages(anon, 'assetTransactions', 'X', (d, o) => d.transactions.listAssetTransactions({
      blockchainId: 'x-chain', assetId: a.assetId, pageSize: 100,
    }, o)), 'transactions');
    assert.ok(txs.length > 0, `transactions of ${a.name}`);
    assert.ok(txs.every((t) => [...t.consumedUtxos, ...t.emittedUtxos].some((u) => u.asset.assetId === a.assetId)
      || t.assetCreated?.assetId === a.assetId), `every transaction moves or creates ${a.assetId}`);
  }
  const avax = m.network.avaxAssetId;
  for (const type of Object.keys(m.X.txCounts)) {
    const txs = items(await pages(keyed, 'assetTransactions', 'X', (d, o) => d.transactions.listAssetTransactions({
      blockchainId: m.network.xChainId, assetId: avax, txTypes: [type], pageSize: 25,
    }, o), { maxPages: 2 }), 'transactions');
    assert.ok(txs.every((t) => t.txType === type), `only ${type}`);
  }
  const t0 = Number(m.startTime), t1 = Number(m.endTime), mid = Math.floor((t0 + t1) / 2);
  const win = items(await pages(anon, 'assetTransactions', 'X', (d, o) => d.transactions.listAssetTransactions({
    blockchainId: 'x-chain', assetId: avax, startTimestamp: mid, endTimestamp: t1, pageSize: 100,
  }, o), { maxPages: 3 }), 'transactions');
  assert.ok(win.every((t) => t.timestamp >= mid && t.timestamp <= t1));
  assert.ok(formats.has('linear') && formats.has('non-linear'), `X transactions of both shapes seen: ${[...formats]}`);
});

// ---- balances ---------------------------------------------------------------------------------------------

test('balances on P, X and C: every account, now and at earlier times', async () => {
  const t0 = Number(m.startTime), t1 = Number(m.endTime);
  // moments when some stake was pending (added, its period not begun): pendingStaked is not empty
  const pending = m.P.delegators.filter((d) => Number(d.pendingFrom) < Number(d.startTime)).slice(0, 2)
    .map((d) => Math.floor((Number(d.pendingFrom) + Number(d.startTime)) / 2));
  for (const ch of ['P', 'X', 'C']) {
    for (const [i, g] of groups(accounts.map(addrOf[ch]), 16).entries()) {
      for (const blockTimestamp of [undefined, t0, Math.floor((t0 + t1) / 2), t1, ...(ch === 'P' ? pending : [])]) {
        await pages(i % 2 ? keyed : anon, 'balances', ch, (d, o) => d.balances.listByAddresses({
          blockchainId: i % 2 ? chainId[ch] : ALIAS[ch], addresses: g.join(','), blockTimestamp,
        }, o));
      }
    }
  }
});

// ---- vertices and blocks -------------------------------------------------------------------------------------

test('vertices: the latest, every page; at each height, both orders', async () => {
  const all = items(await pages(anon, 'vertices', 'X', (d, o) => d.vertices.listLatest({ blockchainId: 'x-chain' }, o)), 'vertices');
  assert.equal(all.length, Number(m.containers['X/vtx']), 'every vertex, ten at a time');
  const heights = [...new Set(all.map((v) => v.vertexHeight))];
  for (const h of heights) {
    for (const sortOrder of ['asc', 'desc']) {
      const vs = items(await pages(keyed, 'vertices', 'X', (d, o) => d.vertices.listByHeight({
        blockchainId: m.network.xChainId, vertexHeight: h, sortOrder, pageSize: 2,
      }, o)), 'vertices');
      assert.deepEqual(vs.map((v) => v.vertexHash).sort(), all.filter((v) => v.vertexHeight === h).map((v) => v.vertexHash).sort());
    }
  }
});

test('blocks by node on P, X and C: every proposer the devnet lists, every page', async () => {
  for (const ch of ['P', 'X', 'C']) {
    const byNode = m.chains[ch].proposers.byNode;
    for (const [i, [node, info]] of Object.entries(byNode).entries()) {
      const blocks = items(await pages(i % 2 ? keyed : anon, 'blocks', ch, (d, o) => d.blocks.listByNodeId({
        blockchainId: i % 3 ? ALIAS[ch] : chainId[ch], nodeId: node, ...(i === 0 ? {} : { pageSize: 100 }),
      }, o)), 'blocks');
      // the devnet lists the proposervm blocks (container ids): proposerId; blockHash is the inner block's
      assert.deepEqual(blocks.map((b) => b.proposerDetails?.proposerId).sort(), [...info.blockIds].sort(), `${ch} blocks of ${node}`);
      assert.ok(blocks.every((b) => b.proposerDetails.proposerNodeId === node));
    }
    const [node] = Object.keys(byNode);
    const t0 = Number(m.startTime), t1 = Number(m.endTime), mid = Math.floor((t0 + t1) / 2);
    const win = items(await pages(anon, 'blocks', ch, (d, o) => d.blocks.listByNodeId({
      blockchainId: ALIAS[ch], nodeId: node, startTimestamp: t0, endTimestamp: mid, pageSize: 100,
    }, o)), 'blocks');
    assert.ok(win.every((b) => b.blockTimestamp >= t0 && b.blockTimestamp <= mid));
  }
});

// ---- rewards ----------------------------------------------------------------------------------------------------

test('rewards: by address and by node, every page, both orders, the two filters together, currencies, testnet', async () => {
  const rewardsOf = (cl, req, opts) => pages(cl, 'rewards', NETWORK, (d, o) => d.rewards.listHistoricalRewards(req, o), opts);
  const id = (r) => r.utxoId;
  const addrs = accounts.slice(0, 64).map(addrOf.P).join(',');
  const all = items(await rewardsOf(anon, { addresses: addrs, pageSize: 100 }), 'historicalRewards');
  assert.ok(all.length > 0, 'the devnet paid rewards');
  assert.deepEqual([...new Set(all.map((r) => r.rewardType))].sort(), ['DELEGATOR', 'VALIDATOR', 'VALIDATOR_FEE']);
  assert.equal(new Set(all.map(id)).size, all.length, 'each reward once');
  // every node with rewards, each alone in small pages (either order), then all of them with the addresses
  const nodes = [...new Set(all.map((r) => r.nodeId))];
  assert.ok(nodes.length > 1 && nodes.length <= 64);
  const byNode = new Map();
  for (const [i, node] of nodes.entries()) {
    const got = items(await rewardsOf(i % 2 ? keyed : anon, { nodeIds: node, sortOrder: i % 2 ? 'asc' : 'desc', pageSize: 5 }), 'historicalRewards');
    assert.ok(got.every((r) => r.nodeId === node), `only rewards of ${node}`);
    byNode.set(node, got);
  }
  const both = items(await rewardsOf(keyed, { addresses: addrs, nodeIds: nodes.join(','), pageSize: 37 }), 'historicalRewards');
  assert.deepEqual(both.map(id), all.map(id), 'the addresses\' rewards are on their nodes');
  const mine = new Set(all.map(id));
  for (const [node, got] of byNode) {
    const want = all.filter((r) => r.nodeId === node).map(id).sort();
    assert.deepEqual(got.filter((r) => mine.has(r.utxoId)).map(id).sort(), want, `${node}: its rewards to the addresses`);
  }
  // the currency changes nothing while there are no prices; testnet is fuji
  for (const [currency, network] of [['usd', 'fuji'], ['jpy', 'testnet']]) {
    const got = items(await rewardsOf(anon, { nodeIds: nodes[0], currency, network, sortOrder: 'asc' }, { network }), 'historicalRewards');
    assert.deepEqual(got.map(id), [...byNode.get(nodes[0])].reverse().map(id), `${currency} on ${network}: oldest first`);
  }
});

// ---- subnets and L1 validators (lists of the network: no chain) -----------------------------------------------

test('subnets and L1 validators through the SDK: every page, both orders, every filter', async () => {
  const byId = (l, k) => l.map((x) => x[k]).sort();
  const subs = items(await pages(anon, 'subnets', NETWORK, (d, o) => d.listSubnets({ pageSize: 3 }, o)), 'subnets');
  assert.deepEqual(byId(subs, 'subnetId'), byId(m.P.subnets, 'subnetId'));
  const asc = items(await pages(keyed, 'subnets', NETWORK, (d, o) => d.listSubnets({ network: 'testnet', sortOrder: 'asc' }, o)), 'subnets');
  assert.deepEqual(asc.map((x) => x.subnetId), subs.map((x) => x.subnetId).reverse(), 'oldest first is newest first reversed');
  assert.ok(subs.some((x) => x.isL1) && subs.some((x) => x.blockchains.some((c) => typeof c.genesisData === 'object')), 'L1s and chains with their genesis');
  const vs = m.P.l1Validators;
  const active = items(await pages(anon, 'l1Validators', NETWORK, (d, o) => d.listL1Validators({ pageSize: 4 }, o)), 'validators');
  assert.deepEqual(byId(active, 'validationId'), byId(vs.filter((v) => v.active), 'validationId'));
  const all = items(await pages(keyed, 'l1Validators', NETWORK, (d, o) => d.listL1Validators({ includeInactiveL1Validators: true, pageSize: 100 }, o)), 'validators');
  assert.deepEqual(byId(all, 'validationId'), byId(vs, 'validationId'));
  assert.ok(all.length > active.length, 'inactive ones too');
  for (const s of m.P.subnets.filter((x) => x.isL1)) {
    const got = items(await pages(anon, 'l1Validators', NETWORK, (d, o) => d.listL1Validators({ subnetId: s.subnetId, includeInactiveL1Validators: true }, o)), 'validators');
    assert.deepEqual(byId(got, 'validationId'), byId(vs.filter((v) => v.subnetId === s.subnetId), 'validationId'));
  }
  const v0 = vs.find((v) => !v.active) ?? vs[0];
  const byNode = items(await pages(anon, 'l1Validators', NETWORK, (d, o) => d.listL1Validators({ nodeId: v0.nodeId, includeInactiveL1Validators: true }, o)), 'validators');
  assert.deepEqual(byId(byNode, 'validationId'), byId(vs.filter((v) => v.nodeId === v0.nodeId), 'validationId'));
  const one = items(await pages(keyed, 'l1Validators', NETWORK, (d, o) => d.listL1Validators({ l1ValidationId: v0.validationId, includeInactiveL1Validators: true }, o)), 'validators');
  assert.deepEqual(one.map((v) => [v.validationId, v.remainingBalance === 0]), [[v0.validationId, !v0.active]]);
});

// ---- staking, part 2: pending rewards, active staking transactions --------------------------------------------

test('pending rewards and active staking txs: by address and by node, every page, both orders, filters, testnet', async () => {
  const pendingOf = (cl, req, opts) => pages(cl, 'pendingRewards', NETWORK, (d, o) => d.rewards.listPendingRewards(req, o), opts);
  const stakingOf = (cl, req, opts) => pages(cl, 'stakingTransactions', 'P', (d, o) => d.transactions.listActiveStakingTransactions(req, o), opts);
  const addrs = accounts.slice(0, 64).map(addrOf.P).join(',');
  const all = items(await pendingOf(anon, { addresses: addrs, pageSize: 100 }), 'pendingRewards');
  assert.ok(all.length > 0, 'stakers not ended at the end of the history');
  assert.deepEqual([...new Set(all.map((r) => r.rewardType))].sort(), ['DELEGATOR', 'VALIDATOR']);
  assert.equal(new Set(all.map((r) => r.txHash)).size, all.length, 'each staker once');
  // every node with pending rewards, alone, in small pages (either order); then with the addresses
  const nodes = [...new Set(all.map((r) => r.nodeId))];
  for (const [i, node] of nodes.entries()) {
    const got = items(await pendingOf(i % 2 ? keyed : anon, { nodeIds: node, sortOrder: i % 2 ? 'asc' : 'desc', pageSize: 3 }), 'pendingRewards');
    assert.ok(got.every((r) => r.nodeId === node) && got.length >= all.filter((r) => r.nodeId === node).length, `${node}: its pending rewards`);
  }
  const both = items(await pendingOf(keyed, { addresses: addrs, nodeIds: nodes.join(','), pageSize: 7, network: 'testnet' }, { network: 'testnet' }), 'pendingRewards');
  assert.deepEqual(both.map((r) => r.txHash), all.map((r) => r.txHash), 'the addresses\' pending rewards are on their nodes');
  // the active staking txs of the accounts, 16 at a time, every page; each type alone, both orders, a time window
  const txs = [];
  for (const [i, g] of groups(accounts, 16).entries()) {
    txs.push(...items(await stakingOf(i % 2 ? keyed : anon, { blockchainId: i % 2 ? chainId.P : 'p-chain', addresses: g.map(i % 2 ? addrOf.X : addrOf.P).join(','), pageSize: 2 }), 'transactions'));
  }
  assert.ok(txs.length > 0, 'active staking txs');
  const types = [...new Set(txs.map((t) => t.txType))];
  for (const type of types) {
    const got = items(await stakingOf(anon, { blockchainId: 'p-chain', addresses: addrs, txTypes: [type], sortOrder: 'asc', pageSize: 100 }), 'transactions');
    assert.ok(got.length > 0 && got.every((t) => t.txType === type), `only ${type}`);
    for (let k = 1; k < got.length; k++) assert.ok(got[k - 1].blockTimestamp <= got[k].blockTimestamp, 'oldest first (asc)');
  }
  const ts = txs.map((t) => t.blockTimestamp).sort((a, b) => a - b);
  const from = ts[Math.floor(ts.length / 2)];
  const win = items(await stakingOf(anon, { blockchainId: 'p-chain', network: 'testnet', addresses: addrs, startTimestamp: from, pageSize: 100 }, { network: 'testnet' }), 'transactions');
  assert.ok(win.length > 0 && win.every((t) => t.blockTimestamp >= from));
});

// ---- the validators of the network ------------------------------------------------------------------------------

test('validators through the SDK: every page, each status, every sort (fuji: not delegationFee), filters, testnet', async () => {
  const list = (cl, req, opts) => pages(cl, 'validators', NETWORK, (d, o) => d.listValidators(req, o), opts);
  const ids = (l) => l.map((v) => v.txHash).sort();
  const all = items(await list(anon, { pageSize: 100 }), 'validators');
  assert.deepEqual(ids(all), m.P.validators.map((v) => v.txId).sort(), 'every validation of the manifest');
  const status = new Map(m.P.validators.map((v) => [v.txId, v.validationStatus]));
  assert.ok(all.every((v) => v.validationStatus === status.get(v.txHash)), 'each with the manifest\'s status');
  for (const validationStatus of ['active', 'completed', 'removed', 'pending']) {
    const got = items(await list(keyed, { validationStatus, pageSize: 3 }), 'validators');
    assert.deepEqual(ids(got), ids(all.filter((v) => v.validationStatus === validationStatus)), validationStatus);
  }
  for (const sortBy of ['blockIndex', 'delegationCapacity', 'timeRemaining', 'uptimePerformance']) {
    const got = items(await list(anon, { sortBy, sortOrder: 'asc', pageSize: 25 }), 'validators');
    assert.deepEqual(ids(got), ids(all), `${sortBy}: every validator`);
  }
  // filters (the validators test checks each against the truth): what they keep has what they ask
  const primary = '11111111111111111111111111111111LpoYY';
  const fee = items(await list(anon, { minFeePercentage: 2.5, maxFeePercentage: 9, subnetId: primary, network: 'testnet', pageSize: 10 }, { network: 'testnet' }), 'validators');
  assert.ok(fee.length && fee.every((v) => Number(v.delegationFee) >= 2.5 && Number(v.delegationFee) <= 9));
  const up = items(await list(keyed, { minUptimePerformance: 50, maxUptimePerformance: 99.5, sortBy: 'uptimePerformance' }), 'validators');
  assert.ok(up.length && up.every((v) => v.validationStatus === 'active' && v.uptimePerformance >= 50 && v.uptimePerformance <= 99.5));
  const cap = items(await list(anon, { minDelegationCapacity: '1', maxTimeRemaining: 2147483647, sortBy: 'delegationCapacity', pageSize: 7 }), 'validators');
  assert.ok(cap.length && cap.every((v) => BigInt(v.delegationCapacity) >= 1n));
  const node = all[0].nodeId;
  const byNode = items(await list(anon, { nodeIds: node.slice(9, 20) }), 'validators');
  assert.ok(byNode.some((v) => v.nodeId === node) && byNode.every((v) => v.nodeId.includes(node.slice(9, 20))));
});

// ---- errors through the SDK --------------------------------------------------------------------------------------

test('errors reach the SDK as its error classes, with ErrorBody bodies', async () => {
  const cases = [
    [E.BadRequestError, 400, (d, o) => d.utxos.listByAddresses({ blockchainId: 'p-chain', addresses: 'P-fuji1notanaddress', pageSize: 10 }, o)],
    [E.BadRequestError, 400, (d, o) => d.vertices.listLatest({ blockchainId: 'x-chain', pageSize: 0 }, o)],
    [E.BadRequestError, 400, (d, o) => d.transactions.listLatest({ blockchainId: 'p-chain', pageToken: 'forged' }, o)],
    [E.NotFoundError, 404, (d, o) => d.vertices.listLatest({ blockchainId: 'x-chain', network: 'mainnet' }, o)],
  ];
  for (const [cls, status, call] of cases) {
    const start = anon.exchanges.length;
    await assert.rejects(async () => { const r = await call(anon.data, anon.opts); for await (const p of r) void p; }, (err) => {
      assert.ok(err instanceof cls, `${cls.name}, not ${err?.constructor?.name}: ${err?.message}`);
      assert.equal(err.statusCode, status);
      return true;
    });
    const ex = anon.exchanges.slice(start);
    assert.equal(ex.length, 1);
    checkErrorBody(status, ex[0].text);
  }
  // an unknown API key
  const stranger = sdkClient(api.url, { apiKey: 'sl_not_a_key_of_this_server' });
  await assert.rejects(() => stranger.data.vertices.listLatest({ blockchainId: 'x-chain' }, stranger.opts), E.UnauthorizedError);
  checkErrorBody(401, stranger.exchanges[0].text);
  assert.equal(stranger.exchanges[0].headers.get('x-glacier-api-key'), 'sl_not_a_key_of_this_server');
});

// ---- the checks themselves ----------------------------------------------------------------------------------------

test('the checks are not vacuous: an unknown key, another chain\'s shape and a wrong chainInfo all fail', async () => {
  const [p] = await pages(anon, 'transactions', 'P', (d, o) => d.transactions.listLatest({ blockchainId: 'p-chain', pageSize: 5 }, o), { maxPages: 1 });
  const [x] = await pages(anon, 'utxos', 'X', (d, o) => d.utxos.listByAddresses({ blockchainId: 'x-chain', addresses: accounts[0].xAddress, includeSpent: true }, o), { maxPages: 1 });
  assert.ok(p.transactions.length && x.utxos.length);
  // a key no schema knows, deep inside: the SDK drops it silently, the strict check refuses it
  const extra = structuredClone(p);
  extra.transactions[0].consumedUtxos[0].asset.colour = 'blue';
  assert.ok(SCHEMAS.transactions.branches[0].safeParse(extra).success, 'the SDK takes it');
  assert.throws(() => checkBody('transactions', 'P', JSON.stringify(extra)), /Unrecognized key.*colour/);
  // an X-chain UTXO list answered for the P-chain, and the other way round
  assert.throws(() => checkBody('utxos', 'P', JSON.stringify({ ...x, chainInfo: { chainName: 'p-chain', network: 'fuji' } })), /not a strict ListPChainUtxosResponse/);
  assert.throws(() => checkBody('transactions', 'X', JSON.stringify(p)), /not a strict ListXChainTransactionsResponse/);
  // the right shape with the wrong chainInfo
  assert.throws(() => checkBody('utxos', 'X', JSON.stringify({ ...x, chainInfo: { chainName: 'c-chain', network: 'fuji' } })), /chainInfo/);
  assert.throws(() => checkBody('utxos', 'X', JSON.stringify(x), { network: 'testnet' }), /chainInfo/);
  // an ErrorBody with a key too many, or the wrong statusCode
  assert.throws(() => checkErrorBody(400, '{"message":"m","statusCode":400,"error":"Bad Request","x":1}'), /Unrecognized key/);
  assert.throws(() => checkErrorBody(404, '{"message":"m","statusCode":400,"error":"Bad Request"}'), /statusCode/);
});

// ---- coverage -------------------------------------------------------------------------------------------------------

// Every key path a schema allows ("a.b[].c"), unions and intersections taken whole.
function schemaPaths(schema, prefix = '', out = new Set(), depth = 0) {
  if (depth > 12) return out;
  const d = schema._def;
  switch (d.typeName) {
    case 'ZodObject': for (const [k, v] of Object.entries(schema.shape)) { out.add(prefix + '.' + k); schemaPaths(v, prefix + '.' + k, out, depth + 1); } break;
    case 'ZodArray': schemaPaths(d.type, prefix + '[]', out, depth + 1); break;
    case 'ZodOptional': case 'ZodNullable': case 'ZodDefault': schemaPaths(d.innerType, prefix, out, depth); break;
    case 'ZodUnion': for (const o of d.options) schemaPaths(o, prefix, out, depth); break;
    case 'ZodIntersection': schemaPaths(d.left, prefix, out, depth); schemaPaths(d.right, prefix, out, depth); break;
    case 'ZodLazy': schemaPaths(d.getter(), prefix, out, depth); break;
    case 'ZodEffects': schemaPaths(d.schema, prefix, out, depth); break;
    default: break;
  }
  return out;
}

// Fields of the response schemas that this devnet never produces, and why. A field that is not
// here must have been seen in some response above.
const NOT_PRODUCED = [
  // [path, endpoint/chain prefix, why]
  [/^\.nextPageToken$/, 'balances', 'balances are not paginated'],
  [/\.l1ValidatorDetails\[\]\.blsCredentials\./, 'transactions/P', 'a free-form object in the OpenAPI document'],
  [/\.atomicMemoryLocked\[\]/, 'balances', 'the devnet exports no time-locked outputs'],
  [/\.utxos\[\]\.(groupId|payload)$|Utxos\[\]\.(groupId|payload)$/, 'utxos/C', 'only AVAX crosses to the C-chain'],
  [/Utxos\[\]\.(groupId|payload)$/, 'transactions/C', 'only AVAX crosses to the C-chain'],
  [/\.emittedUtxos\[\]\.credentials/, '', 'credentials sign inputs: an emitted UTXO has none yet'],
  [/^\.utxos\[\]\.credentials/, 'utxos', 'a UTXO list shows no credentials (a transaction shows its inputs\')'],
  // optional fields snowline does not serve yet (docs/api.md)
  [/\.blocks\[\]\.(l1ValidatorsAccruedFees|activeL1Validators|currentSupply)$/, 'blocks/X', 'the P-chain\'s state: P blocks only'],
  [/\.blocks\[\]\.(l1ValidatorsAccruedFees|activeL1Validators|currentSupply)$/, 'blocks/C', 'the P-chain\'s state: P blocks only'],
  [/\.reward\.historicalPrice/, 'rewards', 'this suite loads no prices (dataapi-rewards checks them, under --compat upstream for the SDK)'],
  // a chain's genesis is the devnet's Subnet-EVM one (src/devnet/pchain.c), which has none of these
  [/\.genesisData\.(airdropAmount|airdropHash|baseFeePerGas|blobGasUsed|excessBlobGas|config\.(berlinBlock|londonBlock|eip150Hash|warpConfig\.requirePrimaryNetworkSigners|(txAllowList|contractDeployerAllowList|contractNativeMinter|feeManager|rewardManager)Config(\.\w+)?))$/, 'subnets', 'not in the devnet\'s genesis'],
  [/\.genesisData\.(airdropAmount|airdropHash|baseFeePerGas|blobGasUsed|excessBlobGas|config\.(berlinBlock|londonBlock|eip150Hash|warpConfig\.requirePrimaryNetworkSigners|(txAllowList|contractDeployerAllowList|contractNativeMinter|feeManager|rewardManager)Config(\.\w+)?))$/, 'transactions/P', 'not in the devnet\'s genesis'],
  // staking, part 2: what a staker's tx does not carry, or not while it is active
  [/\.(sourceChain|destinationChain|l1ValidatorManagerDetails|l1ValidatorDetails|stakingTxHash|subnetOwnershipInfo|blockchainInfo|rewardTxHash)(\.|\[|$)/,
    'stakingTransactions/P', 'not a field of a staking tx, or not before its RewardValidatorTx'],
  [/Utxos\[\]\.rewardType$/, 'stakingTransactions/P', 'a staking tx makes no reward UTXOs'],
  [/\.memo$/, 'stakingTransactions/P', 'the devnet\'s active stakers are from Durango on: no memos'],
  [/\.(amountBurned|amountL1ValidatorBalanceBurned)\[\]/, 'stakingTransactions/P', 'the devnet\'s staking txs pay no fee and fund no L1 validator'],
  // validators: no geolocation and no node versions (snowline knows neither); an active validation has
  // no reward tx yet
  [/\.validators\[\]\.geolocation\./, 'validators', 'geolocation is null: snowline knows no locations'],
  [/\.validators\[\]\.avalancheGoVersion$/, 'validators', 'not what the node reports of its validators'],
  [/\.validators\[\]\.potentialRewards\.rewardTxHash$/, 'validators', 'an active validation has not been rewarded yet'],
];

test('every field of every response schema that the devnet can produce was seen', () => {
  const missing = [];
  for (const [kind, s] of Object.entries(SCHEMAS)) {
    for (const [chain, want] of Object.entries(s.want)) {
      const key = `${kind}/${chain}`;
      const got = seen.get(key) ?? new Set();
      const paths = schemaPaths(s.branches[want]);
      for (const p of paths) {
        if (got.has(p)) continue;
        if (NOT_PRODUCED.some(([re, k]) => re.test(p) && key.startsWith(k))) continue;
        missing.push(`${key}: ${p}`);
      }
    }
  }
  assert.deepEqual(missing, [], `never seen:\n${missing.join('\n')}`);
});

