// Helpers for the container-store tests (follow.test.mjs, import-crash.test.mjs):
// building container logs with a seeded generator, the index each log should
// produce, and reading a node's five indexes back through its index API.
// Not a test file itself (tests/run.sh runs only *.test.mjs).
import { sha256, cb58, hexWithChecksum, rpc, post } from './lib.mjs';

export const KINDS = ['P/block', 'C/block', 'X/tx', 'X/block', 'X/vtx'];
export const MAX_CONTAINER = 2 * 1024 * 1024; // SL_MAX_CONTAINER

// mulberry32: a small seeded generator, so a failing layout can be rebuilt
// from the seed printed by the test.
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)); // inclusive
  const bytes = (n) => {
    const b = Buffer.allocUnsafe(n);
    let i = 0;
    for (; i + 4 <= n; i += 4) b.writeUInt32LE((next() * 4294967296) >>> 0, i);
    for (; i < n; i++) b[i] = int(0, 255);
    return b;
  };
  return { next, int, bytes, pick: (arr) => arr[Math.floor(next() * arr.length)] };
}

export function seedFromEnv(name) {
  const v = process.env[name];
  return v ? Number(v) : (Date.now() ^ (process.pid << 8)) >>> 0;
}

// Container sizes: mostly small, some medium, a few up to maxSize.
function size(r, maxSize) {
  const x = r.next();
  if (x < 0.7) return r.int(16, 1000);
  if (x < 0.95) return r.int(1000, 8000);
  return r.int(8000, maxSize);
}

/*
 * A container log as records { kind, id, ts, bytes }, kinds interleaved at
 * random. Every record's bytes are unique (a serial number up front), except
 * duplicates: with probability dupRate a record repeats the bytes (so the id)
 * of an earlier record of the same index, which the node must skip.
 * Timestamps increase by 1 ms per record from tsBase (ns).
 */
export function makeRecords(n, { seed = 1, kinds = KINDS, maxSize = 100_000, dupRate = 0, tsBase = 1617402840262979000n, serialBase = 0 } = {}) {
  const r = prng(seed);
  const recs = [];
  const byKind = new Map(kinds.map((k) => [k, []]));
  for (let i = 0; i < n; i++) {
    const kind = r.pick(kinds);
    const prior = byKind.get(kind);
    let bytes;
    if (dupRate && prior.length && r.next() < dupRate) {
      bytes = prior[r.int(0, prior.length - 1)];
    } else {
      const serial = Buffer.alloc(8);
      serial.writeBigUInt64BE(BigInt(serialBase + i));
      bytes = Buffer.concat([serial, r.bytes(size(r, maxSize))]);
      prior.push(bytes);
    }
    recs.push({ kind, bytes, id: sha256(bytes), ts: tsBase + BigInt(i) * 1_000_000n });
  }
  return recs;
}

// What each index should hold after importing recs: per kind, in log order,
// the first record of each id.
export function expectedIndexes(recs) {
  const out = Object.fromEntries(KINDS.map((k) => [k, []]));
  const seen = Object.fromEntries(KINDS.map((k) => [k, new Set()]));
  for (const rec of recs) {
    const key = rec.id.toString('hex');
    if (seen[rec.kind].has(key)) continue;
    seen[rec.kind].add(key);
    out[rec.kind].push(rec);
  }
  return out;
}

export function duplicateCount(recs) {
  const exp = expectedIndexes(recs);
  return recs.length - KINDS.reduce((s, k) => s + exp[k].length, 0);
}

// Number of containers in each index (getLastAccepted index + 1; 0 when empty
// or when the index is not served).
export async function counts(url) {
  const out = {};
  for (const k of KINDS) {
    const r = await rpc(`${url}/ext/index/${k}`, 'index.getLastAccepted', { encoding: 'hex' }).catch(() => undefined);
    out[k] = r && r.result ? Number(r.result.index) + 1 : 0;
  }
  return out;
}
export const total = (c) => Object.values(c).reduce((a, b) => a + b, 0);

