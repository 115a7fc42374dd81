// `snowline up`, the main job: a fuji devnet node, the indexer and the Data API
// in one process. It prints where they listen and three example requests that
// work; the indexer follows the live devnet within a second (its /metrics say
// so); SIGTERM stops it cleanly and a restart resumes; --node indexes a node
// started apart (and --prices loads a file of prices into its store); a port
// taken, a bad option or a bad file of prices is refused with a reason. Under --node, the node's
// C-chain (43113 on fuji) is indexed as an EVM chain: its native balances are the manifest's and the
// node's, and an EVM export of every devnet key is, line for line, the EVM txs of the node's C/block
// containers decoded here (signers recovered from the signatures); every body strict for the SDK.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseTransaction, recoverTransactionAddress, keccak256, toRlp, getAddress } from 'viem';
import { BIN, tempDir, cleanup, startNode } from './lib.mjs';
import { unwrapProposervm, rlpDecode } from './devnet-lib.mjs';
import { readIndex } from './store-lib.mjs';
import { strict, zodIssues, C } from './dataapi-schema-lib.mjs';

const dirs = [];
after(() => dirs.forEach(cleanup));

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

// Start `snowline up`; resolves once it prints the API's line: { api, out(), stop(), exited }.
async function startUp(args, { timeoutMs = 60000 } = {}) {
  const proc = spawn(BIN, ['up', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  const exited = new Promise((res) => proc.on('close', (code, sig) => res({ code, sig })));
  const api = await new Promise((resolve, reject) => {
    // one that never starts is killed, not left running past the test
    const t = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`up did not start in ${timeoutMs} ms:\n${out.slice(-4000)}`)); }, timeoutMs);
    const check = () => {
      const m = /the Data API on (http:\/\/\S+)/.exec(out);
      if (m) { clearTimeout(t); resolve(m[1]); }
    };
    proc.stderr.on('data', check);
    exited.then(({ code, sig }) => { clearTimeout(t); reject(new Error(`up exited (${code ?? sig}):\n${out}`)); });
  });
  return {
    api, proc, exited, out: () => out,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return exited;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 20000);
      const r = await exited; clearTimeout(t); return r;
    },
  };
}

function run(args, timeoutMs = 30000) {
  return new Promise((resolve, reject) => {
    const proc = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d) => { out += d; });
    proc.stderr.on('data', (d) => { out += d; });
    const t = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`still running:\n${out}`)); }, timeoutMs);
    proc.on('close', (code) => { clearTimeout(t); resolve({ code, out }); });
  });
}

async function health(api) {
  const r = await fetch(`${api}/health`);
  return r.json();
}

