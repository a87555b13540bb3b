/** Baseline: the HTTP ceiling. A bare node:http server answering one fixed JSON body. */
import http from 'node:http';
import { announce } from './announce.js';

const body = JSON.stringify({ status: 'success', balance: 10000, tier: 'API Client' });
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => announce(server));
