// evm-index.test.mjs — `snowline index --evm-chain …` against the seeded anvil chains of
// evm-lib.mjs: every row it stores, read back through `snowline dump`, is the ground truth of
// seedEvmWorld() (contract creations direct, by a factory and nested, with their outer tx; token
// transfers of the three standards; internal txs; tokens; every ICM message's state on both
// sides, chain C not indexed), and kill -9 at random moments, then restarts, leave the same store
// as an uninterrupted run. evm-index-pg.test.mjs runs this file on PostgreSQL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { BIN, tempDir, cleanup } from './lib.mjs';
import { freshStore, dropStore, startDevnetNode } from './dataapi-lib.mjs';
import { prng, seedFromEnv } from './store-lib.mjs';
import * as E from './evm-lib.mjs';

const BACKEND = process.env.SNOWLINE_EVM_BACKEND ?? 'sqlite';
const SEED = seedFromEnv('EVM_CRASH_SEED');
const KILLS = Number(process.env.EVM_CRASH_KILLS || 5);
console.log(`evm-index (${BACKEND}): seed ${SEED} (EVM_CRASH_SEED=${SEED} repeats it)`);

let world, truth, dir;
const stores = [];
const INDEXED = ['A', 'B'];

before(async () => {
  dir = tempDir('snowline-e2e-evm-');
  world = await E.seedEvmWorld();
  truth = world.truth;
});
after(async () => {
  if (world) await world.stop();
  for (const s of stores) dropStore(s);
  if (dir) cleanup(dir);
});

const store = (name) => {
  const s = freshStore(BACKEND, dir, name);
  stores.push(s);
  return s;
};

function chainArgs({ only = INDEXED } = {}) {
  const args = [];
  for (const k of only) {
    const c = truth.chains[k];
    // one chain's blockchain id in cb58, the other's in hex: both spellings are accepted
    const bid = k === 'A' ? c.blockchainIdCb58 : c.blockchainId;
    args.push('--evm-chain', `id=${c.evmChainId},rpc=${c.rpcUrl},name=${c.name},blockchain=${bid},icm=${c.messenger},symbol=ETH,token=Ether,network=local`);
  }
  return args;
}

// Start the indexer; resolves { proc, caughtUp: Promise (every chain said "caught up"), exited }.
function startIndex(storeUrl, extra = []) {
  const proc = spawn(BIN, ['index', '--no-primary', '--store', storeUrl, '--progress', 'log', ...chainArgs(), ...extra],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const want = INDEXED.map((k) => truth.chains[k].evmChainId);
  let resolveUp;
  const caughtUp = new Promise((r) => { resolveUp = r; });
  proc.stderr.on('data', (d) => {
    stderr += d;
    if (want.every((id) => new RegExp(`evm ${id} .* caught up`).test(stderr))) resolveUp();
  });
  const exited = new Promise((r) => proc.on('close', (code, sig) => r({ code, sig, stderr })));
  return { proc, caughtUp, exited, stderr: () => stderr };
}

/*
 * `snowline index` with args until its log matches every pattern, then SIGTERM: the indexer's log.
 * A run that does not get there within timeoutMs is killed and fails the test (never left behind).
 */
async function indexUntil(args, patterns, { timeoutMs = 120000 } = {}) {
  const proc = spawn(BIN, ['index', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const exited = new Promise((r) => proc.on('close', (code, sig) => r({ code, sig })));
  let timer;
  try {
    await new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`not there after ${timeoutMs} ms (${patterns.join(', ')}):\n${err.slice(-4000)}`)), timeoutMs);
      proc.stderr.on('data', (d) => {
        err += d;
        if (patterns.every((p) => p.test(err))) resolve();
      });
      exited.then((r) => reject(new Error(`the indexer ended (${r.code ?? r.sig}):\n${err.slice(-4000)}`)));
    });
  } catch (e) {
    proc.kill('SIGKILL');
    await exited;
    throw e;
  } finally {
    clearTimeout(timer);
  }
  proc.kill('SIGTERM');
  const stop = setTimeout(() => proc.kill('SIGKILL'), 30000);
  const r = await exited;
  clearTimeout(stop);
  assert.equal(r.code, 0, `the indexer's exit after SIGTERM (${r.code ?? r.sig}):\n${err.slice(-4000)}`);
  return err;
}
const caughtUpAll = (only = INDEXED) => only.map((k) => new RegExp(`evm ${truth.chains[k].evmChainId} .* caught up`));

