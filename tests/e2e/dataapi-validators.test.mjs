// dataapi-validators.test.mjs — GET /v1/networks/{network}/validators (spec 000 §4.5, §2.5 Validator)
// against the truth, on one store backend: SQLite here, PostgreSQL in dataapi-validators-pg.test.mjs
// (the same file on a database of the server tests/run.sh starts).
//
// A `fuji` devnet node (`snowline devnet`, the release binary: the ground truth) is indexed by
// `snowline index --genesis --observe-s 1` (the node's platform.getCurrentValidators sampled into
// node_obs) and served by `snowline api` (the ASan binary). The truth is the devnet's manifest
// (P.validators and P.delegators: period, weight, fee, status, potential reward, paid reward and
// fees, rewards owner, validator of each delegator, and the uptime and connectivity the node reports
// of each active primary validator) and the node's own containers replayed by devnet-ledger.mjs
// (dataapi-lib.mjs buildTruth: the block that accepted each staker and the tx that ended it, BLS
// keys). "Now" is the chain's time: the last P block's. Nothing here reads the store or src/.
//
// Devnet histories pass Durango, so at their end no validator waits for its start: a second node
// serves a prefix of the same P-chain (cut where the most validators wait), indexed without
// observing (its uptimes are 0: never sampled); that node, of imported containers, knows no reward
// UTXOs, so its completed validations were paid nothing as far as its store knows. sortBy delegationFee is mainnet's only: a third,
// smaller devnet of network `mainnet` serves it.
//
//  1. the whole list, every field of every validator, both orders; each status, subnet and node-id part;
//  2. every sortBy in both orders and page sizes 1, 7 and 100 (each item once, in order);
//  3. every filter alone (each keeps some and drops some), the fee filters leaving out subnet
//     validations, several together, with sorts;
//  4. the prefix: pending validators, uptime 0 when never observed;
//  5. mainnet: delegationFee in both orders and pages, with filters; the 400s of sortBy;
//  6. every body parses with the SDK's schema made strict, and the SDK reads the list through its own
//     pagination unchanged.
// Bad input is dataapi-badinput.test.mjs's (table-driven from routes.c).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BIN, cb58, tempDir, cleanup, startNode, writeClog, BIN_RELEASE } from './lib.mjs';
import { readNodeIndexes } from './devnet-lib.mjs';
import { split } from './devnet-ledger.mjs';
import * as L from './dataapi-lib.mjs';
import { checkBody, sdkClient, NETWORK, SCHEMAS } from './dataapi-schema-lib.mjs';

const BACKEND = process.env.SNOWLINE_VALIDATORS_BACKEND ?? 'sqlite';
const TXS = Number(process.env.DATAAPI_TXS || 3000);
const SEED = process.env.DATAAPI_SEED || 'snowline-validators';
const PRIMARY = '11111111111111111111111111111111LpoYY';
const MAX_STAKE = 3_000_000n * 1_000_000_000n; // nAVAX: MaxValidatorStake
const dir = tempDir('snowline-validators-');
let fuji, mainnet;
const procs = [];
let bodies = 0; // responses checked against the strict schema

// ---- the worlds: a devnet, its truth, its stores -------------------------------------------------------------

async function world(name, { network, txs, seed }) {
  const devnet = await L.startDevnetNode({ dataDir: join(dir, name), txs, seed, network });
  procs.push(devnet);
  const idx = await readNodeIndexes(devnet.url);
  const truth = L.buildTruth(idx, devnet.manifest(), { genesis: devnet.genesis(), dir });
  assert.deepEqual(truth.problems, [], `${name}: the ledger replay disagrees with the manifest:\n${truth.problems.slice(0, 20).join('\n')}`);
  const w = { name, network, devnet, idx, truth, M: truth.manifest };
  w.stakers = stakerTruth(w);
  return w;
}

// A store of a node's history, its indexer (stopped once it holds `target`, and with observe, once every
// active primary validator was sampled) and an API over it.
async function serve(w, nodeUrl, name, target, { observe, k }) {
  const store = L.freshStore(BACKEND, dir, name);
  const indexer = L.startIndexer({ nodeUrl, store, genesis: w.devnet.genesisPath, args: ['--observe-s', observe ? '1' : '0'] });
  procs.push(indexer);
  await indexer.ready;
  const api = await L.startApi({ store, network: w.network });
  procs.push(api);
  await L.waitCaughtUp(api, { target, indexer, timeoutMs: 180000 });
  if (observe) {
    const want = new Set(w.M.P.validators.filter((v) => v.validationStatus === 'active' && v.subnetId === PRIMARY).map((v) => v.nodeId));
    await L.waitFor(async () => { const o = observed(store); return [...want].every((n) => o.get(n)?.samples >= 1); },
      { timeoutMs: 60000, what: () => `every active validator of ${name} observed` });
  }
  await indexer.stop();
  return { api, store, k, observe, w };
}

