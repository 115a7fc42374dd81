// The EVM test world: real anvil nodes, snowline's own test contracts (tests/e2e/contracts),
// a small relayer for the test ICM messenger, and seedEvmWorld(), which builds a fixed scenario
// and returns its ground truth. See docs/evm-tests.md. (The ground truth's shape is documented
// above seedEvmWorld below.)
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cb58 } from './lib.mjs';
import {
  decodeEventLog, decodeFunctionResult, encodeAbiParameters, encodeDeployData, encodeFunctionData,
  decodeAbiParameters, getAddress, getContractAddress, keccak256, toEventSelector,
} from 'viem';

const require = createRequire(import.meta.url);

export const ANVIL = process.env.SNOWLINE_ANVIL ||
  require.resolve('@foundry-rs/anvil-linux-amd64/package.json').replace(/package\.json$/, 'bin/anvil');
const CONTRACTS_DIR = new URL('./contracts/', import.meta.url).pathname;
const CACHE_DIR = new URL('../../build/evm-contracts/', import.meta.url).pathname;

// ---- compiling the test contracts (solcjs), cached under build/ by the sources' hash ----
const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.methodIdentifiers'] } },
};

let compiled = null;
// { ContractName: { abi, bytecode, deployedBytecode, methods: { 'sig(types)': 'selector' } } }
export function compileContracts() {
  if (compiled) return compiled;
  const solc = require('solc');
  const files = readdirSync(CONTRACTS_DIR).filter((f) => f.endsWith('.sol')).sort();
  const sources = {};
  for (const f of files) sources[f] = { content: readFileSync(CONTRACTS_DIR + f, 'utf8') };
  const key = createHash('sha256').update(JSON.stringify([solc.version(), SOLC_SETTINGS, sources])).digest('hex').slice(0, 24);
  const cache = `${CACHE_DIR}${key}.json`;
  if (existsSync(cache)) return (compiled = JSON.parse(readFileSync(cache, 'utf8')));
  const out = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SOLC_SETTINGS })));
  const errors = (out.errors || []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error('solc: ' + errors.map((e) => e.formattedMessage).join('\n'));
  const arts = {};
  for (const [file, contracts] of Object.entries(out.contracts)) {
    for (const [name, c] of Object.entries(contracts)) {
      if (arts[name]) throw new Error(`two contracts named ${name} (${file})`);
      arts[name] = {
        abi: c.abi, bytecode: '0x' + c.evm.bytecode.object, deployedBytecode: '0x' + c.evm.deployedBytecode.object,
        methods: c.evm.methodIdentifiers,
      };
    }
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = `${cache}.${process.pid}.tmp`; // test files may compile at the same time
  writeFileSync(tmp, JSON.stringify(arts));
  renameSync(tmp, cache);
  return (compiled = arts);
}

// ---- JSON-RPC ----
let rpcId = 0;
export async function jsonRpc(url, method, params = []) {
  const res = await fetch(url, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
  });
  const body = await res.json();
  if (body.error) {
    const e = new Error(`${method}: ${body.error.message}`);
    e.rpcError = body.error;
    throw e;
  }
  return body.result;
}

export const hex = (n) => '0x' + BigInt(n).toString(16);
export const num = (h) => Number(BigInt(h));
export const big = (h) => BigInt(h);
export const lower = (a) => (a == null ? a : a.toLowerCase());

// ---- anvil ----
// One anvil node on a random loopback port. Blocks are mined only by mine() (--no-mining), each
// with an explicit timestamp, so that a scenario gives the same block hashes every run.
export class EvmChain {
  constructor({ url, port, proc, chainId, timestamp, blockTime, clock, logs }) {
    Object.assign(this, { url, port, proc, chainId, logs });
    // chains started with the same clock share it: their blocks then have one time line
    this.clock = clock || { next: timestamp + blockTime };
    this.blockTime = blockTime;
    this.accounts = [];
    this.nonces = new Map();
  }
  rpc(method, params = []) { return jsonRpc(this.url, method, params); }
  async stop() {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const done = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill('SIGTERM');
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 3000);
    await done;
    clearTimeout(t);
  }
  // Mines one block holding every pending tx, stamped nextTimestamp. Returns its number.
  async mine() {
    const ts = this.clock.next;
    this.clock.next += this.blockTime;
    await this.rpc('evm_mine', [{ timestamp: ts, blocks: 1 }]);
    return num(await this.rpc('eth_blockNumber'));
  }
  async blockNumber() { return num(await this.rpc('eth_blockNumber')); }
  // Sends a tx into the pool (from an unlocked dev account). gas is always explicit: estimates
  // run against the last block, not the pending one, and fail for reverting calls.
  // Nonces are counted here (the pool's pending txs are not in eth_getTransactionCount).
  async nextNonce(from) {
    const k = lower(from);
    if (!this.nonces.has(k)) this.nonces.set(k, num(await this.rpc('eth_getTransactionCount', [from, 'latest'])));
    const n = this.nonces.get(k);
    this.nonces.set(k, n + 1);
    return n;
  }
  // The address of the contract `from`'s next tx would create (its nonce is not taken).
  async nextContractAddress(from) {
    const n = await this.nextNonce(from);
    this.nonces.set(lower(from), n);
    return getContractAddress({ from, nonce: BigInt(n) });
  }
  async send({ from, to, data, value = 0n, gas = 1_000_000n, nonce }) {
    if (nonce === undefined) nonce = await this.nextNonce(from);
    const tx = { from, gas: hex(gas), value: hex(value), nonce: hex(nonce) };
    if (to) tx.to = to;
    if (data) tx.data = data;
    return this.rpc('eth_sendTransaction', [tx]);
  }
  receipt(hash) { return this.rpc('eth_getTransactionReceipt', [hash]); }
  // Sends, mines one block, and returns the receipt.
  async sendAndMine(tx) {
    const hash = await this.send(tx);
    await this.mine();
    const r = await this.receipt(hash);
    if (!r) throw new Error(`tx ${hash} was not mined`);
    return r;
  }
  deployData(name, args = []) {
    const a = compileContracts()[name];
    if (!a) throw new Error(`no contract ${name}`);
    return encodeDeployData({ abi: a.abi, bytecode: a.bytecode, args });
  }
  // Deploys in its own block; returns a Contract. Throws if the deployment failed.
  async deploy(from, name, args = [], { value = 0n, gas = 5_000_000n } = {}) {
    const r = await this.sendAndMine({ from, data: this.deployData(name, args), value, gas });
    if (r.status !== '0x1') throw new Error(`deploy ${name} failed`);
    return Object.assign(this.at(name, r.contractAddress), { deployTx: r.transactionHash, receipt: r });
  }
  at(name, address) { return new Contract(this, name, getAddress(address)); }
}