function indexToEnd(storeUrl, extra = []) {
  return indexUntil(['--no-primary', '--store', storeUrl, '--progress', 'log', ...chainArgs(), ...extra], caughtUpAll());
}

function dump(storeUrl) {
  return new Promise((resolve, reject) => {
    const p = spawn(BIN, ['dump', '--store', storeUrl], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    const t = setTimeout(() => p.kill('SIGKILL'), 60000);
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code, sig) => {
      clearTimeout(t);
      if (code === 0) resolve(out);
      else reject(new Error(`dump: ${code ?? sig} ${err}`));
    });
  });
}

// The dump's rows as objects by table: blobs '0x…' lower case, integers Number, NULL null.
function parseDump(text) {
  const tables = {};
  let cols = null, name = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('table ')) {
      const parts = line.split(' ');
      name = parts[1];
      cols = parts.slice(2).map((c) => c.split(':')[0]);
      tables[name] = [];
    } else if (line.startsWith('end ') || line.startsWith('#') || !line) {
      continue;
    } else if (name && line.startsWith(name + '\t')) {
      const vals = line.split('\t').slice(1).map((v) => {
        if (v === 'NULL') return null;
        if (v.startsWith("x'")) return '0x' + v.slice(2, -1);
        if (v.startsWith("'")) return v.slice(1, -1).replace(/\\'/g, "'").replace(/\\\\/g, '\\');
        return Number(v);
      });
      tables[name].push(Object.fromEntries(cols.map((c, i) => [c, vals[i]])));
    }
  }
  return tables;
}

const lc = (s) => (s == null ? s : s.toLowerCase());
const u256 = (v) => '0x' + BigInt(v).toString(16).padStart(64, '0');
const evmOf = (k) => truth.chains[k].evmChainId;
const keyOf = (evm) => INDEXED.find((k) => evmOf(k) === evm);

let rows; // the uninterrupted run's tables
let fullDump;

test('indexes the seeded chains (SQLite or PostgreSQL) to their heads', async () => {
  const s = store('evm_full');
  await indexToEnd(s);
  fullDump = await dump(s);
  rows = parseDump(fullDump);
  for (const k of INDEXED) {
    const cur = rows.evm_cursors.find((r) => r.evm === evmOf(k));
    assert.equal(cur.next, truth.chains[k].head + 1, `chain ${k}: cursor`);
    assert.equal(rows.evm_blocks.filter((b) => b.evm === evmOf(k)).length, truth.chains[k].head + 1);
  }
  assert.ok(!rows.evm_blocks.some((b) => !keyOf(b.evm)), 'chain C is not indexed');
  const ch = rows.evm_chains.find((c) => c.evm === evmOf('A'));
  assert.equal(ch.blockchain, truth.chains.A.blockchainId);
  assert.equal(ch.icm, lc(truth.chains.A.messenger));
  assert.equal(ch.name, truth.chains.A.name);
  assert.equal(ch.token_symbol, 'ETH');
  assert.equal(ch.testnet, 1);
});

// The tx a row names by (evm, block, idx).
function txAt(evm, block, idx) {
  return rows.evm_txs.find((t) => t.evm === evm && t.block === block && t.idx === idx);
}

test('every tx with its receipt', () => {
  const want = truth.txs.filter((t) => INDEXED.includes(t.chain));
  const got = rows.evm_txs;
  assert.equal(got.length, want.length, 'txs of A and B');
  for (const t of want) {
    const r = txAt(evmOf(t.chain), t.blockNumber, t.txIndex);
    assert.ok(r, `${t.label}: no row`);
    assert.equal(r.hash, t.hash, t.label);
    assert.equal(r.sender, lc(t.from), t.label);
    assert.equal(r.recipient, lc(t.to), t.label);
    assert.equal(r.value, u256(t.value), t.label);
    assert.equal(r.nonce, t.nonce, t.label);
    assert.equal(r.status, t.status, t.label);
    assert.equal(r.gas_limit, t.gasLimit, t.label);
    assert.equal(r.gas_used, t.gasUsed, t.label);
    assert.equal(r.effective_price, u256(t.effectiveGasPrice), t.label);
    assert.equal(r.created, t.status === 1 && !t.to ? lc(t.contractAddress) : null, t.label);
    assert.equal(rows.evm_logs.filter((l) => l.evm === r.evm && l.block === r.block && l.tx_idx === r.idx).length, t.logCount, `${t.label}: logs`);
  }
});

