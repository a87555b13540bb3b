/**
 * GET ?action=events[&limit=20][&cursor=...]: the caller's events oldest first, exactly as
 * its webhook receives them (in the mode of the caller's key), for partners who cannot receive callbacks. `next_cursor` is
 * always present: poll again with it to get only what was recorded since, never an event
 * twice and never one skipped.
 */
import { type Action, accountOf } from './action.js';
import { FieldReader } from './params.js';

/** The range of the contract's int32 `page_size`; a limit beyond it is refused by the core like any size out of bounds. */
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export const events: Action = {
  method: 'GET',
  async handle({ caller, query, core }) {
    const fields = new FieldReader(query);
    const limit = fields.optionalInteger('limit');
    const cursor = fields.optionalString('cursor');
    fields.done();

    const pageSize = limit === undefined ? undefined : Math.min(INT32_MAX, Math.max(INT32_MIN, limit));
    const res = await core.events.listEvents({ ...accountOf(caller), pageSize, pageToken: cursor });
    // The core hands each event's body as recorded; it is passed on unchanged.
    return {
      httpStatus: 200,
      body: { status: 'success', events: res.events.map((event) => JSON.parse(event.bodyJson) as unknown), next_cursor: res.nextPageToken },
    };
  },
};
