// exports.test.mjs — export operations (spec 000 §2.10, §4.4; data-api.md §5-§6; docs/api.md,
// exports): POST /v1/operations/transactions:export, GET /v1/operations/{operationId} and the
// file at metadata.downloadUrl, on one store backend: SQLite here, PostgreSQL in
// exports-pg.test.mjs (this file on a database of the server tests/run.sh starts).
//
// A `fuji` devnet node (`snowline devnet`, the release binary: the ground truth) is indexed by
// `snowline index --genesis` and served by `snowline api` servers (the ASan binary). The truth is
// the node's own containers replayed by devnet-ledger.mjs (dataapi-lib.mjs readTruth): each tx
// of P, X and the C-chain's atomic txs with its time, block and the addresses that took part.
// Nothing here reads the store or src/.
//
//  1. a primary-network export of several addresses on the three chains: its file is, line for
//     line, the truth's txs of those addresses (each once, oldest first, the addresses of the
//     request that took part); firstDate/lastDate and the deprecated startDate/endDate cut it by
//     UTC day; the STAKING and SIMPLE types keep the txs docs/api.md names;
//  2. every Operation body (POST, GET, each status) parses with the SDK's (@avalanche-sdk/chainkit
//     0.3.13) OperationStatusResponse made strict; under --compat upstream the POST answers 201 and
//     the SDK's own exportTransactions and getResult read the bodies;
//  3. a cap of a few lines: COMPLETED_WITH_WARNING, WarnTruncatedExport and nextDate; asking again
//     from nextDate goes on where the file stopped, and the files together are the whole export;
//  4. bodies the schema takes but this store cannot run: an operation FAILED with ErrInvalidRequest
//     whose message names the field; bodies the schema refuses: a 400 ErrorBody naming it; unknown
//     operations: 404;
//  5. two API servers on one store: each job is claimed and written once;
//  6. kill -9 of the server running a job: another server (and the restarted one) takes it over
//     when its lease runs out, and the job completes once with the whole file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir, cleanup } from './lib.mjs';
import * as L from './dataapi-lib.mjs';
import { sdkClient, strict, zodIssues, checkErrorBody, C } from './dataapi-schema-lib.mjs';

const BACKEND = process.env.SNOWLINE_EXPORTS_BACKEND ?? 'sqlite';
const TXS = Number(process.env.DATAAPI_TXS || 1500);
const SEED = process.env.DATAAPI_SEED || 'snowline-exports';
const dir = tempDir('snowline-exports-');
const LEASE = ['--export-lease-ms', '1500'];
let devnet, truth, store, api, chosen;
const apis = [];
let checked = 0; // Operation bodies checked against the strict schema

before(async () => {
  devnet = await L.startDevnetNode({ dataDir: join(dir, 'node'), txs: TXS, seed: SEED });
  truth = await L.readTruth({ nodeUrl: devnet.url, manifest: devnet.manifest(), genesis: devnet.genesis(), dir });
  assert.deepEqual(truth.problems, [], `the ledger replay disagrees with the manifest:\n${truth.problems.slice(0, 20).join('\n')}`);
  store = L.freshStore(BACKEND, dir, 'exports');
  const indexer = L.startIndexer({ nodeUrl: devnet.url, store, genesis: devnet.genesisPath });
  try { // stopped here, also when its wait fails (after() does not know it)
    await indexer.ready;
    api = await startApi();
    await L.waitCaughtUp(api, { target: truth.containers, indexer, timeoutMs: 180000 });
  } finally {
    await indexer.stop();
  }
  await devnet.stop();
  devnet = null;
  chosen = chooseAddresses();
});

after(async () => {
  for (const p of [...apis, devnet]) if (p) await p.stop().catch(() => {});
  if (store) L.dropStore(store);
  cleanup(dir);
});

async function startApi(args = []) {
  const a = await L.startApi({ store, args: [...LEASE, '--log-level', 'info', ...args] });
  apis.push(a);
  return a;
}
// Every server's log so far (any of them may run a job: they share the store).
const allLogs = () => apis.map((a) => a.logs()).join('\n');

