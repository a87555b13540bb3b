/**
 * GET ?action=events[&limit=20][&cursor=...]: the caller's events oldest first, in the mode
 * of the caller's key, exactly as its webhook receives them, for partners who cannot receive
 * callbacks. `next_cursor` is always present: poll again with it to get only what was
 * recorded since, never an event twice and never one skipped.
 */
import { type Action, accountOf } from './action.js';
import { FieldReader, pageQuery } from './params.js';

export const events: Action = {
  method: 'GET',
  scope: 'read',
  async handle({ caller, query, core }) {
    const fields = new FieldReader(query);
    const page = pageQuery(fields);
    fields.done();

    const res = await core.events.listEvents({ ...accountOf(caller), ...page });
    // The core hands each event's body as recorded; it is passed on unchanged.
    return {
      httpStatus: 200,
      body: {
        status: 'success',
        events: res.events.map((event) => JSON.parse(event.bodyJson) as unknown),
        next_cursor: res.nextPageToken,
      },
    };
  },
};
