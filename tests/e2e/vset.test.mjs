// vset.test.mjs — the validator sets by P-chain height (`snowline validator-set`, the sets signature
// aggregation signs with) against the truth, on one store backend: SQLite here, PostgreSQL in
// vset-pg.test.mjs (the same file on a database of the server tests/run.sh starts).
//
// A `fuji` devnet node (`snowline devnet`, the release binary: the ground truth) is indexed by
// `snowline index --genesis` (the ASan binary, as is `snowline validator-set`). The truth is the
// devnet's manifest: P.validatorSets states, at chosen heights, every set (the primary network's,
// each permissioned subnet's, each L1's, with its inactive weight under the empty node id) with
// each member's weight and BLS key; P.validatorSetChanges names each kind of change the history
// made and the height of its first, whose sets the manifest states along with the height before.
// The seed is one whose 5,000 txs make every kind: genesis validators, stakers starting when
// accepted and pending ones promoted, validations ending (RewardValidatorTx), permissioned
// validators added, removed by tx and ended by time, L1 validators added, reweighed, removed,
// disabled, run out of balance and reactivated. Nothing here reads the store or src/.
//
//  1. every set of every stated height, exactly (members, weights, keys, total weight);
//  2. each kind of change is seen: the sets at its first height differ from the height before's;
//  3. one subnet at a time, the default subnet (the primary network) and height (the last);
//  4. a subnet without validators at a height: an empty set; bad options: exit status and message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BIN, tempDir, cleanup } from './lib.mjs';
import * as L from './dataapi-lib.mjs';

const BACKEND = process.env.SNOWLINE_VSET_BACKEND ?? 'sqlite';
const TXS = Number(process.env.VSET_TXS || 5000);
const SEED = process.env.VSET_SEED || 'vset-2';
const PRIMARY = '11111111111111111111111111111111LpoYY';
const EMPTY_NODE = 'NodeID-111111111111111111116DBWJs';
const KINDS = ['genesis', 'start', 'promote', 'end', 'subnetStart', 'subnetRemove', 'subnetEnd', 'l1Add', 'l1Weight',
  'l1Remove', 'l1Disable', 'l1RunOut', 'l1Reactivate'];
const dir = tempDir('snowline-vset-');
let devnet, store, M, byHeight, top;

before(async () => {
  devnet = await L.startDevnetNode({ dataDir: join(dir, 'node'), txs: TXS, seed: SEED });
  M = devnet.manifest();
  byHeight = new Map();
  for (const s of M.P.validatorSets) {
    if (!byHeight.has(s.height)) byHeight.set(s.height, []);
    byHeight.get(s.height).push(s);
  }
  top = M.chains.P.height;
  store = L.freshStore(BACKEND, dir, 'vset');
  const indexer = L.startIndexer({ nodeUrl: devnet.url, store, genesis: devnet.genesisPath, args: ['--observe-s', '0'] });
  try { // stopped here, also when its wait fails (after() does not know it)
    await indexer.ready;
    await L.waitFor(async () => vset(['--height', String(top)]).status === 0, { timeoutMs: 180000, intervalMs: 500, what: () => `P height ${top} indexed` });
  } finally {
    await indexer.stop();
  }
});

after(async () => {
  if (devnet) await devnet.stop().catch(() => {});
  if (store) L.dropStore(store);
  cleanup(dir);
});

function vset(args) {
  const r = spawnSync(BIN, ['validator-set', '--store', store, ...args], { encoding: 'utf8', timeout: 60000 });
  return { status: r.status, out: r.stdout, err: r.stderr, json: r.status === 0 ? JSON.parse(r.stdout) : null };
}

// A set as compared: members by node id (the CLI orders them by the id's bytes, the manifest by its
// own node order); the total checked apart.
function norm(s) {
  const v = [...s.validators].sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0));
  return { height: s.height, subnetId: s.subnetId, validators: v };
}
const total = (s) => s.validators.reduce((a, v) => a + BigInt(v.weight), 0n).toString();