export class Contract {
  constructor(chain, name, address) {
    this.chain = chain;
    this.name = name;
    this.address = address;
    this.abi = compileContracts()[name].abi;
  }
  data(fn, args = []) { return encodeFunctionData({ abi: this.abi, functionName: fn, args }); }
  // eth_call at a block (default latest); the decoded result.
  async read(fn, args = [], block = 'latest') {
    const out = await this.chain.rpc('eth_call', [{ to: this.address, data: this.data(fn, args) }, typeof block === 'number' ? hex(block) : block]);
    return decodeFunctionResult({ abi: this.abi, functionName: fn, data: out });
  }
  // Sends a call into the pool (not mined); the tx hash.
  send(from, fn, args = [], { value = 0n, gas = 1_000_000n } = {}) {
    return this.chain.send({ from, to: this.address, data: this.data(fn, args), value, gas });
  }
  // Sends and mines; the receipt.
  async write(from, fn, args = [], opts = {}) {
    const hash = await this.send(from, fn, args, opts);
    await this.chain.mine();
    return this.chain.receipt(hash);
  }
  decodeLogs(receipt) {
    const out = [];
    for (const log of receipt.logs) {
      if (lower(log.address) !== lower(this.address)) continue;
      try {
        const ev = decodeEventLog({ abi: this.abi, data: log.data, topics: log.topics });
        out.push({ ...ev, log });
      } catch { /* another contract's event */ }
    }
    return out;
  }
}

// Every anvil started here is killed when this process exits, whatever the tests did.
const live = new Set();
process.once('exit', () => { for (const p of live) { try { p.kill('SIGKILL'); } catch { /* gone */ } } });

// Starts anvil: { chainId, timestamp (genesis), blockTime (seconds between mined blocks), clock
// ({ next }: the next block's timestamp, shared by chains that should have one time line) }.
export async function startAnvil({ chainId = 31337, timestamp = 1_700_000_000, blockTime = 2, clock = null, accounts = 10, balance = 10000, args = [], timeoutMs = 20000 } = {}) {
  const full = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId), '--no-mining', '--hardfork', 'cancun',
    '--timestamp', String(timestamp), '--accounts', String(accounts), '--balance', String(balance), ...args];
  const proc = spawn(ANVIL, full, { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  let logs = '';
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error('anvil did not start:\n' + logs)); }, timeoutMs);
    const onData = (d) => {
      logs += d;
      if (logs.length > 200000) logs = logs.slice(-100000);
      const m = /Listening on 127\.0\.0\.1:(\d+)/.exec(logs);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`anvil exited ${code}:\n${logs}`)); });
  });
  const chain = new EvmChain({ url: `http://127.0.0.1:${port}`, port, proc, chainId, timestamp, blockTime, clock, logs: () => logs });
  try {
    chain.accounts = (await chain.rpc('eth_accounts')).map((a) => getAddress(a));
  } catch (e) {
    await chain.stop(); // the caller never gets it to stop
    throw e;
  }
  return chain;
}


// Plain traffic for benchmarks and live-indexing tests: `blocks` blocks of `txsPerBlock` native
// transfers each, between anvil's dev accounts (senders round-robin over `from`, default the
// last three dev accounts but the messenger deployer's). Returns [{ hash, blockNumber, from, to,
// value }] (value in wei, a decimal string).
export async function addTraffic(chain, { blocks = 10, txsPerBlock = 10, from = chain.accounts.slice(6, 9) } = {}) {
  const out = [];
  for (let b = 0; b < blocks; b++) {
    const sent = [];
    for (let i = 0; i < txsPerBlock; i++) {
      const sender = from[i % from.length];
      const to = chain.accounts[(i + b) % 6];
      const value = BigInt(1000 + b * txsPerBlock + i);
      sent.push({ hash: await chain.send({ from: sender, to, value, gas: 21000n }), from: getAddress(sender), to: getAddress(to), value: value.toString() });
    }
    const n = await chain.mine();
    for (const s of sent) out.push({ ...s, blockNumber: n });
  }
  return out;
}

// ---- event topics (docs/evm-tests.md; the ICM ones as the real TeleporterMessenger emits them) ----
export const TOPIC = {
  Transfer: toEventSelector('Transfer(address,address,uint256)'),
  Approval: toEventSelector('Approval(address,address,uint256)'),
  TransferSingle: toEventSelector('TransferSingle(address,address,address,uint256,uint256)'),
  TransferBatch: toEventSelector('TransferBatch(address,address,address,uint256[],uint256[])'),
};
const MSG_TUPLE = '(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes)';
export const ICM_SIGNATURES = {
  SendCrossChainMessage: `SendCrossChainMessage(bytes32,bytes32,${MSG_TUPLE},(address,uint256))`,
  ReceiveCrossChainMessage: `ReceiveCrossChainMessage(bytes32,bytes32,address,address,${MSG_TUPLE})`,
  MessageExecuted: 'MessageExecuted(bytes32,bytes32)',
  MessageExecutionFailed: `MessageExecutionFailed(bytes32,bytes32,${MSG_TUPLE})`,
  ReceiptReceived: 'ReceiptReceived(bytes32,bytes32,address,(address,uint256))',
  AddFeeAmount: 'AddFeeAmount(bytes32,(address,uint256))',
  RelayerRewardsRedeemed: 'RelayerRewardsRedeemed(address,address,uint256)',
  BlockchainIDInitialized: 'BlockchainIDInitialized(bytes32)',
};
for (const [k, sig] of Object.entries(ICM_SIGNATURES)) TOPIC[k] = toEventSelector(sig);

// The ICM message ID: keccak256(abi.encode(messenger, sourceBlockchainID, destinationBlockchainID, nonce)).
export function icmMessageId(messenger, sourceBlockchainId, destinationBlockchainId, nonce) {
  return keccak256(encodeAbiParameters(
    [{ type: 'address' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }],
    [messenger, sourceBlockchainId, destinationBlockchainId, BigInt(nonce)]));
}

// A test blockchain ID (32 bytes) from a label; the CB58 form is what the Data API shows.
export function testBlockchainId(label) {
  return '0x' + createHash('sha256').update(`snowline e2e blockchain ${label}`).digest('hex');
}
export const blockchainIdCb58 = (id) => cb58(Buffer.from(id.slice(2), 'hex'));

// ---- the ICM messenger and the relayer ----
// Deploys TestMessenger from `deployer` at its nonce 0 (so it has the same address on every chain
// set up this way, as the real messenger does), and tells it its blockchain ID.
export async function setupMessenger(chain, deployer, blockchainId) {
  const n = await chain.nextNonce(deployer);
  if (n !== 0) throw new Error('the messenger deployer must be unused on this chain');
  chain.nonces.set(lower(deployer), 0);
  const m = await chain.deploy(deployer, 'TestMessenger', []);
  const init = await m.write(deployer, 'initializeBlockchainID', [blockchainId]);
  if (init.status !== '0x1') throw new Error('initializeBlockchainID failed');
  chain.messenger = m;
  chain.blockchainId = blockchainId;
  return { messenger: m, deployTx: m.deployTx, initTx: init.transactionHash };
}

// The SendCrossChainMessage events of src addressed to dst: [{ messageId, message, feeInfo, log }].
export async function sentMessages(src, dst, { fromBlock = 0, toBlock = 'latest' } = {}) {
  const logs = await src.rpc('eth_getLogs', [{
    address: src.messenger.address, topics: [TOPIC.SendCrossChainMessage, null, dst.blockchainId],
    fromBlock: hex(fromBlock), toBlock: typeof toBlock === 'number' ? hex(toBlock) : toBlock,
  }]);
  return logs.map((log) => {
    const ev = decodeEventLog({ abi: src.messenger.abi, data: log.data, topics: log.topics });
    return { messageId: ev.args.messageID, message: ev.args.message, feeInfo: ev.args.feeInfo, log };
  });
}

