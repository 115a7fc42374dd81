// exports-evm.test.mjs — TRANSACTION_EXPORT_EVM (docs/api.md, exports) against real EVM nodes: the
// test world of evm-lib.mjs (three anvil chains with snowline's own test contracts: tokens of the
// three standards, a factory, an ICM messenger and a relayer; seedEvmWorld() returns what it did,
// checked against anvil) indexed by `snowline index --evm-chain` for chains A and B beside a small
// fuji devnet (the store's network), and served by `snowline api`. After the world, native
// transfers are mined on A on the next UTC day and on B the day after (addTraffic on the shared
// clock), so that a file spans three days.
//
// The truth of a line: the world's txs an address took part in as the indexer's evm_addr_txs
// defines it (docs/evm.md): the tx's sender and recipient, both sides of each token transfer and of
// each internal call frame, never the zero address; the block's time from anvil itself. Each
// export's file must be those txs, line for line, oldest first, of the chains asked for; C (not
// indexed) is refused with ErrInvalidRequest; an address without txs gives an empty file.
//
//  1. files of several addresses on A and B, one chain, the world's contracts;
//  2. firstDate/lastDate by UTC day; an empty file; C not indexed;
//  3. a cap of a few lines (--export-max-rows): COMPLETED_WITH_WARNING, WarnTruncatedExport and
//     nextDate; the rounds from nextDate together are the whole export;
//  4. bad dates and other bodies the schema takes: FAILED with ErrInvalidRequest naming the field;
//     bodies it refuses: a 400 naming it;
//  5. --compat upstream: the POST answers 201 and the SDK's own exportTransactions and getResult
//     take an EVM body and read the operation;
//  6. kill -9 of every API server while several jobs run (EVM ones and a primary-network one):
//     the restarted servers take them over, and each completes once with its whole file.
// Every Operation body (POST, GET, each status) parses with the SDK's (@avalanche-sdk/chainkit
// 0.3.13) OperationStatusResponse made strict.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { tempDir, cleanup } from './lib.mjs';
import * as L from './dataapi-lib.mjs';
import { seedEvmWorld, addTraffic, jsonRpc, hex, num } from './evm-lib.mjs';
import { sdkClient, strict, zodIssues, checkErrorBody, C } from './dataapi-schema-lib.mjs';

const BACKEND = process.env.SNOWLINE_EXPORTS_BACKEND ?? 'sqlite';
const dir = tempDir('snowline-exports-evm-');
const ZERO = '0x' + '00'.repeat(20);
const LEASE = ['--export-lease-ms', '1500'];
const DAY = 86400;
let world, truth, devnet, store, indexer, api;
let TXS; // the world's txs and the traffic after it, as the truth's records
const heads = {};
const apis = [];
const blockTs = new Map(); // `${chain}:${n}` → unix seconds, from anvil
let checked = 0; // Operation bodies checked against the strict schema

before(async () => {
  world = await seedEvmWorld();
  truth = world.truth;
  // native transfers on the next two UTC days: A on the first, B on the second (the chains share
  // one clock: their blocks stay on one time line)
  const traffic = [];
  const day0 = Math.floor(truth.blocks.reduce((m, b) => Math.max(m, b.timestamp), 0) / DAY);
  for (const [k, d] of [['A', 1], ['B', 2]]) {
    world.chains[k].clock.next = (day0 + d) * DAY + 30;
    for (const t of await addTraffic(world.chains[k], { blocks: 2, txsPerBlock: 3 })) {
      const r = await world.chains[k].receipt(t.hash);
      traffic.push({ chain: k, hash: t.hash, blockNumber: t.blockNumber, txIndex: num(r.transactionIndex), from: t.from, to: t.to, value: t.value,
        gasUsed: num(r.gasUsed), effectiveGasPrice: BigInt(r.effectiveGasPrice).toString(), status: num(r.status), contractAddress: null,
        erc20: [], erc721: [], erc1155: [], internal: [] });
    }
  }
  TXS = [...truth.txs, ...traffic];
  for (const k of ['A', 'B']) heads[k] = await world.chains[k].blockNumber();
  devnet = await L.startDevnetNode({ dataDir: join(dir, 'node'), txs: 100, seed: 'snowline-exports-evm' });
  store = L.freshStore(BACKEND, dir, 'exports_evm');
  const evm = ['A', 'B'].flatMap((k) => ['--evm-chain', `id=${truth.chains[k].evmChainId},rpc=${world.chains[k].url},name=${truth.chains[k].name}`]);
  indexer = L.startIndexer({ nodeUrl: devnet.url, store, genesis: devnet.genesisPath, args: evm });
  await indexer.ready;
  api = await startApi();
  await L.waitCaughtUp(api, { nodeUrl: devnet.url, indexer, timeoutMs: 180000 });
  // the EVM chains: their cursors past the heads (the store is read here only to wait)
  await L.waitFor(async () => {
    const rows = cursors();
    return ['A', 'B'].every((k) => (rows.get(truth.chains[k].evmChainId) ?? -1) > heads[k]);
  }, { timeoutMs: 120000, what: async () => `the EVM chains indexed (cursors ${JSON.stringify([...cursors()])}; indexer: ${indexer.logs().slice(-1500)})` });
  for (const t of TXS) {
    const k = `${t.chain}:${t.blockNumber}`;
    if (!blockTs.has(k)) blockTs.set(k, num((await jsonRpc(world.chains[t.chain].url, 'eth_getBlockByNumber', [hex(t.blockNumber), false])).timestamp));
  }
});