// A whole index through getContainerRange pages of 1024; accepts both result
// shapes (spec: bare array; --compat upstream: {containers}).
export async function readIndex(url, kind, page = 1024) {
  const out = [];
  for (;;) {
    const r = await rpc(`${url}/ext/index/${kind}`, 'index.getContainerRange',
      { startIndex: String(out.length), numToFetch: String(page), encoding: 'hex' });
    if (!r) throw new Error(`${kind}: no JSON answer from getContainerRange at ${out.length}`);
    if (r.error) {
      if (out.length === 0 && r.error.message === 'no containers have been accepted') return out;
      if (out.length > 0 && /^start index \(\d+\) > last accepted index/.test(r.error.message)) return out;
      throw new Error(`${kind}: getContainerRange(${out.length}) failed: ${JSON.stringify(r.error)}`);
    }
    const list = Array.isArray(r.result) ? r.result : r.result && r.result.containers;
    if (!Array.isArray(list)) throw new Error(`${kind}: unexpected result shape ${JSON.stringify(r.result).slice(0, 200)}`);
    out.push(...list);
    if (list.length < page) return out;
  }
}

export async function readAll(url) {
  const out = {};
  for (const k of KINDS) out[k] = await readIndex(url, k);
  return out;
}

// RFC 3339 with up to 9 fraction digits and Z or an offset → BigInt ns.
export function tsNs(s) {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(s);
  if (!m) throw new Error(`not an RFC 3339 timestamp: ${s}`);
  const sec = BigInt(Date.parse(m[1] + m[3])) / 1000n;
  return sec * 1_000_000_000n + BigInt((m[2] || '').padEnd(9, '0'));
}

/*
 * Compare a node's index (as read by readIndex) with the expected records.
 * Returns null when equal, else a precise description of the first
 * difference. opts.prefix: the node may hold a prefix of expected (a crash
 * part-way). opts.ts: 'log' to require the log's timestamps.
 */
export function diffIndex(kind, got, want, { prefix = false, ts } = {}) {
  if (got.length > want.length || (!prefix && got.length !== want.length))
    return `${kind}: ${got.length} containers, expected ${prefix ? 'at most ' : ''}${want.length}`;
  const seen = new Set();
  for (let i = 0; i < got.length; i++) {
    const g = got[i], w = want[i];
    if (seen.has(g.id)) return `${kind}[${i}]: id ${g.id} appears twice`;
    seen.add(g.id);
    if (g.index !== String(i)) return `${kind}[${i}]: index field ${JSON.stringify(g.index)}`;
    const wid = cb58(w.id);
    if (g.id !== wid) return `${kind}[${i}]: id ${g.id}, expected ${wid} (order or gap)`;
    const wb = hexWithChecksum(w.bytes);
    if (g.bytes !== wb) return `${kind}[${i}]: bytes differ (got ${g.bytes.length} hex chars, expected ${wb.length})`;
    if (g.encoding !== 'hex') return `${kind}[${i}]: encoding ${g.encoding}`;
    if (ts === 'log' && tsNs(g.timestamp) !== w.ts) return `${kind}[${i}]: timestamp ${g.timestamp} (${tsNs(g.timestamp)} ns), expected ${w.ts} ns`;
  }
  return null;
}

export function diffAll(got, want, opts) {
  const errs = KINDS.map((k) => diffIndex(k, got[k], want[k], opts)).filter(Boolean);
  return errs.length ? errs.join('\n') : null;
}

// Poll fn() until it returns a truthy value; throws after timeoutMs with what().
export async function waitFor(fn, { timeoutMs = 60000, intervalMs = 50, what = () => 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${await what()}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export async function getStatus(url) {
  const res = await fetch(url);
  const text = await res.text();
  let json; try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, text, json };
}

export async function ready(url) {
  return (await getStatus(`${url}/ext/health/readiness`)).status === 200;
}

export { post };
