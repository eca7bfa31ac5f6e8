/**
 * A counting proxy in front of DynamoDB Local for the benchmark's counting pass (issue 11): a built
 * bundle carries its own DynamoDB client, so its requests are counted where they leave the process.
 * Each request gets `ReturnConsumedCapacity: TOTAL` added, and its operation, time span and the
 * capacity DynamoDB reports are recorded. DynamoDB Local does not check SigV4 signatures, so the
 * rewritten body is accepted; the answer is passed back unchanged (its CRC32 still matches).
 * Not used for timing: the proxy's own work would be in the measurement.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedCall {
  operation: string;
  start: number;
  end: number;
  read: number;
  write: number;
  /** The request body as the client sent it (before the proxy's addition). */
  body: string;
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

const unitsOf = (answer: Record<string, unknown>): number =>
  [answer.ConsumedCapacity ?? []]
    .flat()
    .reduce((sum: number, c) => sum + ((c as { CapacityUnits?: number }).CapacityUnits ?? 0), 0);

export interface CapacityProxy {
  endpoint: string;
  calls: ProxiedCall[];
  close(): Promise<void>;
}

export const startCapacityProxy = async (target: string): Promise<CapacityProxy> => {
  const calls: ProxiedCall[] = [];
  const agent = new http.Agent({ keepAlive: true });
  const upstream = new URL(target);
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const operation = String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? '?';
      const call: ProxiedCall = { operation, start: performance.now(), end: 0, read: 0, write: 0, body };
      calls.push(call);
      let sent = body;
      try {
        sent = JSON.stringify({ ...JSON.parse(body), ReturnConsumedCapacity: 'TOTAL' });
      } catch {
        // not JSON: passed on as it is
      }
      const headers = { ...request.headers, 'content-length': String(Buffer.byteLength(sent)) };
      const forward = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: request.method,
          path: request.url,
          headers,
          agent,
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (part: Buffer) => parts.push(part));
          answer.on('end', () => {
            const raw = Buffer.concat(parts);
            call.end = performance.now();
            try {
              const units = unitsOf(JSON.parse(raw.toString('utf8')));
              if (READS.has(operation)) call.read = units;
              else call.write = units;
            } catch {
              // an error answer without capacity
            }
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            response.end(raw);
          });
        },
      );
      forward.on('error', () => {
        response.writeHead(502);
        response.end();
      });
      forward.end(sent);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/**
 * The calls grouped into their round trips, in order: requests that overlap in time were in flight
 * together, so merging overlaps gives the sequential round trips (and the groups to replay).
 */
export const roundGroups = <T extends Pick<ProxiedCall, 'start' | 'end'>>(calls: readonly T[]): T[][] => {
  const sorted = [...calls].sort((a, b) => a.start - b.start);
  const groups: T[][] = [];
  let end = Number.NEGATIVE_INFINITY;
  for (const call of sorted) {
    if (call.start >= end) groups.push([]);
    groups[groups.length - 1]?.push(call);
    end = Math.max(end, call.end);
  }
  return groups;
};

export const roundsOf = (calls: readonly Pick<ProxiedCall, 'start' | 'end'>[]): number =>
  roundGroups(calls).length;
