// dataapi-staking.test.mjs — the P-chain's state endpoints against the truth, on both store backends:
// GET /v1/networks/{network}/subnets, GET /v1/networks/{network}/l1Validators, and the
// l1ValidationId filter of GET …/p-chain/transactions.
//
// A `fuji` devnet node (`snowline devnet --devnet-interval-ms 0`: its history and nothing after, so
// the manifest's end state is the store's) is indexed by `snowline index --genesis` into SQLite and
// into a fresh PostgreSQL database, and served by `snowline api` (the ASan binary) over each. The
// truth is the node's own containers decoded with @avalabs/avalanchejs and replayed by
// devnet-ledger.mjs (dataapi-lib.mjs's readTruth, which also checks the replay against the
// manifest): subnets, chains, owners and conversions from their txs; L1 validators from the
// ConvertSubnetToL1Tx and RegisterL1ValidatorTx that made them (their warp messages read here);
// weight, balance, active and removed at the history's end from the manifest (the replay agrees
// with it). Every test body runs once per backend.
//
// Definitions (docs/api.md): subnets in creation order, newest first by default; L1 validators in
// creation order (tx, then validation id), the active ones unless includeInactiveL1Validators,
// removed ones (weight 0) among the inactive; remainingBalance is what is left at the last P block
// (blockHeight), 0 when inactive; addresses without a chain prefix, as everywhere in the API.
//
// Seed: DATAAPI_SEED (default snowline-dataapi), DATAAPI_TXS (default 3000).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir, cleanup, cb58 } from './lib.mjs';
import { sha256 } from './devnet-lib.mjs';
import { parseWarp } from './devnet-ledger.mjs';
import * as L from './dataapi-lib.mjs';

const TXS = Number(process.env.DATAAPI_TXS || 3000);
const SEED = process.env.DATAAPI_SEED || 'snowline-dataapi';
const BACKENDS = ['sqlite', 'postgres'];
const PRIMARY = '11111111111111111111111111111111LpoYY';
const dir = tempDir('snowline-staking-');
let devnet, truth, manifest, want;
const env = Object.fromEntries(BACKENDS.map((b) => [b, { backend: b }]));

before(async () => {
  devnet = await L.startDevnetNode({ dataDir: join(dir, 'node'), txs: TXS, seed: SEED, intervalMs: 0 });
  manifest = devnet.manifest();
  truth = await L.readTruth({ nodeUrl: devnet.url, manifest, genesis: devnet.genesis(), dir });
  assert.deepEqual(truth.problems, [], `the ledger replay disagrees with the manifest:\n${truth.problems.slice(0, 20).join('\n')}`);
  want = expected(truth, manifest);
});

after(async () => {
  for (const b of BACKENDS) for (const p of [env[b].api, env[b].indexer]) if (p) await p.stop().catch(() => {});
  if (devnet) await devnet.stop().catch(() => {});
  for (const b of BACKENDS) if (env[b].store) L.dropStore(env[b].store);
  cleanup(dir);
});

// ---- the truth ------------------------------------------------------------------------------------

const bech = (hex) => L.bech(truth.hrp, hex);
const nodeIdOf = (bytes) => 'NodeID-' + cb58(bytes);
const hexOf = (b) => '0x' + Buffer.from(b).toString('hex');

/*
 * From the P-chain's txs in chain order: subnets (oldest first) as the API shows them; L1 validators
 * (creation order: tx, then validation id) as the API shows them, with the end state of each from
 * the manifest; the txs about each validation (l1Txs: id → [tx], oldest first).
 */
