// `snowline node --follow URL`: a follower mirrors an upstream node's five
// indexes through the index API, survives kill -9 of itself and of the
// upstream, reads both result shapes (--compat spec and upstream), and stamps
// containers with its own catch-up time (spec 001 §3 rule 2).
//
// SEED=<n> rebuilds the same container logs; kill points are random anyway.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startNode, writeClog, tempDir, cleanup, sha256 } from './lib.mjs';
import {
  KINDS, MAX_CONTAINER, makeRecords, expectedIndexes, duplicateCount, counts, total, readAll,
  diffAll, tsNs, waitFor, getStatus, ready, prng, seedFromEnv,
} from './store-lib.mjs';

const SEED = seedFromEnv('SEED');
const POLL = ['--follow-poll-ms', '50'];

// Nodes started by one test; whatever is still running at the end is killed.
function nodes() {
  const all = [];
  return {
    async start(args, opts) { const n = await startNode(args, opts); all.push(n); return n; },
    async killAll() { await Promise.all(all.map((n) => n.kill9())); },
  };
}

const nowNs = () => BigInt(Date.now()) * 1_000_000n;

// A follower's timestamps are its own: not before it started, not after now,
// and non-decreasing within an index.
function checkFollowerTimestamps(got, startNs) {
  const endNs = nowNs() + 1_000_000n;
  for (const k of KINDS) {
    let prev = 0n;
    for (const c of got[k]) {
      const t = tsNs(c.timestamp);
      assert.ok(t >= startNs - 1_000_000n, `${k}[${c.index}]: timestamp ${c.timestamp} is before the follower started (${startNs} ns)`);
      assert.ok(t <= endNs, `${k}[${c.index}]: timestamp ${c.timestamp} is in the future`);
      assert.ok(t >= prev, `${k}[${c.index}]: timestamp ${c.timestamp} goes back in time`);
      prev = t;
    }
  }
}

async function waitReady(n, what, timeoutMs = 90000) {
  await waitFor(() => ready(n.url), { timeoutMs, what: async () => `${what} to be ready; counts ${JSON.stringify(await counts(n.url).catch(() => '?'))}\n${n.logs().slice(-2000)}` });
}

async function waitCounts(n, want, what, timeoutMs = 90000) {
  const wantCounts = Object.fromEntries(KINDS.map((k) => [k, want[k].length]));
  await waitFor(async () => JSON.stringify(await counts(n.url)) === JSON.stringify(wantCounts),
    { timeoutMs, what: async () => `${what}: counts ${JSON.stringify(await counts(n.url).catch(() => '?'))}, want ${JSON.stringify(wantCounts)}\n${n.logs().slice(-2000)}` });
}