test('every contract creation, direct, by a factory and nested, resolves to its outer tx', () => {
  const want = truth.contracts.filter((c) => INDEXED.includes(c.chain));
  assert.ok(want.some((c) => c.via === 'factory') && want.some((c) => c.via === 'nested') && want.some((c) => c.createType === 'CREATE2'));
  assert.equal(rows.evm_contracts.length, want.length, 'contracts of A and B');
  for (const c of want) {
    const r = rows.evm_contracts.find((x) => x.evm === evmOf(c.chain) && x.address === lc(c.address));
    assert.ok(r, `${c.label} (${c.via}): no row`);
    const t = txAt(r.evm, r.block, r.tx_idx);
    assert.equal(t.hash, c.txHash, `${c.label}: the outer tx`);
    assert.equal(r.creator, lc(c.creator), `${c.label}: creator`);
  }
});

test('every token transfer (ERC-20, ERC-721, ERC-1155 single and batch) and the tokens', () => {
  const want = [];
  for (const t of truth.txs.filter((x) => INDEXED.includes(x.chain))) {
    const base = { evm: evmOf(t.chain), block: t.blockNumber, tx_idx: t.txIndex };
    for (const x of t.erc20) want.push({ ...base, log_idx: x.logIndex, std: 20, token: lc(x.token), sender: lc(x.from), recipient: lc(x.to), token_id: null, value: u256(x.value) });
    for (const x of t.erc721) want.push({ ...base, log_idx: x.logIndex, std: 721, token: lc(x.token), sender: lc(x.from), recipient: lc(x.to), token_id: u256(x.tokenId), value: u256(1) });
    for (const x of t.erc1155) want.push({ ...base, log_idx: x.logIndex, std: 1155, token: lc(x.token), sender: lc(x.from), recipient: lc(x.to), token_id: u256(x.tokenId), value: u256(x.value) });
  }
  const key = (x) => `${x.evm}/${x.block}/${x.log_idx}/${x.token_id}/${x.sender}/${x.recipient}/${x.value}`;
  const got = rows.evm_transfers.map(({ sub, ...x }) => x);
  assert.deepEqual(got.map(key).sort(), want.map(key).sort());
  for (const g of got) {
    const w = want.find((x) => key(x) === key(g));
    assert.deepEqual(g, w);
  }
  assert.ok(rows.evm_transfers.some((x) => x.sub > 0), 'a TransferBatch gives a row per item');
  // tokens: each contract whose transfers were seen, with what it answers
  const seen = new Set(got.map((x) => `${x.evm}/${x.token}`));
  assert.equal(rows.evm_tokens.length, seen.size);
  for (const r of rows.evm_tokens) {
    const c = truth.contracts.find((x) => evmOf(x.chain) === r.evm && lc(x.address) === r.address);
    assert.ok(c && c.token, `token ${r.address}`);
    assert.equal(r.std, Number(c.token.ercType.slice(4)), c.label);
    assert.equal(r.name, c.token.name ?? null, c.label);
    assert.equal(r.symbol, c.token.symbol ?? null, c.label);
    assert.equal(r.decimals, c.token.ercType === 'ERC-20' ? c.token.decimals : null, c.label);
  }
});

test('internal txs: the callTracer frames below the top one, depth first', () => {
  let n = 0;
  for (const t of truth.txs.filter((x) => INDEXED.includes(x.chain))) {
    const got = rows.evm_internal.filter((r) => r.evm === evmOf(t.chain) && r.block === t.blockNumber && r.tx_idx === t.txIndex).sort((a, b) => a.n - b.n);
    assert.equal(got.length, t.internal.length, `${t.label}: frames`);
    t.internal.forEach((f, i) => {
      const r = got[i];
      assert.equal(r.n, i);
      assert.equal(r.kind, f.type, t.label);
      assert.equal(r.depth, f.depth, t.label);
      assert.equal(r.sender, lc(f.from), t.label);
      assert.equal(r.recipient, lc(f.to), t.label);
      // DELEGATECALL moves nothing: no value; STATICCALL has none either
      if (f.type === 'DELEGATECALL' || f.type === 'STATICCALL') assert.equal(r.value, null, t.label);
      else assert.equal(r.value, u256(f.value), t.label);
      assert.equal(r.gas_used, Number(f.gasUsed), t.label);
      assert.equal(r.reverted, f.reverted ? 1 : 0, t.label);
      n++;
    });
  }
  assert.equal(rows.evm_internal.length, n);
  assert.ok(rows.evm_internal.some((r) => r.reverted) && rows.evm_internal.some((r) => r.kind === 'CREATE2'));
});

