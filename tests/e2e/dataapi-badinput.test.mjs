// Bad input to the Data API, table-driven from the route table itself (src/api/routes.c, read by
// readRouteTable): for every route and every parameter, values out of range, of the wrong type,
// malformed ids and addresses (bad checksum, wrong prefix, wrong chain), chains the route does not
// serve, unknown networks, forged, altered, stale, future, foreign and cross-list page tokens,
// unknown and repeated parameters, bad bodies, oversized bodies, unknown routes and methods. Each
// must get its status with an ErrorBody (strict: message, statusCode, error) whose message names
// the parameter. Then what surrounds the routes: API keys (hashed keys file, 401), rate limits (429
// with Retry-After, per address and per key), CORS preflight, 405 with Allow, 413, 404 for a
// network this store does not hold, testnet as fuji's other name.
//
// Every case is first checked to differ from a request that succeeds in that one parameter only.
// The EVM routes run here too: an anvil chain with one contract (evm-lib.mjs) is indexed into the
// same store (`snowline index --no-primary --evm-chain`), so that /v1/chains/{chainId}, getNative
// and getDeployment have a request that succeeds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { utils } from '@avalabs/avalanchejs';
import { BIN, cb58, httpRaw } from './lib.mjs';
import { makeDataset, startApi, startProc, checkErrorBody, readRouteTable } from './dataapi-schema-lib.mjs';
import { startAnvil, testBlockchainId } from './evm-lib.mjs';

// Every route of the table but the export operations (ROUTE_BARE rows: a JSON body or an id in
// the path, no query parameters), whose bad input is exports.test.mjs's (400s and FAILED
// operations). The EVM routes run here with the others, on the anvil chain below.
const ROUTES = readRouteTable().filter((r) => !r.bare);
const ALIAS = { P: 'p-chain', X: 'x-chain', C: 'c-chain' };
const EVM_ID = 99951;
let ds, m, api, key, secret, busyHeight, anvil, contract;
const hosts = [];

before(async () => {
  ds = await makeDataset({ txs: 1000, backend: process.env.SNOWLINE_BADINPUT_BACKEND ?? 'sqlite' });
  m = ds.manifest;
  // an EVM chain beside the primary network: anvil, one contract (an ERC-20), indexed to its head
  anvil = await startAnvil({ chainId: EVM_ID });
  contract = (await anvil.deploy(anvil.accounts[0], 'TestERC20', ['Bad Input', 'BAD', 18])).address;
  const evm = await startProc(['index', '--no-primary', '--store', ds.store, '--progress', 'log', '--poll-ms', '100', '--evm-chain',
    `id=${EVM_ID},rpc=${anvil.url},name=Bad Input,blockchain=${testBlockchainId('badinput')},network=fuji`],
  { ready: new RegExp(`evm ${EVM_ID} .*caught up`), what: 'snowline index --evm-chain' });
  await evm.stop();
  [key] = await newKeyFile('k', '');
  api = await startApi(ds.store, ['--keys-file', join(ds.dir, 'k'), '--rate-anonymous', '0', '--rate-key', '0']);
  hosts.push(api);
  // the store's page-token secret, to make tokens the server would have made at another time
  const q = "SELECT encode(value, 'hex') FROM meta WHERE key = 'token_secret'";
  secret = Buffer.from(ds.store.startsWith('postgres')
    ? execFileSync('psql', [ds.store, '-qAtc', q], { encoding: 'utf8' }).trim()
    : execFileSync('sqlite3', ['-readonly', ds.store, q.replace("encode(value, 'hex')", 'hex(value)')], { encoding: 'utf8' }).trim(), 'hex');
  assert.equal(secret.length, 32);
  // a vertex height with two vertices or more (a list of them has a second page)
  const vs = JSON.parse(await (await fetch(`${api.url}/v1/networks/fuji/blockchains/x-chain/vertices?pageSize=100`)).text()).vertices;
  const n = new Map();
  for (const v of vs) n.set(v.vertexHeight, (n.get(v.vertexHeight) ?? 0) + 1);
  busyHeight = [...n].find(([, k]) => k >= 2)?.[0];
  assert.ok(busyHeight !== undefined, 'two vertices at one height');
});

after(async () => {
  // an API that ended before its time: what it said (a sanitizer's report) goes to the log
  for (const h of hosts) if (h.proc.exitCode !== null || h.proc.signalCode !== null) console.error(`snowline api ended (${h.proc.exitCode ?? h.proc.signalCode}):\n${h.logs().slice(-8000)}`);
  for (const h of hosts) await h.stop();
  if (anvil) await anvil.stop();
  if (ds) await ds.close();
});

// A keys file `name` with one new key (its line + `extra`); resolves [key, line].
async function newKeyFile(name, extra) {
  const [k, line] = execFileSync(BIN, ['api', '--new-key', name], { encoding: 'utf8', timeout: 30000, killSignal: 'SIGKILL' }).trim().split('\n');
  writeFileSync(join(ds.dir, name), `# a test key\n${line}${extra}\n`);
  return [k, line];
}

// ---- requests ------------------------------------------------------------------------------------------

