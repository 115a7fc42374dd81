// The HTTP server itself (src/http/server.c, docs/http.md), seen from outside over raw sockets:
// 413 before the body, per-phase absolute deadlines, the connection cap (close the idlest),
// one process per port, and the HTTP/1.1 framing around every route.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startNode, startAll, runNode, tempDir, cleanup, rawExchange, parseResponses } from './lib.mjs';

const dir = tempDir('snowline-e2e-http-');
let N; // small deadlines (1 s), default cap
let C; // a cap of 64 connections, default deadlines
before(async () => {
  [N, C] = await startAll([
    startNode(['--data-dir', join(dir, 'n'), '--http-threads', '2', '--http-read-header-timeout', '1s',
      '--http-read-timeout', '1s', '--http-idle-timeout', '1s']),
    startNode(['--data-dir', join(dir, 'c'), '--http-threads', '2', '--http-max-connections', '64']),
  ]);
});
after(async () => { await Promise.all([N?.stop(), C?.stop()]); cleanup(dir); });

const MiB = 1 << 20;
const TOO_LARGE = '413 Request Entity Too Large: request body too large\n';
const rpcHead = (len, extra = '') =>
  `POST /ext/info HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${len}\r\n${extra}\r\n`;

// One response, and the connection closed by the server after it (a FIN, never a reset).
function only(r, what = '') {
  assert.equal(r.end, 'eof', `${what}: the connection ended by ${r.end} after ${r.ms} ms, ${r.data.length} bytes`);
  const rs = parseResponses(r.data);
  assert.equal(rs.length, 1, `${what}: ${JSON.stringify(r.data.toString('latin1').slice(0, 400))}`);
  return rs[0];
}
function assert413(r, what) {
  const x = only(r, what);
  assert.equal(x.status, 413, what);
  assert.equal(x.text, TOO_LARGE, what);
  assert.equal(x.headers['content-type'], 'text/plain; charset=utf-8', what);
  assert.equal(x.headers.connection, 'close', what);
  assert.ok(!r.data.toString('latin1').includes('100 Continue'), `${what}: no 100 Continue`);
}

describe('request bodies over --http-max-body (1 MiB)', () => {
  test('a declared Content-Length over the cap: 413 at once, before any body, without 100 Continue', async () => {
    for (const extra of ['Expect: 100-continue\r\n', '']) {
      const r = await rawExchange(N.port, [rpcHead(10 * MiB, extra)], { timeoutMs: 3000 });
      assert413(r, `Content-Length 10 MiB ${extra.trim() || 'without Expect'}`);
      assert.ok(r.ms < 900, `answered after ${r.ms} ms: before the body deadline, not at it`);
    }
  });
  test('a client that streams the body anyway still reads the 413 (lingering close, no reset)', async () => {
    const chunk = Buffer.alloc(MiB, 'x');
    const r = await rawExchange(N.port, [rpcHead(10 * MiB), ...Array(10).fill(chunk)], { timeoutMs: 5000 });
    assert413(r, 'streamed 10 MiB');
  });
  test('a chunked body: 413 as soon as its decoded size passes the cap, before it ends', async () => {
    const chunk = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 'x'), Buffer.from('\r\n')]);
    const head = 'POST /ext/info HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
    // 17 chunks of 64 KiB: past 1 MiB, and no last chunk is ever sent.
    const r = await rawExchange(N.port, [head, ...Array(17).fill(chunk)], { timeoutMs: 3000 });
    assert413(r, 'chunked 1.06 MiB');
    assert.ok(r.ms < 900, `answered after ${r.ms} ms: when the cap was passed, not at the body deadline`);
    // A chunk that declares more than the cap is refused before its bytes arrive.
    const big = await rawExchange(N.port, [head, '200000\r\nxxxx'], { timeoutMs: 3000 });
    assert413(big, 'one 2 MiB chunk');
  });
  test('JSON-RPC requests past the cap: a 1 MiB method name, a 1.14 MB batch, 1M-deep nesting', async () => {
    const bodies = {
      method: `{"jsonrpc":"2.0","id":1,"method":"${'m'.repeat(MiB)}","params":{}}`,
      batch: `[${Array(17015).fill('{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}').join(',')}]`,
      nesting: '['.repeat(1_000_000) + ']'.repeat(1_000_000),
    };
    for (const [what, body] of Object.entries(bodies)) {
      assert.ok(body.length > MiB, what);
      assert413(await rawExchange(N.port, [rpcHead(Buffer.byteLength(body)), body], { timeoutMs: 5000 }), what);
    }
  });
  test('a body within the cap with Expect: 100-continue gets the 100, then the answer', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}';
    const r = await rawExchange(N.port, [rpcHead(body.length, 'Expect: 100-continue\r\nConnection: close\r\n'), { delay: 200 }, body]);
    const rs = parseResponses(r.data);
    assert.deepEqual(rs.map((x) => x.status), [100, 200]);
    assert.equal(rs[1].text, '{"jsonrpc":"2.0","result":{"networkID":"1"},"id":1}\n');
    // The body already on its way: no 100.
    const r2 = await rawExchange(N.port, [rpcHead(body.length, 'Expect: 100-continue\r\nConnection: close\r\n') + body]);
    assert.deepEqual(parseResponses(r2.data).map((x) => x.status), [200]);
  });
});

