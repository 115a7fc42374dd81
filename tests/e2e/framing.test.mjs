// JSON-RPC framing and the HTTP layer around every route, byte for byte:
// node-rpc.md §1 (routing, middleware) and §2 (gorilla/rpc json2 framing),
// with the conformance checklist F1–F19 of §9.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  startNode, writeClog, sha256, cb58, tempDir, cleanup, httpRaw, postRaw, waitReady,
  errorBody, resultBody, BAD_ARGS, rawExchange, parseResponses,
} from './lib.mjs';

const dir = tempDir('snowline-e2e-framing-');
const txs = Array.from({ length: 5 }, (_, i) => ({ kind: 'X/tx', bytes: Buffer.from(`framing tx ${i}`) }));
const clog = writeClog(join(dir, 'x.clog'), txs);
const txId = (i) => cb58(sha256(txs[i].bytes));
const PARSE_DATA = '{"jsonrpc":"","method":"","params":null,"id":null}';
let N;
before(async () => {
  N = await startNode(['--api-admin-enabled', '--index-enabled', '--import', clog, '--data-dir', join(dir, 'd')], { env: { TZ: 'UTC' } });
  await waitReady(N.url);
});
after(async () => { await N?.stop(); cleanup(dir); });

const JSON_CT = { 'Content-Type': 'application/json' };
const post = (path, body, headers = JSON_CT) => postRaw(N.port, path, body, headers);
// F19: every JSON-RPC error (and success) is HTTP 200, application/json; charset=utf-8, ending in \n.
function assertRpc(r, body, what = '') {
  assert.equal(r.status, 200, what);
  assert.equal(r.headers['content-type'], 'application/json; charset=utf-8', what);
  assert.equal(r.text, body, what);
  assert.ok(r.text.endsWith('\n'));
}
function assertEmpty200(r, what = '') {
  assert.equal(r.status, 200, what);
  assert.equal(r.text, '', what);
  assert.equal(r.headers['content-length'], '0', what);
}