test('address txs: sender, recipient, transfer and frame sides', () => {
  const has = (evm, addr, block, idx) => rows.evm_addr_txs.some((r) => r.evm === evm && r.addr === lc(addr) && r.block === block && r.tx_idx === idx);
  for (const t of truth.txs.filter((x) => INDEXED.includes(x.chain))) {
    const evm = evmOf(t.chain);
    assert.ok(has(evm, t.from, t.blockNumber, t.txIndex), `${t.label}: sender`);
    if (t.to) assert.ok(has(evm, t.to, t.blockNumber, t.txIndex), `${t.label}: recipient`);
    for (const x of [...t.erc20, ...t.erc721, ...t.erc1155])
      for (const a of [x.from, x.to]) if (BigInt(a) !== 0n) assert.ok(has(evm, a, t.blockNumber, t.txIndex), `${t.label}: transfer side ${a}`);
    for (const f of t.internal) for (const a of [f.from, f.to]) assert.ok(has(evm, a, t.blockNumber, t.txIndex), `${t.label}: frame side ${a}`);
  }
  assert.ok(!rows.evm_addr_txs.some((r) => BigInt(r.addr) === 0n), 'the zero address takes part in no tx');
});

test('every ICM message, each state, from whichever side is indexed', () => {
  const want = truth.messages.filter((m) => INDEXED.includes(m.sourceChain) || INDEXED.includes(m.destinationChain));
  assert.equal(rows.icm_messages.length, want.length);
  const states = new Set();
  for (const m of want) {
    const r = rows.icm_messages.find((x) => x.id === m.messageId);
    assert.ok(r, `${m.label}: no row`);
    const srcIndexed = INDEXED.includes(m.sourceChain), dstIndexed = INDEXED.includes(m.destinationChain);
    assert.equal(r.src_blockchain, m.sourceBlockchainId, m.label);
    assert.equal(r.dst_blockchain, m.destinationBlockchainId, m.label);
    assert.equal(r.nonce, u256(m.nonce), m.label);
    assert.equal(r.sender, lc(m.from), m.label);
    assert.equal(r.recipient, lc(m.to), m.label);
    assert.equal(r.gas_limit, u256(m.requiredGasLimit), m.label);
    assert.equal(r.data, m.payload === '0x' ? '0x' : m.payload, m.label);
    assert.equal(r.contract, lc(m.messenger), m.label);
    if (srcIndexed) {
      assert.equal(r.src_evm, m.sourceEvmChainId, m.label);
      assert.equal(r.src_tx, m.send.txHash, m.label);
      assert.equal(r.src_block, m.send.blockNumber, m.label);
      assert.equal(r.src_ts, m.send.timestamp, m.label);
      assert.equal(r.src_gas, u256(m.send.gasSpent), m.label);
      assert.equal(r.fee_token, lc(m.fee.token), m.label);
      assert.equal(r.fee_amount, u256(m.fee.amount), `${m.label}: the fee total`);
      assert.equal(r.receipt_delivered, m.receiptDelivered ? 1 : 0, `${m.label}: receipt`);
    } else {
      assert.equal(r.src_tx, null, m.label);
      assert.equal(r.fee_amount, null, m.label);
    }
    const delivered = dstIndexed && m.delivery;
    if (delivered) {
      assert.equal(r.dst_evm, m.destinationEvmChainId, m.label);
      assert.equal(r.dst_tx, m.delivery.txHash, m.label);
      assert.equal(r.dst_block, m.delivery.blockNumber, m.label);
      assert.equal(r.dst_ts, m.delivery.timestamp, m.label);
      assert.equal(r.dst_gas, u256(m.delivery.gasSpent), m.label);
      assert.equal(r.deliverer, lc(m.delivery.deliverer), m.label);
      assert.equal(r.redeemer, lc(m.delivery.rewardRedeemer), m.label);
      const exec = { executed: 1, retried: 1, failed: 0, none: null }[m.execution];
      assert.equal(r.executed, exec, `${m.label}: execution ${m.execution}`);
    } else {
      assert.equal(r.dst_tx, null, m.label);
      assert.equal(r.executed, null, m.label);
    }
    // the state the API derives from the row: the truth's (A and B indexed, C not)
    const state = !r.dst_tx ? 'pending' : r.src_tx ? 'delivered' : 'delivered_source_not_indexed';
    assert.equal(state, m.status, `${m.label}: state`);
    states.add(state);
    // listed by its sender and its recipient at the source tx's time when the source is indexed
    const ts = srcIndexed ? m.send.timestamp : m.delivery.timestamp;
    for (const a of [m.from, m.to]) {
      assert.ok(rows.icm_addrs.some((x) => x.addr === lc(a) && x.id === m.messageId && x.ts === ts), `${m.label}: icm_addrs ${a}`);
    }
  }
  assert.deepEqual([...states].sort(), ['delivered', 'delivered_source_not_indexed', 'pending']);
  assert.ok(want.some((m) => m.execution === 'failed') && want.some((m) => m.execution === 'retried'));
  assert.equal(rows.icm_addrs.length, 2 * want.length);
});

