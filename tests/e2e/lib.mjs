// Shared helpers for the end-to-end tests: start the real snowline binary on
// loopback, wait for it to listen, talk to it, always stop it.
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BIN = process.env.SNOWLINE_BIN || new URL('../../build/asan/snowline', import.meta.url).pathname;
export const BIN_RELEASE = process.env.SNOWLINE_BIN_RELEASE || new URL('../../build/snowline', import.meta.url).pathname;

export function tempDir(prefix = 'snowline-e2e-') {
  return mkdtempSync(join(tmpdir(), prefix));
}

// Start `snowline node` with the given flags (an array); resolves to
// { url, port, proc, stop(), kill9(), logs() } once it prints its listening
// line. The port is chosen by the node (--http-port 0) unless given.
export async function startNode(args = [], { bin = BIN, timeoutMs = 30000, env = {} } = {}) {
  const full = ['node', '--http-port', '0', ...args];
  const proc = spawn(bin, full, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  const exited = new Promise((res) => proc.on('exit', (code, sig) => res({ code, sig })));
  const port = await new Promise((resolve, reject) => {
    // a node that never listens is killed, not left running past the test
    const t = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`node did not start in ${timeoutMs} ms:\n${out.slice(-4000)}`)); }, timeoutMs);
    const check = () => {
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) { clearTimeout(t); resolve(Number(m[1])); }
    };
    proc.stdout.on('data', check);
    proc.stderr.on('data', check);
    exited.then(({ code, sig }) => { clearTimeout(t); reject(new Error(`node exited (${code ?? sig}) before listening:\n${out}`)); });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url, port, proc, exited,
    logs: () => out,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return exited;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 15000);
      const r = await exited; clearTimeout(t); return r;
    },
    async kill9() { if (proc.exitCode === null) proc.kill('SIGKILL'); return exited; },
  };
}

// Await several starts (startNode, startDevnet, …) at once; when one fails, the others that
// started are stopped before its error is thrown (the caller never gets them to stop).
export async function startAll(starts) {
  const rs = await Promise.allSettled(starts);
  const failed = rs.find((r) => r.status === 'rejected');
  if (!failed) return rs.map((r) => r.value);
  await Promise.all(rs.filter((r) => r.status === 'fulfilled').map((r) => r.value.stop().catch(() => {})));
  throw failed.reason;
}

// Run a node to completion (for start-up failures); resolves { code, out }.
export function runNode(args, { bin = BIN, timeoutMs = 30000 } = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, ['node', '--http-port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d) => { out += d; });
    proc.stderr.on('data', (d) => { out += d; });
    const t = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`still running after ${timeoutMs} ms:\n${out}`)); }, timeoutMs);
    proc.on('close', (code) => { clearTimeout(t); resolve({ code, out }); });
  });
}

