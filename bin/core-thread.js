// The core's worker thread entry for `npm start` (bin/start.ts). Built (dist/bin, see
// bin/build.js) it loads the built core beside it. From the sources (`npm run dev`, the
// tests) it registers tsx first: worker threads do not inherit the main thread's loader.
import { existsSync } from 'node:fs';

const built = new URL('../core/thread.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../core/thread.ts');
}
