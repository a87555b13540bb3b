/**
 * `npm test`'s runner: uvu over every *.test.ts under test/, then one plain closing line
 * ("N passed, N failed, N skipped") that CI and people can read at a glance. Exits non-zero
 * when any test failed or when no test ran at all.
 */
import { spawn } from 'node:child_process';

const child = spawn(process.execPath, ['--import', 'tsx', 'node_modules/uvu/bin.js', 'test', '\\.test\\.ts$'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let output = '';
child.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  output += chunk.toString('utf8');
});
child.on('close', (code) => {
  // uvu colours its summary; strip the escapes before reading the numbers.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is what this pattern is for.
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  const count = (label: string) =>
    Number(/\s*(\d+)/.exec(plain.slice(plain.lastIndexOf(`${label}:`) + label.length + 1))?.[1] ?? NaN);
  const total = count('Total');
  const passed = count('Passed');
  const skipped = count('Skipped');
  if (!Number.isFinite(total) || total === 0) {
    console.log('\n0 passed, 0 failed: no test ran');
    process.exit(1);
  }
  // uvu's Total counts the tests that ran; `test.skip` ones are only in Skipped, never in Total.
  const failed = total - passed;
  console.log(`\nTests: ${passed} passed, ${failed} failed, ${Number.isFinite(skipped) ? skipped : 0} skipped`);
  process.exit(code === 0 && failed === 0 ? 0 : 1);
});
