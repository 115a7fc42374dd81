// devnet-cli.test.mjs — `snowline devnet` from outside: its command line, its networks, its proposers.
//
//  a. `devnet --help` prints the devnet's own usage (--out, --manifest, the devnet options, the node options
//     it passes on, with the devnet's defaults), also where an option's value would be (`--out --help`
//     writes no file called --help);
//  b. `devnet --out` takes --config-file (a devnet node's config file: its node keys are ignored) and shows
//     progress on standard error;
//  c. every bad argument, in both forms (`devnet --out`, the devnet node, `node --devnet`): exit 2 and a
//     message naming the argument and why; zero counts no longer mean the default;
//  d. --network fuji / mainnet: the manifest, every P/X/C tx and the node (info, /ext/bc/<id>) carry that
//     network's ids; the C-chain's atomic txs switch to the batched layout at the network's real
//     ApricotPhase5 time, as the codec expects;
//  e. proposers: every signed P/X/C proposervm block's certificate is a manifest node's, its signature
//     verifies (node:crypto, over avalanchego's header), and the manifest's per-node block lists are
//     exactly what the containers show.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate, verify as cryptoVerify } from 'node:crypto';
import { readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempDir, cleanup, startNode, rpc, waitReady, cb58 } from './lib.mjs';
import { readClog, byKind, unwrapProposervm, parseCBlock, extractTxs, rlpDecode, startDevnet } from './devnet-lib.mjs';

const dir = tempDir('snowline-devnet-cli-');
const nodes = [];
after(async () => {
  for (const n of nodes) await n.stop().catch(() => {});
  cleanup(dir);
});

const run = (args, opts = {}) => spawnSync(BIN, args, { encoding: 'utf8', cwd: dir, timeout: 60000, ...opts });

function devnetOut(name, extra = []) {
  const out = join(dir, `${name}.clog`), manifest = join(dir, `${name}.json`);
  const r = run(['devnet', '--out', out, '--manifest', manifest, '--devnet-txs', '800', ...extra]);
  assert.equal(r.status, 0, `devnet --out ${extra.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return { out, manifest, stderr: r.stderr, m: JSON.parse(readFileSync(manifest, 'utf8')) };
}

test('a. devnet --help is the devnet\'s own usage, wherever --help stands', () => {
  for (const args of [['devnet', '--help'], ['devnet', '--out', '--help'], ['devnet', '--out', 'x.clog', '--help'], ['devnet', '--devnet-seed', 'a', '-h']]) {
    const r = run(args);
    assert.equal(r.status, 0, `${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
    assert.match(r.stdout, /^usage: snowline devnet \[options\]/, args.join(' '));
    for (const opt of ['--out', '--manifest', '--devnet-seed', '--devnet-txs', '--devnet-accounts', '--devnet-validators',
      '--devnet-start-time', '--devnet-interval-ms', '--network ', '--network-id', '--config-file', '--data-dir', '--http-port', '--log-level'])
      assert.ok(r.stdout.includes(opt), `${args.join(' ')}: usage lacks ${opt}`);
    assert.match(r.stdout, /--index-enabled\[=bool\] .*\(default true\)/, 'the devnet node indexes by default');
    assert.match(r.stdout, /--network VALUE .*\(default local\)/);
    assert.doesNotMatch(r.stdout, /usage: snowline node/);
    for (const opt of ['--follow ', '--import ', '--devnet[']) assert.ok(!r.stdout.includes(opt), `usage offers ${opt}`);
  }
  assert.ok(!existsSync(join(dir, '--help')), '`devnet --out --help` wrote a file called --help');
  assert.ok(!existsSync(join(dir, 'x.clog')));
});

