// `npm run build` (and before every `npm start`): the TypeScript of the running service,
// transpiled once into dist/ with esbuild, the same transform tsx applies at run time.
//
// Why not run the sources through tsx as the tests do: tsx transpiles with esbuild's
// `keepNames`, which wraps every function created at run time in a call that renames it;
// a request creates dozens of small closures, and under load that measurably cost the
// service (the airtime scenario of `npm run bench` used about 7% more CPU per purchase).
// Types are not checked here; `npm test` does that (tsc --noEmit) before anything runs.

import { copyFileSync, cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.resolve(root, process.argv[2] ?? 'dist');
/** What `npm start` runs, the benchmark's own servers (so they run the same way), and the admin CLI. */
const SOURCES = ['bin', 'cli', 'console', 'core', 'dashboard', 'gateway', 'runtime', 'web', 'gen', 'bench'];

function typescriptFiles(dir) {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return typescriptFiles(relative);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [relative] : [];
  });
}

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: SOURCES.flatMap(typescriptFiles),
  outdir,
  outbase: '.',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Stack traces in logs point at the TypeScript (npm start runs node --enable-source-maps).
  sourcemap: true,
  logLevel: 'warning',
});
// The core thread's entry is JavaScript already; next to dist/core it loads the built core.
mkdirSync(path.join(outdir, 'bin'), { recursive: true });
copyFileSync(path.join(root, 'bin', 'core-thread.js'), path.join(outdir, 'bin', 'core-thread.js'));
// The dashboard's stylesheet and script are files it serves as they are (dashboard/server.ts
// reads them beside its own module).
cpSync(path.join(root, 'dashboard', 'static'), path.join(outdir, 'dashboard', 'static'), { recursive: true });
cpSync(path.join(root, 'console', 'static'), path.join(outdir, 'console', 'static'), { recursive: true });