function url(base, path, query) {
  const q = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return `${base}${path}${q ? '?' + q : ''}`;
}
async function send(base, { method = 'GET', path, query = [], body, headers = {}, raw }) {
  const u = raw ? base + raw : url(base, path, query);
  const res = await fetch(u, { method, headers: body !== undefined ? { 'Content-Type': 'application/json', ...headers } : headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, url: u };
}

// ---- valid values, from the devnet's manifest ------------------------------------------------------------

const acct = () => m.accounts[0];
const addrFor = { P: (a) => a.pAddress, X: (a) => a.xAddress, C: (a) => 'C-' + a.xAddress.slice(2) };
function validValue(p, ch, route) {
  if (p.kind === 'AP_EVM_CHAIN') return String(EVM_ID);
  // getDeployment's address is a contract; the others' any account's (its native balance, its ICM messages)
  if (p.kind === 'AP_EVM_ADDRESS') return route?.path.includes('/contracts/') ? contract : acct().evmAddress;
  switch (p.name) {
    case 'addresses': return addrFor[ch](acct());
    case 'assetId': return m.network.avaxAssetId;
    case 'nodeId': return Object.keys(m.chains[ch].proposers.byNode)[0];
    case 'nodeIds': return m.P.validators[0].nodeId;
    case 'subnetId': return m.P.subnets.find((x) => x.isL1).subnetId;
    case 'vertexHeight': return String(busyHeight);
    case 'l1ValidationId': return m.P.l1Validators[0].validationId;
    default: break;
  }
  switch (p.kind) {
    case 'AP_INT': return String(p.def ?? p.min ?? 0n);
    case 'AP_BOOL': return 'true';
    case 'AP_ENUM': return p.values[0];
    case 'AP_TX_TYPES': return 'BaseTx';
    case 'AP_AMOUNT': return '1';
    case 'AP_NUMBER': return String(p.min ?? 0n);
    case 'AP_PAGE_TOKEN': return 'x'; // valid only as far as it is given twice
    default: throw new Error(`no valid value for ${p.name} (${p.kind}): teach validValue`);
  }
}

// The chain a route's cases run on, and its request: path variables filled, required parameters
// (and those a handler needs, like addresses) given, body for the POST. A route of the network (no
// {blockchainId}: rewards) takes P-chain addresses.
function chainOf(route) { return route.chains.includes('X') ? 'X' : route.chains[0] ?? 'P'; }
function baseRequest(route, ch = chainOf(route), network = 'fuji') {
  const pathVars = { network, blockchainId: ALIAS[ch] };
  const query = [];
  let body;
  for (const p of route.params) {
    if (route.path.includes(`{${p.name}}`)) { pathVars[p.name] = validValue(p, ch, route); continue; }
    if (p.name === 'addresses' && route.bodyAddresses) { body = JSON.stringify({ addresses: validValue(p, ch) }); continue; }
    if (p.required || (p.name === 'addresses' && needsAddresses(route))) query.push([p.name, validValue(p, ch)]);
  }
  const path = route.path.replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent(pathVars[k]));
  return { method: route.method, path, query, body, pathVars };
}
// handlers that refuse to run without addresses (a 400 of their own, tested below; rewards and
// pending rewards take nodeIds instead, as well)
const needsAddresses = (route) => /\/(utxos|balances|rewards|rewards:listPending)$/.test(route.path);
const servesChains = (route) => route.path.includes('{blockchainId}');

// ---- bad values per kind -----------------------------------------------------------------------------------

const tamper = (s) => s.slice(0, -1) + (s.at(-1) === 'a' ? 'b' : 'a'); // a different last character
function mainnetAddr(ch) { return `${ch}-` + utils.formatBech32('avax', utils.parseBech32(acct().xAddress.slice(2))[1]); }
function badValues(p, ch, route) {
  const big = (v) => (BigInt(v) + 1n).toString();
  switch (p.kind) {
    case 'AP_INT': return [
      ...(p.min !== undefined && p.min > -9223372036854775808n ? [[(p.min - 1n).toString(), 'below the minimum']] : []),
      [big(p.max), 'above the maximum'], ['abc', 'not a number'], ['1.5', 'a fraction'], ['', 'empty'], ['1e3', 'an exponent'],
      ['0x10', 'hex'], ['+1', 'a plus sign'], [' 1', 'a space'], ['99999999999999999999999', 'past 64 bits'],
    ];
    case 'AP_BOOL': return [['yes', 'not a boolean'], ['1', 'a number'], ['TRUE', 'upper case'], ['', 'empty']];
    case 'AP_ENUM': return [['sideways', 'not a value'], [p.values[0].toUpperCase(), 'upper case'], ['', 'empty'], [p.values[0] + ' ', 'a trailing space']];
    case 'AP_TX_TYPES': return [['NoSuchTx', 'not a type'], ['basetx', 'lower case'], ['', 'empty'], ['BaseTx,', 'an empty item'], ['BaseTx,,ImportTx', 'an empty item inside']];
    case 'AP_AMOUNT': return [['-1', 'negative'], ['abc', 'not a number'], ['18446744073709551616', 'past 64 bits'], ['1.5', 'a fraction'], ['', 'empty']];
    case 'AP_ID': {
      const good = validValue(p, ch);
      return [[tamper(good), 'a bad checksum'], ['abc', 'too short'], ['0x' + '00'.repeat(32), 'hex'], ['', 'empty'],
        [cb58(randomBytes(31)), '31 bytes'], [cb58(randomBytes(33)), '33 bytes'], [good + '1', 'a character too many']];
    }
    case 'AP_NODE_ID': {
      const good = validValue(p, ch);
      return [[good.slice(7), 'no NodeID- prefix'], [tamper(good), 'a bad checksum'], ['NodeID-' + cb58(randomBytes(32)), '32 bytes'],
        ['NodeID-', 'empty after the prefix'], ['nodeid-' + good.slice(7), 'a lower-case prefix']];
    }
    case 'AP_NUMBER': return [
      [p.min > 0n ? `${p.min - 1n}.999999` : '-0.5', 'below the minimum'], [`${p.max}.000001`, 'above the maximum'], ['abc', 'not a number'], ['', 'empty'],
      ['1e2', 'an exponent'], ['0x10', 'hex'], ['+5', 'a plus sign'], [' 5', 'a space'], ['5.5.5', 'two points'], ['.', 'a point alone'],
      ['99999999999999999999999', 'past 64 bits'], ['5,5', 'a comma'],
    ];
    case 'AP_NODE_IDS': {
      if (p.flags === undefined) {
        // parts of node ids (substring matches): any text but an empty item, at most max of them
        const many = Array.from({ length: Number(p.max) + 1 }, (_, i) => `NodeID-${i}`);
        return [['', 'empty'], ['abc,,def', 'an empty item inside'], ['abc,', 'an empty last item'], [',abc', 'an empty first item'], [many.join(','), `${many.length} parts`]];
      }
      if (p.flags !== 'AP_FULL_IDS') throw new Error(`no bad values for ${route.name}.${p.name} (${p.flags}): teach badValues`);
      const good = validValue(p, ch);
      const many = Array.from({ length: Number(p.max) + 1 }, () => 'NodeID-' + cb58(randomBytes(20)));
      return [[good.slice(7), 'no NodeID- prefix'], [tamper(good), 'a bad checksum'], ['NodeID-' + cb58(randomBytes(32)), '32 bytes'],
        ['NodeID-', 'empty after the prefix'], ['nodeid-' + good.slice(7), 'a lower-case prefix'], [good.slice(0, 20), 'a part of one'],
        [`${good},,${good}`, 'an empty item'], [`${good},`, 'an empty last item'], ['', 'empty'], [many.join(','), `${many.length} node ids`]];
    }
    case 'AP_ADDRESSES': {
      const good = addrFor[ch](acct());
      const many = Array.from({ length: Number(p.max) + 1 }, () => `${ch}-` + utils.formatBech32(m.network.hrp, randomBytes(20)));
      const out = [[tamper(good), 'a bad checksum'], [mainnetAddr(ch), 'an address of mainnet (avax1…)'],
        ['Q-' + good.slice(2), "the chain prefix 'Q-'"], [`${good},,${good}`, 'an empty item'], ['', 'empty'],
        [good.slice(0, 10), 'cut short'], [many.join(','), `${many.length} addresses`]];
      out.push(p.flags === 'AP_EVM' ? ['0x1234', 'a short EVM address'] : [acct().evmAddress, 'an EVM address']);
      return out;
    }
    case 'AP_EVM_ADDRESS': {
      const good = acct().evmAddress;
      return [['0x1234', 'a short EVM address'], [good.slice(2), 'no 0x'], [good.slice(0, -1) + 'g', 'a non-hex digit'],
        [good + '00', 'two digits too many'], [addrFor[ch](acct()), 'a bech32 address'], ['0x', '0x alone']];
    }
    case 'AP_EVM_CHAIN': return [['0', 'zero'], ['abc', 'not a number'], ['-1', 'negative'], ['043114', 'a leading zero'],
      ['99999999999999999999', 'past 63 bits'], ['0x1234', 'short hex'], [tamper(m.network.cChainId), 'a bad checksum']];
    case 'AP_PAGE_TOKEN': return []; // tokens have their own test below
    default: throw new Error(`no bad values for kind ${p.kind} (${route.name}.${p.name}): teach badValues`);
  }
}