test('the chains one by one: the same store whichever side of a message comes first', async () => {
  const s = store('evm_order');
  // B alone first (its deliveries before their sends), then A and B
  await indexUntil(['--no-primary', '--store', s, '--progress', 'log', ...chainArgs({ only: ['B'] })], caughtUpAll(['B']));
  await indexToEnd(s);
  assert.equal(await dump(s), fullDump);
});

test('kill -9 at random moments, then restarts: the same store as the uninterrupted run', async () => {
  const rnd = prng(SEED);
  const s = store('evm_crash');
  const partial = [];
  const total = INDEXED.reduce((n, k) => n + truth.chains[k].head + 1, 0);
  for (let i = 0; i < KILLS; i++) {
    // one block a transaction; the kill comes after a random number of applied batches (the
    // debug log names each), plus a few ms, so that it lands between and inside transactions
    const ix = startIndex(s, ['--evm-batch', '1', '--log-level', 'debug']);
    const after = rnd.int(1, 12), extra = rnd.int(0, 8);
    try {
      await Promise.race([ix.caughtUp, new Promise((resolve) => {
        const poll = setInterval(() => {
          if ((ix.stderr().match(/applied blocks/g) || []).length >= after) { clearInterval(poll); setTimeout(resolve, extra); }
        }, 1);
        ix.exited.then(() => { clearInterval(poll); resolve(); });
        setTimeout(() => { clearInterval(poll); resolve(); }, 120000).unref(); // never waits past this
      })]);
    } finally {
      ix.proc.kill('SIGKILL');
    }
    await ix.exited;
    const cur = parseDump(await dump(s)).evm_cursors ?? [];
    const held = cur.reduce((n, r) => n + r.next, 0);
    if (held < total) partial.push(held);
  }
  console.log(`evm-index crash: blocks held after each kill short of the end: ${partial.join(', ')} of ${total}`);
  assert.ok(partial.length > 0, 'at least one kill left the store part way');
  await indexToEnd(s, ['--evm-batch', '1']);
  const d = await dump(s);
  if (d !== fullDump) {
    const a = d.split('\n'), b = fullDump.split('\n');
    const i = a.findIndex((l, k) => l !== b[k]);
    assert.fail(`the dumps differ at line ${i + 1}:\n  ${a[i]}\n  ${b[i]}`);
  }
});

test('beside the primary network\'s indexer: the same EVM rows, and the node\'s containers', async () => {
  const devnet = await startDevnetNode({ dataDir: `${dir}/devnet`, txs: 100, seed: 'snowline-evm', bin: BIN });
  try {
    const s = store('evm_beside');
    await indexUntil(['--node', devnet.url, '--store', s, '--progress', 'log', ...chainArgs()], [/caught up with/, ...caughtUpAll()]);
    const d = await dump(s);
    const evmPart = (text) => text.split('\n').filter((l) => /^(evm_|icm_)/.test(l)).join('\n');
    assert.equal(evmPart(d), evmPart(fullDump));
    assert.ok(parseDump(d).blocks.length > 0, 'the node\'s blocks');
  } finally {
    await devnet.stop();
  }
});

// A JSON-RPC proxy to a chain that answers "method not found" for the given methods, and with
// `flaky`, fails one request in `flaky` at random (seeded) (a 503, a cut answer, an internal error, in turn).
async function refusingProxy(target, refuse, { flaky = 0 } = {}) {
  let n = 0;
  const rnd = prng(SEED);
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', async () => {
      const call = JSON.parse(body);
      res.setHeader('Content-Type', 'application/json');
      n++;
      if (flaky && rnd.next() < 1 / flaky) {
        const kind = n % 3;
        if (kind === 0) { res.statusCode = 503; res.end('busy'); return; }
        if (kind === 1) {
          const r = await fetch(target, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
          const text = Buffer.from(await r.arrayBuffer());
          res.end(text.subarray(0, text.length >> 1));
          return;
        }
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32603, message: 'internal error' } }));
        return;
      }
      if (refuse.includes(call.method)) {
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32601, message: `the method ${call.method} does not exist/is not available` } }));
        return;
      }
      const r = await fetch(target, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      res.end(Buffer.from(await r.arrayBuffer()));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => { server.close(r); server.closeAllConnections(); }) };
}

