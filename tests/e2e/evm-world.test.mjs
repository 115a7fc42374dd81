// evm-world.test.mjs — the EVM test world (evm-lib.mjs) is what its ground truth says.
//
// seedEvmWorld() builds the scenario on three anvil chains and returns the ground truth; these
// tests check that truth against anvil's own, independent answers (no snowline here):
//  1. every event topic0 equals the value in the reference table (docs/evm-tests.md), and the
//     test messenger's compiled ABI has exactly those events;
//  2. every message ID recomputed from the formula equals the emitted topics on both chains, the
//     events of each delivery come in the documented order, and each message's state (pending,
//     executed, failed, retried, empty, receipt carried back) shows in events and in the
//     messenger's storage;
//  3. every contract's creating tx and creator per ots_getContractCreator (contracts created by
//     contracts resolve to the outer tx), and its code;
//  4. internal txs per ots_getInternalOperations and per debug_traceBlockByNumber (what an
//     indexer reads) against the truth's callTracer frames (and anvil's gasUsed quirk there);
//  5. native balances of the chosen addresses at every block per eth_getBalance;
//  6. token balances at the head (balanceOf, ownerOf) against the sums of the truth's transfers,
//     and the tokens' names, symbols, decimals and tokenURI;
//  7. the chains share one time line; a second seeding gives the same tx and block hashes;
//  8. the deployments that are themselves the work (contracts/Deployers.sol): a constructor that
//     mints and moves NFTs of both standards, one that sends an ICM message, one that delivers it
//     (the deliverer is that contract), each per its receipt's logs and the tokens' storage.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as E from './evm-lib.mjs';

let world, truth, chains;
before(async () => {
  world = await E.seedEvmWorld();
  ({ truth, chains } = world);
});
after(async () => { if (world) await world.stop(); });

const lc = (s) => s.toLowerCase();

// docs/evm-tests.md, from the TeleporterMessenger facts (ICM) and the token standards (ERC).
const REFERENCE_TOPICS = {
  SendCrossChainMessage: '0x2a211ad4a59ab9d003852404f9c57c690704ee755f3c79d2c2812ad32da99df8',
  ReceiveCrossChainMessage: '0x292ee90bbaf70b5d4936025e09d56ba08f3e421156b6a568cf3c2840d9343e34',
  MessageExecuted: '0x34795cc6b122b9a0ae684946319f1e14a577b4e8f9b3dda9ac94c21a54d3188c',
  MessageExecutionFailed: '0x4619adc1017b82e02eaefac01a43d50d6d8de4460774bc370c3ff0210d40c985',
  ReceiptReceived: '0xd13a7935f29af029349bed0a2097455b91fd06190a30478c575db3f31e00bf57',
  AddFeeAmount: '0xc1bfd1f1208927dfbd414041dcb5256e6c9ad90dd61aec3249facbd34ff7b3e1',
  RelayerRewardsRedeemed: '0x3294c84e5b0f29d9803655319087207bc94f4db29f7927846944822773780b88',
  BlockchainIDInitialized: '0x1eac640109dc937d2a9f42735a05f794b39a5e3759d681951d671aabbce4b104',
  Transfer: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  TransferSingle: '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62',
  TransferBatch: '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb',
  Approval: '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
};
const RECEIVER_SELECTOR = '0xc868efaa'; // receiveTeleporterMessage(bytes32,address,bytes)
const RETRY_SELECTOR = '0xfc2d6197'; // retryMessageExecution(bytes32,TeleporterMessage)

const ch = (k) => chains[k];
async function logsOf(chainKey, hash) {
  return (await chains[chainKey].receipt(hash)).logs;
}

test('1. event topics are the reference values', () => {
  for (const [name, topic] of Object.entries(REFERENCE_TOPICS)) assert.equal(E.TOPIC[name], topic, name);
  const art = E.compileContracts();
  const events = art.TestMessenger.abi.filter((x) => x.type === 'event');
  const ICM = Object.keys(E.ICM_SIGNATURES);
  assert.deepEqual(events.map((e) => e.name).sort(), ICM.slice().sort());
  for (const e of events) assert.equal(E.toEventSelector(e), REFERENCE_TOPICS[e.name], e.name);
  assert.equal(art.TestReceiver.methods['receiveTeleporterMessage(bytes32,address,bytes)'], RECEIVER_SELECTOR.slice(2));
  const retry = Object.entries(art.TestMessenger.methods).find(([sig]) => sig.startsWith('retryMessageExecution('));
  assert.equal(retry[1], RETRY_SELECTOR.slice(2));
  // the ERC events of our tokens
  for (const [c, names] of [['TestERC20', ['Transfer', 'Approval']], ['TestERC721', ['Transfer']], ['TestERC1155', ['TransferSingle', 'TransferBatch']]]) {
    for (const n of names) assert.equal(E.toEventSelector(art[c].abi.find((x) => x.type === 'event' && x.name === n)), REFERENCE_TOPICS[n], `${c}.${n}`);
  }
});