test('b. devnet --out takes --config-file (its node keys ignored) and shows progress', () => {
  const cfg = join(dir, 'devnet.json');
  writeFileSync(cfg, JSON.stringify({ 'devnet-seed': 'from-a-file', 'devnet-txs': 600, 'http-port': 9999, 'devnet-interval-ms': 500, 'log-level': 'debug' }));
  const out = join(dir, 'cfg.clog'), manifest = join(dir, 'cfg.json');
  const r = run(['devnet', '--out', out, '--manifest', manifest, '--config-file', cfg]);
  assert.equal(r.status, 0, r.stderr);
  const m = JSON.parse(readFileSync(manifest, 'utf8'));
  assert.equal(m.seed, 'from-a-file');
  assert.ok(readClog(out).length > 100);
  // not a terminal: plain progress lines, then the summary
  assert.match(r.stderr, /snowline devnet: 600\/600 txs, \d+ containers, \d+ tx\/s, ETA 0 s\n/);
  assert.match(r.stderr, /snowline devnet: \d+ containers written to .*cfg\.clog in [\d.]+ s\n$/);
  // the same options as flags write the same history
  const flags = devnetOut('flags', ['--devnet-seed', 'from-a-file', '--devnet-txs', '600']);
  assert.ok(readFileSync(flags.out).equals(readFileSync(out)));
});

