/**
 * The sign-up RPCs of prepaid.v1.HolderService (docs/sign-up.md): the form's answer, the
 * email link and the phone code. The handlers only translate: the rules live in
 * core/people/sign-up.ts and core/people/verification.ts.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { type HolderService as HolderServiceDesc, SignUpOutcome } from '../../gen/prepaid/v1/holder_pb.js';
import { liveAllowed } from '../domain/sign-up.js';
import type { Onboarding } from '../people/onboarding.js';
import type { PeopleService } from '../people/service.js';
import type { Handlers } from './grpc.js';

type SignUpMethods = Pick<
  (typeof HolderServiceDesc)['method'],
  | 'getSignUpForm'
  | 'signUp'
  | 'getVerification'
  | 'verifyEmail'
  | 'resendEmailLink'
  | 'sendPhoneCode'
  | 'confirmPhoneCode'
>;

export function signUpHandlers(people: PeopleService, { signUps, verification, mailConfigured }: Onboarding) {
  const owner = async (token: string, formAccountId: string) => {
    const context = await people.authenticate(token);
    people.requireFormAccount(context, formAccountId);
    people.requireOwner(context);
    return context;
  };
  const handlers: Handlers<SignUpMethods> = {
    async getSignUpForm() {
      return { open: signUps.signUpMode === 'open', mailConfigured };
    },
    async signUp(req) {
      const input = { name: req.name, email: req.email, phone: req.phone, password: req.password };
      const answer = await signUps.signUp(input, req.clientIp);
      if (answer.outcome === 'closed') return { outcome: SignUpOutcome.CLOSED };
      if (answer.outcome === 'throttled')
        return { outcome: SignUpOutcome.THROTTLED, retryAfterSeconds: answer.retryAfterSeconds };
      return { outcome: SignUpOutcome.ACCEPTED, mailConfigured: answer.mailConfigured };
    },
    async getVerification(req) {
      return verification.verificationState(await people.authenticate(req.sessionToken));
    },
    async verifyEmail(req) {
      const account = await verification.verifyEmail(req.emailToken);
      return { accountId: account.accountId, liveAllowed: liveAllowed(account) };
    },
    async resendEmailLink(req) {
      return verification.resendEmailLink(await owner(req.sessionToken, req.formAccountId));
    },
    async sendPhoneCode(req) {
      const sent = await verification.sendPhoneCode(await owner(req.sessionToken, req.formAccountId));
      return { phoneMasked: sent.phoneMasked, expiresAt: timestampFromDate(sent.expiresAt) };
    },
    async confirmPhoneCode(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      return { liveAllowed: liveAllowed(await verification.confirmPhoneCode(context, req.code)) };
    },
  };
  return handlers;
}
