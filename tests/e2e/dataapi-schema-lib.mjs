// Helpers for the Data API schema and bad-input tests (dataapi-sdk, dataapi-badinput): a small
// fuji devnet indexed into a SQLite store and `snowline api` servers over it, the official SDK
// (@avalanche-sdk/chainkit, pinned) pointed at them, and its zod schemas made strict so that a key
// the schema does not know fails the check instead of being stripped silently.
//
// Every request of these tests stays on loopback: the SDK's telemetry is switched off, and this
// module refuses any fetch() to another host (the SDK would otherwise send events elsewhere).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempDir, cleanup } from './lib.mjs';
import { parseBigJson } from './devnet-lib.mjs';
import { freshStore, dropStore } from './dataapi-lib.mjs';
import { Avalanche, HTTPClient } from '@avalanche-sdk/chainkit';
import * as C from '@avalanche-sdk/chainkit/models/components';
import * as E from '@avalanche-sdk/chainkit/models/errors';

// ---- loopback only ----------------------------------------------------------------------------

export function isLoopback(url) {
  const h = new URL(url).hostname;
  return h === 'localhost' || h === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(h);
}
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (!isLoopback(url)) return Promise.reject(new Error(`dataapi-schema-lib: refused a request to ${url} (loopback only)`));
  return realFetch(input, init);
};

// ---- processes ------------------------------------------------------------------------------------

// Start `bin args…` and resolve once its output matches `ready` (a RegExp); the match is returned.
export function startProc(args, { bin = BIN, ready, timeoutMs = 120000, what = args[0] } = {}) {
  const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise((res) => proc.on('exit', (code, sig) => res({ code, sig })));
  return new Promise((resolve, reject) => {
    // one that is never ready is killed, not left running past its failed start
    const t = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`${what} not ready in ${timeoutMs} ms:\n${out.slice(-4000)}`)); }, timeoutMs);
    const check = () => {
      const m = ready.exec(out);
      if (!m) return;
      clearTimeout(t);
      proc.stdout.off('data', check);
      proc.stderr.off('data', check);
      resolve({
        proc, match: m, exited, logs: () => out,
        async stop() {
          if (proc.exitCode !== null || proc.signalCode !== null) return exited;
          proc.kill('SIGTERM');
          const k = setTimeout(() => proc.kill('SIGKILL'), 15000);
          const r = await exited; clearTimeout(k); return r;
        },
      });
    };
    proc.stdout.on('data', (d) => { out += d; });
    proc.stderr.on('data', (d) => { out += d; });
    proc.stdout.on('data', check);
    proc.stderr.on('data', check);
    exited.then(({ code, sig }) => { clearTimeout(t); reject(new Error(`${what} exited (${code ?? sig}) before it was ready:\n${out.slice(-4000)}`)); });
  });
}

// A fuji devnet of about `txs` transactions (history only), indexed into dir/index.db. The indexer
// is stopped once the store holds every container of the manifest (its "caught up" line only says
// that the node had nothing newer; batches may still be on their way into the store), so the
// store holds exactly the devnet's history. Resolves { dir, store, manifest, genesis, devnet, close() }.
// backend: 'sqlite' (a file in the dataset's directory) or 'postgres' (a new database on the
// server of $SNOWLINE_TEST_PG, dropped by close()).
export async function makeDataset({ txs = 2000, bin = BIN, seed = 'snowline', backend = 'sqlite', devnetArgs = [], intervalMs = 0, readyTimeoutMs } = {}) {
  const dir = tempDir('snowline-dataapi-');
  const nodeDir = join(dir, 'node');
  // ready once it has written its history (and the manifest), which follows its listening line
  let devnet, index, api, store;
  try {
    devnet = await startProc(['devnet', '--http-port', '0', '--data-dir', nodeDir, '--network', 'fuji',
      '--devnet-seed', seed, '--devnet-txs', String(txs), '--devnet-interval-ms', String(intervalMs), ...devnetArgs],
    { bin, ready: /listening on (http:\/\/[^ ]+)[^]*devnet: ready in/, what: 'snowline devnet', ...(readyTimeoutMs ? { timeoutMs: readyTimeoutMs } : {}) });
    devnet.url = devnet.match[1];
    const manifest = parseBigJson(readFileSync(join(nodeDir, 'devnet-manifest.json'), 'utf8'));
    const genesis = join(nodeDir, 'devnet-genesis.json');
    store = freshStore(backend, dir, 'index');
    index = await startProc(['index', '--node', devnet.url, '--store', store, '--genesis', genesis,
      '--progress', 'off'], { bin, ready: /caught up with /, what: 'snowline index' });
    api = await startApi(store, [], { bin });
    const until = Date.now() + 120000;
    for (;;) {
      const h = await (await fetch(api.url + '/health')).json();
      const behind = Object.entries(manifest.containers).filter(([k, n]) => h.indexes?.[k]?.applied !== Number(n));
      if (!behind.length) break;
      if (Date.now() > until) throw new Error(`the store did not reach the manifest: ${JSON.stringify(h)}`);
      await new Promise((res) => setTimeout(res, 100));
    }
    await api.stop();
    await index.stop();
    return {
      dir, store, manifest, genesis, devnet, backend,
      async close() { await devnet.stop(); dropStore(store); cleanup(dir); },
    };
  } catch (e) {
    for (const p of [api, index, devnet]) if (p) await p.stop();
    if (typeof store === 'string') dropStore(store);
    cleanup(dir);
    throw e;
  }
}

