import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP proxy on 127.0.0.1 between a client and the local stack, for fault injection over the
 * wire (a 429 and a 503 during a `kpi-push` run). Each request is recorded, then `plan`
 * decides: forward it to the stack, answer it here, or drop the connection (a network error).
 */
export interface ProxiedRequest {
  /** 1-based position among all requests the proxy received. */
  n: number;
  method: string;
  url: string;
  body: string;
}

export type Decision =
  | 'forward'
  | 'drop'
  | { status: number; headers?: Record<string, string>; body?: string };

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'host',
  'content-encoding',
]);

export const startFaultProxy = async (
  upstreamOrigin: string,
  plan: (request: ProxiedRequest) => Decision,
) => {
  const requests: ProxiedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request: ProxiedRequest = {
      n: requests.length + 1,
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(request);
    const decision = plan(request);
    if (decision === 'drop') {
      req.socket.destroy();
      return;
    }
    if (decision !== 'forward') {
      res.writeHead(decision.status, decision.headers ?? {});
      res.end(decision.body ?? '');
      return;
    }
    const headers = Object.entries(req.headers).flatMap(([name, value]) =>
      HOP_BY_HOP.has(name) || value === undefined ? [] : [[name, String(value)] as [string, string]],
    );
    const upstream = await fetch(`${upstreamOrigin}${request.url}`, {
      method: request.method,
      headers,
      body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
    });
    const body = Buffer.from(await upstream.arrayBuffer());
    const responseHeaders: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) responseHeaders[name] = value;
    });
    res.writeHead(upstream.status, responseHeaders);
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
