// Every subcommand, as `snowline --help` lists them (so a new one is covered
// at once): its own --help (exit 0), an unknown option and a bad number each
// refused with exit 2 and a message that starts with "snowline <command>:"
// and names the option and why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { BIN } from './lib.mjs';

const run = (args) => spawnSync(BIN, args, { encoding: 'utf8', timeout: 20000 });

const top = run(['--help']);
const commands = [...top.stdout.matchAll(/^ {2}([a-z]+) {2,}\S/gm)].map((m) => m[1]);

test('snowline --help lists the subcommands; no command or an unknown one is exit 2', () => {
  assert.equal(top.status, 0);
  assert.deepEqual([...commands].sort(), ['api', 'decode', 'devnet', 'dump', 'index', 'node', 'up']);
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
