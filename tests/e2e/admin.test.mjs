// The admin API (/ext/admin, only with --api-admin-enabled) end to end with
// @avalanche-sdk/client (every admin method it has), avalanche.js v3's Admin
// API and raw POSTs for exact bytes. Contract: spec 001 §4.1 and node-rpc.md §5.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { existsSync, mkdirSync, writeFileSync, copyFileSync, rmSync, statSync, readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createAdminApiClient } from '@avalanche-sdk/client';
import { Avalanche } from 'avalanche';
import {
  startNode, startAll, writeClog, sha256, cb58, hexWithChecksum, tempDir, cleanup, postRaw, waitReady,
  errorBody, resultBody, BAD_ARGS, BIN_RELEASE,
} from './lib.mjs';

const X_ID = '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM';
const P_ID = '11111111111111111111111111111111LpoYY';
const C_ID = '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5';
const PLUGIN_ID = 'tGas3T58KzdjcJ2iKSyiYsWiqYctRXaPTqBCA11BqEkNg8kPc';
const PLUGIN_SO = new URL(`../../build/plugins/${PLUGIN_ID}.so`, import.meta.url).pathname;

const dir = tempDir('snowline-e2e-admin-');
const txs = Array.from({ length: 3 }, (_, i) => ({ kind: 'X/tx', bytes: Buffer.from(`admin test tx ${i}`) }));
const clog = writeClog(join(dir, 'x.clog'), txs);
const profDir = join(dir, 'prof', 'nested'); // created on demand by the node
const pluginDir = join(dir, 'plugins');      // created by the tests
const relProfDir = join(dir, 'relprof');

let N;  // spec mode, admin on
let U;  // --compat upstream, admin on
let R;  // the release binary, admin on
let O;  // admin off
before(async () => {
  [N, U, R, O] = await startAll([
    startNode(['--api-admin-enabled', '--index-enabled', '--import', clog, '--data-dir', join(dir, 'n'),
      '--profile-dir', profDir, '--plugin-dir', pluginDir], { env: { TZ: 'UTC' } }),
    startNode(['--api-admin-enabled', '--data-dir', join(dir, 'u'), '--compat', 'upstream']),
    startNode(['--api-admin-enabled', '--data-dir', join(dir, 'r'), '--profile-dir', relProfDir], { bin: BIN_RELEASE }),
    startNode(['--data-dir', join(dir, 'o')]),
  ]);
  await Promise.all([N, U, R, O].map((n) => waitReady(n.url)));
});
after(async () => {
  await Promise.all([N, U, R, O].filter(Boolean).map((n) => n.stop()));
  cleanup(dir);
});

const sdk = (node) => createAdminApiClient({ transport: { type: 'http', url: node.url + '/ext/admin', config: { retryCount: 0 } } });
const avajs = (node) => new Avalanche('127.0.0.1', node.port, 'http').Admin();
async function call(node, method, params, path = '/ext/admin') {
  const r = await postRaw(node.port, path, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  assert.equal(r.status, 200, `${method}: HTTP ${r.status} ${r.text}`);
  assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
  return r;
}
async function expectError(node, method, params, message) {
  assert.equal((await call(node, method, params)).text, errorBody(message), `${method} ${JSON.stringify(params)}`);
}
async function expectResult(node, method, params, resultJson) {
  assert.equal((await call(node, method, params)).text, resultBody(resultJson), `${method} ${JSON.stringify(params)}`);
}
const rejectsWith = (p, message) => assert.rejects(p, (e) => (e.details ?? e.message) === message || assert.fail(`got ${e.details ?? e.message}`));
async function getTx(node, path, txID) {
  const r = await postRaw(node.port, path, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'avm.getTx', params: { txID, encoding: 'hex' } }));
  return r;
}
const txOk = (i) => resultBody(`{"tx":"${hexWithChecksum(txs[i].bytes)}","encoding":"hex"}`);

describe('/ext/admin is off by default', () => {
  test('404 without --api-admin-enabled, for every method and for the clients', async () => {
    for (const m of ['admin.alias', 'admin.loadVMs', 'admin.getLoggerLevel']) {
      const r = await postRaw(O.port, '/ext/admin', JSON.stringify({ jsonrpc: '2.0', id: 1, method: m, params: {} }));
      assert.equal(r.status, 404);
      assert.equal(r.text, '404 page not found\n');
    }
    await assert.rejects(sdk(O).getLoggerLevel({}));
    await assert.rejects(avajs(O).getLoggerLevel());
  });
});

