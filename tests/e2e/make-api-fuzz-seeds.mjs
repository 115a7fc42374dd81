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
    AP_TX_TYPES: 'BaseTx', AP_ID: ID, AP_NODE_ID: NODE, AP_NODE_IDS: `${NODE}%2CNodeID-JK6khdD59924mv6hi6coKEaW1PAdZDv34`, AP_AMOUNT: '1000', AP_NUMBER: '2.5', AP_EVM_CHAIN: '43114', AP_EVM_ADDRESS: EVM, AP_PAGE_TOKEN: 'AbJ0fT5GuUzrawWLNQAAAABl8BnNyQqN2E-n82-fGXyAnbBbT8g9NikM552xIrpYc-figCsXJn2WlR3WqI25-VRs1Teu',
  })[p.kind];
  routes.forEach((r, i) => {
    // {chainId} and {address} (the EVM routes): "chain\0address", or the address alone
    const pathVar = r.path.includes('{assetId}') ? ID : r.path.includes('{nodeId}') ? NODE
      : r.path.includes('{chainId}') ? (r.path.includes('{address}') ? `43114\0${EVM}` : '43114') : r.path.includes('{address}') ? EVM : null;
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

// ---- fuzz_api_genesis: a CreateChainTx's genesis bytes ----
{
  const evm = {
    config: { chainId: 94044, homesteadBlock: 0, eip150Block: 0, subnetEVMTimestamp: 0, durangoTimestamp: 0,
      feeConfig: { gasLimit: 15000000, targetBlockRate: 2, minBaseFee: 1000000000, targetGas: 20000000 }, allowFeeRecipients: false,
      warpConfig: { blockTimestamp: 1711084892, quorumNumerator: 67, requirePrimaryNetworkSigners: true },
      txAllowListConfig: { blockTimestamp: 0, adminAddresses: ['0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc'] } },
    alloc: { d0b9651a0fbd7734a5182a3f5191a2150c17c803: { balance: '0x53fa7b749900a7e40000', code: '0x6080', storage: { '0x0': '0x1' } } },
    nonce: '0x0', timestamp: '0x65fd155c', extraData: '0x', gasLimit: '0x7a1200', difficulty: '0x0', airdropAmount: null, baseFeePerGas: null,
    mixHash: '0x' + '00'.repeat(32), coinbase: '0x' + '00'.repeat(20), number: '0x0', gasUsed: '0x0', parentHash: '0x' + '00'.repeat(32),
  };
  const s = (o) => JSON.stringify(o);
  write('fuzz_api_genesis', {
    evm: s(evm),
    'evm-pretty': JSON.stringify(evm, null, 2) + '\n',
    'evm-escaped-keys': s(evm).replace('"config"', '"\\u0063onfig"').replace('"chainId"', '"chain\\u0049d"'),
    'evm-wrong-type': s({ ...evm, gasLimit: 8000000 }),
    'evm-null-alloc': s({ ...evm, alloc: null }),
    'evm-float-chain-id': s({ ...evm, config: { ...evm.config, chainId: 1.5 } }),
    'evm-big-chain-id': s(evm).replace('94044', '18446744073709551616'),
    'evm-repeated-config': s(evm).replace(/}$/, ',"config":{"chainId":"x"}}'),
    'evm-deep': s({ ...evm, extra: JSON.parse('['.repeat(20) + ']'.repeat(20)) }),
    'evm-utf8': s({ ...evm, extraData: 'caf\u00e9 \u2028 <&>' }).replace('caf', 'ca\\ud83d\\ude00f'),
    'evm-bad-utf8': Buffer.concat([Buffer.from(s(evm).slice(0, -1) + ',"x":"'), Buffer.from([0xff, 0xc0, 0xed, 0xa0, 0x80]), Buffer.from('"}')]),
    'not-evm': s({ data: 'aGVsbG8=', owner: 'x' }),
    array: '[1, 2, {"config": {"chainId": 1}}]',
    string: '"just text"',
    number: '-12.5e3',
    literal: ' true ',
    empty: '',
    'not-json': 'genesis bytes\u0000\u0001',
    trailing: s(evm) + ' {}',
    cut: s(evm).slice(0, 200),
    escapes: '{"config":{"chainId":7},"k\\"\\\\\\/\\b\\f\\n\\r\\t":"\\\\\\\\\\\\\\\\\\"","u":"\\u0000\\u001f"}',
  });
}

// ---- fuzz_api_export: the body of POST /v1/operations/transactions:export ----
{
  const s = (o) => JSON.stringify(o);
  const pn = { type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', firstDate: '2023-05-01', lastDate: '2023-05-02', options: { includeChains: ['p-chain', 'x-chain', 'c-chain'], addresses: A, cChainEvmAddresses: [EVM] } };
  write('fuzz_api_export', {
    pn: s(pn),
    'pn-ids': s({ ...pn, options: { ...pn.options, includeChains: ['11111111111111111111111111111111LpoYY', '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm', '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM'] } }),
    staking: s({ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING', startDate: '2024-02-29', endDate: '2024-03-01', options: { includeChains: ['p-chain'], addresses: [A[1]] } }),
    simple: s({ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE', options: { includeChains: ['x-chain'], addresses: [A[0], A[0]] } }),
    evm: s({ type: 'TRANSACTION_EXPORT_EVM', firstDate: '2023-05-01', options: { includeChains: ['43114', '43113'], addresses: [EVM, EVM.toUpperCase().replace('0X', '0x')] } }),
    'evm-bad-chain': s({ type: 'TRANSACTION_EXPORT_EVM', options: { includeChains: ['0x1', '18446744073709551616'], addresses: [EVM] } }),
    'bad-dates': s({ ...pn, firstDate: '2023-02-29', lastDate: '1969-12-31' }),
    'dates-reversed': s({ ...pn, firstDate: '2024-01-02', lastDate: '2024-01-01' }),
    escapes: s(pn).replace('"type"', '"\\u0074ype"').replace('p-chain', 'p\\u002dchain'),
    'wrong-types': s({ type: 1, options: { includeChains: 'p-chain', addresses: [1, null] } }),
    unknown: s({ ...pn, pageSize: 5, options: { ...pn.options, extra: true } }),
    many: s({ ...pn, options: { ...pn.options, addresses: Array(70).fill(A[0]) } }),
    empty: '{}',
    'not-json': '{"type": "TRANSACTION_EXPORT_EVM", ',
    trailing: s(pn) + ' []',
  });
}
