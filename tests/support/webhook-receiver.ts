import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got: its headers and body, and whether the signature verified. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** The verified payload, or the verification error's message. */
  verified: { ok: true; payload: any } | { ok: false; error: string };
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The secret to verify with, once the endpoint is created (`whsec_…`). */
  secret: string | undefined;
  /** The status the next requests get (default 204), and headers for them (e.g. a Location). */
  answer: { status: number; headers?: Record<string, string> };
  close: () => Promise<void>;
}

/**
 * A webhook receiver on a free port of this machine, as a tenant would run one: it verifies every
 * request with the `standardwebhooks` package (`Webhook.verify`, the receiving side of the
 * specification), records it, and answers `answer.status`.
 */
export const startReceiver = async (path = '/hooks'): Promise<Receiver> => {
  const receiver: Omit<Receiver, 'url' | 'close'> = {
    received: [],
    secret: undefined,
    answer: { status: 204 },
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified: Received['verified'];
      try {
        if (!receiver.secret) throw new Error('no secret yet');
        verified = {
          ok: true,
          payload: new Webhook(receiver.secret).verify(body, request.headers as Record<string, string>),
        };
      } catch (error) {
        verified = { ok: false, error: (error as Error).message };
      }
      receiver.received.push({ headers: request.headers, body, verified });
      response.writeHead(receiver.answer.status, receiver.answer.headers ?? {});
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
};
