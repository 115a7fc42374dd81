// Writes the seed corpora of fuzz/fuzz_clog.c and fuzz/fuzz_jsonrpc.c:
//   node tests/e2e/make-fuzz-seeds.mjs
// Deterministic: running it again rewrites the same files. The committed
// corpora are replayed by tests/run.sh (build/asan/replay/fuzz_*).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeClog, sha256, cb58 } from './lib.mjs';
import { prng } from './store-lib.mjs';

const root = new URL('../../fuzz/corpus/', import.meta.url).pathname;

// ---- fuzz_clog: records without the 8-byte magic ----
{
  const dir = join(root, 'fuzz_clog');
  mkdirSync(dir, { recursive: true });
  const r = prng(20260101);
  const kinds = ['P/block', 'C/block', 'X/tx', 'X/block', 'X/vtx'];
  const rec = (kind, len, ts = 1617402840262979000n) => ({ kind, bytes: r.bytes(len), ts });
  const body = (recs) => encodeClog(recs).subarray(8); // strip "SLCLOG01"
  const files = {
    'valid-1': body([rec('P/block', 64)]),
    'valid-3': body([rec('C/block', 10), rec('X/tx', 300), rec('C/block', 1)]),
    'valid-5-kinds': body(kinds.map((k, i) => rec(k, [0, 7, 45, 200, 1000][i]))),
    'valid-ts-edges': body([rec('X/block', 5, 0n), rec('X/block', 5, -1n), rec('X/block', 5, 9223372036854775807n)]),
  };
  // a record whose id is not the sha256 of its bytes (the log may carry any id)
  files['valid-foreign-id'] = body([{ kind: 'X/vtx', id: Buffer.alloc(32, 0xee), bytes: r.bytes(33) }]);
  const two = body([rec('P/block', 50), rec('X/tx', 80)]);
  const third = body([rec('C/block', 120)]);
  files.truncated = Buffer.concat([two, third.subarray(0, 70)]);
  files['truncated-header'] = Buffer.concat([two, third.subarray(0, 20)]);
  const bad = Buffer.from(body([rec('P/block', 40), rec('X/block', 60)]));
  bad[bad.length - 1] ^= 0xff; // the second record's checksum
  files['bad-checksum'] = bad;
  const kind9 = Buffer.from(body([rec('P/block', 16)]));
  kind9[0] = 9;
  files['bad-kind'] = kind9;
  const long = Buffer.from(body([rec('P/block', 16)]));
  long.writeUInt32BE(2 * 1024 * 1024 + 1, 41); // over SL_MAX_CONTAINER
  files['over-limit'] = long;
  for (const [name, buf] of Object.entries(files)) writeFileSync(join(dir, name), buf);
}

