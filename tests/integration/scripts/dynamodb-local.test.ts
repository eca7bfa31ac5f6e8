import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { describe, expect, inject, it } from 'vitest';

/**
 * DynamoDB Local as `startDynamoDbLocal` runs it (scripts/local/processes.ts: `npm start`, `npm run reset`,
 * the tests and the benchmark) listens on this machine only: nobody on the same network can read or
 * rewrite the local data. The instance checked is the one of this test run (its global setup).
 */
const port = Number(new URL(inject('dynamodbEndpoint')).port);

/**
 * The local addresses of the sockets listening on `port`, as Linux lists them in /proc/net/tcp and
 * /proc/net/tcp6: hexadecimal, each 32-bit word in the machine's byte order.
 */
const listeningAddresses = () => {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // Field 1 is `address:port`, field 3 the state: 0A is LISTEN.
      .filter((fields) => fields[3] === '0A' && fields[1]?.endsWith(`:${hexPort}`))
      .map((fields) => (fields[1] as string).split(':')[0] as string),
  );
};

/** 127.0.0.1, ::ffff:127.0.0.1 (Java's IPv6 socket bound to it) and ::1, as /proc/net spells them. */
const LOOPBACK = new Set([
  '0100007F',
  '0000000000000000FFFF00000100007F',
  '00000000000000000000000001000000',
]);

const connects = (host: string) =>
  new Promise<string>((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(5000, () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });

describe('DynamoDB Local (scripts/local/processes.ts)', () => {
  it('listens on the loopback address only, never on every interface', () => {
    const addresses = listeningAddresses();
    expect(addresses.length).toBeGreaterThan(0);
    // On every interface it would be 00000000 (0.0.0.0) or 32 zeros (::).
    for (const address of addresses) expect(LOOPBACK.has(address), address).toBe(true);
  });

  it("answers on 127.0.0.1 and refuses connections to this machine's other addresses", async () => {
    expect(await connects('127.0.0.1')).toBe('connected');
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((entry) => entry && !entry.internal && entry.family === 'IPv4')
      .map((entry) => entry?.address as string);
    for (const address of others) expect(await connects(address), address).toBe('ECONNREFUSED');
  });
});