// Raw HTTP: returns { status, headers, text, json }.
export async function post(url, body, headers = { 'Content-Type': 'application/json' }, method = 'POST') {
  const res = await fetch(url, { method, headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let json; try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}

let rpcId = 1;
export async function rpc(url, method, params = {}) {
  const r = await post(url, { jsonrpc: '2.0', id: rpcId++, method, params });
  return r.json;
}

// ---- the container log format of --import (docs/node.md) ----
export const KIND = { 'P/block': 0, 'C/block': 1, 'X/tx': 2, 'X/block': 3, 'X/vtx': 4 };

export function sha256(buf) { return createHash('sha256').update(buf).digest(); }

// containers: [{ kind: 'X/tx', id?: Buffer(32), ts?: bigint ns, bytes: Buffer }]
export function encodeClog(containers) {
  const parts = [Buffer.from('SLCLOG01')];
  for (const c of containers) {
    const id = c.id ?? sha256(c.bytes);
    const head = Buffer.alloc(45);
    head[0] = KIND[c.kind];
    id.copy(head, 1);
    head.writeBigInt64BE(c.ts ?? 1617402840262979000n, 33);
    head.writeUInt32BE(c.bytes.length, 41);
    const rec = Buffer.concat([head, c.bytes]);
    parts.push(rec, sha256(rec).subarray(28));
  }
  return Buffer.concat(parts);
}

export function writeClog(path, containers) { writeFileSync(path, encodeClog(containers)); return path; }

// Random containers for an index: deterministic from a seed when given.
export function randomContainers(kind, n, size = 200) {
  return Array.from({ length: n }, (_, i) => ({ kind, bytes: Buffer.concat([Buffer.from([i & 255]), randomBytes(size)]) }));
}

// cb58 (base58 with a 4-byte sha256 checksum), as the node writes ids.
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
export function base58(buf) {
  let n = BigInt('0x' + (buf.length ? buf.toString('hex') : '0'));
  let s = '';
  while (n > 0n) { s = ALPHABET[Number(n % 58n)] + s; n /= 58n; }
  for (const b of buf) { if (b === 0) s = '1' + s; else break; }
  return s;
}
export function cb58(buf) { return base58(Buffer.concat([buf, sha256(buf).subarray(28)])); }
export function hexWithChecksum(buf) { return '0x' + Buffer.concat([buf, sha256(buf).subarray(28)]).toString('hex'); }

export function cleanup(dir) { try { rmSync(dir, { recursive: true, force: true }); } catch { /* ignore */ } }

// ---- added for the interface tests (index, framing, admin, avm/info/health) ----

// Poll GET /ext/health/readiness until 200 (the import or follow source has caught up).
export async function waitReady(url, timeoutMs = 30000) {
  const until = Date.now() + timeoutMs;
  let last;
  while (Date.now() < until) {
    try {
      const r = await fetch(url + '/ext/health/readiness');
      last = r.status;
      await r.arrayBuffer();
      if (r.status === 200) return;
    } catch (e) { last = e.message; }
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`not ready after ${timeoutMs} ms (last: ${last})`);
}

// One raw HTTP/1.1 exchange with full control of method, path, headers and
// body (node:http sends exactly the headers given; no Content-Type is added).
// Resolves { status, headers (lower-case names), rawHeaders, body: Buffer, text }; a server
// silent for timeoutMs fails it (node:http has no deadline of its own).
export function httpRaw(port, { method = 'POST', path = '/', headers = {}, body, timeoutMs = 120000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false, setHost: !('Host' in headers || 'host' in headers) }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const b = Buffer.concat(chunks);
        resolve({ status: res.statusCode, headers: res.headers, rawHeaders: res.rawHeaders, body: b, text: b.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer for ${timeoutMs} ms`)));
    if (body !== undefined) req.end(body); else req.end();
  });
}

// POST a body given as a string (sent byte for byte) with Content-Type application/json.
export function postRaw(port, path, body, headers = { 'Content-Type': 'application/json' }) {
  return httpRaw(port, { method: 'POST', path, headers, body });
}

// The exact bytes avalanchego writes for a JSON-RPC error (node-rpc.md §2.2).
export function errorBody(message, { id = '1', code = -32000, data = 'null' } = {}) {
  return `{"jsonrpc":"2.0","error":{"code":${code},"message":${goJson(message)},"data":${data}},"id":${id}}\n`;
}
// A JSON string as Go's encoding/json writes it: <, >, &, U+2028 and U+2029 escaped.
export function goJson(s) {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}
// The exact bytes of a success response, result given as its JSON text.
export function resultBody(resultJson, id = '1') {
  return `{"jsonrpc":"2.0","result":${resultJson},"id":${id}}\n`;
}
export const BAD_ARGS = "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls";

// The five index paths and the container-log kind each serves.
export const INDEX_PATHS = { 'P/block': '/ext/index/P/block', 'C/block': '/ext/index/C/block', 'X/tx': '/ext/index/X/tx', 'X/block': '/ext/index/X/block', 'X/vtx': '/ext/index/X/vtx' };

// Go's time.Time JSON form under TZ=UTC: RFC 3339, nanoseconds with trailing zeros trimmed.
export function rfc3339Utc(ns) {
  const sec = ns / 1000000000n, frac = ns % 1000000000n;
  const base = new Date(Number(sec) * 1000).toISOString().slice(0, 19);
  const f = frac ? '.' + frac.toString().padStart(9, '0').replace(/0+$/, '') : '';
  return `${base}${f}Z`;
}

// ---- raw sockets, for what node:http hides: exact bytes, 100 Continue, resets, timing ----

// One connection: write `steps` in order (bytes, or { delay: ms } pauses; a function step is
// called with the socket), collect every byte the server sends until it closes the connection
// or timeoutMs passes. Resolves { data: Buffer, end: 'eof' | 'reset' | 'timeout', ms (from
// connect to the end), firstByteMs, writeError }. A reset is reported, never hidden: a test
// that expects a response must see end 'eof' with the response in data.
// `control`, when given, receives { abort() } to end the exchange early (end 'aborted').
export function rawExchange(port, steps, { timeoutMs = 5000, control } = {}) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const chunks = [];
    let firstByteMs, writeError, done = false;
    const sock = connect({ host: '127.0.0.1', port });
    const finish = (end) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve({ data: Buffer.concat(chunks), end, ms: Date.now() - t0, firstByteMs, writeError });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    if (control) control({ abort: () => finish('aborted') });
    sock.on('data', (d) => { if (firstByteMs === undefined) firstByteMs = Date.now() - t0; chunks.push(d); });
    sock.on('end', () => finish('eof'));
    sock.on('error', (e) => { if (e.code === 'ECONNRESET') finish('reset'); else if (!writeError) writeError = e.code; });
    sock.on('close', () => finish('eof'));
    sock.on('connect', async () => {
      for (const st of [].concat(steps)) {
        if (done) return;
        if (st && typeof st === 'object' && 'delay' in st) await new Promise((r) => setTimeout(r, st.delay));
        else if (typeof st === 'function') await st(sock);
        else if (!sock.destroyed) await new Promise((r) => sock.write(st, () => r()));
      }
    });
  });
}

// Split the bytes of one or more HTTP/1.1 responses: [{ status, reason, headers (lower-case
// names; repeated names joined with ', '), body: Buffer, text }]; interim (1xx) responses included.
export function parseResponses(buf, { head = false } = {}) {
  const out = [];
  let p = 0;
  while (p < buf.length) {
    const end = buf.indexOf('\r\n\r\n', p);
    if (end < 0) break;
    const lines = buf.subarray(p, end).toString('latin1').split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(lines[0]);
    if (!m) throw new Error(`not a status line: ${JSON.stringify(lines[0])}`);
    const headers = {};
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      const k = l.slice(0, i).toLowerCase(), v = l.slice(i + 1).trim();
      headers[k] = k in headers ? `${headers[k]}, ${v}` : v;
    }
    const status = Number(m[1]);
    const len = status < 200 || head ? 0 : Number(headers['content-length'] ?? 0);
    const body = buf.subarray(end + 4, end + 4 + len);
    out.push({ status, reason: m[2], headers, body, text: body.toString('utf8') });
    p = end + 4 + len;
  }
  return out;
}