// The relayer: delivers src's messages to dst (those in `only` when given, else every one not yet
// delivered), each by deliverCrossChainMessage from `relayer`, all in one block of dst.
// Returns [{ messageId, hash, receipt }] in delivery order.
export async function relay(src, dst, { relayer, rewardRedeemer, only = null, gasExtra = 500_000n } = {}) {
  const sent = await sentMessages(src, dst);
  const todo = [];
  for (const s of sent) {
    if (only && !only.includes(s.messageId)) continue;
    if (await dst.messenger.read('messageReceived', [s.messageId])) continue;
    todo.push(s);
  }
  if (only && todo.length !== only.length) throw new Error(`relay: ${only.length - todo.length} of the messages asked for are not pending`);
  const hashes = [];
  for (const s of todo) {
    hashes.push(await dst.messenger.send(relayer, 'deliverCrossChainMessage', [src.blockchainId, s.message, rewardRedeemer],
      { gas: s.message.requiredGasLimit + gasExtra }));
  }
  if (hashes.length) await dst.mine();
  const out = [];
  for (let i = 0; i < todo.length; i++) out.push({ messageId: todo[i].messageId, message: todo[i].message, hash: hashes[i], receipt: await dst.receipt(hashes[i]) });
  return out;
}

// ---- reading a tx back: token transfers from its logs, internal txs from the callTracer ----
const addr = (topic) => getAddress('0x' + topic.slice(26));
// { erc20: [...], erc721: [...], erc1155: [...] } in log order, each with its logIndex.
export function tokenTransfers(receipt) {
  const out = { erc20: [], erc721: [], erc1155: [] };
  for (const log of receipt.logs) {
    const t0 = log.topics[0];
    const token = getAddress(log.address);
    const logIndex = num(log.logIndex);
    if (t0 === TOPIC.Transfer && log.topics.length === 3) {
      out.erc20.push({ token, from: addr(log.topics[1]), to: addr(log.topics[2]), value: BigInt(log.data).toString(), logIndex });
    } else if (t0 === TOPIC.Transfer && log.topics.length === 4) {
      out.erc721.push({ token, from: addr(log.topics[1]), to: addr(log.topics[2]), tokenId: BigInt(log.topics[3]).toString(), logIndex });
    } else if (t0 === TOPIC.TransferSingle) {
      const [id, value] = decodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], log.data);
      out.erc1155.push({ token, operator: addr(log.topics[1]), from: addr(log.topics[2]), to: addr(log.topics[3]), tokenId: id.toString(), value: value.toString(), batch: false, logIndex });
    } else if (t0 === TOPIC.TransferBatch) {
      const [ids, values] = decodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], log.data);
      ids.forEach((id, i) => out.erc1155.push({ token, operator: addr(log.topics[1]), from: addr(log.topics[2]), to: addr(log.topics[3]), tokenId: id.toString(), value: values[i].toString(), batch: true, logIndex }));
    }
  }
  return out;
}

// The callTracer frames below the top one, depth first: [{ type, from, to, value, gas, gasUsed,
// reverted, error, depth }]. A frame under a reverted one counts as reverted.
export async function internalFrames(chain, hash) {
  const top = await chain.rpc('debug_traceTransaction', [hash, { tracer: 'callTracer' }]);
  const out = [];
  const walk = (f, depth, parentReverted) => {
    const reverted = parentReverted || !!f.error;
    if (depth > 0) {
      out.push({
        type: f.type, from: getAddress(f.from), to: f.to ? getAddress(f.to) : null, value: BigInt(f.value || 0).toString(),
        gas: BigInt(f.gas).toString(), gasUsed: BigInt(f.gasUsed).toString(), reverted, error: f.error || null, depth,
      });
    }
    for (const c of f.calls || []) walk(c, depth + 1, reverted);
  };
  walk(top, 0, false);
  return { top, frames: out };
}

// ---- the world ----
const ETHER = 10n ** 18n;
const DEV_BALANCE = 10000n * ETHER; // anvil --balance 10000
export const WORLD_CHAINS = {
  A: { evmChainId: 99901, name: 'Snowline Test A', indexed: true },
  B: { evmChainId: 99902, name: 'Snowline Test B', indexed: true },
  C: { evmChainId: 99903, name: 'Snowline Test C', indexed: false },
};
// Every chain's genesis has this timestamp; then each mined block, on whichever chain, is
// WORLD_BLOCK_TIME seconds after the one mined before it, so the chains share one time line.
export const WORLD_GENESIS = 1_700_000_000;
export const WORLD_BLOCK_TIME = 2;

// Builds the scenario step by step: each tx is sent with what the test means it to do (value
// moves, token transfers, internal frames, created contracts), and finish() checks every tx
// against its receipt and its callTracer trace before turning it into the ground truth.
class WorldBuilder {
  constructor(chains) {
    this.chains = chains; // { A: EvmChain, ... }
    this.txs = [];
    this.contracts = [];
    this.messages = [];
    this.names = {}; // address -> label, per chain
  }
  key(chain) { return Object.keys(this.chains).find((k) => this.chains[k] === chain); }
  // Sends one tx (not mined). intent: { erc20:[[token,from,to,value]], erc721:[[token,from,to,id]],
  // erc1155:[[token,operator,from,to,id,value,batch]], internal:[[type,from,to,value,reverted]],
  // creates:[{ name, address, creator, createType, via, token }], status }.
  async tx(chain, label, { from, to = null, data = null, value = 0n, gas = 1_000_000n }, intent = {}) {
    const nonce = await chain.nextNonce(from);
    const hash = await chain.send({ from, to, data, value, gas, nonce });
    const rec = {
      chain: this.key(chain), label, hash, from: getAddress(from), to: to && getAddress(to), value: BigInt(value), nonce,
      intent: { erc20: [], erc721: [], erc1155: [], internal: [], creates: [], status: 1, ...intent }, icm: [],
    };
    if (!to) {
      rec.contractAddress = getContractAddress({ from, nonce: BigInt(nonce) });
      if (intent.name) rec.intent.creates = [{ name: intent.name, address: rec.contractAddress, creator: rec.from, createType: 'CREATE', via: 'direct', token: intent.token || null }, ...rec.intent.creates];
    }
    this.txs.push(rec);
    return rec;
  }
  async deploy(chain, label, from, name, args = [], intent = {}) {
    return this.tx(chain, label, { from, data: chain.deployData(name, args), gas: 5_000_000n }, { name, ...intent });
  }
  async call(chain, label, from, contract, fn, args = [], opts = {}, intent = {}) {
    return this.tx(chain, label, { from, to: contract.address, data: contract.data(fn, args), ...opts }, intent);
  }

