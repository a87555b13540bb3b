/** prepaid.v1.EventService: the events feed the gateway serves as `?action=events`. No rule lives here. */
import type { EventService as EventServiceDesc } from '../../gen/prepaid/v1/webhooks_pb.js';
import type { EventFeed } from '../webhooks/feed.js';
import { modeIn } from './convert.js';
import type { Handlers } from './grpc.js';

export function eventHandlers(feed: EventFeed): Handlers<(typeof EventServiceDesc)['method']> {
  return {
    async listEvents(req) {
      const page = await feed.list(req.accountId, modeIn(req.mode), req.pageSize, req.pageToken);
      return {
        events: page.events.map((event) => ({ eventId: event.eventId, type: event.type, bodyJson: event.body })),
        nextPageToken: page.next,
      };
    },
  };
}
