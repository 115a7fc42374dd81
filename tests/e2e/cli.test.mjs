// Every subcommand, as `snowline --help` lists them (so a new one is covered
// at once): its own --help (exit 0), an unknown option and a bad number each
// refused with exit 2 and a message that starts with "snowline <command>:"
// and names the option and why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempDir, cleanup } from './lib.mjs';

const run = (args) => spawnSync(BIN, args, { encoding: 'utf8', timeout: 20000 });

const top = run(['--help']);
const commands = [...top.stdout.matchAll(/^ {2}([a-z]+) {2,}\S/gm)].map((m) => m[1]);

test('snowline --help lists the subcommands; no command or an unknown one is exit 2', () => {
  assert.equal(top.status, 0);
  assert.deepEqual([...commands].sort(), ['api', 'decode', 'devnet', 'dump', 'index', 'node', 'prices', 'up']);
  for (const args of [[], ['bogus']]) {
    const r = run(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /usage: snowline <command>/);
  }
  assert.match(run(['bogus']).stderr, /unknown command 'bogus'/);
});

for (const cmd of commands) {
  test(`snowline ${cmd}: its own help; bad arguments named, exit 2`, () => {
    const help = run([cmd, '--help']);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, new RegExp(`^usage: snowline ${cmd}\\b`));

    const unknown = run([cmd, '--no-such-option']);
    assert.equal(unknown.status, 2, unknown.stderr);
    assert.match(unknown.stderr, new RegExp(`^snowline ${cmd}: .*'--no-such-option'`));

    // the first numeric option of its help given a word, else the first bool option given "maybe"
    const num = /--([a-z][a-z-]*)[ =]N\b/.exec(help.stdout);
    const flag = num ? null : /--((?!help)[a-z][a-z-]*)\[=bool\]/.exec(help.stdout);
    assert.ok(num || flag, `${cmd}: a numeric or bool option in its help`);
    const [name, value] = num ? [num[1], 'lots'] : [flag[1], 'maybe'];
    const bad = run([cmd, `--${name}=${value}`, ...(cmd === 'decode' ? ['0x00'] : [])]);
    assert.equal(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, new RegExp(`^snowline ${cmd}: .*--${name}.*'${value}'`));
  });
}

// `snowline prices`: a file of prices is checked before any store is opened; a bad line is exit 1
// with the line's number and the field; a store that `snowline index` never made is refused, and
// not made. (Loading into a store, and what the API then shows: dataapi-rewards.test.mjs.)
test('snowline prices: a bad line named by number and field (exit 1); --check; no store made', () => {
  const dir = tempDir('snowline-prices-cli-');
  try {
    const file = (name, text) => { const p = join(dir, name); writeFileSync(p, text); return p; };
    const good = file('good.csv', 'date,currency,price\n2024-01-01,usd,35.27\n2024-01-02,USD,36\r\n\n2024-01-02,eur,33.005\n');
    const ok = run(['prices', '--check', good]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stdout, `${good}: 3 prices\n`);
    const cases = [
      ['2024-01-01,usd,1\n2024-02-30,usd,1\n', /line 2: date '2024-02-30' is not a day YYYY-MM-DD/],
      ['2024-01-01,btc,1\n', /line 1: currency 'btc' is not one of usd eur/],
      ['date,currency,price\n2024-01-01,usd,-3\n', /line 2: price '-3' is not a non-negative decimal/],
      ['2024-01-01,usd,1.5e3\n', /line 1: price '1\.5e3'/],
      ['2024-01-01,usd,0.1234567890123456789\n', /line 1: price .* more than 18 digits after the point/],
      ['2024-01-01,usd,123456789012345678901\n', /line 1: price .* more than 20 digits before the point/],
      ['\n\n2024-01-01;usd;1\n', /line 3: 1 field, want 3: date,currency,price/],
      ['2024-01-01,usd,1,x\n', /line 1: 4 fields, want 3/],
      [`2024-01-01,usd,${'9'.repeat(300)}\n`, /line 1: longer than 256 bytes/],
    ];
    for (const [i, [text, want]] of cases.entries()) {
      const f = file(`bad${i}.csv`, text);
      for (const args of [['--check', f], ['--store', join(dir, 'none.db'), f]]) {
        const r = run(['prices', ...args]);
        assert.equal(r.status, 1, `${JSON.stringify(text)}: ${r.stderr}`);
        assert.match(r.stderr, new RegExp(`^snowline prices: ${f.replace(/[.]/g, '\\.')}: ${want.source}`), JSON.stringify(text));
      }
    }
    // a good file, but no store: refused, and none is made
    const none = join(dir, 'none.db');
    const r = run(['prices', '--store', none, good]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, new RegExp(`^snowline prices: store ${none.replace(/[.]/g, '\\.')}: `));
    assert.ok(!existsSync(none), 'no store was made');
    // the file: one, readable
    for (const args of [[], [good, good]]) {
      const u = run(['prices', ...args]);
      assert.equal(u.status, 2);
      assert.match(u.stderr, /^snowline prices: give one file of prices/);
    }
    const missing = run(['prices', '--check', join(dir, 'missing.csv')]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^snowline prices: cannot read .*missing\.csv: No such file/);
  } finally {
    cleanup(dir);
  }
});