// node_obs of a store, read with `snowline dump` (what the node reported: node → { uptime, samples, reachable })
function observed(store) {
  const r = spawnSync(BIN, ['dump', '--store', store, '--table', 'node_obs'], { encoding: 'utf8', timeout: 60000, killSignal: 'SIGKILL' });
  assert.equal(r.status, 0, r.stderr);
  return new Map(r.stdout.split('\n').filter((l) => l.startsWith('node_obs\t')).map((l) => l.split('\t'))
    .map(([, hex, , uptime, , samples, reachable]) => ['NodeID-' + cb58(Buffer.from(hex.slice(2, -1), 'hex')), { uptime: Number(uptime), samples: Number(samples), reachable: Number(reachable) }]));
}

before(async () => {
  fuji = await world('fuji', { network: 'fuji', txs: TXS, seed: SEED });
  const P = fuji.truth.blocks.P;
  fuji.full = await serve(fuji, fuji.devnet.url, 'validators', fuji.truth.containers, { observe: true, k: P.length - 1 });
  // the prefix: the first k+1 P blocks, k where the most validators wait for their start
  const k = cutIndex(fuji);
  const clog = writeClog(join(dir, 'cut.clog'), fuji.idx['P/block'].slice(0, k + 1).map((c) => ({ kind: 'P/block', id: L.idBytes(c.id), ts: c.ts, bytes: c.bytes })));
  const cutNode = await startNode(['--index-enabled', '--import', clog, '--network-id', '5', '--data-dir', join(dir, 'cut-node')], { bin: BIN_RELEASE });
  procs.push(cutNode);
  fuji.cut = await serve(fuji, cutNode.url, 'validators_cut', { 'P/block': k + 1, 'C/block': 0, 'X/tx': 0, 'X/block': 0, 'X/vtx': 0 }, { observe: false, k });
  fuji.cut.noRewards = true; // a node of imported containers knows no reward UTXOs (getRewardUTXOs: none)
  mainnet = await world('mainnet', { network: 'mainnet', txs: Math.min(TXS, 1500), seed: SEED + '-mainnet' });
  mainnet.full = await serve(mainnet, mainnet.devnet.url, 'validators_mainnet', mainnet.truth.containers, { observe: true, k: mainnet.truth.blocks.P.length - 1 });
});

after(async () => {
  for (const p of procs.reverse()) await p.stop().catch(() => {});
  for (const w of [fuji, mainnet]) for (const s of [w?.full, w?.cut]) if (s) L.dropStore(s.store);
  cleanup(dir);
});

// ---- the truth --------------------------------------------------------------------------------------------------

/*
 * Every staker of the manifest with what a cut of the history needs: the P block (container index) that
 * accepted it (-1: the genesis), its place in the chain (the list's blockIndex order; the genesis
 * validators first, by id), and the block that ended it: a primary staker's RewardValidatorTx, a
 * permissioned subnet validator's RemoveSubnetValidatorTx (with that tx, for removeTxHash).
 */
function stakerTruth({ truth, M }) {
  const genesis = new Set(M.P.genesis.validators.map((v) => v.txId));
  const list = [...M.P.validators, ...M.P.delegators].map((m) => {
    const t = truth.txById.get(m.txId);
    assert.ok(t || genesis.has(m.txId), `staker ${m.txId}: its tx`);
    return { m, id: m.txId, idb: L.idBytes(m.txId), t, order: t ? t.at.order : -1, accepted: t ? t.at.dep.index : -1,
      primary: m.subnetId === PRIMARY, delegator: /Delegator/.test(m.txType), permissioned: m.txType === 'AddSubnetValidatorTx',
      start: Number(m.startTime), end: Number(m.endTime), weight: BigInt(m.weight), endedIn: Infinity, endTx: null, delegators: [] };
  });
  const byId = new Map(list.map((s) => [s.id, s]));
  for (const t of truth.txs.P) {
    if (t.type === 'RewardValidatorTx') Object.assign(byId.get(t.n.stakerTxId), { endedIn: t.at.dep.index, endTx: t });
    if (t.type === 'RemoveSubnetValidatorTx') {
      const s = list.find((x) => x.permissioned && x.m.nodeId === t.n.nodeId && x.m.subnetId === t.n.subnetId && x.order < t.at.order && x.start <= t.at.ts && x.end > t.at.ts);
      assert.ok(s, `${t.id}: the subnet validator it removes`);
      Object.assign(s, { endedIn: t.at.dep.index, endTx: t });
    }
  }
  for (const s of list) {
    if (!s.delegator) continue;
    s.validator = byId.get(s.m.validatorTxId);
    assert.ok(s.validator, `delegator ${s.id}: its validator`);
    s.validator.delegators.push(s);
  }
  return list;
}

// A staker's state after P block k (at time T): absent (not accepted yet), ended (by its tx), pending, active.
function stateAt(s, k, T) {
  if (s.accepted > k) return 'absent';
  if (s.endedIn <= k) return 'ended';
  return s.start > T ? 'pending' : 'active';
}

