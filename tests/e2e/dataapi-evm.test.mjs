// dataapi-evm.test.mjs — the EVM routes of the Data API (part 3: spec 000 §2.8, §2.9, §4.3
// getDeployment, §4.6) against the EVM test world's ground truth (evm-lib.mjs, seedEvmWorld), on one
// store backend: SQLite here, PostgreSQL in dataapi-evm-pg.test.mjs (the same suite).
//
// Three anvil chains are seeded (A, B, C); `snowline index` reads A and B (--evm-chain, beside a
// small fuji devnet's primary network, which gives the store its network) and C stays unconfigured
// ("not indexed"). Then, through `snowline api`:
//  1. GET /v1/chains (network and feature filters) and GET /v1/chains/{chainId} by EVM chain id and
//     by blockchain id (cb58 and hex): exactly the configured chains;
//  2. getDeployment of every contract of the world (direct, by a factory, nested): the outer tx
//     exactly (native tx, method, ERC-20/721/1155 transfers, internal txs as the OpenAPI document
//     defines the list, network token, prices), contracts of C a 404;
//  3. balances:getNative of every chosen address at every block of A and B (eth_getBalance through
//     the chain's RPC) and at the head by default, with the price and its value where the chain's
//     token is AVAX and the price table has the block's day;
//  4. the ICM messages of every sender and recipient, page by page: every state (pending,
//     delivered, executed, failed, retried, empty, delivered from the unindexed chain C) exactly;
//  5. every body strict for @avalanche-sdk/chainkit (unknown keys refused; prices under
//     --compat upstream, where Money.value is a number); bad input (unknown chains, malformed
//     chain ids and addresses, a non-contract, a block past the head, bad filters) gets its
//     status with an ErrorBody naming the parameter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, cleanup, BIN } from './lib.mjs';
import * as L from './dataapi-lib.mjs';
import * as E from './evm-lib.mjs';
import { strict, zodIssues, checkErrorBody, sdkClient, C } from './dataapi-schema-lib.mjs';

const BACKEND = process.env.SNOWLINE_EVM_API_BACKEND ?? 'sqlite';
const dir = tempDir('snowline-evm-api-');
let world, truth, devnet, store, indexer, api, up;
let bodies = 0; // bodies checked against a strict schema

const lc = (s) => (s == null ? s : s.toLowerCase());
const INDEXED = ['A', 'B'];
// A's token is AVAX (priced by the price table), B's ETH (never priced)
const PRICES = [['2023-11-14', 'usd', '20.5'], ['2023-11-15', 'usd', '21.25'], ['2023-11-14', 'eur', '18']];