async function caughtUp(api, timeoutMs = 60000) {
  const t0 = Date.now();
  for (;;) {
    const h = await health(api).catch(() => null);
    if (h && Object.values(h.indexes ?? {}).every((i) => i.head > 0 && i.applied >= i.head)) return h;
    if (Date.now() - t0 > timeoutMs) throw new Error(`not caught up: ${JSON.stringify(h)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// A body strict for the SDK's schema (unknown keys refused).
function strictly(schema, body, what) {
  const r = strict(schema).safeParse(body);
  if (!r.success) throw new Error(`${what}: not strict for the SDK: ${zodIssues(r.error)}\n${JSON.stringify(body).slice(0, 600)}`);
}

// The EVM txs of a devnet node's C-chain, from its C/block containers (not from its eth JSON-RPC):
// [{ number, index, ts, hash, from, to, value, gasPrice (the effective price) }] in chain order.
async function cchainTxs(nodeUrl) {
  const uint = (b) => (b.length ? BigInt('0x' + b.toString('hex')) : 0n);
  const out = [];
  for (const c of await readIndex(nodeUrl, 'C/block')) {
    const raw = Buffer.from(c.bytes.slice(2), 'hex');
    const blk = rlpDecode(unwrapProposervm(raw.subarray(0, raw.length - 4)).inner);
    const [header, txs] = blk;
    const number = Number(uint(header[8])), ts = Number(uint(header[11])), baseFee = uint(header[16]); // AP4's header: …, nonce, extDataHash, baseFee, …
    for (const [index, item] of txs.entries()) {
      // a legacy tx is an RLP list in the block, a typed one a string holding type ‖ RLP
      const serialized = Array.isArray(item) ? toRlp(item.map((b) => '0x' + b.toString('hex'))) : '0x' + item.toString('hex');
      const t = parseTransaction(serialized);
      // (viem leaves out a field whose RLP is empty: a zero)
      const tip = t.maxPriorityFeePerGas ?? 0n, cap = t.maxFeePerGas ?? 0n;
      const gasPrice = t.type === 'legacy' ? t.gasPrice ?? 0n : (baseFee + tip < cap ? baseFee + tip : cap);
      out.push({ number, index, ts, hash: keccak256(serialized), type: t.type, from: (await recoverTransactionAddress({ serializedTransaction: serialized })).toLowerCase(),
        to: t.to.toLowerCase(), value: t.value ?? 0n, gasPrice });
    }
  }
  return out;
}

function metric(text, name, labels = '') {
  const re = new RegExp(`^${name}${labels ? `\\{${labels}\\}` : '(\\{[^}]*\\})?'} (\\S+)$`, 'gm');
  return [...text.matchAll(re)].map((m) => Number(m[m.length - 1]));
}

test('up: examples that work, live lag under a second, SIGTERM, restart resumes', async (t) => {
  const dir = tempDir('snowline-up-'); dirs.push(dir);
  const [np, ap] = [await freePort(), await freePort()];
  const args = ['--data-dir', dir, '--http-port', String(np), '--api-port', String(ap),
    '--devnet-txs', '3000', '--devnet-interval-ms', '300', '--progress', 'log'];
  const up = await startUp(args);
  try {
    assert.match(up.out(), new RegExp(`a fuji devnet node on http://127.0.0.1:${np}`));
    // the three examples, run as printed
    const examplesOf = () => [...up.out().matchAll(/^ {2}curl '([^']+)'$/gm)].map((m) => m[1]);
    for (let i = 0; i < 50 && examplesOf().length < 3; i++) await new Promise((r) => setTimeout(r, 100));
    const examples = examplesOf();
    assert.equal(examples.length, 3, up.out());
    await caughtUp(up.api);
    for (const url of examples) {
      const r = await fetch(url);
      const body = await r.json();
      assert.equal(r.status, 200, `${url}: ${JSON.stringify(body)}`);
      assert.equal(body.chainInfo?.network, 'fuji', url);
      const items = body.balances ?? body.transactions ?? body.utxos;
      assert.ok(items && (Array.isArray(items) ? items.length : Object.values(items).some((v) => v.length)), `${url}: empty`);
    }
    // following the live devnet: the store's lag stays under a second (sampled for 4 s)
    let worst = 0, samples = 0;
    for (const end = Date.now() + 4000; Date.now() < end; samples++) {
      const m = await (await fetch(`${up.api}/metrics`)).text();
      const lags = metric(m, 'snowline_indexer_lag_seconds');
      assert.equal(lags.length, 5, 'a lag per index');
      worst = Math.max(worst, ...lags);
      await new Promise((r) => setTimeout(r, 150));
    }
    t.diagnostic(`worst lag over ${samples} samples: ${worst.toFixed(3)} s`);
    assert.ok(worst < 1, `lag ${worst} s`);
    const m = await (await fetch(`${up.api}/metrics`)).text();
    for (const name of ['snowline_http_connections_open', 'snowline_api_requests_total', 'process_resident_memory_bytes'])
      assert.ok(metric(m, name).length, `${name} in /metrics`);
  } finally {
    const r = await up.stop();
    assert.equal(r.code, 0, up.out());
    assert.match(up.out(), /snowline up: stopped/);
  }
  const before = await (async () => {
    const again = await startUp(args);
    try {
      assert.doesNotMatch(again.out(), /a new store/, 'a restart reuses the store');
      assert.doesNotMatch(again.out(), /genesis .* applied/, 'the genesis is applied once');
      return await caughtUp(again.api);
    } finally {
      const r = await again.stop();
      assert.equal(r.code, 0, again.out());
    }
  })();
  assert.ok(before.indexes['P/block'].applied > 0);
});

