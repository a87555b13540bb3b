/**
 * The repository's Dockerfile and .dockerignore, read as Docker reads them (there is no
 * Docker here): the data directory and its tokens never reach the image, everything the
 * build needs does, the image's Node is one that package.json's `engines` accepts, the
 * container runs node itself (so stdout carries only JSON), and the core's metrics are
 * reachable from outside while the gRPC core stays on loopback.
 */
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { readCoreConfig } from '../../core/config.js';
import { suite } from '../helpers/suite.js';

const test = suite('ops: Dockerfile and .dockerignore');

const dockerfile = readFileSync('Dockerfile', 'utf8');
const ignore = readFileSync('.dockerignore', 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
};

/**
 * Docker's matching of one pattern (Go's filepath.Match, `**` for any number of folders),
 * from the root of the context; a path is left out when it or a folder above it matches.
 */
function patternRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/\/+$/, '')
    .split(/(\*\*\/|\*\*|\*|\?)/)
    .map((part) => {
      if (part === '**/') return '(?:.*/)?';
      if (part === '**') return '.*';
      if (part === '*') return '[^/]*';
      if (part === '?') return '[^/]';
      return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${body}$`);
}

function ignored(file: string): boolean {
  const parts = file.split('/');
  const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  return ignore.some((pattern) => prefixes.some((prefix) => patternRegExp(pattern).test(prefix)));
}

/** The instructions of the Dockerfile, continuation lines joined, comments dropped. */
function instructions(): { op: string; args: string }[] {
  return dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

type Version = [number, number, number];

function version(text: string): Version {
  const [major = 0, minor = 0, patch = 0] = text.split('.').map(Number);
  return [major, minor, patch];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Whether `v` satisfies a range made of `||` clauses of `^x.y.z`, `>=x.y.z` and `<x.y.z`, as engines is. */
function satisfies(v: Version, range: string): boolean {
  return range.split('||').some((clause) =>
    clause
      .trim()
      .split(/\s+/)
      .every((comparator) => {
        const [, op, bound] = /^(\^|>=|<)(\d+\.\d+\.\d+)$/.exec(comparator) ?? [];
        if (bound === undefined) throw new Error(`engines has a comparator this test does not read: ${comparator}`);
        const b = version(bound);
        if (op === '>=') return compare(v, b) >= 0;
        if (op === '<') return compare(v, b) < 0;
        return v[0] === b[0] && compare(v, b) >= 0;
      }),
  );
}

test('the data directory, its tokens and keys, and the local build are left out of the image', () => {
  assert.not.ok(
    ignore.some((pattern) => pattern.startsWith('!')),
    'no exceptions, which the matcher here does not read',
  );
  for (const file of [
    'data/admin.token',
    'data/service.token',
    'data/prepaid.sqlite',
    'data/core.lock',
    'srv/data/admin.token',
    'admin.token',
    'certs/core.pem',
    'certs/core.key',
    '.env',
    'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
    'dashboard/node_modules/x.js',
    'dist/bin/start.js',
    '.git/HEAD',
    'core.log',
    'bench/results-1.json',
  ])
    assert.ok(ignored(file), `${file} is left out`);
});

test('everything the image builds from is sent', () => {
  const needed = [
    'package.json',
    'package-lock.json',
    'bin/build.js',
    'bin/core-thread.js',
    'bin/prepaid.js',
    'dashboard/static/dashboard.css',
    'console/static/console.css',
    // bin/build.js transpiles these folders; a missing one fails the build.
    ...['bin', 'cli', 'console', 'core', 'dashboard', 'gateway', 'runtime', 'web', 'gen', 'bench'].map(
      (dir) => `${dir}/x.ts`,
    ),
    'core/store/sqlite/index.ts',
  ];
  for (const file of needed) assert.not.ok(ignored(file), `${file} is sent`);
});

test("the image's Node is pinned to one release that package.json's engines accepts", () => {
  const froms = instructions().filter((i) => i.op === 'FROM');
  assert.ok(froms.length > 0);
  for (const { args } of froms) {
    const [, tag] = /^node:(\d+\.\d+\.\d+)-[a-z]+-slim(?:\s+AS\s+\w+)?$/i.exec(args) ?? [];
    assert.ok(tag, `FROM ${args} names an exact Node release`);
    assert.ok(satisfies(version(tag!), pkg.engines.node), `Node ${tag} is inside engines ${pkg.engines.node}`);
  }
  // The matcher itself: the releases docs/development.md excludes are refused.
  assert.not.ok(satisfies(version('24.19.0'), pkg.engines.node));
  assert.not.ok(satisfies(version('22.11.0'), pkg.engines.node));
  assert.ok(satisfies(version('24.18.1'), pkg.engines.node));
});

test('the container runs node itself, with the command npm start would exec', () => {
  const cmd = instructions().filter((i) => i.op === 'CMD');
  assert.is(cmd.length, 1);
  const argv = JSON.parse(cmd[0]!.args) as string[];
  assert.is(argv[0], 'node', 'exec form, node first: no npm (its own lines on stdout) and no shell');
  assert.equal(argv, pkg.scripts['start']!.replace(/^exec /, '').split(' '));
  assert.ok(instructions().some((i) => i.op === 'STOPSIGNAL' && i.args === 'SIGTERM'));
});

test("the core's metrics are reachable from outside the container; the gRPC core is not", () => {
  const env = new Map<string, string>();
  for (const { args } of instructions().filter((i) => i.op === 'ENV'))
    for (const pair of args.split(/\s+/)) {
      const [key, value] = pair.split('=');
      env.set(key!, value!);
    }
  const config = readCoreConfig(Object.fromEntries(env));
  assert.is(config.metricsHost, '0.0.0.0');
  assert.is(config.host, '127.0.0.1');
  const exposed = instructions()
    .filter((i) => i.op === 'EXPOSE')
    .flatMap((i) => i.args.split(/\s+/).map(Number));
  assert.ok(exposed.includes(config.metricsPort!), `EXPOSE has the metrics port ${config.metricsPort}`);
  assert.not.ok(exposed.includes(config.port), 'the gRPC port is not exposed');
  assert.equal([env.get('HOST'), env.get('DASHBOARD_HOST')], ['0.0.0.0', '0.0.0.0']);
});

test.run();