test('2. ICM: message ids, topics, event order and states', async () => {
  const msgs = truth.messages;
  assert.deepEqual(msgs.map((m) => [m.status, m.execution, m.receiptDelivered]).sort(), [
    ['delivered', 'executed', true], // m4 (B->A; its receipt rides back on g1)
    ['delivered', 'executed', true], // m1
    ['delivered', 'executed', false], // g1 (sent and delivered by constructors; its receipt stays owed)
    ['delivered', 'failed', true], // m3
    ['delivered', 'none', false], // m6, empty payload
    ['delivered', 'retried', true], // m2
    ['delivered_source_not_indexed', 'executed', false], // m7 (C->B)
    ['pending', null, false], // m5
  ].sort());
  const T = E.TOPIC;
  for (const m of msgs) {
    const ch = truth.chains;
    assert.equal(m.messenger, ch[m.sourceChain].messenger);
    assert.equal(m.sourceBlockchainId, ch[m.sourceChain].blockchainId);
    assert.equal(m.messageId, E.icmMessageId(m.messenger, m.sourceBlockchainId, m.destinationBlockchainId, m.nonce), m.label);
    // the messenger computes the same id
    const src = chains[m.sourceChain].messenger;
    assert.equal(await src.read('calculateMessageID', [m.sourceBlockchainId, m.destinationBlockchainId, BigInt(m.nonce)]), m.messageId);

    // source: SendCrossChainMessage(messageID, destinationBlockchainID)
    const sl = (await logsOf(m.sourceChain, m.send.txHash)).filter((l) => l.topics[0] === T.SendCrossChainMessage);
    assert.equal(sl.length, 1);
    assert.deepEqual(sl[0].topics, [T.SendCrossChainMessage, m.messageId, m.destinationBlockchainId]);
    assert.equal(E.num(sl[0].logIndex), m.send.logIndex);
    const ev = E.decodeEventLog({ abi: src.abi, data: sl[0].data, topics: sl[0].topics });
    assert.equal(ev.args.message.messageNonce, BigInt(m.nonce));
    assert.equal(ev.args.message.originSenderAddress, m.from);
    assert.equal(ev.args.message.destinationAddress, m.to);
    assert.equal(ev.args.message.message, m.payload);
    assert.equal(ev.args.message.requiredGasLimit, BigInt(m.requiredGasLimit));
    assert.equal(ev.args.feeInfo.amount, BigInt(m.fee.amount) - BigInt(m.feeAdded), 'the fee at send');
    if (BigInt(m.feeAdded) > 0n) {
      const add = truth.txs.find((t) => t.icm.some((i) => i.messageId === m.messageId && i.role === 'addFee'));
      const al = (await logsOf(m.sourceChain, add.hash)).find((l) => l.topics[0] === T.AddFeeAmount);
      assert.equal(al.topics[1], m.messageId);
      const a = E.decodeEventLog({ abi: src.abi, data: al.data, topics: al.topics });
      assert.equal(a.args.updatedFeeInfo.amount.toString(), m.fee.amount, 'AddFeeAmount carries the new total');
    }

    // destination
    const dst = chains[m.destinationChain].messenger;
    assert.equal(await dst.read('messageReceived', [m.messageId]), m.status !== 'pending', m.label);
    if (m.status === 'pending') {
      assert.equal(m.delivery, null);
      assert.equal(await src.read('sentPending', [m.messageId]), true);
      const [, amount] = await src.read('sentFee', [m.messageId]);
      assert.equal(amount.toString(), m.fee.amount);
      continue;
    }
    const dl = await logsOf(m.destinationChain, m.delivery.txHash);
    const mine = dl.filter((l) => lc(l.address) === lc(m.messenger));
    const kinds = mine.map((l) => Object.keys(T).find((k) => T[k] === l.topics[0]));
    const receipts = kinds.filter((k) => k === 'ReceiptReceived').length;
    assert.equal(receipts, m.carriedReceipts.length);
    const after = { executed: ['MessageExecuted'], retried: ['MessageExecutionFailed'], failed: ['MessageExecutionFailed'], none: [] }[m.execution];
    assert.deepEqual(kinds, [...Array(receipts).fill('ReceiptReceived'), 'ReceiveCrossChainMessage', ...after], m.label);
    const rl = mine[receipts];
    assert.deepEqual(rl.topics, [T.ReceiveCrossChainMessage, m.messageId, m.sourceBlockchainId, '0x' + lc(m.delivery.deliverer).slice(2).padStart(64, '0')]);
    assert.equal(E.num(rl.logIndex), m.delivery.logIndex);
    const r = E.decodeEventLog({ abi: dst.abi, data: rl.data, topics: rl.topics });
    assert.equal(r.args.rewardRedeemer, m.delivery.rewardRedeemer);
    for (const x of mine.slice(receipts + 1)) assert.deepEqual(x.topics.slice(0, 3), [x.topics[0], m.messageId, m.sourceBlockchainId]);
    const failedHash = await dst.read('failedMessageHash', [m.messageId]);
    assert.equal(failedHash !== '0x' + '0'.repeat(64), m.execution === 'failed', m.label);
    if (m.execution === 'retried') {
      const rt = (await logsOf(m.destinationChain, m.retry.txHash)).filter((l) => lc(l.address) === lc(m.messenger));
      assert.deepEqual(rt.map((l) => l.topics), [[T.MessageExecuted, m.messageId, m.sourceBlockchainId]]);
      const tx = await chains[m.destinationChain].rpc('eth_getTransactionByHash', [m.retry.txHash]);
      assert.equal(tx.input.slice(0, 10), RETRY_SELECTOR);
    }
    // receipts: ReceiptReceived on the source chain, naming the chain that delivered
    assert.equal(await src.read('sentPending', [m.messageId]), !m.receiptDelivered);
    if (m.receiptDelivered) {
      const rr = (await logsOf(m.sourceChain, m.receipt.txHash)).filter((l) => l.topics[0] === T.ReceiptReceived && l.topics[1] === m.messageId);
      assert.equal(rr.length, 1);
      assert.equal(rr[0].topics[2], m.destinationBlockchainId);
      assert.equal(E.num(rr[0].logIndex), m.receipt.logIndex);
      const x = E.decodeEventLog({ abi: src.abi, data: rr[0].data, topics: rr[0].topics });
      assert.equal(x.args.feeInfo.amount.toString(), m.fee.amount);
      assert.equal(x.args.relayerRewardAddress, m.delivery.rewardRedeemer);
    } else {
      assert.equal(m.receipt, null);
    }
    // the timeline: delivered after sent
    assert.ok(m.delivery.timestamp > m.send.timestamp, m.label);
  }
  // every log any messenger emitted has a reference topic
  for (const t of truth.txs) {
    for (const l of await logsOf(t.chain, t.hash)) {
      if (lc(l.address) === lc(truth.chains.A.messenger)) assert.ok(Object.values(REFERENCE_TOPICS).includes(l.topics[0]), t.label);
    }
  }
});

