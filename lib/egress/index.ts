import { lookup as systemLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { type AddressRules, isAllowedAddress } from './addresses';
import { type ConnectionFailure, connectionFailureOf } from './connection-failures';
import { hostOf } from './urls';

/**
 * The one way the service sends a request to a URL that a tenant chose: webhook deliveries, pull
 * sources, OAuth token endpoints. Nothing else in lib/ calls `fetch`.
 *
 * - Every address is checked when the connection is made, not when the URL was saved: the name is
 *   resolved in the socket's `lookup` hook (Node's `net.connect` option, which undici's
 *   `connect.lookup` and request-filtering-agent also use), and a name with any refused address is
 *   refused (./addresses.ts), so a name that resolves inwards, or starts to after it was saved,
 *   reaches nothing. An IP-literal host is judged as it is, since Node does not resolve it.
 * - Redirects are never followed: a 3xx is answered as it is, so a public URL cannot send the request
 *   on to an internal one.
 * - The caller sets the time-out, which covers connecting, the answer and reading its body, and is
 *   never more than MAX_EGRESS_TIMEOUT_MS: a slow endpoint holds a Lambda for that long at most.
 * - At most `maxBytes` of the answer are read (MAX_RESPONSE_BYTES by default; 0 reads nothing).
 * - Each request has a connection of its own (no keep-alive): every request is checked at connect
 *   time, and a frozen Lambda never reuses a socket its peer has closed.
 *
 * Node's own HTTP client carries it rather than undici's: the npm package adds 536 KB (minified) and
 * about 200 ms of loading to every cold start of the functions that call tenant URLs, for the same
 * hook (docs/security.md, "Outbound requests").
 *
 * A refusal says only that: `refused by egress rules`, with no address, port or timing, so an ADMIN
 * who saves URLs cannot map the network behind the service from the answers.
 */
export const MAX_EGRESS_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 1_048_576; // 1 MiB

export const EGRESS_FAILURE_KINDS = ['refused', 'timeout', 'connection', 'too_large'] as const;
export type EgressFailureKind = (typeof EGRESS_FAILURE_KINDS)[number];

const MESSAGES: Record<EgressFailureKind, string> = {
  refused: 'refused by egress rules',
  timeout: 'no answer within the time-out',
  connection: 'the connection failed',
  too_large: 'the answer is larger than allowed',
};

/**
 * `failure`: why a connection to an address the rules allow failed (refused, DNS, TLS, reset), when
 * the socket said; the caller names it with the host and port of the URL it was given.
 */
export class EgressError extends Error {
  override name = 'EgressError';
  constructor(
    readonly kind: EgressFailureKind,
    readonly failure?: ConnectionFailure,
  ) {
    super(MESSAGES[kind]);
  }
}

export interface EgressRequest {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The whole request, connecting to the last byte read; capped at MAX_EGRESS_TIMEOUT_MS. */
  timeoutMs: number;
  /** Answer bytes read at most (default MAX_RESPONSE_BYTES); beyond it `too_large`. 0: the body is not read. */
  maxBytes?: number;
}

export interface EgressResponse {
  status: number;
  /** Lower-case names; a repeated header's values joined with `, `. */
  headers: Record<string, string>;
  body: Uint8Array;
  durationMs: number;
}

export interface Egress {
  send(request: EgressRequest): Promise<EgressResponse>;
}

export interface EgressRules extends AddressRules {
  /** How names are resolved (default: the system's resolver); tests map names to addresses with it. */
  lookup?: LookupFunction;
}

/** Thrown inside the connect hook: an address the rules refuse. */
class RefusedAddress extends Error {}

type LookupAnswer = { address: string; family: number };

/**
 * The connect hook: resolves every address of the name (whatever Node asked for) and refuses the name
 * if any of them is refused, so a resolver that answers one public and one internal address cannot
 * pick the connection's target for the service.
 */
const guardedLookup =
  (rules: AddressRules, resolve: LookupFunction): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, answer) => {
      // Stryker disable next-line StringLiteral: with an error, Node reads neither address nor family.
      if (error) return callback(error, '', 0);
      const addresses = answer as unknown as LookupAnswer[];
      if (addresses.length === 0 || !addresses.every(({ address }) => isAllowedAddress(address, rules))) {
        // Stryker disable next-line StringLiteral: with an error, Node reads neither address nor family.
        return callback(new RefusedAddress(), '', 0);
      }
      // Node connects with autoSelectFamily (its default since 20), which asks for every address; a
      // connection made without it asks for one.
      // Stryker disable next-line ConditionalExpression: every connection of the guard asks for all.
      if (options.all) return (callback as (e: null, all: LookupAnswer[]) => void)(null, addresses);
      const [first] = addresses as [LookupAnswer];
      return callback(null, first.address, first.family);
    });
  };

