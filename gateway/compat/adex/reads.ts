/**
 * The Adex reads (docs/compat.md, Adex paths): the login at `/api/user` (the AccessToken and the
 * balance in every place a client of the family reads it), and the meter and smart card checks
 * at `/api/bill/bill-validation` and `/api/cable/cable-validation`, which the family's clients
 * call with their Basic credentials and no login.
 */
import { allowsScope } from '../../../core/domain/key-controls.js';
import { accountOf } from '../../actions/action.js';
import { naira } from '../../actions/views.js';
import { ApiError, toApiError } from '../../errors.js';
import type { CompatAnswer, CompatRequest } from '../dialect.js';
import { lookUp, meterTypeOf } from '../msorg/ids.js';
import { MsorgInput } from '../msorg/input.js';
import { nairaText } from '../msorg/records.js';
import { failAnswer, refusalAnswer } from './answers.js';
import { adexTokenOf, basicOf, sameUsername } from './auth.js';
import { CABLE_FIELD, CABLE_IDS, DISCO_IDS } from './ids.js';

/**
 * `GET` or `POST /api/user`: with Basic credentials, the login (the user name must be the
 * token's account id); with `Token`, the same answer, so a client that only reads its balance
 * there works too. The AccessToken is the compatible token the client presented: it is never
 * stored anywhere but as the core's hash, and the client sends it back as `Token <AccessToken>`.
 */
export async function login(request: CompatRequest): Promise<CompatAnswer> {
  const basic = basicOf(request.headers);
  if (basic !== undefined && !sameUsername(basic.username, request.caller.accountId)) {
    return failAnswer(401, 'Invalid username or password.');
  }
  const token = adexTokenOf(request.headers) ?? '';
  const body = { status: 'success', AccessToken: token, username: request.caller.accountId };
  // Any token may log in; only one whose key may read the balance is told it.
  if (!allowsScope(request.caller.scopes, 'balance')) return { status: 200, body };
  const { balanceKobo } = await request.core.purchase.getBalance(accountOf(request.caller));
  return {
    status: 200,
    body: {
      ...body,
      balance: nairaText(balanceKobo),
      wallet_balance: nairaText(balanceKobo),
      user: {
        username: request.caller.accountId,
        Account_Balance: naira(balanceKobo),
        wallet_balance: nairaText(balanceKobo),
      },
    },
  };
}

/** A failed check: `status` `fail` and no `name`, so no client takes it as a customer. */
function checkRefused(request: CompatRequest, error: unknown): CompatAnswer {
  const apiError = error instanceof ApiError ? error : toApiError(error, request.log);
  if (apiError.status >= 500) throw apiError;
  return refusalAnswer(apiError);
}

const inputOf = (request: CompatRequest) => new MsorgInput(request.query.size > 0 ? request.query : request.body);

/** `GET /api/bill/bill-validation?meter_type=&disco=&meter_number=`: who owns a meter. */
export async function validateMeter(request: CompatRequest): Promise<CompatAnswer> {
  const input = inputOf(request);
  const disco = lookUp(DISCO_IDS, input.raw('disco', 'disco_id', 'disconame'));
  if (disco === undefined) input.reject('disco', 'A valid disco id is required (1 to 10).');
  const meterNumber = input.text(['meter_number', 'meternumber'], true);
  const meterType = meterTypeOf(input.raw('meter_type', 'mtype', 'MeterType'));
  if (meterType === undefined) input.reject('meter_type', 'meter_type must be 1 or prepaid, 2 or postpaid.');
  try {
    input.done();
    const res = await request.core.purchase.verifyCustomer({
      ...accountOf(request.caller),
      disco: disco!.ours,
      meterNumber,
      meterType: meterType!,
      provider: '',
      smartCard: '',
    });
    return {
      status: 200,
      body: {
        status: 'success',
        name: res.customerName,
        Customer_Name: res.customerName,
        address: res.address ?? '',
        meter_number: res.customerNumber,
        meter_type: res.meterType,
      },
    };
  } catch (error) {
    return checkRefused(request, error);
  }
}

/** `GET /api/cable/cable-validation?iuc=&cable=`: who owns a smart card. */
export async function validateIuc(request: CompatRequest): Promise<CompatAnswer> {
  const input = inputOf(request);
  const cable = lookUp(CABLE_IDS, input.raw(CABLE_FIELD, 'cable_id', 'cablename'));
  if (cable === undefined) input.reject(CABLE_FIELD, 'A valid cable id is required (1 GOTV, 2 DSTV, 3 STARTIME).');
  const smartCard = input.text(['iuc', 'smart_card_number'], true);
  try {
    input.done();
    const res = await request.core.purchase.verifyCustomer({
      ...accountOf(request.caller),
      disco: '',
      meterNumber: '',
      meterType: '',
      provider: cable!.ours,
      smartCard,
    });
    return {
      status: 200,
      body: { status: 'success', name: res.customerName, iuc: smartCard, current_bouquet: res.currentBouquet ?? '' },
    };
  } catch (error) {
    return checkRefused(request, error);
  }
}
