// Verifies the Prepaid-Signature header of a webhook delivery (Node.js 18 or later).
// `payload` is the raw body exactly as received (a string or Buffer, before any JSON parsing);
// `secret` is your whsec_... webhook secret.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function prepaidSignatureIsValid(payload, header, secret, toleranceSeconds = 300) {
  let timestamp;
  const signatures = [];
  for (const part of String(header ?? '').split(',')) {
    const at = part.indexOf('=');
    if (at === -1) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't') timestamp = value;
    else if (key === 'v1') signatures.push(value);
  }
  if (timestamp === undefined || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest();
  // During a secret rotation the header carries one v1 per secret: any one is enough.
  return signatures.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

// In your webhook endpoint (node:http; with Express use express.raw({ type: 'application/json' })):
//   const chunks = [];
//   for await (const chunk of req) chunks.push(chunk);
//   const payload = Buffer.concat(chunks);
//   if (!prepaidSignatureIsValid(payload, req.headers['prepaid-signature'], process.env.PREPAID_WEBHOOK_SECRET)) {
//     res.writeHead(400).end();
//     return;
//   }
//   const event = JSON.parse(payload.toString('utf8'));
//   // Ignore an event id you have already handled: the same event may arrive twice.
//   res.writeHead(200).end();