// A validation's validationStatus after block k (docs/api.md): removed by a RemoveSubnetValidatorTx,
// completed when rewarded or, permissioned, past its end; pending before its start; else active.
function statusAt(s, k, T) {
  const st = stateAt(s, k, T);
  if (st === 'absent' || st === 'pending') return st;
  if (st === 'ended') return s.permissioned ? 'removed' : 'completed';
  return s.permissioned && s.end <= T ? 'completed' : 'active';
}

const feePercent = (ppm) => (Number(ppm) / 10000).toString(); // "2.5": JS prints the shortest form, as the API
const noPrefix = (a) => a.replace(/^[PXC]-/, '');
// "97.1600" (the manifest's percent) → 971600 (millionths of 1, as node_obs)
const uptimeMillionths = (s) => { const [a, b = ''] = String(s).split('.'); return Number(a) * 10000 + Number((b + '0000').slice(0, 4)); };
// a decimal string → millionths (BigInt)
const millionths = (s) => { const [a, b = ''] = String(s).split('.'); return BigInt(a) * 1000000n + BigInt((b + '000000').slice(0, 6)); };
// floor(a × 10^8 / b) / 10^6: a part of b in percent, 6 decimals (the API's stakePercentage)
const percent6 = (a, b) => (b ? Number((a * 100000000n) / b) / 1e6 : 0);

/*
 * Every validation after P block k of store st (its now: that block's time) as the API must show it, with
 * the values the list sorts and filters by (docs/api.md): capacity (primary validations not ended:
 * min(5 × weight, 3M AVAX) − weight − the weight of its delegators not ended, at least 0), time
 * (validations not ended: end − now, at least 0), uptime (active ones: the node's observed uptime, 0
 * when the store never sampled it), fee (ppm). Oldest first.
 */
function validatorsAt(st) {
  const { w, k, observe } = st;
  const T = w.truth.blocks.P[k].ts;
  const vals = w.stakers.filter((s) => !s.delegator && s.accepted <= k);
  const active = (s) => (s.delegator ? stateAt(s, k, T) === 'active' : statusAt(s, k, T) === 'active');
  const primaryTotal = w.stakers.filter((s) => s.primary && active(s)).reduce((a, s) => a + s.weight, 0n);
  // what the node reported of a node: its active primary validation's uptime and connectivity, and
  // the chains on which its info.peers has it benched (the manifest's peers: the connected validators;
  // a node not among them is not counted benched). Each is the same in every sample, so 100 or 0.
  const obsOf = (node) => {
    const none = { uptime: 0, reach: 0, benched: { P: 0, X: 0, C: 0 } };
    if (!observe) return none;
    const m = w.M.P.validators.find((v) => v.nodeId === node && v.subnetId === PRIMARY && v.validationStatus === 'active');
    if (!m) return none;
    const peer = w.M.peers.find((p) => p.nodeID === node);
    const b = (c) => (peer?.benched.includes(c) ? 100 : 0);
    return { uptime: uptimeMillionths(m.uptime), reach: m.connected ? 100 : 0, benched: { P: b('P'), X: b('X'), C: b('C') } };
  };
  const out = vals.map((s) => {
    const m = s.m, status = statusAt(s, k, T);
    const item = { txHash: s.id, nodeId: m.nodeId, subnetId: m.subnetId, amountStaked: String(s.weight) };
    if (s.primary) item.delegationFee = feePercent(m.delegationFee);
    item.startTimestamp = s.start;
    item.endTimestamp = s.end;
    const u = s.t?.n.src.signed?.unsignedTx;
    if (m.txType === 'AddPermissionlessValidatorTx' && u?.signer?.proof) item.blsCredentials = { publicKey: L.hex0x(u.signer.proof.publicKey), proofOfPossession: L.hex0x(u.signer.proof.signature) };
    item.validationStatus = status;
    const owners = s.primary ? { rewardAddresses: m.rewardOwner.addresses.map(noPrefix) } : {};
    const open = s.delegators.filter((d) => ['active', 'pending'].includes(stateAt(d, k, T)));
    const cur = open.filter((d) => stateAt(d, k, T) === 'active');
    const sum = (l) => l.reduce((a, d) => a + d.weight, 0n);
    const keys = { fee: s.primary ? BigInt(m.delegationFee) : null, capacity: null, time: null, uptime: null };
    if (status === 'active' || status === 'pending') {
      keys.time = BigInt(Math.max(0, s.end - T));
      if (s.primary) {
        const most = s.weight * 5n < MAX_STAKE ? s.weight * 5n : MAX_STAKE, used = s.weight + sum(open);
        keys.capacity = most > used ? most - used : 0n;
      }
    }
    if (status === 'active') {
      const o = obsOf(m.nodeId);
      keys.uptime = BigInt(o.uptime);
      const total = s.primary ? primaryTotal : vals.filter((x) => x.m.subnetId === m.subnetId && statusAt(x, k, T) === 'active').reduce((a, x) => a + x.weight, 0n);
      Object.assign(item, {
        stakePercentage: percent6(s.weight + sum(cur), total), delegatorCount: cur.length, amountDelegated: String(sum(cur)),
        uptimePerformance: o.uptime / 10000,
        ...(s.primary ? { delegationCapacity: String(keys.capacity) } : {}),
        potentialRewards: { validationRewardAmount: s.primary ? String(m.potentialReward) : '0',
          delegationRewardAmount: String(cur.reduce((a, d) => a + split(BigInt(d.m.potentialReward), m.delegationFee)[1], 0n)), ...owners },
        validatorHealth: { reachabilityPercent: o.reach, benchedPChainRequestsPercent: o.benched.P, benchedXChainRequestsPercent: o.benched.X, benchedCChainRequestsPercent: o.benched.C },
        geolocation: null,
      });
    } else if (status === 'completed') {
      const all = s.primary ? s.delegators : [];
      Object.assign(item, { delegatorCount: all.length, amountDelegated: String(sum(all)),
        rewards: { validationRewardAmount: s.primary && !st.noRewards ? String(m.reward) : '0', delegationRewardAmount: s.primary && !st.noRewards ? String(m.delegationFeesPaid) : '0',
          ...owners, ...(s.endTx ? { rewardTxHash: s.endTx.id } : {}) } });
    } else if (status === 'removed') {
      Object.assign(item, { removeTxHash: s.endTx.id, removeTimestamp: s.endTx.at.ts });
    }
    return { s, status, item, keys, node: m.nodeId, subnet: m.subnetId };
  });
  return out.sort((a, b) => cmpStaker(a.s, b.s));
}

