import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for API Gateway's control plane (no real one runs here), for the operator CLI's usage plan
 * keys: the four REST operations it calls, over real HTTP, in the wire format the AWS SDK speaks, with
 * API Gateway's rule that a key is on at most one usage plan of a stage (409 ConflictException).
 */
export const startControlPlane = async (planNames: string[]) => {
  const plans = planNames.map((name) => ({ id: `plan-${name}`, name }));
  const keys = new Map<string, { id: string; name: string; value: string; tags: Record<string, string> }>();
  const planOf = new Map<string, string>();
  const log: string[] = [];

  const body = async (request: IncomingMessage) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    return text ? JSON.parse(text) : {};
  };

  const server = createServer(async (request, response) => {
    const send = (status: number, payload?: unknown, errorType?: string) => {
      response.writeHead(status, {
        'content-type': 'application/json',
        ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
      });
      response.end(payload === undefined ? '' : JSON.stringify(payload));
    };
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    log.push(`${request.method} ${path}`);
    if (request.method === 'GET' && path === '/usageplans') return send(200, { item: plans });
    if (request.method === 'POST' && path === '/apikeys') {
      const { name, value, tags } = await body(request);
      const key = { id: randomUUID().slice(0, 10), name, value, tags };
      keys.set(key.id, key);
      return send(201, { ...key, enabled: true });
    }
    const member = /^\/usageplans\/([^/]+)\/keys(?:\/([^/]+))?$/.exec(path);
    if (member && request.method === 'POST') {
      const { keyId } = await body(request);
      if (!keys.has(keyId))
        return send(404, { message: 'Invalid API Key identifier specified' }, 'NotFoundException');
      if (planOf.has(keyId))
        return send(409, { message: 'Usage Plan already has a key' }, 'ConflictException');
      planOf.set(keyId, member[1]!);
      return send(201, { id: keyId, type: 'API_KEY', name: keys.get(keyId)!.name });
    }
    if (member?.[2] && request.method === 'DELETE') {
      if (planOf.get(member[2]) !== member[1])
        return send(404, { message: 'Not found' }, 'NotFoundException');
      planOf.delete(member[2]);
      return send(202);
    }
    return send(404, { message: `No route ${request.method} ${path}` }, 'NotFoundException');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    keys,
    planOf: (keyId: string) => plans.find((plan) => plan.id === planOf.get(keyId))?.name,
    log,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