describe('the checklist F1–F19 (node-rpc.md §9)', () => {
  test('F1: GET /ext/admin → 405 text/plain, no trailing newline', async () => {
    const r = await httpRaw(N.port, { method: 'GET', path: '/ext/admin' });
    assert.equal(r.status, 405);
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(r.text, 'rpc: POST method required, received GET');
    for (const m of ['PUT', 'DELETE', 'PATCH']) {
      const q = await httpRaw(N.port, { method: m, path: '/ext/info', headers: JSON_CT, body: '{}' });
      assert.equal(q.status, 405, m);
      assert.equal(q.text, `rpc: POST method required, received ${m}`);
    }
  });
  test('F2: POST without Content-Type → 415 with a trailing space', async () => {
    const r = await post('/ext/admin', '{"jsonrpc":"2.0","id":1,"method":"admin.lockProfile"}', {});
    assert.equal(r.status, 415);
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(r.text, 'rpc: unrecognized Content-Type: ');
  });
  test('F3: other content types → 415 with the stripped value; accepted spellings', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}';
    for (const [ct, shown] of [['text/plain', 'text/plain'], ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
      ['application/json ;x', 'application/json '], ['text/plain; charset=utf-8', 'text/plain'], ['application/jsonx', 'application/jsonx']]) {
      const r = await post('/ext/info', body, { 'Content-Type': ct });
      assert.equal(r.status, 415, ct);
      assert.equal(r.text, `rpc: unrecognized Content-Type: ${shown}`, ct);
    }
    for (const ct of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/json;',
      'application/json;charset=UTF-8', 'APPLICATION/JSON; whatever']) {
      assertRpc(await post('/ext/info', body, { 'Content-Type': ct }), resultBody('{"networkID":"1"}'), ct);
    }
  });
  test('F4: truncated body → -32700 unexpected EOF', async () => {
    assertRpc(await post('/ext/admin', '{"jsonrpc":'),
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"unexpected EOF","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}\n');
  });
  test('F5: empty body → -32700 EOF', async () => {
    assertRpc(await post('/ext/admin', ''), errorBody('EOF', { code: -32700, id: 'null', data: PARSE_DATA }));
    assertRpc(await post('/ext/info', '   \n'), errorBody('EOF', { code: -32700, id: 'null', data: PARSE_DATA }));
  });
  test('F4/F5: other syntax errors carry Go encoding/json texts', async () => {
    assertRpc(await post('/ext/info', 'abc'), errorBody("invalid character 'a' looking for beginning of value", { code: -32700, id: 'null', data: PARSE_DATA }));
    assertRpc(await post('/ext/info', '{x}'), errorBody("invalid character 'x' looking for beginning of object key string", { code: -32700, id: 'null', data: PARSE_DATA }));
  });
  test('F6: a batch (top-level array, including []) is a parse error', async () => {
    const msg = 'json: cannot unmarshal array into Go value of type json2.serverRequest';
    assertRpc(await post('/ext/info', '[{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}]'), errorBody(msg, { code: -32700, id: 'null', data: PARSE_DATA }));
    assertRpc(await post('/ext/info', '[]'), errorBody(msg, { code: -32700, id: 'null', data: PARSE_DATA }));
    assertRpc(await post('/ext/info', '[{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"},{"jsonrpc":"2.0","id":2,"method":"info.getNetworkName"}]'),
      errorBody(msg, { code: -32700, id: 'null', data: PARSE_DATA }));
  });
  test('F7: jsonrpc other than "2.0" → -32600 with the request echoed as data', async () => {
    assertRpc(await post('/ext/admin', '{"jsonrpc":"1.0","id":1,"method":"admin.alias"}'),
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"jsonrpc must be 2.0","data":{"jsonrpc":"1.0","method":"admin.alias","params":null,"id":1}},"id":1}\n');
    assertRpc(await post('/ext/info', '{"id":"q","method":"info.getNetworkID","params":{"a": [1, 2]}}'),
      errorBody('jsonrpc must be 2.0', { code: -32600, id: '"q"', data: '{"jsonrpc":"","method":"info.getNetworkID","params":{"a":[1,2]},"id":"q"}' }));
  });
  test('F8: no method → ill-formed ""', async () => {
    assertRpc(await post('/ext/admin', '{"jsonrpc":"2.0","id":1}'), errorBody('rpc: service/method request ill-formed: ""'));
    assertRpc(await post('/ext/admin', '{"jsonrpc":"2.0","id":1,"method":"admin"}'), errorBody('rpc: service/method request ill-formed: "admin"'));
    assertRpc(await post('/ext/admin', '{"jsonrpc":"2.0","id":1,"method":"admin.alias.x"}'), errorBody('rpc: service/method request ill-formed: "admin.Alias.x"'));
  });
  test('F9: unknown method', async () => {
    assertRpc(await post('/ext/admin', '{"jsonrpc":"2.0","id":1,"method":"admin.fooBar"}'), errorBody('rpc: can\'t find method "admin.FooBar"'));
    assertRpc(await post('/ext/admin', '{"jsonrpc":"2.0","id":1,"method":"admin."}'), errorBody('rpc: can\'t find method "admin."'));
    // The service of another route is not served here.
    assertRpc(await post('/ext/admin', '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}'), errorBody('rpc: can\'t find service "info.GetNetworkID"'));
  });
  test('F10: unknown service', async () => {
    assertRpc(await post('/ext/admin', '{"jsonrpc":"2.0","id":1,"method":"foo.bar"}'), errorBody('rpc: can\'t find service "foo.Bar"'));
    assertRpc(await post('/ext/admin', '{"jsonrpc":"2.0","id":1,"method":"Admin.alias"}'), errorBody('rpc: can\'t find service "Admin.Alias"'));
  });
  test('F11: upper-case first method letter', async () => {
    assertRpc(await post('/ext/admin', '{"jsonrpc":"2.0","id":1,"method":"admin.Alias"}'), errorBody('method must start with a non-uppercase letter'));
    assertRpc(await post('/ext/info', '{"jsonrpc":"2.0","id":1,"method":"info.GetNetworkID"}'), errorBody('method must start with a non-uppercase letter'));
  });
  test('F12: params that do not fit → invalid-arg', async () => {
    for (const params of ['"x"', '5', 'true', '[1]', '["a"]']) {
      assertRpc(await post('/ext/index/X/tx', `{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":${params}}`), errorBody(BAD_ARGS), params);
    }
  });
  test('F13: notifications (no id, or "id":null) get an empty 200, and the method still runs', async () => {
    assertEmpty200(await post('/ext/admin', '{"jsonrpc":"2.0","method":"admin.alias","params":{"endpoint":"info","alias":"notified1"}}'));
    assertRpc(await post('/ext/notified1', '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkName","params":{}}'), resultBody('{"networkName":"mainnet"}'));
    assertEmpty200(await post('/ext/admin', '{"jsonrpc":"2.0","id":null,"method":"admin.alias","params":{"endpoint":"info","alias":"notified2"}}'));
    assertRpc(await post('/ext/notified2', '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkName","params":{}}'), resultBody('{"networkName":"mainnet"}'));
    assertEmpty200(await post('/ext/info', '{"jsonrpc":"2.0","method":"info.getNetworkID","params":{}}'));
  });
  test('F14: failing notifications get an empty 200 too; only parse errors are answered', async () => {
    for (const body of [
      '{"jsonrpc":"2.0","method":"admin.fooBar","params":{}}',
      '{"jsonrpc":"2.0","method":"foo.bar","params":{}}',
      '{"jsonrpc":"2.0","method":"admin.Alias","params":{}}',
      '{"jsonrpc":"2.0","params":{}}',
      '{"jsonrpc":"1.0","method":"admin.alias","params":{}}',
      '{"method":"admin.alias","params":{}}',
      '{"jsonrpc":"2.0","method":"index.getContainerByIndex","params":"x"}',
      '{"jsonrpc":"2.0","method":"admin.alias","params":{"endpoint":"info","alias":"X"}}',
      '{"jsonrpc":"2.0","id":null,"method":"admin.stopCPUProfiler","params":{}}',
      'null',
    ]) assertEmpty200(await post('/ext/admin', body), body);
    assertRpc(await post('/ext/admin', '{"jsonrpc":"2.0","method":'), errorBody('unexpected EOF', { code: -32700, id: 'null', data: PARSE_DATA }));
  });
  test('F15: the id is echoed as raw JSON, compacted, with <, >, & escaped', async () => {
    const echo = async (idText) => post('/ext/info', `{"jsonrpc":"2.0","id":${idText},"method":"info.getNetworkID","params":{}}`);
    assertRpc(await echo('"abc"'), resultBody('{"networkID":"1"}', '"abc"'));
    assertRpc(await echo('1.50'), resultBody('{"networkID":"1"}', '1.50'));
    assertRpc(await echo('{"a": [1, 2]}'), resultBody('{"networkID":"1"}', '{"a":[1,2]}'));
    assertRpc(await echo('[ true , false ]'), resultBody('{"networkID":"1"}', '[true,false]'));
    assertRpc(await echo('"<a&b>"'), resultBody('{"networkID":"1"}', '"\\u003ca\\u0026b\\u003e"'));
    assertRpc(await echo('"\\u00e9\\n"'), resultBody('{"networkID":"1"}', '"\\u00e9\\n"'));
    assertRpc(await echo('-0'), resultBody('{"networkID":"1"}', '-0'));
    assertRpc(await echo('1e400'), resultBody('{"networkID":"1"}', '1e400'));
    // Also on errors.
    assertRpc(await post('/ext/info', '{"jsonrpc":"2.0","id":{"k" : "v"},"method":"info.nope"}'),
      errorBody('rpc: can\'t find method "info.Nope"', { id: '{"k":"v"}' }));
  });
  test('F15: a number or literal id as the last member of the request', async () => {
    // JSON.stringify puts id wherever the client put it; avalanchego clients often send it last.
    assertRpc(await post('/ext/info', '{"jsonrpc":"2.0","method":"info.getNetworkID","params":{},"id":7}'), resultBody('{"networkID":"1"}', '7'));
    assertRpc(await post('/ext/info', '{"jsonrpc":"2.0","method":"info.getNetworkID","params":{},"id":true}'), resultBody('{"networkID":"1"}', 'true'));
    assertRpc(await post('/ext/info', '{"jsonrpc":"2.0","method":"info.nope","id":12}'), errorBody('rpc: can\'t find method "info.Nope"', { id: '12' }));
    // A literal last inside params, too.
    assertRpc(await post('/ext/index/X/tx', '{"jsonrpc":"2.0","id":1,"method":"index.getIndex","params":{"id":null}}'), errorBody('not found'));
    assertRpc(await post('/ext/index/X/tx', '{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":{"encoding":"hex","index":9}}'),
      errorBody('no container at index 9'));
  });
  test('F16: params as a one-element array [obj]; extra elements ignored; [] and [null] are zero arguments', async () => {
    const byObj = await post('/ext/index/X/tx', '{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":{"index":"3"}}');
    const byArr = await post('/ext/index/X/tx', '{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":[{"index":"3"}]}');
    assert.equal(JSON.parse(byObj.text).result.index, '3');
    assertRpc(byArr, byObj.text);
    const extra = await post('/ext/index/X/tx', '{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":[{"index":"4"},5]}');
    assert.equal(JSON.parse(extra.text).result?.index, '4', extra.text);
    const extraNum = await post('/ext/index/X/tx', '{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":[{"index":4},5]}');
    assert.equal(JSON.parse(extraNum.text).result?.index, '4', extraNum.text);
    for (const p of ['[]', '[null]', 'null', '[{}]']) {
      const r = await post('/ext/index/X/tx', `{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":${p},"x":0}`);
      assert.equal(JSON.parse(r.text).result?.index, '0', `${p}: ${r.text}`);
    }
    const absent = await post('/ext/index/X/tx', '{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex"}');
    assert.equal(JSON.parse(absent.text).result?.index, '0', absent.text);
    // A method without arguments accepts anything object-like.
    for (const p of ['{}', '{"anything":1}', '[]', '[{}]', 'null']) {
      assertRpc(await post('/ext/info', `{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":${p},"x":0}`), resultBody('{"networkID":"1"}'), p);
    }
  });
  test('F17: member names match case-insensitively (request and params); duplicates: last wins', async () => {
    assertRpc(await post('/ext/index/X/tx', `{"JSONRPC":"2.0","ID":3,"Method":"index.getIndex","PARAMS":{"ID":"${txId(2)}"}}`), resultBody('{"index":"2"}', '3'));
    assertRpc(await post('/ext/index/X/tx', `{"jsonrpc":"2.0","id":1,"method":"index.getIndex","params":{"iD":"${txId(4)}"}}`), resultBody('{"index":"4"}'));
    assertRpc(await post('/ext/index/X/tx', `{"jsonrpc":"2.0","id":1,"id":2,"method":"info.x","method":"index.getIndex","params":{"id":"${txId(0)}","id":"${txId(1)}"}}`),
      resultBody('{"index":"1"}', '2'));
  });
  test('F18: anything after the first JSON value is ignored', async () => {
    assertRpc(await post('/ext/info', '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}garbage'), resultBody('{"networkID":"1"}'));
    assertRpc(await post('/ext/info', '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}} {"jsonrpc":"2.0","id":2,"method":"info.nope"}'), resultBody('{"networkID":"1"}'));
    assertRpc(await post('/ext/info', '  \n{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}\n\n{'), resultBody('{"networkID":"1"}'));
  });
  test('F19: success responses carry X-Content-Type-Options: nosniff, framing errors do not', async () => {
    const ok = await post('/ext/info', '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}');
    assert.equal(ok.headers['x-content-type-options'], 'nosniff');
    const methodErr = await post('/ext/index/X/tx', '{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":{"index":"99"}}');
    assertRpc(methodErr, errorBody('no container at index 99'));
    assert.equal(methodErr.headers['x-content-type-options'], 'nosniff');
    const notFound = await post('/ext/info', '{"jsonrpc":"2.0","id":1,"method":"info.nope","params":{}}');
    assert.equal(notFound.headers['x-content-type-options'], undefined);
  });
});