// Expect an error: status, a strict ErrorBody, a message naming `names` (each a word of it).
function expectError(r, status, names, what) {
  const errs = [];
  if (r.status !== status) errs.push(`status ${r.status}, want ${status}`);
  let body;
  try { body = checkErrorBody(r.status, r.text); } catch (e) { errs.push(e.message); }
  for (const n of [names].flat()) {
    if (body && !new RegExp(`(^|[^A-Za-z])${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^A-Za-z]|$)`).test(String(body.message))) errs.push(`the message does not name ${n}`);
  }
  return errs.length ? `${what}: ${errs.join('; ')} — ${r.method ?? ''} ${r.url} → ${r.status} ${r.text.slice(0, 300)}` : null;
}

async function runCases(cases) {
  const failed = [];
  for (const c of cases) {
    const r = await send(api.url, c.req);
    const f = expectError(r, c.status, c.names, c.what);
    if (f) failed.push(f);
  }
  return failed;
}

// ---- per route: every parameter ---------------------------------------------------------------------------------

for (const route of ROUTES) {
  test(`${route.method} ${route.path}: every parameter, every kind of bad value`, async () => {
    const ch = chainOf(route);
    const base = baseRequest(route, ch);
    const ok = await send(api.url, base);
    assert.ok(ok.status === 200, `the base request succeeds: ${ok.url} → ${ok.status} ${ok.text.slice(0, 300)}`);
    const cases = [];
    for (const p of route.params) {
      const inPath = route.path.includes(`{${p.name}}`);
      for (const [v, why] of badValues(p, ch, route)) {
        if (inPath && v === '') continue; // an empty path segment is another route (below)
        const req = structuredClone(base);
        if (inPath) {
          req.path = route.path.replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent(k === p.name ? v : base.pathVars[k]));
        } else if (p.name === 'addresses' && route.bodyAddresses) {
          req.body = JSON.stringify({ addresses: v });
        } else {
          req.query = req.query.filter(([k]) => k !== p.name).concat([[p.name, v]]);
        }
        cases.push({ what: `${p.name} ${why}`, req, status: 400, names: p.name });
      }
      if (!inPath && !(p.name === 'addresses' && route.bodyAddresses)) {
        // given twice (a list parameter may repeat: its items add up)
        const v = base.query.find(([k]) => k === p.name)?.[1] ?? validValue(p, ch);
        if (p.kind !== 'AP_TX_TYPES') cases.push({ what: `${p.name} twice`, req: { ...base, query: [...base.query.filter(([k]) => k !== p.name), [p.name, v], [p.name, v]] }, status: 400, names: p.name });
      }
      if (p.required && !inPath) cases.push({ what: `${p.name} missing`, req: { ...base, query: base.query.filter(([k]) => k !== p.name) }, status: 400, names: p.name });
    }
    // rewards: at least one of addresses and nodeIds
    if (['addresses', 'nodeIds'].every((n) => route.params.some((p) => p.name === n))) {
      cases.push({ what: 'neither addresses nor nodeIds', req: { ...base, query: base.query.filter(([k]) => k !== 'addresses' && k !== 'nodeIds') }, status: 400, names: ['addresses', 'nodeIds'] });
    }
    // a parameter the route does not take, one in the wrong case (named with a hint), a bad %-escape
    cases.push({ what: 'an unknown parameter', req: { ...base, query: [...base.query, ['colour', 'blue']] }, status: 400, names: 'colour' });
    const some = route.params.find((p) => !route.path.includes(`{${p.name}}`) && /[A-Z]/.test(p.name));
    if (some) cases.push({ what: 'a parameter in the wrong case', req: { ...base, query: [...base.query, [some.name.toLowerCase(), some.kind === 'AP_PAGE_TOKEN' ? 'x' : validValue(some, ch)]] }, status: 400, names: [some.name.toLowerCase(), some.name] });
    // (a route of path parameters alone, GET /v1/chains/{chainId}: the escape is refused before any name is looked at)
    const esc = some ?? route.params.find((p) => !route.path.includes(`{${p.name}}`)) ?? { name: 'colour' };
    cases.push({ what: 'a bad %-escape', req: { ...base, raw: url('', base.path, base.query) + (base.query.length ? '&' : '?') + `${esc.name}=%G1` }, status: 400, names: '%' });
    // start after end
    if (route.params.some((p) => p.name === 'startTimestamp') && route.params.some((p) => p.name === 'endTimestamp')) {
      const q = [...base.query, ['startTimestamp', '1710000000'], ['endTimestamp', '1700000000']];
      if (route.params.some((p) => p.name === 'addresses') && !q.some(([k]) => k === 'addresses')) q.push(['addresses', addrFor[ch](acct())]);
      cases.push({ what: 'startTimestamp after endTimestamp', req: { ...base, query: q }, status: 400, names: ['startTimestamp', 'endTimestamp'] });
    }
    // chains: every chain the route does not serve, and chains that are none of this network's
    for (const other of ['P', 'X', 'C'].filter((c) => servesChains(route) && !route.chains.includes(c))) {
      for (const id of [ALIAS[other], m.network[`${other.toLowerCase()}ChainId`]]) {
        const b = baseRequest(route, ch);
        b.path = route.path.replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent(k === 'blockchainId' ? id : b.pathVars[k]));
        cases.push({ what: `the ${other}-chain (${id})`, req: b, status: 400, names: 'blockchainId' });
      }
    }
    for (const id of servesChains(route) ? ['d-chain', 'X-chain', '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM' /* mainnet's X */, tamper(m.network.xChainId)] : []) {
      const b = baseRequest(route, ch);
      b.path = route.path.replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent(k === 'blockchainId' ? id : b.pathVars[k]));
      cases.push({ what: `blockchainId ${id}`, req: b, status: 400, names: 'blockchainId' });
    }
    // networks: names that are none, and mainnet, which this fuji store does not hold: 404 naming it
    for (const [net, status, names] of !route.path.includes('{network}') ? [] : [['devnet', 404, ['network', 'devnet']], ['Fuji', 404, ['network', 'Fuji']], ['local', 404, ['network', 'local']], ['mainnet', 404, ['network', 'mainnet']]]) {
      cases.push({ what: `network ${net}`, req: baseRequest(route, ch, net), status, names });
    }
    const failed = await runCases(cases);
    assert.deepEqual(failed, [], `${failed.length} of ${cases.length} cases:\n${failed.join('\n')}`);
  });
}

