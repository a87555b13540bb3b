/**
 * The funding providers' HTTP calls (Paystack, Monnify): undici's `request` over one keep-alive
 * Agent, rather than the global `fetch`. Every notification re-queries its provider before any
 * credit, so this call is on the notification path's CPU: under the bench's "funding" load
 * `fetch` (its WHATWG Request, Headers and streams) took a fifth of the core's busy time, more
 * than the store's commits (see docs/performance.md). Like `fetch` with `redirect: 'error'`,
 * no redirect is followed: a 3xx answer is an error.
 */
import { Agent, type Dispatcher } from 'undici';

/** Connections at most to one provider's host; idle ones are kept for the next call. */
const MAX_CONNECTIONS_PER_PROVIDER = 64;

const agent = new Agent({ connections: MAX_CONNECTIONS_PER_PROVIDER });

interface ProviderCall {
  method: string;
  headers: Record<string, string>;
  /** JSON text, when the call has a body. */
  body?: string;
  signal: AbortSignal;
}

interface ProviderReply {
  status: number;
  /** The answer's text, at most `maxBytes` bytes of it (a longer answer is an error). */
  text: string;
}

/** One call to a provider; `who` names it in errors ("paystack"). */
export async function callProvider(
  url: string,
  call: ProviderCall,
  maxBytes: number,
  who: string,
): Promise<ProviderReply> {
  const target = new URL(url);
  const answer: Dispatcher.ResponseData = await agent.request({
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: call.method as Dispatcher.HttpMethod,
    headers: call.headers,
    ...(call.body === undefined ? {} : { body: call.body }),
    signal: call.signal,
  });
  if (answer.statusCode >= 300 && answer.statusCode < 400) {
    answer.body.destroy();
    throw new Error(`${who}: redirect refused (${answer.statusCode})`);
  }
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of answer.body as AsyncIterable<Buffer>) {
    read += chunk.length;
    if (read > maxBytes) {
      answer.body.destroy();
      throw new Error(`${who}: answer too large`);
    }
    chunks.push(chunk);
  }
  return { status: answer.statusCode, text: Buffer.concat(chunks).toString('utf8') };
}