test('3. contracts: creator and creating tx per ots_getContractCreator, code', async () => {
  const art = E.compileContracts();
  assert.ok(truth.contracts.some((c) => c.via === 'factory' && c.createType === 'CREATE2'));
  assert.ok(truth.contracts.some((c) => c.via === 'nested' && c.creator !== c.txFrom));
  for (const c of truth.contracts) {
    const got = await chains[c.chain].rpc('ots_getContractCreator', [c.address]);
    assert.equal(got.hash, c.txHash, c.label);
    assert.equal(E.getAddress(got.creator), c.creator, c.label);
    const t = truth.txs.find((x) => x.hash === c.txHash);
    assert.equal(t.from, c.txFrom);
    assert.equal(t.blockNumber, c.blockNumber);
    if (c.via === 'direct') assert.equal(t.contractAddress, c.address);
    const code = await chains[c.chain].rpc('eth_getCode', [c.address, 'latest']);
    if (c.name !== 'TestReceiver') assert.equal(code, art[c.name].deployedBytecode, c.label); // (it has an immutable)
    // nothing there before its block
    assert.equal(await chains[c.chain].rpc('eth_getCode', [c.address, E.hex(c.blockNumber - 1)]), '0x');
  }
});

test('4. internal txs per ots_getInternalOperations and debug_traceBlockByNumber', async () => {
  let withValue = 0;
  for (const t of truth.txs) {
    const ch = chains[t.chain];
    if (t.status === 1) {
      const ops = await ch.rpc('ots_getInternalOperations', [t.hash]);
      const want = [];
      // ots lists the top level too: a creation, or a call with value
      if (!t.to) want.push([2, t.from, t.contractAddress, BigInt(t.value)]);
      else if (BigInt(t.value) > 0n) want.push([0, t.from, t.to, BigInt(t.value)]);
      for (const f of t.internal) {
        if (f.reverted) continue;
        if (f.type === 'CREATE' || f.type === 'CREATE2') want.push([f.type === 'CREATE' ? 2 : 3, f.from, f.to, BigInt(f.value)]);
        else if (f.type === 'CALL' && BigInt(f.value) > 0n) want.push([0, f.from, f.to, BigInt(f.value)]);
      }
      const got = ops.map((o) => [o.type, E.getAddress(o.from), E.getAddress(o.to), BigInt(o.value)]);
      assert.deepEqual(got, want, t.label);
      withValue += t.internal.filter((f) => BigInt(f.value) > 0n).length;
    }
  }
  assert.ok(withValue >= 4, 'internal txs with value');
  // what an indexer reads: the block's traces give the same frames
  for (const k of Object.keys(chains)) {
    for (let b = 1; b <= truth.chains[k].head; b++) {
      const traces = await chains[k].rpc('debug_traceBlockByNumber', [E.hex(b), { tracer: 'callTracer' }]);
      const txs = truth.txs.filter((t) => t.chain === k && t.blockNumber === b).sort((x, y) => x.txIndex - y.txIndex);
      assert.deepEqual(traces.map((x) => x.txHash), txs.map((t) => t.hash), `${k} block ${b}`);
      for (const [i, tr] of traces.entries()) {
        const frames = [];
        const walk = (f, d) => { if (d) frames.push([f.type, E.getAddress(f.from), f.to && E.getAddress(f.to), BigInt(f.value || 0).toString()]); for (const c of f.calls || []) walk(c, d + 1); };
        walk(tr.result, 0);
        assert.deepEqual(frames, txs[i].internal.map((f) => [f.type, f.from, f.to, f.value]), txs[i].label);
        // anvil 1.7.1: the top frame's gasUsed is the receipt's cumulativeGasUsed (so the tx's
        // own gasUsed only for the first tx of a block): an indexer takes gasUsed from receipts
        const r = await ch(k).receipt(txs[i].hash);
        assert.equal(BigInt(tr.result.gasUsed), BigInt(r.cumulativeGasUsed), txs[i].label);
        if (i === 0) assert.equal(BigInt(tr.result.gasUsed), BigInt(txs[i].gasUsed));
      }
    }
  }
});

