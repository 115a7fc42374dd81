// The index API (/ext/index/{P/block,C/block,X/tx,X/block,X/vtx}) end to end:
// a container log with known containers is imported, then every method is
// driven on every path with both real npm clients (@avalanche-sdk/client and
// avalanche.js v3) and with raw POSTs for the exact bytes. Contract: spec 001
// §4.2 (spec mode) and node-rpc.md §3, §4 (avalanchego, --compat upstream).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createIndexApiClient } from '@avalanche-sdk/client';
import { Avalanche } from 'avalanche';
import {
  startNode, startAll, writeClog, sha256, cb58, hexWithChecksum, tempDir, cleanup, postRaw, httpRaw, waitReady,
  errorBody, resultBody, BAD_ARGS, INDEX_PATHS, rfc3339Utc,
} from './lib.mjs';

const DEFAULT_TS = 1617402840262979000n;
// P/block containers get these timestamps in turn: the RFC 3339 forms of node-rpc.md §3.4.
const P_TS = [1617402840262979000n, 1617402840000000000n, 1617402840100000000n, 1n];
const COUNTS = { 'P/block': 4, 'C/block': 3, 'X/tx': 6, 'X/block': 1100, 'X/vtx': 2 };
const KINDS = Object.keys(COUNTS);

// Known containers per kind: bytes, id = sha256(bytes), timestamp.
function makeData(kinds = KINDS) {
  const data = {};
  for (const k of kinds) {
    data[k] = Array.from({ length: COUNTS[k] }, (_, i) => {
      const bytes = Buffer.from(`${k} container #${i} ` + 'ab'.repeat(i % 7));
      const ts = k === 'P/block' ? P_TS[i] : DEFAULT_TS;
      return { kind: k, bytes, id: sha256(bytes), ts };
    });
  }
  return data;
}
// Records of all kinds interleaved, so each index must keep its own order.
function interleave(data) {
  const out = [];
  const max = Math.max(...Object.values(data).map((a) => a.length));
  for (let i = 0; i < max; i++) for (const k of Object.keys(data)) if (data[k][i]) out.push(data[k][i]);
  return out;
}
// What the node must answer for container i of kind k (hex encoding, UTC).
function expected(c, i, enc = 'hex') {
  const bytes = enc === 'hexnc' ? '0x' + c.bytes.toString('hex') : hexWithChecksum(c.bytes);
  return { id: cb58(c.id), bytes, timestamp: rfc3339Utc(c.ts), encoding: enc, index: String(i) };
}
const ej = (c, i, enc) => JSON.stringify(expected(c, i, enc));

function sdk(node, path) {
  return createIndexApiClient({ transport: { type: 'http', url: node.url + path, config: { retryCount: 0 } }, clientType: 'indexXChainTx' });
}
function avajs(node) { return new Avalanche('127.0.0.1', node.port, 'http').Index(); }