test(`(a) a follower mirrors all five indexes of an imported upstream (seed ${SEED})`, { timeout: 150000 }, async () => {
  const dir = tempDir('snowline-follow-a-');
  const ns = nodes();
  try {
    const recs = makeRecords(3000, { seed: SEED, dupRate: 0.03, maxSize: 100_000 });
    // make sure some containers are large and some duplicates exist
    assert.ok(recs.some((r) => r.bytes.length > 50_000) && duplicateCount(recs) > 10);
    const want = expectedIndexes(recs);
    const log = writeClog(join(dir, 'up.clog'), recs);
    const up = await ns.start(['--index-enabled', '--data-dir', join(dir, 'up'), '--import', log]);
    await waitReady(up, 'upstream import');
    const upIdx = await readAll(up.url);
    assert.equal(diffAll(upIdx, want, { ts: 'log' }), null, 'the upstream holds the log, duplicates skipped');

    const startNs = nowNs();
    const fo = await ns.start(['--index-enabled', '--data-dir', join(dir, 'fo'), '--follow', up.url, ...POLL]);
    await waitReady(fo, 'follower');
    const got = await readAll(fo.url);
    assert.equal(diffAll(got, want), null, 'the follower equals the log');
    for (const k of KINDS) for (let i = 0; i < got[k].length; i++)
      assert.ok(got[k][i].id === upIdx[k][i].id && got[k][i].bytes === upIdx[k][i].bytes, `${k}[${i}] equals the upstream`);
    checkFollowerTimestamps(got, startNs);

    const h = await getStatus(`${fo.url}/ext/health`);
    assert.equal(h.status, 200, `follower health: ${h.text}`);
    assert.equal(h.json.checks.source.error, undefined);
    assert.deepEqual(h.json.checks.bootstrapped.message, []);
    assert.deepEqual(await fo.stop(), { code: 0, sig: null }, 'SIGTERM while following exits 0');
    assert.deepEqual(await up.stop(), { code: 0, sig: null });
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
});

test(`(b) kill -9 of the follower mid-copy loses and doubles nothing (seed ${SEED})`, { timeout: 170000 }, async (t) => {
  const dir = tempDir('snowline-follow-b-');
  const ns = nodes();
  const r = prng(SEED + 1);
  try {
    const recs = makeRecords(12000, { seed: SEED + 1, dupRate: 0.01, maxSize: 30_000 });
    const want = expectedIndexes(recs);
    const all = KINDS.reduce((s, k) => s + want[k].length, 0);
    const log = writeClog(join(dir, 'up.clog'), recs);
    const up = await ns.start(['--index-enabled', '--data-dir', join(dir, 'up'), '--import', log]);
    await waitReady(up, 'upstream import');

    const foDir = join(dir, 'fo');
    const kills = [];
    let have = 0;
    for (let round = 0; round < 4 && have < all; round++) {
      // kill somewhere in the first 60% of what is left
      const target = have + Math.max(1, Math.floor((all - have) * (0.05 + 0.55 * r.next())));
      const fo = await ns.start(['--index-enabled', '--data-dir', foDir, '--follow', up.url, ...POLL]);
      await waitFor(async () => total(await counts(fo.url)) >= target,
        { timeoutMs: 60000, intervalMs: 10, what: () => `the follower to pass ${target} containers` });
      await fo.kill9();
      // What survived the crash: each index a prefix of the upstream's.
      const insp = await ns.start(['--index-enabled', '--data-dir', foDir]);
      const got = await readAll(insp.url);
      have = KINDS.reduce((s, k) => s + got[k].length, 0);
      kills.push(`${target}->${have}`);
      assert.equal(diffAll(got, want, { prefix: true }), null, `after kill ${round + 1} (target ${target}, kept ${have})`);
      assert.deepEqual(await insp.stop(), { code: 0, sig: null });
    }
    t.diagnostic(`kills (target->kept) ${kills.join(' ')} of ${all}`);
    assert.ok(kills.length >= 3, `the follower was killed mid-copy ${kills.length} times: ${kills.join(' ')} of ${all}`);
    const fo = await ns.start(['--index-enabled', '--data-dir', foDir, '--follow', up.url, ...POLL]);
    await waitReady(fo, 'restarted follower', 120000);
    assert.equal(diffAll(await readAll(fo.url), want), null, `the follower ends equal to the upstream (kills at ${kills.join(' ')})`);
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
});

test(`(c) kill -9 of the upstream: the follower waits, then catches up with the new tail (seed ${SEED})`, { timeout: 170000 }, async (t) => {
  const dir = tempDir('snowline-follow-c-');
  const ns = nodes();
  try {
    const recs = makeRecords(6000, { seed: SEED + 2, dupRate: 0.02, maxSize: 30_000 });
    const first = recs.slice(0, 3000);
    const log1 = writeClog(join(dir, 'up1.clog'), first);
    const log2 = writeClog(join(dir, 'up2.clog'), recs); // the first log's records first, then more
    const upDir = join(dir, 'up');
    let up = await ns.start(['--index-enabled', '--data-dir', upDir, '--import', log1]);
    const port = up.port;
    await waitReady(up, 'upstream import');
    const fo = await ns.start(['--index-enabled', '--data-dir', join(dir, 'fo'), '--follow', up.url, ...POLL]);
    await waitFor(async () => total(await counts(fo.url)) > 0, { what: () => 'the follower to start copying' });
    await up.kill9();

    // The follower keeps running and reports the source error.
    const h = await waitFor(async () => {
      const s = await getStatus(`${fo.url}/ext/health`);
      return s.status === 503 && s.json && s.json.checks.source && s.json.checks.source.error ? s : undefined;
    }, { timeoutMs: 20000, what: async () => `follower health to report the source error: ${(await getStatus(`${fo.url}/ext/health`)).text}` });
    assert.ok(h.json.checks.source.message.errors >= 1, h.text);
    assert.equal((await getStatus(`${fo.url}/ext/health/liveness`)).status, 200, 'the follower is alive');
    const mid = await readAll(fo.url);
    t.diagnostic(`the follower had ${total(await counts(fo.url))} of ${first.length} when the upstream died`);
    assert.equal(diffAll(mid, expectedIndexes(first), { prefix: true }), null, 'what the follower has is a prefix');

    // Same data dir, same port, a longer log: the old index plus the new tail.
    up = await ns.start(['--index-enabled', '--data-dir', upDir, '--import', log2, '--http-port', String(port)]);
    await waitReady(up, 'restarted upstream');
    const want = expectedIndexes(recs);
    assert.equal(diffAll(await readAll(up.url), want, { ts: 'log' }), null, 'the restarted upstream holds old + new');
    await waitCounts(fo, want, 'the follower to catch up with the new tail', 120000);
    assert.equal(diffAll(await readAll(fo.url), want), null, 'the follower equals the upstream');
    const h2 = await waitFor(async () => { const s = await getStatus(`${fo.url}/ext/health`); return s.status === 200 ? s : undefined; },
      { timeoutMs: 20000, what: async () => `follower health to recover: ${(await getStatus(`${fo.url}/ext/health`)).text}` });
    assert.equal(h2.json.checks.source.error, undefined);
    assert.deepEqual(await fo.stop(), { code: 0, sig: null });
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
});

test(`(d) --compat upstream follows a spec upstream, and a spec follower an upstream-compat one (seed ${SEED})`, { timeout: 120000 }, async () => {
  const dir = tempDir('snowline-follow-d-');
  const ns = nodes();
  try {
    // X/vtx stays empty: the upstream answers "no containers have been accepted".
    const recs = makeRecords(1500, { seed: SEED + 3, dupRate: 0.02, maxSize: 20_000, kinds: KINDS.slice(0, 4) });
    const want = expectedIndexes(recs);
    const log = writeClog(join(dir, 'up.clog'), recs);
    const upSpec = await ns.start(['--index-enabled', '--data-dir', join(dir, 'us'), '--import', log]);
    const upCompat = await ns.start(['--index-enabled', '--data-dir', join(dir, 'uc'), '--import', log, '--compat', 'upstream']);
    await waitReady(upSpec, 'spec upstream');
    await waitReady(upCompat, 'upstream-compat upstream');
    const foCompat = await ns.start(['--index-enabled', '--data-dir', join(dir, 'fc'), '--follow', upSpec.url, '--compat', 'upstream', ...POLL]);
    const foSpec = await ns.start(['--index-enabled', '--data-dir', join(dir, 'fs'), '--follow', upCompat.url, ...POLL]);
    await waitReady(foCompat, 'upstream-compat follower of a spec upstream');
    await waitReady(foSpec, 'spec follower of an upstream-compat upstream');
    assert.equal(diffAll(await readAll(foCompat.url), want), null, '--compat upstream follower');
    assert.equal(diffAll(await readAll(foSpec.url), want), null, 'spec follower');
    for (const fo of [foCompat, foSpec]) {
      const h = await getStatus(`${fo.url}/ext/health`);
      assert.equal(h.status, 200, h.text);
    }
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
});

test('(e) an upstream URL with a trailing slash', { timeout: 90000 }, async () => {
  const dir = tempDir('snowline-follow-e-');
  const ns = nodes();
  try {
    const recs = makeRecords(600, { seed: SEED + 4, maxSize: 10_000 });
    const want = expectedIndexes(recs);
    const up = await ns.start(['--index-enabled', '--data-dir', join(dir, 'up'), '--import', writeClog(join(dir, 'up.clog'), recs)]);
    await waitReady(up, 'upstream');
    const f1 = await ns.start(['--index-enabled', '--data-dir', join(dir, 'f1'), '--follow', `${up.url}/`, ...POLL]);
    const f2 = await ns.start(['--index-enabled', '--data-dir', join(dir, 'f2'), '--follow', `${up.url}//`, ...POLL]);
    await waitReady(f1, 'follower of URL/');
    await waitReady(f2, 'follower of URL//');
    assert.equal(diffAll(await readAll(f1.url), want), null, 'URL/');
    assert.equal(diffAll(await readAll(f2.url), want), null, 'URL//');
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
});

test('(f) edge containers: empty, and exactly the 2 MiB limit, imported and followed', { timeout: 90000 }, async () => {
  const dir = tempDir('snowline-follow-f-');
  const ns = nodes();
  try {
    const big = Buffer.alloc(MAX_CONTAINER, 0xab);
    const recs = [
      ...makeRecords(20, { seed: SEED + 5, maxSize: 2000 }),
      { kind: 'P/block', bytes: Buffer.alloc(0) },
      { kind: 'X/tx', bytes: big },
      { kind: 'C/block', bytes: Buffer.from([1]) },
    ].map((r) => ({ id: sha256(r.bytes), ts: 1617402840262979000n, ...r }));
    const want = expectedIndexes(recs);
    const up = await ns.start(['--index-enabled', '--data-dir', join(dir, 'up'), '--import', writeClog(join(dir, 'up.clog'), recs)]);
    await waitReady(up, 'upstream');
    assert.equal(diffAll(await readAll(up.url), want, { ts: 'log' }), null, 'imported');
    const fo = await ns.start(['--index-enabled', '--data-dir', join(dir, 'fo'), '--follow', up.url, ...POLL]);
    await waitReady(fo, 'follower');
    assert.equal(diffAll(await readAll(fo.url), want), null, 'followed');
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
});