test('5. native balances at every block per eth_getBalance', async () => {
  assert.ok(truth.balances.length > 100);
  for (const b of truth.balances) {
    const got = await chains[b.chain].rpc('eth_getBalance', [b.address, E.hex(b.blockNumber)]);
    assert.equal(BigInt(got).toString(), b.wei, `${b.chain} ${b.address} at ${b.blockNumber}`);
  }
  // the balances move: some address changes at several blocks
  const alice = truth.balances.filter((b) => b.chain === 'A' && b.address === truth.accounts.alice);
  assert.ok(new Set(alice.map((b) => b.wei)).size >= 5);
});

test('6. token balances and metadata at the head match the transfers', async () => {
  const erc20 = new Map(), erc721 = new Map(), erc1155 = new Map();
  const addTo = (m, k, d) => m.set(k, (m.get(k) || 0n) + d);
  const Z = '0x0000000000000000000000000000000000000000';
  for (const t of truth.txs) {
    for (const x of t.erc20) { if (x.from !== Z) addTo(erc20, `${t.chain}/${x.token}/${x.from}`, -BigInt(x.value)); addTo(erc20, `${t.chain}/${x.token}/${x.to}`, BigInt(x.value)); }
    for (const x of t.erc721) erc721.set(`${t.chain}/${x.token}/${x.tokenId}`, x.to);
    for (const x of t.erc1155) { if (x.from !== Z) addTo(erc1155, `${t.chain}/${x.token}/${x.tokenId}/${x.from}`, -BigInt(x.value)); addTo(erc1155, `${t.chain}/${x.token}/${x.tokenId}/${x.to}`, BigInt(x.value)); }
  }
  assert.ok(erc20.size >= 6 && erc721.size === 4 && erc1155.size >= 6);
  for (const [k, v] of erc20) {
    const [c, token, holder] = k.split('/');
    assert.equal(await chains[c].at('TestERC20', token).read('balanceOf', [holder]), v, k);
  }
  for (const [k, owner] of erc721) {
    const [c, token, id] = k.split('/');
    assert.equal(await chains[c].at('TestERC721', token).read('ownerOf', [BigInt(id)]), owner, k);
  }
  for (const [k, v] of erc1155) {
    const [c, token, id, holder] = k.split('/');
    assert.equal(await chains[c].at('TestERC1155', token).read('balanceOf', [BigInt(id), holder]), v, k);
  }
  for (const c of truth.contracts.filter((x) => x.token)) {
    const k = chains[c.chain].at(c.name, c.address);
    if (c.token.name !== null) assert.equal(await k.read('name'), c.token.name);
    if (c.token.symbol !== null) assert.equal(await k.read('symbol'), c.token.symbol);
    if (c.token.decimals !== null) assert.equal(await k.read('decimals'), c.token.decimals);
    if (c.token.ercType === 'ERC-721') assert.equal(await k.read('tokenURI', [2n]), 'https://example.invalid/flake/2');
    if (c.token.ercType === 'ERC-1155') assert.equal(await k.read('uri', [7n]), 'https://example.invalid/mt/{id}.json');
  }
  // a reverted tx moved nothing and a batch transfer shares its logIndex
  const failed = truth.txs.filter((t) => t.status === 0);
  assert.equal(failed.length, 1);
  assert.equal(failed[0].gasLimit, 300000);
  const batch = truth.txs.find((t) => t.erc1155.filter((x) => x.batch).length === 3);
  assert.equal(new Set(batch.erc1155.map((x) => x.logIndex)).size, 1);
});