after(async () => {
  for (const p of [...apis, indexer, devnet]) if (p) await p.stop().catch(() => {});
  if (world) await world.stop();
  if (store) L.dropStore(store);
  cleanup(dir);
});

async function startApi(args = []) {
  const a = await L.startApi({ store, args: [...LEASE, '--log-level', 'info', ...args] });
  apis.push(a);
  return a;
}
const allLogs = () => apis.map((a) => a.logs()).join('\n');

function cursors() {
  const q = 'SELECT evm, next FROM evm_cursors';
  const out = store.startsWith('postgres')
    ? execFileSync('psql', [store, '-qAtF', '|', '-c', q], { encoding: 'utf8' })
    : execFileSync('sqlite3', ['-readonly', store, q], { encoding: 'utf8' });
  return new Map(out.trim().split('\n').filter(Boolean).map((l) => l.split('|').map(Number)));
}

const lo = (a) => (a == null ? '' : a.toLowerCase());
const HEADER = 'chainId,blockNumber,txIndex,timestamp,date,txHash,from,to,value,gasUsed,gasPrice,status,contractAddress,addresses';
const PN_HEADER = 'chain,blockchainId,txHash,txType,timestamp,date,blockNumber,blockHash,addresses';
const headerOf = (type) => (type === 'TRANSACTION_EXPORT_EVM' ? HEADER : PN_HEADER);
const dayOf = (ts) => new Date(ts * 1000).toISOString().slice(0, 10);
const startOf = (d) => Date.parse(d + 'T00:00:00Z') / 1000;

// The addresses a tx of the world took part in (lower case).
function parties(t) {
  const s = new Set([lo(t.from), lo(t.to)]);
  for (const x of [...t.erc20, ...t.erc721, ...t.erc1155]) { s.add(lo(x.from)); s.add(lo(x.to)); }
  for (const f of t.internal) { s.add(lo(f.from)); s.add(lo(f.to)); }
  s.delete(''); s.delete(ZERO);
  return s;
}

// The lines of an export, with their times: [{ ts, line }], oldest first.
function expectRows(addrs, chains, { from = -Infinity, to = Infinity } = {}) {
  const want = addrs.map(lo);
  const rows = [];
  for (const t of TXS) {
    if (!chains.includes(t.chain)) continue;
    const ts = blockTs.get(`${t.chain}:${t.blockNumber}`);
    if (ts < from || ts >= to) continue;
    const p = parties(t);
    const who = want.filter((a) => p.has(a));
    if (!who.length) continue;
    const id = truth.chains[t.chain].evmChainId;
    rows.push({ key: [ts, id, t.blockNumber, t.txIndex], ts, line: [id, t.blockNumber, t.txIndex, ts, new Date(ts * 1000).toISOString().replace(/\.000Z$/, 'Z'),
      lo(t.hash), lo(t.from), lo(t.to), String(t.value), String(t.gasUsed), String(t.effectiveGasPrice), t.status, lo(t.contractAddress), who.join(' ')].join(',') });
  }
  const cmp = (a, b) => { for (let i = 0; i < 4; i++) if (a.key[i] !== b.key[i]) return a.key[i] - b.key[i]; return 0; };
  return rows.sort(cmp);
}
const expectLines = (...a) => expectRows(...a).map((r) => r.line);

// ---- requests: every Operation body strict -------------------------------------------------------

