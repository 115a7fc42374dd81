// Spec 001's "walk the X-chain history" recipe end to end with the real
// clients (index.getContainerByIndex on /ext/index/X/tx, then avm.getTx on the
// X-chain endpoint and its aliases), avm.getTx errors, the info service and
// the health endpoints. Contract: spec 001 §4.2, node-rpc.md §1.2, §6, §7.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createIndexApiClient, createXChainClient, createInfoApiClient, createHealthApiClient } from '@avalanche-sdk/client';
import { Avalanche } from 'avalanche';
import {
  startNode, startAll, writeClog, sha256, cb58, hexWithChecksum, tempDir, cleanup, postRaw, httpRaw, waitReady,
  errorBody, resultBody, BAD_ARGS,
} from './lib.mjs';

const X_ID = { 1: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM', 5: '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm', 12345: '2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed' };
const ZERO_ID = '11111111111111111111111111111111LpoYY';
const X_PATHS = (id) => ['/ext/bc/X', '/ext/X', '/ext/avm', '/ext/bc/avm', `/ext/bc/${id}`];

// Real X-chain transactions from the shared vectors, plus a few opaque ones.
const vectors = JSON.parse(readFileSync(new URL('../vectors/xchain-txs.json', import.meta.url), 'utf8'));
const realTxs = vectors.txs.filter((t) => t.kind === 'xchain.signed_tx').slice(0, 6);
const txs = [
  ...realTxs.map((t) => ({ kind: 'X/tx', bytes: Buffer.from(t.hex, 'hex'), txID: t.expected.txID, decoded: t.decoded })),
  ...Array.from({ length: 4 }, (_, i) => ({ kind: 'X/tx', bytes: Buffer.from(`opaque tx ${i}`) })),
];
const ts = 1617402840262979000n;
const dir = tempDir('snowline-e2e-avm-');
const clog = writeClog(join(dir, 'x.clog'), [
  ...txs.map((t) => ({ ...t, ts })),
  { kind: 'X/block', bytes: Buffer.from('an X block, not a tx'), ts },
  { kind: 'P/block', bytes: Buffer.from('a P block'), ts },
]);
const idOf = (t) => cb58(sha256(t.bytes));

let N;  // mainnet ids, import done
let F;  // --network-id 5
let L;  // --network-id 12345
let Q;  // --network-id 99 with explicit chain ids
let S;  // following an upstream that fails until released: still bootstrapping when first asked
let upstream, releaseUpstream = false;
before(async () => {
  // The upstream answers 500 until the test releases it, then "nothing accepted yet": S
  // bootstraps exactly when the test says so (a slow import raced the machine's speed).
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (!releaseUpstream) { res.writeHead(500); res.end('not yet'); return; }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"no containers have been accepted","data":null},"id":1}');
    });
  });
  await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
  S = await startNode(['--index-enabled', '--follow', `http://127.0.0.1:${upstream.address().port}`, '--follow-poll-ms', '50', '--data-dir', join(dir, 's')]);
  const qx = cb58(sha256(Buffer.from('x chain of network 99')));
  const qc = cb58(sha256(Buffer.from('c chain of network 99')));
  [N, F, L, Q] = await startAll([
    startNode(['--index-enabled', '--import', clog, '--data-dir', join(dir, 'n')], { env: { TZ: 'UTC' } }),
    startNode(['--index-enabled', '--import', clog, '--data-dir', join(dir, 'f'), '--network-id', '5']),
    startNode(['--data-dir', join(dir, 'l'), '--network-id', '12345']),
    startNode(['--data-dir', join(dir, 'q'), '--network-id', '99', '--x-chain-id', qx, '--c-chain-id', qc]),
  ]);
  Q.xid = qx;
  await Promise.all([N, F, L, Q].map((n) => waitReady(n.url)));
});
after(async () => {
  await Promise.all([N, F, L, Q, S].filter(Boolean).map((n) => n.stop()));
  upstream?.close();
  upstream?.closeAllConnections(); // a kept-alive connection would hold close() open
  cleanup(dir);
});