describe('admin.alias', () => {
  test('an alias serves the API at /ext/<alias>; the original keeps working', async () => {
    assert.deepEqual(await sdk(N).alias({ endpoint: 'info', alias: 'myinfo' }), {});
    const body = '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkName","params":{}}';
    assert.equal((await postRaw(N.port, '/ext/myinfo', body)).text, resultBody('{"networkName":"mainnet"}'));
    assert.equal((await postRaw(N.port, '/ext/info', body)).text, resultBody('{"networkName":"mainnet"}'));
    assert.deepEqual(await avajs(N).alias('info', 'myinfo2'), {});
    assert.equal((await postRaw(N.port, '/ext/myinfo2', body)).text, resultBody('{"networkName":"mainnet"}'));
    await expectResult(N, 'admin.alias', { endpoint: 'health', alias: 'hc' }, '{}');
    const h = await fetch(N.url + '/ext/hc/liveness');
    assert.equal(h.status, 200, 'sub-routes of the base are aliased too');
  });
  test('an alias of bc/X serves avm.getTx at /ext/<alias>', async () => {
    await expectResult(N, 'admin.alias', { endpoint: 'bc/X', alias: 'myx' }, '{}');
    assert.equal((await getTx(N, '/ext/myx', cb58(sha256(txs[0].bytes)))).text, txOk(0));
  });
  test('alias length: 512 bytes allowed, 513 is too long (bytes, not characters)', async () => {
    const a512 = 'a'.repeat(512);
    await expectResult(N, 'admin.alias', { endpoint: 'info', alias: a512 }, '{}');
    const r = await postRaw(N.port, `/ext/${a512}`, '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}');
    assert.equal(r.text, resultBody('{"networkID":"1"}'));
    await expectError(N, 'admin.alias', { endpoint: 'info', alias: 'a'.repeat(513) }, 'alias length is too long');
    await expectError(N, 'admin.alias', { endpoint: 'info', alias: 'é'.repeat(257) }, 'alias length is too long');
    await rejectsWith(sdk(N).alias({ endpoint: 'info', alias: 'b'.repeat(600) }), 'alias length is too long');
  });
  test('reserved aliases: the genesis API aliases and aliases used before', async () => {
    for (const a of ['X', 'avm', 'bc/X', 'bc/avm', 'P', 'platform', 'bc/P', 'bc/platform', 'C', 'evm', 'bc/C', 'bc/evm', 'myinfo']) {
      await expectError(N, 'admin.alias', { endpoint: 'info', alias: a }, `route is either already aliased or already maps to a handle: /ext/${a}`);
    }
    await rejectsWith(sdk(N).alias({ endpoint: 'info', alias: 'X' }), 'route is either already aliased or already maps to a handle: /ext/X');
    await assert.rejects(avajs(N).alias('info', 'avm'), { message: 'route is either already aliased or already maps to a handle: /ext/avm' });
  });
  test('aliasing onto an existing route fails, and the alias stays reserved', async () => {
    await expectError(N, 'admin.alias', { endpoint: 'info', alias: 'admin' }, 'failed to create endpoint as /ext/admin already exists');
    await expectError(N, 'admin.alias', { endpoint: 'info', alias: 'admin' }, 'route is either already aliased or already maps to a handle: /ext/admin');
    // /ext/admin is still the admin API.
    await expectResult(N, 'admin.lockProfile', {}, '{}');
  });
  test('an unknown endpoint is accepted; nothing is served there', async () => {
    await expectResult(N, 'admin.alias', { endpoint: 'nothing/here', alias: 'later' }, '{}');
    const r = await postRaw(N.port, '/ext/later', '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}');
    assert.equal(r.status, 404);
  });
});