const SCHEMA = strict(C.OperationStatusResponse$inboundSchema);
function checkOp(text, where) {
  const body = JSON.parse(text);
  const r = SCHEMA.safeParse(body);
  if (!r.success) throw new Error(`${where}: not a strict OperationStatusResponse: ${zodIssues(r.error)}: ${text}`);
  checked++;
  return body;
}
async function post(a, body) {
  const res = await fetch(`${a.url}/v1/operations/transactions:export`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, json: res.status < 300 ? checkOp(text, `POST ${text.slice(0, 100)}`) : JSON.parse(text) };
}
async function getOp(a, id) {
  const res = await fetch(`${a.url}/v1/operations/${encodeURIComponent(id)}`);
  const text = await res.text();
  return { status: res.status, text, json: res.status === 200 ? checkOp(text, `GET ${id}`) : JSON.parse(text) };
}
async function waitDone(a, id, timeoutMs = 60000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await getOp(a, id);
    assert.equal(r.status, 200, r.text);
    if (r.json.operationStatus !== 'RUNNING') return r.json;
    if (Date.now() > until) throw new Error(`operation ${id} still RUNNING after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
async function download(op) {
  assert.match(op.metadata?.downloadUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+\/v1\/operations\/[0-9a-f-]{36}\/download$/);
  const res = await fetch(op.metadata.downloadUrl);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^text\/csv/);
  const lines = (await res.text()).split('\n');
  assert.equal(lines.pop(), '', 'the file ends with a newline');
  return lines;
}
// Run an export to its end on server a (the shared one by default): [operation, lines without the header].
async function run(body, a = api) {
  const p = await post(a, body);
  assert.equal(p.status, 200, p.text);
  assert.equal(p.json.operationType, body.type);
  const op = await waitDone(a, p.json.operationId);
  if (!op.operationStatus.startsWith('COMPLETED')) return [op, null];
  const lines = await download(op);
  assert.equal(lines.shift(), headerOf(body.type));
  return [op, lines];
}

function same(got, want, where) {
  const i = got.findIndex((l, k) => l !== want[k]);
  assert.ok(got.length === want.length && i < 0, `${where}: ${got.length} lines, want ${want.length}; first difference at ${i}:\n got  ${got[i]}\n want ${want[i]}`);
}

const ids = () => ['A', 'B'].map((k) => String(truth.chains[k].evmChainId));
const evmBody = (addresses, includeChains = ids(), dates = {}) => ({ type: 'TRANSACTION_EXPORT_EVM', ...dates, options: { addresses, includeChains } });

// ---- 1. and 2. the file -------------------------------------------------------------------------------

test('an EVM export of the world\'s accounts on A and B is the truth, line for line', async () => {
  const acc = truth.accounts;
  for (const who of [[acc.alice], [acc.bob, acc.carol], [acc.deployer, acc.relayer, acc.dave], [truth.chains.A.messenger]]) {
    const [op, lines] = await run(evmBody(who));
    assert.equal(op.operationStatus, 'COMPLETED', JSON.stringify(op));
    assert.equal(op.metadata.code, undefined);
    const want = expectLines(who, ['A', 'B']);
    assert.ok(want.length > 0, `${who}: some txs`);
    same(lines, want, `${who}`);
  }
  // one chain; the world's contracts (their token transfers and frames make them parties)
  const tokens = truth.contracts.filter((c) => c.chain === 'A').map((c) => c.address);
  const [, a] = await run(evmBody(tokens.slice(0, 5), [ids()[0]]));
  const want = expectLines(tokens.slice(0, 5), ['A']);
  assert.ok(want.length >= 5, 'the contracts took part in txs');
  same(a, want, 'contracts on A');
});

test('dates cut the EVM file by UTC day; an address without txs gives an empty file; C is not indexed here', async () => {
  const acc = truth.accounts;
  const days = [...new Set([...blockTs.values()].map(dayOf))].sort();
  assert.equal(days.length, 3, `the world's day and two days of traffic: ${days}`);
  let seen = 0;
  for (const d of days) {
    const [, lines] = await run(evmBody([acc.alice, acc.bob], ids(), { firstDate: d, lastDate: d }));
    same(lines, expectLines([acc.alice, acc.bob], ['A', 'B'], { from: startOf(d), to: startOf(d) + DAY }), d);
    assert.ok(lines.length > 0, `${d}: some txs`);
    seen += lines.length;
  }
  assert.equal(seen, expectLines([acc.alice, acc.bob], ['A', 'B']).length, 'the days together are the whole file');
  // the deprecated startDate/endDate stand in for them; firstDate wins over startDate
  for (const [dates, from, to] of [[{ startDate: days[1], endDate: days[2] }, days[1], days[2]], [{ firstDate: days[2], startDate: days[0] }, days[2], null],
    [{ lastDate: days[0] }, null, days[0]]]) {
    const [, lines] = await run(evmBody([acc.alice, acc.bob], ids(), dates));
    same(lines, expectLines([acc.alice, acc.bob], ['A', 'B'], { from: from ? startOf(from) : -Infinity, to: to ? startOf(to) + DAY : Infinity }), JSON.stringify(dates));
  }
  const [op, lines] = await run(evmBody(['0x' + 'de'.repeat(20)]));
  assert.equal(op.operationStatus, 'COMPLETED');
  assert.deepEqual(lines, []);
  const [c] = await run(evmBody([acc.alice], [String(truth.chains.C.evmChainId)]));
  assert.equal(c.operationStatus, 'FAILED');
  assert.equal(c.metadata.code, 'ErrInvalidRequest');
  assert.match(c.message, new RegExp(`EVM chain ${truth.chains.C.evmChainId} is not indexed here`));
});