describe('wrong types for the request members (node-rpc.md §2.2)', () => {
  test('method or jsonrpc of the wrong type: -32700 with a partially decoded request and its id', async () => {
    assertRpc(await post('/ext/info', '{"jsonrpc":"2.0","method":5,"id":7,"params":{}}'),
      errorBody('json: cannot unmarshal number into Go struct field serverRequest.method of type string',
        { code: -32700, id: '7', data: '{"jsonrpc":"2.0","method":"","params":{},"id":7}' }));
    assertRpc(await post('/ext/info', '{"jsonrpc":2.0,"id":1,"method":"info.getNetworkID"}'),
      errorBody('json: cannot unmarshal number into Go struct field serverRequest.jsonrpc of type string',
        { code: -32700, id: '1', data: '{"jsonrpc":"","method":"info.getNetworkID","params":null,"id":1}' }));
    assertRpc(await post('/ext/info', '{"method":true,"jsonrpc":"2.0"}'),
      errorBody('json: cannot unmarshal bool into Go struct field serverRequest.method of type string',
        { code: -32700, id: 'null', data: '{"jsonrpc":"2.0","method":"","params":null,"id":null}' }));
    assertRpc(await post('/ext/info', '{"method":{"a":1},"jsonrpc":"2.0","id":"s"}'),
      errorBody('json: cannot unmarshal object into Go struct field serverRequest.method of type string',
        { code: -32700, id: '"s"', data: '{"jsonrpc":"2.0","method":"","params":null,"id":"s"}' }));
  });
  test('top-level values that are not objects', async () => {
    for (const [body, kind] of [['"str"', 'string'], ['5', 'number'], ['true', 'bool']]) {
      assertRpc(await post('/ext/info', body), errorBody(`json: cannot unmarshal ${kind} into Go value of type json2.serverRequest`,
        { code: -32700, id: 'null', data: PARSE_DATA }), body);
    }
  });
});