describe('admin.aliasChain and admin.getChainAliases', () => {
  test('genesis aliases, then the id string, then added aliases in call order', async () => {
    assert.deepEqual(await sdk(N).getChainAliases({ chain: X_ID }), { aliases: ['X', 'avm', X_ID] });
    await expectResult(N, 'admin.getChainAliases', { chain: P_ID }, `{"aliases":["P","platform","${P_ID}"]}`);
    await expectResult(N, 'admin.getChainAliases', { chain: C_ID }, `{"aliases":["C","evm","${C_ID}"]}`);
    assert.deepEqual(await sdk(N).aliasChain({ chain: 'X', alias: 'xone' }), {});
    assert.deepEqual(await avajs(N).aliasChain(X_ID, 'xtwo'), {});
    await expectResult(N, 'admin.aliasChain', { chain: 'avm', alias: 'xthree' }, '{}');
    await expectResult(N, 'admin.getChainAliases', { chain: X_ID }, `{"aliases":["X","avm","${X_ID}","xone","xtwo","xthree"]}`);
    assert.deepEqual(await avajs(N).getChainAliases(X_ID), ['X', 'avm', X_ID, 'xone', 'xtwo', 'xthree']);
  });
  test('/ext/bc/<alias> serves avm.getTx afterwards', async () => {
    for (const a of ['xone', 'xtwo', 'xthree']) {
      assert.equal((await getTx(N, `/ext/bc/${a}`, cb58(sha256(txs[1].bytes)))).text, txOk(1), a);
    }
    // An alias of one chain is usable as that chain in later calls.
    await expectResult(N, 'admin.aliasChain', { chain: 'xone', alias: 'xfour' }, '{}');
    assert.equal((await getTx(N, '/ext/bc/xfour', cb58(sha256(txs[2].bytes)))).text, txOk(2));
  });
  test('aliasChain errors, in their order', async () => {
    await expectError(N, 'admin.aliasChain', { chain: 'nope', alias: 'x'.repeat(513) }, 'alias length is too long');
    await expectError(N, 'admin.aliasChain', { chain: 'nope', alias: 'fresh' }, 'there is no ID with alias: nope');
    await expectError(N, 'admin.aliasChain', { chain: 'X', alias: 'avm' }, 'alias already mapped to an ID: avm');
    await expectError(N, 'admin.aliasChain', { chain: 'X', alias: 'P' }, 'alias already mapped to an ID: P');
    await expectError(N, 'admin.aliasChain', { chain: 'X', alias: 'xone' }, 'alias already mapped to an ID: xone');
    await expectError(N, 'admin.aliasChain', { chain: 'P', alias: X_ID }, `alias already mapped to an ID: ${X_ID}`);
    await rejectsWith(sdk(N).aliasChain({ chain: 'nope', alias: 'fresh' }), 'there is no ID with alias: nope');
  });
  test('getChainAliases takes a cb58 chain id only: the ids.FromString texts', async () => {
    await expectError(N, 'admin.getChainAliases', { chain: 'X' }, 'input string is smaller than the checksum size');
    await expectError(N, 'admin.getChainAliases', { chain: '' }, 'base58 decoding error: zero length string');
    await expectError(N, 'admin.getChainAliases', {}, 'base58 decoding error: zero length string');
    await expectError(N, 'admin.getChainAliases', { chain: 'avm0' }, "base58 decoding error: invalid base58 digit ('0')");
    await expectError(N, 'admin.getChainAliases', { chain: 'aé' }, 'base58 decoding error: high-bit set on invalid digit');
    const badSum = X_ID.slice(0, -1) + (X_ID.endsWith('M') ? 'N' : 'M');
    await expectError(N, 'admin.getChainAliases', { chain: badSum }, 'invalid input checksum');
    await expectError(N, 'admin.getChainAliases', { chain: cb58(Buffer.alloc(20, 7)) }, 'invalid hash length: expected 32 bytes but got 20');
    await expectResult(N, 'admin.getChainAliases', { chain: cb58(sha256(Buffer.from('no such chain'))) }, '{"aliases":null}');
    await rejectsWith(sdk(N).getChainAliases({ chain: 'X' }), 'input string is smaller than the checksum size');
  });
});

