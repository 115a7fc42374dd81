// exports-evm.test.mjs — TRANSACTION_EXPORT_EVM (docs/api.md, exports) against real EVM nodes: the
// test world of evm-lib.mjs (three anvil chains with snowline's own test contracts: tokens of the
// three standards, a factory, an ICM messenger and a relayer; seedEvmWorld() returns what it did,
// checked against anvil) indexed by `snowline index --evm-chain` for chains A and B beside a small
// fuji devnet (the store's network), and served by `snowline api`.
//
// The truth of a line: the world's txs an address took part in as the indexer's evm_addr_txs
// defines it (docs/evm.md): the tx's sender and recipient, both sides of each token transfer and of
// each internal call frame, never the zero address; the block's time from anvil itself. Each
// export's file must be those txs, line for line, oldest first, of the chains asked for; C (not
// indexed) is refused with ErrInvalidRequest; an address without txs gives an empty file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { tempDir, cleanup } from './lib.mjs';
import * as L from './dataapi-lib.mjs';
import { seedEvmWorld, jsonRpc, hex, num } from './evm-lib.mjs';

const BACKEND = process.env.SNOWLINE_EXPORTS_BACKEND ?? 'sqlite';
const dir = tempDir('snowline-exports-evm-');
const ZERO = '0x' + '00'.repeat(20);
let world, truth, devnet, store, indexer, api;
const blockTs = new Map(); // `${chain}:${n}` → unix seconds, from anvil

before(async () => {
  world = await seedEvmWorld();
  truth = world.truth;
  devnet = await L.startDevnetNode({ dataDir: join(dir, 'node'), txs: 100, seed: 'snowline-exports-evm' });
  store = L.freshStore(BACKEND, dir, 'exports_evm');
  const evm = ['A', 'B'].flatMap((k) => ['--evm-chain', `id=${truth.chains[k].evmChainId},rpc=${world.chains[k].url},name=${truth.chains[k].name}`]);
  indexer = L.startIndexer({ nodeUrl: devnet.url, store, genesis: devnet.genesisPath, args: evm });
  await indexer.ready;
  api = await L.startApi({ store });
  await L.waitCaughtUp(api, { nodeUrl: devnet.url, indexer, timeoutMs: 180000 });
  // the EVM chains: their cursors past the world's heads (the store is read here only to wait)
  await L.waitFor(async () => {
    const rows = cursors();
    return ['A', 'B'].every((k) => (rows.get(truth.chains[k].evmChainId) ?? -1) > truth.chains[k].head);
  }, { timeoutMs: 120000, what: async () => `the EVM chains indexed (cursors ${JSON.stringify([...cursors()])}; indexer: ${indexer.logs().slice(-1500)})` });
  for (const t of truth.txs) {
    const k = `${t.chain}:${t.blockNumber}`;
    if (!blockTs.has(k)) blockTs.set(k, num((await jsonRpc(world.chains[t.chain].url, 'eth_getBlockByNumber', [hex(t.blockNumber), false])).timestamp));
  }
});

after(async () => {
  for (const p of [api, indexer, devnet]) if (p) await p.stop().catch(() => {});
  if (world) await world.stop();
  if (store) L.dropStore(store);
  cleanup(dir);
});

function cursors() {
  const q = 'SELECT evm, next FROM evm_cursors';
  const out = store.startsWith('postgres')
    ? execFileSync('psql', [store, '-qAtF', '|', '-c', q], { encoding: 'utf8' })
    : execFileSync('sqlite3', ['-readonly', store, q], { encoding: 'utf8' });
  return new Map(out.trim().split('\n').filter(Boolean).map((l) => l.split('|').map(Number)));
}

const lo = (a) => (a == null ? '' : a.toLowerCase());
const HEADER = 'chainId,blockNumber,txIndex,timestamp,date,txHash,from,to,value,gasUsed,gasPrice,status,contractAddress,addresses';

// The addresses a tx of the world took part in (lower case).
function parties(t) {
  const s = new Set([lo(t.from), lo(t.to)]);
  for (const x of [...t.erc20, ...t.erc721, ...t.erc1155]) { s.add(lo(x.from)); s.add(lo(x.to)); }
  for (const f of t.internal) { s.add(lo(f.from)); s.add(lo(f.to)); }
  s.delete(''); s.delete(ZERO);
  return s;
}