const cmpStaker = (a, b) => a.order - b.order || Buffer.compare(a.idb, b.idb);
const cmpBig = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const SORT_KEY = { delegationCapacity: 'capacity', timeRemaining: 'time', delegationFee: 'fee', uptimePerformance: 'uptime' };

// The truth of a request (its query's parameters) on a store: filtered and sorted as docs/api.md says.
function want(st, q = {}) {
  const inRange = (v, lo, hi, f = BigInt) => v !== null && (lo === undefined || v >= f(lo)) && (hi === undefined || v <= f(hi));
  let list = validatorsAt(st);
  if (q.validationStatus) list = list.filter((x) => x.status === q.validationStatus);
  if (q.subnetId) list = list.filter((x) => x.subnet === q.subnetId);
  if (q.nodeIds) list = list.filter((x) => q.nodeIds.split(',').some((p) => x.node.includes(p)));
  if (q.minFeePercentage !== undefined || q.maxFeePercentage !== undefined) {
    list = list.filter((x) => inRange(x.keys.fee === null ? null : x.keys.fee * 100n, q.minFeePercentage, q.maxFeePercentage, millionths));
  }
  if (q.minDelegationCapacity !== undefined || q.maxDelegationCapacity !== undefined) list = list.filter((x) => inRange(x.keys.capacity, q.minDelegationCapacity, q.maxDelegationCapacity));
  if (q.minTimeRemaining !== undefined || q.maxTimeRemaining !== undefined) list = list.filter((x) => inRange(x.keys.time, q.minTimeRemaining, q.maxTimeRemaining));
  if (q.minUptimePerformance !== undefined || q.maxUptimePerformance !== undefined) {
    list = list.filter((x) => inRange(x.keys.uptime === null ? null : x.keys.uptime * 100n, q.minUptimePerformance, q.maxUptimePerformance, millionths));
  }
  const key = SORT_KEY[q.sortBy];
  // by the value (the validators without one: -1, before the others), then by blockIndex
  list.sort((a, b) => (key ? cmpBig(a.keys[key] ?? -1n, b.keys[key] ?? -1n) : 0) || cmpStaker(a.s, b.s));
  return q.sortOrder === 'asc' ? list : list.reverse();
}

// The prefix: a standard block (not a proposal: its decision is in the next) where the most validators wait.
function cutIndex(w) {
  let best = -1, most = 0;
  w.truth.blocks.P.forEach((b, k) => {
    if (b.type === 'BanffProposalBlock') return;
    const n = w.stakers.filter((s) => !s.delegator && statusAt(s, k, b.ts) === 'pending').length;
    if (n > most) { most = n; best = k; }
  });
  assert.ok(best >= 0, 'a moment with pending validators');
  return best;
}

// ---- requests --------------------------------------------------------------------------------------------------

const urlOf = (st) => `${st.api.url}/v1/networks/${st.w.network}/validators`;

/*
 * Every page of a request (query: its parameters but pageSize and pageToken): each a 200 whose body
 * parses with the strict schema, at most pageSize items, a next page only after a full one. Resolves
 * the items and the number of pages.
 */
