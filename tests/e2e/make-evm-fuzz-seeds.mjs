// Writes the seed corpora of fuzz/fuzz_evm_rpc.c and fuzz/fuzz_evm_log.c from the answers of
// the seeded anvil chains of evm-lib.mjs (real JSON-RPC text, real logs and eth_call answers):
//   node tests/e2e/make-evm-fuzz-seeds.mjs
// Each seed is named by the first 16 hex digits of its sha256. The seeded world is deterministic
// (its tx and block hashes repeat), so running this again rewrites the same files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import * as E from './evm-lib.mjs';

const root = new URL('../../fuzz/corpus/', import.meta.url).pathname;
const put = (target, buf) => {
  const dir = join(root, target);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, createHash('sha256').update(buf).digest('hex').slice(0, 16)), buf);
};
// the raw text of an answer, as the indexer reads it
async function raw(url, method, params) {
  const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return Buffer.from(await r.arrayBuffer());
}
const NUL = Buffer.from([0]);
const hex = (n) => '0x' + n.toString(16);

const world = await E.seedEvmWorld();
try {
  const { truth } = world;
  for (const k of ['A', 'B']) {
    const url = truth.chains[k].rpcUrl;
    for (let n = 0; n <= truth.chains[k].head; n++) {
      const block = await raw(url, 'eth_getBlockByNumber', [hex(n), true]);
      const receipts = await raw(url, 'eth_getBlockReceipts', [hex(n)]);
      const traces = await raw(url, 'debug_traceBlockByNumber', [hex(n), { tracer: 'callTracer' }]);
      put('fuzz_evm_rpc', Buffer.concat([block, NUL, receipts, NUL, traces]));
      const txs = JSON.parse(block).result.transactions;
      if (txs.length === 1) put('fuzz_evm_rpc', Buffer.concat([block, NUL, await raw(url, 'eth_getTransactionReceipt', [txs[0].hash])]));
      for (const r of JSON.parse(receipts).result) {
        for (const l of r.logs) {
          const topics = Buffer.concat(l.topics.map((t) => Buffer.from(t.slice(2), 'hex')));
          put('fuzz_evm_log', Buffer.concat([Buffer.from([l.topics.length]), topics, Buffer.from(l.data.slice(2), 'hex')]));
        }
      }
    }
    // a node's refusal, and a block beyond the head
    put('fuzz_evm_rpc', await raw(url, 'no_such_method', []));
    put('fuzz_evm_rpc', await raw(url, 'eth_getBlockByNumber', [hex(10000), true]));
  }
  // the tokens' answers to name(), symbol() and decimals(), as data of a log without topics
  for (const c of truth.contracts.filter((x) => x.token)) {
    const url = truth.chains[c.chain].rpcUrl;
    for (const sel of ['0x06fdde03', '0x95d89b41', '0x313ce567']) {
      const r = JSON.parse(await raw(url, 'eth_call', [{ to: c.address, data: sel }, 'latest']));
      if (r.result) put('fuzz_evm_log', Buffer.concat([Buffer.from([0]), Buffer.from(r.result.slice(2), 'hex')]));
    }
  }
} finally {
  await world.stop();
}
