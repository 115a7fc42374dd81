// dataapi-lib.mjs — shared helpers for the Data API's end-to-end tests (spec 000,
// docs/reference/data-api.md). Not a test file itself (tests/run.sh runs only *.test.mjs).
//
//   processes  startDevnetNode (a `fuji` devnet node), freshStore (a SQLite file or a new
//              PostgreSQL database on $SNOWLINE_TEST_PG), startIndexer (`snowline index
//              --genesis`), startApi (`snowline api`), waitCaughtUp (the API's /health shows
//              every index applied up to the node's head)
//   HTTP       apiGet / apiPost, fetchAllPages (follows nextPageToken; checks page sizes)
//   truth      readTruth / buildTruth: the node's own containers decoded here (devnet-lib.mjs,
//              @avalabs/avalanchejs 5.2.0), replayed by devnet-ledger.mjs (which checks them
//              against the manifest) with a trace of every UTXO's life; from it the expected
//              API objects (expectUtxo / diffUtxo, expectTx / diffTx, expectBalances,
//              expectVertex, expectBlock) and list contents (utxosOf, txsOf, blocksOf,
//              truth.assets' txs, truth.vertices). Nothing here reads the store or comes from
//              src/: a disagreement is between the API and the chain's own bytes.
//   paging     checkPaging (exactly once and in order, for a list read page by page while it
//              grows) and appliedIn (was an item's container indexed when a reading began)
//
// The definitions a truth needs where spec 000 is silent are written next to the code that
// makes them (which addresses a tx involves, the balance buckets, list orders).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3';
import { ripemd160 } from '@noble/hashes/ripemd160';
import { secp256k1 } from '@noble/curves/secp256k1';
import { Utxo, utils } from '@avalabs/avalanchejs';
import { BIN, BIN_RELEASE, cb58, waitReady } from './lib.mjs';
import { KINDS, counts, waitFor } from './store-lib.mjs';
import { startDevnet, readNodeIndexes, extractTxs, unwrapProposervm, parseXBlock, parseVertex, sha256, idOf, MANAGER } from './devnet-lib.mjs';
import { replay } from './devnet-ledger.mjs';

export { BIN, BIN_RELEASE, KINDS, waitFor };
export const CHAINS = ['P', 'X', 'C'];
export const ALIAS = { P: 'p-chain', X: 'x-chain', C: 'c-chain' };

// ---------------------------------------------------------------------------------------------
// processes

// Collect a child's output; resolve on a line matching re (or reject when it exits first).
function watch(proc, what, re, timeoutMs) {
  let out = '';
  const exited = new Promise((res) => proc.on('exit', (code, sig) => res({ code, sig })));
  const seen = new Promise((resolve, reject) => {
    // one that never gets there is killed, not left running past its failed start
    const t = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`${what}: no ${re} after ${timeoutMs} ms:\n${out.slice(-4000)}`)); }, timeoutMs);
    const on = (d) => {
      out += d;
      if (out.length > 1 << 20) out = out.slice(-(1 << 19));
      const m = re && re.exec(out);
      if (m) { clearTimeout(t); resolve(m); }
    };
    proc.stdout.on('data', on);
    proc.stderr.on('data', on);
    exited.then(({ code, sig }) => { clearTimeout(t); reject(new Error(`${what} exited (${code ?? sig}):\n${out.slice(-4000)}`)); });
  });
  seen.catch(() => {});
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return exited;
    proc.kill('SIGTERM');
    const k = setTimeout(() => proc.kill('SIGKILL'), 15000);
    const r = await exited; clearTimeout(k); return r;
  };
  return { seen, exited, stop, logs: () => out };
}

/*
 * A devnet node (`snowline devnet`, the release binary by default: it is the ground truth here,
 * not the code under test) on a free port, serving its history (and live steps every intervalMs
 * when it is not 0). Resolves once /ext/health/readiness says the history is there:
 * { url, dataDir, manifestPath, genesisPath, manifest(), genesis(), stop(), logs() }.
 * A data dir used before continues its chains (docs/devnet.md, restarts).
 */
export async function startDevnetNode({ dataDir, txs = 3000, seed = 'snowline-dataapi', intervalMs = 0, network = 'fuji', bin = BIN_RELEASE, extra = [] }) {
  mkdirSync(dirname(dataDir), { recursive: true });
  const d = await startDevnet(['--data-dir', dataDir, '--network', network, '--devnet-seed', seed, '--devnet-txs', String(txs),
    '--devnet-interval-ms', String(intervalMs), '--log-level', 'warn', ...extra], { bin });
  try {
    await waitReady(d.url, 120000);
  } catch (e) {
    await d.stop(); // the caller never gets it to stop
    throw e;
  }
  const manifestPath = join(dataDir, 'devnet-manifest.json'), genesisPath = join(dataDir, 'devnet-genesis.json');
  return { ...d, dataDir, manifestPath, genesisPath, manifest: () => JSON.parse(readFileSync(manifestPath, 'utf8')), genesis: () => JSON.parse(readFileSync(genesisPath, 'utf8')) };
}

/*
 * An empty store for one backend: 'sqlite' → a file path in dir; 'postgres' → a new database on
 * the server of $SNOWLINE_TEST_PG (tests/run.sh starts one), its URL. Throws when that variable is
 * missing: the PostgreSQL half of a suite must fail, not vanish.
 */
export function freshStore(backend, dir, name) {
  if (backend === 'sqlite') return join(dir, `${name}.db`);
  if (backend !== 'postgres') throw new Error(`backend ${backend}`);
  const base = process.env.SNOWLINE_TEST_PG;
  if (!base) throw new Error('SNOWLINE_TEST_PG is not set: run the tests with `make test` (tests/run.sh starts PostgreSQL)');
  const db = `${name}_${process.pid}_${Date.now() % 1e8}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  psql(base, `CREATE DATABASE ${db}`);
  const u = new URL(base);
  u.pathname = `/${db}`;
  return u.toString();
}

export function dropStore(store) {
  if (!store.startsWith('postgres')) return;
  const u = new URL(store), db = u.pathname.slice(1);
  u.pathname = '/postgres';
  try { psql(u.toString(), `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`); } catch { /* the server goes with the run */ }
}

function psql(url, sql) {
  const r = spawnSync('psql', [url, '-v', 'ON_ERROR_STOP=1', '-qAtc', sql], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`psql ${sql}: ${r.error?.message ?? ''} ${r.stderr}`);
  return r.stdout;
}

/*
 * `snowline index` (the ASan binary by default) from a node into a store, with the node's genesis
 * file; { proc, ready, stop(), exited, logs() }. ready resolves once it has made or opened the
 * store (schema and genesis in place) and starts reading the node: an API may open the store then.
 * It runs until stopped (it follows the node).
 */
export function startIndexer({ nodeUrl, store, genesis, bin = BIN, args = [] }) {
  const proc = spawn(bin, ['index', '--node', nodeUrl, '--store', store, '--genesis', genesis, '--progress', 'off',
    '--poll-ms', '100', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const w = watch(proc, 'snowline index', /index: indexing \S+/, 120000);
  return { proc, ready: w.seen, stop: w.stop, exited: w.exited, logs: w.logs };
}

/*
 * `snowline api` on a free port over a store, without rate limits (tests send many requests);
 * resolves { url, base (…/v1/networks/fuji/blockchains), stop(), exited, logs() } once it listens.
 */
export async function startApi({ store, bin = BIN, network = 'fuji', args = [] }) {
  const proc = spawn(bin, ['api', '--store', store, '--http-port', '0', '--rate-anonymous', '0', '--rate-key', '0',
    '--http-threads', '2', '--log-level', 'warn', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const w = watch(proc, 'snowline api', /listening on http:\/\/[^:]+:(\d+)/, 60000);
  const m = await w.seen;
  const url = `http://127.0.0.1:${m[1]}`;
  return { url, base: `${url}/v1/networks/${network}/blockchains`, proc, stop: w.stop, exited: w.exited, logs: w.logs };
}

