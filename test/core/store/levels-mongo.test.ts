/**
 * Identity levels on the MongoDB adapter (levels-conformance.ts), on a fresh database per test.
 * It needs MONGODB_URI pointing at a replica set; without it the file says so and counts one
 * skipped test.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { openMongoStore } from '../../../core/store/mongo/index.js';
import { suite } from '../../helpers/suite.js';
import { levelsConformance } from './levels-conformance.js';

const uri = process.env['MONGODB_URI']?.trim() ?? '';

if (uri === '') {
  console.log('mongo identity levels: SKIPPED (set MONGODB_URI to a replica set to run it)');
  const skipped = suite('mongo identity levels (MONGODB_URI not set)');
  skipped.skip('the identity levels suite', () => {});
  skipped.run();
} else {
  levelsConformance('mongo', async () => {
    const dbName = `prepaid_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const store = await openMongoStore({ uri, dbName });
    return {
      store,
      async cleanup() {
        await store.close();
        const client = new MongoClient(uri);
        try {
          await client.db(dbName).dropDatabase();
        } finally {
          await client.close();
        }
      },
    };
  });
}