test('7. one time line, and the same hashes when seeded again', async () => {
  const blocks = [];
  for (const k of Object.keys(chains)) {
    for (let b = 1; b <= truth.chains[k].head; b++) {
      const blk = await chains[k].rpc('eth_getBlockByNumber', [E.hex(b), false]);
      blocks.push({ k, b, ts: E.num(blk.timestamp), hash: blk.hash });
      const txs = truth.txs.filter((t) => t.chain === k && t.blockNumber === b);
      for (const t of txs) { assert.equal(t.blockHash, blk.hash); assert.equal(t.blockTimestamp, E.num(blk.timestamp)); }
      const tb = truth.blocks.find((x) => x.chain === k && x.number === b);
      assert.deepEqual([tb.hash, tb.timestamp, tb.txCount], [blk.hash, E.num(blk.timestamp), txs.length]);
      assert.equal(blk.transactions.length, txs.length, `${k} block ${b} holds only the world's txs`);
    }
  }
  assert.equal(new Set(blocks.map((x) => x.ts)).size, blocks.length, 'no two blocks share a timestamp');
  const again = await E.seedEvmWorld();
  try {
    assert.deepEqual(again.truth.txs.map((t) => [t.hash, t.blockHash]), truth.txs.map((t) => [t.hash, t.blockHash]));
    assert.deepEqual(again.truth.messages.map((m) => m.messageId), truth.messages.map((m) => m.messageId));
  } finally {
    await again.stop();
  }
  // more blocks afterwards, for benchmarks and live indexing: on the shared time line too
  const head = await chains.A.blockNumber();
  const traffic = await E.addTraffic(chains.A, { blocks: 3, txsPerBlock: 25 });
  assert.equal(traffic.length, 75);
  for (let b = head + 1; b <= head + 3; b++) {
    const blk = await chains.A.rpc('eth_getBlockByNumber', [E.hex(b), false]);
    assert.deepEqual(blk.transactions, traffic.filter((t) => t.blockNumber === b).map((t) => t.hash));
    assert.ok(E.num(blk.timestamp) > Math.max(...blocks.map((x) => x.ts)));
  }
  console.log(`seedEvmWorld took ${truth.seedMs} ms (again: ${again.truth.seedMs} ms)`);
});

