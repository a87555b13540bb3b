/** Baseline: the HTTP ceiling. A bare node:http server answering one fixed JSON body. */
import http from 'node:http';
import { announce } from './announce.js';

const body = JSON.stringify({ status: 'success', balance: 10000, tier: 'API Client' });
/** BARE_DELAY_MS: answer after this long (the slow-upstream scenario's load, with nothing behind it). */
const delayMs = Number(process.env['BARE_DELAY_MS'] ?? 0);
const answer = (res: http.ServerResponse) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
};
const server = http.createServer((_req, res) => (delayMs > 0 ? setTimeout(answer, delayMs, res) : answer(res)));
server.listen(0, '127.0.0.1', () => announce(server));