function expected(T, M) {
  const subnets = new Map(), vals = [], l1Txs = new Map();
  const about = (vid, t) => (l1Txs.get(vid) ?? l1Txs.set(vid, []).get(vid)).push(t);
  const ownerInfo = (o) => ({ locktime: Number(o.locktime), threshold: o.threshold, addresses: o.addrs.map(bech) });
  const balanceOwner = (o) => ({ addresses: o.addrs.map(bech), threshold: o.threshold });
  for (const t of T.txs.P) {
    const n = t.n, u = n.src.signed?.unsignedTx;
    if (t.type === 'CreateSubnetTx') subnets.set(t.id, { createBlockTimestamp: t.at.ts, createBlockIndex: String(t.at.height), subnetId: t.id, owner: n.owner, isL1: false, blockchains: [] });
    if (t.type === 'TransferSubnetOwnershipTx') subnets.get(n.subnetId).owner = n.owner;
    if (t.type === 'CreateChainTx') {
      // the devnet's chains are Subnet-EVM ones whose genesis keeps the DTO's types: the object form
      const g = JSON.parse(n.genesis);
      subnets.get(n.subnetId).blockchains.push({ createBlockTimestamp: t.at.ts, createBlockNumber: String(t.at.height), blockchainId: t.id, vmId: n.vmId,
        subnetId: n.subnetId, blockchainName: n.chainName, evmChainId: g.config.chainId, genesisData: g });
    }
    if (t.type === 'ConvertSubnetToL1Tx') {
      Object.assign(subnets.get(n.subnetId), { isL1: true, l1ConversionTransactionHash: t.id,
        l1ValidatorManagerDetails: { blockchainId: n.chainId, contractAddress: '0x' + n.address } });
      const made = n.validators.map((v, i) => {
        const b = Buffer.alloc(36);
        L.idBytes(n.subnetId).copy(b);
        b.writeUInt32BE(i, 32);
        const vid = sha256(b);
        about(cb58(vid), t);
        return { vid, o: { nodeId: nodeIdOf(v.nodeId), subnetId: n.subnetId, creationTimestamp: t.at.ts,
          blsCredentials: { publicKey: hexOf(u.validators[i].signer.publicKey) }, remainingBalanceOwner: balanceOwner(v.remainingBalanceOwner),
          deactivationOwner: balanceOwner(v.deactivationOwner) } };
      });
      vals.push(...made.sort((a, b) => Buffer.compare(a.vid, b.vid)));
    }
    if (t.type === 'RegisterL1ValidatorTx') {
      const m = parseWarp(n.message);
      const vid = sha256(m.addressedPayload);
      about(cb58(vid), t);
      vals.push({ vid, o: { nodeId: nodeIdOf(m.nodeId), subnetId: m.subnetId, creationTimestamp: t.at.ts,
        blsCredentials: { publicKey: hexOf(m.blsPublicKey) }, remainingBalanceOwner: balanceOwner(m.remainingBalanceOwner),
        deactivationOwner: balanceOwner(m.disableOwner) } });
    }
    if (t.type === 'SetL1ValidatorWeightTx') about(parseWarp(n.message).validationId, t);
    if (t.type === 'IncreaseL1ValidatorBalanceTx' || t.type === 'DisableL1ValidatorTx') about(n.validationId, t);
  }
  const end = new Map(M.P.l1Validators.map((v) => [v.validationId, v]));
  const validators = vals.map(({ vid, o }) => {
    const id = cb58(vid), m = end.get(id);
    assert.ok(m, `L1 validator ${id} of the history is in the manifest`);
    assert.equal(m.nodeId, o.nodeId);
    assert.equal(m.subnetId, o.subnetId);
    assert.ok(!m.removed || BigInt(m.weight) === 0n, `${id}: removed with weight 0`);
    return { validationId: id, validationIdHex: hexOf(vid), ...o, weight: Number(m.weight), remainingBalance: m.active ? Number(m.balance) : 0,
      active: m.active, removed: m.removed };
  });
  assert.equal(validators.length, M.P.l1Validators.length, 'every L1 validator of the manifest was made by a tx of the history');
  const list = [...subnets.values()].map(({ owner, ...s }) => ({ ...s, ownerAddresses: owner.addrs.map(bech), threshold: owner.threshold,
    locktime: Number(owner.locktime), subnetOwnershipInfo: ownerInfo(owner) }));
  return { subnets: list, validators, l1Txs, blockHeight: String(T.blocks.P.at(-1).height) };
}

