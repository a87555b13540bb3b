/** Identity levels on the SQLite adapter, on a fresh file per test (levels-conformance.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../../core/store/sqlite/index.js';
import { levelsConformance } from './levels-conformance.js';

levelsConformance('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'prepaid-levels-'));
  const store = openSqliteStore({ filename: join(dir, 'prepaid.db') });
  return {
    store,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
