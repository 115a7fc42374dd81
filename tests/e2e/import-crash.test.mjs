// `snowline node --import FILE`: crash safety of the import (kill -9 at
// random moments, then the same import again), damaged logs (bad checksum,
// torn last record, over-long record, unknown index, no magic), the index
// completeness rules of spec 001 §3 (node-rpc.md §4.4), and a graceful
// SIGTERM while requests are in flight.
//
// SEED=<n> rebuilds the same container logs; kill points are random anyway.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { rmSync, writeFileSync } from 'node:fs';
import { startNode, runNode, rpc, post, encodeClog, writeClog, tempDir, cleanup, sha256 } from './lib.mjs';
import {
  KINDS, MAX_CONTAINER, makeRecords, expectedIndexes, counts, total, readAll, diffAll, waitFor,
  getStatus, ready, prng, seedFromEnv,
} from './store-lib.mjs';

const SEED = seedFromEnv('SEED');

function nodes() {
  const all = [];
  return {
    async start(args, opts) { const n = await startNode(args, opts); all.push(n); return n; },
    async killAll() { await Promise.all(all.map((n) => n.kill9())); },
  };
}

async function waitReady(n, what, timeoutMs = 90000) {
  await waitFor(() => ready(n.url), { timeoutMs, what: async () => `${what} to be ready; counts ${JSON.stringify(await counts(n.url).catch(() => '?'))}\n${n.logs().slice(-2000)}` });
}

// Byte offset of each record in encodeClog(recs) (after the 8-byte magic).
function offsets(recs) {
  const out = [];
  let at = 8;
  for (const r of recs) { out.push(at); at += 45 + r.bytes.length + 4; }
  out.push(at);
  return out;
}