// ---- the lists of the network, by name --------------------------------------------------------------------------

test('subnets and l1Validators: page sizes past their limits, malformed ids, a bad boolean and sortOrder, a forged token', async () => {
  const subnet = m.P.subnets.find((x) => x.isL1).subnetId, forged = randomBytes(45).toString('base64url');
  const cases = [
    ['subnets', 'pageSize', '0'], ['subnets', 'pageSize', '10001'], ['subnets', 'sortOrder', 'newest'], ['subnets', 'pageToken', forged],
    ['l1Validators', 'pageSize', '0'], ['l1Validators', 'pageSize', '101'], ['l1Validators', 'l1ValidationId', 'notAnId'],
    ['l1Validators', 'l1ValidationId', tamper(m.P.l1Validators[0].validationId)], ['l1Validators', 'subnetId', tamper(subnet)],
    ['l1Validators', 'subnetId', '0x' + '00'.repeat(32)], ['l1Validators', 'nodeId', 'NodeID-xyz'], ['l1Validators', 'nodeId', m.P.l1Validators[0].nodeId.slice(7)],
    ['l1Validators', 'includeInactiveL1Validators', 'maybe'], ['l1Validators', 'pageToken', forged],
  ];
  const failed = [];
  for (const [list, k, v] of cases) {
    const r = await send(api.url, { path: `/v1/networks/fuji/${list}`, query: [[k, v]] });
    const f = expectError(r, 400, k, `${list} ${k}=${v}`);
    if (f) failed.push(f);
  }
  assert.deepEqual(failed, [], failed.join('\n'));
  // and at their limits, served
  for (const [list, q] of [['subnets', 'pageSize=10000'], ['subnets', 'pageSize=1&sortOrder=asc'], ['l1Validators', 'pageSize=100&includeInactiveL1Validators=false'], ['l1Validators', `subnetId=${subnet}&pageSize=1`]]) {
    const r = await fetch(`${api.url}/v1/networks/fuji/${list}?${q}`);
    assert.equal(r.status, 200, `${list}?${q}: ${await r.text()}`);
  }
});

// ---- the validators ---------------------------------------------------------------------------------------------------

