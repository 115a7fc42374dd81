// devnet-restart.test.mjs — restarting a devnet node on its data dir (docs/devnet.md, "Live mode and
// restarts"), against the real binary:
//
//  a. the settings that define the history are part of the data: a restart with another seed, size,
//     network or start time is refused (exit 2, the option and both values named), before anything starts;
//  b. kill -9, SIGTERM, and --devnet-interval-ms changed between runs: every restart resumes from the
//     snapshot (logged, well under a second of its own) and each index continues the one chain: every
//     P/C/X block names the container before it as its parent, heights go up by one, block times never go
//     back, and no container at an existing index changes;
//  c. a damaged snapshot is ignored with a warning and the history is made again: the same chain;
//  d. the source logs what an operator wants: the history's start and end with counts, progress.
//
// Size: a small devnet (DEVNET_RESTART_TXS, default 1200 txs).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempDir, cleanup, startNode, runNode, waitReady } from './lib.mjs';
import { KINDS, counts, waitFor } from './store-lib.mjs';
import { readNodeIndexes, unwrapProposervm, parsePBlock, rlpDecode } from './devnet-lib.mjs';

const TXS = String(process.env.DEVNET_RESTART_TXS || 1200);
const SEED = 'snowline-restart';
const dir = tempDir('snowline-devnet-restart-');
const nodes = [];
after(async () => {
  for (const n of nodes) await n.stop().catch(() => {});
  cleanup(dir);
});

const args = (d, extra = []) => ['--devnet', '--index-enabled', '--data-dir', d, '--devnet-seed', SEED, '--devnet-txs', TXS, ...extra];

async function start(d, extra) {
  const n = await startNode(args(d, extra), { timeoutMs: 60000 });
  nodes.push(n);
  await waitReady(n.url, 60000);
  return n;
}

// What the store holds, read through a node that does not generate.
async function readStore(d) {
  const ro = await startNode(['--index-enabled', '--data-dir', d]);
  nodes.push(ro);
  const idx = await readNodeIndexes(ro.url);
  await ro.stop();
  return idx;
}

// The chain shape of the block indexes: parents, heights, times.
function shape(idx) {
  const problems = [];
  const inner = {
    'P/block': (b) => parsePBlock(b).height,
    'X/block': (b) => Number(b.readBigUInt64BE(38)),
    'C/block': (b) => Number(BigInt('0x' + (rlpDecode(b)[0][8].toString('hex') || '0'))),
  };
  for (const k of ['P/block', 'X/block', 'C/block']) {
    let prev = null, time = 0, height = null;
    idx[k].forEach((c, i) => {
      const pb = unwrapProposervm(c.bytes);
      if (prev && pb.parentID !== prev) problems.push(`${k}[${i}] ${c.id}: parent ${pb.parentID}, not the container before it (${prev})`);
      if (pb.vmType !== 'option') {
        if (pb.timestamp < time) problems.push(`${k}[${i}]: time ${pb.timestamp} goes back from ${time}`);
        time = pb.timestamp;
      }
      const h = inner[k](pb.inner);
      if (height !== null && h !== height + 1) problems.push(`${k}[${i}]: height ${h} after ${height}`);
      height = h;
      prev = c.id;
    });
  }
  return problems;
}

// Everything of `before` is still there, at the same index, byte for byte.
function isPrefix(before, after_, what) {
  for (const k of KINDS) {
    assert.ok(after_[k].length >= before[k].length, `${what}: ${k} shrank from ${before[k].length} to ${after_[k].length}`);
    before[k].forEach((c, i) => {
      if (c.id !== after_[k][i].id || !c.bytes.equals(after_[k][i].bytes)) assert.fail(`${what}: ${k}[${i}] was ${c.id}, now ${after_[k][i].id}`);
    });
  }
}

const grew = (a, b) => b['P/block'] > a['P/block'] && b['C/block'] > a['C/block'] && b['X/block'] > a['X/block'];

test('a. a restart with other history settings is refused, naming the setting and both values', async (t) => {
  const d = join(dir, 'settings');
  const n = await start(d, ['--devnet-interval-ms', '0']);
  await n.stop();
  const cases = [
    [['--devnet-seed', 'other'], /--devnet-seed is 'other' but the data in .* was made with 'snowline-restart'; use another --data-dir or the same setting/],
    [['--devnet-txs', '999'], new RegExp(`--devnet-txs is '999' but the data in .* was made with '${TXS}'`)],
    [['--devnet-accounts', '7'], /--devnet-accounts is '7' but .* made with '64'/],
    [['--devnet-validators', '4'], /--devnet-validators is '4' but .* made with '5'/],
    [['--devnet-start-time', '1704067201'], /--devnet-start-time is '1704067201' but .* made with '1704067200'/],
    [['--network', 'fuji'], /--network is 'fuji' but .* made with 'local'/],
    [['--network-id', '4242'], /--network-id is '4242' but .* made with '12345'/],
    [['--devnet-genesis-signers'], /--devnet-genesis-signers is 'true' but .* made with 'false'/],
  ];
  for (const [extra, want] of cases) {
    // the flags come after the defaults in args(): the last one wins
    const r = await runNode([...args(d, ['--devnet-interval-ms', '0']), ...extra]);
    assert.equal(r.code, 2, `${extra.join(' ')}: exit ${r.code}\n${r.out}`);
    assert.match(r.out, want, extra.join(' '));
    assert.doesNotMatch(r.out, /listening on/, `${extra.join(' ')}: the node started`);
  }
  // the same settings, another interval: starts
  const again = await start(d, ['--devnet-interval-ms', '700']);
  await again.stop();
  t.diagnostic(`${cases.length} other settings refused with exit 2`);
});

