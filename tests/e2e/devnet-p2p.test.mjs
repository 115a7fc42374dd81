// devnet-p2p.test.mjs — the devnet's validators on avalanchego's p2p protocol, end to end:
// `snowline node --devnet --devnet-p2p-port N --devnet-p2p-policy …` listens for every node at
// N + 2i, info.peers names those addresses, and each answers a TLS 1.3 handshake (a client
// certificate required, as avalanchego's RequireAnyClientCert) with a certificate whose
// ripemd160(sha256(DER)) is the NodeID info.peers gives for that address; an absent validator's
// port refuses connections; bad options exit 2 naming the option. Signature requests themselves
// are tested in tests/unit/test_p2p.c and test_devnet_p2p.c (our client against these listeners).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startNode, runNode, rpc, tempDir, cleanup, base58, sha256 } from './lib.mjs';

const dir = tempDir('snowline-p2p-');
const NODES = 5 + 64; // --devnet-validators 5, and the devnet's 64 later joiners
let node, base, peers;

function portFree(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

async function freeBase() {
  for (let tries = 0; tries < 50; tries++) {
    const b = 20000 + 2 * Math.floor(Math.random() * 15000);
    let ok = true;
    for (let i = 0; i < NODES && ok; i++) ok = await portFree(b + 2 * i);
    if (ok) return b;
  }
  throw new Error('no free port range');
}

const nodeIdOf = (der) => {
  const h = createHash('ripemd160').update(sha256(der)).digest();
  return 'NodeID-' + base58(Buffer.concat([h, sha256(h).subarray(28)]));
};

before(async () => {
  // a client certificate of our own (P-256, self-signed), as a peer presents one
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-subj', '/CN=e2e', '-days', '1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  base = await freeBase();
  node = await startNode(['--devnet', '--devnet-txs', '300', '--devnet-interval-ms', '0', '--data-dir', join(dir, 'node'),
    '--devnet-p2p-port', String(base), '--devnet-p2p-policy', '1=absent,2=slow:50,3=wrong']);
  const t0 = Date.now();
  for (;;) {
    const r = await rpc(`${node.url}/ext/info`, 'info.peers', {});
    peers = r.result?.peers ?? [];
    if (peers.length && peers.every((p) => Number(p.ip.split(':')[1]) >= base)) break;
    if (Date.now() - t0 > 60000) throw new Error(`info.peers never named the p2p ports: ${JSON.stringify(r)}`);
    await new Promise((res) => setTimeout(res, 200));
  }
});

after(async () => { await node?.stop(); cleanup(dir); });

test('info.peers names each node at base + 2i', () => {
  assert.ok(peers.length >= 3);
  for (const p of peers) {
    const [host, port] = p.ip.split(':');
    assert.equal(host, '127.0.0.1');
    const off = Number(port) - base;
    assert.ok(off >= 0 && off < 2 * NODES && off % 2 === 0, p.ip);
    assert.equal(p.publicIP, p.ip);
  }
});

test('every listening validator presents the certificate of the NodeID info.peers gives', async () => {
  const key = readFileSync(join(dir, 'key.pem')), cert = readFileSync(join(dir, 'cert.pem'));
  let checked = 0;
  for (const p of peers) {
    const port = Number(p.ip.split(':')[1]);
    if (port === base + 2) continue; // node 1 is absent
    const der = await new Promise((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port, key, cert, rejectUnauthorized: false, minVersion: 'TLSv1.3' }, () => {
        assert.equal(s.getProtocol(), 'TLSv1.3');
        const raw = s.getPeerCertificate(true).raw;
        s.destroy();
        resolve(raw);
      });
      s.once('error', reject);
      s.setTimeout(10000, () => s.destroy(new Error(`${p.ip}: no TLS handshake in 10 s`))); // a peer that never answers fails, not hangs
    });
    assert.equal(nodeIdOf(der), p.nodeID, p.ip);
    checked++;
  }
  assert.ok(checked >= 2);
});

test('the absent validator refuses connections', async () => {
  const err = await new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port: base + 2 }, () => { s.destroy(); resolve(null); });
    s.once('error', resolve);
  });
  assert.equal(err?.code, 'ECONNREFUSED');
});

test('bad p2p options exit 2 naming the option', async () => {
  for (const [args, what] of [
    [['--devnet-p2p-port', String(base), '--devnet-p2p-policy', `${NODES}=absent`], '--devnet-p2p-policy'],
    [['--devnet-p2p-port', String(base), '--devnet-p2p-policy', '0=lazy'], 'unknown policy'],
    [['--devnet-p2p-port', '65500'], '--devnet-p2p-port 65500'],
  ]) {
    const r = await runNode(['--devnet', '--data-dir', join(dir, 'bad'), ...args]);
    assert.equal(r.code, 2, r.out);
    assert.ok(r.out.includes(what), r.out);
  }
});