test('validators: percentages out of range, delegationFee off mainnet or without the primary subnet id, negative or huge capacities, bad status and sortBy, crossing bounds', async () => {
  const P = '11111111111111111111111111111111LpoYY';
  const cases = [
    [[['minFeePercentage', '1']], 'minFeePercentage'], [[['minFeePercentage', '101']], 'minFeePercentage'], [[['minFeePercentage', '-5']], 'minFeePercentage'],
    [[['maxFeePercentage', '1.5']], 'maxFeePercentage'], [[['maxFeePercentage', '100.01']], 'maxFeePercentage'], [[['maxFeePercentage', 'NaN']], 'maxFeePercentage'],
    [[['minUptimePerformance', '-0.1']], 'minUptimePerformance'], [[['minUptimePerformance', '100.5']], 'minUptimePerformance'], [[['maxUptimePerformance', '101']], 'maxUptimePerformance'],
    [[['minDelegationCapacity', '-1']], 'minDelegationCapacity'], [[['minDelegationCapacity', '720000000000000001']], 'minDelegationCapacity'],
    [[['maxDelegationCapacity', '1000000000000000000']], 'maxDelegationCapacity'], [[['maxDelegationCapacity', '99999999999999999999']], 'maxDelegationCapacity'],
    [[['minDelegationCapacity', '1.5']], 'minDelegationCapacity'], [[['minTimeRemaining', '-1']], 'minTimeRemaining'], [[['maxTimeRemaining', '2147483648']], 'maxTimeRemaining'],
    [[['validationStatus', 'Active']], 'validationStatus'], [[['validationStatus', 'done']], 'validationStatus'], [[['validationStatus', '']], 'validationStatus'],
    [[['sortBy', 'fee']], 'sortBy'], [[['sortBy', 'DelegationFee']], 'sortBy'], [[['sortBy', 'blockindex']], 'sortBy'],
    // delegationFee: mainnet validators only (this store is fuji), and only with the primary network's subnet id
    [[['sortBy', 'delegationFee']], 'sortBy'], [[['sortBy', 'delegationFee'], ['subnetId', P]], 'sortBy'],
    [[['sortBy', 'delegationFee'], ['subnetId', m.P.subnets[0].subnetId]], 'sortBy'],
    // bounds that cross
    [[['minFeePercentage', '50'], ['maxFeePercentage', '10']], ['minFeePercentage', 'maxFeePercentage']],
    [[['minUptimePerformance', '90'], ['maxUptimePerformance', '89.999']], ['minUptimePerformance', 'maxUptimePerformance']],
    [[['minDelegationCapacity', '2'], ['maxDelegationCapacity', '1']], ['minDelegationCapacity', 'maxDelegationCapacity']],
    [[['minTimeRemaining', '100'], ['maxTimeRemaining', '99']], ['minTimeRemaining', 'maxTimeRemaining']],
  ];
  const failed = [];
  for (const [query, names] of cases) {
    const r = await send(api.url, { path: '/v1/networks/fuji/validators', query });
    const f = expectError(r, 400, names, `validators ${JSON.stringify(query)}`);
    if (f) failed.push(f);
  }
  assert.deepEqual(failed, [], failed.join('\n'));
  // at their limits, served
  for (const q of ['minFeePercentage=2&maxFeePercentage=100', 'minFeePercentage=2.000001&maxFeePercentage=99.999999', 'minUptimePerformance=0&maxUptimePerformance=100',
    'minDelegationCapacity=0&maxDelegationCapacity=720000000000000000', 'minTimeRemaining=0&maxTimeRemaining=2147483647', `subnetId=${P}&sortBy=uptimePerformance&validationStatus=removed`,
    'nodeIds=NodeID-,x,%20&sortBy=timeRemaining&pageSize=100']) {
    const r = await fetch(`${api.url}/v1/networks/fuji/validators?${q}`);
    assert.equal(r.status, 200, `validators?${q}: ${await r.text()}`);
  }
});

// ---- page tokens ----------------------------------------------------------------------------------------------------

// A token as token.c makes them: base64url(1 | list[8] | issued u32be | cursor | HMAC-SHA256(secret, …)[:16]).
function makeToken({ list, issued, cursor, key = secret, version = 1 }) {
  const head = Buffer.alloc(13);
  head[0] = version;
  list.copy(head, 1, 0, 8);
  head.writeUInt32BE(issued >>> 0, 9);
  const msg = Buffer.concat([head, cursor]);
  const mac = createHmac('sha256', key).update(msg).digest().subarray(0, 16);
  return Buffer.concat([msg, mac]).toString('base64url');
}
const parseToken = (t) => { const b = Buffer.from(t, 'base64url'); return { list: b.subarray(1, 9), issued: b.readUInt32BE(9), cursor: b.subarray(13, b.length - 16) }; };