  async finish() {
    // the blocks, 0 to the head of each chain
    this.blocks = [];
    const byNumber = {};
    for (const [k, chain] of Object.entries(this.chains)) {
      for (let n = 0; n <= chain.head; n++) {
        const b = await chain.rpc('eth_getBlockByNumber', [hex(n), false]);
        const blk = {
          chain: k, number: n, hash: b.hash, parentHash: b.parentHash, timestamp: num(b.timestamp), txCount: b.transactions.length,
          gasUsed: num(b.gasUsed), gasLimit: num(b.gasLimit), baseFeePerGas: BigInt(b.baseFeePerGas).toString(), miner: getAddress(b.miner),
        };
        this.blocks.push(blk);
        byNumber[`${k}/${n}`] = blk;
      }
    }
    for (const rec of this.txs) {
      const chain = this.chains[rec.chain];
      const [r, t] = await Promise.all([chain.receipt(rec.hash), chain.rpc('eth_getTransactionByHash', [rec.hash])]);
      if (!r) throw new Error(`${rec.label}: not mined`);
      const want = rec.intent;
      const status = num(r.status);
      if (status !== want.status) throw new Error(`${rec.label}: status ${status}, meant ${want.status}`);
      if (!rec.to && status === 1 && getAddress(r.contractAddress) !== rec.contractAddress) throw new Error(`${rec.label}: contract address`);
      Object.assign(rec, {
        status, blockNumber: num(r.blockNumber), blockHash: r.blockHash, txIndex: num(r.transactionIndex),
        blockTimestamp: byNumber[`${rec.chain}/${num(r.blockNumber)}`].timestamp, txType: num(t.type),
        maxFeePerGas: BigInt(t.maxFeePerGas).toString(), maxPriorityFeePerGas: BigInt(t.maxPriorityFeePerGas).toString(),
        gasLimit: num(t.gas), gasUsed: num(r.gasUsed), effectiveGasPrice: BigInt(r.effectiveGasPrice).toString(),
        gasSpent: (BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice)).toString(),
        methodHash: t.input.length >= 10 && rec.to ? t.input.slice(0, 10) : '',
        kind: !rec.to ? 'create' : t.input === '0x' ? 'native' : 'call', logCount: r.logs.length,
      });
      // token transfers: the intent, checked against the receipt's logs
      const got = tokenTransfers(r);
      const strip = (xs) => xs.map(({ logIndex, ...x }) => x);
      const meant = {
        erc20: want.erc20.map(([token, from, to, value]) => ({ token: getAddress(token), from: getAddress(from), to: getAddress(to), value: BigInt(value).toString() })),
        erc721: want.erc721.map(([token, from, to, id]) => ({ token: getAddress(token), from: getAddress(from), to: getAddress(to), tokenId: BigInt(id).toString() })),
        erc1155: want.erc1155.map(([token, op, from, to, id, value, batch]) => ({ token: getAddress(token), operator: getAddress(op), from: getAddress(from), to: getAddress(to), tokenId: BigInt(id).toString(), value: BigInt(value).toString(), batch: !!batch })),
      };
      for (const k of ['erc20', 'erc721', 'erc1155']) {
        if (JSON.stringify(strip(got[k])) !== JSON.stringify(meant[k])) {
          throw new Error(`${rec.label}: ${k} transfers ${JSON.stringify(strip(got[k]))}, meant ${JSON.stringify(meant[k])}`);
        }
      }
      Object.assign(rec, got);
      // internal txs: the intent, checked against the callTracer
      const { frames } = await internalFrames(chain, rec.hash);
      const meantFrames = want.internal.map(([type, from, to, value = 0n, reverted = false]) => [type, getAddress(from), getAddress(to), BigInt(value).toString(), !!reverted]);
      const gotFrames = frames.map((f) => [f.type, f.from, f.to, f.value, f.reverted]);
      if (JSON.stringify(gotFrames) !== JSON.stringify(meantFrames)) {
        throw new Error(`${rec.label}: internal frames ${JSON.stringify(gotFrames)}, meant ${JSON.stringify(meantFrames)}`);
      }
      rec.internal = frames;
      for (const c of want.creates) {
        this.contracts.push({
          chain: rec.chain, name: c.name, label: c.label || c.name, address: getAddress(c.address), txHash: rec.hash, txFrom: rec.from,
          creator: getAddress(c.creator), createType: c.createType, via: c.via, blockNumber: rec.blockNumber, token: c.token || null,
        });
      }
    }
    for (const c of this.contracts) {
      const code = await this.chains[c.chain].rpc('eth_getCode', [c.address, 'latest']);
      if (code === '0x') throw new Error(`${c.label}: no code at ${c.address}`);
    }
  }

  // Native balances at every block from 0 to the head, computed from the txs (gas, values, and
  // the internal frames' values), for the given addresses.
  balances(chainKey, addresses) {
    const chain = this.chains[chainKey];
    const bal = new Map();
    const get = (a) => bal.get(lower(a)) ?? (chain.accounts.some((x) => lower(x) === lower(a)) ? DEV_BALANCE : 0n);
    const add = (a, d) => bal.set(lower(a), get(a) + d);
    const txs = this.txs.filter((t) => t.chain === chainKey).sort((x, y) => x.blockNumber - y.blockNumber || x.txIndex - y.txIndex);
    const out = [];
    let i = 0;
    for (let b = 0; b <= chain.head; b++) {
      for (; i < txs.length && txs[i].blockNumber === b; i++) {
        const t = txs[i];
        add(t.from, -BigInt(t.gasSpent));
        if (t.status !== 1) continue;
        const to = t.to || t.contractAddress;
        add(t.from, -t.value);
        add(to, t.value);
        for (const f of t.internal) if (!f.reverted && BigInt(f.value) > 0n && f.type !== 'DELEGATECALL') { add(f.from, -BigInt(f.value)); add(f.to, BigInt(f.value)); }
      }
      for (const a of addresses) out.push({ chain: chainKey, address: getAddress(a), blockNumber: b, wei: get(a).toString() });
    }
    return out;
  }
}