// `snowline api` on a free port over a store. Resolves { url, port, stop(), logs() }.
export async function startApi(store, extra = [], { bin = BIN } = {}) {
  const p = await startProc(['api', '--store', store, '--http-port', '0', '--http-threads', '2', ...extra],
    { bin, ready: /listening on http:\/\/[^:]+:(\d+)/, what: 'snowline api' });
  const port = Number(p.match[1]);
  return { ...p, port, url: `http://127.0.0.1:${port}` };
}

// ---- the SDK -------------------------------------------------------------------------------------------

// An SDK client whose every exchange is recorded in `exchanges` ({ method, url, status, text }), with
// telemetry off and no retries. Operations ignore a client-level serverURL (their own server lists
// win), so every call passes opts (= { serverURL, retries }).
export function sdkClient(url, { apiKey, network = 'fuji' } = {}) {
  const exchanges = [];
  const httpClient = new HTTPClient({
    fetcher: async (req) => {
      if (!isLoopback(req.url)) throw new Error(`SDK request to ${req.url} refused (loopback only)`);
      const res = await realFetch(req);
      const text = await res.clone().text();
      exchanges.push({ method: req.method, url: req.url, status: res.status, text, headers: req.headers });
      return res;
    },
  });
  const sdk = new Avalanche({ apiKey, network, enableTelemetry: false, httpClient, retryConfig: { strategy: 'none' } });
  const opts = { serverURL: url, retries: { strategy: 'none' } };
  return { sdk, opts, exchanges, data: sdk.data.primaryNetwork };
}

// ---- strict schemas ---------------------------------------------------------------------------------

// A copy of a zod (v3) schema in which every object rejects keys it does not declare, everywhere
// inside it. The SDK's schemas are plain objects, arrays, unions, optionals, enums, literals and an
// intersection or two; anything else is refused here, so a new kind of schema cannot slip through.
const LEAVES = new Set(['ZodString', 'ZodNumber', 'ZodBoolean', 'ZodLiteral', 'ZodNativeEnum', 'ZodEnum',
  'ZodAny', 'ZodUnknown', 'ZodNull', 'ZodBigInt', 'ZodDate']);
