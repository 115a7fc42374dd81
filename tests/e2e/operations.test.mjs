// What an operator meets running the node: one process per data directory, the build's
// version, config-file errors, Prometheus metrics at /ext/metrics, the loggers, and an admin
// interface that costs nothing until a profile is asked for (docs/operations.md, docs/node.md).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, BIN_RELEASE, startNode, runNode, rpc, post, writeClog, randomContainers, tempDir, cleanup } from './lib.mjs';
import { waitFor, getStatus } from './store-lib.mjs';

const dirs = [];
const dir = (p) => { const d = tempDir(p); dirs.push(d); return d; };
after(() => dirs.forEach(cleanup));

describe('one process per data directory', () => {
  test('a second node on the same --data-dir refuses to start, naming the directory and the holder', async () => {
    const d = dir('snowline-lock-');
    const a = await startNode(['--index-enabled', '--data-dir', d]);
    try {
      const b = await runNode(['--index-enabled', '--data-dir', d]);
      assert.equal(b.code, 1, b.out);
      assert.match(b.out, new RegExp(`the data directory ${d} is in use by another snowline process \\(pid ${a.proc.pid}\\)`));
      const r = await rpc(`${a.url}/ext/info`, 'info.getNodeID');
      assert.ok(r.result.nodeID, 'the first node still serves');
    } finally { await a.stop(); }
    // once the first has stopped, the directory is free again (the lock dies with its process)
    const c = await startNode(['--index-enabled', '--data-dir', d]);
    assert.deepEqual(await c.kill9(), { code: null, sig: 'SIGKILL' });
    const e = await startNode(['--index-enabled', '--data-dir', d]);
    await e.stop();
  });

  test('two devnets on one --data-dir: the second refuses', async () => {
    const d = dir('snowline-lock-devnet-');
    const a = spawnDevnet(d);
    try {
      await waitFor(async () => existsSync(join(d, 'LOCK')) && a.out().includes('listening'), { what: () => a.out() });
      const b = spawnSync(BIN, ['devnet', '--data-dir', d, '--http-port', '0', '--devnet-txs', '200'], { encoding: 'utf8', timeout: 30000 });
      assert.equal(b.status, 1, b.stderr);
      assert.match(b.stderr, /is in use by another snowline process/);
    } finally {
      a.proc.kill('SIGTERM');
      const k = setTimeout(() => a.proc.kill('SIGKILL'), 30000); // a devnet stuck in its exit does not hang the file
      await a.exited;
      clearTimeout(k);
    }
  });
});