// ---- 3. the cap -----------------------------------------------------------------------------------------

test('past --export-max-rows: COMPLETED_WITH_WARNING, WarnTruncatedExport, nextDate; the rest follows from nextDate', async () => {
  const acc = truth.accounts;
  const who = [acc.alice, acc.bob];
  const all = expectRows(who, ['A', 'B']);
  const perDay = new Map();
  for (const r of all) perDay.set(dayOf(r.ts), (perDay.get(dayOf(r.ts)) ?? 0) + 1);
  const days = [...perDay.keys()];
  // a cap below the first day's lines (that day alone is over it: its first `cap` lines, the rest
  // of it left out) and one above every day's (the rounds' files are the whole export)
  const caps = [perDay.get(days[0]) - 1, Math.max(...perDay.values()) + 1];
  assert.ok(caps[0] >= 1 && all.length > caps[1], `lines per day ${JSON.stringify([...perDay])}`);
  for (const cap of caps) {
    const small = await startApi(['--export-max-rows', String(cap)]);
    const got = [];
    let firstDate, rounds = 0, truncated = 0;
    for (;;) {
      const [op, lines] = await run(evmBody(who, ids(), firstDate ? { firstDate } : {}), small);
      assert.ok(lines.length <= cap, `cap ${cap}: ${lines.length} lines`);
      const rest = all.filter((r) => r.ts >= (firstDate ? startOf(firstDate) : -Infinity));
      if (op.operationStatus === 'COMPLETED') { same(lines, rest.map((r) => r.line), `cap ${cap}, last round`); got.push(...lines); break; }
      truncated++;
      assert.equal(op.operationStatus, 'COMPLETED_WITH_WARNING', JSON.stringify(op));
      assert.equal(op.metadata.code, 'WarnTruncatedExport');
      assert.match(op.metadata.nextDate, /^\d{4}-\d{2}-\d{2}$/);
      assert.match(op.message, new RegExp(op.metadata.nextDate));
      assert.ok(op.metadata.downloadUrl, 'a truncated export has its file');
      const before = rest.filter((r) => r.ts < startOf(op.metadata.nextDate)).map((r) => r.line);
      // a cut at a day's start keeps every line before it; a first day too large keeps its first `cap`
      if (before.length <= cap) same(lines, before, `cap ${cap}, round ${rounds}`);
      else { same(lines, before.slice(0, cap), `cap ${cap}, round ${rounds} (one day over the cap)`); assert.match(op.message, /left out/); }
      got.push(...lines);
      assert.ok(!firstDate || op.metadata.nextDate > firstDate, 'nextDate moves on');
      firstDate = op.metadata.nextDate;
      assert.ok(++rounds <= days.length, `at most a round a day (${days.length} days)`);
    }
    assert.ok(truncated >= 1, `cap ${cap}: truncated at least once`);
    if (cap === caps[1]) same(got, all.map((r) => r.line), `cap ${cap}: the files together`);
    await small.stop();
  }
});

// ---- 4. bad requests ---------------------------------------------------------------------------------------