// Start a node on a damaged log and check: the records before `stopAt` are
// indexed, nothing after, the error names the record, and the node serves.
async function importDamaged(t, name, buf, recs, stopAt, message) {
  const dir = tempDir('snowline-import-damaged-');
  const ns = nodes();
  try {
    const log = join(dir, 'bad.clog');
    writeFileSync(log, buf);
    const n = await ns.start(['--index-enabled', '--data-dir', join(dir, 'd'), '--import', log]);
    await waitReady(n, `node importing a log with ${name}`);
    const want = expectedIndexes(recs.slice(0, stopAt));
    assert.equal(diffAll(await readAll(n.url), want, { ts: 'log' }), null, `${name}: the records before the bad one are kept, none after`);
    // the error line: not the summary line, and matched without the file's path
    const errorLine = () => n.logs().split('\n').find((l) => /import/.test(l) && !/records read/.test(l) && message.test(l.replace(log, '<log>')));
    await waitFor(async () => errorLine(), { timeoutMs: 10000, what: () => `an import error matching ${message} in the log:\n${n.logs()}` });
    const line = errorLine();
    assert.match(line, /ERROR/, `the import error is logged at ERROR level: ${line}`);
    t.diagnostic(`${name}: ${line}`);
    // still serving
    const h = await getStatus(`${n.url}/ext/health/liveness`);
    assert.equal(h.status, 200);
    // ... but not healthy: health names the failed import
    const all = await getStatus(`${n.url}/ext/health`);
    assert.equal(all.status, 503, all.text);
    assert.equal(all.json.healthy, false);
    assert.ok(all.json.checks.source && all.json.checks.source.error.includes(log), all.text);
    assert.ok(message.test(all.json.checks.source.error.replace(log, '<log>')), all.text);
    const info = await rpc(`${n.url}/ext/info`, 'info.getNodeID', {});
    assert.ok(info.result && /^NodeID-/.test(info.result.nodeID), JSON.stringify(info));
    assert.deepEqual(await n.stop(), { code: 0, sig: null });
    return line;
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
}

test(`kill -9 at random moments of a 20,000-container import, then the same import again (seed ${SEED})`, { timeout: 170000 }, async (t) => {
  const dir = tempDir('snowline-import-kill-');
  const ns = nodes();
  const r = prng(SEED);
  try {
    const recs = makeRecords(20000, { seed: SEED, dupRate: 0.01, maxSize: 12_000 });
    const want = expectedIndexes(recs);
    const all = KINDS.reduce((s, k) => s + want[k].length, 0);
    const log = writeClog(join(dir, 'big.clog'), recs);
    const data = join(dir, 'd');
    const kills = [];
    let have = 0;
    for (let round = 0, restarts = 0; round < 4; round++) {
      // one round kills right after the listening line, before any poll
      const immediate = round === 1;
      const target = Math.min(all - 1, have + Math.max(1, Math.floor((all - have) * (0.05 + 0.6 * r.next()))));
      const n = await ns.start(['--index-enabled', '--data-dir', data, '--import', log]);
      if (!immediate)
        await waitFor(async () => total(await counts(n.url)) >= target,
          { timeoutMs: 60000, intervalMs: 5, what: () => `the import to pass ${target} containers` });
      await n.kill9();
      // What survived: each index a prefix of what the log should give.
      const insp = await ns.start(['--index-enabled', '--data-dir', data]);
      const got = await readAll(insp.url);
      const kept = KINDS.reduce((s, k) => s + got[k].length, 0);
      kills.push(`${immediate ? 'at-listen' : target}->${kept}`);
      assert.equal(diffAll(got, want, { prefix: true, ts: 'log' }), null, `after kill ${round + 1} (${kills.at(-1)})`);
      assert.ok(kept >= have, `kill ${round + 1}: the index shrank from ${have} to ${kept}`);
      have = kept;
      assert.deepEqual(await insp.stop(), { code: 0, sig: null });
      if (have === all && restarts < 4) {
        // the import ran to its end before the kill came (it overshot the target between two
        // polls): nothing is left to interrupt, so the rounds begin again on an empty data dir
        kills.push('(finished: again from empty)');
        rmSync(data, { recursive: true, force: true });
        have = 0;
        round = -1;
        restarts++;
      }
    }
    t.diagnostic(`kills (target->kept) ${kills.join(' ')} of ${all}`);
    assert.ok(have < all, `the last kill still happened mid-import (${have} of ${all})`);
    const n = await ns.start(['--index-enabled', '--data-dir', data, '--import', log]);
    await waitReady(n, 'the final import', 120000);
    assert.equal(diffAll(await readAll(n.url), want, { ts: 'log' }), null, 'the final index equals the log');
    await waitFor(async () => /20000 records read/.test(n.logs()), { timeoutMs: 5000, what: () => `the import summary:\n${n.logs()}` });
    // importing the same file again adds nothing
    assert.deepEqual(await n.stop(), { code: 0, sig: null });
    const again = await ns.start(['--index-enabled', '--data-dir', data, '--import', log]);
    await waitReady(again, 'a repeated import');
    await waitFor(async () => /20000 records read, 0 new containers/.test(again.logs()), { timeoutMs: 30000, what: () => `the import summary to say 0 new:\n${again.logs()}` });
    assert.equal(diffAll(await readAll(again.url), want, { ts: 'log' }), null, 'a second import changes nothing');
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
});

test('SIGTERM during an import exits 0, and the import resumes', { timeout: 90000 }, async () => {
  const dir = tempDir('snowline-import-term-');
  const ns = nodes();
  try {
    const recs = makeRecords(8000, { seed: SEED + 1, maxSize: 8000 });
    const want = expectedIndexes(recs);
    const log = writeClog(join(dir, 'a.clog'), recs);
    const data = join(dir, 'd');
    const n = await ns.start(['--index-enabled', '--data-dir', data, '--import', log]);
    await waitFor(async () => total(await counts(n.url)) > 0, { intervalMs: 5, what: () => 'the import to start' });
    assert.deepEqual(await n.stop(), { code: 0, sig: null }, 'SIGTERM mid-import exits 0');
    const n2 = await ns.start(['--index-enabled', '--data-dir', data, '--import', log]);
    await waitReady(n2, 'the resumed import');
    assert.equal(diffAll(await readAll(n2.url), want, { ts: 'log' }), null);
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
});

test('a record with a bad checksum stops the import at that record', { timeout: 60000 }, async (t) => {
  const recs = makeRecords(1000, { seed: SEED + 2, maxSize: 4000 });
  const buf = encodeClog(recs);
  const off = offsets(recs);
  const k = 700;
  buf[off[k] + 45 + Math.floor(recs[k].bytes.length / 2)] ^= 0x01; // one bit of the container
  const line = await importDamaged(t, 'bad checksum', buf, recs, k, /checksum/);
  assert.match(line, /record 700\b/, 'the error names the record');
  assert.match(line, new RegExp(`at byte ${off[k]}\\b`), 'and the byte offset where the record starts');
});

test('a checksum field that is itself damaged stops the import at that record', { timeout: 60000 }, async (t) => {
  const recs = makeRecords(300, { seed: SEED + 3, maxSize: 4000 });
  const buf = encodeClog(recs);
  const off = offsets(recs);
  buf[off[101] - 1] ^= 0x80; // last checksum byte of record 100
  const line = await importDamaged(t, 'bad checksum byte', buf, recs, 100, /checksum/);
  assert.match(line, /record 100\b/);
  assert.match(line, new RegExp(`at byte ${off[100]}\\b`), 'the record start, not its checksum field');
});

test('a torn last record: every complete record is imported', { timeout: 60000 }, async (t) => {
  const recs = makeRecords(400, { seed: SEED + 4, maxSize: 4000 });
  const full = encodeClog(recs);
  const off = offsets(recs);
  const last = recs.length - 1;
  // cut inside the container bytes of the last record
  await importDamaged(t, 'torn body', full.subarray(0, off[last] + 45 + Math.floor(recs[last].bytes.length / 2)), recs, last, /cut short|truncat/i);
  // cut inside the 45-byte header of the last record
  await importDamaged(t, 'torn header', full.subarray(0, off[last] + 20), recs, last, /cut short|truncat/i);
  // cut inside the checksum
  const line = await importDamaged(t, 'torn checksum', full.subarray(0, off[last + 1] - 2), recs, last, /cut short|truncat/i);
  assert.match(line, new RegExp(`at byte ${off[last]}\\b`), 'the start of the torn record, not the end of the file');
});

test('a record longer than 2 MiB stops the import; exactly 2 MiB is accepted', { timeout: 90000 }, async (t) => {
  const recs = makeRecords(50, { seed: SEED + 5, maxSize: 4000 });
  const limit = { kind: 'X/block', bytes: Buffer.alloc(MAX_CONTAINER, 7) };
  limit.id = sha256(limit.bytes);
  limit.ts = 1617402840262979000n;
  const good = [...recs.slice(0, 30), limit, ...recs.slice(30)];
  // header of a record claiming MAX_CONTAINER + 1 bytes, with that many bytes behind it
  const over = Buffer.alloc(MAX_CONTAINER + 1, 9);
  const head = Buffer.alloc(45);
  head[0] = 0;
  sha256(over).copy(head, 1);
  head.writeBigInt64BE(1617402840262979000n, 33);
  head.writeUInt32BE(over.length, 41);
  const overRec = Buffer.concat([head, over]);
  const after = encodeClog(recs.slice(30)).subarray(8);
  const buf = Buffer.concat([encodeClog(good.slice(0, 31)), overRec, sha256(overRec).subarray(28), after]);
  const line = await importDamaged(t, 'over-long record', buf, good, 31, /limit|too large|too long|longer/i);
  assert.match(line, /record 31\b/);
  assert.match(line, new RegExp(`at byte ${encodeClog(good.slice(0, 31)).length}\\b`));
});

test('an unknown index kind, and a file without the magic', { timeout: 60000 }, async (t) => {
  const recs = makeRecords(100, { seed: SEED + 6, maxSize: 2000 });
  const buf = encodeClog(recs);
  const off = offsets(recs);
  buf[off[40]] = 5; // kind 5 does not exist (the checksum is then wrong too; either error is fine)
  await importDamaged(t, 'unknown kind', buf, recs, 40, /record 40\b/);
  const nomagic = Buffer.from(encodeClog(recs));
  nomagic.write('SLCLOG02', 0);
  await importDamaged(t, 'no magic', nomagic, recs, 0, /magic|not a container log/i);
});

test('a missing import file: the node still serves, and health names the failed import', { timeout: 60000 }, async () => {
  const dir = tempDir('snowline-import-missing-');
  const ns = nodes();
  try {
    const log = join(dir, 'nowhere.clog');
    const n = await ns.start(['--index-enabled', '--data-dir', join(dir, 'd'), '--import', log]);
    const h = await waitFor(async () => {
      const s = await getStatus(`${n.url}/ext/health`);
      return s.status === 503 && s.json && s.json.checks.source && s.json.checks.source.error ? s : undefined;
    }, { timeoutMs: 20000, what: () => `health to report the failed import:\n${n.logs()}` });
    assert.equal(h.json.healthy, false);
    assert.match(h.json.checks.source.error, /nowhere\.clog: cannot open: No such file or directory/);
    assert.equal(h.json.checks.source.message.source, 'import');
    assert.equal((await getStatus(`${n.url}/ext/health/liveness`)).status, 200, 'the node itself is alive');
    assert.deepEqual(await n.stop(), { code: 0, sig: null });
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
});

// ---- spec 001 §3 completeness rules ----

test('completeness (i): indexed once, then --index-enabled=false refuses unless --index-allow-incomplete', { timeout: 90000 }, async () => {
  const dir = tempDir('snowline-complete-i-');
  const ns = nodes();
  try {
    const data = join(dir, 'd');
    const log = writeClog(join(dir, 'a.clog'), makeRecords(50, { seed: SEED + 7, maxSize: 500 }));
    const n1 = await ns.start(['--index-enabled', '--data-dir', data, '--import', log]);
    await waitReady(n1, 'first run');
    assert.deepEqual(await n1.stop(), { code: 0, sig: null });

    for (const off of [['--index-enabled=false'], []]) {
      const r = await runNode([...off, '--data-dir', data]);
      assert.notEqual(r.code, 0, `indexing turned off (${off.join(' ') || 'default'}) must refuse:\n${r.out}`);
      assert.match(r.out, /--index-allow-incomplete/, `the refusal names the flag:\n${r.out}`);
      assert.doesNotMatch(r.out, /listening on/, 'it never served');
    }
    const n2 = await ns.start(['--index-enabled=false', '--index-allow-incomplete', '--data-dir', data]);
    for (const k of KINDS) {
      const r = await post(`${n2.url}/ext/index/${k}`, { jsonrpc: '2.0', id: 1, method: 'index.getLastAccepted', params: {} });
      assert.equal(r.status, 404, `${k} is not served when indexing is off: ${r.status} ${r.text}`);
    }
    const h = await getStatus(`${n2.url}/ext/health`);
    assert.equal(h.status, 200, h.text);
    assert.deepEqual(await n2.stop(), { code: 0, sig: null });
    // It ran without indexing: turning indexing back on now hides a gap.
    const r3 = await runNode(['--index-enabled', '--data-dir', data]);
    assert.notEqual(r3.code, 0, `re-enabling after a run without indexing must refuse:\n${r3.out}`);
    assert.match(r3.out, /--index-allow-incomplete/);
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
});

test('completeness (ii): first run without indexing, then --index-enabled refuses; allowed, it is incomplete', { timeout: 90000 }, async () => {
  const dir = tempDir('snowline-complete-ii-');
  const ns = nodes();
  try {
    const data = join(dir, 'd');
    const n1 = await ns.start(['--data-dir', data]);
    assert.deepEqual(await n1.stop(), { code: 0, sig: null });
    const r = await runNode(['--index-enabled', '--data-dir', data]);
    assert.notEqual(r.code, 0, `must refuse:\n${r.out}`);
    assert.match(r.out, /--index-allow-incomplete/, r.out);
    const n2 = await ns.start(['--index-enabled', '--index-allow-incomplete', '--data-dir', data]);
    const h = await getStatus(`${n2.url}/ext/health`);
    assert.ok(h.json && h.json.checks && h.json.checks.index, `GET /ext/health has an index check: ${h.text}`);
    for (const k of KINDS)
      assert.equal(h.json.checks.index.message[k], 'incomplete', `${k} in ${JSON.stringify(h.json.checks.index)}`);
    // the index is served, just incomplete
    const la = await rpc(`${n2.url}/ext/index/X/tx`, 'index.getLastAccepted', {});
    assert.equal(la.error && la.error.message, 'no containers have been accepted', JSON.stringify(la));
    assert.deepEqual(await n2.stop(), { code: 0, sig: null });
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
});

test('completeness (iii): a fresh dir with indexing is complete, and stays so across restarts', { timeout: 60000 }, async () => {
  const dir = tempDir('snowline-complete-iii-');
  const ns = nodes();
  try {
    const data = join(dir, 'd');
    for (let run = 0; run < 2; run++) {
      const n = await ns.start(['--index-enabled', '--data-dir', data]);
      const h = await getStatus(`${n.url}/ext/health`);
      assert.equal(h.status, 200, h.text);
      for (const k of KINDS) assert.equal(h.json.checks.index.message[k], 'complete', `run ${run + 1}: ${k}`);
      assert.deepEqual(await n.stop(), { code: 0, sig: null });
    }
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
});

// ---- graceful shutdown ----

test('SIGTERM while requests are in flight: they finish, exit code 0', { timeout: 90000 }, async (t) => {
  const dir = tempDir('snowline-import-sigterm-');
  const ns = nodes();
  try {
    // 1024 containers of a few KB: one getContainerRange answer is ~5 MB of
    // hex and takes a few hundred ms under ASan, long enough to be caught mid-way.
    const recs = makeRecords(1024, { seed: SEED + 8, kinds: ['C/block'], maxSize: 40_000 });
    const log = writeClog(join(dir, 'a.clog'), recs);
    const n = await ns.start(['--index-enabled', '--data-dir', join(dir, 'd'), '--import', log, '--http-threads', '4']);
    await waitReady(n, 'node');
    const body = { jsonrpc: '2.0', id: 1, method: 'index.getContainerRange', params: { startIndex: '0', numToFetch: '1024', encoding: 'hex' } };
    let t0 = Date.now();
    const solo = await post(`${n.url}/ext/index/C/block`, body);
    const soloMs = Date.now() - t0;
    assert.equal(solo.json.result.length, 1024);
    // As many requests as worker threads, so each is being served when the signal comes.
    t0 = Date.now();
    const reqs = Array.from({ length: 4 }, () => post(`${n.url}/ext/index/C/block`, body)
      .then((r) => ({ ok: true, r, ms: Date.now() - t0 }), (e) => ({ ok: false, e, ms: Date.now() - t0 })));
    await new Promise((res) => setTimeout(res, Math.min(60, soloMs / 4)));
    // SIGTERM (stop(): SIGKILL 15 s later, so a node stuck in its exit fails the exit check below)
    const [exit, results] = await Promise.all([n.stop(), Promise.all(reqs)]);
    t.diagnostic(`one request alone: ${soloMs} ms; SIGTERM after ${Math.min(60, soloMs / 4)} ms; exit ${JSON.stringify(exit)} after ${Date.now() - t0} ms; ` +
      `results: ${results.map((x) => (x.ok ? `${x.r.status}/${x.r.text.length}B` : `${x.e.cause?.code ?? x.e.message}`) + `@${x.ms}ms`).join(' ')}`);
    assert.deepEqual(exit, { code: 0, sig: null }, `exit status:\n${n.logs().slice(-3000)}`);
    for (const [i, x] of results.entries()) {
      assert.ok(x.ok, `request ${i}, sent before SIGTERM, got no answer: ${x.e && (x.e.cause?.code ?? x.e.message)} after ${x.ms} ms`);
      assert.equal(x.r.status, 200);
      assert.ok(Array.isArray(x.r.json?.result) && x.r.json.result.length === 1024, `request ${i}: a complete answer (${x.r.text.length} bytes)`);
    }
  } finally {
    await ns.killAll();
    cleanup(dir);
  }
});