describe('admin.getLoggerLevel and admin.setLoggerLevel', () => {
  test('all loggers (sorted), one logger, unknown logger', async () => {
    const all = await sdk(N).getLoggerLevel({});
    for (const name of ['main', 'P', 'X', 'C']) assert.ok(all.loggerLevels[name], `logger ${name}`);
    for (const v of Object.values(all.loggerLevels)) assert.deepEqual(Object.keys(v), ['logLevel', 'displayLevel']);
    const raw = await call(N, 'admin.getLoggerLevel', {});
    const keys = Object.keys(JSON.parse(raw.text).result.loggerLevels);
    assert.deepEqual(keys, [...keys].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1)), 'keys sorted bytewise');
    await expectResult(N, 'admin.getLoggerLevel', { loggerName: 'P' }, '{"loggerLevels":{"P":{"logLevel":"INFO","displayLevel":"INFO"}}}');
    assert.deepEqual(await avajs(N).getLoggerLevel('X'), { loggerLevels: { X: { logLevel: 'INFO', displayLevel: 'INFO' } } });
    await expectError(N, 'admin.getLoggerLevel', { loggerName: 'nope' }, 'logger with name "nope" not found');
    await expectError(N, 'admin.getLoggerLevel', { loggerName: 'Main' }, 'logger with name "Main" not found');
    await expectError(N, 'admin.getLoggerLevel', { loggerName: 'a"b' }, 'logger with name "a\\"b" not found');
    await rejectsWith(sdk(N).getLoggerLevel({ loggerName: 'nope' }), 'logger with name "nope" not found');
    // An empty name means all loggers.
    assert.deepEqual(JSON.parse((await call(N, 'admin.getLoggerLevel', { loggerName: '' })).text).result, all);
  });
  test('setLoggerLevel (spec mode) returns {}; levels are case-insensitive on input and upper-case on output', async () => {
    await expectResult(N, 'admin.setLoggerLevel', { loggerName: 'P', logLevel: 'debug' }, '{}');
    await expectResult(N, 'admin.getLoggerLevel', { loggerName: 'P' }, '{"loggerLevels":{"P":{"logLevel":"DEBUG","displayLevel":"INFO"}}}');
    assert.deepEqual(await sdk(N).setLoggerLevel({ loggerName: 'P', logLevel: 'Trace', displayLevel: 'WARN' }), {});
    await expectResult(N, 'admin.getLoggerLevel', { loggerName: 'P' }, '{"loggerLevels":{"P":{"logLevel":"TRACE","displayLevel":"WARN"}}}');
    for (const lv of ['VERBO', 'DEBUG', 'TRACE', 'INFO', 'WARN', 'ERROR', 'FATAL', 'OFF']) {
      await expectResult(N, 'admin.setLoggerLevel', { loggerName: 'C', displayLevel: lv.toLowerCase() }, '{}');
      await expectResult(N, 'admin.getLoggerLevel', { loggerName: 'C' }, `{"loggerLevels":{"C":{"logLevel":"INFO","displayLevel":"${lv}"}}}`);
    }
    assert.deepEqual(await avajs(N).setLoggerLevel('C', undefined, 'info'), {});
    // No name: every logger.
    await expectResult(N, 'admin.setLoggerLevel', { logLevel: 'warn' }, '{}');
    const all = JSON.parse((await call(N, 'admin.getLoggerLevel', {})).text).result.loggerLevels;
    for (const [name, v] of Object.entries(all)) assert.equal(v.logLevel, 'WARN', name);
    await expectResult(N, 'admin.setLoggerLevel', { logLevel: 'info', displayLevel: 'info' }, '{}');
  });
  test('setLoggerLevel errors', async () => {
    await expectError(N, 'admin.setLoggerLevel', {}, 'need to specify either displayLevel or logLevel');
    await expectError(N, 'admin.setLoggerLevel', { loggerName: 'P' }, 'need to specify either displayLevel or logLevel');
    await expectError(N, 'admin.setLoggerLevel', { logLevel: null, displayLevel: null, x: 1 }, 'need to specify either displayLevel or logLevel');
    await expectError(N, 'admin.setLoggerLevel', { loggerName: 'nope', logLevel: 'info' }, 'logger with name "nope" not found');
    for (const bad of ['loud', '', 'UNKNO', ' info', 5, true, ['info']]) {
      await expectError(N, 'admin.setLoggerLevel', { loggerName: 'P', logLevel: bad }, BAD_ARGS);
      await expectError(N, 'admin.setLoggerLevel', { loggerName: 'P', displayLevel: bad }, BAD_ARGS);
    }
    await rejectsWith(sdk(N).setLoggerLevel({ loggerName: 'P', logLevel: 'loud', displayLevel: 'info' }), BAD_ARGS);
  });
  test('--compat upstream: setLoggerLevel returns {"loggerLevels":{...}} of the loggers it touched', async () => {
    await expectResult(U, 'admin.setLoggerLevel', { loggerName: 'X', logLevel: 'trace' }, '{"loggerLevels":{"X":{"logLevel":"TRACE","displayLevel":"INFO"}}}');
    await expectResult(U, 'admin.setLoggerLevel', { loggerName: 'X', displayLevel: 'error' }, '{"loggerLevels":{"X":{"logLevel":"TRACE","displayLevel":"ERROR"}}}');
    const all = JSON.parse((await call(U, 'admin.setLoggerLevel', { displayLevel: 'info' })).text).result;
    const get = JSON.parse((await call(U, 'admin.getLoggerLevel', {})).text).result;
    assert.deepEqual(all, get);
    assert.equal(all.loggerLevels.X.logLevel, 'TRACE');
    for (const v of Object.values(all.loggerLevels)) assert.equal(v.displayLevel, 'INFO');
    // The sdk types the result as void; it gets the object.
    assert.deepEqual(await sdk(U).setLoggerLevel({ loggerName: 'P', logLevel: 'info', displayLevel: 'info' }),
      { loggerLevels: { P: { logLevel: 'INFO', displayLevel: 'INFO' } } });
  });
});