test('page tokens: forged, altered, stale, from the future, of another store, of another list, with a wrong cursor', async () => {
  const now = Math.floor(Date.now() / 1000);
  const failed = [];
  let listed = 0;
  // (the ICM messages of an address: this store has none, so no second page; dataapi-evm.test.mjs
  // tries forged tokens and another list's there)
  for (const route of ROUTES.filter((r) => r.params.some((p) => p.kind === 'AP_PAGE_TOKEN') && !r.path.startsWith('/v1/icm/'))) {
    const ch = chainOf(route);
    // a real token: the first page of 1, with addresses enough to have a second page (a few
    // accounts have more items than the first 8 have active staking txs)
    const base = baseRequest(route, ch);
    if (route.params.some((p) => p.name === 'addresses')) {
      const many = m.accounts.slice(0, 32).map(addrFor[ch]).join(',');
      if (route.bodyAddresses) base.body = JSON.stringify({ addresses: many });
      else base.query = base.query.filter(([k]) => k !== 'addresses').concat([['addresses', many]]);
    }
    const first = await send(api.url, { ...base, query: [...base.query, ['pageSize', '1']] });
    assert.equal(first.status, 200, `${first.url}: ${first.text.slice(0, 300)}`);
    const token = JSON.parse(first.text).nextPageToken;
    assert.ok(token, `${route.name}: a first page of 1 has a next page`);
    listed++;
    const t = parseToken(token);
    // the token itself works, also with another page size (not part of the list's identity), and on testnet
    for (const [q, net] of [[[['pageToken', token], ['pageSize', '1']], 'fuji'], [[['pageToken', token], ['pageSize', '3']], 'testnet']]) {
      const b = baseRequest(route, ch, net);
      const r = await send(api.url, { ...b, body: base.body, query: [...base.query, ...q] });
      if (r.status !== 200) failed.push(`${route.name}: its own token (${net}) → ${r.status} ${r.text.slice(0, 200)}`);
    }
    const bad = [
      ['forged', randomBytes(45).toString('base64url')],
      ['not base64url', 'not a token!'],
      ['too short', token.slice(0, 10)],
      ['too long', 'A'.repeat(513)],
      ['altered', (() => { const b = Buffer.from(token, 'base64url'); b[14] ^= 1; return b.toString('base64url'); })()],
      ['stale (issued 25 hours ago)', makeToken({ ...t, issued: now - 25 * 3600 })],
      ['from the future (issued in an hour)', makeToken({ ...t, issued: now + 3600 })],
      ['of another store', makeToken({ ...t, issued: now, key: randomBytes(32) })],
      ['of another version', makeToken({ ...t, issued: now, version: 2 })],
      ['of another list', makeToken({ ...t, list: randomBytes(8), issued: now })],
      ['with a cursor of the wrong size', makeToken({ ...t, issued: now, cursor: Buffer.concat([t.cursor, Buffer.from([0])]) })],
      ['with an empty cursor', makeToken({ ...t, issued: now, cursor: Buffer.alloc(0) })],
    ];
    for (const [why, tok] of bad) {
      const r = await send(api.url, { ...base, query: [...base.query, ['pageToken', tok]] });
      const f = expectError(r, 400, 'pageToken', `${route.name}: a token ${why}`);
      if (f) failed.push(f);
    }
    // the same token on other lists: other parameters, another chain, another route
    const others = [];
    if (route.params.some((p) => p.name === 'sortOrder')) others.push(['another sortOrder', { ...base, query: [...base.query.filter(([k]) => k !== 'sortOrder'), ['sortOrder', 'asc'], ['sortOrder', 'desc']].slice(0, -1) }]);
    for (const other of route.chains.filter((c) => c !== ch)) {
      const b = baseRequest(route, other);
      if (route.params.some((p) => p.name === 'addresses')) {
        const many = m.accounts.slice(0, 32).map(addrFor[other]).join(',');
        if (route.bodyAddresses) b.body = JSON.stringify({ addresses: many });
        else b.query = b.query.filter(([k]) => k !== 'addresses').concat([['addresses', many]]);
      }
      others.push([`the ${other}-chain`, b]);
    }
    if (route.params.some((p) => p.name === 'addresses')) {
      const b = structuredClone(base);
      const one = addrFor[ch](m.accounts[9]);
      if (route.bodyAddresses) b.body = JSON.stringify({ addresses: one }); else b.query = b.query.filter(([k]) => k !== 'addresses').concat([['addresses', one]]);
      others.push(['other addresses', b]);
    }
    for (const r2 of ROUTES.filter((r) => r !== route && r.params.some((p) => p.kind === 'AP_PAGE_TOKEN'))) others.push([`route ${r2.name}`, baseRequest(r2)]);
    for (const [why, b] of others) {
      const r = await send(api.url, { ...b, query: [...b.query, ['pageToken', token]] });
      const f = expectError(r, 400, 'pageToken', `${route.name}: its token on ${why}`);
      if (f) failed.push(f);
    }
  }
  assert.ok(listed >= 6, 'every paginated route was tried');
  assert.deepEqual(failed, [], failed.join('\n'));
});

// ---- bodies ---------------------------------------------------------------------------------------------------------

test('POST bodies: not JSON, not an object, addresses missing or not a string, unknown properties, too large', async () => {
  const failed = [];
  for (const route of ROUTES.filter((r) => r.bodyAddresses)) {
    for (const ch of route.chains) {
      const base = baseRequest(route, ch);
      const good = addrFor[ch](acct());
      for (const [body, why] of [
        ['', 'empty'], ['{', 'cut short'], ['not json', 'not JSON'], ['[]', 'an array'], ['"x"', 'a string'], ['null', 'null'],
        ['{}', 'no addresses'], [JSON.stringify({ addresses: [good] }), 'addresses as an array'],
        [JSON.stringify({ addresses: 5 }), 'addresses as a number'], [JSON.stringify({ addresses: null }), 'addresses null'],
        [JSON.stringify({ addresses: good, colour: 'blue' }), 'an unknown property'],
        [`{"addresses": "${good}"} trailing`, 'bytes after the object'],
      ]) {
        const r = await send(api.url, { ...base, body });
        const f = expectError(r, 400, why === 'an unknown property' ? 'colour' : 'addresses', `${route.name} ${ch}: a body ${why}`);
        if (f) failed.push(f);
      }
      // addresses in the query of the POST: the body's place
      const r = await send(api.url, { ...base, query: [['addresses', good]] });
      const f = expectError(r, 400, 'addresses', `${route.name} ${ch}: addresses in the query`);
      if (f) failed.push(f);
    }
  }
  assert.deepEqual(failed, [], failed.join('\n'));
  // a body over --http-max-body: 413 with an ErrorBody, from the server before any handler
  const small = await startApi(ds.store, ['--http-max-body', '4096', '--rate-anonymous', '0']);
  hosts.push(small);
  const route = ROUTES.find((x) => x.bodyAddresses);
  const base = baseRequest(route, 'X');
  const addrs = m.accounts.map((a) => a.xAddress).join(',');
  assert.ok(addrs.length > 2048 && addrs.length < 4096);
  const fits = await send(small.url, { ...base, body: JSON.stringify({ addresses: addrs }) });
  assert.equal(fits.status, 200, fits.text.slice(0, 300));
  const big = await send(small.url, { ...base, body: JSON.stringify({ addresses: addrs + ',' + addrs }) });
  assert.equal(expectError(big, 413, [], 'a body over --http-max-body'), null);
  assert.match(JSON.parse(big.text).message, /body/);
});

// ---- routes and methods ---------------------------------------------------------------------------------------------