test('a node without eth_getBlockReceipts and debug_traceBlockByNumber: receipts tx by tx, no frames', async () => {
  const proxies = {};
  for (const k of INDEXED) proxies[k] = await refusingProxy(truth.chains[k].rpcUrl, ['eth_getBlockReceipts', 'debug_traceBlockByNumber']);
  try {
    const s = store('evm_plain');
    const args = [];
    for (const k of INDEXED) {
      const c = truth.chains[k];
      args.push('--evm-chain', `id=${c.evmChainId},rpc=${proxies[k].url},name=${c.name},blockchain=${c.blockchainId},icm=${c.messenger},symbol=ETH,token=Ether,network=local`);
    }
    const err = await indexUntil(['--no-primary', '--store', s, '--progress', 'log', ...args], caughtUpAll());
    assert.match(err, /no eth_getBlockReceipts/);
    assert.match(err, /no debug_traceBlockByNumber/);
    const got = parseDump(await dump(s));
    // everything from blocks, txs and receipts is the same
    for (const t of ['evm_blocks', 'evm_txs', 'evm_logs', 'evm_transfers', 'evm_tokens', 'icm_messages', 'icm_addrs', 'evm_cursors'])
      assert.deepEqual(got[t], rows[t], t);
    // without frames: no internal txs, and only the contracts created by txs
    assert.equal(got.evm_internal.length, 0);
    const direct = truth.contracts.filter((c) => INDEXED.includes(c.chain) && c.via === 'direct');
    assert.deepEqual(got.evm_contracts.map((c) => c.address).sort(), direct.map((c) => lc(c.address)).sort());
  } finally {
    for (const p of Object.values(proxies)) await p.close();
  }
});

test('a node that fails now and then (503, cut answers, errors): retried, the same store', async () => {
  const proxies = {};
    for (const k of INDEXED) proxies[k] = await refusingProxy(truth.chains[k].rpcUrl, [], { flaky: 7 });
  try {
    const s = store('evm_flaky');
    const args = [];
    for (const k of INDEXED) {
      const c = truth.chains[k];
      const bid = k === 'A' ? c.blockchainIdCb58 : c.blockchainId;
      args.push('--evm-chain', `id=${c.evmChainId},rpc=${c.rpcUrl},name=${c.name},blockchain=${bid},icm=${c.messenger},symbol=ETH,token=Ether,network=local`);
    }
    // the chains' rows name the real URLs (as the full run's do); the threads ask the proxies
    const err = await indexUntil(['--no-primary', '--store', s, '--progress', 'log', '--evm-batch', '3',
      ...args.map((a) => INDEXED.reduce((x, k) => x.replace(`rpc=${truth.chains[k].rpcUrl},`, `rpc=${proxies[k].url},`), a))],
    caughtUpAll());
    assert.match(err, /retrying/);
    const got = parseDump(await dump(s));
    for (const t of Object.keys(rows).filter((x) => x !== 'evm_chains')) assert.deepEqual(got[t], rows[t], t);
  } finally {
    for (const p of Object.values(proxies)) await p.close();
  }
});

test('bad --evm-chain values are refused, naming the key', async () => {
  const run = (spec) => new Promise((resolve) => {
    const p = spawn(BIN, ['index', '--no-primary', '--store', `${dir}/bad.db`, '--evm-chain', spec], { stdio: ['ignore', 'ignore', 'pipe'] });
    let e = '';
    p.stderr.on('data', (d) => { e += d; });
    p.on('close', (code) => resolve({ code, e }));
  });
  for (const [spec, what] of [['rpc=http://x', 'id='], ['id=1', 'rpc='], ['id=1,rpc=http://x,icm=0x12', 'icm'],
    ['id=1,rpc=http://x,blockchain=nope', 'blockchain'], ['id=1,rpc=http://x,colour=red', 'colour'],
    ['id=1,rpc=http://x,icm=0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf', 'blockchain='], ['id=1,rpc=http://x,network=Mainnet', 'network']]) {
    const r = await run(spec);
    assert.equal(r.code, 2, spec);
    assert.match(r.e, new RegExp(what), spec);
  }
});
