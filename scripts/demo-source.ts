/**
 * `npm run demo:source`: the demo's source of KPI values on this machine, what a support desk's API
 * would answer (http://127.0.0.1:4010/support-desk/stats, bearer token `demo-source-token`). The demo
 * tenant Acme's pull integration "Support desk backlog" fetches it; `npm run pull:run` runs it. The
 * backlog shrinks by a ticket a minute, so every run stores a new value. Ctrl+C stops it.
 */
import { createServer } from 'node:http';
import { DEMO_SOURCE_PORT } from './seed';

const started = Date.now();

const server = createServer((request, response) => {
  const path = (request.url ?? '/').split('?')[0];
  if (path !== '/support-desk/stats') {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    return;
  }
  if (request.headers.authorization !== 'Bearer demo-source-token') {
    response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
    return;
  }
  const minutes = Math.floor((Date.now() - started) / 60_000);
  const body = { tickets: { open: Math.max(0, 120 - minutes), goal: 80 }, asOf: new Date().toISOString() };
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
});

server.listen(DEMO_SOURCE_PORT, '127.0.0.1', () => {
  console.log(`Demo source on http://127.0.0.1:${DEMO_SOURCE_PORT}/support-desk/stats (Ctrl+C stops it)`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => server.close(() => process.exit(0)));