test('unknown routes are 404 naming the path; known paths with another method 405 with Allow', async () => {
  const failed = [];
  for (const path of ['/', '/v1', '/v1/networks/fuji', '/v1/networks/fuji/blockchains/x-chain', '/v1/networks/fuji/blockchains/x-chain/nothing',
    '/v2/networks/fuji/blockchains/x-chain/utxos', '/v1/networks/fuji/blockchains/x-chain/utxos/', '/v1/networks/fuji/blockchains//utxos',
    '/v1/networks/fuji/blockchains/x-chain/assets//transactions', '/v1/networks//blockchains/x-chain/vertices', '/v1/networks/fuji/blockchains/x-chain/vertices:listByHeigth']) {
    const r = await send(api.url, { path });
    const f = expectError(r, 404, [], `GET ${path}`);
    if (f) failed.push(f);
    else if (!JSON.parse(r.text).message.includes(path)) failed.push(`GET ${path}: the message does not name the path: ${r.text}`);
  }
  const byPath = new Map();
  for (const route of ROUTES) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route.method]);
  for (const [pattern, methods] of byPath) {
    const route = ROUTES.find((x) => x.path === pattern);
    const path = baseRequest(route).path;
    for (const method of ['PUT', 'DELETE', 'PATCH', 'POST', 'GET'].filter((x) => !methods.includes(x))) {
      const r = await send(api.url, { method, path, body: method === 'GET' ? undefined : '{}' });
      const f = expectError(r, 405, method, `${method} ${pattern}`);
      if (f) { failed.push(f); continue; }
      const allow = (r.headers.get('allow') ?? '').split(/,\s*/).sort();
      if (JSON.stringify(allow) !== JSON.stringify([...methods].sort())) failed.push(`${method} ${pattern}: Allow '${r.headers.get('allow')}', want ${methods}`);
    }
    // HEAD on a GET route answers as GET, without a body
    if (methods.includes('GET')) {
      const b = baseRequest(route);
      const r = await fetch(url(api.url, b.path, b.query), { method: 'HEAD' });
      if (r.status !== 200 || (await r.text()) !== '') failed.push(`HEAD ${pattern}: ${r.status}`);
    }
  }
  assert.deepEqual(failed, [], failed.join('\n'));
});

// ---- networks and chains that succeed --------------------------------------------------------------------------------

test('testnet is fuji: the same answer but for chainInfo.network; chain ids and aliases are the same chain', async () => {
  // network routes: no chainInfo, the same body
  for (const route of ROUTES.filter((r) => !servesChains(r))) {
    const [a, b] = await Promise.all([baseRequest(route, undefined, 'fuji'), baseRequest(route, undefined, 'testnet')].map((x) => send(api.url, x)));
    assert.equal(a.status, 200, `${a.url}: ${a.text.slice(0, 200)}`);
    assert.equal(b.status, 200, `${b.url}: ${b.text.slice(0, 200)}`);
    const ja = JSON.parse(a.text), jb = JSON.parse(b.text);
    for (const j of [ja, jb]) delete j.nextPageToken;
    assert.ok(!('chainInfo' in ja));
    assert.deepEqual(jb, ja, `${route.name}: testnet answers as fuji`);
  }
  for (const route of ROUTES) {
    if (!servesChains(route)) {
      // a list of the network has no chainInfo: the same answer
      const [a, b] = await Promise.all(['fuji', 'testnet'].map((net) => send(api.url, baseRequest(route, chainOf(route), net))));
      assert.equal(a.status, 200, `${a.url}: ${a.text.slice(0, 200)}`);
      assert.equal(b.status, 200, `${b.url}: ${b.text.slice(0, 200)}`);
      const ja = JSON.parse(a.text), jb = JSON.parse(b.text);
      delete ja.nextPageToken; delete jb.nextPageToken;
      assert.deepEqual(jb, ja, `${route.name}: testnet answers as fuji`);
    }
    for (const ch of route.chains) {
      const f = baseRequest(route, ch, 'fuji'), t = baseRequest(route, ch, 'testnet');
      const byId = baseRequest(route, ch);
      byId.path = route.path.replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent(k === 'blockchainId' ? m.network[`${ch.toLowerCase()}ChainId`] : byId.pathVars[k]));
      const [a, b, c] = await Promise.all([f, t, byId].map((x) => send(api.url, x)));
      assert.equal(a.status, 200, `${a.url}: ${a.text.slice(0, 200)}`);
      assert.equal(b.status, 200, `${b.url}: ${b.text.slice(0, 200)}`);
      const ja = JSON.parse(a.text), jb = JSON.parse(b.text), jc = JSON.parse(c.text);
      assert.equal(jb.chainInfo.network, 'testnet');
      assert.equal(ja.chainInfo.network, 'fuji');
      for (const j of [ja, jb, jc]) delete j.nextPageToken; // tokens carry their time of issue
      assert.deepEqual({ ...jb, chainInfo: ja.chainInfo }, ja, `${route.name} ${ch}: testnet answers as fuji`);
      assert.deepEqual(jc, ja, `${route.name} ${ch}: the chain's id answers as its alias`);
    }
  }
  // the EVM routes' network filter (a query parameter): testnet is fuji there too; this store's EVM
  // chain is a fuji one, so the lists are not empty
  const filtered = ROUTES.filter((r) => r.params.some((p) => p.name === 'network' && p.kind === 'AP_ENUM'));
  assert.ok(filtered.length >= 2, 'GET /v1/chains and the ICM messages take network');
  for (const route of filtered) {
    const b = baseRequest(route);
    const [f, t] = await Promise.all(['fuji', 'testnet'].map((net) => send(api.url, { ...b, query: [...b.query, ['network', net]] })));
    assert.equal(f.status, 200, `${f.url}: ${f.text.slice(0, 200)}`);
    assert.equal(t.text, f.text, `${route.name}: network=testnet answers as fuji`);
  }
  const fujiChains = JSON.parse((await send(api.url, { path: '/v1/chains', query: [['network', 'testnet']] })).text).chains;
  assert.deepEqual(fujiChains.map((c) => c.chainId), [String(EVM_ID)]);
  // the asset of a path that is an id but not an asset here: 404 naming it
  const route = ROUTES.find((x) => x.path.includes('{assetId}'));
  const b = baseRequest(route, 'X');
  const id = cb58(randomBytes(32));
  b.path = route.path.replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent(k === 'assetId' ? id : b.pathVars[k]));
  assert.equal(expectError(await send(api.url, b), 404, ['assetId', id], 'an unknown asset'), null);
});

