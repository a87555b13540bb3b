#!/usr/bin/env node
// The `prepaid` admin CLI (package.json "bin"). The CLI is TypeScript like the rest of the
// project, so this launcher registers tsx's loader before importing it; everything else
// lives in cli/main.ts.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../cli/main.ts');

/**
 * Asks on the terminal without echoing what is typed (the backup passphrase): readline writes
 * the question, then nothing of the answer. Only offered when stdin is a terminal.
 */
async function hiddenPrompt(question) {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  let asked = false;
  rl._writeToOutput = (text) => {
    if (!asked) process.stderr.write(text);
  };
  return new Promise((resolve) => {
    rl.question(question, (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    });
    asked = true;
  });
}

// exitCode rather than process.exit(): pending stdout writes to a pipe are flushed first,
// and runCli closes its connection, so nothing keeps the process alive.
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: process.env,
  ...(process.stdin.isTTY ? { prompt: hiddenPrompt } : {}),
});
