/** prepaid.v1.AuthService: the gateway's key-pair check. */
import type { AuthService as AuthServiceDesc } from '../../gen/prepaid/v1/auth_pb.js';
import type { CompatService } from '../accounts/compat.js';
import type { AccountService } from '../accounts/service.js';
import { compatAuthHandlers } from './compat.js';
import { MODE_TO_PROTO } from './convert.js';
import type { Handlers } from './grpc.js';

export function authHandlers(
  accounts: AccountService,
  compat: CompatService,
): Handlers<(typeof AuthServiceDesc)['method']> {
  return {
    ...compatAuthHandlers(compat),
    async verifyKeyPair(req) {
      const verified = await accounts.verifyKeyPair(req.publicKey, req.secretKey, req.clientIp);
      return {
        accountId: verified.accountId,
        tierId: verified.tierId,
        mode: MODE_TO_PROTO[verified.mode],
        scopes: [...verified.scopes],
        spendCapped: verified.spendCapped,
      };
    },
  };
}