test('the manifest makes every kind of change, with L1s, subnets and inactive weight among its sets', () => {
  for (const k of KINDS) assert.ok(M.P.validatorSetChanges[k]?.count > 0, `the history has no ${k} change`);
  assert.ok(byHeight.size >= 20, `${byHeight.size} heights stated`);
  const sets = M.P.validatorSets;
  assert.ok(sets.some((s) => s.validators.some((v) => v.nodeId === EMPTY_NODE)), 'an L1 with inactive weight');
  assert.ok(sets.some((s) => s.subnetId !== PRIMARY && s.validators.some((v) => v.publicKey === null && v.nodeId !== EMPTY_NODE)),
    'a subnet validator whose primary validation has no key');
  assert.ok(sets.some((s) => s.subnetId === PRIMARY && s.validators.some((v) => v.publicKey)), 'a primary validator with a key');
  assert.ok(byHeight.has(top), 'the last height is stated');
});

test('every set of every stated height, exactly', () => {
  let n = 0;
  for (const [h, want] of byHeight) {
    const r = vset(['--subnet', 'all', '--height', String(h)]);
    assert.equal(r.status, 0, r.err);
    const bySubnet = (sets) => new Map(sets.map((s) => [s.subnetId, norm(s)]));
    assert.deepEqual(bySubnet(r.json), bySubnet(want), `height ${h}`);
    if (want.some((s) => s.subnetId === PRIMARY)) assert.equal(r.json[0].subnetId, PRIMARY, 'the primary network first');
    for (const s of r.json) assert.equal(s.totalWeight, total(s), `height ${h} ${s.subnetId}: totalWeight`);
    n += want.length;
  }
  assert.ok(n >= 100, `${n} sets compared`);
});

test('each kind of change shows between its first height and the one before', () => {
  for (const k of KINDS.filter((x) => x !== 'genesis')) {
    const h = M.P.validatorSetChanges[k].first;
    const before = vset(['--subnet', 'all', '--height', String(h - 1)]).json;
    const at = vset(['--subnet', 'all', '--height', String(h)]).json;
    assert.notDeepEqual(at, before.map((s) => ({ ...s, height: h })), `${k} at height ${h} changes nothing`);
  }
});

test('one subnet at a time; the defaults: the primary network at the last height', () => {
  const last = vset([]);
  assert.equal(last.status, 0, last.err);
  assert.equal(last.json.height, top);
  assert.equal(last.json.subnetId, PRIMARY);
  assert.deepEqual(norm(last.json), norm(byHeight.get(top).find((s) => s.subnetId === PRIMARY)));
  for (const [h, sets] of [...byHeight].slice(0, 12))
    for (const s of sets) {
      const r = vset(['--subnet', s.subnetId, '--height', String(h)]);
      assert.equal(r.status, 0, r.err);
      assert.deepEqual(norm(r.json), norm(s));
      assert.equal(r.json.totalWeight, total(s));
    }
});

test('a subnet without validators at a height has an empty set', () => {
  // a subnet with validators later, asked at the genesis: created after it
  const later = M.P.validatorSets.find((s) => s.subnetId !== PRIMARY);
  const r = vset(['--subnet', later.subnetId, '--height', '0']);
  assert.equal(r.status, 0, r.err);
  assert.deepEqual(r.json, { height: 0, subnetId: later.subnetId, validators: [], totalWeight: '0' });
});

test('bad options: a height past the store, not a number, a bad subnet id', () => {
  let r = vset(['--height', String(top + 1)]);
  assert.equal(r.status, 1);
  assert.match(r.err, new RegExp(`--height ${top + 1}: the store's P-chain ends at height ${top}`));
  for (const h of ['-1', 'abc', '1e3', '99999999999999999999999']) {
    r = vset(['--height', h]);
    assert.equal(r.status, 2, h);
    assert.match(r.err, /--height/);
  }
  r = vset(['--subnet', 'not-an-id']);
  assert.equal(r.status, 2);
  assert.match(r.err, /--subnet not-an-id/);
});