describe('deadlines are absolute (--http-read-header-timeout, --http-read-timeout, --http-idle-timeout: 1s here)', () => {
  const trickle = (n, ms) => Array.from({ length: n }, () => [{ delay: ms }, 'X']).flat();
  test('request line and headers trickled a byte at a time: 408 at the header deadline', async () => {
    const r = await rawExchange(N.port, ['GET /ext/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ', ...trickle(40, 150)], { timeoutMs: 8000 });
    const x = only(r, 'slow headers');
    assert.equal(x.status, 408);
    assert.equal(x.text, '408 Request Timeout: request headers not received in time\n');
    assert.ok(r.ms >= 900 && r.ms < 2500, `closed after ${r.ms} ms`);
  });
  test('a connection that never sends a byte is closed at the header deadline, without a word', async () => {
    const r = await rawExchange(N.port, [], { timeoutMs: 8000 });
    assert.equal(r.end, 'eof');
    assert.equal(r.data.length, 0);
    assert.ok(r.ms >= 900 && r.ms < 2500, `closed after ${r.ms} ms`);
  });
  test('a body trickled after its headers: 408 at the body deadline', async () => {
    const r = await rawExchange(N.port, [rpcHead(100), ...trickle(40, 150)], { timeoutMs: 8000 });
    const x = only(r, 'slow body');
    assert.equal(x.status, 408);
    assert.equal(x.text, '408 Request Timeout: request body not received in time\n');
    assert.ok(r.ms >= 900 && r.ms < 2500, `closed after ${r.ms} ms`);
  });
  test('an idle kept-alive connection closes at the idle deadline', async () => {
    const r = await rawExchange(N.port, ['GET /ext/health/liveness HTTP/1.1\r\nHost: localhost\r\n\r\n'], { timeoutMs: 8000 });
    const x = only(r, 'idle');
    assert.equal(x.status, 200);
    assert.ok(r.ms >= 900 && r.ms < 2500, `closed after ${r.ms} ms`);
  });
});

