import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the source got. */
export interface SourceRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * How the source answers a path: a status, a JSON body (or raw text or bytes with a content type), or
 * never. A JSON answer can wait `delayMs` first, as a slow source does.
 */
export type SourceAnswer =
  | { status?: number; json: unknown; headers?: Record<string, string>; delayMs?: number }
  | { status?: number; text: string | Uint8Array; contentType?: string; headers?: Record<string, string> }
  | { hang: true }
  | { reset: true };

/**
 * An HTTP source of KPI values on a free port of this machine, as a tenant's billing API or support
 * desk would answer: each path answers what the test set (`answers[path]`, default 404), and every
 * request is recorded. `/token` can play an OAuth2 token endpoint the same way.
 */
export const startPullSource = async () => {
  const answers: Record<string, SourceAnswer> = {};
  const received: SourceRequest[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = (request.url ?? '/').split('?')[0] as string;
      received.push({
        method: request.method ?? '',
        path,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const answer = answers[path];
      if (!answer) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such path"}');
      } else if ('hang' in answer) {
        hanging.push(response);
      } else if ('reset' in answer) {
        response.socket?.destroy();
      } else if ('json' in answer) {
        setTimeout(() => {
          response
            .writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers })
            .end(JSON.stringify(answer.json));
        }, answer.delayMs ?? 0);
      } else {
        response
          .writeHead(answer.status ?? 200, {
            'content-type': answer.contentType ?? 'text/plain',
            ...answer.headers,
          })
          .end(answer.text);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    url: (path: string) => `${base}${path}`,
    answers,
    received,
    requestsTo: (path: string) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.socket?.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

export type PullSource = Awaited<ReturnType<typeof startPullSource>>;
