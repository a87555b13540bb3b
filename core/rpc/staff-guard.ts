/**
 * The console's role check, made once for every RPC before its handler runs: the session is
 * looked up and the power its method needs (`CONSOLE_POWERS` in `core/rpc/policies.ts`) checked
 * against the member's role by `StaffRealm.require`; the handler gets who the session acts for.
 */
import type { MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import type { GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import type { ServerUnaryCall } from '@grpc/grpc-js';
import type { StaffPower } from '../domain/staff.js';
import type { StaffContext, StaffRealm } from '../staff/realm.js';
import type { Handlers } from './grpc.js';
import type { PowerTable } from './policies.js';

/** A staff RPC's handler, given the checked session's context. */
export type StaffHandlers<S extends GenServiceMethods> = {
  [K in keyof S]: (
    request: MessageShape<S[K]['input']>,
    staff: StaffContext,
    call: ServerUnaryCall<unknown, unknown>,
  ) => Promise<MessageInitShape<S[K]['output']>>;
};

/** Every staff RPC's request names its session and the address the console saw. */
interface SessionRequest {
  sessionToken: string;
  clientAddress: string;
}

export function staffGuarded<S extends GenServiceMethods, SignedOut extends keyof S>(
  realm: Pick<StaffRealm, 'require'>,
  powers: PowerTable<S, SignedOut>,
  handlers: StaffHandlers<Omit<S, SignedOut>>,
): Handlers<Omit<S, SignedOut>> {
  const guarded = {} as Handlers<Omit<S, SignedOut>>;
  for (const name of Object.keys(powers) as (keyof PowerTable<S, SignedOut> & string)[]) {
    const needs = powers[name] as StaffPower | ((request: never) => StaffPower);
    const handler = handlers[name as keyof Omit<S, SignedOut>];
    guarded[name as keyof Omit<S, SignedOut>] = (async (request: MessageShape<S[keyof S]['input']>, call) => {
      const { sessionToken, clientAddress } = request as unknown as SessionRequest;
      const power = typeof needs === 'function' ? needs(request as never) : needs;
      const staff = await realm.require(sessionToken, power, clientAddress);
      return handler(request as never, staff, call);
    }) as Handlers<Omit<S, SignedOut>>[keyof Omit<S, SignedOut>];
  }
  return guarded;
}