async function call(node, path, method, params, id = 1) {
  const r = await postRaw(node.port, path, JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  assert.equal(r.status, 200, `${method} ${JSON.stringify(params)}: HTTP ${r.status} ${r.text}`);
  assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
  return r;
}
async function expectError(node, path, method, params, message) {
  const r = await call(node, path, method, params);
  assert.equal(r.text, errorBody(message), `${path} ${method} ${JSON.stringify(params)}`);
}
async function expectResult(node, path, method, params, resultJson) {
  const r = await call(node, path, method, params);
  assert.equal(r.text, resultBody(resultJson), `${path} ${method} ${JSON.stringify(params)}`);
}

const dir = tempDir('snowline-e2e-index-');
const full = makeData();
const clogAll = writeClog(join(dir, 'all.clog'), interleave(full));
const noVtx = makeData(KINDS.filter((k) => k !== 'X/vtx'));
const clogNoVtx = writeClog(join(dir, 'novtx.clog'), interleave(noVtx));
const UNKNOWN_ID = cb58(sha256(Buffer.from('never imported')));
const ZERO_ID = '11111111111111111111111111111111LpoYY';

let A; // spec mode, all five indexes filled, TZ=UTC
let B; // --compat upstream, X/vtx left empty, TZ=America/Los_Angeles
let E; // spec mode, --index-enabled, nothing imported
let D; // no --index-enabled
before(async () => {
  [A, B, E, D] = await startAll([
    startNode(['--index-enabled', '--import', clogAll, '--data-dir', join(dir, 'a')], { env: { TZ: 'UTC' } }),
    startNode(['--index-enabled', '--import', clogNoVtx, '--data-dir', join(dir, 'b'), '--compat', 'upstream'], { env: { TZ: 'America/Los_Angeles' } }),
    startNode(['--index-enabled', '--data-dir', join(dir, 'e')], { env: { TZ: 'UTC' } }),
    startNode(['--data-dir', join(dir, 'd')], { env: { TZ: 'UTC' } }),
  ]);
  await Promise.all([waitReady(A.url), waitReady(B.url), waitReady(E.url), waitReady(D.url)]);
});
after(async () => {
  await Promise.all([A, B, E, D].filter(Boolean).map((n) => n.stop()));
  cleanup(dir);
});

describe('every method on every path, @avalanche-sdk/client', () => {
  for (const k of KINDS) {
    test(`${k}: getContainerByIndex/ByID, getIndex, isAccepted, getLastAccepted, getContainerRange (endIndex)`, async () => {
      const c = sdk(A, INDEX_PATHS[k]);
      const cs = full[k];
      const step = cs.length > 50 ? 37 : 1;
      for (let i = 0; i < cs.length; i += step) {
        assert.deepEqual(await c.getContainerByIndex({ index: i, encoding: 'hex' }), expected(cs[i], i));
        assert.deepEqual(await c.getContainerByID({ id: cb58(cs[i].id), encoding: 'hex' }), expected(cs[i], i));
        assert.deepEqual(await c.getIndex({ id: cb58(cs[i].id), encoding: 'hex' }), { index: String(i) });
        assert.deepEqual(await c.isAccepted({ id: cb58(cs[i].id), encoding: 'hex' }), { isAccepted: true });
      }
      const last = cs.length - 1;
      assert.deepEqual(await c.getLastAccepted({ encoding: 'hex' }), expected(cs[last], last));
      assert.deepEqual(await c.isAccepted({ id: UNKNOWN_ID, encoding: 'hex' }), { isAccepted: false });
      // The sdk sends startIndex/endIndex (inclusive); spec mode answers a bare array.
      const end = Math.min(last, 1023);
      const range = await c.getContainerRange({ startIndex: 0, endIndex: end, encoding: 'hex' });
      assert.ok(Array.isArray(range), 'spec mode: getContainerRange returns an array');
      assert.deepEqual(range, cs.slice(0, end + 1).map((x, i) => expected(x, i)));
      // Errors come back as JSON-RPC -32000 with the node's text.
      await assert.rejects(c.getContainerByIndex({ index: cs.length, encoding: 'hex' }),
        (e) => e.code === -32000 && e.details === `no container at index ${cs.length}`);
      await assert.rejects(c.getContainerByID({ id: UNKNOWN_ID, encoding: 'hex' }), (e) => e.details === 'not found');
      await assert.rejects(c.getIndex({ id: UNKNOWN_ID, encoding: 'hex' }), (e) => e.details === 'not found');
    });
  }

  test('X/block: walking all 1100 containers with endIndex pages (1024 bound, partial last page)', async () => {
    const c = sdk(A, INDEX_PATHS['X/block']);
    const cs = full['X/block'];
    const got = [];
    for (let s = 0; s < cs.length; s += 1024) {
      const page = await c.getContainerRange({ startIndex: s, endIndex: s + 1023, encoding: 'hex' });
      got.push(...page);
    }
    assert.equal(got.length, 1100);
    assert.deepEqual(got, cs.map((x, i) => expected(x, i)));
    // endIndex - startIndex + 1 = 1025 is over the bound.
    await assert.rejects(c.getContainerRange({ startIndex: 0, endIndex: 1024, encoding: 'hex' }),
      (e) => e.code === -32000 && /^numToFetch must be in \[0,1024\] but is 1025$/.test(e.details));
  });
});

describe('every method on every path, avalanche.js v3 Index API', () => {
  for (const k of KINDS) {
    test(`${k}: all methods`, async () => {
      const ix = avajs(A);
      const p = INDEX_PATHS[k];
      const cs = full[k];
      const step = cs.length > 50 ? 53 : 1;
      for (let i = 0; i < cs.length; i += step) {
        assert.deepEqual(await ix.getContainerByIndex(String(i), 'hex', p), expected(cs[i], i));
        assert.deepEqual(await ix.getContainerByID(cb58(cs[i].id), 'hex', p), expected(cs[i], i));
        assert.equal(await ix.getIndex(cb58(cs[i].id), 'hex', p), String(i));
        assert.deepEqual(await ix.isAccepted(cb58(cs[i].id), 'hex', p), { isAccepted: true });
      }
      const last = cs.length - 1;
      assert.deepEqual(await ix.getLastAccepted('hex', p), expected(cs[last], last));
      assert.deepEqual(await ix.isAccepted(UNKNOWN_ID, 'hex', p), { isAccepted: false });
      const n = Math.min(cs.length, 100);
      assert.deepEqual(await ix.getContainerRange(0, n, 'hex', p), cs.slice(0, n).map((x, i) => expected(x, i)));
      // The client's transport throws the error message (its wrappers log and swallow it).
      await assert.rejects(ix.callMethod('index.getContainerByIndex', { index: String(cs.length), encoding: 'hex' }, p),
        { message: `no container at index ${cs.length}` });
      await assert.rejects(ix.callMethod('index.getContainerByID', { id: UNKNOWN_ID, encoding: 'hex' }, p), { message: 'not found' });
    });
  }

  test('X/block: getContainerRange 1024 works, from 1 overlaps consistently, 1098+5 is a partial page of 2', async () => {
    const ix = avajs(A);
    const p = INDEX_PATHS['X/block'];
    const cs = full['X/block'];
    const all = await ix.getContainerRange(0, 1024, 'hex', p);
    assert.equal(all.length, 1024);
    assert.deepEqual(all, cs.slice(0, 1024).map((x, i) => expected(x, i)));
    const from1 = await ix.getContainerRange(1, 1024, 'hex', p);
    assert.deepEqual(from1, cs.slice(1, 1025).map((x, i) => expected(x, i + 1)));
    const tail = await ix.getContainerRange(1098, 5, 'hex', p);
    assert.deepEqual(tail, [expected(cs[1098], 1098), expected(cs[1099], 1099)]);
  });
});

describe('exact response bytes (raw POST)', () => {
  for (const k of KINDS) {
    test(`${k}: each method's body`, async () => {
      const p = INDEX_PATHS[k];
      const cs = full[k];
      const last = cs.length - 1;
      await expectResult(A, p, 'index.getContainerByIndex', { index: 0, encoding: 'hex' }, ej(cs[0], 0));
      await expectResult(A, p, 'index.getContainerByIndex', { index: String(last) }, ej(cs[last], last));
      await expectResult(A, p, 'index.getContainerByID', { id: cb58(cs[last].id) }, ej(cs[last], last));
      await expectResult(A, p, 'index.getLastAccepted', { encoding: 'hex' }, ej(cs[last], last));
      await expectResult(A, p, 'index.getLastAccepted', {}, ej(cs[last], last));
      await expectResult(A, p, 'index.getIndex', { id: cb58(cs[last].id) }, `{"index":"${last}"}`);
      await expectResult(A, p, 'index.isAccepted', { id: cb58(cs[0].id) }, '{"isAccepted":true}');
      await expectResult(A, p, 'index.isAccepted', { id: UNKNOWN_ID }, '{"isAccepted":false}');
      await expectResult(A, p, 'index.getContainerRange', { startIndex: 0, numToFetch: 2, encoding: 'hex' },
        `[${cs.slice(0, 2).map((c, i) => ej(c, i)).join(',')}]`);
    });
  }

  test('timestamps: RFC 3339, nanoseconds with trailing zeros trimmed, Z under TZ=UTC', async () => {
    const p = INDEX_PATHS['P/block'];
    const want = ['2021-04-02T22:34:00.262979Z', '2021-04-02T22:34:00Z', '2021-04-02T22:34:00.1Z', '1970-01-01T00:00:00.000000001Z'];
    for (let i = 0; i < 4; i++) {
      const r = await call(A, p, 'index.getContainerByIndex', { index: i });
      assert.equal(JSON.parse(r.text).result.timestamp, want[i]);
    }
  });

  test('timestamps: local zone offset under TZ=America/Los_Angeles (node B)', async () => {
    const r = await call(B, INDEX_PATHS['P/block'], 'index.getContainerByIndex', { index: 0 });
    assert.equal(JSON.parse(r.text).result.timestamp, '2021-04-02T15:34:00.262979-07:00');
  });
});

describe('getContainerRange rules, spec mode (spec 001 §4.2)', () => {
  const p = INDEX_PATHS['X/tx'];
  const cs = full['X/tx'];
  test('rule 1: numToFetch 0 gives an empty result, even past the end and on an empty index', async () => {
    await expectResult(A, p, 'index.getContainerRange', { startIndex: 0, numToFetch: 0 }, '[]');
    await expectResult(A, p, 'index.getContainerRange', { startIndex: 99, numToFetch: 0 }, '[]');
    await expectResult(E, p, 'index.getContainerRange', { startIndex: 0, numToFetch: 0 }, '[]');
    assert.deepEqual(await avajs(A).getContainerRange(0, 0, 'hex', p), []);
  });
  test('rule 2: startIndex past the last accepted index is an error', async () => {
    await expectError(A, p, 'index.getContainerRange', { startIndex: 6, numToFetch: 1 }, 'start index (6) > last accepted index (5)');
    await expectError(A, p, 'index.getContainerRange', { startIndex: '18446744073709551615', numToFetch: 1 },
      'start index (18446744073709551615) > last accepted index (5)');
  });
  test('rule 3: numToFetch above 1024 is an error; 1024 is allowed', async () => {
    await expectError(A, p, 'index.getContainerRange', { startIndex: 0, numToFetch: 1025 }, 'numToFetch must be in [0,1024] but is 1025');
    await expectError(A, p, 'index.getContainerRange', { startIndex: 0, numToFetch: '18446744073709551615' },
      'numToFetch must be in [0,1024] but is 18446744073709551615');
    const r = await call(A, p, 'index.getContainerRange', { startIndex: 0, numToFetch: 1024 });
    assert.equal(JSON.parse(r.text).result.length, 6);
  });
  test('rule 4: fewer containers than asked gives the ones there are', async () => {
    await expectResult(A, p, 'index.getContainerRange', { startIndex: 4, numToFetch: 10 }, `[${ej(cs[4], 4)},${ej(cs[5], 5)}]`);
    await expectResult(A, p, 'index.getContainerRange', { startIndex: 5, numToFetch: 1 }, `[${ej(cs[5], 5)}]`);
  });
  test('empty index: no containers have been accepted', async () => {
    await expectError(E, p, 'index.getContainerRange', { startIndex: 0, numToFetch: 1 }, 'no containers have been accepted');
  });
  test('endIndex (what @avalanche-sdk/client sends) is used only when numToFetch is absent', async () => {
    await expectResult(A, p, 'index.getContainerRange', { startIndex: 1, endIndex: 2 }, `[${ej(cs[1], 1)},${ej(cs[2], 2)}]`);
    await expectResult(A, p, 'index.getContainerRange', { startIndex: 1, endIndex: 2, numToFetch: 1 }, `[${ej(cs[1], 1)}]`);
    await expectResult(A, p, 'index.getContainerRange', { startIndex: 4, endIndex: 100 }, `[${ej(cs[4], 4)},${ej(cs[5], 5)}]`);
    const r = await call(A, p, 'index.getContainerRange', { startIndex: 3, endIndex: 1 });
    assert.equal(JSON.parse(r.text).error.code, -32000, 'endIndex < startIndex is an error');
  });
});

describe('--compat upstream: avalanchego shapes and texts (node-rpc.md §4.2, §10)', () => {
  const p = INDEX_PATHS['X/tx'];
  const cs = noVtx['X/tx'];
  const ejB = (c, i) => JSON.stringify({ ...expected(c, i), timestamp: '2021-04-02T15:34:00.262979-07:00' });
  test('getContainerRange returns {"containers":[...]}', async () => {
    await expectResult(B, p, 'index.getContainerRange', { startIndex: 0, numToFetch: 2 }, `{"containers":[${ejB(cs[0], 0)},${ejB(cs[1], 1)}]}`);
    await expectResult(B, p, 'index.getContainerRange', { startIndex: 5, numToFetch: 9 }, `{"containers":[${ejB(cs[5], 5)}]}`);
    const viaSdk = await sdk(B, p).getContainerRange({ startIndex: 0, endIndex: 5, encoding: 'hex' });
    assert.equal(viaSdk.containers.length, 6);
    const viaAvajs = await avajs(B).getContainerRange(0, 3, 'hex', p);
    assert.equal(viaAvajs.containers.length, 3);
  });
  test('numToFetch 0 and 1025 are errors, checked before the empty and range checks', async () => {
    await expectError(B, p, 'index.getContainerRange', { startIndex: 0, numToFetch: 0 }, 'numToFetch must be in [1,1024] but is 0');
    await expectError(B, p, 'index.getContainerRange', { startIndex: 0 }, 'numToFetch must be in [1,1024] but is 0');
    await expectError(B, p, 'index.getContainerRange', { startIndex: 0, numToFetch: 1025 }, 'numToFetch must be in [1,1024] but is 1025');
    await expectError(B, p, 'index.getContainerRange', { startIndex: 99, numToFetch: 0 }, 'numToFetch must be in [1,1024] but is 0');
    const vtx = INDEX_PATHS['X/vtx'];
    await expectError(B, vtx, 'index.getContainerRange', { startIndex: 0, numToFetch: 0 }, 'numToFetch must be in [1,1024] but is 0');
    await expectError(B, vtx, 'index.getContainerRange', { startIndex: 0, numToFetch: 1 }, 'no containers have been accepted');
    await expectError(B, p, 'index.getContainerRange', { startIndex: 6, numToFetch: 1 }, 'start index (6) > last accepted index (5)');
  });
  test('empty X/vtx index: getLastAccepted and getContainerByIndex errors', async () => {
    const vtx = INDEX_PATHS['X/vtx'];
    await expectError(B, vtx, 'index.getLastAccepted', { encoding: 'hex' }, 'no containers have been accepted');
    await expectError(B, vtx, 'index.getContainerByIndex', { index: 0 }, 'no container at index 0');
  });
});

describe('error texts of node-rpc.md §4.2', () => {
  const p = INDEX_PATHS['C/block'];
  const cs = full['C/block'];
  test('lookups', async () => {
    await expectError(A, p, 'index.getContainerByIndex', { index: 3 }, 'no container at index 3');
    await expectError(A, p, 'index.getContainerByIndex', { index: 5 }, 'no container at index 5');
    await expectError(E, p, 'index.getContainerByIndex', { index: 0 }, 'no container at index 0');
    await expectError(E, p, 'index.getLastAccepted', {}, 'no containers have been accepted');
    await expectError(A, p, 'index.getContainerByID', { id: UNKNOWN_ID }, 'not found');
    await expectError(A, p, 'index.getContainerByID', { id: null }, 'not found');
    await expectError(A, p, 'index.getContainerByID', {}, 'not found');
    await expectError(A, p, 'index.getIndex', { id: UNKNOWN_ID }, 'not found');
    await expectError(A, p, 'index.getIndex', {}, 'not found');
    await expectResult(A, p, 'index.isAccepted', {}, '{"isAccepted":false}');
    await expectResult(A, p, 'index.isAccepted', { id: ZERO_ID }, '{"isAccepted":false}');
    // A container of another index is not in this one.
    await expectError(A, p, 'index.getContainerByID', { id: cb58(full['P/block'][0].id) }, 'not found');
  });
  test('json encoding: unsupported, but only after the lookup succeeds', async () => {
    await expectError(A, p, 'index.getContainerByIndex', { index: 0, encoding: 'json' }, 'unsupported encoding in method');
    await expectError(A, p, 'index.getContainerByID', { id: cb58(cs[0].id), encoding: 'json' }, 'unsupported encoding in method');
    await expectError(A, p, 'index.getLastAccepted', { encoding: 'json' }, 'unsupported encoding in method');
    await expectError(A, p, 'index.getContainerRange', { startIndex: 0, numToFetch: 1, encoding: 'json' }, 'unsupported encoding in method');
    await expectError(A, p, 'index.getContainerByIndex', { index: 99, encoding: 'json' }, 'no container at index 99');
    await expectError(A, p, 'index.getContainerByID', { id: UNKNOWN_ID, encoding: 'json' }, 'not found');
    await expectError(E, p, 'index.getLastAccepted', { encoding: 'JSON' }, 'no containers have been accepted');
  });
});

describe('encodings (node-rpc.md §3.3)', () => {
  const p = INDEX_PATHS['X/vtx'];
  const cs = full['X/vtx'];
  test('hex, hexc, hexnc, case-insensitive names, null and absent default to hex', async () => {
    await expectResult(A, p, 'index.getContainerByIndex', { index: 1, encoding: 'hex' }, ej(cs[1], 1, 'hex'));
    await expectResult(A, p, 'index.getContainerByIndex', { index: 1, encoding: 'hexc' }, ej(cs[1], 1, 'hexc'));
    await expectResult(A, p, 'index.getContainerByIndex', { index: 1, encoding: 'hexnc' }, ej(cs[1], 1, 'hexnc'));
    await expectResult(A, p, 'index.getContainerByIndex', { index: 1, encoding: 'HEX' }, ej(cs[1], 1, 'hex'));
    await expectResult(A, p, 'index.getContainerByIndex', { index: 1, encoding: 'HexNC' }, ej(cs[1], 1, 'hexnc'));
    await expectResult(A, p, 'index.getContainerByIndex', { index: 1, encoding: null }, ej(cs[1], 1, 'hex'));
    await expectResult(A, p, 'index.getContainerByIndex', { index: 1 }, ej(cs[1], 1, 'hex'));
    await expectResult(A, p, 'index.getContainerRange', { startIndex: 0, numToFetch: 2, encoding: 'hexnc' },
      `[${ej(cs[0], 0, 'hexnc')},${ej(cs[1], 1, 'hexnc')}]`);
    await expectResult(A, p, 'index.getLastAccepted', { encoding: 'hexc' }, ej(cs[1], 1, 'hexc'));
    assert.deepEqual(await avajs(A).getContainerByIndex('1', 'hexnc', p), expected(cs[1], 1, 'hexnc'));
  });
  test('anything else is invalid-arg', async () => {
    for (const enc of ['', 'base58', 'cb58', 'hex ', 0, true, [], {}]) {
      await expectError(A, p, 'index.getContainerByIndex', { index: 0, encoding: enc }, BAD_ARGS);
      await expectError(A, p, 'index.getLastAccepted', { encoding: enc }, BAD_ARGS);
    }
    // Even when the lookup would fail: params are decoded first.
    await expectError(A, p, 'index.getContainerByIndex', { index: 99, encoding: 'base58' }, BAD_ARGS);
  });
  test('getIndex and isAccepted take no encoding: any value is ignored', async () => {
    await expectResult(A, p, 'index.getIndex', { id: cb58(cs[1].id), encoding: 'base58' }, '{"index":"1"}');
    await expectResult(A, p, 'index.isAccepted', { id: cb58(cs[1].id), encoding: 7 }, '{"isAccepted":true}');
  });
});

describe('uint64 and id forms (node-rpc.md §3.1, §3.2)', () => {
  const p = INDEX_PATHS['X/tx'];
  const cs = full['X/tx'];
  test('accepted uint forms', async () => {
    for (const [raw, i] of [['5', 5], ['"5"', 5], ['"007"', 5 + 2], ['null', 0], ['0', 0], ['"0"', 0]]) {
      const want = i < cs.length ? resultBody(ej(cs[i], i)) : errorBody(`no container at index ${i}`);
      const r = await postRaw(A.port, p, `{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":{"index":${raw}}}`);
      assert.equal(r.text, want, `index ${raw}`);
    }
    for (const raw of ['18446744073709551615', '"18446744073709551615"']) {
      const r = await postRaw(A.port, p, `{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":{"index":${raw}}}`);
      assert.equal(r.text, errorBody('no container at index 18446744073709551615'), `index ${raw}`);
    }
  });
  test('rejected uint forms are invalid-arg', async () => {
    const bad = ['"-1"', '-1', '1.0', '1e2', '""', '" 5"', '"+5"', '"0x10"', 'true', '[1]', '{}', '"\\u0035"',
      '18446744073709551616', '"18446744073709551616"', '"5 "', '"1_0"'];
    for (const raw of bad) {
      const r = await postRaw(A.port, p, `{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":{"index":${raw}}}`);
      assert.equal(r.text, errorBody(BAD_ARGS), `index ${raw}`);
    }
    for (const raw of ['"-1"', '1.5', '"x"']) {
      const r = await postRaw(A.port, p, `{"jsonrpc":"2.0","id":1,"method":"index.getContainerRange","params":{"startIndex":0,"numToFetch":${raw}}}`);
      assert.equal(r.text, errorBody(BAD_ARGS), `numToFetch ${raw}`);
      const r2 = await postRaw(A.port, p, `{"jsonrpc":"2.0","id":1,"method":"index.getContainerRange","params":{"startIndex":${raw},"numToFetch":1}}`);
      assert.equal(r2.text, errorBody(BAD_ARGS), `startIndex ${raw}`);
    }
    // A bare 0x10 is not JSON at all: a parse error, as Go's decoder gives.
    const r = await postRaw(A.port, p, '{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":{"index":0x10}}');
    assert.equal(r.text, errorBody("invalid character 'x' after object key:value pair",
      { id: 'null', code: -32700, data: '{"jsonrpc":"","method":"","params":null,"id":null}' }));
  });
  test('id forms: cb58 only; bad checksum, hex, number, empty string are invalid-arg; null is the zero id', async () => {
    const good = cb58(cs[2].id);
    await expectResult(A, p, 'index.getIndex', { id: good }, '{"index":"2"}');
    // Flip the last character: the checksum no longer matches.
    const last = good[good.length - 1];
    const badSum = good.slice(0, -1) + (last === '2' ? '3' : '2');
    const badForms = [badSum, hexWithChecksum(cs[2].id), cs[2].id.toString('hex'), 123, '', 'X', '0OIl', true, [good], { id: good },
      cb58(Buffer.alloc(20))];
    for (const id of badForms) {
      for (const m of ['index.getIndex', 'index.isAccepted', 'index.getContainerByID'])
        await expectError(A, p, m, { id }, BAD_ARGS);
    }
    await expectError(A, p, 'index.getIndex', { id: null }, 'not found');
    await expectResult(A, p, 'index.isAccepted', { id: null }, '{"isAccepted":false}');
  });
});

describe('routes', () => {
  test('without --index-enabled there is no /ext/index route at all', async () => {
    for (const p of Object.values(INDEX_PATHS)) {
      const r = await postRaw(D.port, p, '{"jsonrpc":"2.0","id":1,"method":"index.getLastAccepted","params":{}}');
      assert.equal(r.status, 404, p);
      assert.equal(r.text, '404 page not found\n');
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    }
    // The node itself is up.
    const r = await postRaw(D.port, '/ext/info', '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}');
    assert.equal(r.text, resultBody('{"networkID":"1"}'));
  });
  test('index routes have no aliases, and no trailing slash form', async () => {
    const xid = '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM';
    for (const p of ['/ext/index/avm/tx', `/ext/index/${xid}/tx`, '/ext/index/platform/block', '/ext/index/evm/block',
      '/ext/index/X/tx/', '/ext/index/X', '/ext/index', '/ext/index/x/tx', '/ext/index/P/tx', '/ext/index/C/vtx']) {
      const r = await postRaw(A.port, p, '{"jsonrpc":"2.0","id":1,"method":"index.getLastAccepted","params":{}}');
      assert.equal(r.status, 404, p);
      assert.equal(r.text, '404 page not found\n', p);
    }
  });
  test('the index API answers a GET with 405 like every JSON-RPC route', async () => {
    const r = await httpRaw(A.port, { method: 'GET', path: INDEX_PATHS['X/tx'] });
    assert.equal(r.status, 405);
    assert.equal(r.text, 'rpc: POST method required, received GET');
  });
});
