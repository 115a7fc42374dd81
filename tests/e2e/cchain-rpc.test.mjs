// cchain-rpc.test.mjs — the node's C-chain eth JSON-RPC (/ext/bc/C/rpc) through viem, a real EVM
// client, against a devnet: chain id, blocks (by number, tag and hash; hashes or full txs), txs,
// receipts, logs, code, and balances and nonces at every few blocks against a ledger this test replays
// on its own (the genesis allocation and final state from the devnet's manifest, the EVM txs checked
// by their signatures and hashes, the atomic txs read with avalanchejs from the C/block containers);
// then coreth's framing and errors with raw requests (docs/node.md, "The C-chain's eth JSON-RPC").
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createPublicClient, http, keccak256, serializeTransaction, recoverTransactionAddress, getAddress } from 'viem';
import { BIN, tempDir, cleanup, post, waitReady, startNode } from './lib.mjs';
import { startDevnet, unwrapProposervm, parseCBlock, normalize } from './devnet-lib.mjs';
import { readIndex } from './store-lib.mjs';

const X2C = 1000000000n;
const TRANSFER_GAS = 21000n;

// The JSON-RPC error code somewhere in a viem error's chain of causes.
function codeOf(e) {
  for (let c = e; c; c = c.cause) if (typeof c.code === 'number') return c.code;
  return undefined;
}