const rpcBody = (method, params, id = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
async function call(node, path, method, params) {
  const r = await postRaw(node.port, path, rpcBody(method, params));
  assert.equal(r.status, 200, `${path} ${method}: HTTP ${r.status} ${r.text}`);
  return r;
}

describe('walk the X-chain history (spec 001 §4.2 recipe)', () => {
  test('sanity: the vector transactions have id = sha256(bytes)', () => {
    for (const t of txs.filter((x) => x.txID)) assert.equal(idOf(t), t.txID);
  });
  test('@avalanche-sdk/client: getContainerByIndex 0..n on X/tx, then avm.getTx on every X-chain path', async () => {
    const ix = createIndexApiClient({ transport: { type: 'http', url: N.url + '/ext/index/X/tx', config: { retryCount: 0 } }, clientType: 'indexXChainTx' });
    const walked = [];
    for (let i = 0; ; i++) {
      let c;
      try { c = await ix.getContainerByIndex({ index: i, encoding: 'hex' }); } catch (e) {
        assert.equal(e.details, `no container at index ${i}`);
        break;
      }
      assert.equal(c.index, String(i));
      walked.push(c);
    }
    assert.equal(walked.length, txs.length);
    for (const p of X_PATHS(X_ID[1])) {
      const x = createXChainClient({ transport: { type: 'http', url: N.url + p, config: { retryCount: 0 } } });
      for (const [i, c] of walked.entries()) {
        assert.equal(c.id, idOf(txs[i]));
        const got = await x.getTx({ txID: c.id, encoding: 'hex' });
        assert.deepEqual(got, { tx: c.bytes, encoding: 'hex' }, `${p} tx ${i}`);
        assert.equal(got.tx, hexWithChecksum(txs[i].bytes));
      }
    }
  });
  test('avalanche.js v3: Index API walk, XChain().getTx on every X-chain path', async () => {
    const av = new Avalanche('127.0.0.1', N.port, 'http');
    const ix = av.Index();
    const xc = av.XChain();
    for (const p of X_PATHS(X_ID[1])) {
      xc.setBaseURL(p);
      for (let i = 0; i < txs.length; i++) {
        const c = await ix.getContainerByIndex(String(i), 'hex', '/ext/index/X/tx');
        assert.equal(await xc.getTx(c.id, 'hex'), c.bytes, `${p} tx ${i}`);
      }
    }
  });
  test('avm.getTx exact bytes: hex, hexc, hexnc (encoding echoed), default hex', async () => {
    const t = txs[txs.length - 1];
    const hex = hexWithChecksum(t.bytes);
    const nc = '0x' + t.bytes.toString('hex');
    assert.equal((await call(N, '/ext/bc/X', 'avm.getTx', { txID: idOf(t), encoding: 'hex' })).text, resultBody(`{"tx":"${hex}","encoding":"hex"}`));
    assert.equal((await call(N, '/ext/bc/X', 'avm.getTx', { txID: idOf(t), encoding: 'hexc' })).text, resultBody(`{"tx":"${hex}","encoding":"hexc"}`));
    assert.equal((await call(N, '/ext/bc/X', 'avm.getTx', { txID: idOf(t), encoding: 'hexnc' })).text, resultBody(`{"tx":"${nc}","encoding":"hexnc"}`));
    assert.equal((await call(N, '/ext/bc/X', 'avm.getTx', { txID: idOf(t), encoding: 'HexNC' })).text, resultBody(`{"tx":"${nc}","encoding":"hexnc"}`));
    assert.equal((await call(N, '/ext/bc/X', 'avm.getTx', { txID: idOf(t) })).text, resultBody(`{"tx":"${hex}","encoding":"hex"}`));
  });
  test('avm.getTx json: the decoded transaction object (node-rpc.md §6)', async () => {
    const t = txs[0];
    const r = JSON.parse((await call(N, '/ext/bc/X', 'avm.getTx', { txID: t.txID, encoding: 'json' })).text);
    assert.equal(r.error, undefined, `json encoding: ${JSON.stringify(r.error)}`);
    assert.equal(r.result.encoding, 'json');
    assert.equal(typeof r.result.tx, 'object');
    assert.equal(r.result.tx.id, t.txID);
    assert.equal(r.result.tx.unsignedTx.networkID, t.decoded.unsignedTx.networkID);
    assert.equal(r.result.tx.unsignedTx.blockchainID, t.decoded.unsignedTx.blockchainID);
    assert.equal(r.result.tx.unsignedTx.memo, t.decoded.unsignedTx.memo);
    assert.deepEqual(r.result.tx.credentials, []);
  });
  test('avm.getTx errors: nil transaction ID, not found, invalid-arg; zero id checked first, lookup before encoding', async () => {
    for (const params of [{}, { txID: null }, { txID: ZERO_ID }, { txID: ZERO_ID, encoding: 'json' }, null]) {
      assert.equal((await call(N, '/ext/bc/X', 'avm.getTx', params)).text, errorBody('nil transaction ID'), JSON.stringify(params));
    }
    const unknown = cb58(sha256(Buffer.from('not a tx here')));
    assert.equal((await call(N, '/ext/bc/X', 'avm.getTx', { txID: unknown })).text, errorBody('not found'));
    assert.equal((await call(N, '/ext/bc/X', 'avm.getTx', { txID: unknown, encoding: 'json' })).text, errorBody('not found'));
    // Containers of other indexes are not transactions.
    assert.equal((await call(N, '/ext/X', 'avm.getTx', { txID: cb58(sha256(Buffer.from('an X block, not a tx'))) })).text, errorBody('not found'));
    for (const params of [{ txID: idOf(txs[0]), encoding: 'base58' }, { txID: idOf(txs[0]), encoding: '' }, { txID: 5, encoding: 'hex' },
      { txID: 'nope', encoding: 'hex' }, { txID: hexWithChecksum(sha256(txs[0].bytes)), encoding: 'hex' }, { txID: ZERO_ID, encoding: 'cb58' }]) {
      assert.equal((await call(N, '/ext/bc/X', 'avm.getTx', params)).text, errorBody(BAD_ARGS), JSON.stringify(params));
    }
    const x = createXChainClient({ transport: { type: 'http', url: N.url + '/ext/bc/X', config: { retryCount: 0 } } });
    await assert.rejects(x.getTx({ txID: unknown, encoding: 'hex' }), (e) => e.details === 'not found');
    await assert.rejects(x.getTx({ txID: ZERO_ID, encoding: 'hex' }), (e) => e.details === 'nil transaction ID');
    await assert.rejects(new Avalanche('127.0.0.1', N.port, 'http').XChain().getTx(unknown), { message: 'not found' });
  });
  test('the X-chain route of another network is its own id; mainnet ids do not route there', async () => {
    const t = txs[1];
    for (const p of X_PATHS(X_ID[5])) {
      assert.equal((await call(F, p, 'avm.getTx', { txID: idOf(t), encoding: 'hex' })).text, resultBody(`{"tx":"${hexWithChecksum(t.bytes)}","encoding":"hex"}`), p);
    }
    const r = await postRaw(F.port, `/ext/bc/${X_ID[1]}`, rpcBody('avm.getTx', { txID: idOf(t) }));
    assert.equal(r.status, 404);
    const q = await postRaw(Q.port, `/ext/bc/${Q.xid}`, rpcBody('avm.getTx', { txID: ZERO_ID }));
    assert.equal(q.text, errorBody('nil transaction ID'));
  });
});

describe('chain routes during bootstrap (node-rpc.md §1.2)', () => {
  test('/ext/bc/X answers 503 until the source has caught up; index and health answer meanwhile', async () => {
    // S follows an upstream that has not let it catch up yet.
    const ready = await fetch(S.url + '/ext/health/readiness');
    const report = await ready.json();
    assert.equal(ready.status, 503, 'readiness is 503 while importing');
    assert.equal(report.healthy, false);
    assert.equal(typeof report.checks.bootstrapped.error, 'string');
    const r = await postRaw(S.port, '/ext/bc/X', rpcBody('avm.getTx', { txID: ZERO_ID }));
    assert.equal(r.status, 503);
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(r.text, 'API call rejected because chain is not done bootstrapping\n');
    for (const p of ['/ext/X', '/ext/avm', '/ext/bc/avm', `/ext/bc/${X_ID[1]}`]) {
      assert.equal((await postRaw(S.port, p, rpcBody('avm.getTx', { txID: ZERO_ID }))).status, 503, p);
    }
    const idx = await postRaw(S.port, '/ext/index/X/tx', rpcBody('index.getContainerByIndex', { index: '0' }));
    assert.equal(idx.status, 200);
    assert.equal(JSON.parse(idx.text).jsonrpc, '2.0');
    const hp = await postRaw(S.port, '/ext/health', rpcBody('health.readiness', {}));
    assert.equal(hp.status, 200, 'POST health is always 200');
    assert.equal(JSON.parse(hp.text).result.healthy, false);
    releaseUpstream = true;
    await waitReady(S.url, 120000);
    assert.equal((await postRaw(S.port, '/ext/bc/X', rpcBody('avm.getTx', { txID: ZERO_ID }))).text, errorBody('nil transaction ID'));
    const done = await (await fetch(S.url + '/ext/health/readiness')).json();
    assert.deepEqual(done.checks.bootstrapped.message, []);
  });
});

describe('info (node-rpc.md §7.1)', () => {
  test('getNodeVersion: key order and types', async () => {
    const r = await call(N, '/ext/info', 'info.getNodeVersion', {});
    const v = JSON.parse(r.text).result;
    assert.deepEqual(Object.keys(v), ['version', 'databaseVersion', 'rpcProtocolVersion', 'gitCommit', 'vmVersions']);
    assert.match(v.version, /^[a-z]+\/\d+\.\d+\.\d+/);
    assert.equal(typeof v.databaseVersion, 'string');
    assert.match(v.rpcProtocolVersion, /^\d+$/, 'rpcProtocolVersion is a decimal string');
    assert.equal(typeof v.gitCommit, 'string');
    assert.deepEqual(Object.keys(v.vmVersions), ['avm', 'evm', 'platform']);
    const info = createInfoApiClient({ transport: { type: 'http', url: N.url + '/ext/info', config: { retryCount: 0 } } });
    assert.deepEqual(await info.getNodeVersion(), v);
    assert.equal(await new Avalanche('127.0.0.1', N.port, 'http').Info().getNodeVersion(), v.version);
  });
  test('getNetworkID (a decimal string) and getNetworkName', async () => {
    const cases = [[N, '1', 'mainnet'], [F, '5', 'fuji'], [L, '12345', 'local'], [Q, '99', 'network-99']];
    for (const [node, id, name] of cases) {
      assert.equal((await call(node, '/ext/info', 'info.getNetworkID', {})).text, resultBody(`{"networkID":"${id}"}`));
      assert.equal((await call(node, '/ext/info', 'info.getNetworkName', {})).text, resultBody(`{"networkName":"${name}"}`));
      const info = createInfoApiClient({ transport: { type: 'http', url: node.url + '/ext/info', config: { retryCount: 0 } } });
      assert.deepEqual(await info.getNetworkID(), { networkID: id });
      assert.deepEqual(await info.getNetworkName(), { networkName: name });
      const av = new Avalanche('127.0.0.1', node.port, 'http').Info();
      assert.equal(String(await av.getNetworkID()), id);
      assert.equal(await av.getNetworkName(), name);
    }
  });
});

describe('health (node-rpc.md §7.2)', () => {
  const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/;
  function checkReport(j, { healthy = true } = {}) {
    assert.deepEqual(Object.keys(j), ['checks', 'healthy']);
    assert.equal(j.healthy, healthy);
    const names = Object.keys(j.checks);
    assert.deepEqual(names, [...names].sort(), 'check names sorted');
    for (const [name, res] of Object.entries(j.checks)) {
      assert.match(res.timestamp, RFC3339, name);
      assert.ok(Number.isInteger(res.duration) && res.duration >= 0, `${name} duration`);
      for (const k of Object.keys(res)) assert.ok(['message', 'error', 'timestamp', 'duration', 'contiguousFailures', 'timeOfFirstFailure'].includes(k), `${name}.${k}`);
      if (healthy) assert.equal(res.error, undefined, name);
    }
  }
  test('GET /ext/health, /health, /readiness, /liveness: 200, application/json, body ending in \\n', async () => {
    for (const p of ['/ext/health', '/ext/health/health', '/ext/health/readiness', '/ext/health/liveness']) {
      const r = await httpRaw(N.port, { method: 'GET', path: p });
      assert.equal(r.status, 200, p);
      assert.equal(r.headers['content-type'], 'application/json', p);
      assert.ok(r.text.endsWith('}\n'), p);
      checkReport(JSON.parse(r.text));
    }
    const ready = JSON.parse((await httpRaw(N.port, { method: 'GET', path: '/ext/health/readiness' })).text);
    assert.deepEqual(ready.checks.bootstrapped.message, []);
    const all = JSON.parse((await httpRaw(N.port, { method: 'GET', path: '/ext/health' })).text);
    assert.ok(all.checks.bootstrapped, 'the full report includes bootstrapped');
    const live = JSON.parse((await httpRaw(N.port, { method: 'GET', path: '/ext/health/liveness' })).text);
    assert.equal(live.checks.bootstrapped, undefined, 'liveness does not wait for bootstrapping');
  });
  test('the sub-paths answer the report for any method; /ext/health itself is JSON-RPC for non-GET', async () => {
    for (const m of ['POST', 'PUT', 'DELETE']) {
      const r = await httpRaw(N.port, { method: m, path: '/ext/health/readiness', headers: { 'Content-Type': 'text/plain' }, body: 'x' });
      assert.equal(r.status, 200, m);
      assert.equal(r.headers['content-type'], 'application/json', m);
      checkReport(JSON.parse(r.text));
    }
    const head = await httpRaw(N.port, { method: 'HEAD', path: '/ext/health' });
    assert.equal(head.status, 405);
    const put = await httpRaw(N.port, { method: 'PUT', path: '/ext/health' });
    assert.equal(put.status, 405);
    assert.equal(put.text, 'rpc: POST method required, received PUT');
  });
  test('POST health.health / readiness / liveness: the same report as a JSON-RPC result', async () => {
    for (const m of ['health.health', 'health.readiness', 'health.liveness']) {
      const r = await call(N, '/ext/health', m, {});
      assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
      checkReport(JSON.parse(r.text).result);
      checkReport(JSON.parse((await call(N, '/ext/health', m, { tags: ['11111111111111111111111111111111LpoYY'] })).text).result);
    }
    assert.equal((await call(N, '/ext/health', 'health.health', { tags: 'x' })).text, errorBody(BAD_ARGS));
    assert.equal((await call(N, '/ext/health', 'health.health', { tags: [1] })).text, errorBody(BAD_ARGS));
    assert.equal((await call(N, '/ext/health', 'health.getLiveness', {})).text, errorBody('rpc: can\'t find method "health.GetLiveness"'));
  });
  test('the clients: @avalanche-sdk/client health/readiness/liveness, avalanche.js Health().health()', async () => {
    const h = createHealthApiClient({ transport: { type: 'http', url: N.url + '/ext/health', config: { retryCount: 0 } } });
    checkReport(await h.health({}));
    checkReport(await h.readiness({}));
    checkReport(await h.liveness({}));
    checkReport(await new Avalanche('127.0.0.1', N.port, 'http').Health().health());
  });
});
