// devnet.test.mjs — issue 4's acceptance against the real binary:
//
//  a. same seed, same bytes: two `snowline devnet --out` runs write identical
//     logs and manifests; another seed writes other bytes;
//  b. every container decodes with snowline's codec: all of them in one
//     process (`snowline decode --bench`, the chain's decoder as the indexer
//     uses it; it has no vertex kind), and a 10% sample of every index,
//     vertices included, through `snowline decode --reencode` (one process
//     per container: too slow under ASan for all of them) — bytes identical;
//  c. every P- and X-chain tx, taken out of the containers by our own walkers,
//     parses in @avalabs/avalanchejs 5.2.0, which packs it back to the same
//     bytes, so the same id (the one allowance: its own bug of packing an nftfx
//     credential's type id 14 as 9); ids also equal `snowline decode`'s on a
//     sample of blocks. No skip list: the devnet makes no propertyfx tx;
//  d. a ledger replay (devnet-ledger.mjs), independent of the generator, of the
//     history served by `snowline devnet` through /ext/index, compared with
//     the manifest;
//  e. the node keeps growing the history live, and the "walk the X-chain
//     history" recipe works (index.getContainerByIndex on X/tx, then avm.getTx);
//  f. kill -9 and restart on the same data dir: the indexes stay prefixes of a
//     fresh run's, and keep growing.
//
// Size: DEVNET_TXS (default 3000) txs per history; seed: DEVNET_SEED (default snowline-e2e).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempDir, cleanup, startNode, rpc, waitReady } from './lib.mjs';
import { KINDS, counts, waitFor } from './store-lib.mjs';
import { readClog, byKind, readNodeIndexes, extractTxs, ajsRepack, ajsUnsignedBytes, typeName, parseBigJson, idOf } from './devnet-lib.mjs';
import { replay } from './devnet-ledger.mjs';

const TXS = String(process.env.DEVNET_TXS || 3000);
const SEED = process.env.DEVNET_SEED || 'snowline-e2e';
const dir = tempDir('snowline-devnet-');
const nodes = [];
after(async () => {
  for (const n of nodes) await n.stop().catch(() => {});
  cleanup(dir);
});

function devnetOut(name, seed, extra = []) {
  const out = join(dir, `${name}.clog`), manifest = join(dir, `${name}.json`);
  const r = spawnSync(BIN, ['devnet', '--out', out, '--manifest', manifest, '--devnet-seed', seed, '--devnet-txs', TXS, ...extra],
    { encoding: 'utf8', timeout: 300000, killSignal: 'SIGKILL' });
  assert.equal(r.status, 0, `snowline devnet --out: exit ${r.status}: ${r.stderr}`);
  return { out, manifest };
}