async function readAll(st, query = {}, pageSize = 100) {
  const items = [];
  let token, pages = 0;
  for (;;) {
    const q = L.qs({ ...query, pageSize, pageToken: token });
    const r = await L.apiGet(urlOf(st) + q);
    assert.equal(r.status, 200, `GET ${urlOf(st)}${q}: ${r.text.slice(0, 300)}`);
    const body = checkBody('validators', NETWORK, r.text, { network: st.w.network });
    bodies++;
    pages++;
    if (pageSize) assert.ok(body.validators.length <= pageSize, `${q}: ${body.validators.length} items in a page of ${pageSize}`);
    items.push(...body.validators);
    token = body.nextPageToken;
    if (!token) break;
    assert.equal(body.validators.length, pageSize ?? 10, `${q}: a page short of its size before the end`);
    assert.ok(pages < 5000, `${q}: more than 5000 pages`);
  }
  return { items, pages };
}

// A list read against its truth: the same validators in the same order, every field.
function diffList(got, w, where) {
  const ids = got.map((x) => x.txHash), wantIds = w.map((x) => x.item.txHash);
  if (ids.join() !== wantIds.join()) {
    const g = new Set(ids), s = new Set(wantIds);
    return [`${where}: ${ids.length} items (${ids.length - g.size} twice), want ${wantIds.length}; extra ${JSON.stringify(ids.filter((x) => !s.has(x)).slice(0, 3))}, missing ${JSON.stringify(wantIds.filter((x) => !g.has(x)).slice(0, 3))}, first difference at ${ids.findIndex((x, i) => x !== wantIds[i])}`];
  }
  return got.flatMap((x, i) => L.diffObj(x, w[i].item, `${where} [${i}] ${x.txHash}`));
}

const fail = (diffs, what) => assert.equal(diffs.length, 0, `${what}: ${diffs.length} differences from the truth:\n${diffs.slice(0, 25).join('\n')}`);
// a filter's truth must keep some and drop some of what the same request without it lists
const narrows = (f, all, what) => assert.ok(f.length > 0 && f.length < all.length, `${what}: keeps ${f.length} of ${all.length}`);
const countBy = (list, f) => { const m = new Map(); for (const x of list) m.set(f(x), (m.get(f(x)) ?? 0) + 1); return m; };
const median = (l) => [...l].sort(cmpBig)[Math.floor(l.length / 2)];

// ---- 0. the truth agrees with the manifest -------------------------------------------------------------------------

test('the truth: now is the last P block\'s time, each status the manifest\'s, every status and kind present', (t) => {
  const st = fuji.full, all = validatorsAt(st);
  assert.equal(fuji.truth.blocks.P[st.k].ts, Number(fuji.M.endTime), 'the manifest\'s endTime is the last P block\'s time');
  for (const x of all) assert.equal(x.status, x.s.m.validationStatus, `${x.s.id} (${x.s.m.txType})`);
  assert.equal(all.length, fuji.M.P.validators.length);
  const statuses = countBy(all, (x) => `${x.status} ${x.s.m.txType}`);
  t.diagnostic(JSON.stringify(Object.fromEntries(statuses)));
  for (const s of ['active AddValidatorTx', 'active AddPermissionlessValidatorTx', 'completed AddPermissionlessValidatorTx', 'active AddSubnetValidatorTx', 'completed AddSubnetValidatorTx', 'removed AddSubnetValidatorTx']) {
    assert.ok(statuses.get(s) > 0, `a validator ${s}`);
  }
  assert.ok(all.some((x) => x.status === 'completed' && x.s.m.committed === false), 'an aborted validation');
  assert.ok(all.some((x) => x.status === 'active' && x.item.delegatorCount > 1), 'an active validator with delegators');
  t.diagnostic(`${all.filter((x) => x.status === 'active' && x.item.validatorHealth.reachabilityPercent === 0).length} active validators seen disconnected`);
  const benched = all.filter((x) => x.status === 'active' && ['P', 'X', 'C'].some((c) => x.item.validatorHealth[`benched${c}ChainRequestsPercent`] > 0));
  t.diagnostic(`${benched.length} active validators benched on some chain`);
  assert.ok(benched.length > 0, 'an active validator that the node\'s peers list benched');
});

// ---- 1. the list, every field ---------------------------------------------------------------------------------------

