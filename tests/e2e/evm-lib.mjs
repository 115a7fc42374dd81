// The EVM test world: real anvil nodes, snowline's own test contracts (tests/e2e/contracts),
// a small relayer for the test ICM messenger, and seedEvmWorld(), which builds a fixed scenario
// and returns its ground truth. See docs/evm-tests.md. (The ground truth's shape is documented
// above seedEvmWorld below.)
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  decodeEventLog, decodeFunctionResult, encodeAbiParameters, encodeDeployData, encodeFunctionData,
  getAddress, keccak256, toEventSelector,
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
  writeFileSync(cache + '.tmp', JSON.stringify(arts));
  renameSync(cache + '.tmp', cache);
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
  constructor({ url, port, proc, chainId, timestamp, blockTime, logs }) {
    Object.assign(this, { url, port, proc, chainId, logs });
    this.nextTimestamp = timestamp + blockTime;
    this.blockTime = blockTime;
    this.accounts = [];
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
    const ts = this.nextTimestamp;
    this.nextTimestamp += this.blockTime;
    await this.rpc('evm_mine', [{ timestamp: ts, blocks: 1 }]);
    return num(await this.rpc('eth_blockNumber'));
  }
  async blockNumber() { return num(await this.rpc('eth_blockNumber')); }
  // Sends a tx into the pool (from an unlocked dev account). gas is always explicit: estimates
  // run against the last block, not the pending one, and fail for reverting calls.
  send({ from, to, data, value = 0n, gas = 1_000_000n }) {
    const tx = { from, gas: hex(gas), value: hex(value) };
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

// Starts anvil: { chainId, timestamp (genesis), blockTime (seconds between mined blocks) }.
export async function startAnvil({ chainId = 31337, timestamp = 1_700_000_000, blockTime = 2, accounts = 10, balance = 10000, args = [], timeoutMs = 20000 } = {}) {
  const full = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId), '--no-mining', '--hardfork', 'cancun',
    '--timestamp', String(timestamp), '--accounts', String(accounts), '--balance', String(balance), ...args];
  const proc = spawn(ANVIL, full, { stdio: ['ignore', 'pipe', 'pipe'] });
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
  const chain = new EvmChain({ url: `http://127.0.0.1:${port}`, port, proc, chainId, timestamp, blockTime, logs: () => logs });
  chain.accounts = (await chain.rpc('eth_accounts')).map((a) => getAddress(a));
  return chain;
}

export { decodeEventLog, encodeAbiParameters, getAddress, keccak256, toEventSelector };