/*
 * seedEvmWorld() starts three anvil chains and builds a fixed scenario on them; it resolves to
 * { chains: { A, B, C } (EvmChain: url, chainId, blockchainId, messenger, rpc(), stop()),
 *   truth, stop() }. Call stop() when done. The chains keep running (mining stays manual) so
 * that snowline can index them; C is the chain the tests leave unconfigured ("not indexed").
 *
 * truth is plain data (JSON-safe: wei and token amounts are decimal strings, addresses EIP-55,
 * hashes lowercase 0x-hex). Everything in it was meant by the scenario and checked against
 * anvil: receipts (status, contract address, token transfer logs), callTracer frames (internal
 * txs), eth_getCode; evm-world.test.mjs checks it further against ots_getContractCreator,
 * ots_getInternalOperations, eth_getBalance at every block and the ICM topics and message IDs.
 *
 * truth = {
 *   chains: { A|B|C: { key, name, evmChainId, blockchainId (0x, 32 bytes), blockchainIdCb58,
 *                       rpcUrl, indexed (A, B: true; C: false), head (last block number),
 *                       messenger (address, the same on every chain) } },
 *   accounts: { deployer, alice, bob, carol, dave, relayer, rewardRedeemer, messengerDeployer }
 *             (anvil's dev accounts, 10000 ETH each at genesis on every chain),
 *   contracts: [{ chain, name (Solidity contract), label, address, txHash (the outer tx that
 *                 created it, also for contracts created by contracts), txFrom (that tx's
 *                 sender), creator (the direct creator: txFrom, or the creating contract, as
 *                 ots_getContractCreator says), createType ('CREATE'|'CREATE2'), via
 *                 ('direct'|'factory'|'nested'), blockNumber, token: null | { ercType
 *                 ('ERC-20'|'ERC-721'|'ERC-1155'), name, symbol, decimals } }],
 *   blocks: [{ chain, number, hash, parentHash, timestamp, txCount, gasUsed, gasLimit,
 *              baseFeePerGas (wei), miner }] for 0..head of each chain (every block of the world;
 *              the world's txs are all the txs there are),
 *   txs: [{ chain, label, hash, blockNumber, blockHash, blockTimestamp, txIndex, from, to (null
 *           for a creation), contractAddress (creations), nonce, value (wei), status (1|0), kind
 *           ('native'|'call'|'create'), methodHash ('0x' + 8 hex, '' for native/create), txType
 *           (2), maxFeePerGas, maxPriorityFeePerGas, gasLimit, gasUsed, effectiveGasPrice,
 *           gasSpent (gasUsed × effectiveGasPrice),
 *           logCount,
 *           erc20:   [{ token, from, to, value, logIndex }],
 *           erc721:  [{ token, from, to, tokenId, logIndex }],
 *           erc1155: [{ token, operator, from, to, tokenId, value, batch, logIndex }] (a
 *                    TransferBatch gives one entry per id, all with its logIndex),
 *           internal: [{ type (CALL|STATICCALL|DELEGATECALL|CREATE|CREATE2), from, to, value,
 *                        gas, gasUsed, reverted, error, depth }] (callTracer frames below the
 *                        top one, depth first; a frame under a reverted one is reverted),
 *           icm: [{ messageId, direction ('SOURCE_TRANSACTION'|'DESTINATION_TRANSACTION'|null),
 *                   role ('send'|'addFee' (source side), 'deliver'|'retry' (destination side),
 *                   'receipt' (direction null: a delivery on the message's *source* chain
 *                   carried its receipt back; ReceiptReceived)) }] }] in the order sent,
 *   balances: [{ chain, address, blockNumber, wei }] for every block 0..head of each chain and
 *             the addresses in balanceAddresses[chain],
 *   balanceAddresses: { A: [...], B: [...], C: [...] },
 *   messages: [{ label, messageId, nonce, sourceChain, destinationChain, sourceBlockchainId,
 *                destinationBlockchainId, sourceEvmChainId, destinationEvmChainId, messenger,
 *                from (originSenderAddress), to (destinationAddress), requiredGasLimit,
 *                payload (0x-hex), status ('pending'|'delivered'|'delivered_source_not_indexed',
 *                as the Data API shows it when A and B are indexed and C is not), execution
 *                (null while pending | 'none' (empty payload) | 'executed' | 'failed' |
 *                'retried'), receiptDelivered (ReceiptReceived seen on the source chain),
 *                fee: { token, amount (total, after AddFeeAmount) }, feeAdded (wei or '0'),
 *                send: { txHash, blockNumber, timestamp, gasUsed, gasSpent, logIndex } | null (C's
 *                      sends are known but C is not indexed: still given),
 *                delivery: { txHash, blockNumber, timestamp, gasUsed, gasSpent, deliverer (the
 *                            relayer, or the contract whose constructor delivered it),
 *                            rewardRedeemer, logIndex } | null,
 *                retry: { txHash, blockNumber } | null, receipt: { txHash, blockNumber, logIndex }
 *                | null (on the source chain), carriedReceipts: [messageId] (receipts this
 *                message carried back) }],
 *   seedMs: how long the seeding took }
 */
export async function seedEvmWorld() {
  const t0 = Date.now();
  const chains = {};
  try {
    const clock = { next: WORLD_GENESIS + WORLD_BLOCK_TIME };
    for (const [k, c] of Object.entries(WORLD_CHAINS)) {
      chains[k] = await startAnvil({ chainId: c.evmChainId, timestamp: WORLD_GENESIS, blockTime: WORLD_BLOCK_TIME, clock });
    }
    const truth = await buildWorld(chains);
    truth.seedMs = Date.now() - t0;
    return { chains, truth, stop: () => Promise.all(Object.values(chains).map((c) => c.stop())) };
  } catch (e) {
    await Promise.all(Object.values(chains).map((c) => c.stop()));
    throw e;
  }
}

