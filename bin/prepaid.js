#!/usr/bin/env node
// The `prepaid` admin CLI (package.json "bin"). The CLI is TypeScript like the rest of the
// project, so this launcher registers tsx's loader before importing it; everything else
// lives in cli/main.ts.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../cli/main.ts');
// exitCode rather than process.exit(): pending stdout writes to a pipe are flushed first,
// and runCli closes its connection, so nothing keeps the process alive.
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: process.env,
});