before(async () => {
  world = await E.seedEvmWorld();
  truth = world.truth;
  devnet = await L.startDevnetNode({ dataDir: join(dir, 'node'), txs: 30, seed: 'snowline-evm-api' });
  store = L.freshStore(BACKEND, dir, 'evmapi');
  // the primary network first (it gives the store its network and page-token secret), then the
  // EVM chains alone (--no-primary)
  const primary = L.startIndexer({ nodeUrl: devnet.url, store, genesis: devnet.genesisPath });
  try { // stopped here, also when its wait fails (after() does not know it)
    await primary.ready;
    api = await L.startApi({ store });
    await L.waitCaughtUp(api, { nodeUrl: devnet.url, indexer: primary, timeoutMs: 180000 });
  } finally {
    await primary.stop();
  }
  indexer = startEvmIndexer(store, INDEXED.flatMap((k) => ['--evm-chain', spec(k)]));
  // the EVM chains: caught up once the head block's balance is served
  const until = Date.now() + 120000;
  for (const k of INDEXED) {
    const c = truth.chains[k];
    for (;;) {
      const r = await L.apiGet(`${api.url}/v1/chains/${c.evmChainId}/addresses/${truth.accounts.deployer}/balances:getNative?blockNumber=${c.head}`);
      if (r.status === 200) break;
      if (indexer.proc.exitCode !== null) throw new Error(`the indexer exited:\n${indexer.logs().slice(-3000)}`);
      if (Date.now() > until) throw new Error(`chain ${k} not indexed to ${c.head}: ${r.status} ${r.text}\n${indexer.logs().slice(-3000)}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }
  await indexer.stop();
  const csv = join(dir, 'prices.csv');
  writeFileSync(csv, `date,currency,price\n${PRICES.map((p) => p.join(',')).join('\n')}\n`);
  const ld = spawnSync(BIN, ['prices', '--store', store, csv], { encoding: 'utf8', timeout: 60000 });
  assert.equal(ld.status, 0, ld.stderr);
  up = await L.startApi({ store, args: ['--compat', 'upstream'] });
});

after(async () => {
  for (const p of [up, api, indexer, devnet]) if (p) await p.stop().catch(() => {});
  if (world) await world.stop();
  if (store) L.dropStore(store);
  cleanup(dir);
});

// ---- helpers ------------------------------------------------------------------------------------

// What the configuration says of each chain beyond its ids: A is a mainnet chain (not a testnet,
// explicitly) with every optional field /v1/chains shows; B a fuji one with none of them.
const CONF = {
  A: {
    network: 'mainnet', testnet: '0', subnet: E.blockchainIdCb58(E.testBlockchainId('subnet A')),
    explorer: 'https://explorer.example.invalid/a', ws: 'ws://127.0.0.1:9/a/ws', logo: 'https://example.invalid/a.png',
    description: 'Snowline test chain A: its token is priced as AVAX', 'token-logo': 'https://example.invalid/avax.png',
    symbol: 'AVAX', token: 'Avalanche',
  },
  B: { network: 'fuji' },
};
const NETWORK_OF = { A: 'mainnet', B: 'fuji' }; // C is not configured: of no network here

// The --evm-chain of world chain k.
function spec(k) {
  const c = truth.chains[k];
  return [`id=${c.evmChainId}`, `rpc=${c.rpcUrl}`, `name=${c.name}`, `blockchain=${c.blockchainId}`, `icm=${c.messenger}`,
    ...Object.entries(CONF[k]).map(([key, v]) => `${key}=${v}`)].join(',');
}

// `snowline index --no-primary` with EVM chains: { proc, stop(), logs() }.
function startEvmIndexer(st, args) {
  const proc = spawn(BIN, ['index', '--store', st, '--no-primary', '--progress', 'off', '--poll-ms', '100', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  const exited = new Promise((res) => proc.on('exit', (code, sig) => res({ code, sig })));
  return {
    proc, logs: () => out,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return exited;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 15000);
      const r = await exited; clearTimeout(t); return r;
    },
  };
}

const get = (base, path) => L.apiGet(base + path);
function strictly(schema, body, what) {
  const r = strict(schema).safeParse(body);
  if (!r.success) throw new Error(`${what}: not strict for the SDK: ${zodIssues(r.error)}\n${JSON.stringify(body).slice(0, 600)}`);
  bodies++;
}
function expectError(r, status, names, what) {
  assert.equal(r.status, status, `${what}: status ${r.status}, want ${status}: ${r.text.slice(0, 300)}`);
  const b = checkErrorBody(status, r.text);
  for (const n of [names].flat()) assert.ok(String(b.message).includes(n), `${what}: the message does not name ${n}: ${b.message}`);
}
const priceOf = (ts, cur) => {
  const day = new Date(ts * 1000).toISOString().slice(0, 10);
  return PRICES.find(([d, c]) => d === day && c === cur)?.[2];
};
const latestPrice = (cur) => PRICES.filter(([, c]) => c === cur).sort().at(-1)?.[2];
// a × price / 10^decimals, exactly, as a decimal text without trailing zeros
function times(a, price, decimals) {
  const [w, f = ''] = price.split('.');
  const n = BigInt(a) * BigInt(w + f), scale = f.length + decimals;
  const s = n.toString().padStart(scale + 1, '0');
  const int = s.slice(0, s.length - scale), frac = s.slice(s.length - scale).replace(/0+$/, '');
  return frac ? `${int}.${frac}` : int;
}

// ---- 1. chains ------------------------------------------------------------------------------------

function wantChain(k) {
  const c = truth.chains[k], f = CONF[k];
  const out = {
    chainId: String(c.evmChainId), status: 'OK', chainName: c.name, description: f.description ?? '', platformChainId: c.blockchainIdCb58,
    vmName: 'EVM', rpcUrl: c.rpcUrl, isTestnet: f.network !== 'mainnet',
    networkToken: k === 'A' ? { name: 'Avalanche', symbol: 'AVAX', decimals: 18, logoUri: f['token-logo'] } : { name: 'ETH', symbol: 'ETH', decimals: 18 },
    enabledFeatures: ['teleporter'],
  };
  if (f.subnet) out.subnetId = f.subnet;
  if (f.explorer) out.explorerUrl = f.explorer;
  if (f.ws) out.wsUrl = f.ws;
  if (f.logo) out.chainLogoUri = f.logo;
  return out;
}

test('chains: the configured chains with every field of their configuration, filtered by network and feature; one chain by EVM chain id and by blockchain id', async () => {
  const all = await get(api.url, '/v1/chains');
  assert.equal(all.status, 200, all.text);
  strictly(C.DataListChainsResponse$inboundSchema, all.json, '/v1/chains');
  assert.deepEqual(all.json, { chains: INDEXED.map(wantChain) });
  // A shows every optional field of ChainInfo the configuration has, and is not a testnet
  const a = all.json.chains[0];
  for (const key of ['subnetId', 'explorerUrl', 'wsUrl', 'chainLogoUri']) assert.ok(a[key], `A has ${key}`);
  assert.ok(a.description && a.networkToken.logoUri && a.isTestnet === false);
  for (const [q, want] of [['network=local', []], ['network=mainnet', ['A']], ['network=fuji', ['B']], ['network=testnet', ['B']],
    ['feature=teleporter', INDEXED], ['feature=nftIndexing', []], ['feature=webhooks', []], ['network=mainnet&feature=teleporter', ['A']],
    ['network=fuji&feature=nftIndexing', []]]) {
    const r = await get(api.url, `/v1/chains?${q}`);
    assert.equal(r.status, 200, r.text);
    strictly(C.DataListChainsResponse$inboundSchema, r.json, `/v1/chains?${q}`);
    assert.deepEqual(r.json, { chains: want.map(wantChain) }, q);
  }
  // the SDK's own listChains and getChainDetails read them (its Network enum has no local)
  const { sdk, opts } = sdkClient(api.url);
  const listed = await sdk.data.evm.chains.list({ network: 'mainnet' }, opts);
  assert.deepEqual(JSON.parse(JSON.stringify(listed.chains ?? listed.result?.chains)).map((x) => x.chainId), [String(truth.chains.A.evmChainId)]);
  const one = await sdk.data.evm.chains.get({ chainId: String(truth.chains.A.evmChainId) }, opts);
  assert.equal(one.wsUrl, CONF.A.ws);
  for (const k of INDEXED) {
    const c = truth.chains[k];
    for (const id of [String(c.evmChainId), c.blockchainIdCb58, c.blockchainId, c.blockchainId.toUpperCase().replace('0X', '0x')]) {
      const r = await get(api.url, `/v1/chains/${id}`);
      assert.equal(r.status, 200, `${id}: ${r.text}`);
      strictly(C.GetChainResponse$inboundSchema, r.json, `/v1/chains/${id}`);
      assert.deepEqual(r.json, wantChain(k), id);
    }
  }
  const cc = truth.chains.C;
  for (const id of [String(cc.evmChainId), cc.blockchainIdCb58, cc.blockchainId, '43114']) {
    expectError(await get(api.url, `/v1/chains/${id}`), 404, ['chainId', id], `unconfigured chain ${id}`);
  }
});

// ---- 2. getDeployment ------------------------------------------------------------------------------------

const txByHash = () => new Map(truth.txs.map((x) => [x.hash, x]));
const contractOf = (chain, addr) => truth.contracts.find((c) => c.chain === chain && lc(c.address) === lc(addr));
// the RichAddress of an address: its token's name, symbol and decimals where it is a token the world made
function rich(chain, addr) {
  const t = contractOf(chain, addr)?.token;
  const out = {};
  // what the token answered (an ERC-1155 may have no name or symbol, an NFT no decimals)
  if (t?.name != null) out.name = t.name;
  if (t?.symbol != null) out.symbol = t.symbol;
  if (t?.decimals != null) out.decimals = t.decimals;
  out.address = addr;
  return out;
}
const plain = (addr) => ({ address: addr });
const tokenOf = (chain, addr) => contractOf(chain, addr)?.token ?? { name: '', symbol: '', decimals: 0 };

// The selectors the API names (deployment.c's table, as the ERC and ICM interfaces define them), as
// far as the world's contracts have them; others are "".
const WELL_KNOWN = new Set(['transfer(address,uint256)', 'approve(address,uint256)', 'transferFrom(address,address,uint256)',
  'mint(address,uint256)', 'burn(uint256)', 'safeTransferFrom(address,address,uint256)', 'safeTransferFrom(address,address,uint256,bytes)',
  'setApprovalForAll(address,bool)', 'safeTransferFrom(address,address,uint256,uint256,bytes)',
  'safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)', 'mint(address,uint256,uint256,bytes)',
  'receiveCrossChainMessage(uint32,address)', 'receiveTeleporterMessage(bytes32,address,bytes)']);
let selectorNames;
function methodName(sel) {
  if (!selectorNames) {
    selectorNames = new Map();
    for (const a of Object.values(E.compileContracts())) for (const [sig, s] of Object.entries(a.methods)) if (WELL_KNOWN.has(sig)) selectorNames.set(s.toLowerCase().replace(/^(0x)?/, '0x'), sig);
  }
  return selectorNames.get(sel) ?? '';
}

// The GetTransactionResponse of a tx: the truth's, with what anvil says of the tx and its block
// (time, type, input, fees), which the truth leaves out.
async function wantTx(k, x, cur, priced) {
  const c = truth.chains[k];
  const tx = await E.jsonRpc(c.rpcUrl, 'eth_getTransactionByHash', [x.hash]);
  const blk = await E.jsonRpc(c.rpcUrl, 'eth_getBlockByNumber', [E.hex(x.blockNumber), false]);
  const ts = E.num(blk.timestamp);
  const native = {
    blockNumber: String(x.blockNumber), blockTimestamp: ts, blockHash: x.blockHash, chainId: String(c.evmChainId),
    blockIndex: x.txIndex, txHash: x.hash, txStatus: String(x.status), txType: E.num(tx.type), gasLimit: String(x.gasLimit), gasUsed: String(x.gasUsed),
    gasPrice: String(x.effectiveGasPrice), nonce: String(x.nonce),
    method: x.kind === 'create' ? { callType: 'CONTRACT_CREATION', methodHash: '', methodName: 'Contract Created' }
      : x.kind === 'native' ? { callType: 'NATIVE_TRANSFER', methodHash: '', methodName: 'Native Transfer' }
        : { callType: 'CONTRACT_CALL', methodHash: x.methodHash, methodName: methodName(x.methodHash) },
    value: String(x.value), input: tx.input, baseFeePerGas: E.big(blk.baseFeePerGas ?? '0x0').toString(),
  };
  if (tx.maxFeePerGas) native.maxFeePerGas = E.big(tx.maxFeePerGas).toString();
  if (tx.maxPriorityFeePerGas) native.maxPriorityFeePerGas = E.big(tx.maxPriorityFeePerGas).toString();
  // from: the sender; to: the recipient or, for a creation, the contract it made
  native.from = rich(k, x.from);
  native.to = rich(k, x.to ?? x.contractAddress);
  const internal = x.internal.filter((f) => ((f.type === 'CALL' || f.type === 'CALLCODE') && BigInt(f.value ?? 0) > 0n) || f.type === 'CREATE' || f.type === 'CREATE2')
    .map((f) => ({ from: plain(f.from), to: plain(f.to), internalTxType: f.type, value: String(f.value ?? '0'), isReverted: !!f.reverted, gasUsed: String(f.gasUsed), gasLimit: String(f.gas) }));
  const icm = x.icm.find((m) => m.direction === 'SOURCE_TRANSACTION') ?? x.icm.find((m) => m.direction === 'DESTINATION_TRANSACTION');
  const out = {
    nativeTransaction: native,
    erc20Transfers: x.erc20.map((t) => ({ from: plain(t.from), to: plain(t.to), logIndex: t.logIndex, value: String(t.value),
      erc20Token: { address: t.token, name: tokenOf(k, t.token).name, symbol: tokenOf(k, t.token).symbol, decimals: tokenOf(k, t.token).decimals, ercType: 'ERC-20' } })),
    erc721Transfers: x.erc721.map((t) => ({ from: plain(t.from), to: plain(t.to), logIndex: t.logIndex,
      erc721Token: { address: t.token, name: tokenOf(k, t.token).name, symbol: tokenOf(k, t.token).symbol, ercType: 'ERC-721', tokenId: String(t.tokenId), tokenUri: '', metadata: { indexStatus: 'UNINDEXED' } } })),
    erc1155Transfers: x.erc1155.map((t) => ({ from: plain(t.from), to: plain(t.to), logIndex: t.logIndex, value: String(t.value),
      erc1155Token: { address: t.token, ercType: 'ERC-1155', tokenId: String(t.tokenId), tokenUri: '', metadata: { indexStatus: 'UNINDEXED' } } })),
    internalTransactions: internal,
    networkTokenDetails: { networkToken: wantChain(k).networkToken },
  };
  if (priced) {
    const cp = latestPrice(cur), hp = priceOf(ts, cur);
    if (cp) out.networkTokenDetails.currentPrice = { currencyCode: cur, value: cp };
    if (hp) out.networkTokenDetails.historicalPrice = { currencyCode: cur, value: hp };
  }
  if (icm) {
    const m = truth.messages.find((y) => y.messageId === icm.messageId);
    out.teleporterMessageInfo = icm.direction === 'SOURCE_TRANSACTION'
      ? { teleporterMessageId: m.messageId.slice(2), direction: icm.direction, destinationChainId: E.blockchainIdCb58(m.destinationBlockchainId) }
      : { teleporterMessageId: m.messageId.slice(2), direction: icm.direction, sourceChainId: E.blockchainIdCb58(m.sourceBlockchainId) };
  }
  return out;
}

test('getDeployment: every contract of A and B resolves to its outer tx, exactly; contracts of C and non-contracts are 404s', async () => {
  const txs = txByHash();
  const problems = [];
  const shown = new Set();
  let n = 0;
  for (const ct of truth.contracts) {
    const k = ct.chain, c = truth.chains[k];
    const path = `/v1/chains/${c.evmChainId}/contracts/${ct.address}/transactions:getDeployment`;
    if (!INDEXED.includes(k)) {
      expectError(await get(api.url, path), 404, ['chainId', String(c.evmChainId)], `${ct.label} on C`);
      continue;
    }
    const x = txs.get(ct.txHash);
    assert.ok(x, `${ct.label}: its tx ${ct.txHash} is in the truth`);
    for (const [srv, cur, upstream] of [[api, 'usd', false], [up, 'usd', true], [up, 'eur', true], [api, 'jpy', false]]) {
      const r = await get(srv.url, `${path}${cur === 'usd' && !upstream ? '' : `?currency=${cur}`}`);
      if (r.status !== 200) { problems.push(`${ct.label} (${cur}): ${r.status} ${r.text.slice(0, 300)}`); continue; }
      const priced = k === 'A';
      if (upstream || !priced) strictly(C.GetTransactionResponse$inboundSchema, r.json, `${ct.label} getDeployment`);
      const want = await wantTx(k, x, cur, priced);
      if (upstream) for (const p of ['currentPrice', 'historicalPrice']) if (want.networkTokenDetails[p]) want.networkTokenDetails[p].value = Number(want.networkTokenDetails[p].value);
      try {
        assert.deepEqual(r.json, want, ct.label);
      } catch (e) { problems.push(`${ct.label} (${cur}${upstream ? ', upstream' : ''}): ${e.message.slice(0, 1500)}`); }
      if (upstream) {
        // what the strict bodies held (every key of GetTransactionResponse, end to end)
        for (const key of ['erc20Transfers', 'erc721Transfers', 'erc1155Transfers', 'internalTransactions']) if (r.json[key]?.length) shown.add(key);
        if (r.json.teleporterMessageInfo) shown.add(r.json.teleporterMessageInfo.direction);
        if (r.json.erc721Transfers?.some((t) => BigInt(t.from.address) === 0n)) shown.add('an NFT minted');
        if (r.json.erc1155Transfers?.some((t) => BigInt(t.from.address) !== 0n)) shown.add('an NFT moved');
      }
      assert.equal(txs.get(x.hash).blockNumber, ct.blockNumber, `${ct.label}: the contract's block is its tx's`);
      n++;
    }
  }
  assert.deepEqual(problems, [], `${problems.length} deployments differ:\n${problems.join('\n')}`);
  assert.ok(n >= 4 * 10, `${n} deployments checked`);
  assert.deepEqual([...shown].sort(), ['DESTINATION_TRANSACTION', 'SOURCE_TRANSACTION', 'an NFT minted', 'an NFT moved', 'erc1155Transfers',
    'erc20Transfers', 'erc721Transfers', 'internalTransactions'], 'deployments with every kind of part, strict for the SDK');
  // not contracts: an account, the zero address, a contract of A asked on B
  const A = truth.chains.A, B = truth.chains.B;
  for (const [ch, addr, what] of [[A, truth.accounts.alice, 'an account'], [A, '0x0000000000000000000000000000000000000000', 'the zero address'],
    [B, truth.contracts.find((c) => c.chain === 'A' && c.token).address, "a contract of A, on B"]]) {
    expectError(await get(api.url, `/v1/chains/${ch.evmChainId}/contracts/${addr}/transactions:getDeployment`), 404, ['address', addr], what);
  }
});

// ---- 3. balances:getNative ----------------------------------------------------------------------------------

test('balances:getNative: every chosen address at every block of A and B, and at the head by default; prices where known', async () => {
  const problems = [];
  let n = 0;
  for (const b of truth.balances) {
    if (!INDEXED.includes(b.chain)) continue;
    const c = truth.chains[b.chain];
    const r = await get(api.url, `/v1/chains/${c.evmChainId}/addresses/${b.address}/balances:getNative?blockNumber=${b.blockNumber}`);
    if (r.status !== 200) { problems.push(`${b.chain} ${b.address} @${b.blockNumber}: ${r.status} ${r.text.slice(0, 200)}`); continue; }
    const t = r.json.nativeTokenBalance;
    if (t.balance !== b.wei || t.chainId !== String(c.evmChainId) || t.decimals !== 18 || t.symbol !== (b.chain === 'A' ? 'AVAX' : 'ETH')) {
      problems.push(`${b.chain} ${b.address} @${b.blockNumber}: ${JSON.stringify(t)}, want balance ${b.wei}`);
    }
    if (b.chain === 'B') {
      if ('price' in t || 'balanceValue' in t) problems.push(`B: a price for ETH: ${JSON.stringify(t)}`);
      strictly(C.GetNativeBalanceResponse$inboundSchema, r.json, 'getNative B');
    }
    n++;
  }
  assert.deepEqual(problems, [], `${problems.length} balances differ:\n${problems.slice(0, 30).join('\n')}`);
  assert.equal(n, truth.balances.filter((b) => INDEXED.includes(b.chain)).length);
  assert.ok(n > 100, `${n} balances`);
  // the head by default
  for (const k of INDEXED) {
    const c = truth.chains[k];
    for (const a of truth.balanceAddresses[k]) {
      const want = truth.balances.find((b) => b.chain === k && b.address === a && b.blockNumber === c.head);
      const r = await get(api.url, `/v1/chains/${c.evmChainId}/addresses/${a}/balances:getNative`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.nativeTokenBalance.balance, want.wei, `${k} ${a} at the head`);
    }
  }
  // A's token is AVAX: the price of the block's day, and balance × price; a number under upstream
  const A = truth.chains.A;
  const deployer = truth.accounts.deployer;
  let priced = 0;
  for (let blk = 0; blk <= A.head; blk++) {
    const wei = truth.balances.find((b) => b.chain === 'A' && lc(b.address) === lc(deployer) && b.blockNumber === blk)?.wei;
    if (wei === undefined) continue;
    const ts = E.num((await E.jsonRpc(A.rpcUrl, 'eth_getBlockByNumber', [E.hex(blk), false])).timestamp);
    for (const [srv, cur] of [[api, 'usd'], [up, 'usd'], [up, 'eur'], [api, 'gbp']]) {
      const r = await get(srv.url, `/v1/chains/${A.evmChainId}/addresses/${deployer}/balances:getNative?blockNumber=${blk}&currency=${cur}`);
      assert.equal(r.status, 200, r.text);
      const t = r.json.nativeTokenBalance;
      if (srv === up) strictly(C.GetNativeBalanceResponse$inboundSchema, r.json, 'getNative A upstream');
      const p = priceOf(ts, cur);
      if (!p) {
        assert.ok(!('price' in t) && !('balanceValue' in t), `no ${cur} price on that day: ${JSON.stringify(t)}`);
        continue;
      }
      const num = srv === up;
      assert.deepEqual(t.price, { currencyCode: cur, value: num ? Number(p) : p }, `price @${blk} ${cur}`);
      const v = times(wei, p, 18);
      assert.deepEqual(t.balanceValue, { currencyCode: cur, value: num ? Number(v) : v }, `balanceValue @${blk} ${cur}`);
      priced++;
    }
  }
  assert.ok(priced >= 4, `${priced} priced balances checked`);
});

// ---- 4. ICM messages ----------------------------------------------------------------------------------------

const cb = (id) => E.blockchainIdCb58(id);
// A message as the API shows it from what A and B hold (C is not indexed).
function wantMessage(m) {
  const srcIdx = INDEXED.includes(m.sourceChain), dstIdx = INDEXED.includes(m.destinationChain);
  const byId = new Map(truth.messages.map((y) => [y.messageId, y]));
  const out = {
    messageId: m.messageId.slice(2).toLowerCase(), icmContractAddress: m.messenger,
    sourceBlockchainId: cb(m.sourceBlockchainId), destinationBlockchainId: cb(m.destinationBlockchainId),
    sourceEvmChainId: srcIdx ? String(m.sourceEvmChainId) : '', destinationEvmChainId: dstIdx ? String(m.destinationEvmChainId) : '',
    messageNonce: String(m.nonce), from: m.from, to: m.to, data: m.payload,
    messageExecuted: m.execution === 'executed' || m.execution === 'retried',
    receipts: m.carriedReceipts.map((id) => ({ receivedMessageNonce: String(byId.get(id).nonce), relayerRewardAddress: byId.get(id).delivery.rewardRedeemer })),
    receiptDelivered: srcIdx && m.receiptDelivered,
    rewardDetails: srcIdx
      ? { address: m.fee.token, name: tokenOf(m.sourceChain, m.fee.token).name, symbol: tokenOf(m.sourceChain, m.fee.token).symbol, decimals: tokenOf(m.sourceChain, m.fee.token).decimals, ercType: 'ERC-20', value: m.fee.amount }
      : { address: '0x0000000000000000000000000000000000000000', name: '', symbol: '', decimals: 0, ercType: 'ERC-20', value: '0' },
  };
  const delivered = dstIdx && m.delivery;
  if (srcIdx && m.send) out.sourceTransaction = { txHash: m.send.txHash, timestamp: m.send.timestamp, gasSpent: String(m.send.gasSpent) };
  if (delivered) {
    out.destinationTransaction = { txHash: m.delivery.txHash, timestamp: m.delivery.timestamp, gasSpent: String(m.delivery.gasSpent),
      rewardRedeemer: m.delivery.rewardRedeemer, delivererAddress: m.delivery.deliverer };
  }
  out.status = !delivered ? 'pending' : srcIdx ? 'delivered' : 'delivered_source_not_indexed';
  return { want: out, ts: srcIdx ? m.send.timestamp : m.delivery?.timestamp, visible: srcIdx || delivered,
    networks: new Set([NETWORK_OF[m.sourceChain], NETWORK_OF[m.destinationChain]].filter(Boolean)) };
}

const STATUS_SCHEMA = () => ({ pending: C.PendingIcmMessage$inboundSchema, delivered: C.DeliveredIcmMessage$inboundSchema,
  delivered_source_not_indexed: C.DeliveredSourceNotIndexedIcmMessage$inboundSchema });

test('ICM messages: every sender and recipient, newest first, page by page; every state exactly', async () => {
  const addrs = [...new Set(truth.messages.flatMap((m) => [m.from, m.to]))];
  const problems = [];
  const statuses = new Set();
  const filtered = { mainnet: 0, fuji: 0, testnet: 0, local: 0, partial: 0 };
  for (const a of addrs) {
    const mine = truth.messages.filter((m) => lc(m.from) === lc(a) || lc(m.to) === lc(a)).map(wantMessage).filter((x) => x.visible)
      .sort((x, y) => y.ts - x.ts || (x.want.messageId < y.want.messageId ? 1 : -1));
    const exp = mine.map((x) => x.want);
    for (const pageSize of [undefined, 1, 2, 100]) {
      const { items, pages } = await L.fetchAllPages(`${api.url}/v1/icm/addresses/${a}/messages`, 'messages', { pageSize });
      if (pageSize === 1) assert.equal(pages, Math.max(exp.length, 1), `${a}: one page a message`);
      for (const x of items) statuses.add(x.status);
      try { assert.deepEqual(items, exp, `${a} (pageSize ${pageSize})`); } catch (e) { problems.push(e.message.slice(0, 2500)); }
    }
    const one = await get(api.url, `/v1/icm/addresses/${a}/messages?pageSize=100`);
    strictly(C.ListIcmMessagesResponse$inboundSchema, one.json, `messages of ${a}`);
    for (const m of one.json.messages) strictly(STATUS_SCHEMA()[m.status], m, `a ${m.status} message`);
    // the network filter: the messages whose source or destination is a chain of that network (A
    // is mainnet's, B fuji's, C none's: a message from C to B is fuji's only)
    for (const net of ['mainnet', 'fuji', 'testnet', 'local']) {
      const want = mine.filter((x) => x.networks.has(net === 'testnet' ? 'fuji' : net)).map((x) => x.want);
      const r = await get(api.url, `/v1/icm/addresses/${a}/messages?pageSize=100&network=${net}`);
      assert.equal(r.status, 200, r.text);
      strictly(C.ListIcmMessagesResponse$inboundSchema, r.json, `messages of ${a} on ${net}`);
      assert.deepEqual(r.json.messages, want, `${a} network=${net}`);
      filtered[net] += want.length;
      if (want.length && want.length < exp.length) filtered.partial++;
    }
  }
  // the filter matched where it should, and left out some messages where it should
  assert.ok(filtered.mainnet > 0 && filtered.fuji > filtered.mainnet && filtered.local === 0 && filtered.testnet === filtered.fuji, JSON.stringify(filtered));
  assert.ok(filtered.partial > 0, 'a list the filter cut short, not only kept whole or emptied');
  assert.deepEqual(problems, [], `${problems.length} lists differ:\n${problems.join('\n')}`);
  assert.deepEqual([...statuses].sort(), ['delivered', 'delivered_source_not_indexed', 'pending'], 'every status is shown');
  // the lowercase address is the same address
  const a = addrs[0];
  const x = await get(api.url, `/v1/icm/addresses/${a}/messages`), y = await get(api.url, `/v1/icm/addresses/${lc(a)}/messages`);
  assert.deepEqual(x.json, y.json);
  // an address with no message: an empty list
  const none = await get(api.url, '/v1/icm/addresses/0x000000000000000000000000000000000000dEaD/messages');
  assert.deepEqual(none.json, { messages: [] });
});

// ---- 5. bad input ----------------------------------------------------------------------------------------

test('bad input: unknown and malformed chains, malformed addresses, a block past the head, bad filters and pages', async () => {
  const A = truth.chains.A, acct = truth.accounts.alice;
  const dep = truth.contracts.find((c) => c.chain === 'A' && c.token).address;
  const cases = [
    // chains
    ['/v1/chains?network=devnet', 400, 'network'], ['/v1/chains?network=Mainnet', 400, 'network'], ['/v1/chains?feature=nft', 400, 'feature'],
    ['/v1/chains?colour=blue', 400, 'colour'], ['/v1/chains?network=local&network=local', 400, 'network'],
    ['/v1/chains/0', 400, 'chainId'], ['/v1/chains/-1', 400, 'chainId'], ['/v1/chains/abc', 400, 'chainId'], ['/v1/chains/c-chain', 400, 'chainId'],
    ['/v1/chains/99999999999999999999', 400, 'chainId'], ['/v1/chains/0x1234', 400, 'chainId'], ['/v1/chains/099901', 400, 'chainId'],
    [`/v1/chains/${A.blockchainIdCb58.slice(0, -1)}x`, 400, 'chainId'], ['/v1/chains/1', 404, 'chainId'],
    [`/v1/chains/${truth.chains.C.blockchainIdCb58}`, 404, truth.chains.C.blockchainIdCb58],
    // getNative
    [`/v1/chains/${A.evmChainId}/addresses/${acct}/balances:getNative?blockNumber=${A.head + 1}`, 400, 'blockNumber'],
    [`/v1/chains/${A.evmChainId}/addresses/${acct}/balances:getNative?blockNumber=99999999`, 400, 'blockNumber'],
    [`/v1/chains/${A.evmChainId}/addresses/${acct}/balances:getNative?blockNumber=-1`, 400, 'blockNumber'],
    [`/v1/chains/${A.evmChainId}/addresses/${acct}/balances:getNative?blockNumber=latest`, 400, 'blockNumber'],
    [`/v1/chains/${A.evmChainId}/addresses/${acct}/balances:getNative?currency=btc`, 400, 'currency'],
    [`/v1/chains/${A.evmChainId}/addresses/${acct.slice(0, -1)}/balances:getNative`, 400, 'address'],
    [`/v1/chains/${A.evmChainId}/addresses/${acct.slice(2)}/balances:getNative`, 400, 'address'],
    [`/v1/chains/${A.evmChainId}/addresses/${acct.slice(0, -1)}g/balances:getNative`, 400, 'address'],
    [`/v1/chains/${A.evmChainId}/addresses/fuji1hq5x6xnqms5mua4xdkj7jl49ghs23tkzxmjjsn/balances:getNative`, 400, 'address'],
    [`/v1/chains/${truth.chains.C.evmChainId}/addresses/${acct}/balances:getNative`, 404, 'chainId'],
    [`/v1/chains/xyz/addresses/${acct}/balances:getNative`, 400, 'chainId'],
    // getDeployment
    [`/v1/chains/${A.evmChainId}/contracts/${acct}/transactions:getDeployment`, 404, 'address'],
    [`/v1/chains/${A.evmChainId}/contracts/${dep}x/transactions:getDeployment`, 400, 'address'],
    [`/v1/chains/${A.evmChainId}/contracts/0x/transactions:getDeployment`, 400, 'address'],
    [`/v1/chains/${A.evmChainId}/contracts/${dep}/transactions:getDeployment?currency=USD`, 400, 'currency'],
    [`/v1/chains/${A.evmChainId}/contracts/${dep}/transactions:getDeployment?blockNumber=1`, 400, 'blockNumber'],
    [`/v1/chains/7/contracts/${dep}/transactions:getDeployment`, 404, 'chainId'],
    // ICM
    [`/v1/icm/addresses/${acct.slice(0, 20)}/messages`, 400, 'address'], ['/v1/icm/addresses/alice/messages', 400, 'address'],
    [`/v1/icm/addresses/${acct}/messages?pageSize=0`, 400, 'pageSize'], [`/v1/icm/addresses/${acct}/messages?pageSize=101`, 400, 'pageSize'],
    [`/v1/icm/addresses/${acct}/messages?network=local2`, 400, 'network'], [`/v1/icm/addresses/${acct}/messages?pageToken=forged`, 400, 'pageToken'],
    [`/v1/icm/addresses/${acct}/messages?address=${acct}`, 400, 'address'],
  ];
  const failed = [];
  for (const [path, status, name] of cases) {
    try { expectError(await get(api.url, path), status, name, path); } catch (e) { failed.push(e.message); }
  }
  assert.deepEqual(failed, [], `${failed.length} of ${cases.length} cases:\n${failed.join('\n')}`);
  // a page token of one address's list is not good for another's
  const [m] = truth.messages;
  const p1 = await get(api.url, `/v1/icm/addresses/${m.from}/messages?pageSize=1`);
  assert.ok(p1.json.nextPageToken, 'a second page');
  expectError(await get(api.url, `/v1/icm/addresses/${m.to}/messages?pageSize=1&pageToken=${p1.json.nextPageToken}`), 400, 'pageToken', 'a token of another list');
});

test('the response cache: a repeat is a hit with the same bytes', async () => {
  const hits = async () => Number(/snowline_api_cache_lookups_total\{result="hit"\} (\d+)/.exec(await (await fetch(`${api.url}/metrics`)).text())?.[1] ?? NaN);
  const A = truth.chains.A;
  const ct = truth.contracts.find((c) => c.chain === 'A' && c.via === 'factory');
  for (const path of ['/v1/chains', `/v1/chains/${A.evmChainId}`, `/v1/chains/${A.evmChainId}/contracts/${ct.address}/transactions:getDeployment`,
    `/v1/chains/${A.evmChainId}/addresses/${truth.accounts.alice}/balances:getNative?blockNumber=3`, `/v1/icm/addresses/${truth.messages[0].from}/messages`]) {
    const a = await get(api.url, path), h0 = await hits(), b = await get(api.url, path), h1 = await hits();
    assert.equal(a.status, 200, `${path}: ${a.text.slice(0, 200)}`);
    assert.equal(b.text, a.text, `${path}: the same bytes`);
    assert.equal(h1, h0 + 1, `${path}: the repeat is a hit`);
  }
  // the EVM indexer applies one more block of A (1 ETH to alice): the balance at the newest block
  // is the new one, not the cached
  const path = `/v1/chains/${A.evmChainId}/addresses/${truth.accounts.alice}/balances:getNative`;
  const before = await get(api.url, path);
  assert.equal((await get(api.url, path)).text, before.text);
  await world.chains.A.sendAndMine({ from: truth.accounts.deployer, to: truth.accounts.alice, value: 10n ** 18n, gas: 21000n });
  const ix = startEvmIndexer(store, INDEXED.flatMap((k) => ['--evm-chain', spec(k)]));
  try {
    const until = Date.now() + 60000;
    while ((await get(api.url, `${path}?blockNumber=${A.head + 1}`)).status !== 200) {
      if (Date.now() > until) throw new Error(`block ${A.head + 1} not indexed:\n${ix.logs().slice(-2000)}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  } finally { await ix.stop(); }
  const after = await get(api.url, path);
  assert.equal(after.status, 200);
  assert.equal(BigInt(after.json.nativeTokenBalance.balance), BigInt(before.json.nativeTokenBalance.balance) + 10n ** 18n, 'the new balance, not the cached one');
});

test('a store of EVM chains alone (index --no-primary): the API serves them; the network routes are 404s naming why', async () => {
  const only = L.freshStore(BACKEND, dir, 'evmonly');
  const ix = startEvmIndexer(only, ['--evm-chain', spec('A')]);
  let api2;
  try {
    const A = truth.chains.A;
    for (const until = Date.now() + 60000; ;) {
      if (!api2) api2 = await L.startApi({ store: only }).catch(() => null); // refused until the indexer wrote its chains
      const r = api2 && await get(api2.url, `/v1/chains/${A.evmChainId}/addresses/${truth.accounts.deployer}/balances:getNative?blockNumber=${A.head}`);
      if (r && r.status === 200) break;
      if (Date.now() > until) throw new Error(`chain A not served from an EVM-only store:\n${ix.logs().slice(-2000)}`);
      await new Promise((res) => setTimeout(res, 200));
    }
    const chains = await get(api2.url, '/v1/chains');
    assert.deepEqual(chains.json.chains.map((c) => c.chainId), [String(A.evmChainId)]);
    const net = await get(api2.url, '/v1/networks/fuji/blockchains/p-chain/transactions');
    assert.equal(net.status, 404);
    assert.match(net.json.message, /no primary network yet, only EVM chains/);
  } finally {
    if (api2) await api2.stop();
    await ix.stop();
    L.dropStore(only);
  }
});

test('every body checked was strict for the SDK', () => {
  assert.ok(bodies > 50, `${bodies} bodies`);
});