// GET /health of the API: { healthy, store, network, indexes: { 'P/block': { applied, head }, … } }.
export async function health(api) {
  return (await apiGet(`${api.url}/health`)).json;
}

// Containers per index the node serves now (getLastAccepted), as /health names them.
export const nodeCounts = (nodeUrl) => counts(nodeUrl);

/*
 * Wait until the API's /health shows every index applied up to `target` (counts per index; by
 * default what the node serves now). Resolves the last /health answer.
 */
export async function waitCaughtUp(api, { nodeUrl, target, timeoutMs = 120000, indexer } = {}) {
  if (!api) throw new Error('waitCaughtUp: no API');
  const want = target ?? await nodeCounts(nodeUrl);
  const until = Date.now() + timeoutMs;
  let last;
  for (;;) {
    if (indexer && indexer.proc.exitCode !== null) throw new Error(`the indexer exited (${indexer.proc.exitCode}):\n${indexer.logs().slice(-3000)}`);
    if (api.proc.exitCode !== null) throw new Error(`the API exited (${api.proc.exitCode}):\n${api.logs().slice(-3000)}`);
    last = await health(api).catch(() => undefined);
    if (last?.indexes && KINDS.every((k) => last.indexes[k].applied >= want[k])) return last;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for the store to reach ${JSON.stringify(want)} (health ${JSON.stringify(last?.indexes)}; indexer: ${indexer?.logs().slice(-1500) ?? ''})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP

// Query string of an object (arrays repeat their key; undefined values are left out).
export function qs(params = {}) {
  const parts = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    for (const x of [].concat(v)) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(x))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

async function exchange(url, init) {
  const res = await fetch(url, init);
  const text = await res.text();
  let json; try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}
export const apiGet = (url) => exchange(url);
export const apiPost = (url, body) => exchange(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

/*
 * Read a whole list page by page: `url` is the endpoint with its query (no pageSize, no
 * pageToken), key the array's name ('utxos', 'transactions', …); body makes it a POST. Each page
 * must answer 200, hold at most pageSize items, and a page with a nextPageToken at least one.
 * onPage(i, json) runs after each page (the paging test lets the devnet grow between pages).
 * Resolves { items, pages }.
 */
export async function fetchAllPages(url, key, { pageSize, body, onPage, maxPages = 100000 } = {}) {
  const items = [];
  let token, pages = 0;
  const sep = url.includes('?') ? '&' : '?';
  for (;;) {
    const u = `${url}${sep}${qs({ pageSize, pageToken: token }).slice(1)}`.replace(/[?&]$/, '');
    const r = body ? await apiPost(u, body) : await apiGet(u);
    if (r.status !== 200 || !r.json || !Array.isArray(r.json[key])) throw new Error(`${body ? 'POST' : 'GET'} ${u}: ${r.status} ${r.text.slice(0, 500)}`);
    const list = r.json[key];
    pages++;
    if (pageSize && list.length > pageSize) throw new Error(`${u}: ${list.length} items in a page of ${pageSize}`);
    items.push(...list);
    if (onPage) await onPage(pages, r.json);
    token = r.json.nextPageToken;
    if (token === null) throw new Error(`${u}: nextPageToken null (the SDK refuses it)`);
    if (!token) break;
    if (!list.length) throw new Error(`${u}: an empty page with a nextPageToken`);
    if (pages >= maxPages) throw new Error(`${u}: more than ${maxPages} pages`);
  }
  return { items, pages };
}

// ---------------------------------------------------------------------------------------------
// ids and addresses

const cb58dec = (s) => Buffer.from(utils.base58check.decode(s));
export const idBytes = cb58dec;
// avalanchego's UTXOID.InputID(): sha256(u64be(outputIndex) | txID)
export function utxoId(txId, idx) {
  const b = Buffer.alloc(40);
  b.writeBigUInt64BE(BigInt(idx));
  cb58dec(txId).copy(b, 8);
  return cb58(sha256(b));
}
export const keccak = (b) => Buffer.from(keccak_256(b));
export const hex0x = (b) => '0x' + Buffer.from(b).toString('hex');
// An address as the API writes it: bech32 with the network's hrp, no chain prefix.
export const bech = (hrp, hexAddr) => utils.formatBech32(hrp, Buffer.from(hexAddr, 'hex'));
export const addrHex = (a) => Buffer.from(utils.parseBech32(a.replace(/^[PXC]-/, ''))[1]).toString('hex');

// RLP items of a list with their raw bytes: [{ raw, payload, list }]
function rlpItems(b) {
  const head = (o) => {
    const p = b[o];
    if (p < 0x80) return { start: o, data: o, len: 1, list: false };
    if (p < 0xb8) return { start: o, data: o + 1, len: p - 0x80, list: false };
    if (p < 0xc0) { const l = p - 0xb7; return { start: o, data: o + 1 + l, len: Number(BigInt('0x' + b.subarray(o + 1, o + 1 + l).toString('hex'))), list: false }; }
    if (p < 0xf8) return { start: o, data: o + 1, len: p - 0xc0, list: true };
    const l = p - 0xf7;
    return { start: o, data: o + 1 + l, len: Number(BigInt('0x' + b.subarray(o + 1, o + 1 + l).toString('hex'))), list: true };
  };
  const items = (o, end) => {
    const out = [];
    while (o < end) {
      const h = head(o);
      const stop = h.data + h.len;
      out.push({ raw: b.subarray(h.start, stop), payload: b.subarray(h.data, stop), list: h.list, items: h.list ? () => items(h.data, stop) : null });
      o = stop;
    }
    return out;
  };
  const top = head(0);
  return items(top.data, top.data + top.len);
}
const rlpUint = (buf) => (buf.length ? BigInt('0x' + buf.toString('hex')) : 0n);

// ---------------------------------------------------------------------------------------------
// the truth

/*
 * Read the node's five indexes and build the truth from them (buildTruth). manifest: the devnet's
 * manifest as parsed JSON, for the genesis and the replay's checks.
 */
export async function readTruth({ nodeUrl, manifest, genesis, bin = BIN_RELEASE, dir }) {
  const idx = await readNodeIndexes(nodeUrl);
  return buildTruth(idx, manifest, { genesis, bin, dir });
}

// Replay problems that are not about the data the API serves: the devnet's compressed staking
// periods are below Fuji's 14-day minimum (the replay checks avalanchego's bounds per network).
const IGNORED_PROBLEM = /period [0-9.]+ days (below|outside)/;

/*
 * The truth of a history, from its containers (idx: per index [{ id, ts (ns), bytes }], as
 * readNodeIndexes gives them):
 *
 *   utxos    Map utxoId → { id, txId, idx, chain (made on), dest (spent on), asset, kind, amount,
 *            owners { locktime, threshold, addrs (hex) }, lock (stakeable), groupId, payload,
 *            created: At, consumed: { txId, chain, at } | null, staked: { start, end } | null,
 *            unstaked: At | null (the RewardValidatorTx that returned it), reward: kind | null }
 *   txs      { P, X, C }: every tx in acceptance order: { chain, id, type, n (normalized), at,
 *            committed (decision txs), consumed, emitted: [UTXO records], parties: Map addr
 *            hex → [dependency sets], evm: Set of EVM addresses (C) }
 *   At       { chain, txId, ts (s), height, blockId, pos, dag, dep: { kind, index } (the container
 *            whose indexing makes the effect visible), order (place in its chain's txs) }
 *   blocks   { P, X, C }: [{ index, containerId, id, height, parent, ts, type, txs, size, proposer
 *            (NodeID or null), pChainHeight, vmTs, vmParent }]
 *   vertices [{ index, id, height, ts, parents, txs, size }]
 *   assets   Map assetId → { assetId, name, symbol, denomination, type, cap, createdTs, txs: [T] }
 *   accounts the manifest's accounts with their hex address
 */
export function buildTruth(idx, manifest, { genesis, bin = BIN_RELEASE, dir } = {}) {
  const hrp = manifest.network.hrp;
  const chainId = { P: manifest.chains.P.id, X: manifest.chains.X.id, C: manifest.chains.C.id };
  const genesisTs = genesis?.timestamp ?? manifest.startTime;
  const GENESIS_AT = { chain: null, txId: null, ts: genesisTs, height: null, blockId: null, genesis: true, dep: null, order: -1 };

  // the txs of every container (P blocks parsed once: avalanchejs verifies each BLS proof of possession)
  const txIn = extractTxs(idx, { bin, dir, ap5Time: manifest.apricotPhase5Time });
  // blocks and vertices, straight from the containers
  const blocks = { P: [], X: [], C: [] };
  idx['P/block'].forEach((c, i) => {
    const b = txIn.pBlocks[i], vm = b.vm;
    if (b.index !== i) throw new Error(`P/block ${i}: extractTxs has block ${b.index} there`);
    blocks.P.push({ index: i, containerId: c.id, id: idOf(vm.inner), height: b.height, parent: b.parentID, ts: b.time, type: b.type,
      txs: b.txs.map((t) => t.id), size: c.bytes.length, ...vmInfo(vm) });
  });
  idx['X/block'].forEach((c, i) => {
    const vm = unwrapProposervm(c.bytes);
    const b = parseXBlock(vm.inner, () => { throw new Error(`X/block ${i}: a tx avalanchejs cannot read`); });
    blocks.X.push({ index: i, containerId: c.id, id: idOf(vm.inner), height: b.height, parent: b.parentID, ts: b.time, type: 'StandardBlock',
      txs: b.txs.map((t) => idOf(t.bytes)), size: c.bytes.length, ...vmInfo(vm) });
  });
  idx['C/block'].forEach((c, i) => {
    const vm = unwrapProposervm(c.bytes);
    const top = rlpItems(vm.inner);
    const header = top[0].items();
    const txs = top[1].items().map((t) => hex0x(keccak(t.list ? t.raw : t.payload)));
    blocks.C.push({ index: i, containerId: c.id, id: hex0x(keccak(top[0].raw)), height: Number(rlpUint(header[8].payload)),
      parent: hex0x(header[0].payload), ts: Number(rlpUint(header[11].payload)), type: 'evm', txs, size: c.bytes.length, ...vmInfo(vm) });
  });
  const vertices = idx['X/vtx'].map((c, i) => {
    const v = parseVertex(c.bytes);
    return { index: i, id: c.id, height: v.height, ts: Number(c.ts / 1_000_000_000n), parents: v.parents, txs: v.txs.map(idOf), size: c.bytes.length };
  });
  const vertexOf = new Map();
  for (const v of vertices) for (const t of v.txs) (vertexOf.get(t) ?? vertexOf.set(t, []).get(t)).push(v);

  // where each tx sits
  const ats = new Map();
  function atOf(chain, n) {
    if (!n) return GENESIS_AT;
    let a = ats.get(n.id);
    if (a) return a;
    const src = n.src;
    if (chain === 'P') {
      const b = src.block, pb = blocks.P[b.index], pos = b.txs.indexOf(src);
      const decision = b.type === 'BanffProposalBlock' && pos === b.txs.length - 1;
      a = { chain, txId: n.id, ts: b.time, height: pb.height, blockId: pb.id, pos, dep: { kind: 'P/block', index: decision ? b.index + 1 : b.index } };
    } else if (chain === 'X' && src.era === 'dag') {
      a = { chain, txId: n.id, ts: Number(src.ts / 1_000_000_000n), height: null, blockId: null, dag: true, dep: { kind: 'X/tx', index: src.container } };
    } else if (chain === 'X') {
      const xb = blocks.X[src.container];
      a = { chain, txId: n.id, ts: src.blockTime, height: xb.height, blockId: xb.id, pos: xb.txs.indexOf(n.id), dep: { kind: 'X/block', index: src.container } };
    } else {
      const cbk = blocks.C[src.container];
      a = { chain, txId: n.id, ts: src.blockTime, height: cbk.height, blockId: cbk.id, dep: { kind: 'C/block', index: src.container } };
    }
    ats.set(n.id, a);
    return a;
  }

  const utxos = new Map();
  const txs = { P: [], X: [], C: [] };
  const txById = new Map();
  const extra = new Map(); // tx id → { consumed, emitted }
  const extraOf = (id) => extra.get(id) ?? extra.set(id, { consumed: [], emitted: [] }).get(id);
  const traceProblems = [];
  const pStates = new Map(); // P container index → the state after that block (ledger's trace.block)
  const trace = {
    create({ chain, dest, txId, idx: i, out, n, staked, reward, genesis: g }) {
      const id = utxoId(txId, i);
      if (utxos.has(id)) traceProblems.push(`UTXO ${txId}:${i} made twice`);
      const u = { id, idb: cb58dec(id), txId, idx: i, chain, dest, asset: out.asset, kind: out.kind, amount: out.amount, owners: out.owners, lock: out.lock,
        groupId: out.groupId, payload: out.payload, created: atOf(chain, n), createdBy: n ? n.id : null, consumed: null, staked: staked ?? null,
        unstaked: null, reward: reward ?? null, genesis: !!g };
      utxos.set(id, u);
      if (n) extraOf(n.id).emitted.push(id);
    },
    spend({ chain, txId, idx: i, n }) {
      const id = utxoId(txId, i), u = utxos.get(id);
      if (!u) { traceProblems.push(`${chain} ${n.id} spends ${txId}:${i}, never made`); return; }
      u.consumed = { txId: n.id, chain, at: atOf(chain, n) };
      extraOf(n.id).consumed.push(id);
    },
    unstake({ txId, idx: i, n }) {
      const u = utxos.get(utxoId(txId, i));
      if (!u) { traceProblems.push(`stake ${txId}:${i} returned, never made`); return; }
      u.unstaked = atOf('P', n);
    },
    block({ index, supply, l1Active, l1Fees }) { pStates.set(index, { supply, l1Active, l1Fees }); },
    // an L1 validator tx's effect on a validation (after the tx: weight, remaining balance; the change)
    l1({ n, validationId, nodeId, subnetId, weight, balance, change }) {
      const t = txById.get(n.id);
      if (!t) { traceProblems.push(`P ${n.id}: an L1 effect before its tx`); return; }
      (t.l1 ??= []).push({ validationId, validationIdHex: hex0x(cb58dec(validationId)), nodeId, subnetId, weight: Number(weight),
        remainingBalance: Number(balance), balanceChange: Number(change) });
    },
    tx({ chain, n, committed }) {
      const at = atOf(chain, n);
      at.order = txs[chain].length;
      const t = { chain, id: n.id, type: n.type, n, at, committed };
      txs[chain].push(t);
      txById.set(n.id, t);
    },
  };
  const { problems, stats } = replay({ txs: txIn, manifest, hrp, sigSample: 50, trace });
  for (const b of blocks.P) b.state = pStates.get(b.index) ?? null;
  const fatal = [...traceProblems, ...problems.filter((p) => !IGNORED_PROBLEM.test(p))];

  // consumed and emitted UTXOs; who took part (see parties below); assets
  const assets = new Map(manifest.X.assets.map((a) => [a.assetId, { ...a, cap: 'fixed', createdTs: null, txs: [] }]));
  for (const c of CHAINS) for (const t of txs[c]) {
    const e = extra.get(t.id) ?? { consumed: [], emitted: [] };
    t.consumed = e.consumed.map((id) => utxos.get(id));
    // emitted: the tx's outputs by index, then reward UTXOs (paid under the staking tx's id) by id
    const own = e.emitted.filter((id) => !utxos.get(id).reward).sort((a, b) => utxos.get(a).idx - utxos.get(b).idx);
    const rewards = e.emitted.filter((id) => utxos.get(id).reward).sort((a, b) => Buffer.compare(cb58dec(a), cb58dec(b)));
    t.emitted = [...own, ...rewards];
    t.emitted = t.emitted.map((id) => utxos.get(id));
    t.parties = parties(t);
    t.evm = new Set(c === 'C' ? (t.n.evmOuts ?? t.n.evmIns).map((o) => o.address) : []);
    if (c === 'X') {
      for (const a of assetsOfX(t.n)) {
        const A = assets.get(a);
        if (A) A.txs.push(t); else fatal.push(`X ${t.id}: unknown asset ${a}`);
      }
      if (t.type === 'CreateAssetTx') {
        const A = assets.get(t.id);
        A.createdTs = t.at.ts;
        if (t.n.states.some((s) => s.outs.some((o) => /Mint$/.test(o.kind)))) A.cap = 'variable';
      }
    }
  }
  const accounts = manifest.accounts.map((a) => ({ ...a, hex: addrHex(a.pAddress) }));
  const byOwner = new Map(); // address hex → the UTXOs it owns (alone or with others)
  for (const u of utxos.values()) for (const a of new Set(u.owners?.addrs ?? [])) (byOwner.get(a) ?? byOwner.set(a, []).get(a)).push(u);
  const truth = { manifest, hrp, chainId, genesisTs, utxos, byOwner, txs, txById, blocks, vertices, vertexOf, assets, accounts, problems: fatal, stats,
    containers: Object.fromEntries(KINDS.map((k) => [k, idx[k].length])) };
  return truth;
}

function vmInfo(vm) {
  return vm.vmType === 'option' ? { vmParent: vm.parentID, proposer: null, signed: false }
    : { vmParent: vm.parentID, proposer: vm.proposer, pChainHeight: Number(vm.pChainHeight), vmTs: Number(vm.timestamp), signed: vm.signed };
}

/*
 * Which addresses a tx involves (its chain's address lists; spec 000 says "the txs those
 * addresses took part in" and no more): the owners of every UTXO it spends or makes (exports
 * included, stake, the reward UTXOs of a RewardValidatorTx), and the owners it names — a staker's
 * rewards and delegation-rewards owners, a subnet's owner (CreateSubnetTx,
 * TransferSubnetOwnershipTx), the remaining-balance and deactivation owners of a
 * ConvertSubnetToL1Tx's validators. For the paging test each address carries what must be indexed
 * for the API to know it: the tx's own container, and for an owner known only from a UTXO the tx
 * spends, also the container that made that UTXO (an import's export may be indexed later).
 */
function parties(t) {
  const m = new Map();
  const add = (addrs, deps) => {
    for (const a of addrs ?? []) {
      const cur = m.get(a);
      if (!cur || deps.length < cur.length) m.set(a, deps);
    }
  };
  const self = [t.at.dep];
  for (const u of t.emitted) add(u.owners?.addrs, self);
  for (const u of t.consumed) add(u.owners?.addrs, u.created.dep ? [t.at.dep, u.created.dep] : self);
  const n = t.n;
  add(n.rewardsOwner?.addrs, self);
  add(n.delegationRewardsOwner?.addrs, self);
  if (n.type === 'CreateSubnetTx' || n.type === 'TransferSubnetOwnershipTx') add(n.owner?.addrs, self);
  if (n.type === 'ConvertSubnetToL1Tx') for (const v of n.validators) { add(v.remainingBalanceOwner.addrs, self); add(v.deactivationOwner.addrs, self); }
  return m;
}

// The assets an X tx touches: those of its inputs, outputs, imports, exports and operations, and
// the one it creates (the asset's tx list).
function assetsOfX(n) {
  const s = new Set();
  for (const l of [n.ins, n.outs, n.imported, n.exported]) for (const o of l ?? []) s.add(o.asset);
  if (n.type === 'CreateAssetTx') s.add(n.id);
  for (const op of n.ops ?? []) s.add(op.asset);
  return s;
}

// ---------------------------------------------------------------------------------------------
// lists as the truth has them

// The UTXOs an address owns on a chain (those spent there: its own, and the ones exported to it),
// spent or not; sorted by (creation time, utxoId bytes).
export function utxosOf(truth, chain, addrHexes) {
  const out = new Set();
  for (const a of [].concat(addrHexes)) for (const u of truth.byOwner.get(a) ?? []) if (u.dest === chain) out.add(u);
  return [...out].sort(cmpUtxoTs);
}
export const cmpUtxoTs = (a, b) => a.created.ts - b.created.ts || Buffer.compare(a.idb, b.idb);
export const cmpUtxoAmount = (a, b) => (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : Buffer.compare(a.idb, b.idb));

// The txs of a chain an address (bech32 hex, or an EVM address with evm) took part in, oldest first.
export function txsOf(truth, chain, addr, { evm = false } = {}) {
  return truth.txs[chain].filter((t) => (evm ? t.evm.has(addr) : t.parties.has(addr)));
}

// A UTXO as present at time t: made at or before t, not spent at or before t.
export const liveAt = (u, t) => u.created.ts <= t && !(u.consumed && u.consumed.at.ts <= t);

// ---------------------------------------------------------------------------------------------
// expected API objects

export function assetInfo(truth, assetId) {
  const a = truth.assets.get(assetId);
  if (!a) return { assetId, name: 'Unknown', symbol: '', denomination: 0, type: 'secp256k1' };
  return { assetId, name: a.name, symbol: a.symbol, denomination: a.denomination, type: a.type === 'nft' ? 'nft' : 'secp256k1' };
}
export const assetAmount = (truth, assetId, amount) => ({ ...assetInfo(truth, assetId), amount: String(amount) });

const X_UTXO_TYPE = { secp: 'transfer', secpMint: 'mint', nftMint: 'nft_mint', nft: 'nft_transfer', propMint: 'property_mint', prop: 'property_owned' };

/*
 * A UTXO as an endpoint of `shape` shows it: 'P' (PChainUtxo) or 'X' (the X- and C-chain Utxo),
 * from the truth at its end (spent or not). Definitions where spec 000 is silent:
 *  - blockNumber of a UTXO made without a block (the genesis, a DAG-era X tx): "0";
 *  - staked / utxoType STAKE / utxoStart- and utxoEndTimestamp: an output made as stake (it keeps
 *    them after its RewardValidatorTx returns it); start is when the stake began counting
 *    (before Durango a staker's later start, from Durango its tx's block time);
 *  - txHash / creationTxHash of a reward UTXO: the staking tx's id (the UTXO's id is made from it);
 *  - X/C utxoType: transfer, mint, nft_mint, nft_transfer.
 */
export function expectUtxo(truth, u, shape) {
  const o = {
    addresses: u.owners.addrs.map((h) => bech(truth.hrp, h)),
    asset: assetAmount(truth, u.asset, u.amount),
    consumedOnChainId: truth.chainId[u.dest],
    createdOnChainId: truth.chainId[u.chain],
    utxoId: u.id,
  };
  if (u.consumed) o.consumingTxHash = u.consumed.txId;
  if (shape === 'P') {
    Object.assign(o, { amount: String(u.amount), assetId: u.asset, blockNumber: String(u.created.height ?? 0), blockTimestamp: u.created.ts });
    if (u.consumed) Object.assign(o, { consumingBlockNumber: String(u.consumed.at.height ?? 0), consumingBlockTimestamp: u.consumed.at.ts });
    Object.assign(o, { platformLocktime: Number(u.owners.locktime), outputIndex: u.idx });
    if (u.reward) o.rewardType = u.reward;
    if (u.lock !== undefined) o.stakeableLocktime = Number(u.lock);
    Object.assign(o, { staked: !!u.staked, threshold: u.owners.threshold, txHash: u.txId });
    if (u.staked) Object.assign(o, { utxoEndTimestamp: u.staked.end, utxoStartTimestamp: u.staked.start });
    o.utxoType = u.staked ? 'STAKE' : 'TRANSFER';
  } else {
    if (u.consumed) o.consumingTxTimestamp = u.consumed.at.ts;
    o.creationTxHash = u.txId;
    if (u.kind === 'nft' || u.kind === 'nftMint') o.groupId = u.groupId;
    o.locktime = Number(u.owners.locktime);
    o.outputIndex = String(u.idx);
    if (u.kind === 'nft') o.payload = '0x' + u.payload;
    Object.assign(o, { threshold: u.owners.threshold, timestamp: u.created.ts, utxoType: X_UTXO_TYPE[u.kind] });
  }
  return o;
}

// Keys an API UTXO may carry beyond expectUtxo's: utxoBytes (checked by checkUtxoBytes), credentials (in txs).
const UTXO_FREE_KEYS = new Set(['utxoBytes', 'credentials']);

/*
 * Compare an API UTXO with the truth: the same keys (but utxoBytes, credentials) and values, and
 * utxoBytes decoded by avalanchejs to the same UTXO. Returns a list of differences.
 */
export function diffUtxo(truth, got, u, shape, where = '') {
  const want = expectUtxo(truth, u, shape);
  const d = diffObj(got, want, `${where}utxo ${u.id}`, UTXO_FREE_KEYS);
  if (got && got.utxoBytes !== undefined) d.push(...checkUtxoBytes(got.utxoBytes, u, shape, `${where}utxo ${u.id}`));
  return d;
}

// Differences of two JSON values; keys of got not in want (but free ones) and missing ones count.
export function diffObj(got, want, where, free = new Set()) {
  const out = [];
  const walk = (g, w, p) => {
    if (out.length > 20) return;
    if (w !== null && typeof w === 'object') {
      if (g === null || typeof g !== 'object' || Array.isArray(g) !== Array.isArray(w)) { out.push(`${p}: ${short(g)}, want ${short(w)}`); return; }
      if (Array.isArray(w)) {
        if (g.length !== w.length) out.push(`${p}: ${g.length} items, want ${w.length}`);
        for (let i = 0; i < Math.min(g.length, w.length); i++) walk(g[i], w[i], `${p}[${i}]`);
        return;
      }
      for (const k of Object.keys(w)) if (!(k in g)) out.push(`${p}.${k}: missing, want ${short(w[k])}`); else walk(g[k], w[k], `${p}.${k}`);
      for (const k of Object.keys(g)) if (!(k in w) && !(p === where && free.has(k))) out.push(`${p}.${k}: ${short(g[k])}, not expected`);
      return;
    }
    if (g !== w) out.push(`${p}: ${short(g)}, want ${short(w)}`);
  };
  walk(got, want, where);
  return out;
}
const short = (v) => { const s = JSON.stringify(v); return s === undefined ? 'undefined' : s.length > 200 ? s.slice(0, 200) + '…' : s; };

// utxoBytes: hex with checksum of avalanchego's UTXO encoding, read back with avalanchejs's codec.
function checkUtxoBytes(hex, u, shape, where) {
  const out = [];
  const raw = Buffer.from(hex.replace(/^0x/, ''), 'hex');
  const body = raw.subarray(0, raw.length - 4);
  if (!sha256(body).subarray(28).equals(raw.subarray(raw.length - 4))) return [`${where}.utxoBytes: bad checksum`];
  // the PVM's codec for P outputs (stakeable locks), the AVM's for mint and NFT outputs; type 7 is both's
  const vm = /Mint$|^nft/.test(u.kind) ? 'X' : u.lock !== undefined || u.chain === 'P' || u.dest === 'P' ? 'P' : 'X';
  let x;
  try { x = MANAGER[vm].unpack(new Uint8Array(body), Utxo); } catch (e) { return [`${where}.utxoBytes: avalanchejs cannot read it: ${e.message}`]; }
  if (x.utxoId.txID.toString() !== u.txId || x.utxoId.outputIdx.value() !== u.idx) out.push(`${where}.utxoBytes: names ${x.utxoId.txID}:${x.utxoId.outputIdx.value()}`);
  if (x.assetId.toString() !== u.asset) out.push(`${where}.utxoBytes: asset ${x.assetId}`);
  let o = x.output;
  if (o._type === 'pvm.StakeableLockOut') {
    if (u.lock === undefined || o.lockTime.value() !== u.lock) out.push(`${where}.utxoBytes: stakeable lock ${o.lockTime.value()}, want ${u.lock}`);
    o = o.transferOut;
  } else if (u.lock !== undefined) out.push(`${where}.utxoBytes: no stakeable lock, want ${u.lock}`);
  const amt = o.amt ? o.amt.value() : 0n;
  if (amt !== u.amount) out.push(`${where}.utxoBytes: amount ${amt}, want ${u.amount}`);
  const oo = o.outputOwners;
  if (oo) {
    const addrs = oo.addrs.map((a) => Buffer.from(a.toBytes()).toString('hex'));
    if (oo.locktime.value() !== u.owners.locktime || oo.threshold.value() !== u.owners.threshold || addrs.join() !== u.owners.addrs.join()) out.push(`${where}.utxoBytes: other owners`);
  }
  return out;
}

// ---- transactions ----

const sumBy = (list) => {
  const m = new Map();
  for (const [asset, amount] of list) m.set(asset, (m.get(asset) ?? 0n) + amount);
  return m;
};
// AssetAmount lists compare as maps (assetId → amount); their order is not defined anywhere.
export const amountsMap = (arr) => Object.fromEntries((arr ?? []).map((a) => [a.assetId, `${a.amount}|${a.name}|${a.symbol}|${a.denomination}|${a.type}`]));
const amountsWant = (truth, m) => Object.fromEntries([...m].map(([k, v]) => { const a = assetAmount(truth, k, v); return [k, `${a.amount}|${a.name}|${a.symbol}|${a.denomination}|${a.type}`]; }));

const STAKING = new Set(['AddValidatorTx', 'AddDelegatorTx', 'AddPermissionlessValidatorTx', 'AddPermissionlessDelegatorTx', 'AddSubnetValidatorTx']);
const PRIMARY = '11111111111111111111111111111111LpoYY';

/*
 * The fields of a tx the truth determines, as the endpoint of its chain shows them; UTXO arrays
 * are compared one by one (diffTx). Definitions where spec 000 is silent (the OpenAPI document's
 * descriptions are the guide):
 *  P  value: the nAVAX of the UTXOs it makes that are not stake ("the amount of nAVAX present in
 *     the newly created UTXOs"), rewards of a RewardValidatorTx included; amountStaked: its stake;
 *     amountL1ValidatorBalanceBurned: what it moves into L1 validators' balances; amountBurned:
 *     inputs − outputs − that (the fee); startTimestamp: when the stake began counting;
 *     blsCredentials and a ConvertSubnetToL1Tx's validators (l1ValidatorDetails, validationId =
 *     sha256(subnetID | u32 index)) and manager from the tx's own fields; the l1ValidatorDetails of
 *     weight, balance and disable txs from the replay's L1 state after the tx (weight, remaining
 *     balance, balanceChange: what the tx moved into the balance, negative when refunded).
 *  X  amountUnlocked / amountCreated: per asset, the UTXOs it spends / makes (zero-amount mint and
 *     NFT outputs as 0); timestamp: its block's time, or a DAG tx's container time.
 *  C  amountUnlocked: imported UTXOs or EVM inputs; amountCreated: EVM outputs or exported UTXOs.
 *  X, C  credentials of consumed UTXOs and EVM inputs (diffTx): the tx's signatures, each key the
 *     owner's (its hash160 an owner, or the EVM input's address).
 */
export function expectTx(truth, t) {
  const n = t.n, emitted = t.emitted, consumed = t.consumed;
  if (t.chain === 'P') {
    const o = { txHash: t.id, txType: t.type, blockTimestamp: t.at.ts, blockNumber: String(t.at.height), blockHash: t.at.blockId };
    const value = sumBy(emitted.filter((u) => !u.staked).map((u) => [u.asset, u.amount]));
    const staked = sumBy(emitted.filter((u) => u.staked).map((u) => [u.asset, u.amount]));
    let l1 = 0n;
    if (t.type === 'ConvertSubnetToL1Tx') for (const v of n.validators) l1 += v.balance;
    if (t.type === 'RegisterL1ValidatorTx' || t.type === 'IncreaseL1ValidatorBalanceTx') l1 += n.balance;
    const avax = truth.manifest.avaxAssetId;
    const ins = sumBy([...n.ins, ...n.imported].map((i) => [i.asset, i.amount]));
    const outs = sumBy([...n.outs, ...n.exported, ...n.stake].map((x) => [x.asset, x.amount]));
    const burned = new Map();
    for (const [a, v] of ins) { const left = v - (outs.get(a) ?? 0n) - (a === avax ? l1 : 0n); if (left > 0n) burned.set(a, left); }
    Object.assign(o, { value: amountsWant(truth, value), amountBurned: amountsWant(truth, burned), amountStaked: amountsWant(truth, staked),
      amountL1ValidatorBalanceBurned: amountsWant(truth, l1 ? new Map([[avax, l1]]) : new Map()) });
    if (t.type === 'ImportTx') o.sourceChain = n.srcChain;
    if (t.type === 'ExportTx') o.destinationChain = n.dstChain;
    if (STAKING.has(t.type)) {
      const stake = emitted.find((u) => u.staked);
      o.startTimestamp = stake ? stake.staked.start : Math.max(Number(n.start), t.at.ts);
      o.endTimestamp = Number(n.end);
    }
    if (t.type === 'AddValidatorTx' || t.type === 'AddPermissionlessValidatorTx') o.delegationFeePercent = feePercent(n.shares);
    if (n.nodeId) o.nodeId = n.nodeId;
    if (STAKING.has(t.type) || n.subnetId || t.type === 'CreateSubnetTx') o.subnetId = t.type === 'CreateSubnetTx' ? t.id : n.subnetId ?? PRIMARY;
    if (STAKING.has(t.type) && t.type !== 'AddSubnetValidatorTx') {
      const end = truth.txs.P.find((r) => r.type === 'RewardValidatorTx' && r.n.stakerTxId === t.id);
      if (end) o.rewardTxHash = end.id;
      o.rewardAddresses = (n.rewardsOwner?.addrs ?? []).map((h) => bech(truth.hrp, h));
      // the potential reward the manifest states (fixed when the staker started; none while pending)
      const m = truth.manifest.P.validators.find((v) => v.txId === t.id) ?? truth.manifest.P.delegators.find((v) => v.txId === t.id);
      if (m?.potentialReward !== undefined && (n.subnetId ?? PRIMARY) === PRIMARY) o.estimatedReward = String(m.potentialReward);
    }
    if (n.memo) o.memo = '0x' + n.memo;
    if (t.type === 'RewardValidatorTx') o.stakingTxHash = n.stakerTxId;
    if (t.type === 'CreateSubnetTx' || t.type === 'TransferSubnetOwnershipTx') {
      o.subnetOwnershipInfo = { locktime: Number(n.owner.locktime), threshold: n.owner.threshold, addresses: n.owner.addrs.map((h) => bech(truth.hrp, h)) };
    }
    // the devnet's chains are Subnet-EVM ones whose genesis keeps the DTO's types: the object form
    if (t.type === 'CreateChainTx') o.blockchainInfo = { chainName: n.chainName, vmId: n.vmId, genesisData: JSON.parse(n.genesis) };
    // the validation after a weight, balance or disable tx, as the ledger replay left it (its weight and
    // remaining balance; what the tx moved into the balance, negative when it was refunded)
    if (['SetL1ValidatorWeightTx', 'IncreaseL1ValidatorBalanceTx', 'DisableL1ValidatorTx'].includes(t.type)) o.l1ValidatorDetails = t.l1 ?? [];
    const u = n.src.signed?.unsignedTx;
    if (t.type === 'AddPermissionlessValidatorTx' && u?.signer?.proof) o.blsCredentials = { publicKey: hex0x(u.signer.proof.publicKey), proofOfPossession: hex0x(u.signer.proof.signature) };
    if (t.type === 'ConvertSubnetToL1Tx') {
      o.l1ValidatorManagerDetails = { blockchainId: n.chainId, contractAddress: '0x' + n.address };
      // validationID = sha256(subnetID | u32 index), as avalanchego's SubnetID.Append(index)
      o.l1ValidatorDetails = n.validators.map((v, i) => {
        const b = Buffer.alloc(36);
        cb58dec(n.subnetId).copy(b);
        b.writeUInt32BE(i, 32);
        const vid = sha256(b);
        return { validationId: cb58(vid), validationIdHex: hex0x(vid), nodeId: 'NodeID-' + cb58(v.nodeId), subnetId: n.subnetId, weight: Number(v.weight),
          remainingBalance: Number(v.balance), balanceChange: Number(v.balance), blsCredentials: { publicKey: hex0x(u.validators[i].signer.publicKey), proofOfPossession: hex0x(u.validators[i].signer.signature) } };
      });
    }
    return { o, consumed, emitted, shape: 'P' };
  }
  if (t.chain === 'X') {
    const o = { txHash: t.id, chainFormat: t.at.dag ? 'non-linear' : 'linear', timestamp: t.at.ts, txType: t.type, memo: '0x' + (n.memo ?? '') };
    o.amountUnlocked = amountsWant(truth, sumBy(consumed.map((u) => [u.asset, u.amount])));
    o.amountCreated = amountsWant(truth, sumBy(emitted.map((u) => [u.asset, u.amount])));
    if (t.type === 'ImportTx') o.sourceChain = n.srcChain;
    if (t.type === 'ExportTx') o.destinationChain = n.dstChain;
    if (t.type === 'CreateAssetTx') {
      const a = truth.assets.get(t.id);
      o.assetCreated = { assetId: t.id, name: a.name, symbol: a.symbol, denomination: a.denomination, type: a.type === 'nft' ? 'nft' : 'secp256k1', createdAtTimestamp: t.at.ts, cap: a.cap };
    }
    if (t.at.dag) o.vertices = (truth.vertexOf.get(t.id) ?? []).map((v) => ({ hash: v.id, height: v.height, timestamp: v.ts }));
    else Object.assign(o, { blockHeight: t.at.height, blockHash: t.at.blockId });
    return { o, consumed, emitted, shape: 'X' };
  }
  const imp = t.type === 'ImportTx';
  const o = { txHash: t.id, blockHeight: t.at.height, blockHash: t.at.blockId, timestamp: t.at.ts, memo: '0x' };
  o.amountUnlocked = amountsWant(truth, sumBy(imp ? n.imported.map((i) => [i.asset, i.amount]) : n.evmIns.map((i) => [i.asset, i.amount])));
  o.amountCreated = amountsWant(truth, sumBy(imp ? n.evmOuts.map((i) => [i.asset, i.amount]) : n.exported.map((x) => [x.asset, x.amount])));
  Object.assign(o, { sourceChain: imp ? n.srcChain : truth.chainId.C, destinationChain: imp ? truth.chainId.C : n.dstChain, txType: t.type });
  if (imp) o.evmOutputs = n.evmOuts.map((e) => ({ toAddress: '0x' + e.address, asset: assetAmount(truth, e.asset, e.amount) }));
  else o.evmInputs = n.evmIns.map((e) => ({ fromAddress: '0x' + e.address, asset: assetAmount(truth, e.asset, e.amount) }));
  return { o, consumed: imp ? consumed : null, emitted: imp ? null : emitted, shape: 'X' };
}

function feePercent(ppm) {
  const s = `${Math.floor(ppm / 10000)}.${String(ppm % 10000).padStart(4, '0')}`.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

// Keys of a tx the truth does not model: a RegisterL1ValidatorTx's l1ValidatorDetails (they are in
// its warp message).
const txFreeKeys = (t) => new Set(t.type === 'RegisterL1ValidatorTx' ? ['l1ValidatorDetails'] : []);
const AMOUNT_KEYS = ['value', 'amountBurned', 'amountStaked', 'amountL1ValidatorBalanceBurned', 'amountUnlocked', 'amountCreated'];

// Compare an API tx with the truth; returns a list of differences.
export function diffTx(truth, got, t) {
  const where = `${t.chain} tx ${t.id} (${t.type})`;
  const { o, consumed, emitted, shape } = expectTx(truth, t);
  const g = { ...got };
  for (const k of AMOUNT_KEYS) if (k in g) g[k] = amountsMap(g[k]);
  const d = [];
  const skip = new Set([...txFreeKeys(t), 'consumedUtxos', 'emittedUtxos', 'evmInputs', 'evmOutputs']);
  const top = { ...o };
  delete top.evmInputs; delete top.evmOutputs;
  d.push(...diffObj(g, top, where, skip));
  for (const k of ['evmInputs', 'evmOutputs']) if (o[k]) {
    const gl = (got[k] ?? []).map((e) => { const { credentials, ...rest } = e; void credentials; return rest; });
    d.push(...diffObj(gl, o[k], `${where}.${k}`));
  }
  // an EVM input's credential: the tx's credential i, its key the input's EVM address
  if (o.evmInputs) (got.evmInputs ?? []).forEach((e, i) => d.push(...diffCreds(e.credentials, t.n.creds[i], (pub) => evmAddressOf(pub) === t.n.evmIns[i].address, `${where}.evmInputs[${i}]`)));
  for (const [k, list] of [['consumedUtxos', consumed], ['emittedUtxos', emitted]]) {
    if (!list) { if (k in got) d.push(`${where}.${k}: present, not expected`); continue; }
    const gl = got[k];
    if (!Array.isArray(gl)) { d.push(`${where}.${k}: missing`); continue; }
    const ids = gl.map((u) => u.utxoId), want = list.map((u) => u.id);
    if (ids.join() !== want.join()) { d.push(`${where}.${k}: ${JSON.stringify(ids)}, want ${JSON.stringify(want)}`); continue; }
    gl.forEach((u, i) => d.push(...diffUtxo(truth, u, list[i], shape, `${where}.${k}[${i}] `)));
    // X and C: who unlocked each consumed UTXO. Credential j of the tx for input j (its own inputs,
    // then imported ones); an operation's one credential for every UTXO the operation spends.
    if (k === 'consumedUtxos' && shape === 'X') {
      const n = t.n, nIn = (n.ins?.length ?? 0) + (n.imported?.length ?? 0);
      const opOf = (n.ops ?? []).flatMap((op, x) => op.utxos.map(() => x));
      gl.forEach((u, j) => {
        const ci = j < nIn ? j : nIn + opOf[j - nIn];
        const owners = new Set(list[j].owners?.addrs ?? []);
        d.push(...diffCreds(u.credentials, n.creds[ci], (pub) => owners.has(hash160(pub)), `${where}.${k}[${j}]`));
      });
    }
  }
  return d;
}

const hash160 = (pubHex) => Buffer.from(ripemd160(sha256(Buffer.from(pubHex.replace(/^0x/, ''), 'hex')))).toString('hex');
const evmAddressOf = (pubHex) => keccak(Buffer.from(secp256k1.ProjectivePoint.fromHex(pubHex.replace(/^0x/, '')).toRawBytes(false).subarray(1))).subarray(12).toString('hex');

// credentials [{ signature, publicKey }] against the tx's signatures (hex) and a test of each key
function diffCreds(got, sigs, keyOk, where) {
  if (!Array.isArray(got)) return [`${where}.credentials: missing`];
  const want = (sigs ?? []).map((x) => '0x' + x);
  const out = [];
  if (got.map((c) => c.signature).join() !== want.join()) out.push(`${where}.credentials: signatures ${JSON.stringify(got.map((c) => c.signature))}, want ${JSON.stringify(want)}`);
  const ok = (k) => { try { return keyOk(k); } catch { return false; } };
  got.forEach((c, i) => { if (!c.publicKey || !ok(c.publicKey)) out.push(`${where}.credentials[${i}].publicKey ${c.publicKey}: not the owner's key`); });
  return out;
}

// ---- balances ----

const P_BUCKETS = ['unlockedUnstaked', 'unlockedStaked', 'lockedPlatform', 'lockedStakeable', 'lockedStaked', 'pendingStaked'];

/*
 * Balances of addresses on a chain at time t, as the truth has them: every UTXO spent on that
 * chain owned by one of the addresses (once) and present at t (liveAt). Buckets (the OpenAPI
 * document's descriptions; spec 000 names them only):
 *   P  staked outputs until their RewardValidatorTx: pendingStaked before the stake's start,
 *      then lockedStaked when the output will still be locked when the staking period ends
 *      (owners' locktime or stakeable lock after its end: "staked Avax that will be locked when
 *      the staking period ends"), else unlockedStaked ("consumable by any transaction when the
 *      staking period ends"); other outputs: lockedPlatform (owners' locktime after t),
 *      lockedStakeable (stakeable lock after t), unlockedUnstaked;
 *   X  locked (owners' locktime after t), unlocked — every asset, mint and NFT outputs counted
 *      with their amount (0) in utxoCount;
 *   all  atomicMemoryUnlocked / atomicMemoryLocked: exported to this chain, not yet imported, per
 *      source chain (sharedWithChainId); on P with status "pending".
 * Returns { bucket: { 'assetId|sharedWith': 'amount|utxoCount' } }.
 */
export function expectBalances(truth, chain, addrHexes, t) {
  const b = {};
  const names = chain === 'P' ? [...P_BUCKETS, 'atomicMemoryUnlocked', 'atomicMemoryLocked'] : chain === 'X' ? ['locked', 'unlocked', 'atomicMemoryUnlocked', 'atomicMemoryLocked'] : ['atomicMemoryUnlocked', 'atomicMemoryLocked'];
  for (const k of names) b[k] = new Map();
  const T = BigInt(t);
  for (const u of utxosOf(truth, chain, addrHexes)) {
    if (!liveAt(u, t)) continue;
    const locked = u.owners.locktime > T, lockedS = u.lock !== undefined && u.lock > T;
    let k, shared = '';
    if (u.chain !== chain) { k = locked ? 'atomicMemoryLocked' : 'atomicMemoryUnlocked'; shared = truth.chainId[u.chain]; } else if (chain === 'X') k = locked ? 'locked' : 'unlocked';
    else if (u.staked && !(u.unstaked && u.unstaked.ts <= t)) {
      const end = BigInt(u.staked.end);
      k = t < u.staked.start ? 'pendingStaked' : u.owners.locktime > end || (u.lock !== undefined && u.lock > end) ? 'lockedStaked' : 'unlockedStaked';
    }
    else k = locked ? 'lockedPlatform' : lockedS ? 'lockedStakeable' : 'unlockedUnstaked';
    const key = `${u.asset}|${shared}`;
    const cur = b[k].get(key) ?? { amount: 0n, n: 0 };
    cur.amount += u.amount; cur.n++;
    b[k].set(key, cur);
  }
  const out = {};
  for (const [k, m] of Object.entries(b)) out[k] = Object.fromEntries([...m].map(([key, v]) => [key, `${v.amount}|${v.n}`]));
  return out;
}

// An API balances object in expectBalances' form (and the asset details checked on the way).
export function balancesForm(truth, chain, json) {
  const out = {}, bad = [];
  for (const [k, list] of Object.entries(json.balances ?? {})) {
    out[k] = {};
    for (const e of list) {
      const key = `${e.assetId}|${e.sharedWithChainId ?? ''}`;
      if (key in out[k]) bad.push(`${k}: ${key} twice`);
      out[k][key] = `${e.amount}|${e.utxoCount}`;
      const a = assetInfo(truth, e.assetId);
      for (const f of ['name', 'symbol', 'denomination', 'type']) if (e[f] !== a[f]) bad.push(`${k} ${e.assetId}.${f}: ${e[f]}, want ${a[f]}`);
      if (chain === 'P' && /^atomic/.test(k) && e.status !== 'pending') bad.push(`${k} ${e.assetId}.status: ${e.status}`);
    }
  }
  return { balances: out, bad };
}

// ---- vertices and blocks ----

export function expectVertex(v) {
  return { vertexHash: v.id, parentHashes: v.parents, vertexHeight: v.height, vertexIndex: v.index, vertexTimestamp: v.ts, txCount: v.txs.length, transactions: v.txs, vertexSizeBytes: v.size };
}

// The blocks a node proposed on a chain (signed proposervm blocks whose certificate is its), latest first.
export function blocksOf(truth, chain, nodeId) {
  return truth.blocks[chain].filter((b) => b.proposer === nodeId).sort((a, b) => b.height - a.height);
}
/*
 * A block as blocks-by-node shows it. blockType: the block's Go type name on P (our parser's
 * names, avalanchego's), "StandardBlock" on X; on C the API names it (the test checks a string).
 * blockSizeBytes: the container's (proposervm block's) bytes; proposerId: the container id.
 */
export function expectBlock(chain, b, nodeId) {
  const o = { blockNumber: String(b.height), blockHash: b.id, parentHash: b.parent, blockTimestamp: b.ts, txCount: b.txs.length, transactions: b.txs, blockSizeBytes: b.size };
  if (chain === 'P') o.blockType = b.type;
  // the P-chain's state after the block, from the ledger replay (currentSupply: avalanchego's
  // platform.getCurrentSupply; the L1 fee's active validators and accrued fees)
  if (chain === 'P' && b.state) Object.assign(o, { currentSupply: String(b.state.supply), activeL1Validators: b.state.l1Active, l1ValidatorsAccruedFees: Number(b.state.l1Fees) });
  if (chain === 'X') o.blockType = 'StandardBlock';
  o.proposerDetails = { proposerId: b.containerId, proposerParentId: b.vmParent, proposerNodeId: nodeId, proposerPChainHeight: b.pChainHeight, proposerTimestamp: b.vmTs };
  return o;
}

// ---------------------------------------------------------------------------------------------
// paging while the list grows

/*
 * What "each item exactly once, in order" means for a list read page by page while the indexer
 * adds to it (the API's page cursor is the last item's sort key, never an offset):
 *   - no item twice, and the sequence strictly follows the list's order (sort key, then id);
 *   - every item that was in the store before the first page was asked for (`before`: its
 *     containers were applied then) and is still in the list at the end appears;
 *   - every item shown is in the list by the end's truth (`may`), so nothing appears from nowhere.
 * Consequences per order: oldest first, items added meanwhile appear after the old ones if they
 * sort after the cursor (new times do); newest first, the first page starts at the newest item
 * then, and later additions sort before the cursor and do not appear (but for a tie in the same
 * second, which sorts by id). `key(item)` gives the API item's identity; `cmp(a, b)` its order on
 * identities (ascending; desc reverses it).
 * Returns a list of problems.
 */
export function checkPaging({ items, key, must, may, cmp, desc, where }) {
  const out = [];
  const seen = new Set();
  let prev;
  for (const it of items) {
    const k = key(it);
    if (seen.has(k)) out.push(`${where}: ${k} twice`);
    seen.add(k);
    if (!may.has(k)) out.push(`${where}: ${k} is not in the list`);
    if (prev !== undefined) {
      const c = cmp(prev, k);
      if (desc ? c <= 0 : c >= 0) out.push(`${where}: ${k} after ${prev}, out of order`);
    }
    prev = k;
    if (out.length > 20) break;
  }
  const missing = [...must].filter((k) => !seen.has(k));
  if (missing.length) out.push(`${where}: ${missing.length} of ${must.size} items that were there all along are missing, e.g. ${missing.slice(0, 5).join(', ')}`);
  return out;
}

// Was everything a dependency list names applied (applied: counts per index from /health)?
export const appliedIn = (applied) => (deps) => deps.every((d) => !d || d.index < applied[d.kind]);

export { rlpItems };