describe('HTTP layer (node-rpc.md §1)', () => {
  test('HEAD → 405 with no body; OPTIONS without a preflight header → 405', async () => {
    const h = await httpRaw(N.port, { method: 'HEAD', path: '/ext/info' });
    assert.equal(h.status, 405);
    assert.equal(h.body.length, 0);
    const o = await httpRaw(N.port, { method: 'OPTIONS', path: '/ext/info' });
    assert.equal(o.status, 405);
    assert.equal(o.text, 'rpc: POST method required, received OPTIONS');
  });
  test('CORS preflight: 200, empty body, never reaches the RPC server', async () => {
    const r = await httpRaw(N.port, { method: 'OPTIONS', path: '/ext/info', headers: { Origin: 'http://app.example', 'Access-Control-Request-Method': 'POST' } });
    assert.equal(r.status, 200);
    assert.equal(r.body.length, 0);
    assert.equal(r.headers['access-control-allow-origin'], '*');
    assert.equal(r.headers['access-control-allow-credentials'], 'true');
    assert.match(r.headers.vary ?? '', /Origin/);
    // On a path with no route, too: CORS comes before routing.
    const nr = await httpRaw(N.port, { method: 'OPTIONS', path: '/nowhere', headers: { Origin: 'http://app.example', 'Access-Control-Request-Method': 'GET' } });
    assert.equal(nr.status, 200);
    assert.equal(nr.body.length, 0);
    // rs/cors answers every OPTIONS that has Access-Control-Request-Method, Origin or not.
    const noOrigin = await httpRaw(N.port, { method: 'OPTIONS', path: '/ext/info', headers: { 'Access-Control-Request-Method': 'POST' } });
    assert.equal(noOrigin.status, 200);
    assert.equal(noOrigin.body.length, 0);
  });
  test('CORS on actual requests: Allow-Origin * and Allow-Credentials with an Origin; Vary: Origin always', async () => {
    const r = await httpRaw(N.port, { method: 'POST', path: '/ext/info', headers: { ...JSON_CT, Origin: 'http://app.example' }, body: '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}' });
    assertRpc(r, resultBody('{"networkID":"1"}'));
    assert.equal(r.headers['access-control-allow-origin'], '*');
    assert.equal(r.headers['access-control-allow-credentials'], 'true');
    const plain = await post('/ext/info', '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}');
    assert.equal(plain.headers['access-control-allow-origin'], undefined);
    for (const req of [{ method: 'GET', path: '/nowhere' }, { method: 'GET', path: '/ext/info' }, { method: 'POST', path: '/ext/info', headers: JSON_CT, body: '{}' }]) {
      const q = await httpRaw(N.port, req);
      assert.equal(q.headers.vary, 'Origin', `${req.method} ${req.path}`);
    }
  });
  test('Node-Id header on every response, the same id each time', async () => {
    const seen = new Set();
    for (const req of [
      { method: 'POST', path: '/ext/info', headers: JSON_CT, body: '{"jsonrpc":"2.0","id":1,"method":"info.getNodeID","params":{}}' },
      { method: 'GET', path: '/nowhere' },
      { method: 'GET', path: '/ext/admin' },
      { method: 'GET', path: '//ext/info' },
      { method: 'GET', path: '/ext/health' },
      { method: 'POST', path: '/ext/info', headers: { Host: 'evil.example' }, body: '{}' },
    ]) {
      const r = await httpRaw(N.port, req);
      assert.match(r.headers['node-id'] ?? '', /^NodeID-[1-9A-HJ-NP-Za-km-z]{20,40}$/, `${req.method} ${req.path}`);
      seen.add(r.headers['node-id']);
    }
    assert.equal(seen.size, 1);
    const info = await post('/ext/info', '{"jsonrpc":"2.0","id":1,"method":"info.getNodeID","params":{}}');
    assert.equal(JSON.parse(info.text).result.nodeID, [...seen][0]);
  });
  test('host filter: names outside --http-allowed-hosts → 403; IP literals and localhost pass', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}';
    for (const host of ['evil.example', 'evil.example:9650', `evil.example:${N.port}`, 'localhost.evil.example', 'localhos']) {
      const r = await httpRaw(N.port, { method: 'POST', path: '/ext/info', headers: { ...JSON_CT, Host: host }, body });
      assert.equal(r.status, 403, host);
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(r.text, 'invalid host specified\n', host);
    }
    for (const host of [`127.0.0.1:${N.port}`, '127.0.0.1', 'localhost', `localhost:${N.port}`, 'LOCALHOST:80', '10.1.2.3', `[::1]:${N.port}`, '[::1]']) {
      const r = await httpRaw(N.port, { method: 'POST', path: '/ext/info', headers: { ...JSON_CT, Host: host }, body });
      assertRpc(r, resultBody('{"networkID":"1"}'), host);
    }
    // The filter runs before routing: an unknown path from a bad host is 403, not 404.
    const r = await httpRaw(N.port, { method: 'GET', path: '/nowhere', headers: { Host: 'evil.example' } });
    assert.equal(r.status, 403);
  });
  test('unknown paths → 404 text/plain "404 page not found\\n"; exact match, trailing slash differs', async () => {
    for (const p of ['/', '/nowhere', '/ext', '/ext/', '/ext/info/', '/ext/admin/', '/ext/INFO', '/ext/bc/X/', '/ext/bc/Y', '/ext/health/nope']) {
      const r = await httpRaw(N.port, { method: 'POST', path: p, headers: JSON_CT, body: '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}' });
      assert.equal(r.status, 404, p);
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8', p);
      assert.equal(r.text, '404 page not found\n', p);
    }
  });
  test('uncleaned paths → 301 to the cleaned path, query kept', async () => {
    for (const [p, loc] of [['//ext/info', '/ext/info'], ['/ext/./info', '/ext/info'], ['/ext/admin/../info', '/ext/info'],
      ['/ext//bc/X', '/ext/bc/X'], ['/ext/info/./', '/ext/info/']]) {
      const r = await httpRaw(N.port, { method: 'POST', path: p, headers: JSON_CT, body: '{}' });
      assert.equal(r.status, 301, p);
      assert.equal(r.headers.location, loc, p);
    }
    const q = await httpRaw(N.port, { method: 'GET', path: '//ext/info?a=1&b=2' });
    assert.equal(q.status, 301);
    assert.equal(q.headers.location, '/ext/info?a=1&b=2');
  });
  test('the query string is ignored', async () => {
    assertRpc(await post('/ext/info?x=1&method=foo', '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}'), resultBody('{"networkID":"1"}'));
  });
  // The 413 itself must reach the client: a reset does not count (tests/e2e/http.test.mjs has the rest).
  const TOO_LARGE = '413 Request Entity Too Large: request body too large\n';
  function assert413(r) {
    assert.equal(r.end, 'eof', `the connection ended by ${r.end}, ${r.data.length} bytes`);
    const rs = parseResponses(r.data);
    assert.deepEqual(rs.map((x) => x.status), [413]);
    assert.equal(rs[0].text, TOO_LARGE);
  }
  test('a body over --http-max-body → 413, and the node still answers the next request', async () => {
    const big = '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{"pad":"' + 'x'.repeat(2 * 1024 * 1024) + '"}}';
    assert413(await rawExchange(N.port, [`POST /ext/info HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n`, big]));
    // Just under the limit is fine.
    const under = '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{"pad":"' + 'x'.repeat(1024 * 1024 - 200) + '"}}';
    assertRpc(await post('/ext/info', under), resultBody('{"networkID":"1"}'));
    assertRpc(await post('/ext/info', '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}'), resultBody('{"networkID":"1"}'));
  });
  test('a 2 MB body against the default limit, sent chunked (no Content-Length)', async () => {
    const big = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{"pad":"' + 'x'.repeat(2 * 1024 * 1024) + '"}}');
    const chunks = [];
    for (let p = 0; p < big.length; p += 65536) {
      const c = big.subarray(p, p + 65536);
      chunks.push(Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]));
    }
    chunks.push('0\r\n\r\n');
    assert413(await rawExchange(N.port, ['POST /ext/info HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', ...chunks]));
    assertRpc(await post('/ext/info', '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}'), resultBody('{"networkID":"1"}'));
  });
});