// ---- fuzz_jsonrpc: request bodies (node-rpc.md §9 and around) ----
{
  const dir = join(root, 'fuzz_jsonrpc');
  mkdirSync(dir, { recursive: true });
  const id = cb58(sha256(Buffer.from('snowline')));
  const j = (o) => JSON.stringify(o);
  const call = (method, params, extra = {}) => j({ jsonrpc: '2.0', id: 1, method, params, ...extra });
  const files = {
    // valid calls
    'ok-getContainerRange': call('index.getContainerRange', { startIndex: '0', numToFetch: 1024, encoding: 'hex' }),
    'ok-getContainerByIndex-quoted': call('index.getContainerByIndex', { index: '18446744073709551615', encoding: 'hexnc' }),
    'ok-getContainerByIndex-number': call('index.getContainerByIndex', { index: 3, encoding: 'HEXC' }),
    'ok-getContainerByID': call('index.getContainerByID', { id, encoding: 'hex' }),
    'ok-getIndex-null-id': call('index.getIndex', { id: null }),
    'ok-admin-alias': call('admin.alias', { endpoint: 'bc/X', alias: 'myX' }),
    'ok-setLoggerLevel': call('admin.setLoggerLevel', { loggerName: 'http', logLevel: 'debug', displayLevel: 'INFO' }),
    'ok-getLoggerLevel-null': call('admin.getLoggerLevel', { loggerName: null }),
    'ok-health-tags': call('health.health', { tags: ['11111111111111111111111111111111LpoYY', 'a', ''] }),
    'ok-avm-getTx': call('avm.getTx', { txID: id, encoding: 'json' }),
    // framing cases F4–F18
    'F04-unexpected-eof': '{"jsonrpc":',
    'F05-empty': '',
    'F06-batch': `[${call('index.getLastAccepted', {})}]`,
    'F06-empty-batch': '[]',
    'F07-jsonrpc-1.0': j({ jsonrpc: '1.0', id: 1, method: 'admin.alias' }),
    'F08-no-method': j({ jsonrpc: '2.0', id: 1 }),
    'F09-unknown-method': call('admin.fooBar', {}),
    'F10-unknown-service': call('foo.bar', {}),
    'F11-uppercase': call('admin.Alias', {}),
    'F12-params-string': j({ jsonrpc: '2.0', id: 1, method: 'index.getIndex', params: 'x' }),
    'F13-notification': j({ jsonrpc: '2.0', method: 'info.getNodeID' }),
    'F13-id-null': j({ jsonrpc: '2.0', id: null, method: 'info.getNodeID' }),
    'F15-ids': '{"jsonrpc":"2.0","id":{"a": [1, 2], "s":"abc", "n":1.50, "h":"<&>"},"method":"info.getNodeID"}',
    'F16-params-array': j({ jsonrpc: '2.0', id: 1, method: 'index.getContainerByIndex', params: [{ index: '3' }, 5] }),
    'F17-case-keys': `{"JSONRPC":"2.0","ID":3,"Method":"index.getIndex","PARAMS":{"ID":"${id}"}}`,
    'F18-trailing-garbage': call('info.getNodeID', {}) + 'garbage{[',
    'type-method-number': '{"jsonrpc":"2.0","method":5,"id":7}',
    'type-jsonrpc-number': '{"jsonrpc":2.0,"method":"info.getNodeID","id":7}',
    'dup-keys': '{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"id":2,"method":"x.y","method":"info.getNodeID"}',
    'numbers': '{"jsonrpc":"2.0","id":-0.0e-0,"method":"index.getContainerByIndex","params":{"index":1e400,"encoding":"hex"},"x":[0,-1,1.5E+3,12345678901234567890123]}',
    'whitespace': ' \t\r\n{ "jsonrpc" : "2.0" ,\n "id" : 1 , "method" : "info.getNodeID" , "params" : { } } \n',
    // nesting
    'deep-500': `{"jsonrpc":"2.0","id":1,"method":"health.health","params":${'['.repeat(500)}${']'.repeat(500)}}`,
    'deep-10001': '['.repeat(10001) + ']'.repeat(10001),
    'deep-objects': `${'{"a":'.repeat(300)}1${'}'.repeat(300)}`,
    // strings: escapes, surrogates, invalid UTF-8
    'escapes': '{"jsonrpc":"2.0","id":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\\u0035","method":"admin.alias","params":{"endpoint":"\\u0062\\u0063/X","alias":"\u2028\u2029<>&"}}',
    'surrogate-pair': '{"jsonrpc":"2.0","id":"\\ud83d\\ude00","method":"admin.alias","params":{"alias":"\\uD83D\\uDE00x"}}',
    'surrogate-lone-high': '{"jsonrpc":"2.0","id":"\\ud800","method":"admin.alias","params":{"alias":"\\ud800\\u0041"}}',
    'surrogate-lone-low': '{"jsonrpc":"2.0","id":1,"method":"admin.alias","params":{"alias":"\\udc00","endpoint":"\\ud800\\ud800\\udc00"}}',
    'surrogate-reversed': '{"jsonrpc":"2.0","id":1,"method":"health.health","params":{"tags":["\\udc00\\ud800","\\ud800\\n"]}}',
    'bad-escape': '{"jsonrpc":"2.0","id":"\\x41","method":"info.getNodeID"}',
    'bad-unicode-escape': '{"jsonrpc":"2.0","id":"\\u12G4","method":"info.getNodeID"}',
    'control-in-string': '{"jsonrpc":"2.0","id":"a\tb","method":"info.getNodeID"}',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  // raw bytes: invalid UTF-8 inside strings, a BOM, an overlong form, a NUL
  const raw = {
    'utf8-invalid': Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"'), Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80]), Buffer.from('","method":"admin.alias","params":{"alias":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}}')]),
    'utf8-truncated-at-end': Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"'), Buffer.from([0xf0, 0x9f, 0x98])]),
    'bom': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(call('info.getNodeID', {}))]),
    'nul-after-value': Buffer.concat([Buffer.from(call('info.getNodeID', {})), Buffer.from([0])]),
    'nul-inside': Buffer.from('{"jsonrpc":"2.0",\u0000"id":1}'),
  };
  for (const [name, buf] of Object.entries(raw)) writeFileSync(join(dir, name), buf);
}