// ---- the truth ------------------------------------------------------------------------------------

const CH = ['P', 'X', 'C'];
const ALIAS = { P: 'p-chain', X: 'x-chain', C: 'c-chain' };
const STAKING = new Set(['AddValidatorTx', 'AddDelegatorTx', 'AddPermissionlessValidatorTx', 'AddPermissionlessDelegatorTx', 'RewardValidatorTx']);
const SIMPLE = new Set(['BaseTx', 'ImportTx', 'ExportTx']);
const HEADER = 'chain,blockchainId,txHash,txType,timestamp,date,blockNumber,blockHash,addresses';
const day = (ts) => new Date(ts * 1000).toISOString().slice(0, 10);
const iso = (ts) => new Date(ts * 1000).toISOString().replace(/\.000Z$/, 'Z');

// Addresses with txs on every chain (bech32 hex), and EVM addresses of C-chain atomic txs.
function chooseAddresses() {
  const count = new Map();
  for (const c of CH) for (const t of truth.txs[c]) for (const a of t.parties.keys()) {
    const e = count.get(a) ?? count.set(a, { P: 0, X: 0, C: 0 }).get(a);
    e[c]++;
  }
  const all = [...count].filter(([, e]) => e.P && e.X && e.C).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  assert.ok(all.length >= 4, 'four addresses with txs on every chain');
  const evm = [...new Set(truth.txs.C.flatMap((t) => [...t.evm]))].sort();
  assert.ok(evm.length >= 2, 'two EVM addresses of atomic txs');
  return { bech: all.slice(0, 4).map(([a]) => a), evm: evm.slice(0, 2) };
}

// The lines of a primary-network export as the truth has them (docs/api.md, exports).
function expectLines({ bech = [], evm = [], chains = CH, from = -Infinity, to = Infinity, type = 'TRANSACTION_EXPORT_PRIMARY_NETWORK' }) {
  const rows = [];
  for (const c of chains) truth.txs[c].forEach((t, order) => {
    if (t.at.ts < from || t.at.ts >= to) return;
    if (type.endsWith('_STAKING') && !(c === 'P' && STAKING.has(t.type))) return;
    if (type.endsWith('_SIMPLE') && !SIMPLE.has(t.type)) return;
    const who = [...bech.filter((a) => t.parties.has(a)).map((a) => L.bech(truth.hrp, a)), ...(c === 'C' ? evm.filter((a) => t.evm.has(a)).map((a) => '0x' + a) : [])];
    if (!who.length) return;
    const block = t.at.blockId == null ? '' : t.at.blockId;
    rows.push({ key: [t.at.ts, CH.indexOf(c), order], line: [c, truth.chainId[c], t.id, t.type, t.at.ts, iso(t.at.ts), t.at.height ?? '', block, who.join(' ')].join(',') });
  });
  rows.sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.key[2] - b.key[2]);
  return rows;
}

// ---- requests ---------------------------------------------------------------------------------------

const SCHEMA = strict(C.OperationStatusResponse$inboundSchema);
function checkOp(text, where) {
  const body = JSON.parse(text);
  const r = SCHEMA.safeParse(body);
  if (!r.success) throw new Error(`${where}: not a strict OperationStatusResponse: ${zodIssues(r.error)}: ${text}`);
  checked++;
  return body;
}

