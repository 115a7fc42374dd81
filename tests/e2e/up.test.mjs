// `snowline up`, the main job: a fuji devnet node, the indexer and the Data API
// in one process. It prints where they listen and three example requests that
// work; the indexer follows the live devnet within a second (its /metrics say
// so); SIGTERM stops it cleanly and a restart resumes; --node indexes a node
// started apart (and --prices loads a file of prices into its store); a port
// taken, a bad option or a bad file of prices is refused with a reason.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { BIN, tempDir, cleanup, startNode } from './lib.mjs';

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
    const t = setTimeout(() => reject(new Error(`up did not start in ${timeoutMs} ms:\n${out}`)), timeoutMs);
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
    '--data-dir', join(dir, 'up'), '--api-port', String(ap), '--progress', 'off', '--prices', prices]);
  try {
    assert.match(up.out(), new RegExp(`indexing ${node.url} \\(fuji\\)`));
    assert.match(up.out(), new RegExp(`snowline up: loaded 2 prices from ${prices}`));
    const d = spawnSync(BIN, ['dump', '--store', join(dir, 'up', 'index.db'), '--table', 'prices'], { encoding: 'utf8' });
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
    const chains = await (await fetch(`${up.api}/v1/chains?network=fuji`)).json();
    assert.deepEqual(chains.chains.map((c) => [c.chainId, c.chainName, c.rpcUrl, c.isTestnet]),
      [['43113', 'C-Chain', `${node.url}/ext/bc/C/rpc`, true]]);
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
  } finally {
    assert.equal((await up.stop()).code, 0, up.out());
    await node.stop();
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