describe('the C-chain eth JSON-RPC of a devnet node', () => {
  let dir, devnet, url, client, manifest, head;
  const blocks = []; // viem blocks with full txs, by height (0 = genesis)
  const ledger = new Map(); // height -> Map(address lower -> { balance, nonce }) at a few heights
  let checkpoints;
  const ARGS = () => ['--data-dir', join(dir, 'node'), '--devnet-seed', 'cchain-rpc', '--devnet-txs', '1500', '--devnet-interval-ms', '0'];
  async function readyDevnet() {
    const d = await startDevnet(ARGS());
    try {
      const deadline = Date.now() + 120000;
      while (!/devnet: ready in/.test(d.logs())) {
        assert.ok(Date.now() < deadline, `the devnet was not ready in 120 s:\n${d.logs().slice(-3000)}`);
        await new Promise((res) => setTimeout(res, 100));
      }
      await waitReady(d.url, 60000); // the chain routes open once the node holds (and has replayed) the history
    } catch (e) {
      await d.stop(); // not returned: after() would not stop it
      throw e;
    }
    return d;
  }

  before(async () => {
    dir = tempDir('snowline-cchain-rpc-');
    devnet = await readyDevnet();
    manifest = JSON.parse(readFileSync(join(dir, 'node', 'devnet-manifest.json'), 'utf8'));
    url = `${devnet.url}/ext/bc/C/rpc`;
    client = createPublicClient({ transport: http(url, { retryCount: 0 }) });
  });

  after(async () => {
    if (devnet) await devnet.stop();
    if (dir) cleanup(dir);
  });

  test('chain id, net_version and the head are the devnet\'s', async () => {
    assert.equal(await client.getChainId(), manifest.C.chainId);
    assert.equal(await client.request({ method: 'net_version' }), String(manifest.C.chainId));
    head = await client.getBlockNumber();
    assert.equal(head, BigInt(manifest.C.blocks), 'every C-chain block of the history, heights 1..n');
  });

  test('blocks: a hash chain from the genesis, the same by number, tag and hash, with hashes or full txs', async () => {
    const genesis = await client.getBlock({ blockTag: 'earliest', includeTransactions: true });
    assert.equal(genesis.number, 0n);
    assert.equal(genesis.transactions.length, 0);
    assert.equal(genesis.parentHash, '0x' + '0'.repeat(64));
    blocks.push(genesis);
    for (let h = 1n; h <= head; h++) {
      const b = await client.getBlock({ blockNumber: h, includeTransactions: true });
      assert.equal(b.number, h);
      assert.equal(b.parentHash, blocks[Number(h) - 1].hash, `block ${h}'s parent is block ${h - 1n}`);
      assert.equal(b.gasUsed, TRANSFER_GAS * BigInt(b.transactions.length), `block ${h}: plain transfers only`);
      assert.equal(b.miner, '0x0100000000000000000000000000000000000000');
      assert.ok(b.baseFeePerGas > 0n);
      b.transactions.forEach((tx, i) => {
        assert.equal(tx.blockHash, b.hash);
        assert.equal(tx.blockNumber, h);
        assert.equal(tx.transactionIndex, i);
      });
      blocks.push(b);
    }
    const latest = await client.getBlock({ blockTag: 'latest' });
    assert.equal(latest.hash, blocks[Number(head)].hash);
    for (const tag of ['pending', 'safe', 'finalized']) {
      assert.equal((await client.getBlock({ blockTag: tag })).hash, latest.hash, tag);
    }
    for (const h of [0n, 1n, head / 2n, head]) {
      const byHash = await client.getBlock({ blockHash: blocks[Number(h)].hash });
      assert.equal(byHash.number, h);
      assert.deepEqual(byHash.transactions, blocks[Number(h)].transactions.map((t) => t.hash), 'hashes only');
    }
    await assert.rejects(client.getBlock({ blockNumber: head + 1n }), (e) => e.name === 'BlockNotFoundError');
    assert.equal(await client.request({ method: 'eth_getBlockByNumber', params: [`0x${(head + 5n).toString(16)}`, false] }), null);
    assert.equal(await client.request({ method: 'eth_getBlockByHash', params: ['0x' + '11'.repeat(32), false] }), null);
  });

  test('txs: legacy and EIP-1559, each signed by its sender, hashed as the node says, found by hash', async () => {
    const kinds = { legacy: 0, eip1559: 0 };
    for (const b of blocks) {
      for (const tx of b.transactions) {
        kinds[tx.type]++;
        const fields = tx.type === 'legacy'
          ? { type: 'legacy', chainId: tx.chainId, nonce: tx.nonce, gasPrice: tx.gasPrice, gas: tx.gas, to: tx.to, value: tx.value, data: tx.input }
          : { type: 'eip1559', chainId: tx.chainId, nonce: tx.nonce, maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
            gas: tx.gas, to: tx.to, value: tx.value, data: tx.input, accessList: tx.accessList };
        const sig = tx.type === 'legacy' ? { r: tx.r, s: tx.s, v: tx.v } : { r: tx.r, s: tx.s, yParity: tx.yParity };
        const raw = serializeTransaction(fields, sig);
        assert.equal(keccak256(raw), tx.hash, `tx ${tx.hash}: the hash of its fields`);
        assert.equal(getAddress(await recoverTransactionAddress({ serializedTransaction: raw })), getAddress(tx.from), `tx ${tx.hash}: its sender`);
        assert.equal(tx.chainId, manifest.C.chainId);
        assert.equal(tx.gas, TRANSFER_GAS);
        if (tx.type === 'eip1559') {
          const eff = b.baseFeePerGas + tx.maxPriorityFeePerGas;
          assert.equal(tx.gasPrice, eff < tx.maxFeePerGas ? eff : tx.maxFeePerGas, 'gasPrice: the effective price');
        }
      }
    }
    assert.equal(kinds.legacy, manifest.C.evmTxs.legacy);
    assert.equal(kinds.eip1559, manifest.C.evmTxs.dynamicFee);
    const some = blocks[Number(head)].transactions[0] ?? blocks.find((b) => b.transactions.length).transactions[0];
    const got = await client.getTransaction({ hash: some.hash });
    assert.deepEqual(got, some);
    assert.equal(await client.request({ method: 'eth_getTransactionByHash', params: ['0x' + '22'.repeat(32)] }), null);
  });

  test('receipts: status 1, 21000 gas each, cumulative, the effective price, no logs, no contract', async () => {
    let checked = 0;
    for (const b of blocks.slice(1)) {
      const rs = await client.request({ method: 'eth_getBlockReceipts', params: [`0x${b.number.toString(16)}`] });
      assert.equal(rs.length, b.transactions.length);
      for (const [i, tx] of b.transactions.entries()) {
        const r = rs[i];
        assert.equal(r.transactionHash, tx.hash);
        assert.equal(r.status, '0x1');
        assert.equal(BigInt(r.gasUsed), TRANSFER_GAS);
        assert.equal(BigInt(r.cumulativeGasUsed), TRANSFER_GAS * BigInt(i + 1));
        assert.equal(BigInt(r.effectiveGasPrice), tx.gasPrice);
        assert.deepEqual(r.logs, []);
        assert.equal(r.contractAddress, null);
        assert.equal(r.from, tx.from);
        assert.equal(r.to, tx.to);
        assert.equal(BigInt(r.blockNumber), b.number);
        checked++;
      }
    }
    assert.ok(checked > 100, `${checked} receipts`);
    const tx = blocks.find((b) => b.transactions.length > 1).transactions[1];
    const r = await client.getTransactionReceipt({ hash: tx.hash });
    assert.equal(r.status, 'success');
    assert.equal(r.gasUsed, TRANSFER_GAS);
    assert.equal(r.cumulativeGasUsed, 2n * TRANSFER_GAS);
    assert.equal(r.contractAddress, null);
    assert.deepEqual(r.logs, []);
    assert.equal(await client.request({ method: 'eth_getTransactionReceipt', params: ['0x' + '33'.repeat(32)] }), null);
  });

  test('balances and nonces at several heights match a replay of the chain; at the head the manifest', async () => {
    // The atomic txs of each block, read by avalanchejs from the containers the node serves.
    const containers = await readIndex(devnet.url, 'C/block');
    assert.equal(containers.length, Number(head));
    const atomic = containers.map((c) => {
      const raw = Buffer.from(c.bytes.slice(2), 'hex');
      const inner = unwrapProposervm(raw.subarray(0, raw.length - 4)).inner;
      return parseCBlock(inner, manifest.apricotPhase5Time).atomic.map((t) => normalize({ ...t, chain: 'C', id: '' }));
    });
    const state = new Map(Object.entries(manifest.C.genesis).map(([a, b]) => [a, { balance: BigInt(b), nonce: 0n }]));
    const acct = (a) => { const k = a.toLowerCase(); if (!state.has(k)) state.set(k, { balance: 0n, nonce: 0n }); return state.get(k); };
    const snapshot = () => new Map([...state].map(([a, s]) => [a, { ...s }]));
    checkpoints = [0n, 1n, 2n, head / 4n, head / 2n, (3n * head) / 4n, head - 1n, head];
    let imports = 0, exports = 0;
    ledger.set(0n, snapshot());
    for (let h = 1n; h <= head; h++) {
      const b = blocks[Number(h)];
      for (const tx of b.transactions) {
        const s = acct(tx.from), fee = TRANSFER_GAS * tx.gasPrice;
        assert.equal(tx.nonce, Number(s.nonce), `tx ${tx.hash}: nonce`);
        s.balance -= tx.value + fee;
        s.nonce++;
        assert.ok(s.balance >= 0n, `tx ${tx.hash}: the sender can pay`);
        acct(tx.to).balance += tx.value;
        acct(b.miner).balance += fee; // coreth pays the whole fee to the coinbase: the blackhole
      }
      for (const t of atomic[Number(h) - 1]) {
        for (const o of t.evmOuts ?? []) if (o.asset === manifest.avaxAssetId) { acct('0x' + o.address).balance += BigInt(o.amount) * X2C; imports++; }
        for (const i of t.evmIns ?? []) {
          const s = acct('0x' + i.address);
          assert.equal(BigInt(i.nonce), s.nonce, 'ExportTx input nonce');
          if (i.asset === manifest.avaxAssetId) s.balance -= BigInt(i.amount) * X2C;
          s.nonce = BigInt(i.nonce) + 1n;
          exports++;
        }
      }
      if (checkpoints.includes(h)) ledger.set(h, snapshot());
    }
    assert.equal(imports, manifest.C.atomicTxs.import, 'imports replayed');
    assert.equal(exports, manifest.C.atomicTxs.export, 'exports replayed');
    // the replay agrees with the devnet's own final state
    for (const [a, bal] of Object.entries(manifest.C.balances)) {
      assert.equal(state.get(a).balance, BigInt(bal), `replayed balance of ${a}`);
      assert.equal(state.get(a).nonce, BigInt(manifest.C.nonces[a]), `replayed nonce of ${a}`);
    }
    // and the node agrees with the replay, everywhere it was taken
    for (const h of checkpoints) {
      for (const [a, s] of ledger.get(h)) {
        assert.equal(await client.getBalance({ address: a, blockNumber: h }), s.balance, `balance of ${a} at ${h}`);
        assert.equal(BigInt(await client.getTransactionCount({ address: a, blockNumber: h })), s.nonce, `nonce of ${a} at ${h}`);
      }
    }
    // by tag and by hash
    const [a0, s0] = [...ledger.get(head)][0];
    assert.equal(await client.getBalance({ address: a0 }), s0.balance);
    assert.equal(await client.getBalance({ address: a0, blockTag: 'earliest' }), ledger.get(0n).get(a0).balance);
    const byHash = await client.request({ method: 'eth_getBalance', params: [a0, { blockHash: blocks[Number(head / 2n)].hash }] });
    assert.equal(BigInt(byHash), ledger.get(head / 2n).get(a0).balance);
    // an address that never appeared
    assert.equal(await client.getBalance({ address: '0x' + '9'.repeat(40) }), 0n);
  });

  test('code and logs: no contracts, no logs; the filter is checked and the range bounded', async () => {
    assert.equal(await client.request({ method: 'eth_getCode', params: [blocks[1].transactions[0].to, 'latest'] }), '0x');
    assert.deepEqual(await client.getLogs({ fromBlock: 0n, toBlock: head }), []);
    assert.deepEqual(await client.getLogs({ blockHash: blocks[1].hash }), []);
    assert.deepEqual(await client.request({ method: 'eth_getLogs', params: [{ address: [blocks[1].transactions[0].to], topics: [null, ['0x' + '00'.repeat(32)]] }] }), []);
    const bad = async (filter, re) => {
      const r = await post(url, { jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] });
      assert.ok(r.json.error, JSON.stringify(r.json));
      assert.match(r.json.error.message, re);
      return r.json.error.code;
    };
    assert.equal(await bad({ fromBlock: '0x5', toBlock: '0x2' }, /^invalid block range params$/), -32000);
    assert.equal(await bad({ fromBlock: '0x0', toBlock: '0x100000' }, /^requested too many blocks from 0 to 1048576, maximum is set to 2048$/), -32000);
    assert.equal(await bad({ blockHash: blocks[1].hash, fromBlock: '0x1' }, /cannot specify both BlockHash and FromBlock\/ToBlock/), -32602);
    assert.equal(await bad({ address: '0x12' }, /^invalid argument 0: invalid address: hex has invalid length 1 after decoding; expected 20 for address$/), -32602);
    assert.equal(await bad({ topics: [1] }, /^invalid argument 0: invalid topic\(s\)$/), -32602);
    assert.equal(await bad({ topics: [null, null, null, null, null] }, /^invalid argument 0: exceed max topics$/), -32602);
    assert.equal(await bad({ fromBlock: 'yesterday' }, /^invalid argument 0: hex string without 0x prefix$/), -32602);
    assert.equal(await bad({ blockHash: '0x' + '44'.repeat(32) }, /^unknown block$/), -32000);
  });

  test('errors: geth\'s codes and texts for bad params, unknown methods, blocks beyond the head', async () => {
    await assert.rejects(client.getBalance({ address: '0x1234', blockNumber: 1n }), (e) => codeOf(e) === -32602);
    await assert.rejects(client.request({ method: 'debug_traceBlockByNumber', params: ['0x1', { tracer: 'callTracer' }] }), (e) => codeOf(e) === -32601);
    await assert.rejects(client.getBalance({ address: '0x' + '9'.repeat(40), blockNumber: head + 10n }), (e) => codeOf(e) === -32000 && /header not found/.test(e.details));
    const call = async (method, params) => (await post(url, { jsonrpc: '2.0', id: 7, method, params })).json;
    const a = blocks[1].transactions[0].from;
    assert.deepEqual(await call('eth_getBalance', ['0x12', 'latest']),
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'invalid argument 0: hex string has length 2, want 40 for common.Address' } });
    assert.deepEqual(await call('eth_getBalance', [a]),
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'missing value for required argument 1' } });
    assert.deepEqual(await call('eth_getBalance', [a, 'latest', 1]),
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'too many arguments, want at most 2' } });
    assert.deepEqual(await call('eth_getBlockByNumber', ['0x01', false]),
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'invalid argument 0: hex number with leading zero digits' } });
    assert.deepEqual(await call('eth_getBlockByNumber', ['0x1', 'yes']),
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'invalid argument 1: json: cannot unmarshal string into Go value of type bool' } });
    assert.deepEqual(await call('eth_getBlockByNumber', ['0x10000000000000000', false]),
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'invalid argument 0: hex number > 64 bits' } });
    assert.deepEqual(await call('eth_getTransactionByHash', [5]),
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'invalid argument 0: json: cannot unmarshal non-string into Go value of type common.Hash' } });
    assert.deepEqual(await call('eth_getBalance', { address: a }),
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'non-array args' } });
    assert.deepEqual(await call('eth_getBalance', [a, { blockNumber: '0x1', blockHash: blocks[1].hash }]),
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'invalid argument 1: cannot specify both BlockHash and BlockNumber, choose one or the other' } });
    assert.deepEqual(await call('eth_getBalance', [a, '0x' + '55'.repeat(32)]),
      { jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'header for hash not found' } });
    assert.deepEqual(await call('eth_foo', []),
      { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'the method eth_foo does not exist/is not available' } });
  });

  test('framing: coreth\'s — batches, notifications, parse errors, content type, the chain-id route', async () => {
    const r1 = await post(url, '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"');
    assert.equal(r1.status, 200);
    assert.deepEqual(r1.json, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    const batch = await post(url, [{ jsonrpc: '2.0', id: 'a', method: 'eth_chainId' }, { jsonrpc: '2.0', method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] }, 5, { jsonrpc: '1.0', id: 3, method: 'eth_chainId' }]);
    assert.deepEqual(batch.json, [
      { jsonrpc: '2.0', id: 'a', result: `0x${manifest.C.chainId.toString(16)}` },
      { jsonrpc: '2.0', id: 2, result: `0x${head.toString(16)}` },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'invalid request' } },
    ]);
    assert.deepEqual((await post(url, [])).json, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } });
    const many = Array.from({ length: 1001 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' }));
    assert.deepEqual((await post(url, many)).json, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } });
    const note = await post(url, { jsonrpc: '2.0', method: 'eth_chainId' });
    assert.equal(note.status, 200);
    assert.equal(note.text, '');
    const ct = await post(url, { jsonrpc: '2.0', id: 1, method: 'eth_chainId' }, { 'Content-Type': 'text/plain' });
    assert.equal(ct.status, 415);
    const get = await fetch(url);
    assert.equal(get.status, 405);
    await get.arrayBuffer();
    const cid = manifest.chains.C.id;
    for (const path of [`/ext/bc/${cid}/rpc`, '/ext/bc/evm/rpc', '/ext/C/rpc']) {
      const r = await post(devnet.url + path, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' });
      assert.deepEqual(r.json, { jsonrpc: '2.0', id: 1, result: `0x${head.toString(16)}` }, path);
    }
  });

  test('after a restart, the node replays the chain again from its store: the same answers', async () => {
    await devnet.stop();
    devnet = await readyDevnet();
    url = `${devnet.url}/ext/bc/C/rpc`;
    client = createPublicClient({ transport: http(url, { retryCount: 0 }) });
    assert.equal(await client.getBlockNumber(), head);
    assert.equal((await client.getBlock({ blockNumber: head })).hash, blocks[Number(head)].hash);
    assert.equal((await client.getBlock({ blockTag: 'earliest' })).hash, blocks[0].hash);
    for (const h of [0n, head / 2n, head]) {
      for (const [a, s] of [...ledger.get(h)].slice(0, 8)) {
        assert.equal(await client.getBalance({ address: a, blockNumber: h }), s.balance, `balance of ${a} at ${h}`);
      }
    }
  });
});