test('every validator, every field, both orders; each status, subnet and node-id part', async (t) => {
  const st = fuji.full, diffs = [];
  for (const order of [undefined, 'asc', 'desc']) {
    diffs.push(...diffList((await readAll(st, { sortOrder: order })).items, want(st, { sortOrder: order }), `all ${order ?? '(default)'}`));
  }
  // the default: 10, newest first
  const r = await L.apiGet(urlOf(st));
  const body = checkBody('validators', NETWORK, r.text);
  diffs.push(...diffList(body.validators, want(st).slice(0, 10), 'the default page'));
  assert.ok(body.nextPageToken);
  const all = want(st);
  for (const status of ['completed', 'active', 'pending', 'removed']) {
    const w = want(st, { validationStatus: status });
    if (status !== 'pending') narrows(w, all, status);
    diffs.push(...diffList((await readAll(st, { validationStatus: status }, 7)).items, w, `validationStatus ${status}`));
  }
  const subnets = [...new Set(all.map((x) => x.subnet))];
  assert.ok(subnets.length >= 3 && subnets.includes(PRIMARY), 'the primary network and subnets');
  for (const subnetId of [...subnets, fuji.M.P.subnets.find((s) => s.isL1).subnetId]) {
    for (const order of ['asc', 'desc']) diffs.push(...diffList((await readAll(st, { subnetId, sortOrder: order })).items, want(st, { subnetId, sortOrder: order }), `subnet ${subnetId} ${order}`));
  }
  // node ids: a whole one, a part in its middle, two parts, a part many share, one no node has
  const nodes = [...new Set(all.map((x) => x.node))];
  const busy = [...countBy(all, (x) => x.node)].sort((a, b) => b[1] - a[1])[0][0];
  const parts = [busy, busy.slice(10, 16), `${nodes[1].slice(12, 20)},${nodes[2].slice(7, 14)}`, 'NodeID-', 'zzzzzzzz'];
  // a short part that some node ids hold and others do not
  for (let i = 7; i < busy.length - 2; i++) {
    const p = busy.slice(i, i + 2), n = nodes.filter((x) => x.includes(p)).length;
    if (n > 1 && n < nodes.length) { parts.push(p); break; }
  }
  for (const nodeIds of parts) {
    const w = want(st, { nodeIds });
    if (nodeIds !== 'NodeID-' && nodeIds !== 'zzzzzzzz') narrows(w, all, `nodeIds ${nodeIds}`);
    diffs.push(...diffList((await readAll(st, { nodeIds }, 7)).items, w, `nodeIds ${nodeIds}`));
  }
  assert.equal(want(st, { nodeIds: 'zzzzzzzz' }).length, 0);
  assert.ok(want(st, { nodeIds: parts.at(-1) }).length > 1, 'a part several node ids hold');
  t.diagnostic(`${all.length} validators on ${nodes.length} nodes and ${subnets.length} subnets`);
  fail(diffs, 'the list');
});

// ---- 2. sorts and paging ----------------------------------------------------------------------------------------------

test('every sortBy, both orders, page sizes 1, 7 and 100: each item once, in order', async (t) => {
  const st = fuji.full, diffs = [];
  let pages = 0;
  for (const sortBy of ['blockIndex', 'delegationCapacity', 'timeRemaining', 'uptimePerformance']) {
    // the sort must change the order (against blockIndex), else it could be ignored unseen
    if (sortBy !== 'blockIndex') assert.notDeepEqual(want(st, { sortBy }).map((x) => x.item.txHash), want(st).map((x) => x.item.txHash), `${sortBy} orders otherwise`);
    for (const sortOrder of ['asc', 'desc']) {
      const w = want(st, { sortBy, sortOrder });
      for (const size of [1, 7, 100]) {
        const r = await readAll(st, { sortBy, sortOrder }, size);
        pages += r.pages;
        diffs.push(...diffList(r.items, w, `${sortBy} ${sortOrder} pageSize ${size}`));
        if (size === 1) assert.equal(r.pages, Math.max(w.length, 1), `${sortBy} ${sortOrder}: one page per item`);
      }
    }
  }
  // sorted and filtered at once (the values of the validators that have them; set paging)
  for (const [q, size] of [[{ sortBy: 'uptimePerformance', validationStatus: 'active' }, 3], [{ sortBy: 'delegationCapacity', subnetId: PRIMARY, sortOrder: 'asc' }, 4],
    [{ sortBy: 'timeRemaining', nodeIds: 'NodeID-', sortOrder: 'asc' }, 6], [{ sortBy: 'blockIndex', minTimeRemaining: 1 }, 5], [{ sortBy: 'blockIndex', sortOrder: 'asc', minUptimePerformance: '0' }, 2]]) {
    const r = await readAll(st, q, size);
    pages += r.pages;
    diffs.push(...diffList(r.items, want(st, q), `${JSON.stringify(q)} pageSize ${size}`));
  }
  t.diagnostic(`${pages} pages`);
  fail(diffs, 'sorts');
});

// ---- 3. filters ----------------------------------------------------------------------------------------------------------

