/**
 * Chooses the store from the configuration: MongoDB when MONGODB_URI is set, the embedded
 * SQLite file in DATA_DIR otherwise. Both adapters pass the same conformance suite
 * (test/core/store/), so nothing above this file knows which one it got.
 */
import path from 'node:path';
import { openMongoStore } from './mongo/index.js';
import type { Store } from './port.js';
import { openSqliteStore } from './sqlite/index.js';

/** Database file of the embedded store inside DATA_DIR. */
export const SQLITE_FILE = 'prepaid.sqlite';

/**
 * What the store is chosen from. The store sits below the configuration and the logging
 * of the process, so it names the shapes it needs here and the core's config (whose
 * MongoConfig has this shape) and logger are handed in.
 */
export interface StoreConfig {
  dataDir: string;
  mongo: { uri: string; dbName: string } | null;
}

/** Where the store says which one it opened. */
export type StoreLog = (event: string, fields: Record<string, unknown>) => void;

/**
 * Opens the configured store and logs which one it is. A MongoDB deployment that cannot
 * hold the money safely (standalone, too old) is refused here, before the core listens.
 */
export async function openStore(config: StoreConfig, log: StoreLog): Promise<Store> {
  if (config.mongo === null) {
    const filename = path.join(config.dataDir, SQLITE_FILE);
    const store = openSqliteStore({ filename });
    log('store.opened', { store: 'sqlite', file: filename });
    return store;
  }
  const store = await openMongoStore({ uri: config.mongo.uri, dbName: config.mongo.dbName, warn: log });
  log('store.opened', {
    store: 'mongo',
    hosts: mongoHosts(config.mongo.uri),
    db: store.deployment.dbName,
    topology: store.deployment.topology,
    server_version: store.deployment.serverVersion,
  });
  return store;
}

/**
 * The scheme and hosts of a connection string, for logs: the user name, password and
 * options (which can hold tokens) are left out.
 */
export function mongoHosts(uri: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/)(?:[^/?#]*@)?([^/?#]*)/.exec(uri);
  return match === null ? '(unparseable connection string)' : `${match[1]}${match[2]}`;
}