describe('a node without the C-chain\'s genesis (--import of a devnet\'s container log)', () => {
  let dir, node, url, m;
  before(async () => {
    dir = tempDir('snowline-cchain-rpc-import-');
    const clog = join(dir, 'history.clog'), manifest = join(dir, 'manifest.json');
    const r = spawnSync(BIN, ['devnet', '--out', clog, '--manifest', manifest, '--devnet-txs', '300', '--devnet-seed', 'no-genesis'],
      { encoding: 'utf8', timeout: 120000 });
    assert.equal(r.status, 0, r.stderr);
    m = JSON.parse(readFileSync(manifest, 'utf8'));
    node = await startNode(['--index-enabled', '--import', clog, '--data-dir', join(dir, 'n')]);
    await waitReady(node.url);
    url = `${node.url}/ext/bc/C/rpc`;
  });
  after(async () => {
    if (node) await node.stop();
    if (dir) cleanup(dir);
  });

  test('blocks and txs are served; state, receipts and logs say why they are not', async () => {
    const client = createPublicClient({ transport: http(url, { retryCount: 0 }) });
    assert.equal(await client.getChainId(), 43114, 'network 1: mainnet\'s C-chain id');
    const head = await client.getBlockNumber();
    assert.equal(head, BigInt(m.C.blocks));
    const b = await client.getBlock({ blockNumber: head, includeTransactions: true });
    assert.equal(b.number, head);
    assert.equal(await client.request({ method: 'eth_getBlockByNumber', params: ['earliest', false] }), null, 'no genesis header');
    const tx = b.transactions[0] ?? (await client.getBlock({ blockNumber: 1n, includeTransactions: true })).transactions[0];
    assert.equal((await client.getTransaction({ hash: tx.hash })).hash, tx.hash);
    const call = async (method, params) => (await post(url, { jsonrpc: '2.0', id: 1, method, params })).json.error;
    for (const [method, params] of [['eth_getBalance', [tx.from, 'latest']], ['eth_getTransactionCount', [tx.from, '0x1']],
      ['eth_getCode', [tx.to, 'latest']], ['eth_getTransactionReceipt', [tx.hash]], ['eth_getBlockReceipts', ['0x1']],
      ['eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2' }]]]) {
      const e = await call(method, params);
      assert.equal(e?.code, -32000, method);
      assert.match(e.message, /unavailable .*the source gave no genesis allocation for this chain/, method);
    }
  });
});

