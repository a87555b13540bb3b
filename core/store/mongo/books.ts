/** The books on MongoDB: the journal collection's reads and the operator's own entries. */
import type { BooksStore } from '../port.js';
import type { MongoContext } from './context.js';

export function createBooksStore(_ctx: MongoContext): BooksStore {
  const unbuilt = (): never => {
    throw new Error('store: the books are not built on MongoDB yet');
  };
  return { sums: async () => unbuilt(), entriesOf: async () => unbuilt(), bookOwn: async () => unbuilt() };
}