const memo = new Map();
// Schemas left as the SDK has them (their known fields typed, other keys dropped, not refused):
// Blockchain.genesisData's object form is the chain's own genesis, which snowline shows whole; a
// Subnet-EVM genesis has keys the DTO does not name (durangoTimestamp, …), and they are the
// chain's, not ours (the staking suite compares the whole object with the CreateChainTx's genesis).
const OPEN = new Set([C.EvmGenesisDto$inboundSchema]);
export function strict(schema) {
  if (memo.has(schema)) return memo.get(schema);
  if (OPEN.has(schema)) return schema;
  const def = schema._def, Ctor = schema.constructor;
  let out;
  switch (def.typeName) {
    case 'ZodObject': {
      // an object without properties is the OpenAPI document's free-form `{"type": "object"}`
      // (L1ValidatorDetailsTransaction.blsCredentials): any keys are allowed there
      if (Object.keys(schema.shape).length === 0) { out = schema; break; }
      const shape = {};
      for (const [k, v] of Object.entries(schema.shape)) shape[k] = strict(v);
      out = new Ctor({ ...def, shape: () => shape, unknownKeys: 'strict' });
      break;
    }
    case 'ZodArray': out = new Ctor({ ...def, type: strict(def.type) }); break;
    case 'ZodOptional': case 'ZodNullable': case 'ZodDefault': case 'ZodCatch': case 'ZodReadonly':
      out = new Ctor({ ...def, innerType: strict(def.innerType) }); break;
    case 'ZodUnion': out = new Ctor({ ...def, options: def.options.map((o) => strict(o)) }); break;
    case 'ZodLazy': { let s; out = new Ctor({ ...def, getter: () => (s ??= strict(def.getter())) }); break; }
    case 'ZodRecord': out = new Ctor({ ...def, valueType: strict(def.valueType) }); break;
    case 'ZodEffects': out = new Ctor({ ...def, schema: strict(def.schema) }); break;
    case 'ZodIntersection': {
      // each side parses the whole value: each side learns the other's keys (with their schemas)
      const l = def.left, r = def.right;
      if (l._def.typeName !== 'ZodObject' || r._def.typeName !== 'ZodObject') throw new Error('strict: an intersection of non-objects');
      out = new Ctor({ ...def, left: strictWith(l, r), right: strictWith(r, l) });
      break;
    }
    default:
      if (!LEAVES.has(def.typeName)) throw new Error(`strict: no rule for ${def.typeName}`);
      out = schema;
  }
  memo.set(schema, out);
  return out;
}
function strictWith(obj, other) {
  const s = strict(obj);
  const shape = { ...s.shape };
  for (const [k, v] of Object.entries(other.shape)) if (!(k in shape)) shape[k] = strict(v);
  return new s.constructor({ ...s._def, shape: () => shape });
}

