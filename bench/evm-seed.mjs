// evm-seed.mjs — bench/evm.sh's EVM history (issue #13's bench).
//
//   node bench/evm-seed.mjs seed OUT.json
//     Starts two anvil chains (tests/e2e/evm-lib.mjs: the project's own test contracts) and fills
//     them: chain A gets BENCH_EVM_BLOCKS blocks of BENCH_EVM_TXS_PER_BLOCK txs each, a fixed
//     mix (per 20 txs: 8 native transfers, 5 ERC-20 transfers, 3 ERC-721 mints or transfers,
//     1 ERC-1155 mint, 1 contract created by the factory (CREATE, or CREATE2 every other
//     time), 2 ICM messages to B); every BENCH_EVM_RELAY_EVERY (10) blocks of A the relayer
//     delivers A's new messages to B in one block of B. Txs go to anvil in JSON-RPC batches
//     (one per block), so seeding is quick and nothing is cached. Writes OUT.json (the chains'
//     URLs, ids, heads and tx counts, the messenger, contracts to ask getDeployment about, the
//     addresses with most ICM messages), then keeps the chains up until SIGTERM or SIGINT.
//
import { writeFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  startAnvil, compileContracts, testBlockchainId, hex, num, lower, getAddress, TOPIC,
} from '../tests/e2e/evm-lib.mjs';

// viem from the e2e tests' node_modules (bench/ has none of its own)
const { decodeEventLog, getContractAddress, encodeFunctionData, keccak256, toHex } =
  createRequire(new URL('../tests/e2e/package.json', import.meta.url))('viem');

const ETHER = 10n ** 18n;
const Z = '0x0000000000000000000000000000000000000000';
const GENESIS = 1_700_000_000;

function int(name, def) {
  const v = process.env[name];
  if (v === undefined || v === '') return def;
  if (!/^[0-9]+$/.test(v) || Number(v) < 1) throw new Error(`${name} must be a positive number`);
  return Number(v);
}

// One JSON-RPC batch; throws on the first error.
let rid = 0;
async function batch(url, calls) {
  if (!calls.length) return [];
  const body = calls.map(([method, params]) => ({ jsonrpc: '2.0', id: ++rid, method, params }));
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const out = await res.json();
  if (!Array.isArray(out)) throw new Error(`batch: ${JSON.stringify(out).slice(0, 300)}`);
  const byId = new Map(out.map((r) => [r.id, r]));
  return body.map((b) => {
    const r = byId.get(b.id);
    if (!r || r.error) throw new Error(`${b.method}: ${r ? r.error.message : 'no answer'}`);
    return r.result;
  });
}