test('c. bad arguments: exit 2 with the argument named and why', () => {
  const d = join(dir, 'bad-data');
  const node = (extra) => ['devnet', '--data-dir', d, '--http-port', '0', ...extra];
  const cases = [
    [['devnet', '--out', 'z.clog', '--devnet-txs', '0'], /--devnet-txs must be at least 1, not 0/],
    [['devnet', '--out', 'z.clog', '--devnet-accounts', '0'], /--devnet-accounts must be at least 1, not 0/],
    [['devnet', '--out', 'z.clog', '--devnet-validators', '0'], /--devnet-validators must be at least 1, not 0/],
    [node(['--devnet-txs', '0']), /^snowline devnet: --devnet-txs must be at least 1, not 0/],
    [node(['--devnet-accounts', '0']), /--devnet-accounts must be at least 1, not 0/],
    [node(['--devnet-validators', '0']), /--devnet-validators must be at least 1, not 0/],
    [['node', '--devnet', '--data-dir', d, '--devnet-txs', '0'], /^snowline node: --devnet-txs must be at least 1, not 0/],
    [['devnet', '--out', 'z.clog', '--devnet-start-time', '0'], /--devnet-start-time must be a unix time after 0/],
    [['devnet', '--out', '--manifest', 'm.json'], /--out needs a file name, not '--manifest'/],
    [['devnet', '--out', 'z.clog', '--manifest', '--devnet-txs', '5'], /--manifest needs a file name, not '--devnet-txs'/],
    [['devnet', '--out', 'z.clog', '--http-port', '1'], /--http-port is a node option; it means nothing with --out/],
    [['devnet', '--out', 'z.clog', '--devnet-interval-ms', '1'], /--devnet-interval-ms is a node option/],
    [['devnet', '--manifest', 'm.json'], /--manifest goes with --out/],
    [['devnet', '--out', 'z.clog', '--network', 'testnet'], /--network must be local, fuji or mainnet, not 'testnet'/],
    [node(['--network', 'testnet']), /--network must be local, fuji or mainnet, not 'testnet'/],
    [['devnet', '--out', 'z.clog', '--network', 'fuji', '--network-id', '1'], /--network-id is 1 but --network fuji is network 5/],
    [node(['--network', 'mainnet', '--network-id', '12345']), /--network-id is 12345 but --network mainnet is network 1/],
    [node(['--network-id', '1']), /--network-id 1 is mainnet's; a local devnet takes 12345/],
    [['devnet', '--out', 'z.clog', '--devnet-txs', 'many'], /--devnet-txs must be a whole number .* not 'many'/],
    [['devnet', '--out', 'z.clog', '--devnet-seed', ''], /--devnet-seed must be 1 to 200 bytes/],
    [['devnet', '--out', 'z.clog', '--frobnicate'], /unknown option '--frobnicate'/],
    [node(['--frobnicate']), /unknown option '--frobnicate'/],
    [['devnet', '--out', join(dir, 'no', 'such', 'dir.clog')], /--out .*dir\.clog: No such file or directory/],
  ];
  for (const [args, want] of cases) {
    const r = run(args, { timeout: 20000 });
    assert.equal(r.status, 2, `${args.join(' ')}: exit ${r.status} (${r.signal ?? ''}): ${r.stderr}`);
    assert.match(r.stderr, want, args.join(' '));
    assert.doesNotMatch(r.stderr, /listening on/, `${args.join(' ')}: a node started`);
  }
  assert.ok(!existsSync(join(dir, 'z.clog')), 'a refused --out wrote its file');
  assert.ok(!readdirSync(dir).includes('--manifest'));
});

// The network id and chain id every P/X tx and C atomic tx carries (RewardValidatorTx has no base).
function checkTxIds(txs, m) {
  const want = { P: '11111111111111111111111111111111LpoYY', X: m.network.xChainId, C: m.network.cChainId };
  let n = 0;
  for (const chain of ['P', 'X', 'C']) {
    for (const tx of txs[chain]) {
      const b = tx.bytes;
      if (chain === 'P' && b.readUInt32BE(2) === 20) continue; // RewardValidatorTx
      assert.equal(b.readUInt32BE(6), m.network.networkId, `${chain} tx ${tx.id}: network id`);
      assert.equal(cb58(Buffer.from(b.subarray(10, 42))), want[chain], `${chain} tx ${tx.id}: blockchain id`);
      n++;
    }
  }
  return n;
}

test('d. --network fuji and mainnet: their ids everywhere, their real ApricotPhase5', async (t) => {
  const nets = {
    fuji: { id: 5, hrp: 'fuji', x: '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm', c: 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp',
      avax: 'U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK', evm: 43113, ap5: 1637766000 },
    mainnet: { id: 1, hrp: 'avax', x: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM', c: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5',
      avax: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z', evm: 43114, ap5: 1638468000 },
  };
  for (const [name, n] of Object.entries(nets)) {
    // start ten days before the network's ApricotPhase5, so the history crosses it
    const start = n.ap5 - 10 * 86400;
    const h = devnetOut(name, ['--network', name, '--devnet-start-time', String(start)]);
    const m = h.m;
    assert.deepEqual(m.network, { name, networkId: n.id, hrp: n.hrp, pChainId: '11111111111111111111111111111111LpoYY', xChainId: n.x, cChainId: n.c, avaxAssetId: n.avax, evmChainId: n.evm });
    assert.equal(m.networkId, n.id);
    assert.equal(m.avaxAssetId, n.avax);
    assert.equal(m.apricotPhase5Time, n.ap5);
    assert.equal(m.C.chainId, n.evm);
    assert.ok(m.accounts.every((a) => a.xAddress.startsWith(`X-${n.hrp}1`) && a.pAddress.startsWith(`P-${n.hrp}1`)));
    // every tx carries the network's ids; the extData layout flips at the real AP5 (parseCBlock throws otherwise)
    const idx = byKind(readClog(h.out));
    const txs = extractTxs(idx, { bin: BIN, dir, ap5Time: n.ap5 });
    const checked = checkTxIds(txs, m);
    let before = 0, after_ = 0;
    for (const c of idx['C/block']) {
      const b = parseCBlock(unwrapProposervm(c.bytes).inner, n.ap5);
      if (!b.atomic.length) continue;
      if (b.time < n.ap5) before++; else after_++;
      // EIP-155 / EIP-1559 chain ids of the EVM txs
      for (const tx of rlpDecode(unwrapProposervm(c.bytes).inner)[1]) {
        if (Array.isArray(tx)) assert.ok([2n * BigInt(n.evm) + 35n, 2n * BigInt(n.evm) + 36n].includes(BigInt('0x' + tx[6].toString('hex'))), 'legacy v');
        else assert.equal(BigInt('0x' + rlpDecode(tx.subarray(1))[0].toString('hex')), BigInt(n.evm), 'dynamic-fee chain id');
      }
    }
    assert.ok(before > 0 && after_ > 0, `${name}: atomic blocks before AP5 ${before}, after ${after_}`);
    t.diagnostic(`${name}: ${checked} txs with network ${n.id} and its chain ids; atomic blocks: ${before} single-tx before AP5, ${after_} batched after`);
  }
  // the node serves them
  // `snowline devnet --network fuji` and `snowline node --devnet --network mainnet`
  for (const name of ['fuji', 'mainnet']) {
    const n = nets[name];
    const common = ['--network', name, '--devnet-txs', '1000', '--devnet-interval-ms', '0', '--data-dir', join(dir, `node-${name}`)];
    const node = name === 'fuji' ? await startDevnet(common) : await startNode(['--devnet', '--index-enabled', ...common], { timeoutMs: 60000 });
    nodes.push(node);
    await waitReady(node.url, 60000);
    const info = `${node.url}/ext/info`;
    assert.equal((await rpc(info, 'info.getNetworkID')).result.networkID, String(n.id));
    assert.equal((await rpc(info, 'info.getNetworkName')).result.networkName, name);
    assert.equal((await rpc(info, 'info.getBlockchainID', { alias: 'X' })).result.blockchainID, n.x);
    assert.equal((await rpc(info, 'info.getBlockchainID', { alias: 'C' })).result.blockchainID, n.c);
    const first = await rpc(`${node.url}/ext/index/X/tx`, 'index.getContainerByIndex', { index: '0' });
    const tx = await rpc(`${node.url}/ext/bc/${n.x}`, 'avm.getTx', { txID: first.result.id, encoding: 'hex' });
    assert.equal(tx.result.tx, first.result.bytes, `/ext/bc/${n.x} serves the X-chain`);
    await node.stop();
  }
});

test('e. proposers: the manifest lists per node exactly the blocks it signed; certificates and signatures verify', (t) => {
  const h = devnetOut('proposers', ['--devnet-seed', 'proposers', '--devnet-txs', '1500']);
  const m = h.m;
  const idx = byKind(readClog(h.out));
  const certs = new Map(m.nodes.map((n) => [n.nodeId, n.certificate]));
  assert.ok(m.nodes.length > m.P.validators.length / 10 && m.nodes.every((n) => /^0x[0-9a-f]+$/.test(n.certificate) && n.blsPublicKey.length === 98));
  // the validators' NodeIDs are their certificates'
  for (const v of m.P.validators) assert.ok(certs.has(v.nodeId), `validator ${v.nodeId} is no manifest node`);
  const chainId = { P: Buffer.alloc(32), X: null, C: null };
  const fromCb58 = (s) => { // cb58 → 32 bytes (base58 decode, checksum dropped)
    const A = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
    let v = 0n;
    for (const ch of s) v = v * 58n + BigInt(A.indexOf(ch));
    return Buffer.from(v.toString(16).padStart(72, '0'), 'hex').subarray(0, 32);
  };
  chainId.X = fromCb58(m.chains.X.id);
  chainId.C = fromCb58(m.chains.C.id);
  const stats = [];
  for (const [chain, kind] of [['P', 'P/block'], ['X', 'X/block'], ['C', 'C/block']]) {
    const seen = {};
    let signed = 0, unsigned = 0, options = 0;
    for (const c of idx[kind]) {
      const pb = unwrapProposervm(c.bytes);
      if (pb.vmType === 'option') { options++; continue; }
      if (!pb.proposer) { unsigned++; assert.equal(pb.sig.length, 0); continue; }
      signed++;
      (seen[pb.proposer] ??= []).push(c.id);
      assert.equal('0x' + pb.cert.toString('hex'), certs.get(pb.proposer), `${kind} ${c.id}: certificate of ${pb.proposer}`);
      // avalanchego's header: 00 00 | chain id | parent id | block id (sha256 of the bytes before the signature)
      const id = fromCb58(c.id), parent = fromCb58(pb.parentID);
      const header = Buffer.concat([Buffer.alloc(2), chainId[chain], parent, id]);
      const key = new X509Certificate(pb.cert).publicKey;
      assert.ok(cryptoVerify('sha256', header, { key, dsaEncoding: 'der' }, pb.sig), `${kind} ${c.id}: signature`);
    }
    const p = m.chains[chain].proposers;
    assert.deepEqual({ signed: p.signed, unsigned: p.unsigned, options: p.options, listed: p.listed }, { signed, unsigned, options, listed: true }, chain);
    assert.deepEqual(Object.fromEntries(Object.entries(p.byNode).map(([k, v]) => [k, v.blockIds])), seen, `${chain}: blocks per proposer`);
    for (const v of Object.values(p.byNode)) assert.equal(v.blocks, v.blockIds.length);
    assert.ok(signed > 0 && Object.keys(seen).length > 1, `${chain}: ${signed} signed blocks by ${Object.keys(seen).length} nodes`);
    stats.push(`${chain} ${signed} signed by ${Object.keys(seen).length} nodes, ${unsigned} unsigned, ${options} options`);
  }
  t.diagnostic(stats.join('; '));
});