function spawnDevnet(d) {
  const proc = spawn(BIN, ['devnet', '--data-dir', d, '--http-port', '0', '--devnet-txs', '200', '--devnet-interval-ms', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (c) => { out += c; });
  proc.stderr.on('data', (c) => { out += c; });
  return { proc, out: () => out, exited: new Promise((r) => proc.on('exit', r)) };
}

describe('version and configuration', () => {
  test('snowline --version names the commit, and info.getNodeVersion carries it as gitCommit', async () => {
    const v = spawnSync(BIN, ['--version'], { encoding: 'utf8', timeout: 20000, killSignal: 'SIGKILL' });
    assert.equal(v.status, 0);
    const m = /^snowline (\d+\.\d+\.\d+) ([0-9a-f]{40}(-dirty)?)\n$/.exec(v.stdout);
    assert.ok(m, v.stdout);
    const n = await startNode([]);
    try {
      const r = await rpc(`${n.url}/ext/info`, 'info.getNodeVersion');
      assert.equal(r.result.gitCommit, m[2]);
      assert.equal(r.result.version, `snowline/${m[1]}`);
    } finally { await n.stop(); }
  });

  test('config-file errors say what is wrong and where, without a line number that is not one', async () => {
    const d = dir('snowline-cfg-');
    const missing = await runNode(['--config-file', join(d, 'nope.json')]);
    assert.equal(missing.code, 2);
    assert.match(missing.out, /config file .*nope\.json: unable to open .*No such file or directory/);
    assert.doesNotMatch(missing.out, /line -1/);
    writeFileSync(join(d, 'bad.json'), '{"http-port": 1,}');
    const bad = await runNode(['--config-file', join(d, 'bad.json')]);
    assert.equal(bad.code, 2);
    assert.match(bad.out, /bad\.json: .* \(line 1, column \d+\)/);
    writeFileSync(join(d, 'unknown.json'), '{"http-prot": 1}');
    const unknown = await runNode(['--config-file', join(d, 'unknown.json')]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.out, /unknown option 'http-prot'/);
  });
});

// Prometheus text format: `name{labels} value` lines; returns a map name → [{labels, value}].
function parseMetrics(text) {
  const out = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not an exposition line: ${line}`);
    const labels = {};
    if (m[3]) for (const kv of m[3].match(/[a-zA-Z_]+="(?:[^"\\]|\\.)*"/g)) { const i = kv.indexOf('='); labels[kv.slice(0, i)] = JSON.parse(kv.slice(i + 1)); }
    if (!out.has(m[1])) out.set(m[1], []);
    out.get(m[1]).push({ labels, value: Number(m[4]) });
  }
  return out;
}
const sample = (ms, name, labels = {}) => (ms.get(name) || []).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));

describe('metrics at /ext/metrics', () => {
  test('requests and latency per route and method, containers per index, the source, connections and memory', async () => {
    const d = dir('snowline-metrics-');
    const log = writeClog(join(d, 'in.clog'), [...randomContainers('P/block', 7), ...randomContainers('X/tx', 3)]);
    const n = await startNode(['--index-enabled', '--data-dir', join(d, 'n'), '--import', log]);
    try {
      await waitFor(async () => (await getStatus(`${n.url}/ext/health`)).status === 200, { what: () => n.logs() });
      for (let i = 0; i < 3; i++) await rpc(`${n.url}/ext/info`, 'info.getNodeID');
      await rpc(`${n.url}/ext/index/P/block`, 'index.getLastAccepted', { encoding: 'hex' });
      await post(`${n.url}/nowhere`, '{}');
      const r = await fetch(`${n.url}/ext/metrics`);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
      const ms = parseMetrics(await r.text());
      assert.equal(sample(ms, 'snowline_http_requests_total', { route: 'info', method: 'POST', code: '200' }).value, 3);
      assert.equal(sample(ms, 'snowline_http_requests_total', { route: 'index/P/block', method: 'POST', code: '200' }).value, 1);
      assert.equal(sample(ms, 'snowline_http_requests_total', { route: 'notfound', method: 'POST', code: '404' }).value, 1);
      assert.equal(sample(ms, 'snowline_http_request_duration_seconds_count', { route: 'info', method: 'POST' }).value, 3);
      assert.equal(sample(ms, 'snowline_http_request_duration_seconds_bucket', { route: 'info', method: 'POST', le: '+Inf' }).value, 3);
      assert.equal(sample(ms, 'snowline_index_containers', { index: 'P/block' }).value, 7);
      assert.equal(sample(ms, 'snowline_index_containers', { index: 'X/tx' }).value, 3);
      assert.equal(sample(ms, 'snowline_index_appended_total', { index: 'P/block' }).value, 7);
      assert.equal(sample(ms, 'snowline_source_info', { source: 'import' }).value, 1);
      assert.equal(sample(ms, 'snowline_source_caught_up').value, 1);
      assert.equal(sample(ms, 'snowline_source_healthy').value, 1);
      assert.ok(sample(ms, 'snowline_source_lag_seconds').value >= 0);
      assert.ok(sample(ms, 'process_resident_memory_bytes').value > 0);
      assert.ok(sample(ms, 'process_open_fds').value > 0);
      assert.equal((await fetch(`${n.url}/ext/metrics`, { method: 'POST', body: '{}' })).status, 405);
    } finally { await n.stop(); }
  });
});

describe('loggers', () => {
  test('each container at debug on its chain logger; the indexes at info', async () => {
    const d = dir('snowline-logs-');
    const log = writeClog(join(d, 'in.clog'), [...randomContainers('P/block', 2), ...randomContainers('X/vtx', 1), ...randomContainers('C/block', 1)]);
    const n = await startNode(['--index-enabled', '--data-dir', join(d, 'n'), '--import', log, '--log-level', 'debug', '--log-display-level', 'info']);
    try {
      await waitFor(async () => (await getStatus(`${n.url}/ext/health`)).status === 200, { what: () => n.logs() });
      const logs = join(d, 'n', 'logs');
      await waitFor(async () => existsSync(join(logs, 'P.log')) && /P\/block 1: /.test(readFileSync(join(logs, 'P.log'), 'utf8')), { what: () => readdirSync(logs).join(' ') });
      assert.match(readFileSync(join(logs, 'P.log'), 'utf8'), /DEBUG P\/block 0: \w{40,} \(201 bytes\)/);
      assert.match(readFileSync(join(logs, 'X.log'), 'utf8'), /X\/vtx 0: /);
      assert.match(readFileSync(join(logs, 'C.log'), 'utf8'), /C\/block 0: /);
      assert.match(n.logs(), /INFO index: indexes at start: P\/block 0 \(\+0\)/);
      assert.doesNotMatch(n.logs(), /DEBUG/, 'the display level keeps debug lines off standard error');
    } finally { await n.stop(); }
  });
});

describe('admin costs nothing until a profile is asked for', () => {
  test('release binary: no heap dumps under load with --api-admin-enabled; memoryProfile still writes a heap profile', { timeout: 120000 }, async () => {
    const d = dir('snowline-admin-cost-');
    const prof = join(d, 'prof');
    // ~1,000 containers of 16 KiB: every 1024-range answer allocates ~33 MB (hex + JSON)
    const log = writeClog(join(d, 'in.clog'), randomContainers('X/tx', 1000, 16384));
    const n = await startNode(['--index-enabled', '--api-admin-enabled', '--data-dir', join(d, 'n'), '--profile-dir', prof, '--import', log], { bin: BIN_RELEASE });
    try {
      await waitFor(async () => (await getStatus(`${n.url}/ext/health`)).status === 200, { what: () => n.logs() });
      // 2.2 GB allocated: tcmalloc's always-on heap profiler dumped a .heap file per ~1 GB of it
      for (let i = 0; i < 70; i++) {
        const r = await rpc(`${n.url}/ext/index/X/tx`, 'index.getContainerRange', { startIndex: 0, numToFetch: 1000, encoding: 'hex' });
        assert.equal(r.result.length, 1000);
      }
      const files = existsSync(prof) ? readdirSync(prof) : [];
      assert.deepEqual(files.filter((f) => /heap/.test(f)), [], 'no heap profiler running, so no dumps');
      const t0 = Date.now();
      assert.deepEqual((await rpc(`${n.url}/ext/admin`, 'admin.memoryProfile')).result, {});
      assert.ok(Date.now() - t0 >= 1900, 'the profile records a 2 s window');
      assert.match(readFileSync(join(prof, 'mem.profile'), 'utf8'), /^heap profile: /);
      assert.deepEqual(readdirSync(prof).filter((f) => /heap/.test(f)), [], 'the window leaves no dump files');
    } finally { await n.stop(); }
  });
});