async function seed(outFile) {
  const blocks = int('BENCH_EVM_BLOCKS', 2000);
  const perBlock = int('BENCH_EVM_TXS_PER_BLOCK', 50);
  const relayEvery = int('BENCH_EVM_RELAY_EVERY', 10);
  const t0 = Date.now();
  const art = compileContracts();
  const clock = { next: GENESIS + 2 };
  const opts = { timestamp: GENESIS, blockTime: 2, clock, accounts: 20, balance: 1_000_000, args: ['--gas-limit', '2000000000'], timeoutMs: 60000 };
  const A = await startAnvil({ chainId: 99911, ...opts });
  let B;
  try {
    B = await startAnvil({ chainId: 99912, ...opts });
  } catch (e) {
    await A.stop();
    throw e;
  }
  const stop = async () => { await Promise.all([A.stop(), B.stop()]); };
  process.on('SIGTERM', () => stop().then(() => process.exit(0)));
  process.on('SIGINT', () => stop().then(() => process.exit(0)));
  try {
    const acc = A.accounts;
    const deployer = acc[0], relayer = acc[1], md = acc[19];
    const senders = acc.slice(2, 18);
    const ids = { A: testBlockchainId('bench A'), B: testBlockchainId('bench B') };
    const counts = { A: 0, B: 0 };

    // setup, each chain: the messenger at md's nonce 0 (the same address on both), its id
    const messenger = getContractAddress({ from: md, nonce: 0n });
    for (const [k, ch] of [['A', A], ['B', B]]) {
      const m = await ch.deploy(md, 'TestMessenger', []);
      if (lower(m.address) !== lower(messenger)) throw new Error('messenger address');
      ch.messenger = m;
      const r = await m.write(md, 'initializeBlockchainID', [ids[k]]);
      if (r.status !== '0x1') throw new Error('initializeBlockchainID failed');
      counts[k] += 2;
    }
    const erc20 = await A.deploy(deployer, 'TestERC20', ['Bench Token', 'BENCH', 18]);
    const erc721 = await A.deploy(deployer, 'TestERC721', ['Bench NFT', 'BNFT', 'https://example.invalid/bnft/']);
    const erc1155 = await A.deploy(deployer, 'TestERC1155', ['https://example.invalid/b1155/{id}.json']);
    const factory = await A.deploy(deployer, 'Factory', []);
    const receiverB = await B.deploy(deployer, 'TestReceiver', [messenger]);
    counts.A += 4;
    counts.B += 1;
    // every sender gets ERC-20 to move, in one block
    const mints = [];
    for (const s of senders) mints.push(['eth_sendTransaction', [{ from: deployer, to: erc20.address, gas: hex(200_000n), nonce: hex(await A.nextNonce(deployer)), data: erc20.data('mint', [s, 1_000_000n * ETHER]) }]]);
    await batch(A.url, mints);
    await A.mine();
    counts.A += mints.length;

    const pattern = ['native', 'erc20', 'native', 'erc721', 'native', 'erc20', 'icm', 'native', 'erc20', 'native',
      'create', 'erc721', 'native', 'erc20', 'icm', 'native', 'erc1155', 'erc20', 'erc721', 'native'];
    const owned = new Map(senders.map((s) => [lower(s), []])); // ERC-721 ids: [{ id, block }]
    const deployments = { direct: [erc20.address, erc721.address, erc1155.address, factory.address], factory: [] };
    const icmFrom = new Map();
    let nftId = 0n, tag = 0n, factoryNonce = 2n; // the factory's constructor made a Reverter (nonce 1)
    let k = 0, relayedTo = 0;
    const relay = async (fromBlock, toBlock) => {
      const logs = await A.rpc('eth_getLogs', [{ address: messenger, topics: [TOPIC.SendCrossChainMessage], fromBlock: hex(fromBlock), toBlock: hex(toBlock) }]);
      const calls = [];
      for (const log of logs) {
        const ev = decodeEventLog({ abi: A.messenger.abi, data: log.data, topics: log.topics });
        calls.push(['eth_sendTransaction', [{
          from: relayer, to: messenger, gas: hex(ev.args.message.requiredGasLimit + 300_000n), nonce: hex(await B.nextNonce(relayer)),
          data: encodeFunctionData({ abi: B.messenger.abi, functionName: 'deliverCrossChainMessage', args: [ids.A, ev.args.message, relayer] }),
        }]]);
      }
      if (!calls.length) return;
      await batch(B.url, calls);
      await B.mine();
      counts.B += calls.length;
    };
    const first = await A.blockNumber() + 1;
    for (let b = 0; b < blocks; b++) {
      const block = first + b;
      const calls = [];
      for (let i = 0; i < perBlock; i++, k++) {
        const from = senders[k % senders.length];
        const to = senders[(k * 7 + 3) % senders.length];
        const kind = pattern[k % pattern.length];
        let tx;
        if (kind === 'native') tx = { to, value: hex(1000n + BigInt(k)), gas: hex(21000n) };
        else if (kind === 'erc20') tx = { to: erc20.address, gas: hex(100_000n), data: erc20.data('transfer', [to, BigInt(k + 1) * 1000n]) };
        else if (kind === 'erc721') {
          const mine = owned.get(lower(from));
          if (mine.length && mine[0].block < block && to !== from) {
            const { id } = mine.shift();
            owned.get(lower(to)).push({ id, block });
            tx = { to: erc721.address, gas: hex(100_000n), data: erc721.data('transferFrom', [from, to, id]) };
          } else {
            const id = ++nftId;
            mine.push({ id, block });
            tx = { to: erc721.address, gas: hex(150_000n), data: erc721.data('mint', [from, id]) };
          }
        } else if (kind === 'erc1155') tx = { to: erc1155.address, gas: hex(100_000n), data: erc1155.data('mint', [to, BigInt(k % 50), 5n]) };
        else if (kind === 'create') {
          tag++;
          if (tag % 2n) {
            deployments.factory.push(getContractAddress({ from: factory.address, nonce: factoryNonce++ }));
            tx = { to: factory.address, gas: hex(500_000n), value: hex(100n), data: factory.data('create', [tag]) };
          } else {
            const salt = keccak256(toHex(tag, { size: 32 }));
            const init = A.deployData('Child', [tag]);
            factoryNonce++;
            deployments.factory.push(getContractAddress({ opcode: 'CREATE2', from: factory.address, salt, bytecode: init }));
            tx = { to: factory.address, gas: hex(500_000n), data: factory.data('create2', [salt, tag]) };
          }
        } else {
          icmFrom.set(from, (icmFrom.get(from) || 0) + 1);
          tx = {
            to: messenger, gas: hex(300_000n), data: A.messenger.data('sendCrossChainMessage', [{
              destinationBlockchainID: ids.B, destinationAddress: receiverB.address, feeInfo: { feeTokenAddress: Z, amount: 0n },
              requiredGasLimit: 100_000n, allowedRelayerAddresses: [], message: toHex(`bench ${k}`),
            }]),
          };
        }
        tx.from = from;
        tx.nonce = hex(await A.nextNonce(from));
        calls.push(['eth_sendTransaction', [tx]]);
      }
      await batch(A.url, calls);
      const n = await A.mine();
      if (n !== block) throw new Error(`mined block ${n}, meant ${block}`);
      counts.A += calls.length;
      if ((b + 1) % relayEvery === 0 || b === blocks - 1) {
        await relay(relayedTo ? relayedTo + 1 : first, n);
        relayedTo = n;
      }
      if ((b + 1) % 200 === 0) process.stderr.write(`evm-seed: ${b + 1}/${blocks} blocks of A (${Math.round((Date.now() - t0) / 1000)} s)\n`);
    }
    // what was seeded must have happened: every tx mined, and a sample of the kinds succeeded
    const heads = { A: await A.blockNumber(), B: await B.blockNumber() };
    for (const [key, ch] of [['A', A], ['B', B]]) {
      const pool = await ch.rpc('txpool_status');
      if (num(pool.pending) || num(pool.queued)) throw new Error(`${key}: txs left in the pool`);
      const last = await ch.rpc('eth_getBlockReceipts', [hex(heads[key])]);
      const bad = last.filter((r) => r.status !== '0x1').length;
      if (bad) throw new Error(`${key}: ${bad} failed txs in the last block`);
    }
    const deployed = deployments.factory.slice(0, 1).concat(deployments.factory.slice(-1));
    for (const a of deployed) if ((await A.rpc('eth_getCode', [a, 'latest'])) === '0x') throw new Error(`no code at ${a}`);
    const busiest = [...icmFrom.entries()].sort((x, y) => y[1] - x[1]);
    const out = {
      chains: [
        { key: 'A', evmChainId: A.chainId, name: 'Bench A', url: A.url, blockchainId: ids.A, head: heads.A, blocks: heads.A + 1, txs: counts.A },
        { key: 'B', evmChainId: B.chainId, name: 'Bench B', url: B.url, blockchainId: ids.B, head: heads.B, blocks: heads.B + 1, txs: counts.B },
      ],
      messenger, receiver: receiverB.address, deployments,
      icm: busiest.map(([a, n]) => ({ address: getAddress(a), messages: n })),
      seedMs: Date.now() - t0,
    };
    writeFileSync(outFile + '.tmp', JSON.stringify(out, null, 1));
    renameSync(outFile + '.tmp', outFile);
    process.stderr.write(`evm-seed: ready in ${out.seedMs} ms: A ${out.chains[0].blocks} blocks, ${counts.A} txs; B ${out.chains[1].blocks} blocks, ${counts.B} txs\n`);
    setInterval(() => {}, 1 << 30);
  } catch (e) {
    await stop();
    throw e;
  }
}

const [mode, ...args] = process.argv.slice(2);
try {
  if (mode === 'seed' && args.length === 1) await seed(args[0]);
  else {
    console.error('usage: evm-seed.mjs seed OUT.json');
    process.exit(2);
  }
} catch (e) {
  console.error(`evm-seed: ${e.stack || e.message}`);
  process.exit(1);
}