// An API validator without the truth's own fields, for deepEqual.
const shown = ({ active, removed, ...v }) => { void active; void removed; return v; };
const ids = (list, key) => list.map((x) => x[key]);

// ---- the suite --------------------------------------------------------------------------------------

for (const backend of BACKENDS) {
  describe(`${backend}: subnets and L1 validators against the truth`, () => {
    const E = env[backend];
    let net;
    before(async () => {
      E.store = L.freshStore(backend, dir, `staking_${backend}`);
      E.indexer = L.startIndexer({ nodeUrl: devnet.url, store: E.store, genesis: devnet.genesisPath });
      await E.indexer.ready;
      E.api = await L.startApi({ store: E.store });
      await L.waitCaughtUp(E.api, { target: truth.containers, indexer: E.indexer, timeoutMs: 180000 });
      net = `${E.api.url}/v1/networks/fuji`;
    });
    const get = async (path) => {
      const r = await L.apiGet(`${net}${path}`);
      assert.equal(r.status, 200, `${path}: ${r.status} ${r.text.slice(0, 300)}`);
      return r.json;
    };
    const all = async (path, key, pageSize) => (await L.fetchAllPages(`${net}${path}`, key, { pageSize })).items;

    test('subnets: every subnet with its owner, L1 conversion and chains, newest first by default and oldest first', async (t) => {
      const got = await all('/subnets', 'subnets', 10000);
      assert.deepEqual(got, [...want.subnets].reverse());
      assert.deepEqual(await all('/subnets?sortOrder=asc', 'subnets', 10000), want.subnets);
      assert.deepEqual(await all('/subnets?sortOrder=desc', 'subnets', 10000), got);
      // the default page: 100 (the devnet has fewer), one page
      const first = await get('/subnets');
      assert.equal(first.subnets.length, want.subnets.length);
      assert.equal(first.nextPageToken, undefined);
      // the truth agrees with the manifest; and there is something to see
      const ms = new Map(manifest.P.subnets.map((s) => [s.subnetId, s]));
      assert.deepEqual(new Set(ms.keys()), new Set(ids(want.subnets, 'subnetId')));
      for (const s of want.subnets) {
        const m = ms.get(s.subnetId);
        assert.deepEqual(s.subnetOwnershipInfo, { ...m.owner, addresses: m.owner.addresses.map((a) => a.replace(/^P-/, '')) });
        assert.deepEqual(s.blockchains.map((c) => ({ chainId: c.blockchainId, name: c.blockchainName, vmId: c.vmId })), m.chains);
        assert.equal(s.isL1, m.isL1);
        if (m.isL1) assert.deepEqual(s.l1ValidatorManagerDetails, { blockchainId: m.managerChainId, contractAddress: m.managerAddress });
      }
      const l1s = want.subnets.filter((s) => s.isL1).length, chains = want.subnets.reduce((a, s) => a + s.blockchains.length, 0);
      assert.ok(want.subnets.length >= 8 && l1s >= 2 && chains >= 8 && want.subnets.some((s) => !s.blockchains.length), `too little to see: ${want.subnets.length} subnets, ${l1s} L1s, ${chains} chains`);
      t.diagnostic(`${want.subnets.length} subnets (${l1s} L1s), ${chains} chains`);
    });

    test('subnets: pages of 1, 7 and 10000 in both orders yield each subnet once, in order', async () => {
      for (const sortOrder of ['asc', 'desc']) {
        const order = ids(sortOrder === 'asc' ? want.subnets : [...want.subnets].reverse(), 'subnetId');
        for (const pageSize of [1, 7, 10000]) {
          const r = await L.fetchAllPages(`${net}/subnets?sortOrder=${sortOrder}`, 'subnets', { pageSize });
          assert.deepEqual(ids(r.items, 'subnetId'), order, `${sortOrder}, pages of ${pageSize}`);
          assert.equal(r.pages, Math.max(1, Math.ceil(order.length / pageSize)), `${sortOrder}, pages of ${pageSize}: pages`);
        }
      }
    });

    test('l1Validators: the active ones by default, every field, balances exact at blockHeight, the last P block', async (t) => {
      const active = want.validators.filter((v) => v.active);
      const first = await get('/l1Validators');
      assert.equal(first.blockHeight, want.blockHeight);
      assert.equal(first.validators.length, Math.min(10, active.length), 'a default page of 10');
      const got = await all('/l1Validators', 'validators', 100);
      assert.deepEqual(got, active.map(shown));
      assert.ok(got.every((v) => v.remainingBalance > 0 && v.weight > 0));
      const inactive = want.validators.length - active.length, removed = want.validators.filter((v) => v.removed).length;
      assert.ok(active.length >= 10 && inactive - removed >= 1 && removed >= 1, `too little to see: ${active.length} active, ${inactive} inactive (${removed} removed)`);
      t.diagnostic(`${want.validators.length} L1 validators: ${active.length} active, ${inactive - removed} inactive, ${removed} removed; blockHeight ${want.blockHeight}`);
    });

    test('l1Validators: includeInactiveL1Validators, nodeId, subnetId and l1ValidationId each narrow the list as the truth does', async () => {
      const every = want.validators, active = every.filter((v) => v.active);
      const list = async (q) => (await L.fetchAllPages(`${net}/l1Validators?${q}`, 'validators', { pageSize: 100 })).items;
      // all of them: the inactive ones with no balance, the removed ones with weight 0 too
      const inc = await list('includeInactiveL1Validators=true');
      assert.deepEqual(inc, every.map(shown));
      assert.deepEqual(await list('includeInactiveL1Validators=false'), active.map(shown));
      assert.ok(inc.some((v) => v.remainingBalance === 0 && v.weight > 0) && inc.some((v) => v.weight === 0 && v.remainingBalance === 0));
      // by subnet: every L1, a subnet that is none, the primary network
      const l1s = want.subnets.filter((s) => s.isL1).map((s) => s.subnetId);
      for (const s of l1s) {
        assert.deepEqual(await list(`subnetId=${s}&includeInactiveL1Validators=true`), every.filter((v) => v.subnetId === s).map(shown), `subnet ${s}`);
        assert.deepEqual(await list(`subnetId=${s}`), active.filter((v) => v.subnetId === s).map(shown), `subnet ${s}, active`);
      }
      assert.ok(l1s.some((s) => every.filter((v) => v.subnetId === s).length < every.length / 2), 'a subnet with less than half of them');
      for (const s of [want.subnets.find((x) => !x.isL1).subnetId, PRIMARY]) assert.deepEqual(await list(`subnetId=${s}&includeInactiveL1Validators=true`), []);
      // by node: each node that validates, one that does not
      const nodes = [...new Set(every.map((v) => v.nodeId))];
      for (const n of nodes) {
        assert.deepEqual(await list(`nodeId=${n}&includeInactiveL1Validators=true`), every.filter((v) => v.nodeId === n).map(shown), `node ${n}`);
        assert.deepEqual(await list(`nodeId=${n}`), active.filter((v) => v.nodeId === n).map(shown), `node ${n}, active`);
      }
      assert.ok(nodes.length >= 3, 'several nodes');
      assert.deepEqual(await list(`nodeId=${nodeIdOf(Buffer.alloc(20, 7))}&includeInactiveL1Validators=true`), []);
      // node and subnet together
      const v0 = every.find((v) => every.some((w) => w.nodeId === v.nodeId && w.subnetId !== v.subnetId)) ?? every[0];
      assert.deepEqual(await list(`nodeId=${v0.nodeId}&subnetId=${v0.subnetId}&includeInactiveL1Validators=true`),
        every.filter((v) => v.nodeId === v0.nodeId && v.subnetId === v0.subnetId).map(shown));
      // by validation id: each one, shown by default only while active; with a subnet that is not its own: nothing
      for (const v of every) {
        assert.deepEqual(await list(`l1ValidationId=${v.validationId}&includeInactiveL1Validators=true`), [shown(v)]);
        assert.deepEqual(await list(`l1ValidationId=${v.validationId}`), v.active ? [shown(v)] : [], `${v.validationId} by default`);
      }
      const other = l1s.find((s) => s !== every[0].subnetId);
      assert.deepEqual(await list(`l1ValidationId=${every[0].validationId}&subnetId=${other}&includeInactiveL1Validators=true`), []);
      assert.deepEqual(await list(`l1ValidationId=${cb58(Buffer.alloc(32, 9))}&includeInactiveL1Validators=true`), []);
    });

    test('l1Validators: pages of 1, 7 and 100, active and all, yield each once in order', async () => {
      for (const q of ['', 'includeInactiveL1Validators=true']) {
        const order = ids(q ? want.validators : want.validators.filter((v) => v.active), 'validationId');
        for (const pageSize of [1, 7, 100]) {
          const r = await L.fetchAllPages(`${net}/l1Validators${q ? '?' + q : ''}`, 'validators', { pageSize });
          assert.deepEqual(ids(r.items, 'validationId'), order, `${q || 'active'}, pages of ${pageSize}`);
          assert.equal(r.pages, Math.max(1, Math.ceil(order.length / pageSize)));
        }
      }
      // a subnet's in pages of 1: the filter holds across pages
      const s = want.validators[0].subnetId;
      const r = await L.fetchAllPages(`${net}/l1Validators?subnetId=${s}&includeInactiveL1Validators=true`, 'validators', { pageSize: 1 });
      assert.deepEqual(ids(r.items, 'validationId'), ids(want.validators.filter((v) => v.subnetId === s), 'validationId'));
    });

    test('p-chain transactions?l1ValidationId=: the txs about each validation, in order, every field', async (t) => {
      let n = 0;
      const diffs = [];
      for (const [vid, txs] of want.l1Txs) {
        for (const [sortOrder, order] of [['asc', txs], ['desc', [...txs].reverse()]]) {
          const r = await L.fetchAllPages(`${E.api.base}/p-chain/transactions?l1ValidationId=${vid}&sortOrder=${sortOrder}`, 'transactions', { pageSize: 2 });
          assert.deepEqual(ids(r.items, 'txHash'), ids(order, 'id'), `${vid} ${sortOrder}`);
          if (sortOrder === 'asc') r.items.forEach((g, i) => diffs.push(...L.diffTx(truth, g, order[i])));
        }
        // the default order: newest first
        const d = await L.fetchAllPages(`${E.api.base}/p-chain/transactions?l1ValidationId=${vid}`, 'transactions', { pageSize: 100 });
        assert.deepEqual(ids(d.items, 'txHash'), ids([...txs].reverse(), 'id'));
        n += txs.length;
      }
      assert.deepEqual(diffs, [], diffs.slice(0, 20).join('\n'));
      // every kind of tx about a validation was seen, and some validation has several
      const kinds = new Set([...want.l1Txs.values()].flat().map((x) => x.type));
      for (const k of ['ConvertSubnetToL1Tx', 'RegisterL1ValidatorTx', 'SetL1ValidatorWeightTx', 'IncreaseL1ValidatorBalanceTx', 'DisableL1ValidatorTx']) assert.ok(kinds.has(k), k);
      assert.ok([...want.l1Txs.values()].some((x) => x.length >= 3));
      assert.equal(want.l1Txs.size, want.validators.length);
      // one that is no validation: none
      const none = await get(`/blockchains/p-chain/transactions?l1ValidationId=${cb58(Buffer.alloc(32, 9))}`);
      assert.deepEqual(none.transactions, []);
      t.diagnostic(`${n} txs about ${want.l1Txs.size} validations`);
    });
  });
}