test('EVM bodies the schema takes but this store cannot run (bad dates among them): FAILED with ErrInvalidRequest naming the field; bodies it refuses: 400', async () => {
  const a = truth.accounts.alice;
  const evm = (dates, options = { includeChains: ids(), addresses: [a] }) => ({ type: 'TRANSACTION_EXPORT_EVM', ...dates, options });
  const cases = [
    [evm({ firstDate: '2023-13-01' }), /firstDate/],
    [evm({ lastDate: '2023-02-30' }), /lastDate/],
    [evm({ startDate: 'yesterday' }), /startDate/],
    [evm({ endDate: '2023-11-31' }), /endDate/],
    [evm({ firstDate: '1969-12-31' }), /firstDate/],
    [evm({ firstDate: '2023-11-14T00:00:00Z' }), /firstDate/],
    [evm({ firstDate: '2023-11-16', lastDate: '2023-11-15' }), /firstDate must not be after lastDate/],
    [evm({}, { includeChains: ['99901x'], addresses: [a] }), /options\.includeChains\[0\]/],
    [evm({}, { includeChains: ids(), addresses: ['0x1234'] }), /options\.addresses\[0\]/],
  ];
  for (const [body, re] of cases) {
    const p = await post(api, body);
    assert.equal(p.status, 200, `${JSON.stringify(body)}: ${p.text}`);
    assert.equal(p.json.operationStatus, 'FAILED', `${JSON.stringify(body)}: ${p.text}`);
    assert.equal(p.json.operationType, 'TRANSACTION_EXPORT_EVM');
    assert.equal(p.json.metadata.code, 'ErrInvalidRequest');
    assert.match(p.json.message, re, JSON.stringify(body));
    assert.equal(p.json.metadata.downloadUrl, undefined);
    const g = await getOp(api, p.json.operationId);
    assert.deepEqual(g.json, p.json);
    const d = await fetch(`${api.url}/v1/operations/${p.json.operationId}/download`);
    assert.equal(d.status, 404);
    assert.match(checkErrorBody(404, await d.text()).message, /FAILED/);
  }
  for (const [body, re] of [
    [evm({ firstDate: 20231114 }), /firstDate must be a string/],
    [evm({ lastDate: null }), /lastDate must be a string/],
    [evm({}, { includeChains: ids() }), /options\.addresses is required/],
    [evm({}, { addresses: [a] }), /options\.includeChains is required/],
    [evm({}, { includeChains: [99901], addresses: [a] }), /options\.includeChains\[0\] must be a string/],
    [evm({}, { includeChains: ids(), addresses: [a], cChainEvmAddresses: [a] }), /unknown property "cChainEvmAddresses"/],
  ]) {
    const p = await post(api, body);
    assert.equal(p.status, 400, `${JSON.stringify(body)}: ${p.text}`);
    assert.match(checkErrorBody(400, p.text).message, re, JSON.stringify(body));
  }
});

// ---- 5. the SDK ---------------------------------------------------------------------------------------------

