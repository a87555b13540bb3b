/**
 * uvu's `suite`, guarded. uvu's reporter calls `err.details.split()`, and a ConnectError's
 * `details` is an array; a test (or hook) ended by an unexpected gRPC error would crash the
 * reporter, which uvu's runner swallows, dropping the rest of the suite and every message.
 * Every test file takes `suite` from here, so such errors become plain Errors that name the
 * gRPC code and keep their stack.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { type Callback, type Test, suite as uvuSuite } from 'uvu';

function readable(error: unknown): unknown {
  if (!(error instanceof ConnectError)) return error;
  const plain = new Error(`unexpected gRPC error ${Code[error.code]}: ${error.rawMessage}`);
  plain.stack = [plain.message, ...(error.stack ?? '').split('\n').slice(1)].join('\n');
  return plain;
}

function guarded<T>(handler: Callback<T>): Callback<T> {
  return async (context) => {
    try {
      await handler(context);
    } catch (error) {
      throw readable(error);
    }
  };
}

export function suite<T = Record<string, unknown>>(name?: string, state?: T): Test<T> {
  const inner = uvuSuite<T>(name, state);
  const test = ((title: string, handler: Callback<T>) => inner(title, guarded(handler))) as Test<T>;
  test.only = (title, handler) => inner.only(title, guarded(handler));
  test.skip = inner.skip;
  const hook = (register: (h: Callback<T>) => void) => (h: Callback<T>) => register(guarded(h));
  test.before = Object.assign(hook(inner.before), { each: hook(inner.before.each) });
  test.after = Object.assign(hook(inner.after), { each: hook(inner.after.each) });
  test.run = inner.run;
  return test;
}