// Describe a zod error briefly: path and message of its first few issues.
export function zodIssues(err, max = 6) {
  return err.issues.slice(0, max).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}${i.keys ? ' ' + JSON.stringify(i.keys) : ''}`).join('; ');
}

// The "chain" of a list of the network (a route without {blockchainId}) in SCHEMAS and checkBody.
export const NETWORK = 'network';
// The response schemas of each endpoint: `branches` in the SDK's union order, `want` the one for a chain.
export const SCHEMAS = {
  utxos: { branches: [C.ListPChainUtxosResponse$inboundSchema, C.ListUtxosResponse$inboundSchema], names: ['ListPChainUtxosResponse', 'ListUtxosResponse'], want: { P: 0, X: 1, C: 1 } },
  transactions: {
    branches: [C.ListPChainTransactionsResponse$inboundSchema, C.ListXChainTransactionsResponse$inboundSchema, C.ListCChainAtomicTransactionsResponse$inboundSchema],
    names: ['ListPChainTransactionsResponse', 'ListXChainTransactionsResponse', 'ListCChainAtomicTransactionsResponse'], want: { P: 0, X: 1, C: 2 },
  },
  assetTransactions: { branches: [C.ListXChainTransactionsResponse$inboundSchema], names: ['ListXChainTransactionsResponse'], want: { X: 0 } },
  balances: {
    branches: [C.ListPChainBalancesResponse$inboundSchema, C.ListXChainBalancesResponse$inboundSchema, C.ListCChainAtomicBalancesResponse$inboundSchema],
    names: ['ListPChainBalancesResponse', 'ListXChainBalancesResponse', 'ListCChainAtomicBalancesResponse'], want: { P: 0, X: 1, C: 2 },
  },
  vertices: { branches: [C.ListXChainVerticesResponse$inboundSchema], names: ['ListXChainVerticesResponse'], want: { X: 0 } },
  blocks: { branches: [C.ListPrimaryNetworkBlocksResponse$inboundSchema], names: ['ListPrimaryNetworkBlocksResponse'], want: { P: 0, X: 0, C: 0 } },
  // a list of the network: no chain, no chainInfo
  rewards: { branches: [C.ListHistoricalRewardsResponse$inboundSchema], names: ['ListHistoricalRewardsResponse'], want: { [NETWORK]: 0 } },
  subnets: { branches: [C.ListSubnetsResponse$inboundSchema], names: ['ListSubnetsResponse'], want: { [NETWORK]: 0 } },
  l1Validators: { branches: [C.ListL1ValidatorsResponse$inboundSchema], names: ['ListL1ValidatorsResponse'], want: { [NETWORK]: 0 } },
  // staking, part 2: pending rewards (a list of the network) and the active staking txs (P only)
  pendingRewards: { branches: [C.ListPendingRewardsResponse$inboundSchema], names: ['ListPendingRewardsResponse'], want: { [NETWORK]: 0 } },
  stakingTransactions: { branches: [C.ListPChainTransactionsResponse$inboundSchema], names: ['ListPChainTransactionsResponse'], want: { P: 0 } },
  // the validators of the network: a union of four shapes by validationStatus
  validators: { branches: [C.ListValidatorDetailsResponse$inboundSchema], names: ['ListValidatorDetailsResponse'], want: { [NETWORK]: 0 } },
};
export const CHAIN_NAME = { P: 'p-chain', X: 'x-chain', C: 'c-chain' };

// Check one raw response body of `kind` for chain P/X/C (NETWORK for a list of the network): it
// parses with the chain's schema made strict, the SDK's union (first branch that fits, unknown keys
// stripped) picks that same branch, chainInfo names the chain and network (a list of the network
// has none), and X-chain transactions take the union branch their chainFormat names. Returns the
// parsed body; throws with the reasons.
export function checkBody(kind, chain, text, { network = 'fuji' } = {}) {
  const s = SCHEMAS[kind];
  const body = JSON.parse(text);
  const want = s.want[chain];
  const r = strict(s.branches[want]).safeParse(body);
  if (!r.success) throw new Error(`${kind} (${chain}): not a strict ${s.names[want]}: ${zodIssues(r.error)}`);
  // the branch the SDK takes; another one is wrong unless the body is one of that branch too (an
  // empty list fits every list's schema)
  const first = s.branches.findIndex((b) => b.safeParse(body).success);
  if (first !== want && !strict(s.branches[first]).safeParse(body).success) throw new Error(`${kind} (${chain}): the SDK's union reads it as ${s.names[first]}, not ${s.names[want]}`);
  if (chain !== NETWORK && (body.chainInfo?.chainName !== CHAIN_NAME[chain] || body.chainInfo?.network !== network)) {
    throw new Error(`${kind} (${chain}): chainInfo ${JSON.stringify(body.chainInfo)}, want ${CHAIN_NAME[chain]} on ${network}`);
  }
  if ((kind === 'transactions' && chain === 'X') || kind === 'assetTransactions') {
    const tb = [C.XChainLinearTransaction$inboundSchema, C.XChainNonLinearTransaction$inboundSchema];
    for (const tx of body.transactions) {
      const f = tb.findIndex((b) => b.safeParse(tx).success);
      const w = tx.chainFormat === 'linear' ? 0 : 1;
      if (f !== w) throw new Error(`X tx ${tx.txHash} (${tx.chainFormat}): the SDK reads it as ${['linear', 'non-linear'][f] ?? 'neither'}`);
      const sr = strict(tb[w]).safeParse(tx);
      if (!sr.success) throw new Error(`X tx ${tx.txHash}: ${zodIssues(sr.error)}`);
    }
  }
  if (kind === 'transactions' && chain === 'C') {
    for (const tx of body.transactions) {
      const b = tx.txType === 'ExportTx' ? C.CChainExportTransaction$inboundSchema : C.CChainImportTransaction$inboundSchema;
      const sr = strict(b).safeParse(tx);
      if (!sr.success) throw new Error(`C tx ${tx.txHash} (${tx.txType}): ${zodIssues(sr.error)}`);
    }
  }
  return body;
}

// An ErrorBody as the SDK's error schema of that status takes it (without the request$, response$
// and body$ it adds itself), strictly, and whose statusCode and error are those of the response.
const ERRORS = { 400: E.BadRequestError$inboundSchema, 401: E.UnauthorizedError$inboundSchema, 403: E.ForbiddenError$inboundSchema,
  404: E.NotFoundError$inboundSchema, 429: E.TooManyRequestsError$inboundSchema, 500: E.InternalServerError$inboundSchema,
  502: E.BadGatewayError$inboundSchema, 503: E.ServiceUnavailableError$inboundSchema };