// Run `snowline decode` on many inputs, `jobs` processes at a time; resolves [{code, stdout, stderr}].
async function decodeMany(items, jobs = 2) {
  const res = new Array(items.length);
  let next = 0;
  const one = (i) => new Promise((resolve) => {
    const f = join(dir, `item-${i}.hex`);
    writeFileSync(f, Buffer.from(items[i].bytes).toString('hex'));
    const p = spawn(BIN, ['decode', ...items[i].args, `@${f}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    // a decode stuck for 60 s is killed: code null, and the caller's exit check fails with this
    const t = setTimeout(() => { stderr += '\n(killed: still running after 60 s)'; p.kill('SIGKILL'); }, 60000);
    p.on('close', (code) => { clearTimeout(t); res[i] = { code, stdout, stderr }; resolve(); });
  });
  const worker = async () => { while (next < items.length) await one(next++); };
  await Promise.all(Array.from({ length: jobs }, worker));
  return res;
}

let history; // { out, manifest } of the reference run
test('a. same seed, same bytes; another seed, other bytes', (t) => {
  const t0 = Date.now();
  const a = devnetOut('a', SEED), b = devnetOut('b', SEED), c = devnetOut('c', `${SEED}-other`);
  const [la, lb, lc] = [a, b, c].map((x) => readFileSync(x.out));
  const [ma, mb, mc] = [a, b, c].map((x) => readFileSync(x.manifest));
  assert.ok(la.length > 100_000, `log of ${la.length} bytes`);
  assert.ok(la.equals(lb), 'same seed: container logs differ');
  assert.ok(ma.equals(mb), 'same seed: manifests differ');
  assert.ok(!la.equals(lc), 'another seed: same container log');
  assert.ok(!ma.equals(mc), 'another seed: same manifest');
  // no container of one history appears in the other
  const ids = new Set(readClog(a.out).map((r) => r.id));
  assert.equal(readClog(c.out).filter((r) => ids.has(r.id)).length, 0, 'containers shared between seeds');
  history = a;
  const m = JSON.parse(ma);
  t.diagnostic(`3 runs of ${TXS} txs in ${Date.now() - t0} ms`);
  assert.deepEqual(Object.fromEntries(KINDS.map((k) => [k, readClog(a.out).filter((r) => r.kind === k).length])), m.containers,
    'manifest container counts');
});

test('b. every container decodes with snowline; a 10% sample re-encodes to the same bytes', async (t) => {
  assert.ok(history, 'needs test a');
  const recs = readClog(history.out);
  // 1. all of them, in one process: the chain's decoder, as the indexer uses it
  const tag = { 'P/block': 'p', 'C/block': 'c', 'X/tx': 'X', 'X/block': 'x' };
  const parts = [];
  const want = {};
  for (const r of recs) {
    if (!tag[r.kind]) continue;
    const h = Buffer.alloc(5);
    h[0] = tag[r.kind].charCodeAt(0);
    h.writeUInt32BE(r.bytes.length, 1);
    parts.push(h, r.bytes);
    want[r.kind] = (want[r.kind] ?? 0) + 1;
  }
  const set = join(dir, 'bench.set');
  writeFileSync(set, Buffer.concat(parts));
  const r = spawnSync(BIN, ['decode', '--bench', set, '--rounds', '1'], { encoding: 'utf8', maxBuffer: 16 << 20, timeout: 300000, killSignal: 'SIGKILL' });
  assert.equal(r.status, 0, `decode --bench: ${r.stderr}`);
  const kinds = JSON.parse(r.stdout).kinds;
  const names = { 'P/block': 'proposervm+pchain.block', 'C/block': 'proposervm+cchain.block', 'X/tx': 'xchain.tx', 'X/block': 'proposervm+xchain.block' };
  for (const [k, n] of Object.entries(want)) assert.equal(kinds[names[k]].containers, n, `${k}: decoded`);

  // 2. every 10th container of each index (vertices included) through --reencode; its id too
  const byK = byKind(recs);
  const sample = [];
  for (const k of KINDS) byK[k].forEach((c, i) => { if (i % 10 === 0) sample.push(c); });
  const args = { 'P/block': ['--chain', 'P'], 'C/block': ['--chain', 'C'], 'X/tx': ['--chain', 'X'], 'X/block': ['--chain', 'X'], 'X/vtx': ['--kind', 'xchain.vertex'] };
  const t0 = Date.now();
  const out = await decodeMany(sample.flatMap((c) => [{ bytes: c.bytes, args: [...args[c.kind], '--reencode'] }, { bytes: c.bytes, args: args[c.kind] }]));
  sample.forEach((c, i) => {
    const re = out[2 * i], js = out[2 * i + 1];
    assert.equal(re.code, 0, `${c.kind} ${c.id}: decode --reencode: ${re.stderr}`);
    assert.equal(JSON.parse(re.stdout).hex, '0x' + c.bytes.toString('hex'), `${c.kind} ${c.id}: re-encoded bytes differ`);
    assert.equal(js.code, 0, `${c.kind} ${c.id}: decode: ${js.stderr}`);
    const d = parseBigJson(js.stdout);
    assert.equal(d.id ?? d.value.id, c.id, `${c.kind}: decode's id`);
    if (c.kind === 'X/vtx') assert.equal(d.kind, 'xchain.vertex');
  });
  t.diagnostic(`decoded all ${Object.values(want).reduce((a, b) => a + b, 0)} P/C/X-tx/X-block containers in one process; ` +
    `${sample.length} sampled containers (${byK['X/vtx'].filter((_, i) => i % 10 === 0).length} vertices) decoded and re-encoded one process each in ${Date.now() - t0} ms`);
});

let extracted; // extractTxs of the reference log
test('c. every P- and X-chain tx parses in avalanchejs 5.2.0 with the same id', async (t) => {
  assert.ok(history, 'needs test a');
  const manifest = JSON.parse(readFileSync(history.manifest, 'utf8'));
  const idx = byKind(readClog(history.out));
  extracted = extractTxs(idx, { bin: BIN, dir, ap5Time: manifest.apricotPhase5Time });
  const x = extracted;
  assert.equal(x.P.length, manifest.chains.P.txs, 'P txs found in the blocks');
  assert.equal(x.X.length, manifest.chains.X.txs, 'X txs found in X/tx and the blocks');
  // every vertex tx is an X/tx container, in the same order
  const vtxTxs = x.xVertices.flatMap((v) => v.txs.map(idOf));
  assert.deepEqual(vtxTxs, idx['X/tx'].map((c) => c.id), 'vertices list the X/tx containers in order');
  const counts = { P: {}, X: {} };
  let nftCreds = 0;
  for (const chain of ['P', 'X']) {
    for (const tx of x[chain]) {
      // every tx parses: no skip list
      assert.ok(tx.signed, `${chain} ${tx.id}: avalanchejs cannot parse it: ${tx.ajsError}`);
      const type = typeName(tx.signed.unsignedTx);
      counts[chain][type] = (counts[chain][type] ?? 0) + 1;
      const packed = ajsRepack(chain, tx.signed);
      if (packed.equals(tx.bytes)) continue;
      // avalanchejs 5.2.0 packs an nftfx credential (type 14) back as secp256k1fx (9): the only difference
      // allowed, and only in the credentials: the unsigned tx (what the signatures cover) packs identically
      assert.equal(chain, 'X', `P ${tx.id} (${type}): avalanchejs repacks other bytes`);
      assert.equal(packed.length, tx.bytes.length, `${chain} ${tx.id}: avalanchejs repacks ${packed.length} bytes of ${tx.bytes.length}`);
      const unsigned = ajsUnsignedBytes(chain, tx.signed);
      assert.ok(unsigned.equals(tx.bytes.subarray(0, unsigned.length)), `${chain} ${tx.id} (${type}): avalanchejs repacks the unsigned tx to other bytes`);
      const diff = [...packed].map((b, i) => [i, tx.bytes[i], b]).filter(([, a, b]) => a !== b);
      assert.ok(diff.every(([i, a, b]) => i >= unsigned.length && a === 14 && b === 9), `${chain} ${tx.id} (${type}): avalanchejs repacks other bytes`);
      nftCreds++;
    }
  }
  // the X-chain kinds all parsed (fungible and NFT assets, transfers, mints, atomic moves)
  for (const type of ['BaseTx', 'CreateAssetTx', 'OperationTx', 'ImportTx', 'ExportTx']) assert.ok(counts.X[type] > 0, `X ${type}: none parsed`);
  assert.equal(Object.values(counts.X).reduce((a, b) => a + b, 0), manifest.chains.X.txs, 'X txs parsed by avalanchejs');
  for (const [type, n] of Object.entries(manifest.X.txCounts)) assert.equal(counts.X[type] ?? 0, n, `X ${type}`);
  // snowline decode's tx ids for every 10th block of P and X (and X/tx containers' ids are their sha256)
  const blocks = [...idx['P/block'].filter((_, i) => i % 10 === 3).map((c) => ({ c, chain: 'P' })),
    ...idx['X/block'].filter((_, i) => i % 10 === 3).map((c) => ({ c, chain: 'X' }))];
  const out = await decodeMany(blocks.map(({ c, chain }) => ({ bytes: c.bytes, args: ['--chain', chain] })));
  let compared = 0;
  blocks.forEach(({ c, chain }, i) => {
    assert.equal(out[i].code, 0, out[i].stderr);
    const d = parseBigJson(out[i].stdout).inner.value;
    const sl = [...(d.txs ?? []), ...(d.tx ? [d.tx] : [])].map((tx) => tx.id);
    const mine = x[chain].filter((tx) => (chain === 'P' ? tx.block.index === idx['P/block'].indexOf(c) : tx.container === idx['X/block'].indexOf(c) && tx.era === 'block'));
    assert.deepEqual(mine.map((tx) => tx.id), sl, `${chain} block ${c.id}: tx ids`);
    compared += sl.length;
  });
  t.diagnostic(`avalanchejs parsed P ${JSON.stringify(counts.P)}; X ${JSON.stringify(counts.X)}; ` +
    `${nftCreds} X txs repack with nftfx credential ids as secp256k1fx (avalanchejs quirk, bytes otherwise equal)`);
  t.diagnostic(`ids compared with snowline decode on ${compared} txs of ${blocks.length} blocks`);
  // every P type the generator claims to make was seen
  for (const [type, n] of Object.entries(manifest.P.txCounts)) assert.equal(counts.P[type] ?? 0, n, `P ${type}`);
});

test('d. ledger replay of the history served by snowline devnet matches the manifest', async (t) => {
  assert.ok(history, 'needs test a');
  const data = join(dir, 'ledger');
  const node = await startNode(['--devnet', '--index-enabled', '--devnet-interval-ms', '0', '--data-dir', data,
    '--devnet-seed', SEED, '--devnet-txs', TXS]);
  nodes.push(node);
  await waitReady(node.url, 60000);
  const idx = await readNodeIndexes(node.url);
  await node.stop();
  // the index serves exactly the log's containers, in order
  const log = byKind(readClog(history.out));
  for (const k of KINDS) {
    assert.equal(idx[k].length, log[k].length, `${k}: served ${idx[k].length}, the log has ${log[k].length}`);
    idx[k].forEach((c, i) => { if (c.id !== log[k][i].id || c.ts !== log[k][i].ts || !c.bytes.equals(log[k][i].bytes)) assert.fail(`${k}[${i}] differs from the log`); });
  }
  const mfile = join(data, 'devnet-manifest.json');
  assert.ok(existsSync(mfile), 'the node writes devnet-manifest.json');
  assert.ok(readFileSync(mfile).equals(readFileSync(history.manifest)), 'the node\'s manifest equals the --out manifest');
  const manifest = JSON.parse(readFileSync(mfile, 'utf8'));
  const txs = extractTxs(idx, { bin: BIN, dir, ap5Time: manifest.apricotPhase5Time });
  const { problems, stats } = replay({ txs, manifest, sigSample: 3 });
  t.diagnostic(`replayed P ${stats.txs.P}, X ${stats.txs.X}, C atomic ${stats.txs.C} txs; ${stats.sigsChecked} signatures recovered to their owners; ` +
    `${stats.ajsFallback} X txs read without avalanchejs (propertyfx); ${stats.sharedInFlight} atomic UTXOs in flight; supply ${stats.supply.replay}`);
  t.diagnostic(`genesis from the manifest: P ${stats.genesis.P} outputs (${stats.genesis.spent.P} spent), X ${stats.genesis.X} (${stats.genesis.spent.X} spent), ` +
    `${stats.genesis.validators} validators; ${stats.genesis.total} nAVAX = genesisSupply`);
  t.diagnostic(`fees seen: ${JSON.stringify(stats.fees)}`);
  assert.deepEqual(problems, [], `${problems.length} ledger problems:\n${problems.slice(0, 30).join('\n')}`);
});

let live; // the live node (e, f) and a fresh reference run
test('e. snowline devnet grows the history live; walking X/tx with avm.getTx works, and txs inside X/blocks resolve', async (t) => {
  const a = join(dir, 'live'), ref = join(dir, 'ref');
  const args = (d) => ['--devnet', '--index-enabled', '--devnet-interval-ms', '500', '--data-dir', d, '--devnet-seed', SEED, '--devnet-txs', TXS];
  const node = await startNode(args(a));
  nodes.push(node); // stopped by after() even when the second start fails
  const fresh = await startNode(args(ref));
  nodes.push(fresh);
  live = { node, fresh, dir: a, args };
  await waitReady(node.url, 60000);
  const c0 = await counts(node.url);
  await waitFor(async () => {
    const c = await counts(node.url);
    return c['P/block'] > c0['P/block'] && c['C/block'] > c0['C/block'] && c['X/block'] > c0['X/block'];
  }, { timeoutMs: 15000, what: async () => `P/block, C/block and X/block to grow from ${JSON.stringify(c0)} (now ${JSON.stringify(await counts(node.url))})` });
  const c1 = await counts(node.url);
  t.diagnostic(`after the history ${JSON.stringify(c0)}, then ${JSON.stringify(c1)}`);
  assert.equal(c1['X/tx'], c0['X/tx'], 'X/tx is closed after Cortina');
  assert.equal(c1['X/vtx'], c0['X/vtx'], 'X/vtx is closed after Cortina');

  // the spec's recipe: walk X/tx by index, resolve each id with avm.getTx
  const X = `${node.url}/ext/bc/X`, ix = `${node.url}/ext/index/X/tx`;
  const last = await rpc(ix, 'index.getLastAccepted', { encoding: 'hex' });
  const n = Number(last.result.index) + 1;
  for (let i = 0; i < n; i++) {
    const c = await rpc(ix, 'index.getContainerByIndex', { index: String(i), encoding: 'hex' });
    assert.ok(c.result, `getContainerByIndex ${i}: ${JSON.stringify(c.error)}`);
    const hex = await rpc(X, 'avm.getTx', { txID: c.result.id, encoding: 'hex' });
    assert.ok(hex.result, `avm.getTx ${c.result.id}: ${JSON.stringify(hex.error)}`);
    assert.equal(hex.result.tx, c.result.bytes, `X/tx[${i}] ${c.result.id}: avm.getTx hex bytes`);
    if (i % 5 === 0 || i === n - 1) {
      const js = await rpc(X, 'avm.getTx', { txID: c.result.id, encoding: 'json' });
      assert.ok(js.result && typeof js.result.tx === 'object', `avm.getTx json ${c.result.id}: ${JSON.stringify(js.error)}`);
      assert.equal(js.result.encoding, 'json');
      assert.equal(js.result.tx.id, c.result.id, `avm.getTx json id of X/tx[${i}]`);
    }
  }
  t.diagnostic(`walked ${n} X/tx containers through avm.getTx`);

  // after Cortina the X-chain's txs live inside X/blocks: avm.getTx finds those too
  const idx = { 'P/block': [], 'C/block': [], 'X/tx': [], 'X/vtx': [] };
  const blocks = [];
  const nb = Math.min(Number((await rpc(`${node.url}/ext/index/X/block`, 'index.getLastAccepted', {})).result.index) + 1, 60);
  for (let i = 0; i < nb; i++) {
    const c = await rpc(`${node.url}/ext/index/X/block`, 'index.getContainerByIndex', { index: String(i) });
    const hexb = c.result.bytes;
    blocks.push({ id: c.result.id, bytes: Buffer.from(hexb.slice(2, hexb.length - 8), 'hex'), ts: 0 });
  }
  idx['X/block'] = blocks;
  const inBlocks = extractTxs(idx, { bin: BIN, dir, ap5Time: 0 }).X;
  assert.ok(inBlocks.length > 0, 'the first X/blocks hold txs');
  for (const [j, tx] of inBlocks.entries()) {
    const hex = await rpc(X, 'avm.getTx', { txID: tx.id, encoding: 'hexnc' });
    assert.ok(hex.result, `avm.getTx of block tx ${tx.id}: ${JSON.stringify(hex.error)}`);
    assert.equal(hex.result.tx, '0x' + Buffer.from(tx.bytes).toString('hex'), `block tx ${tx.id}: avm.getTx bytes`);
    if (j % 7 === 0) {
      const js = await rpc(X, 'avm.getTx', { txID: tx.id, encoding: 'json' });
      assert.equal(js.result?.tx?.id, tx.id, `avm.getTx json id of block tx ${tx.id}`);
    }
  }
  t.diagnostic(`resolved ${inBlocks.length} txs of ${nb} X/blocks through avm.getTx`);
});

test('f. kill -9 and restart on the same data dir: no gap, no duplicate, keeps growing', async (t) => {
  assert.ok(live, 'needs test e');
  const { node, fresh, dir: d, args } = live;
  await new Promise((r) => setTimeout(r, 1200)); // a few more live steps
  await node.kill9();
  const before = await (async () => { // read what the store kept, through a node that does not generate
    const ro = await startNode(['--index-enabled', '--data-dir', d]);
    nodes.push(ro);
    const c = await counts(ro.url);
    await ro.stop();
    return c;
  })();
  const again = await startNode(args(d));
  nodes.push(again);
  await waitReady(again.url, 60000);
  await waitFor(async () => { const c = await counts(again.url); return c['P/block'] > before['P/block'] + 1 && c['C/block'] > before['C/block'] + 1; },
    { timeoutMs: 15000, what: async () => `growth after the restart from ${JSON.stringify(before)} (now ${JSON.stringify(await counts(again.url))})` });
  await again.stop();
  // compare with the fresh run, once it is at least as far
  const ro = await startNode(['--index-enabled', '--data-dir', d]);
  nodes.push(ro);
  const got = await readNodeIndexes(ro.url);
  await ro.stop();
  const target = Object.fromEntries(KINDS.map((k) => [k, got[k].length]));
  await waitFor(async () => { const c = await counts(fresh.url); return KINDS.every((k) => c[k] >= target[k]); },
    { timeoutMs: 30000, what: async () => `the fresh run to reach ${JSON.stringify(target)} (now ${JSON.stringify(await counts(fresh.url))})` });
  const ref = await readNodeIndexes(fresh.url);
  await fresh.stop();
  for (const k of KINDS) {
    const ids = new Set();
    got[k].forEach((c, i) => {
      if (ids.has(c.id)) assert.fail(`${k}[${i}]: ${c.id} twice`);
      ids.add(c.id);
      if (c.id !== ref[k][i].id || !c.bytes.equals(ref[k][i].bytes) || c.ts !== ref[k][i].ts) assert.fail(`${k}[${i}]: ${c.id}, the fresh run has ${ref[k][i].id} (gap, reorder or other bytes)`);
    });
  }
  t.diagnostic(`before the kill ${JSON.stringify(before)}; after the restart ${JSON.stringify(target)}: a prefix of the fresh run's indexes`);
});