async function post(a, body) {
  const res = await fetch(`${a.url}/v1/operations/transactions:export`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) });
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
  assert.equal(lines.shift(), HEADER);
  return lines;
}
// Run an export to its end on server a: [operation, lines].
async function run(a, body) {
  const p = await post(a, body);
  assert.equal(p.status, 200, p.text);
  assert.match(p.json.operationId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(p.json.operationStatus, 'RUNNING');
  assert.equal(p.json.operationType, body.type);
  const op = await waitDone(a, p.json.operationId);
  return [op, op.operationStatus.startsWith('COMPLETED') ? await download(op) : null];
}
const pnBody = ({ bech = chosen.bech, evm, chains = CH.map((c) => ALIAS[c]), type = 'TRANSACTION_EXPORT_PRIMARY_NETWORK', ...dates } = {}) => ({
  type, ...dates, options: { includeChains: chains, addresses: bech.map((a, i) => (i % 2 ? 'X-' : 'P-') + L.bech(truth.hrp, a)), ...(evm ? { cChainEvmAddresses: evm.map((a) => '0x' + a) } : {}) },
});

function sameLines(got, want, where) {
  const w = want.map((r) => r.line);
  if (got.length !== w.length || got.some((l, i) => l !== w[i])) {
    const i = got.findIndex((l, k) => l !== w[k]);
    assert.fail(`${where}: ${got.length} lines, want ${w.length}; first difference at ${i}:\n got  ${got[i]}\n want ${w[i]}`);
  }
}

// ---- 1. the file ------------------------------------------------------------------------------------

test('a primary-network export of several addresses on P, X and C is the truth, line for line', async () => {
  const [op, lines] = await run(api, pnBody({ evm: chosen.evm }));
  assert.equal(op.operationStatus, 'COMPLETED', JSON.stringify(op));
  assert.equal(op.metadata.code, undefined);
  assert.ok(op.updatedAtTimestamp >= op.createdAtTimestamp);
  const want = expectLines({ bech: chosen.bech, evm: chosen.evm });
  assert.ok(want.length >= 20, `a file of some size (${want.length} lines)`);
  sameLines(lines, want, 'all chains');
  // one chain, by its id rather than its alias; one address
  const [, p] = await run(api, pnBody({ bech: chosen.bech.slice(0, 1), chains: [truth.chainId.X] }));
  sameLines(p, expectLines({ bech: chosen.bech.slice(0, 1), chains: ['X'] }), 'X only');
  // the EVM addresses alone: the C-chain's atomic txs they sent or received
  const [, e] = await run(api, { type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', options: { includeChains: ['c-chain', 'p-chain'], cChainEvmAddresses: chosen.evm.map((a) => '0x' + a) } });
  sameLines(e, expectLines({ evm: chosen.evm, chains: ['C'] }), 'EVM addresses');
  assert.ok(e.length > 0);
});

test('firstDate/lastDate cut the file by UTC day, inclusive; startDate/endDate stand in for them', async () => {
  const all = expectLines({ bech: chosen.bech });
  const days = [...new Set(all.map((r) => day(r.key[0])))];
  const first = days[0], last = days[days.length - 1];
  const next = (d) => day(Date.parse(d + 'T00:00:00Z') / 1000 + 86400);
  const cases = [
    [{ firstDate: first, lastDate: first }, first, next(first)],
    [{ firstDate: last }, last, null],
    [{ lastDate: first }, null, next(first)],
    [{ startDate: first, endDate: last }, first, next(last)],
    [{ firstDate: last, startDate: first }, last, null], // firstDate wins over the deprecated field
  ];
  for (const [dates, from, to] of cases) {
    const [op, lines] = await run(api, pnBody(dates));
    assert.equal(op.operationStatus, 'COMPLETED');
    const f = from ? Date.parse(from + 'T00:00:00Z') / 1000 : -Infinity, t = to ? Date.parse(to + 'T00:00:00Z') / 1000 : Infinity;
    sameLines(lines, expectLines({ bech: chosen.bech, from: f, to: t }), JSON.stringify(dates));
  }
  // a day without txs: an empty file
  const [op, lines] = await run(api, pnBody({ firstDate: '1999-01-01', lastDate: '1999-12-31' }));
  assert.equal(op.operationStatus, 'COMPLETED');
  assert.deepEqual(lines, []);
});

test('TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING and _SIMPLE keep their txs', async () => {
  // the staking txs' owners: addresses with stakes
  const stakers = [...new Set(truth.txs.P.filter((t) => STAKING.has(t.type)).flatMap((t) => [...t.parties.keys()]))].sort().slice(0, 6);
  for (const type of ['TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING', 'TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE']) {
    const [op, lines] = await run(api, pnBody({ bech: stakers, type }));
    assert.equal(op.operationStatus, 'COMPLETED');
    assert.equal(op.operationType, type);
    const want = expectLines({ bech: stakers, type });
    assert.ok(want.length > 0, `${type}: some txs`);
    sameLines(lines, want, type);
  }
});

// ---- 2. the SDK -------------------------------------------------------------------------------------

test('under --compat upstream the POST answers 201, and the SDK exports and reads the operation', async () => {
  const up = await startApi(['--compat', 'upstream']);
  const p = await post(up, pnBody());
  assert.equal(p.status, 201, p.text);
  const { sdk, opts, exchanges } = sdkClient(up.url);
  const made = await sdk.data.operations.exportTransactions(pnBody({ chains: ['p-chain'] }), opts);
  assert.equal(made.operationStatus, 'RUNNING');
  assert.equal(exchanges.at(-1).status, 201);
  let got;
  for (let i = 0; i < 300; i++) {
    got = await sdk.data.operations.getResult({ operationId: made.operationId }, opts);
    if (got.operationStatus !== 'RUNNING') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(got.operationStatus, 'COMPLETED');
  checkOp(exchanges.at(-1).text, 'SDK getResult');
  const lines = await download(got);
  sameLines(lines, expectLines({ bech: chosen.bech, chains: ['P'] }), 'SDK export');
  // the default answers 200 (spec 000 §4.4)
  assert.equal((await post(api, pnBody())).status, 200);
  await up.stop();
});

// ---- 3. the cap ---------------------------------------------------------------------------------------

test('past --export-max-rows: COMPLETED_WITH_WARNING, WarnTruncatedExport, nextDate; the rest follows from nextDate', async () => {
  const all = expectLines({ bech: chosen.bech });
  const days = [...new Set(all.map((r) => day(r.key[0])))];
  // a cap below the first day's lines (that day alone is over it: its first `cap` lines, the rest of
  // it left out), and one above every day's (the files of the rounds are the whole export)
  const perDay = new Map();
  for (const r of all) perDay.set(day(r.key[0]), (perDay.get(day(r.key[0])) ?? 0) + 1);
  const caps = [Math.max(1, perDay.get(days[0]) - 1), Math.max(...perDay.values()) + 1];
  assert.ok(perDay.get(days[0]) >= 2 && all.length > caps[1], `lines per day ${JSON.stringify([...perDay])}`);
  for (const cap of caps) {
    // the cap is the accepting server's, kept with the job: whichever server runs it keeps to it
    const small = await startApi(['--export-max-rows', String(cap)]);
    let got = [], firstDate, rounds = 0, truncated = 0;
    for (;;) {
      const [op, lines] = await run(small, pnBody(firstDate ? { firstDate } : {}));
      assert.ok(lines.length <= cap, `cap ${cap}: ${lines.length} lines`);
      const from = firstDate ? Date.parse(firstDate + 'T00:00:00Z') / 1000 : -Infinity;
      const rest = all.filter((r) => r.key[0] >= from);
      if (op.operationStatus === 'COMPLETED') { sameLines(lines, rest, `cap ${cap}, last round`); got.push(...lines); break; }
      truncated++;
      assert.equal(op.operationStatus, 'COMPLETED_WITH_WARNING', JSON.stringify(op));
      assert.equal(op.metadata.code, 'WarnTruncatedExport');
      assert.match(op.metadata.nextDate, /^\d{4}-\d{2}-\d{2}$/);
      assert.match(op.message, new RegExp(op.metadata.nextDate));
      const next = Date.parse(op.metadata.nextDate + 'T00:00:00Z') / 1000;
      const before = rest.filter((r) => r.key[0] < next);
      // a cut at a day's start keeps every line before it; a first day too large keeps its first `cap`
      if (before.length <= cap) sameLines(lines, before, `cap ${cap}, round ${rounds}`);
      else sameLines(lines, before.slice(0, cap), `cap ${cap}, round ${rounds} (one day over the cap)`);
      got.push(...lines);
      assert.ok(!firstDate || op.metadata.nextDate > firstDate, 'nextDate moves on');
      firstDate = op.metadata.nextDate;
      assert.ok(++rounds <= days.length, `at most a round a day (${days.length} days)`);
    }
    assert.ok(truncated >= 1, `cap ${cap}: truncated at least once`);
    if (cap === caps[1]) sameLines(got, all, `cap ${cap}: the files together`);
    await small.stop();
  }
});

// ---- 4. bad requests -------------------------------------------------------------------------------

test('bodies the schema takes but this store cannot run: FAILED with ErrInvalidRequest naming the field', async () => {
  const P = 'P-' + L.bech(truth.hrp, chosen.bech[0]);
  const cases = [
    [{ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', firstDate: '2023-13-01', options: { includeChains: ['p-chain'], addresses: [P] } }, /firstDate/],
    [{ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', lastDate: '2023-02-30', options: { includeChains: ['p-chain'], addresses: [P] } }, /lastDate/],
    [{ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', startDate: 'yesterday', options: { includeChains: ['p-chain'], addresses: [P] } }, /startDate/],
    [{ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', firstDate: '2024-05-02', lastDate: '2024-05-01', options: { includeChains: ['p-chain'], addresses: [P] } }, /firstDate must not be after lastDate/],
    [{ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', options: { includeChains: ['p-chain'], addresses: ['P-avax1notanaddress'] } }, /options\.addresses\[0\]/],
    [{ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', options: { includeChains: ['p-chain'], addresses: [P.replace('fuji', 'avax')] } }, /options\.addresses\[0\]/],
    [{ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', options: { includeChains: ['p-chain'], cChainEvmAddresses: [P] } }, /options\.cChainEvmAddresses\[0\]/],
    [{ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', options: { includeChains: ['p-chain'] } }, /options\.addresses/],
    [{ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', options: { includeChains: [], addresses: [P] } }, /options\.includeChains/],
    [{ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', options: { includeChains: ['2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM'], addresses: [P] } }, /options\.includeChains\[0\].*mainnet/],
    [{ type: 'TRANSACTION_EXPORT_EVM', options: { includeChains: ['43114'], addresses: ['0x' + '11'.repeat(20)] } }, /options\.includeChains: EVM chain 43114 is not indexed here/],
    [{ type: 'TRANSACTION_EXPORT_EVM', options: { includeChains: ['c-chain'], addresses: ['0x' + '11'.repeat(20)] } }, /options\.includeChains\[0\]/],
    [{ type: 'TRANSACTION_EXPORT_EVM', options: { includeChains: ['43114'], addresses: [P] } }, /options\.addresses\[0\]/],
    [{ type: 'TRANSACTION_EXPORT_EVM', options: { includeChains: ['43114'], addresses: [] } }, /options\.addresses/],
    // a long value quoted in the message is cut between characters: the message stays UTF-8
    [{ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', options: { includeChains: ['p-chain'], addresses: ['P-' + '\u00e9'.repeat(60)] } }, /options\.addresses\[0\] 'P-(\u00e9)+' is not/],
  ];
  for (const [body, re] of cases) {
    const p = await post(api, body);
    assert.equal(p.status, 200, `${JSON.stringify(body)}: ${p.text}`);
    assert.equal(p.json.operationStatus, 'FAILED', `${JSON.stringify(body)}: ${p.text}`);
    assert.equal(p.json.metadata.code, 'ErrInvalidRequest');
    assert.match(p.json.message, re, JSON.stringify(body));
    assert.equal(p.json.metadata.downloadUrl, undefined);
    // as stored: the same from GET, and no file
    const g = await getOp(api, p.json.operationId);
    assert.deepEqual(g.json, p.json);
    const d = await fetch(`${api.url}/v1/operations/${p.json.operationId}/download`);
    assert.equal(d.status, 404);
    assert.match(checkErrorBody(404, await d.text()).message, /FAILED/);
  }
});

test('bodies the schema refuses: 400 naming the field; unknown operations: 404', async () => {
  const P = 'P-' + L.bech(truth.hrp, chosen.bech[0]);
  const pn = (options, extra = {}) => ({ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', ...extra, options });
  const cases = [
    ['{"type":', /the body must be JSON/],
    ['[1]', /a JSON object/],
    ['{} {}', /one JSON object/],
    [Buffer.from('{"type": "TRANSACTION_EXPORT_EVM\xff", "options": {}}', 'latin1'), /the body must be UTF-8: byte 32/],
    [{ options: { includeChains: ['p-chain'] } }, /type is required/],
    [{ type: 'TRANSACTION_EXPORT_EVERYTHING', options: {} }, /type must be one of/],
    [{ type: 7, options: {} }, /type must be a string/],
    [{ type: 'TRANSACTION_EXPORT_EVM' }, /options is required/],
    [pn('p-chain'), /options must be an object/],
    [pn({ addresses: [P] }), /options\.includeChains is required/],
    [pn({ includeChains: 'p-chain', addresses: [P] }), /options\.includeChains must be an array/],
    [pn({ includeChains: ['d-chain'], addresses: [P] }), /options\.includeChains\[0\] must be p-chain/],
    [pn({ includeChains: ['p-chain'], addresses: [P, 5] }), /options\.addresses\[1\] must be a string/],
    [pn({ includeChains: ['p-chain'], addresses: Array(65).fill(P) }), /options\.addresses takes at most 64/],
    [pn({ includeChains: ['p-chain'], addresses: [P], limit: 5 }), /options has an unknown property "limit"/],
    [pn({ includeChains: ['p-chain'], addresses: [P] }, { firstDate: 20240501 }), /firstDate must be a string/],
    [pn({ includeChains: ['p-chain'], addresses: [P] }, { pageSize: 5 }), /unknown property "pageSize"/],
    [{ type: 'TRANSACTION_EXPORT_EVM', options: { includeChains: ['43114'] } }, /options\.addresses is required/],
    [{ type: 'TRANSACTION_EXPORT_EVM', options: { includeChains: ['43114'], addresses: ['0x' + '11'.repeat(20)], cChainEvmAddresses: [] } }, /options has an unknown property "cChainEvmAddresses"/],
  ];
  for (const [body, re] of cases) {
    const p = await post(api, body);
    assert.equal(p.status, 400, `${JSON.stringify(body)}: ${p.text}`);
    assert.match(checkErrorBody(400, p.text).message, re, JSON.stringify(body));
  }
  for (const path of ['/v1/operations/aa22054a-cb7c-4a4e-9b83-59f2ede74138', '/v1/operations/aa22054a-cb7c-4a4e-9b83-59f2ede74138/download', '/v1/operations/..%2F..', '/v1/operations/' + 'a'.repeat(100)]) {
    const res = await fetch(api.url + path);
    assert.equal(res.status, 404, path);
    assert.match(checkErrorBody(404, await res.text()).message, /operation/);
  }
  const res = await fetch(`${api.url}/v1/operations/transactions:export`);
  assert.equal(res.status, 404, 'GET of the export path is an operation id no one made');
});

// ---- 5. and 6. several servers, kill -9 ----------------------------------------------------------------

const completions = (logs, id) => (logs.match(new RegExp(`export ${id}: COMPLETED`, 'g')) ?? []).length;
const claims = (logs, id) => (logs.match(new RegExp(`export ${id}: claimed`, 'g')) ?? []).length;

test('two API servers on one store: every job is claimed and completed once, readable from both', async () => {
  const a = await startApi(['--export-pause-ms', '20']), b = await startApi(['--export-pause-ms', '20']);
  // (the servers of the tests before are still up: five runners over the store)
  const ids = [];
  for (let i = 0; i < 8; i++) {
    const p = await post(i % 2 ? b : a, pnBody({ bech: chosen.bech.slice(i % 4, i % 4 + 1) }));
    assert.equal(p.status, 200);
    ids.push([p.json.operationId, chosen.bech[i % 4]]);
  }
  for (const [id, addr] of ids) {
    const op = await waitDone(i2(ids, id) % 2 ? a : b, id); // read from the other server
    assert.equal(op.operationStatus, 'COMPLETED');
    sameLines(await download(op), expectLines({ bech: [addr] }), `job ${id}`);
    const logs = allLogs();
    assert.equal(claims(logs, id), 1, `job ${id} claimed once`);
    assert.equal(completions(logs, id), 1, `job ${id} completed once`);
  }
  await Promise.all([a.stop(), b.stop()]);
});
const i2 = (ids, id) => ids.findIndex(([x]) => x === id);

test('kill -9 of the server running a job: it is taken over when its lease ends and completes once, whole', async () => {
  // only the servers of this test, so that the one that claims the job is A
  for (const x of apis) await x.stop();
  // a slow job: a pause between its reads keeps it running for seconds
  const slow = ['--export-pause-ms', '400'];
  const a = await startApi(slow);
  const body = pnBody({ evm: chosen.evm });
  const p = await post(a, body);
  const id = p.json.operationId;
  await L.waitFor(async () => claims(a.logs(), id) === 1, { timeoutMs: 10000, what: () => `A claims ${id}` });
  const running = (await getOp(a, id)).json;
  assert.equal(running.operationStatus, 'RUNNING');
  assert.equal(running.message, 'the export is running');
  assert.equal(running.metadata, undefined);
  await new Promise((r) => setTimeout(r, 600));
  a.proc.kill('SIGKILL');
  await a.exited;
  assert.equal(completions(a.logs(), id), 0, 'A died before it completed the job');
  // the restarted server (and a second one) over the same store: the job is still RUNNING, then
  // taken over when the dead server's lease ends, from scratch
  const a2 = await startApi(slow), b = await startApi(slow);
  assert.equal((await getOp(b, id)).json.operationStatus, 'RUNNING');
  const op = await waitDone(b, id, 120000);
  assert.equal(op.operationStatus, 'COMPLETED', JSON.stringify(op));
  sameLines(await download(op), expectLines({ bech: chosen.bech, evm: chosen.evm }), 'the job taken over');
  const logs = allLogs();
  assert.equal(claims(logs, id), 2, 'claimed by A, then once after the crash');
  assert.equal(completions(logs, id), 1, 'completed once');
  // it stays done: no server runs it again; every server reads the same operation
  await new Promise((r) => setTimeout(r, 2000));
  assert.equal(claims(allLogs(), id), 2);
  const noHost = (o) => ({ ...o, metadata: { ...o.metadata, downloadUrl: new URL(o.metadata.downloadUrl).pathname } });
  assert.deepEqual(noHost((await getOp(a2, id)).json), noHost(op));
  await Promise.all([a2.stop(), b.stop()]);
});

test('a server that stops mid-job hands it back: another takes it at once, not when its lease would end', async () => {
  const a = await startApi(['--export-pause-ms', '400', '--export-lease-ms', '120000']);
  const p = await post(a, pnBody({ evm: chosen.evm }));
  const id = p.json.operationId;
  await L.waitFor(async () => claims(a.logs(), id) === 1, { timeoutMs: 10000, what: () => `A claims ${id}` });
  await a.stop();
  assert.match(a.logs(), new RegExp(`export ${id}: handed back`));
  assert.equal(completions(a.logs(), id), 0);
  const t0 = Date.now();
  const b = await startApi();
  const op = await waitDone(b, id, 30000);
  assert.equal(op.operationStatus, 'COMPLETED');
  assert.ok(Date.now() - t0 < 30000, 'taken before the 120 s lease would have ended');
  sameLines(await download(op), expectLines({ bech: chosen.bech, evm: chosen.evm }), 'the job handed back');
  assert.equal(completions(allLogs(), id), 1);
  await b.stop();
});

test('coverage: Operation bodies checked against the strict schema', () => {
  assert.ok(checked >= 60, `${checked} bodies checked`);
});