const REASON = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  413: 'Payload Too Large', 414: 'URI Too Long', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' };
export function checkErrorBody(status, text) {
  let body;
  try { body = JSON.parse(text); } catch { throw new Error(`a ${status} whose body is not JSON: ${text.slice(0, 200)}`); }
  let obj = ERRORS[status] ?? ERRORS[400];
  while (obj._def.typeName !== 'ZodObject') obj = obj._def.schema ?? obj._def.innerType;
  const r = strict(obj.pick({ message: true, statusCode: true, error: true })).safeParse(body);
  if (!r.success) throw new Error(`not a strict ErrorBody: ${zodIssues(r.error)}: ${text}`);
  if (body.statusCode !== status) throw new Error(`ErrorBody statusCode ${body.statusCode} on a ${status}`);
  if (REASON[status] && body.error !== REASON[status]) throw new Error(`ErrorBody error '${body.error}' on a ${status}`);
  return body;
}

// Keys of every object in a JSON value, recursively ("a.b[].c"), for the coverage report.
export function keyPaths(v, prefix = '', out = new Set()) {
  if (Array.isArray(v)) for (const x of v) keyPaths(x, prefix + '[]', out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { out.add(prefix + '.' + k); keyPaths(x, prefix + '.' + k, out); }
  return out;
}

export { cleanup, C };

// ---- the route table ------------------------------------------------------------------------------------

// The routes of src/api/routes.c as data: [{ method, path, name, chains: ['P', 'X', 'C'] (none for a
// route of the network, without {blockchainId}), params:
// [{ name, kind, required, min, max, def, values, umax, flags }], bodyAddresses, upstream201, cache,
// network (whether the path has {network}: false for the EVM routes and the export operations),
// bare (a ROUTE_BARE row: the export operations, whose input is a body or the path alone) }].
// Read from the C source, so a route or parameter added there is in every table built from it;
// anything this reader does not understand is an error (extend it, do not skip).
export function readRouteTable(root = new URL('../../', import.meta.url).pathname) {
  const strip = (t) => t.replace(/\/\*[^]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const src = strip(readFileSync(join(root, 'src/api/routes.c'), 'utf8'));
  const hdr = strip(readFileSync(join(root, 'src/api/internal.h'), 'utf8'));
  const consts = { INT64_MAX: 9223372036854775807n, UINT64_MAX: 18446744073709551615n, INT64_MIN: -9223372036854775808n };
  for (const [, k, v] of hdr.matchAll(/#define\s+(API_[A-Z0-9_]+)\s+\(?(\d+)\)?\s*$/gm)) consts[k] = BigInt(v);
  const num = (x) => {
    x = x.trim();
    if (/^-?\d+$/.test(x)) return BigInt(x);
    if (x in consts) return consts[x];
    throw new Error(`routes.c: no value for '${x}'`);
  };
  const arrays = {};
  for (const [, name, body] of src.matchAll(/static const char \*const (\w+)\[\]\s*=\s*\{([^}]*)\};/g)) {
    arrays[name] = [...body.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
  }
  // split at top-level commas
  const split = (s) => {
    const out = []; let depth = 0, cur = '', q = false;
    for (const c of s) {
      if (c === '"') q = !q;
      if (!q && (c === '(' || c === '{')) depth++;
      if (!q && (c === ')' || c === '}')) depth--;
      if (!q && c === ',' && depth === 0) { out.push(cur.trim()); cur = ''; continue; }
      cur += c;
    }
    if (cur.trim()) out.push(cur.trim());
    return out;
  };
  const KINDS = new Set(['AP_INT', 'AP_BOOL', 'AP_ENUM', 'AP_STRING', 'AP_ADDRESSES', 'AP_NODE_IDS', 'AP_TX_TYPES', 'AP_ID', 'AP_NODE_ID', 'AP_AMOUNT', 'AP_NUMBER', 'AP_PAGE_TOKEN', 'AP_EVM_CHAIN', 'AP_EVM_ADDRESS']);
  const param = (e) => {
    let m;
    if (e === 'PAGE_TOKEN') return { name: 'pageToken', kind: 'AP_PAGE_TOKEN' };
    if ((m = /^PAGE_SIZE\((.+),(.+)\)$/.exec(e))) return { name: 'pageSize', kind: 'AP_INT', min: 1n, max: num(m[1]), def: num(m[2]) };
    if ((m = /^SORT_ORDER\((.+)\)$/.exec(e))) return { name: 'sortOrder', kind: 'AP_ENUM', values: arrays.sort_orders, def: num(m[1]) };
    if ((m = /^TIMESTAMP\("(\w+)"\)$/.exec(e))) return { name: m[1], kind: 'AP_INT', min: 0n, max: consts.INT64_MAX };
    if ((m = /^ADDRESSES\((.+),(.+)\)$/.exec(e))) return { name: 'addresses', kind: 'AP_ADDRESSES', max: num(m[1]), flags: m[2].trim() === '0' ? 0 : m[2].trim() };
    if ((m = /^\{(.*)\}$/s.exec(e))) {
      const p = {};
      for (const f of split(m[1])) {
        const [, k, v] = /^\.(\w+)\s*=\s*(.+)$/s.exec(f) ?? [];
        if (!k) throw new Error(`routes.c: cannot read '${f}'`);
        if (k === 'name') p.name = JSON.parse(v);
        else if (k === 'kind') p.kind = v;
        else if (k === 'required') p.required = v === 'true';
        else if (['min', 'max', 'def', 'umax'].includes(k)) p[k] = num(v);
        else if (k === 'values') { if (!arrays[v]) throw new Error(`routes.c: no array ${v}`); p.values = arrays[v]; }
        else if (k === 'flags') p.flags = v;
        else throw new Error(`routes.c: unknown field .${k}`);
      }
      return p;
    }
    throw new Error(`routes.c: unknown parameter entry '${e}' (teach readRouteTable)`);
  };
  const params = {};
  for (const [, name, body] of src.matchAll(/static const api_param (\w+)\[\]\s*=\s*\{([^]*?)\};/g)) {
    params[name] = split(body).map(param);
    for (const p of params[name]) if (!KINDS.has(p.kind)) throw new Error(`routes.c: ${name}: unknown kind ${p.kind}`);
  }
  const net = /#define NET "([^"]+)"/.exec(src)[1];
  const chainPath = /#define CHAIN NET "([^"]+)"/.exec(src)[1];
  const table = /const api_route api_routes\[\] = \{([^]*?)\};/.exec(src)[1];
  const routes = [];
  for (const [, bare, bareArgs] of table.matchAll(/ROUTE(_BARE)?\(((?:[^()]|\([^()]*\))*)\)/g)) {
    let a = split(bareArgs);
    // ROUTE_BARE(method, path, name, handler, …): a route of no network, chain or query parameter
    if (bare) {
      a = [a[0], a[1], a[2], 'API_NO_CHAINS', 'ROUTE_BARE', a[3], ...a.slice(4)];
      params.ROUTE_BARE = [];
    }
    const path = a[1].replace(/^CHAIN\s*/, net + chainPath).replace(/^NET\s*/, net).replace(/"\s*"/g, '').replace(/"/g, '');
    // API_NO_CHAINS: a route of the network, without {blockchainId}
    const chains = a[3] === 'API_ALL_CHAINS' ? ['P', 'X', 'C'] : a[3] === 'API_NO_CHAINS' ? [] : [...a[3].matchAll(/API_CHAIN\(API_([PXC])\)/g)].map((m) => m[1]);
    if (!chains.length && a[3] !== 'API_NO_CHAINS') throw new Error(`routes.c: chains '${a[3]}'`);
    if (!chains.length !== !path.includes('{blockchainId}')) throw new Error(`routes.c: ${path}: chains '${a[3]}' and its {blockchainId} disagree`);
    if (!params[a[4]]) throw new Error(`routes.c: no parameters ${a[4]}`);
    const r = { method: JSON.parse(a[0]), path, name: JSON.parse(a[2]), chains, params: params[a[4]], bodyAddresses: false, upstream201: false, cache: false, network: path.includes('{network}'), bare: !!bare };
    for (const x of a.slice(6)) {
      const [, k, v] = /^\.(\w+)\s*=\s*(\w+)$/.exec(x) ?? [];
      if (k === 'body_addresses') r.bodyAddresses = v === 'true';
      else if (k === 'upstream_201') r.upstream201 = v === 'true';
      else if (k === 'cache') r.cache = v === 'true';
      else throw new Error(`routes.c: unknown route field '${x}'`);
    }
    routes.push(r);
  }
  if (!routes.length) throw new Error('routes.c: no routes read');
  return routes;
}