test('under --compat upstream the POST answers 201, and the SDK exports an EVM body and reads the operation', async () => {
  const up = await startApi(['--compat', 'upstream']);
  const acc = truth.accounts;
  const p = await post(up, evmBody([acc.carol]));
  assert.equal(p.status, 201, p.text);
  const { sdk, opts, exchanges } = sdkClient(up.url);
  const made = await sdk.data.operations.exportTransactions(evmBody([acc.alice, acc.dave], [ids()[1], ids()[0]]), opts);
  assert.equal(exchanges.at(-1).status, 201);
  checkOp(exchanges.at(-1).text, 'SDK exportTransactions');
  assert.equal(made.operationType, 'TRANSACTION_EXPORT_EVM');
  assert.equal(made.operationStatus, 'RUNNING');
  let got;
  for (let i = 0; i < 300; i++) {
    got = await sdk.data.operations.getResult({ operationId: made.operationId }, opts);
    checkOp(exchanges.at(-1).text, 'SDK getResult');
    if (got.operationStatus !== 'RUNNING') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(got.operationStatus, 'COMPLETED');
  const lines = await download(got);
  assert.equal(lines.shift(), HEADER);
  same(lines, expectLines([acc.alice, acc.dave], ['A', 'B']), 'SDK EVM export');
  // a FAILED one through the SDK: a bad date
  const bad = await sdk.data.operations.exportTransactions(evmBody([acc.alice], ids(), { firstDate: '2023-02-30' }), opts);
  assert.equal(exchanges.at(-1).status, 201);
  assert.equal(bad.operationStatus, 'FAILED');
  assert.equal(bad.metadata?.code, 'ErrInvalidRequest');
  await up.stop();
});

// ---- 6. kill -9 with several jobs running ---------------------------------------------------------------

const completions = (logs, id) => (logs.match(new RegExp(`export ${id}: COMPLETED`, 'g')) ?? []).length;
const claims = (logs, id) => (logs.match(new RegExp(`export ${id}: claimed`, 'g')) ?? []).length;

test('kill -9 of every API server while several jobs run, EVM ones among them: each completes once with its whole file', async (t) => {
  const acc = truth.accounts;
  // a primary-network job too: its whole file is the one an uninterrupted run makes
  const m = devnet.manifest();
  const pn = { type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', options: { includeChains: ['p-chain', 'x-chain', 'c-chain'], addresses: m.accounts.slice(0, 6).map((x) => x.pAddress) } };
  const [pnOp, pnLines] = await run(pn);
  assert.equal(pnOp.operationStatus, 'COMPLETED');
  assert.ok(pnLines.length > 0, 'the primary-network export has txs');
  const jobs = [
    { body: evmBody([acc.alice, acc.bob, acc.carol]), want: expectLines([acc.alice, acc.bob, acc.carol], ['A', 'B']) },
    { body: pn, want: pnLines, pn: true },
    { body: evmBody([acc.deployer, acc.relayer, acc.dave], [ids()[1], ids()[0]]), want: expectLines([acc.deployer, acc.relayer, acc.dave], ['A', 'B']) },
    { body: evmBody([truth.chains.A.messenger, acc.rewardRedeemer], [ids()[0]]), want: expectLines([truth.chains.A.messenger, acc.rewardRedeemer], ['A']) },
    { body: evmBody([acc.bob, acc.dave], ids(), { firstDate: dayOf(blockTs.get(`A:${heads.A}`)) }), want: expectLines([acc.bob, acc.dave], ['A', 'B'], { from: startOf(dayOf(blockTs.get(`A:${heads.A}`))) }) },
  ];
  // only the servers of this test: two slow ones (a pause between reads keeps a job running for seconds)
  for (const x of apis) await x.stop();
  const slow = ['--export-pause-ms', '400'];
  const a = await startApi(slow), b = await startApi(slow);
  for (const [i, j] of jobs.entries()) {
    const p = await post(i % 2 ? b : a, j.body);
    assert.equal(p.status, 200, p.text);
    assert.equal(p.json.operationStatus, 'RUNNING');
    j.id = p.json.operationId;
  }
  // each server claims a job; then both die mid-job, the others still queued
  await L.waitFor(async () => jobs.some((j) => claims(a.logs(), j.id)) && jobs.some((j) => claims(b.logs(), j.id)),
    { timeoutMs: 20000, what: () => `both servers claim a job:\n${allLogs().slice(-3000)}` });
  await new Promise((r) => setTimeout(r, 300));
  for (const s of [a, b]) s.proc.kill('SIGKILL');
  await Promise.all([a.exited, b.exited]);
  const dead = a.logs() + '\n' + b.logs();
  const inFlight = jobs.filter((j) => claims(dead, j.id) && !completions(dead, j.id));
  assert.ok(inFlight.length >= 1, 'a job was running when the servers died');
  assert.ok(inFlight.some((j) => !j.pn), 'an EVM job among them');
  t.diagnostic(`${inFlight.length} jobs running at the kill, ${jobs.length - inFlight.length} queued or done`);
  // two new servers over the same store take every job over (the dead ones' when their leases end)
  const c = await startApi(), d = await startApi();
  for (const [i, j] of jobs.entries()) {
    const op = await waitDone(i % 2 ? c : d, j.id, 120000);
    assert.equal(op.operationStatus, 'COMPLETED', JSON.stringify(op));
    const lines = await download(op);
    assert.equal(lines.shift(), headerOf(j.body.type));
    same(lines, j.want, `job ${i} (${j.body.type})`);
  }
  // each completed once; the ones running at the kill were claimed twice, the others once
  await new Promise((r) => setTimeout(r, 2000)); // past a lease: nothing is taken again
  const logs = allLogs();
  for (const j of jobs) {
    assert.equal(completions(logs, j.id), 1, `job ${j.id} completed once`);
    assert.equal(claims(logs, j.id), inFlight.includes(j) ? 2 : 1, `job ${j.id}: claims`);
  }
  await Promise.all([c.stop(), d.stop()]);
});

test('coverage: Operation bodies checked against the strict schema', () => {
  assert.ok(checked >= 60, `${checked} bodies checked`);
});
