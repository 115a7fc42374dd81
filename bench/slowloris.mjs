// slowloris.mjs — many connections that send a header line a second and never finish their
// request. A connection the server closes is opened again a second later, as an attacker would.
//
//   node bench/slowloris.mjs PORT [CONNECTIONS=5000] [SECONDS=10]
//
// Prints "ready" once every connection is open (the prober starts then), and at the end one
// JSON line: { connections, opened, closedByServer, openAtEnd }. The ordinary requests are timed
// by another process (bench/slowloris.sh, with curl), so this one's event loop, busy with
// thousands of sockets, does not count in their latency.
import { connect } from 'node:net';

const port = Number(process.argv[2]);
const want = Number(process.argv[3] ?? 5000);
const secs = Number(process.argv[4] ?? 10);
if (!port) { console.error('usage: node bench/slowloris.mjs PORT [CONNECTIONS] [SECONDS]'); process.exit(2); }

let opened = 0, closedByServer = 0, open = 0, stopping = false;
const socks = new Set();

function slow() {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    let timer;
    s.on('connect', () => {
      opened++; open++;
      socks.add(s);
      s.write('GET /ext/health HTTP/1.1\r\nHost: localhost\r\n');
      timer = setInterval(() => s.write('X-Slow: 1\r\n'), 1000);
      resolve();
    });
    s.on('error', () => {});
    s.on('close', () => {
      clearInterval(timer);
      if (socks.delete(s)) open--;
      if (!stopping) { closedByServer++; setTimeout(slow, 1000); }
      resolve();
    });
  });
}

for (let i = 0; i < want; i += 250) await Promise.all(Array.from({ length: Math.min(250, want - i) }, slow));
console.log('ready');
await new Promise((r) => setTimeout(r, secs * 1000));
stopping = true;
for (const s of socks) s.destroy();
console.log(JSON.stringify({ connections: want, opened, closedByServer, openAtEnd: open }));
process.exit(0);