test('8. deployments that mint and move NFTs, send an ICM message, deliver one', async () => {
  const T = E.TOPIC;
  const byName = (n) => truth.contracts.find((c) => c.name === n);
  const txOf = (c) => truth.txs.find((t) => t.hash === c.txHash);
  const Z = '0x0000000000000000000000000000000000000000';
  // NftDrop: its deploying tx is a creation whose logs hold ERC-721 and ERC-1155 mints and moves
  const drop = byName('NftDrop');
  const dt = txOf(drop);
  assert.equal(drop.via, 'direct');
  assert.equal(dt.to, null);
  assert.equal(dt.contractAddress, drop.address);
  const got = E.tokenTransfers(await chains[drop.chain].receipt(dt.hash));
  assert.deepEqual(got.erc721, dt.erc721);
  assert.deepEqual(got.erc1155, dt.erc1155);
  assert.deepEqual(dt.erc721.map((x) => [x.from === Z, x.to === drop.address || x.from === drop.address]), [[true, true], [false, true], [true, false]]);
  assert.ok(dt.erc1155.some((x) => x.batch) && dt.erc1155.some((x) => !x.batch && x.from === drop.address), 'a batch mint and a move');
  const nft = truth.contracts.find((c) => c.chain === drop.chain && c.token?.ercType === 'ERC-721');
  const mt = truth.contracts.find((c) => c.chain === drop.chain && c.token?.ercType === 'ERC-1155');
  for (const id of [3n, 4n]) assert.equal(await chains[drop.chain].at('TestERC721', nft.address).read('ownerOf', [id]), truth.accounts.carol);
  assert.equal(await chains[drop.chain].at('TestERC1155', mt.address).read('balanceOf', [9n, drop.address]), 3n);
  // IcmGreeter: its deploying tx is the source tx of a message whose origin sender is the contract
  const greeter = byName('IcmGreeter');
  const gt = txOf(greeter);
  const g1 = truth.messages.find((m) => m.from === greeter.address);
  assert.ok(g1, 'a message sent by the greeter');
  assert.equal(g1.send.txHash, gt.hash);
  assert.deepEqual(gt.icm, [{ messageId: g1.messageId, direction: 'SOURCE_TRANSACTION', role: 'send' }]);
  const sent = (await chains[greeter.chain].receipt(gt.hash)).logs.filter((l) => l.topics[0] === T.SendCrossChainMessage);
  assert.deepEqual(sent.map((l) => l.topics[1]), [g1.messageId]);
  const ev = E.decodeEventLog({ abi: chains.A.messenger.abi, data: sent[0].data, topics: sent[0].topics });
  assert.equal(ev.args.message.originSenderAddress, greeter.address);
  assert.deepEqual(ev.args.message.receipts.map((r) => Number(r.receivedMessageNonce)), g1.carriedReceipts.map((id) => truth.messages.find((m) => m.messageId === id).nonce));
  assert.ok(g1.carriedReceipts.length === 1, 'g1 carries the receipt A owed B');
  // IcmCourier: its deploying tx delivers g1 (ReceiptReceived, ReceiveCrossChainMessage with the
  // contract as deliverer, MessageExecuted)
  const courier = byName('IcmCourier');
  const ct = txOf(courier);
  assert.equal(g1.delivery.txHash, ct.hash);
  assert.equal(g1.delivery.deliverer, courier.address);
  assert.equal(g1.status, 'delivered');
  assert.equal(g1.execution, 'executed');
  assert.deepEqual(ct.icm.map((i) => [i.messageId, i.direction]), [[g1.carriedReceipts[0], null], [g1.messageId, 'DESTINATION_TRANSACTION']]);
  const logs = (await chains[courier.chain].receipt(ct.hash)).logs.filter((l) => lc(l.address) === lc(g1.messenger));
  assert.deepEqual(logs.map((l) => l.topics[0]), [T.ReceiptReceived, T.ReceiveCrossChainMessage, T.MessageExecuted]);
  assert.equal(logs[1].topics[3], '0x' + lc(courier.address).slice(2).padStart(64, '0'));
  const carried = truth.messages.find((m) => m.messageId === g1.carriedReceipts[0]);
  assert.equal(carried.receipt.txHash, ct.hash, 'the carried receipt arrives with the courier');
  assert.equal(await chains[courier.chain].messenger.read('messageReceived', [g1.messageId]), true);
});
