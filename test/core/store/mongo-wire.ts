/**
 * A fake MongoDB server that speaks just enough of the wire protocol for the official
 * driver to connect: it answers the handshake and `hello` with a reply the test chooses
 * (standalone, replica set member, mongos, any wire version) and refuses every other
 * command, unless the test answers it (`answer`), or keeps silent on it, as a stalled
 * server does. It is the outer edge the start-up guard meets, so the guard can be tested
 * through the real driver on a machine without MongoDB; it stores nothing.
 *
 * Messages: OP_QUERY (2004) carries the driver's first handshake and is answered with
 * OP_REPLY (1); everything after is OP_MSG (2013), answered in kind. Each message starts
 * with a 16-byte header: length, request id, response-to id, op code (int32 LE each).
 */
import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import { BSON, type Document } from 'mongodb';

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;
const HEADER_BYTES = 16;
/** OP_MSG flag: a CRC-32C checksum follows the sections. */
const CHECKSUM_PRESENT = 1;

/** How the fake describes itself in `hello`. */
export interface FakeTopology {
  /** A replica set name makes it a primary of that set. */
  setName?: string;
  /** true makes it a mongos router ("isdbgrid"). */
  mongos?: boolean;
  maxWireVersion: number;
  /** Leave out logicalSessionTimeoutMinutes, as a server without sessions does. */
  noSessions?: boolean;
  /**
   * The reply to a command other than hello: a document, SILENCE to never answer it (a
   * stalled server), or undefined for the default refusal.
   */
  answer?: (name: string, command: Document) => Document | typeof SILENCE | undefined;
}

/** What `answer` returns for a command the fake must never answer. */
export const SILENCE = Symbol('silence');

/** A running fake, its address, and the commands it was sent. */
export interface FakeMongo {
  /** mongodb://127.0.0.1:<port>/ */
  uri: string;
  /** Names of the commands received besides hello, in order. */
  commands: string[];
  /** Connections the driver still has open to the fake. */
  openConnections(): number;
  close(): Promise<void>;
}

export async function startFakeMongo(topology: FakeTopology): Promise<FakeMongo> {
  const commands: string[] = [];
  const sockets = new Set<net.Socket>();
  let connectionId = 0;
  let port = 0;

  const hello = (): Document => ({
    helloOk: true,
    isWritablePrimary: true,
    ismaster: true,
    ...(topology.mongos ? { msg: 'isdbgrid' } : {}),
    ...(topology.setName !== undefined
      ? {
          setName: topology.setName,
          setVersion: 1,
          hosts: [`127.0.0.1:${port}`],
          primary: `127.0.0.1:${port}`,
          me: `127.0.0.1:${port}`,
        }
      : {}),
    maxBsonObjectSize: 16 * 1024 * 1024,
    maxMessageSizeBytes: 48_000_000,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    ...(topology.noSessions ? {} : { logicalSessionTimeoutMinutes: 30 }),
    connectionId,
    minWireVersion: 0,
    maxWireVersion: topology.maxWireVersion,
    readOnly: false,
    ok: 1,
  });

  const answer = (command: Document): Document | typeof SILENCE => {
    const name = Object.keys(command)[0] ?? '';
    if (['hello', 'ismaster', 'isMaster'].includes(name)) return hello();
    commands.push(name);
    if (name === 'endSessions' || name === 'ping') return { ok: 1 };
    const chosen = topology.answer?.(name, command);
    if (chosen !== undefined) return chosen;
    return { ok: 0, errmsg: `the fake MongoDB does not run ${name}`, code: 59, codeName: 'CommandNotFound' };
  };

  const server = net.createServer((socket) => {
    sockets.add(socket);
    connectionId += 1;
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0);
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        const reply = respond(message, answer);
        if (reply !== null) socket.write(reply);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;

  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    commands,
    openConnections: () => sockets.size,
    async close() {
      if (!server.listening) return;
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

let nextRequestId = 1;

/** Decodes one request and encodes the reply to it; null for a message the fake ignores. */
function respond(message: Buffer, answer: (command: Document) => Document | typeof SILENCE): Buffer | null {
  const requestId = message.readInt32LE(4);
  const opCode = message.readInt32LE(12);
  if (opCode === OP_QUERY) {
    // flags (4), full collection name (cstring), numberToSkip (4), numberToReturn (4), query.
    const nameEnd = message.indexOf(0, HEADER_BYTES + 4);
    const queryAt = nameEnd + 1 + 8;
    const command = BSON.deserialize(message.subarray(queryAt, queryAt + message.readInt32LE(queryAt)));
    const reply = answer(command);
    if (reply === SILENCE) return null;
    const body = BSON.serialize(reply);
    const fixed = Buffer.alloc(20);
    // responseFlags 0, cursorID 0, startingFrom 0, numberReturned 1.
    fixed.writeInt32LE(1, 16);
    return frame(requestId, OP_REPLY, Buffer.concat([fixed, body]));
  }
  if (opCode === OP_MSG) {
    const flags = message.readUInt32LE(HEADER_BYTES);
    const end = message.length - ((flags & CHECKSUM_PRESENT) !== 0 ? 4 : 0);
    let at = HEADER_BYTES + 4;
    let command: Document | undefined;
    while (at < end) {
      const kind = message.readUInt8(at);
      at += 1;
      const size = message.readInt32LE(at);
      // Kind 0 is the command itself; kind 1 (document sequences for inserts) is skipped.
      if (kind === 0) command = BSON.deserialize(message.subarray(at, at + size));
      at += size;
    }
    if (command === undefined) return null;
    const reply = answer(command);
    if (reply === SILENCE) return null;
    const body = BSON.serialize(reply);
    return frame(requestId, OP_MSG, Buffer.concat([Buffer.alloc(4), Buffer.from([0]), body]));
  }
  return null;
}

function frame(responseTo: number, opCode: number, body: Buffer): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeInt32LE(HEADER_BYTES + body.length, 0);
  header.writeInt32LE(nextRequestId++, 4);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(opCode, 12);
  return Buffer.concat([header, body]);
}
