/**
 * GET ?action=packages[&provider=dstv]: the active cable TV packages at the price this account
 * pays, with the package_code a cable purchase names. An unknown provider is the core's 422.
 */
import { type Action, accountOf } from './action.js';
import { FieldReader } from './params.js';
import { naira } from './views.js';

export const packages: Action = {
  method: 'GET',
  scope: 'read',
  async handle({ caller, query, core }) {
    const fields = new FieldReader(query);
    const provider = fields.optionalString('provider');
    fields.done();

    const res = await core.purchase.listPackages({ ...accountOf(caller), provider });
    return {
      httpStatus: 200,
      body: {
        status: 'success',
        packages: res.packages.map((pkg) => ({
          provider: pkg.provider,
          package_code: pkg.packageCode,
          package: pkg.name,
          price: naira(pkg.priceKobo),
        })),
      },
    };
  },
};