function expectLines(addrs, chains, { from = -Infinity, to = Infinity } = {}) {
  const want = addrs.map(lo);
  const rows = [];
  for (const t of truth.txs) {
    if (!chains.includes(t.chain)) continue;
    const ts = blockTs.get(`${t.chain}:${t.blockNumber}`);
    if (ts < from || ts >= to) continue;
    const p = parties(t);
    const who = want.filter((a) => p.has(a));
    if (!who.length) continue;
    const id = truth.chains[t.chain].evmChainId;
    rows.push({ key: [ts, id, t.blockNumber, t.txIndex], line: [id, t.blockNumber, t.txIndex, ts, new Date(ts * 1000).toISOString().replace(/\.000Z$/, 'Z'),
      lo(t.hash), lo(t.from), lo(t.to), String(t.value), String(t.gasUsed), String(t.effectiveGasPrice), t.status, lo(t.contractAddress), who.join(' ')].join(',') });
  }
  const cmp = (a, b) => { for (let i = 0; i < 4; i++) if (a.key[i] !== b.key[i]) return a.key[i] - b.key[i]; return 0; };
  return rows.sort(cmp).map((r) => r.line);
}

async function run(body) {
  const res = await fetch(`${api.url}/v1/operations/transactions:export`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  let op = await res.json();
  for (let i = 0; op.operationStatus === 'RUNNING' && i < 600; i++) {
    await new Promise((r) => setTimeout(r, 100));
    op = await (await fetch(`${api.url}/v1/operations/${op.operationId}`)).json();
  }
  if (!op.operationStatus.startsWith('COMPLETED')) return [op, null];
  const lines = (await (await fetch(op.metadata.downloadUrl)).text()).split('\n');
  assert.equal(lines.pop(), '');
  assert.equal(lines.shift(), HEADER);
  return [op, lines];
}

function same(got, want, where) {
  const i = got.findIndex((l, k) => l !== want[k]);
  assert.ok(got.length === want.length && i < 0, `${where}: ${got.length} lines, want ${want.length}; first difference at ${i}:\n got  ${got[i]}\n want ${want[i]}`);
}

test('an EVM export of the world\'s accounts on A and B is the truth, line for line', async () => {
  const acc = truth.accounts;
  const ids = ['A', 'B'].map((k) => String(truth.chains[k].evmChainId));
  for (const who of [[acc.alice], [acc.bob, acc.carol], [acc.deployer, acc.relayer, acc.dave], [truth.chains.A.messenger]]) {
    const [op, lines] = await run({ type: 'TRANSACTION_EXPORT_EVM', options: { addresses: who, includeChains: ids } });
    assert.equal(op.operationStatus, 'COMPLETED', JSON.stringify(op));
    const want = expectLines(who, ['A', 'B']);
    assert.ok(want.length > 0, `${who}: some txs`);
    same(lines, want, `${who}`);
  }
  // one chain; the world's contracts (their token transfers and frames make them parties)
  const tokens = truth.contracts.filter((c) => c.chain === 'A').map((c) => c.address);
  const [, a] = await run({ type: 'TRANSACTION_EXPORT_EVM', options: { addresses: tokens.slice(0, 5), includeChains: [ids[0]] } });
  const want = expectLines(tokens.slice(0, 5), ['A']);
  assert.ok(want.length >= 5, 'the contracts took part in txs');
  same(a, want, 'contracts on A');
});

test('dates cut the EVM file by UTC day; an address without txs gives an empty file; C is not indexed here', async () => {
  const acc = truth.accounts;
  const ids = ['A', 'B'].map((k) => String(truth.chains[k].evmChainId));
  const days = [...new Set([...blockTs.values()].map((t) => new Date(t * 1000).toISOString().slice(0, 10)))].sort();
  let seen = 0;
  for (const d of days) {
    const [, lines] = await run({ type: 'TRANSACTION_EXPORT_EVM', firstDate: d, lastDate: d, options: { addresses: [acc.alice, acc.bob], includeChains: ids } });
    const f = Date.parse(d + 'T00:00:00Z') / 1000;
    same(lines, expectLines([acc.alice, acc.bob], ['A', 'B'], { from: f, to: f + 86400 }), d);
    seen += lines.length;
  }
  assert.equal(seen, expectLines([acc.alice, acc.bob], ['A', 'B']).length, 'the days together are the whole file');
  const [op, lines] = await run({ type: 'TRANSACTION_EXPORT_EVM', options: { addresses: ['0x' + 'de'.repeat(20)], includeChains: ids } });
  assert.equal(op.operationStatus, 'COMPLETED');
  assert.deepEqual(lines, []);
  const [c] = await run({ type: 'TRANSACTION_EXPORT_EVM', options: { addresses: [acc.alice], includeChains: [String(truth.chains.C.evmChainId)] } });
  assert.equal(c.operationStatus, 'FAILED');
  assert.equal(c.metadata.code, 'ErrInvalidRequest');
  assert.match(c.message, new RegExp(`EVM chain ${truth.chains.C.evmChainId} is not indexed here`));
});