// ---- API keys -----------------------------------------------------------------------------------------------------------

test('API keys: the keys file holds hashes; a known key passes in either header, an unknown one is 401', async () => {
  const route = ROUTES.find((x) => x.name === 'vertices');
  const b = baseRequest(route);
  const file = (await import('node:fs')).readFileSync(join(ds.dir, 'k'), 'utf8');
  assert.ok(!file.includes(key), 'the keys file does not hold the key');
  const hash = file.trim().split('\n').at(-1).split(/\s+/)[1];
  assert.match(hash, /^[0-9a-f]{64}$/);
  for (const h of ['x-data-api-key', 'x-glacier-api-key', 'X-Glacier-Api-Key']) {
    const r = await send(api.url, { ...b, headers: { [h]: key } });
    assert.equal(r.status, 200, `${h}: ${r.text}`);
  }
  for (const [h, v] of [['x-data-api-key', hash], ['x-glacier-api-key', key + 'x'], ['x-data-api-key', ''], ['x-glacier-api-key', 'sl_' + '0'.repeat(48)]]) {
    const r = await send(api.url, { ...b, headers: { [h]: v } });
    assert.equal(expectError(r, 401, [], `${h}: ${v.slice(0, 20)}`), null);
    assert.match(JSON.parse(r.text).message, /key/);
  }
  // no key at all: anonymous, served
  assert.equal((await send(api.url, b)).status, 200);
});

// ---- rate limits --------------------------------------------------------------------------------------------------------

test('rate limits: 429 with Retry-After and an ErrorBody, per client address and per key, then served again', async () => {
  // the key's line: 0.1 request a second, a burst of 1 (a second request within 10 s is refused)
  const [k] = await newKeyFile('slow', ' 0.1 1');
  const limited = await startApi(ds.store, ['--keys-file', join(ds.dir, 'slow'), '--rate-anonymous', '1', '--rate-key', '1000']);
  hosts.push(limited);
  const b = baseRequest(ROUTES.find((x) => x.name === 'vertices'));
  // anonymous: 1 a second, a burst of 2; ten at once cannot all pass
  const rs = await Promise.all(Array.from({ length: 10 }, () => send(limited.url, b)));
  const refused = rs.filter((r) => r.status === 429);
  assert.ok(rs.some((r) => r.status === 200) && refused.length >= 5, `statuses ${rs.map((r) => r.status)}`);
  assert.ok(rs.every((r) => r.status === 200 || r.status === 429));
  for (const r of refused) {
    assert.equal(expectError(r, 429, [], 'anonymous'), null);
    const ra = Number(r.headers.get('retry-after'));
    assert.ok(Number.isInteger(ra) && ra >= 1 && ra <= 2, `Retry-After ${r.headers.get('retry-after')}`);
  }
  // the key has its own bucket, apart from the anonymous one (empty now)
  const withKey = { ...b, headers: { 'x-glacier-api-key': k } };
  const k1 = await send(limited.url, withKey), k2 = await send(limited.url, withKey);
  assert.equal(k1.status, 200, k1.text);
  assert.equal(expectError(k2, 429, [], 'the key'), null);
  assert.match(JSON.parse(k2.text).message, /key/);
  const kra = Number(k2.headers.get('retry-after'));
  assert.ok(Number.isInteger(kra) && kra >= 1 && kra <= 10, `Retry-After ${k2.headers.get('retry-after')}`);
  // after its Retry-After, an address is served again
  const last = refused.at(-1);
  await new Promise((res) => setTimeout(res, 1000 * Number(last.headers.get('retry-after')) + 200));
  const again = await send(limited.url, b);
  assert.equal(again.status, 200, again.text);
});

// ---- CORS ---------------------------------------------------------------------------------------------------------------

test('CORS: a preflight is answered for allowed origins, with the headers the SDK sends; others get no grant', async () => {
  const strictOrigins = await startApi(ds.store, ['--allowed-origins', 'https://wallet.example, https://explorer.example', '--rate-anonymous', '0']);
  hosts.push(strictOrigins);
  const route = ROUTES.find((x) => x.bodyAddresses);
  const path = baseRequest(route).path;
  const pre = (port, origin) => httpRaw(port, { method: 'OPTIONS', path, headers: {
    Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-glacier-api-key',
  } });
  for (const [host, origin, granted] of [[api, 'https://anything.example', true], [strictOrigins, 'https://explorer.example', true], [strictOrigins, 'https://evil.example', false]]) {
    const r = await pre(host.port, origin);
    assert.equal(r.status, 204);
    assert.equal(r.text, '');
    if (granted) {
      assert.ok(['*', origin].includes(r.headers['access-control-allow-origin']), `ACAO ${r.headers['access-control-allow-origin']}`);
      const methods = r.headers['access-control-allow-methods'].split(/,\s*/);
      assert.ok(methods.includes('GET') && methods.includes('POST'));
      const hdrs = r.headers['access-control-allow-headers'].toLowerCase().split(/,\s*/);
      for (const h of ['content-type', 'x-glacier-api-key', 'x-data-api-key']) assert.ok(hdrs.includes(h), `allows ${h}`);
    } else {
      assert.equal(r.headers['access-control-allow-origin'], undefined);
    }
    // and the request itself
    const g = await httpRaw(host.port, { method: 'GET', path: url('', baseRequest(ROUTES.find((x) => x.name === 'vertices')).path, []), headers: { Origin: origin } });
    assert.equal(g.status, 200);
    assert.equal(g.headers['access-control-allow-origin'] !== undefined, granted);
    assert.match(g.headers.vary ?? '', /Origin/);
  }
});