describe('profiles (node-rpc.md §5.5)', () => {
  async function load(node) {
    // Some CPU work on the node: range reads and JSON encoding.
    const until = Date.now() + 1500;
    while (Date.now() < until) {
      await Promise.all(Array.from({ length: 8 }, () => postRaw(node.port, '/ext/admin', '{"jsonrpc":"2.0","id":1,"method":"admin.getLoggerLevel","params":{},"x":0}')));
    }
  }
  test('CPU profiler: stop before start, start twice, stop writes a non-empty cpu.profile (dir made 0750, file 0640)', async () => {
    await expectError(N, 'admin.stopCPUProfiler', {}, "cpu profiler doesn't exist");
    assert.deepEqual(await sdk(N).startCPUProfiler(), {});
    assert.ok(existsSync(join(profDir, 'cpu.profile')), 'cpu.profile is created at start');
    await expectError(N, 'admin.startCPUProfiler', {}, 'cpu profiler already running');
    await rejectsWith(sdk(N).startCPUProfiler(), 'cpu profiler already running');
    await load(N);
    assert.deepEqual(await sdk(N).stopCPUProfiler(), {});
    await expectError(N, 'admin.stopCPUProfiler', {}, "cpu profiler doesn't exist");
    await rejectsWith(sdk(N).stopCPUProfiler(), "cpu profiler doesn't exist");
    const st = statSync(join(profDir, 'cpu.profile'));
    assert.ok(st.size > 0, 'cpu.profile is not empty');
    assert.equal(st.mode & 0o777, 0o640);
    assert.equal(statSync(profDir).mode & 0o777, 0o750);
    // It can run again; avalanche.js drives it too.
    assert.deepEqual(await avajs(N).startCPUProfiler(), {});
    assert.deepEqual(await avajs(N).stopCPUProfiler(), {});
  });
  test('memoryProfile writes mem.profile; lockProfile writes lock.profile naming the node locks', async () => {
    assert.deepEqual(await sdk(N).memoryProfile(), {});
    const mem = readFileSync(join(profDir, 'mem.profile'));
    assert.ok(mem.length > 0);
    assert.equal(statSync(join(profDir, 'mem.profile')).mode & 0o777, 0o640);
    assert.deepEqual(await sdk(N).lockProfile(), {});
    const lock = readFileSync(join(profDir, 'lock.profile'), 'utf8');
    for (const name of ['node.routes', 'node.chains', 'node.profiler']) assert.match(lock, new RegExp(`^${name.replace('.', '\\.')}\\t\\d+\\t\\d+`, 'm'), name);
    assert.equal(statSync(join(profDir, 'lock.profile')).mode & 0o777, 0o640);
    await expectResult(N, 'admin.memoryProfile', { ignored: true }, '{}');
    await expectResult(N, 'admin.lockProfile', [], '{}');
  });
  test('release binary: cpu.profile reads with google-pprof; mem.profile is a tcmalloc heap profile', async () => {
    assert.ok(existsSync(BIN_RELEASE), `the release binary ${BIN_RELEASE} exists (make build/snowline)`);
    assert.deepEqual(await sdk(R).startCPUProfiler(), {});
    await load(R);
    assert.deepEqual(await sdk(R).stopCPUProfiler(), {});
    const prof = join(relProfDir, 'cpu.profile');
    assert.ok(statSync(prof).size > 0);
    const pprof = spawnSync('sh', ['-c', 'command -v google-pprof'], { encoding: 'utf8' });
    if (pprof.status === 0) {
      const r = spawnSync('google-pprof', ['--text', BIN_RELEASE, prof], { encoding: 'utf8', timeout: 60000 });
      assert.equal(r.status, 0, `google-pprof --text: ${r.stderr}`);
      assert.match(r.stdout, /Total: \d+ samples/);
    }
    assert.deepEqual(await sdk(R).memoryProfile(), {});
    const mem = readFileSync(join(relProfDir, 'mem.profile'), 'utf8');
    assert.match(mem, /^heap profile: /);
    assert.deepEqual(await sdk(R).lockProfile(), {});
    assert.match(readFileSync(join(relProfDir, 'lock.profile'), 'utf8'), /^node\.routes\t/m);
  });
});

