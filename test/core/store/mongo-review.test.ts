/**
 * The third MongoDB review (issue #30), for what is MongoDB's alone and needs no server: the
 * shapes of the commands, filters and pipelines the adapter sends, built by the same
 * functions the adapter calls. What both adapters share is pinned in conformance.ts; what
 * needs a replica set is in mongo-replica.test.ts.
 */
import type { Db, Document } from 'mongodb';
import * as assert from 'uvu/assert';
import { INDEX_BUILD_OPTIONS, schemaTarget } from '../../../core/store/mongo/schema.js';
import { suite } from '../../helpers/suite.js';

const builds = suite('mongo review: index builds');

builds('every index build commits once a majority of the voting members has it', async () => {
  assert.equal(INDEX_BUILD_OPTIONS, { commitQuorum: 'majority' });
  const sent: Document[] = [];
  const db = {
    collection: (name: string) => ({
      createIndexes: async (indexes: Document[], options: Document) => {
        sent.push({ name, indexes, options });
        return indexes.map((index) => index['name']);
      },
    }),
  } as unknown as Db;
  await schemaTarget(db).createIndexes('ledger_entries', [{ name: 'x', key: { a: 1 } }]);
  assert.equal(sent, [{ name: 'ledger_entries', indexes: [{ name: 'x', key: { a: 1 } }], options: { commitQuorum: 'majority' } }]);
});

builds.run();
