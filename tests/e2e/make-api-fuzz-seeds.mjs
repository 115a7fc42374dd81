// Writes the seed corpora of fuzz/fuzz_api_query.c, fuzz_api_body.c and fuzz_api_token.c:
//   node tests/e2e/make-api-fuzz-seeds.mjs
// Deterministic: running it again rewrites the same seed-* files (what libFuzzer added to the
// corpora stays). The route table is read from src/api/routes.c, so each route gets seeds.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRouteTable } from './dataapi-schema-lib.mjs';

const root = new URL('../../fuzz/corpus/', import.meta.url).pathname;
const write = (target, files) => {
  const dir = join(root, target);
  mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, `seed-${name}`), bytes);
};
const A = ['X-fuji1hq5x6xnqms5mua4xdkj7jl49ghs23tkzxmjjsn', 'P-fuji1n4qkcu94rqdtltc2nuxxq6uz8c7aen843t0pj9', 'fuji1ysqrsrcc8k0gc9k8n3k4urjgmscv4dfsuaczuj'];
const EVM = '0xcea57b154eb5237d7c5e94d4514c74055609f162';
const ID = 'U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK';
const NODE = 'NodeID-KScqfi7E6a1geyMqHTQCooC7wQMhu4s7r';

// ---- fuzz_api_query: route byte | query | NUL | path variable ----
{
  const routes = readRouteTable();
  const files = {};
  const value = (p) => ({
    AP_INT: String(p.def ?? p.min ?? 0n), AP_BOOL: 'true', AP_ENUM: p.values?.[0], AP_ADDRESSES: A.join('%2C') + (p.flags === 'AP_EVM' ? ',' + EVM : ''),
    AP_TX_TYPES: 'BaseTx', AP_ID: ID, AP_NODE_ID: NODE, AP_NODE_IDS: `${NODE}%2CNodeID-JK6khdD59924mv6hi6coKEaW1PAdZDv34`, AP_AMOUNT: '1000', AP_PAGE_TOKEN: 'AbJ0fT5GuUzrawWLNQAAAABl8BnNyQqN2E-n82-fGXyAnbBbT8g9NikM552xIrpYc-figCsXJn2WlR3WqI25-VRs1Teu',
  })[p.kind];
  routes.forEach((r, i) => {
    const pathVar = r.path.includes('{assetId}') ? ID : r.path.includes('{nodeId}') ? NODE : null;
    const qp = r.params.filter((p) => !r.path.includes(`{${p.name}}`) && !(r.bodyAddresses && p.name === 'addresses'));
    const all = qp.map((p) => `${p.name}=${value(p)}`).join('&');
    const req = qp.filter((p) => p.required).map((p) => `${p.name}=${value(p)}`).join('&');
    const mk = (q) => Buffer.concat([Buffer.from([i]), Buffer.from(q), ...(pathVar ? [Buffer.from([0]), Buffer.from(pathVar)] : [])]);
    files[`${r.name.replace(':', '_')}-all`] = mk(all);
    files[`${r.name.replace(':', '_')}-required`] = mk(req);
    files[`${r.name.replace(':', '_')}-edges`] = mk(qp.map((p) => `${p.name}=${p.kind === 'AP_INT' ? String(p.max) : value(p)}`).join('&') + '&txTypes=ImportTx&txTypes=ExportTx,UNKNOWN');
    files[`${r.name.replace(':', '_')}-escapes`] = mk(qp.map((p) => `${encodeURIComponent(p.name)}=%2B+%41%zz`).join('&'));
  });
  write('fuzz_api_query', files);
}

// ---- fuzz_api_body: the POST body ----
write('fuzz_api_body', {
  one: `{"addresses": "${A[0]}"}`,
  three: `{"addresses":"${A.join(',')}"}`,
  escapes: `{"addresses": "${A[0].replace('X', '\\u0058')}\\u002c ${A[1]}"}`,
  spaces: ` \n{ "addresses" : " ${A[0]} , ${A[2]} " } \n`,
  empty: '{"addresses": ""}',
  'not-a-string': '{"addresses": ["x"]}',
  other: '{"addresses": "a", "b": 1}',
  nested: '{"addresses": {"a": [1, 2, {"c": null}]}}',
  trailing: `{"addresses": "${A[0]}"} {}`,
  evm: `{"addresses": "${EVM}"}`,
});

// ---- fuzz_api_token: mode byte | … ----
write('fuzz_api_token', {
  'raw-real': Buffer.concat([Buffer.from([0]), Buffer.from('AbJ0fT5GuUzrawWLNQAAAABl8BnNyQqN2E-n82-fGXyAnbBbT8g9NikM552xIrpYc-figCsXJn2WlR3WqI25-VRs1Teu')]),
  'raw-junk': Buffer.concat([Buffer.from([0]), Buffer.from('not a token =')]),
  'cursor-8': Buffer.from([1, 7, 0, 0, 0, 0, 0, 0, 1, 2]),
  'cursor-40-edit': Buffer.concat([Buffer.from([1, 39]), Buffer.alloc(40, 0xab), Buffer.from([5, 65, 200, 66])]),
  'cursor-96': Buffer.concat([Buffer.from([1, 95]), Buffer.alloc(96, 0x11)]),
});