describe('admin.loadVMs (node-rpc.md §5.4)', () => {
  test('plugin directory missing → the open error', async () => {
    assert.ok(!existsSync(pluginDir));
    await expectError(N, 'admin.loadVMs', {}, `open ${pluginDir}: no such file or directory`);
    await assert.rejects(sdk(N).loadVMs(), (e) => e.details.startsWith('open '));
  });
  test('empty directory → {"newVMs":{}}; hidden files and sub-directories are skipped', async () => {
    mkdirSync(pluginDir, { recursive: true });
    await expectResult(N, 'admin.loadVMs', {}, '{"newVMs":{}}');
    writeFileSync(join(pluginDir, '.hidden.so'), 'x');
    mkdirSync(join(pluginDir, 'subdir'));
    await expectResult(N, 'admin.loadVMs', {}, '{"newVMs":{}}');
    assert.deepEqual(await sdk(N).loadVMs(), { newVMs: {} });
    assert.deepEqual(await avajs(N).loadVMs(), { newVMs: {} });
  });
  test('a plugin named after a registered VM (avm.so, <avm id>.so) is skipped', async () => {
    writeFileSync(join(pluginDir, 'avm.so'), 'not a shared object');
    writeFileSync(join(pluginDir, 'jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq.so'), 'not a shared object');
    writeFileSync(join(pluginDir, 'evm'), 'not a shared object');
    await expectResult(N, 'admin.loadVMs', {}, '{"newVMs":{}}');
  });
  test('a name that is neither an alias nor a VM id fails the whole call', async () => {
    writeFileSync(join(pluginDir, 'invalid'), 'x');
    await expectError(N, 'admin.loadVMs', {}, 'invalid vmID: "invalid"');
    rmSync(join(pluginDir, 'invalid'));
    writeFileSync(join(pluginDir, 'notavm.so'), 'x');
    await expectError(N, 'admin.loadVMs', {}, 'invalid vmID: "notavm"');
    rmSync(join(pluginDir, 'notavm.so'));
  });
  test('a bogus .so named with a valid cb58 id is listed in failedVMs', async () => {
    const bogus = cb58(sha256(Buffer.from('bogus vm')));
    writeFileSync(join(pluginDir, `${bogus}.so`), 'this is not an ELF file');
    const r = JSON.parse((await call(N, 'admin.loadVMs', {})).text).result;
    assert.deepEqual(Object.keys(r), ['newVMs', 'failedVMs']);
    assert.deepEqual(r.newVMs, {});
    assert.deepEqual(Object.keys(r.failedVMs), [bogus]);
    assert.equal(typeof r.failedVMs[bogus], 'string');
    assert.ok(r.failedVMs[bogus].length > 0);
    const viaSdk = await sdk(N).loadVMs();
    assert.deepEqual(Object.keys(viaSdk.failedVMs), [bogus]);
    rmSync(join(pluginDir, `${bogus}.so`));
  });
  test('a real plugin (build/plugins) is loaded and listed with its aliases, once', async (t) => {
    if (!existsSync(PLUGIN_SO)) {
      t.skip(`no example plugin at ${PLUGIN_SO} (make build/plugins/...)`);
      return;
    }
    copyFileSync(PLUGIN_SO, join(pluginDir, `${PLUGIN_ID}.so`));
    const first = await sdk(N).loadVMs();
    assert.deepEqual(first, { newVMs: { [PLUGIN_ID]: ['timestampvm', 'timestamp'] } });
    await expectResult(N, 'admin.loadVMs', {}, '{"newVMs":{}}');
    // Its alias now names a registered VM: a plugin file by that name is skipped.
    writeFileSync(join(pluginDir, 'timestampvm.so'), 'x');
    await expectResult(N, 'admin.loadVMs', {}, '{"newVMs":{}}');
    assert.deepEqual(readdirSync(pluginDir).sort(), ['.hidden.so', `${PLUGIN_ID}.so`, 'avm.so', 'evm', 'jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq.so', 'subdir', 'timestampvm.so'].sort());
  });
});