describe('the connection cap (--http-max-connections 64): the idlest connection makes room', () => {
  test('100 slowloris connections, then a normal request: answered at once; the oldest were closed', async () => {
    const slow = [], ended = [], ctl = [];
    for (let i = 0; i < 100; i++) {
      slow.push(rawExchange(C.port, ['GET /ext/health HTTP/1.1\r\n', ...Array(30).fill([{ delay: 300 }, 'X-A: b\r\n']).flat()],
        { timeoutMs: 15000, control: (c) => ctl.push(c) }).then((e) => { ended[i] = e; }));
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    const r = await rawExchange(C.port, ['GET /ext/health/liveness HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'], { timeoutMs: 5000 });
    const ms = Date.now() - t0;
    assert.equal(only(r, 'normal request').status, 200);
    assert.ok(ms < 1000, `answered after ${ms} ms`);
    await new Promise((res) => setTimeout(res, 300));
    // Closed by the cap (the header deadline is 10 s away): no response, just the close.
    const evicted = ended.map((e, i) => (e ? i : -1)).filter((i) => i >= 0);
    for (const c of ctl) c.abort();
    await Promise.all(slow);
    assert.ok(evicted.length >= 37, `${evicted.length} evicted: ${evicted}`);
    for (const i of evicted) {
      assert.equal(ended[i].end, 'eof', `connection ${i}`);
      assert.equal(ended[i].data.length, 0, `connection ${i}: closed without a response`);
    }
    // The newest were kept.
    for (let i = 80; i < 100; i++) assert.ok(!evicted.includes(i), `connection ${i} (one of the newest) was closed: ${evicted}`);
  });
});

describe('HTTP/1.1 framing', () => {
  const GET = (path, extra = '') => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${extra}\r\n`;
  test('pipelined requests are answered in order; Date and Content-Length on every response', async () => {
    const r = await rawExchange(N.port, [GET('/ext/health/liveness') + GET('/nowhere') + GET('/ext/info', 'Connection: close\r\n')]);
    const rs = parseResponses(r.data);
    assert.deepEqual(rs.map((x) => x.status), [200, 404, 405]);
    assert.equal(rs[1].text, '404 page not found\n');
    for (const x of rs) {
      assert.match(x.headers.date, /^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
      assert.equal(Number(x.headers['content-length']), x.body.length);
    }
    assert.equal(rs[2].headers.connection, 'close');
    assert.equal(r.end, 'eof');
  });
  test('HEAD: the Content-Length of the GET, no body', async () => {
    const get = parseResponses((await rawExchange(N.port, [GET('/nowhere', 'Connection: close\r\n')])).data)[0];
    assert.equal(get.text, '404 page not found\n');
    const r = await rawExchange(N.port, ['HEAD /nowhere HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n']);
    const [h] = parseResponses(r.data, { head: true });
    assert.equal(h.status, 404);
    assert.equal(h.headers['content-length'], String(get.body.length));
    assert.ok(r.data.toString('latin1').endsWith('\r\n\r\n'), 'nothing after the headers');
  });
  test('HTTP/1.0: closed after the response, kept with Connection: keep-alive', async () => {
    const r = await rawExchange(N.port, ['GET /ext/health/liveness HTTP/1.0\r\n\r\n']);
    const x = only(r, '1.0');
    assert.equal(x.status, 200);
    assert.equal(x.headers.connection, 'close');
    const k = await rawExchange(N.port, ['GET /ext/health/liveness HTTP/1.0\r\nConnection: keep-alive\r\n\r\n'.repeat(2)], { timeoutMs: 400 });
    const ks = parseResponses(k.data);
    assert.deepEqual(ks.map((x) => x.status), [200, 200]);
    assert.equal(ks[0].headers.connection, 'keep-alive');
    assert.equal(k.end, 'timeout', 'still open');
  });
  test('absolute-form targets; the path is percent-decoded before routing', async () => {
    const r = await rawExchange(N.port, [GET('http://localhost/ext/health/liveness?x=1') + GET('/ext/health%2Fliveness', 'Connection: close\r\n')]);
    assert.deepEqual(parseResponses(r.data).map((x) => x.status), [200, 200]);
  });
  test('a header value holding CR LF is dropped, never sent (the Location of a path with %0d%0a)', async () => {
    const r = await rawExchange(N.port, [GET('//ext/%0d%0aSet-Cookie:%20x=1', 'Connection: close\r\n')]);
    const x = only(r, 'CRLF');
    assert.equal(x.status, 301);
    assert.equal(x.headers['set-cookie'], undefined);
    assert.equal(x.headers.location, undefined);
  });
  test('bad syntax: 400 with the reason, then closed', async () => {
    const cases = {
      'obsolete line folding': 'GET / HTTP/1.1\r\nHost: localhost\r\nX-A: a\r\n  b\r\n\r\n',
      'invalid Content-Length': 'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1x\r\n\r\n',
      'conflicting Content-Length headers': 'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
      'both Transfer-Encoding and Content-Length': 'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n',
      'missing Host header': 'GET / HTTP/1.1\r\n\r\n',
      'malformed request line': 'GET  / HTTP/1.1\r\nHost: localhost\r\n\r\n',
      'malformed header field': 'GET / HTTP/1.1\r\nHost : localhost\r\n\r\n',
      'invalid character in header value': 'GET / HTTP/1.1\r\nHost: localhost\r\nX: a\rb\r\n\r\n',
    };
    for (const [why, req] of Object.entries(cases)) {
      const x = only(await rawExchange(N.port, [req]), why);
      assert.equal(x.status, 400, why);
      assert.equal(x.text, `400 Bad Request: ${why}\n`, why);
    }
    const te = only(await rawExchange(N.port, ['POST / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip, chunked\r\n\r\n']), 'gzip');
    assert.equal(te.status, 501);
    const v2 = only(await rawExchange(N.port, ['GET / HTTP/2.0\r\nHost: localhost\r\n\r\n']), 'HTTP/2.0');
    assert.equal(v2.status, 505);
  });
  test('a request target over 8192 bytes → 414; request line + headers over 32 KiB → 431', async () => {
    const long = only(await rawExchange(N.port, [GET('/' + 'a'.repeat(8192))]), '414');
    assert.equal(long.status, 414);
    assert.equal(long.text, '414 Request URI Too Long: request target too long\n');
    const fat = only(await rawExchange(N.port, [GET('/', `X-Big: ${'b'.repeat(40000)}\r\n`)]), '431');
    assert.equal(fat.status, 431);
    const many = only(await rawExchange(N.port, [GET('/', 'X-A: b\r\n'.repeat(101))]), '431 fields');
    assert.equal(many.status, 431);
    // A 1 MiB method: refused at 32 KiB, the rest read and dropped, the 431 delivered.
    const method = only(await rawExchange(N.port, ['M'.repeat(MiB) + ' / HTTP/1.1\r\nHost: localhost\r\n\r\n']), '1 MiB method');
    assert.equal(method.status, 431);
    assert.equal(method.text, '431 Request Header Fields Too Large: request header fields too large\n');
    // Just under both limits is served.
    const ok = only(await rawExchange(N.port, [GET('/ext/health/liveness?' + 'q'.repeat(2020), `X-Big: ${'b'.repeat(30000)}\r\nConnection: close\r\n`)]), 'under');
    assert.equal(ok.status, 200);
  });
});

describe('one process per port', () => {
  test('a second node on a port in use fails, naming the address and the reason; the first keeps serving', async () => {
    const second = await runNode(['--data-dir', join(dir, 'second'), '--http-port', String(N.port)]);
    assert.notEqual(second.code, 0, second.out);
    assert.match(second.out, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${N.port}: Address already in use`));
    assert.ok(!/listening on/.test(second.out), second.out);
    // Every new connection still reaches the first node (SO_REUSEPORT would split them).
    for (let i = 0; i < 40; i++) {
      const x = only(await rawExchange(N.port, ['GET /ext/health/liveness HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n']), `request ${i}`);
      assert.equal(x.status, 200, `request ${i}`);
    }
  });
  test('an address the machine does not have: the reason is given', async () => {
    const r = await runNode(['--data-dir', join(dir, 'nohost'), '--http-host', '192.0.2.1']);
    assert.notEqual(r.code, 0, r.out);
    assert.match(r.out, /cannot listen on 192\.0\.2\.1:0: Cannot assign requested address/);
  });
});