test('up --node: indexes a node started apart', async () => {
  const dir = tempDir('snowline-up-node-'); dirs.push(dir);
  const node = await startNode(['--devnet', '--index-enabled', '--network', 'fuji', '--devnet-txs', '1000',
    '--devnet-interval-ms', '0', '--data-dir', join(dir, 'dev')]);
  const ap = await freePort();
  const prices = join(dir, 'prices.csv');
  writeFileSync(prices, 'date,currency,price\n2024-01-01,usd,35.27\n2024-01-02,jpy,5000\n');
  const up = await startUp(['--node', node.url, '--genesis', join(dir, 'dev', 'devnet-genesis.json'),
    '--data-dir', join(dir, 'up'), '--api-port', String(ap), '--progress', 'off', '--prices', prices, '--compat', 'upstream'])
    .catch(async (e) => { await node.stop(); throw e; }); // the finally below stops it only once up runs
  try {
    assert.match(up.out(), new RegExp(`indexing ${node.url} \\(fuji\\)`));
    assert.match(up.out(), new RegExp(`snowline up: loaded 2 prices from ${prices}`));
    const d = spawnSync(BIN, ['dump', '--store', join(dir, 'up', 'index.db'), '--table', 'prices'], { encoding: 'utf8', timeout: 60000, killSignal: 'SIGKILL' });
    assert.equal(d.status, 0, d.stderr);
    assert.match(d.stdout, /^prices\t'jpy'\t1704153600\t'5000'\t1$/m);
    assert.match(d.stdout, /^prices\t'usd'\t1704067200\t'35\.27'\t1$/m);
    const h = await caughtUp(up.api);
    assert.equal(h.network, 'fuji');
    const r = await fetch(`${up.api}/v1/networks/fuji/blockchains/x-chain/vertices?pageSize=2`);
    assert.equal(r.status, 200);
    assert.equal((await r.json()).vertices.length, 2);
    // the node's C-chain, indexed over its eth JSON-RPC beside the primary network (docs/evm.md):
    // native balances at the head are the devnet manifest's, and at earlier blocks the node's own
    const manifest = JSON.parse(readFileSync(join(dir, 'dev', 'devnet-manifest.json'), 'utf8'));
    // the chain as up configured it, strict for the SDK, by EVM chain id and by blockchain id
    const cId = manifest.network.cChainId;
    const wantChain = { chainId: '43113', status: 'OK', chainName: 'C-Chain', description: 'The Contract Chain', platformChainId: cId,
      subnetId: '11111111111111111111111111111111LpoYY', vmName: 'EVM', rpcUrl: `${node.url}/ext/bc/C/rpc`, isTestnet: true,
      networkToken: { name: 'Avalanche', symbol: 'AVAX', decimals: 18 }, enabledFeatures: [] };
    const chains = await (await fetch(`${up.api}/v1/chains?network=fuji`)).json();
    strictly(C.DataListChainsResponse$inboundSchema, chains, '/v1/chains?network=fuji');
    assert.deepEqual(chains, { chains: [wantChain] });
    assert.deepEqual(await (await fetch(`${up.api}/v1/chains?network=local`)).json(), { chains: [] });
    for (const id of ['43113', cId]) {
      const one = await (await fetch(`${up.api}/v1/chains/${id}`)).json();
      strictly(C.GetChainResponse$inboundSchema, one, `/v1/chains/${id}`);
      assert.deepEqual(one, wantChain, id);
    }
    const head = manifest.C.blocks;
    const native = async (a, q = '') => {
      const r = await fetch(`${up.api}/v1/chains/43113/addresses/${a}/balances:getNative${q}`);
      return { status: r.status, body: await r.json() };
    };
    const [a0] = Object.keys(manifest.C.balances);
    for (let t0 = Date.now(); (await native(a0, `?blockNumber=${head}`)).status !== 200;) {
      assert.ok(Date.now() - t0 < 60000, 'the C-chain was not indexed to its head in 60 s');
      await new Promise((res) => setTimeout(res, 200));
    }
    for (const [a, bal] of Object.entries(manifest.C.balances)) {
      const { status, body } = await native(a);
      assert.equal(status, 200, JSON.stringify(body));
      strictly(C.GetNativeBalanceResponse$inboundSchema, body, `getNative of ${a}`);
      assert.equal(body.nativeTokenBalance.balance, BigInt(bal).toString(), `balance of ${a}`);
    }
    for (const h of [1, Math.floor(head / 3), Math.floor((2 * head) / 3), head]) {
      for (const a of Object.keys(manifest.C.balances).slice(0, 8)) {
        const want = await (await fetch(`${node.url}/ext/bc/C/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [a, '0x' + h.toString(16)] }) })).json();
        const { body } = await native(a, `?blockNumber=${h}`);
        assert.equal(body.nativeTokenBalance.balance, BigInt(want.result).toString(), `balance of ${a} at ${h}`);
      }
    }
    const beyond = await native(a0, `?blockNumber=${head + 1}`);
    assert.equal(beyond.status, 400);
    assert.match(beyond.body.message, /blockNumber/);
    // the C-chain's txs as indexed: EVM exports of every key of the C-chain's genesis (every EVM tx
    // is between two of them; 64 addresses an export at most) are, line for line, the txs of the
    // node's containers; as many as the manifest counts
    const txs = await cchainTxs(node.url);
    assert.equal(txs.filter((t) => t.type === 'legacy').length, manifest.C.evmTxs.legacy);
    assert.equal(txs.filter((t) => t.type === 'eip1559').length, manifest.C.evmTxs.dynamicFee);
    const keys = Object.keys(manifest.C.genesis).map((a) => a.toLowerCase());
    assert.ok(txs.every((t) => keys.includes(t.from) && keys.includes(t.to)), 'every EVM tx is between two devnet keys');
    const iso = (ts) => new Date(ts * 1000).toISOString().replace(/\.000Z$/, 'Z');
    const op = async (res, what) => {
      const body = JSON.parse(await res.text());
      strictly(C.OperationStatusResponse$inboundSchema, body, what);
      return body;
    };
    let exported = 0;
    for (let c = 0; c < keys.length; c += 64) {
      const part = keys.slice(c, c + 64);
      const want = txs.filter((t) => part.includes(t.from) || part.includes(t.to)).map((t) => [43113, t.number, t.index, t.ts, iso(t.ts), t.hash,
        t.from, t.to, t.value, 21000, t.gasPrice, 1, '', part.filter((k) => k === t.from || k === t.to).join(' ')].join(','));
      const posted = await fetch(`${up.api}/v1/operations/transactions:export`, { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'TRANSACTION_EXPORT_EVM', options: { addresses: part.map((k) => getAddress(k)), includeChains: ['43113'] } }) });
      assert.equal(posted.status, 201, 'compat upstream');
      let o = await op(posted, 'POST export');
      for (let t0 = Date.now(); o.operationStatus === 'RUNNING';) {
        assert.ok(Date.now() - t0 < 60000, 'the export did not end in 60 s');
        await new Promise((res) => setTimeout(res, 200));
        o = await op(await fetch(`${up.api}/v1/operations/${o.operationId}`), 'GET operation');
      }
      assert.equal(o.operationStatus, 'COMPLETED', JSON.stringify(o));
      const lines = (await (await fetch(o.metadata.downloadUrl)).text()).split('\n');
      assert.equal(lines.pop(), '');
      assert.equal(lines.shift(), 'chainId,blockNumber,txIndex,timestamp,date,txHash,from,to,value,gasUsed,gasPrice,status,contractAddress,addresses');
      const i = lines.findIndex((l, k) => l !== want[k]);
      assert.ok(lines.length === want.length && i < 0, `keys ${c}-: ${lines.length} lines, want ${want.length}; first difference at ${i}:\n got  ${lines[i]}\n want ${want[i]}`);
      exported += lines.length;
    }
    assert.ok(exported >= txs.length && txs.length > 50, `${txs.length} EVM txs, ${exported} lines`);
  } finally {
    const r = await up.stop();
    await node.stop(); // before the check: a failed one would leave the node running
    assert.equal(r.code, 0, up.out());
  }
});

test('up refuses: a bad option (exit 2), the API port taken (exit 1)', async () => {
  const bad = await run(['up', '--devnet-txs', 'many']);
  assert.equal(bad.code, 2, bad.out);
  assert.match(bad.out, /snowline up: .*devnet-txs/);
  const net = await run(['up', '--network', 'nowhere', '--data-dir', tempDir()]);
  assert.equal(net.code, 2, net.out);
  assert.match(net.out, /--network/);
  const pdir = tempDir('snowline-up-prices-'); dirs.push(pdir);
  const badPrices = join(pdir, 'prices.csv');
  writeFileSync(badPrices, '2024-01-01,usd,1\n2024-01-02,usd,one\n');
  const bp = await run(['up', '--data-dir', join(pdir, 'data'), '--http-port', String(await freePort()), '--api-port', String(await freePort()),
    '--devnet-txs', '200', '--devnet-interval-ms', '0', '--progress', 'off', '--prices', badPrices], 60000);
  assert.equal(bp.code, 1, bp.out);
  assert.match(bp.out, /snowline up: .*prices\.csv: line 2: price 'one'/);
  const help = await run(['up', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /--api-port/);

  const dir = tempDir('snowline-up-busy-'); dirs.push(dir);
  const busy = createServer();
  await new Promise((r) => busy.listen(0, '127.0.0.1', r));
  try {
    const r = await run(['up', '--data-dir', dir, '--http-port', String(await freePort()), '--api-port',
      String(busy.address().port), '--devnet-txs', '200', '--devnet-interval-ms', '0', '--progress', 'off'], 60000);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /Address already in use/);
  } finally {
    busy.close();
  }
});