test('every filter alone keeps and drops as it should; fee filters leave out subnet validations; several together', async (t) => {
  const st = fuji.full, all = want(st), diffs = [];
  const vals = (k) => all.map((x) => x.keys[k]).filter((v) => v !== null);
  const cap = median(vals('capacity')), time = median(vals('time')), up = median(vals('uptime')), fee = median(vals('fee'));
  const low = [...new Set(vals('uptime'))].sort(cmpBig)[1]; // the second lowest uptime seen
  const dec = (millionthsOf1) => (Number(millionthsOf1) / 10000).toString(); // an uptime as a percent
  const cases = [
    { minDelegationCapacity: String(cap) }, { maxDelegationCapacity: String(cap) }, { minDelegationCapacity: '0' }, { maxDelegationCapacity: '720000000000000000' },
    { minDelegationCapacity: String(cap), maxDelegationCapacity: String(cap * 2n) },
    { minTimeRemaining: Number(time) }, { maxTimeRemaining: Number(time) }, { minTimeRemaining: 0 }, { minTimeRemaining: 0, maxTimeRemaining: 2147483647 },
    { minUptimePerformance: dec(up) }, { maxUptimePerformance: dec(up) }, { minUptimePerformance: '90' }, { maxUptimePerformance: dec(low) }, { minUptimePerformance: dec(low + 1n) }, { minUptimePerformance: '0', maxUptimePerformance: '100' },
    { minFeePercentage: feePercent(fee) }, { maxFeePercentage: feePercent(fee) }, { minFeePercentage: '2' }, { maxFeePercentage: '100' }, { minFeePercentage: '4.5', maxFeePercentage: '7.25' },
  ];
  for (const q of cases) {
    const w = want(st, q);
    narrows(w, all, JSON.stringify(q));
    for (const sortOrder of ['desc', 'asc']) diffs.push(...diffList((await readAll(st, { ...q, sortOrder }, 7)).items, want(st, { ...q, sortOrder }), `${JSON.stringify(q)} ${sortOrder}`));
  }
  // the fee filters at their widest leave out exactly the subnet validations
  const wide = want(st, { minFeePercentage: '2' });
  assert.deepEqual(wide.map((x) => x.item.txHash), all.filter((x) => x.subnet === PRIMARY).map((x) => x.item.txHash));
  // a filter on a computed value lists only the validators that have it: no ended ones at the widest
  assert.ok(want(st, { minTimeRemaining: 0 }).every((x) => x.status === 'active' || x.status === 'pending'));
  assert.ok(want(st, { minUptimePerformance: '0' }).every((x) => x.status === 'active'));
  // together, with status, subnet, node ids and sorts
  const several = [
    { validationStatus: 'active', subnetId: PRIMARY, minFeePercentage: '3', maxUptimePerformance: '99', sortBy: 'delegationCapacity' },
    { minDelegationCapacity: '1', minTimeRemaining: 3600, nodeIds: 'NodeID-', sortBy: 'uptimePerformance', sortOrder: 'asc' },
    { validationStatus: 'completed', maxFeePercentage: '8', sortBy: 'blockIndex' },
    { subnetId: all.find((x) => x.subnet !== PRIMARY).subnet, minUptimePerformance: '50', sortBy: 'timeRemaining' },
  ];
  for (const q of several) {
    const w = want(st, q);
    assert.ok(w.length > 0, `${JSON.stringify(q)}: lists some`);
    diffs.push(...diffList((await readAll(st, q, 3)).items, w, JSON.stringify(q)));
  }
  // bounds that cross: a 400 naming both
  for (const [lo, hi, a, b] of [['minFeePercentage', 'maxFeePercentage', '50', '10'], ['minUptimePerformance', 'maxUptimePerformance', '90', '80'],
    ['minTimeRemaining', 'maxTimeRemaining', '100', '99'], ['minDelegationCapacity', 'maxDelegationCapacity', '2', '1']]) {
    const r = await L.apiGet(urlOf(st) + L.qs({ [lo]: a, [hi]: b }));
    assert.equal(r.status, 400, r.text);
    assert.ok(r.json.message.includes(lo) && r.json.message.includes(hi), r.text);
  }
  t.diagnostic(`medians: capacity ${cap}, time ${time}, uptime ${up}, fee ${fee}`);
  fail(diffs, 'filters');
});

// ---- 4. the prefix ----------------------------------------------------------------------------------------------------------

test('a prefix of the chain: pending validators, completed and removed ones, uptime 0 when never observed', async (t) => {
  const st = fuji.cut, all = want(st);
  const statuses = countBy(all, (x) => x.status);
  t.diagnostic(`cut after P block ${st.k} (time ${fuji.truth.blocks.P[st.k].ts}): ${JSON.stringify(Object.fromEntries(statuses))}`);
  assert.ok(statuses.get('pending') > 0 && statuses.get('active') > 0, 'pending and active validators');
  assert.ok(all.some((x) => x.status === 'active' && x.item.delegatorCount > 0), 'an active validator with current delegators');
  const diffs = [];
  for (const q of [{}, { sortOrder: 'asc' }, { validationStatus: 'pending' }, { validationStatus: 'active', sortBy: 'uptimePerformance' },
    { sortBy: 'timeRemaining', sortOrder: 'asc' }, { sortBy: 'delegationCapacity' }, { minUptimePerformance: '0', maxUptimePerformance: '0' }, { maxTimeRemaining: 2147483647, validationStatus: 'pending' }]) {
    for (const size of [7, 100]) diffs.push(...diffList((await readAll(st, q, size)).items, want(st, q), `cut ${JSON.stringify(q)} pageSize ${size}`));
  }
  // never observed: every active validator at 0, and the uptime filter keeps them at 0 only
  assert.ok(all.filter((x) => x.status === 'active').every((x) => x.item.uptimePerformance === 0));
  assert.equal(want(st, { minUptimePerformance: '0.0001' }).length, 0);
  fail(diffs, 'the prefix');
});

