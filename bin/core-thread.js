// The core's worker thread entry for `npm start` (bin/start.ts). Worker threads do not
// inherit the tsx loader of the main thread, so this registers it before loading the core.
import { register } from 'tsx/esm/api';

register();
await import('../core/worker.ts');
