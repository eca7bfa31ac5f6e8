import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Header names and values exactly as sent, in order (what a SigV4 verifier must see). */
  rawHeaders: string[];
  body: string;
  /** The client's port: requests on one kept-alive connection share it. */
  remotePort: number | undefined;
}

/** One scripted answer: `respond` writes the response (or never ends it, or destroys the socket). */
export type Answer = (response: ServerResponse, request: ReceivedRequest) => void;

/** A JSON answer with DynamoDB's headers: `x-amzn-requestid` and, unless told otherwise, a correct `x-amz-crc32`. */
export const json =
  (status: number, body: unknown, options: { crc32?: number | false; requestId?: string } = {}): Answer =>
  (response) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = {
      'content-type': 'application/x-amz-json-1.0',
      'x-amzn-requestid': options.requestId ?? 'REQ123',
    };
    if (options.crc32 !== false) headers['x-amz-crc32'] = String(options.crc32 ?? crc32(Buffer.from(text)));
    response.writeHead(status, headers).end(text);
  };

/** DynamoDB's error body: `{ __type: "com.amazonaws.dynamodb.v20120810#<name>", message, ...extra }`. */
export const awsError = (
  status: number,
  name: string,
  message: string,
  extra: Record<string, unknown> = {},
) => json(status, { __type: `com.amazonaws.dynamodb.v20120810#${name}`, message, ...extra });

/** Keeps the request open without answering (the client's timeout must fire). */
export const hang: Answer = () => undefined;

/** Closes the connection mid-request: the client sees ECONNRESET. */
export const reset: Answer = (response) => {
  response.socket?.destroy();
};

/**
 * A real HTTP server on a free port of 127.0.0.1 that answers each request with the next scripted
 * answer (the last one repeats) and records what it received.
 */
export const startScriptedServer = async () => {
  let script: Answer[] = [];
  const received: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: ReceivedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        rawHeaders: request.rawHeaders,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: request.socket.remotePort,
      };
      received.push(entry);
      const answer = script.length > 1 ? script.shift() : script[0];
      (answer ?? json(200, {}))(response, entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    received,
    /** Replaces the script and forgets earlier requests. */
    answer: (...answers: Answer[]) => {
      script = answers;
      received.splice(0);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