/**
 * What went wrong, as the caller may tell its user: never the resolved address or the timing. The
 * request's only abort signal is its time-out, so an aborted signal means the time ran out. Why a
 * connection failed is only known for addresses the rules allow: a refused one never connects.
 */
const failureOf = (error: unknown, signal: AbortSignal): EgressError => {
  if (error instanceof EgressError) return error;
  if (error instanceof RefusedAddress) return new EgressError('refused');
  if (signal.aborted) return new EgressError('timeout');
  return new EgressError('connection', connectionFailureOf(error));
};

type Body = AsyncIterable<Uint8Array> & { destroy(): void };

/** Reads at most `maxBytes` of a body; more is `too_large`, and the rest is never read. */
const readBody = async (body: Body, maxBytes: number) => {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      body.destroy();
      throw new EgressError('too_large');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
};

/** Lower-case names (as Node gives them); a repeated header's values joined with `, `. */
const headersOf = (raw: Record<string, string | string[] | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, [value].flat().join(', ')]));

/** Sends the request and waits for the answer's head; the body is read by the caller. */
const exchange = (
  target: URL,
  { method, headers, body }: Pick<EgressRequest, 'method' | 'headers' | 'body'>,
  lookup: LookupFunction,
  signal: AbortSignal,
): Promise<IncomingMessage> =>
  new Promise((resolve, reject) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = send(target, { method, headers, agent: false, lookup, signal }, resolve);
    outgoing.on('error', reject);
    outgoing.end(body);
  });

export const createEgress = ({ lookup = systemLookup as LookupFunction, ...rules }: EgressRules): Egress => {
  const checkedLookup = guardedLookup(rules, lookup);
  return {
    async send({ url, method, headers, body, timeoutMs, maxBytes = MAX_RESPONSE_BYTES }) {
      const target = new URL(url);
      // `example.com.` and `example.com` are one host; the dot would only make the name look new.
      if (target.hostname.endsWith('.')) target.hostname = target.hostname.slice(0, -1);
      const host = hostOf(target);
      if (
        (target.protocol !== 'https:' && target.protocol !== 'http:') ||
        target.username !== '' ||
        target.password !== '' ||
        (isIP(host) !== 0 && !isAllowedAddress(host, rules))
      ) {
        throw new EgressError('refused');
      }
      const started = performance.now();
      const signal = AbortSignal.timeout(Math.min(timeoutMs, MAX_EGRESS_TIMEOUT_MS));
      try {
        const response = await exchange(target, { method, headers, body }, checkedLookup, signal);
        const answer = (read: Uint8Array): EgressResponse => ({
          status: response.statusCode ?? 0,
          headers: headersOf(response.headers),
          body: read,
          durationMs: performance.now() - started,
        });
        if (maxBytes === 0) {
          response.destroy();
          return answer(new Uint8Array());
        }
        // A declared size over the limit is refused before a byte of it is read.
        if (Number(response.headers['content-length']) > maxBytes) {
          response.destroy();
          throw new EgressError('too_large');
        }
        return answer(await readBody(response, maxBytes));
      } catch (error) {
        throw failureOf(error, signal);
      }
    },
  };
};