// ---- 5. mainnet: delegationFee -------------------------------------------------------------------------------------------------

test('mainnet: sortBy delegationFee with the primary network, both orders, paging, with filters; its 400s', async (t) => {
  const st = mainnet.full, diffs = [];
  const base = { sortBy: 'delegationFee', subnetId: PRIMARY };
  const w = want(st, base);
  assert.ok(w.length > 5, 'primary validators on mainnet');
  assert.notDeepEqual(w.map((x) => x.item.txHash), want(st, { subnetId: PRIMARY }).map((x) => x.item.txHash), 'the fee orders otherwise');
  assert.ok(w.some((x, i) => i && x.keys.fee === w[i - 1].keys.fee), 'equal fees (ordered by blockIndex)');
  for (const sortOrder of ['asc', 'desc']) {
    for (const size of [1, 7, 100]) {
      const r = await readAll(st, { ...base, sortOrder }, size);
      diffs.push(...diffList(r.items, want(st, { ...base, sortOrder }), `delegationFee ${sortOrder} pageSize ${size}`));
      if (size === 1) assert.equal(r.pages, w.length);
    }
  }
  for (const q of [{ ...base, validationStatus: 'active' }, { ...base, minFeePercentage: '5', sortOrder: 'asc' }, { ...base, minUptimePerformance: '85' }, { ...base, minDelegationCapacity: '1', sortOrder: 'asc' }]) {
    diffs.push(...diffList((await readAll(st, q, 4)).items, want(st, q), JSON.stringify(q)));
  }
  // every field of the whole list here too
  diffs.push(...diffList((await readAll(st, {})).items, want(st), 'mainnet: all'));
  // without the primary network's subnet id: a 400 naming sortBy; and on fuji even with it
  const subnet = mainnet.M.P.subnets[0].subnetId;
  for (const [s, q] of [[st, { sortBy: 'delegationFee' }], [st, { sortBy: 'delegationFee', subnetId: subnet }], [fuji.full, base]]) {
    const r = await L.apiGet(urlOf(s) + L.qs(q));
    assert.equal(r.status, 400, `${JSON.stringify(q)}: ${r.text}`);
    assert.match(r.json.message, /sortBy/);
  }
  t.diagnostic(`${w.length} primary validators on mainnet`);
  fail(diffs, 'mainnet');
});

// ---- 6. the SDK --------------------------------------------------------------------------------------------------------------

test('the official SDK reads the list through its own pagination, unchanged; every body was strict', async () => {
  const cl = sdkClient(fuji.full.api.url);
  const st = fuji.full;
  const calls = [
    [{ pageSize: 7 }, {}],
    [{ pageSize: 5, sortBy: 'uptimePerformance', sortOrder: 'asc', network: 'testnet' }, { sortBy: 'uptimePerformance', sortOrder: 'asc' }],
    [{ pageSize: 3, minFeePercentage: 2.5, maxUptimePerformance: 99.5, minTimeRemaining: 60, sortBy: 'delegationCapacity' },
      { minFeePercentage: '2.5', maxUptimePerformance: '99.5', minTimeRemaining: 60, sortBy: 'delegationCapacity' }],
    [{ pageSize: 4, validationStatus: 'completed', nodeIds: 'NodeID-' }, { validationStatus: 'completed', nodeIds: 'NodeID-' }],
  ];
  for (const [req, q] of calls) {
    const start = cl.exchanges.length;
    const got = [];
    for await (const page of await cl.data.listValidators(req, cl.opts)) got.push(page.result);
    const ex = cl.exchanges.slice(start);
    assert.equal(ex.length, got.length, 'one exchange per page');
    assert.ok(ex.length > 1, `${JSON.stringify(req)}: more than one page`);
    const s = SCHEMAS.validators;
    ex.forEach((e, i) => {
      assert.equal(e.status, 200, `${e.url}: ${e.text.slice(0, 300)}`);
      const network = /\/testnet\//.test(e.url) ? 'testnet' : 'fuji';
      assert.deepEqual(got[i], s.branches[s.want[NETWORK]].parse(checkBody('validators', NETWORK, e.text, { network })), `${e.url}: the SDK's page differs from the body sent`);
    });
    fail(diffList(got.flatMap((p) => p.validators), want(st, q), `SDK ${JSON.stringify(req)}`), 'the SDK');
  }
  assert.ok(bodies > 300, `only ${bodies} bodies checked`);
});