async function buildWorld(chains) {
  const { A, B, C } = chains;
  const w = new WorldBuilder(chains);
  const acc = A.accounts;
  const accounts = {
    deployer: acc[0], alice: acc[1], bob: acc[2], carol: acc[3], dave: acc[4],
    relayer: acc[5], rewardRedeemer: acc[6], messengerDeployer: acc[9],
  };
  const { deployer, alice, bob, carol, dave, relayer, rewardRedeemer, messengerDeployer: md } = accounts;
  const ids = { A: testBlockchainId('A'), B: testBlockchainId('B'), C: testBlockchainId('C') };
  const art = compileContracts();

  // -- messengers: the same address on every chain (md's first tx), then each told its ID
  const messenger = getContractAddress({ from: md, nonce: 0n });
  for (const k of ['A', 'B', 'C']) {
    const ch = chains[k];
    ch.blockchainId = ids[k];
    ch.messenger = ch.at('TestMessenger', messenger);
    await w.deploy(ch, `${k}: deploy TestMessenger`, md, 'TestMessenger');
    await ch.mine();
    await w.call(ch, `${k}: initializeBlockchainID`, md, ch.messenger, 'initializeBlockchainID', [ids[k]]);
    await ch.mine();
  }

  // -- A: tokens and the factory, four deployments in one block
  const tokenAddr = (n) => getContractAddress({ from: deployer, nonce: BigInt(n) });
  const snow = A.at('TestERC20', tokenAddr(0));
  const nft = A.at('TestERC721', tokenAddr(1));
  const mt = A.at('TestERC1155', tokenAddr(2));
  const factory = A.at('Factory', tokenAddr(3));
  const reverter = A.at('Reverter', getContractAddress({ from: factory.address, nonce: 1n }));
  await w.deploy(A, 'A: deploy SNOW (ERC-20)', deployer, 'TestERC20', ['Snow Token', 'SNOW', 18],
    { token: { ercType: 'ERC-20', name: 'Snow Token', symbol: 'SNOW', decimals: 18 } });
  await w.deploy(A, 'A: deploy FLAKE (ERC-721)', deployer, 'TestERC721', ['Flake', 'FLAKE', 'https://example.invalid/flake/'],
    { token: { ercType: 'ERC-721', name: 'Flake', symbol: 'FLAKE', decimals: null } });
  await w.deploy(A, 'A: deploy multi-token (ERC-1155)', deployer, 'TestERC1155', ['https://example.invalid/mt/{id}.json'],
    { token: { ercType: 'ERC-1155', name: null, symbol: null, decimals: null } });
  await w.deploy(A, 'A: deploy Factory (its constructor creates a Reverter)', deployer, 'Factory', [], {
    internal: [['CREATE', factory.address, reverter.address]],
    creates: [{ name: 'Reverter', address: reverter.address, creator: factory.address, createType: 'CREATE', via: 'nested' }],
  });
  await A.mine();
  const receiverA = A.at('TestReceiver', getContractAddress({ from: deployer, nonce: 4n }));
  await w.deploy(A, 'A: deploy TestReceiver', deployer, 'TestReceiver', [messenger]);
  await A.mine();

  // -- A: mints, then transfers of the three standards
  const Z = '0x0000000000000000000000000000000000000000';
  await w.call(A, 'A: mint SNOW to alice', deployer, snow, 'mint', [alice, 1000n * ETHER], {}, { erc20: [[snow.address, Z, alice, 1000n * ETHER]] });
  await w.call(A, 'A: mint SNOW to bob', deployer, snow, 'mint', [bob, 500n * ETHER], {}, { erc20: [[snow.address, Z, bob, 500n * ETHER]] });
  await w.call(A, 'A: mint FLAKE 1 to alice', deployer, nft, 'mint', [alice, 1n], {}, { erc721: [[nft.address, Z, alice, 1n]] });
  await w.call(A, 'A: mint FLAKE 2 to alice', deployer, nft, 'mint', [alice, 2n], {}, { erc721: [[nft.address, Z, alice, 2n]] });
  await w.call(A, 'A: mint 100 of id 7 to alice', deployer, mt, 'mint', [alice, 7n, 100n], {}, { erc1155: [[mt.address, deployer, Z, alice, 7n, 100n, false]] });
  await w.call(A, 'A: mint a batch to alice', deployer, mt, 'mintBatch', [alice, [1n, 2n, 3n], [10n, 20n, 30n]], {},
    { erc1155: [[mt.address, deployer, Z, alice, 1n, 10n, true], [mt.address, deployer, Z, alice, 2n, 20n, true], [mt.address, deployer, Z, alice, 3n, 30n, true]] });
  await A.mine();
  await w.call(A, 'A: alice sends 100 SNOW to bob', alice, snow, 'transfer', [bob, 100n * ETHER], {}, { erc20: [[snow.address, alice, bob, 100n * ETHER]] });
  await w.call(A, 'A: bob sends 7 SNOW to carol', bob, snow, 'transfer', [carol, 7n * ETHER], {}, { erc20: [[snow.address, bob, carol, 7n * ETHER]] });
  await w.call(A, 'A: alice sends FLAKE 1 to bob', alice, nft, 'transferFrom', [alice, bob, 1n], {}, { erc721: [[nft.address, alice, bob, 1n]] });
  await w.call(A, 'A: alice sends 5 of id 7 to bob', alice, mt, 'safeTransferFrom', [alice, bob, 7n, 5n, '0x'], {}, { erc1155: [[mt.address, alice, alice, bob, 7n, 5n, false]] });
  await w.call(A, 'A: alice sends a batch to carol', alice, mt, 'safeBatchTransferFrom', [alice, carol, [1n, 2n], [1n, 2n], '0x'], {},
    { erc1155: [[mt.address, alice, alice, carol, 1n, 1n, true], [mt.address, alice, alice, carol, 2n, 2n, true]] });
  await A.mine();

  // -- A: native transfers (one to a contract's receive())
  await w.tx(A, 'A: alice sends 1.5 ETH to dave', { from: alice, to: dave, value: 15n * ETHER / 10n, gas: 21000n });
  await w.tx(A, 'A: bob sends 0.25 ETH to carol', { from: bob, to: carol, value: ETHER / 4n, gas: 21000n });
  await w.tx(A, 'A: dave sends 0.1 ETH to the factory', { from: dave, to: factory.address, value: ETHER / 10n, gas: 50000n });
  await A.mine();

  // -- A: contracts created by contracts
  let factoryNonce = 2n; // 1 was the Reverter
  const childCode = art.Child.bytecode;
  const create2Addr = (salt, initCode) => getContractAddress({ opcode: 'CREATE2', from: factory.address, salt, bytecode: initCode });
  const child1 = getContractAddress({ from: factory.address, nonce: factoryNonce++ });
  await w.call(A, 'A: factory CREATE (bob, 1000 wei)', bob, factory, 'create', [11n], { value: 1000n }, {
    internal: [['CREATE', factory.address, child1, 1000n]],
    creates: [{ name: 'Child', label: 'Child 11 (CREATE)', address: child1, creator: factory.address, createType: 'CREATE', via: 'factory' }],
  });
  const salt1 = keccak256('0x01');
  const child2 = create2Addr(salt1, encodeDeployData({ abi: art.Child.abi, bytecode: childCode, args: [12n] }));
  factoryNonce++;
  await w.call(A, 'A: factory CREATE2 (carol)', carol, factory, 'create2', [salt1, 12n], {}, {
    internal: [['CREATE2', factory.address, child2, 0n]],
    creates: [{ name: 'Child', label: 'Child 12 (CREATE2)', address: child2, creator: factory.address, createType: 'CREATE2', via: 'factory' }],
  });
  const nester = getContractAddress({ from: factory.address, nonce: factoryNonce++ });
  const nestedChild = getContractAddress({ from: nester, nonce: 1n });
  await w.call(A, 'A: factory creates a Nester whose constructor creates a Child (alice, 3000 wei)', alice, factory, 'createNested', [13n], { value: 3000n }, {
    internal: [['CREATE', factory.address, nester, 3000n], ['CREATE', nester, nestedChild, 1500n]],
    creates: [
      { name: 'Nester', address: nester, creator: factory.address, createType: 'CREATE', via: 'factory' },
      { name: 'Child', label: 'Child 13 (nested)', address: nestedChild, creator: nester, createType: 'CREATE', via: 'nested' },
    ],
  });
  const salt2 = keccak256('0x02');
  const made = create2Addr(salt2, encodeDeployData({ abi: art.TestERC20.abi, bytecode: art.TestERC20.bytecode, args: ['Made', 'MADE', 6] }));
  factoryNonce++;
  await w.call(A, 'A: factory CREATE2s the MADE token and mints to deployer', deployer, factory, 'createToken', [salt2, 'Made', 'MADE'], { gas: 3_000_000n }, {
    internal: [['CREATE2', factory.address, made, 0n], ['CALL', factory.address, made, 0n]],
    erc20: [[made, Z, deployer, 1_000_000n]],
    creates: [{ name: 'TestERC20', label: 'MADE (ERC-20 by the factory)', address: made, creator: factory.address, createType: 'CREATE2', via: 'factory', token: { ercType: 'ERC-20', name: 'Made', symbol: 'MADE', decimals: 6 } }],
  });
  await A.mine();

  // -- A: internal txs with value, a caught revert, a status-0 tx (explicit gas: estimates fail)
  await w.call(A, 'A: factory splits 1 ETH between carol and dave (alice)', alice, factory, 'split', [carol, dave], { value: ETHER }, {
    internal: [['CALL', factory.address, carol, ETHER / 2n], ['CALL', factory.address, dave, ETHER / 2n]],
  });
  await w.call(A, 'A: factory catches a reverting sub-call (bob)', bob, factory, 'tryBoom', [3n], {}, {
    internal: [['STATICCALL', factory.address, reverter.address, 0n, true]],
  });
  await w.call(A, 'A: factory call reverts in a sub-call: status 0 (carol)', carol, factory, 'boom', [4n], { gas: 300_000n }, {
    status: 0, internal: [['STATICCALL', factory.address, reverter.address, 0n, true]],
  });
  await A.mine();

  // -- ICM: fees are paid in SNOW on A
  const maxU = (1n << 256n) - 1n;
  await w.call(A, 'A: alice approves the messenger', alice, snow, 'approve', [messenger, maxU]);
  await w.call(A, 'A: bob approves the messenger', bob, snow, 'approve', [messenger, maxU]);
  await A.mine();
  // (by carol: deployer's first contract on B would have the SNOW token's address on A)
  const receiverB = B.at('TestReceiver', getContractAddress({ from: carol, nonce: 0n }));
  await w.deploy(B, 'B: deploy TestReceiver', carol, 'TestReceiver', [messenger]);
  await B.mine();

  const feeFrames = (token) => [['STATICCALL', messenger, token, 0n], ['CALL', messenger, token, 0n], ['STATICCALL', messenger, token, 0n]];
  const msgs = {};
  // The next message id of chain ch to dest: the messenger's counter at the last block, plus the
  // sends still in the pool.
  const nextMessage = async (ch, dest) => {
    const src = w.key(ch);
    const unmined = Object.values(msgs).filter((m) => m.sourceChain === src && !m.mined).length;
    const nonce = BigInt(await ch.messenger.read('messageNonce')) + BigInt(unmined) + 1n;
    return { nonce, id: icmMessageId(messenger, ids[src], ids[dest], nonce) };
  };
  // A message sent by rec (its source tx), recorded.
  const track = (rec, label, src, dest, { nonce, id }, from, to, payload, fee, feeToken) => {
    rec.icm.push({ messageId: id, direction: 'SOURCE_TRANSACTION', role: 'send' });
    msgs[label] = {
      label, messageId: id, nonce: Number(nonce), sourceChain: src, destinationChain: dest, from: getAddress(from), to: getAddress(to),
      requiredGasLimit: 200_000, payload, fee: { token: fee ? feeToken : Z, amount: fee }, feeAdded: 0n,
      sendRec: rec, deliveryRec: null, retryRec: null, receiptRec: null, execution: null, carriedReceipts: [], deliverer: null,
    };
    return msgs[label];
  };
  const send = async (ch, label, from, dest, to, payload, fee, feeToken) => {
    const src = w.key(ch);
    const next = await nextMessage(ch, dest);
    const input = {
      destinationBlockchainID: ids[dest], destinationAddress: to, feeInfo: { feeTokenAddress: fee ? feeToken : Z, amount: fee },
      requiredGasLimit: 200_000n, allowedRelayerAddresses: [], message: payload,
    };
    const rec = await w.call(ch, `${src}: ${label}`, from, ch.messenger, 'sendCrossChainMessage', [input], {}, fee
      ? { erc20: [[feeToken, from, messenger, fee]], internal: feeFrames(feeToken) } : {});
    return track(rec, label, src, dest, next, from, to, payload, fee, feeToken);
  };
  const hexOf = (s) => '0x' + Buffer.from(s).toString('hex');
  const m1 = await send(A, 'm1 executed', alice, 'B', receiverB.address, hexOf('hello B'), 10n * ETHER, snow.address);
  const m2 = await send(A, 'm2 failed then retried', alice, 'B', receiverB.address, hexOf('retry me'), 0n, snow.address);
  const m3 = await send(A, 'm3 failed', bob, 'B', receiverB.address, hexOf('i will fail'), 5n * ETHER, snow.address);
  const m5 = await send(A, 'm5 pending', bob, 'B', receiverB.address, hexOf('never delivered'), 1n * ETHER, snow.address);
  const m6 = await send(A, 'm6 empty payload', alice, 'B', receiverB.address, '0x', 0n, snow.address);
  await A.mine();
  for (const m of [m1, m2, m3, m5, m6]) m.mined = true;

  const deliverFrames = (m, ok) => (m.payload === '0x' ? [] : [['CALL', messenger, m.to, 0n, !ok]]);
  // m (as its source emitted it: message) delivered by rec, from deliverer: the receipts it carried
  // back, its execution.
  const delivered = (rec, m, message, ok, deliverer) => {
    rec.icm.push({ messageId: m.messageId, direction: 'DESTINATION_TRANSACTION', role: 'deliver' });
    for (const r of message.receipts) {
      const id = icmMessageId(messenger, ids[m.destinationChain], ids[m.sourceChain], r.receivedMessageNonce);
      const orig = Object.values(msgs).find((x) => x.messageId === id);
      if (!orig) throw new Error(`${m.label}: carries an unknown receipt`);
      orig.receiptRec = rec;
      m.carriedReceipts.push(id);
      rec.icm.unshift({ messageId: id, direction: null, role: 'receipt' });
    }
    m.deliveryRec = rec;
    m.deliverer = getAddress(deliverer);
    m.execution = m.payload === '0x' ? 'none' : ok ? 'executed' : 'failed';
  };
  const deliver = async (src, dst, list, ok) => {
    const done = await relay(src, dst, { relayer, rewardRedeemer, only: list.map((m) => m.messageId) });
    for (const [i, d] of done.entries()) {
      const m = list[i];
      if (d.messageId !== m.messageId) throw new Error(`relay order: ${m.label}`);
      // the relay sent it already: record the intent against its hash
      const rec = {
        chain: w.key(dst), label: `${w.key(dst)}: deliver ${m.label}`, hash: d.hash, from: getAddress(relayer), to: getAddress(messenger), value: 0n,
        nonce: num((await dst.rpc('eth_getTransactionByHash', [d.hash])).nonce),
        intent: { erc20: [], erc721: [], erc1155: [], internal: deliverFrames(m, ok[i]), creates: [], status: 1 },
        icm: [],
      };
      delivered(rec, m, d.message, ok[i], relayer);
      w.txs.push(rec);
    }
  };
  await deliver(A, B, [m1], [true]);
  await w.call(B, 'B: receiver starts failing', deployer, receiverB, 'setFailing', [true]);
  await B.mine();
  await deliver(A, B, [m2, m3], [false, false]);
  await w.call(B, 'B: receiver works again', deployer, receiverB, 'setFailing', [false]);
  await B.mine();
  const m2msg = (await sentMessages(A, B)).find((s) => s.messageId === m2.messageId).message;
  m2.retryRec = await w.call(B, 'B: retry m2', carol, B.messenger, 'retryMessageExecution', [ids.A, m2msg], {}, { internal: [['CALL', messenger, receiverB.address, 0n]] });
  m2.retryRec.icm.push({ messageId: m2.messageId, direction: 'DESTINATION_TRANSACTION', role: 'retry' });
  m2.execution = 'retried';
  await B.mine();

  // B -> A, carrying the receipts of m1, m2, m3 back to A
  const m4 = await send(B, 'm4 reply carrying receipts', carol, 'A', receiverA.address, hexOf('hello A'), 0n, Z);
  await B.mine();
  m4.mined = true;
  const add = await w.call(A, 'A: bob adds 2 SNOW to m5 fee', bob, A.messenger, 'addFeeAmount', [m5.messageId, snow.address, 2n * ETHER], {},
    { erc20: [[snow.address, bob, messenger, 2n * ETHER]], internal: feeFrames(snow.address) });
  add.icm.push({ messageId: m5.messageId, direction: 'SOURCE_TRANSACTION', role: 'addFee' });
  m5.feeAdded = 2n * ETHER;
  m5.fee.amount += 2n * ETHER;
  await A.mine();
  await deliver(B, A, [m4], [true]);
  // the reward of the receipted messages (m1: 10, m3: 5 SNOW) goes to the reward redeemer
  await w.call(A, 'A: the relayer reward is redeemed', rewardRedeemer, A.messenger, 'redeemRelayerRewards', [snow.address], {},
    { erc20: [[snow.address, messenger, rewardRedeemer, 15n * ETHER]], internal: [['CALL', messenger, snow.address, 0n]] });
  await A.mine();
  await deliver(A, B, [m6], [true]); // its receipt stays owed on B

  // C (not indexed) -> B
  const m7 = await send(C, 'm7 from the unindexed chain C', dave, 'B', receiverB.address, hexOf('from C'), 0n, Z);
  await C.mine();
  m7.mined = true;
  await deliver(C, B, [m7], [true]);

  // -- deployments that are themselves the work (contracts/Deployers.sol), for getDeployment: on
  // A, a constructor that mints and moves NFTs of both standards, and one that sends g1 to B (it
  // carries the receipt A owes B, m4's); on B, a constructor that delivers g1 (the deliverer is
  // that contract)
  const drop = await A.nextContractAddress(deployer);
  await w.deploy(A, 'A: deploy NftDrop (its constructor mints and moves FLAKE 3 and 4, ids 9, 10, 11)', deployer, 'NftDrop', [nft.address, 3n, mt.address, 9n, carol], {
    erc721: [[nft.address, Z, drop, 3n], [nft.address, drop, carol, 3n], [nft.address, Z, carol, 4n]],
    erc1155: [[mt.address, drop, Z, drop, 9n, 5n, false], [mt.address, drop, drop, carol, 9n, 2n, false],
      [mt.address, drop, Z, carol, 10n, 1n, true], [mt.address, drop, Z, carol, 11n, 2n, true]],
    internal: [['CALL', drop, nft.address], ['CALL', drop, nft.address], ['CALL', drop, nft.address],
      ['CALL', drop, mt.address], ['CALL', drop, mt.address], ['CALL', drop, mt.address]],
  });
  const greeter = await A.nextContractAddress(alice);
  const g1next = await nextMessage(A, 'B');
  const g1payload = hexOf('hello from a constructor');
  const greet = await w.deploy(A, 'A: deploy IcmGreeter (its constructor sends g1 to B)', alice, 'IcmGreeter', [messenger, ids.B, receiverB.address, g1payload], {
    internal: [['CALL', greeter, messenger, 0n]],
  });
  const g1 = track(greet, 'g1 sent by a constructor, delivered by one', 'A', 'B', g1next, greeter, receiverB.address, g1payload, 0n, Z);
  await A.mine();
  g1.mined = true;
  const g1msg = (await sentMessages(A, B)).find((x) => x.messageId === g1.messageId).message;
  const courier = await B.nextContractAddress(relayer);
  const carry = await w.deploy(B, 'B: deploy IcmCourier (its constructor delivers g1)', relayer, 'IcmCourier', [messenger, ids.A, g1msg, rewardRedeemer], {
    internal: [['CALL', courier, messenger, 0n], ['CALL', messenger, receiverB.address, 0n]],
  });
  delivered(carry, g1, g1msg, true, courier);
  await B.mine();

  for (const ch of Object.values(chains)) ch.head = await ch.blockNumber();
  await w.finish();

  // -- the ground truth
  const recTruth = (r) => {
    const { intent, ...t } = r;
    return { ...t, value: t.value.toString() };
  };
  const timestamps = {};
  const ts = async (k, n) => {
    const key = `${k}/${n}`;
    if (!(key in timestamps)) timestamps[key] = num((await chains[k].rpc('eth_getBlockByNumber', [hex(n), false])).timestamp);
    return timestamps[key];
  };
  const logIndexOf = (rec, topic, id) => {
    const r = rec.receiptLogs.find((l) => l.topics[0] === topic && l.topics[1] === id);
    return r ? num(r.logIndex) : null;
  };
  for (const rec of w.txs) rec.receiptLogs = (await chains[rec.chain].receipt(rec.hash)).logs;
  const messages = [];
  for (const m of Object.values(msgs)) {
    const src = m.sourceChain, dst = m.destinationChain;
    const s = m.sendRec, d = m.deliveryRec;
    messages.push({
      label: m.label, messageId: m.messageId, nonce: m.nonce, sourceChain: src, destinationChain: dst,
      sourceBlockchainId: ids[src], destinationBlockchainId: ids[dst],
      sourceEvmChainId: WORLD_CHAINS[src].evmChainId, destinationEvmChainId: WORLD_CHAINS[dst].evmChainId, messenger,
      from: m.from, to: m.to, requiredGasLimit: m.requiredGasLimit, payload: m.payload,
      status: !d ? 'pending' : WORLD_CHAINS[src].indexed ? 'delivered' : 'delivered_source_not_indexed',
      execution: d ? m.execution : null, receiptDelivered: !!m.receiptRec,
      fee: { token: getAddress(m.fee.token), amount: m.fee.amount.toString() }, feeAdded: m.feeAdded.toString(),
      send: { txHash: s.hash, blockNumber: s.blockNumber, timestamp: await ts(src, s.blockNumber), gasUsed: s.gasUsed, gasSpent: s.gasSpent, logIndex: logIndexOf(s, TOPIC.SendCrossChainMessage, m.messageId) },
      delivery: d && {
        txHash: d.hash, blockNumber: d.blockNumber, timestamp: await ts(dst, d.blockNumber), gasUsed: d.gasUsed, gasSpent: d.gasSpent,
        deliverer: m.deliverer, rewardRedeemer: getAddress(rewardRedeemer), logIndex: logIndexOf(d, TOPIC.ReceiveCrossChainMessage, m.messageId),
      },
      retry: m.retryRec && { txHash: m.retryRec.hash, blockNumber: m.retryRec.blockNumber },
      receipt: m.receiptRec && { txHash: m.receiptRec.hash, blockNumber: m.receiptRec.blockNumber, logIndex: logIndexOf(m.receiptRec, TOPIC.ReceiptReceived, m.messageId) },
      carriedReceipts: m.carriedReceipts,
    });
  }
  for (const rec of w.txs) delete rec.receiptLogs;

  const contractsOnA = w.contracts.filter((c) => c.chain === 'A' && c.name !== 'TestMessenger').map((c) => c.address);
  const balanceAddresses = {
    A: [alice, bob, carol, dave, deployer, rewardRedeemer, md, ...contractsOnA].map((a) => getAddress(a)),
    B: [relayer, carol, deployer, md].map((a) => getAddress(a)),
    C: [dave, md].map((a) => getAddress(a)),
  };
  const balances = [];
  for (const k of ['A', 'B', 'C']) balances.push(...w.balances(k, balanceAddresses[k]));

  const truthChains = {};
  for (const [k, c] of Object.entries(WORLD_CHAINS)) {
    truthChains[k] = {
      key: k, name: c.name, evmChainId: c.evmChainId, blockchainId: ids[k], blockchainIdCb58: blockchainIdCb58(ids[k]),
      rpcUrl: chains[k].url, indexed: c.indexed, head: chains[k].head, messenger,
    };
  }
  return {
    chains: truthChains,
    accounts: Object.fromEntries(Object.entries(accounts).map(([k, v]) => [k, getAddress(v)])),
    blocks: w.blocks, contracts: w.contracts, txs: w.txs.map(recTruth), balances, balanceAddresses, messages,
  };
}

// The viem helpers the tests use with this module (one version: the one in package.json).
export { decodeEventLog, encodeAbiParameters, encodeFunctionData, getAddress, keccak256, toEventSelector };