test('b. kill -9, SIGTERM and another --devnet-interval-ms: each restart resumes from the snapshot and the chains go on without a fork', async (t) => {
  const d = join(dir, 'live');
  const runs = [
    // chain time moves interval/1000 + 1 s a step: 1 s, 2 s, 1 s, 2 s
    { interval: '300', stop: 'kill9' },
    { interval: '1200', stop: 'term' },
    { interval: '250', stop: 'kill9' },
    { interval: '1100', stop: 'term' },
  ];
  let before = null;
  const notes = [];
  for (const [i, r] of runs.entries()) {
    const t0 = Date.now();
    const n = await start(d, ['--devnet-interval-ms', r.interval]);
    const readyMs = Date.now() - t0;
    const c0 = await counts(n.url);
    await waitFor(async () => grew(c0, await counts(n.url)), { timeoutMs: 20000, what: async () => `growth from ${JSON.stringify(c0)}` });
    if (r.stop === 'kill9') await n.kill9(); else await n.stop();
    // the chains first (the fork this guards against), then how the restart went
    const idx = await readStore(d);
    assert.deepEqual(shape(idx), [], `after run ${i}`);
    if (before) isPrefix(before, idx, `run ${i}`);
    if (i > 0) {
      const log = n.logs();
      assert.match(log, /devnet: resumed from .*devnet-snapshot\.bin \(live step \d+, \d+ containers\) in (\d+\.\d+) s/, `run ${i}: not resumed from the snapshot:\n${log}`);
      const secs = Number(/resumed from .* in (\d+\.\d+) s/.exec(log)[1]);
      assert.ok(secs < 1, `run ${i}: resuming took ${secs} s`);
      assert.doesNotMatch(log, /generating the history/, `run ${i}: the history was generated again`);
      notes.push(`run ${i} (${r.interval} ms after a ${runs[i - 1].stop}): ready in ${readyMs} ms, resumed in ${secs} s`);
    }
    before = idx;
  }
  t.diagnostic(notes.join('; '));
  t.diagnostic(`final store: ${KINDS.map((k) => `${k} ${before[k].length}`).join(', ')}`);
});

test('c. a damaged snapshot is ignored with a warning: the history is made again, the same chain', async () => {
  const d = join(dir, 'live');
  const f = join(d, 'devnet-snapshot.bin');
  assert.ok(existsSync(f));
  const b = readFileSync(f);
  b[b.length >> 1] ^= 0x55;
  writeFileSync(f, b);
  const before = await readStore(d);
  const n = await start(d, ['--devnet-interval-ms', '0']);
  await n.stop();
  assert.match(n.logs(), /WARN .*devnet: ignoring .*devnet-snapshot\.bin: checksum mismatch; generating the history again/);
  assert.match(n.logs(), /devnet: generating the history/);
  const idx = await readStore(d);
  assert.deepEqual(shape(idx), []);
  isPrefix(before, idx, 'after the damaged snapshot');
  for (const k of KINDS) assert.equal(idx[k].length, before[k].length, `${k}: the replayed steps added nothing new`);
  // the snapshot written after the replay is whole again
  const again = await start(d, ['--devnet-interval-ms', '0']);
  await again.stop();
  assert.match(again.logs(), /devnet: resumed from/);
});

test('d. the source logs the history: start, progress, end with counts, readiness', async () => {
  const d = join(dir, 'logs');
  const n = await start(d, ['--devnet-interval-ms', '0', '--log-level', 'debug']);
  await n.stop();
  const log = n.logs();
  assert.match(log, /INFO source: devnet: generating the history of seed 'snowline-restart' on local \(\d+ txs\)/);
  assert.match(log, /INFO source: devnet: history made in [\d.]+ s: \d+ txs, \d+ containers \(P\/block \d+, C\/block \d+, X\/tx \d+, X\/block \d+, X\/vtx \d+\), \d+ new to the store/);
  assert.match(log, /INFO source: devnet: ready in [\d.]+ s/);
  // each container at debug, on its chain's logger: kind, index, id
  assert.match(log, /DEBUG P: P\/block 0: [1-9A-HJ-NP-Za-km-z]+ \(\d+ bytes\)/);
  assert.match(log, /DEBUG C: C\/block 0: /);
  assert.match(log, /DEBUG X: X\/tx 0: /);
});
