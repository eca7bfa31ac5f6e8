/**
 * Stand-in for the egress guard (lib/egress/ on main, built with the second security review): the same
 * interface, so that the pull integration's code is the code that runs once the guard lands. It has
 * the guard's limits (no redirects, the caller's time-out capped at 10 s, at most `maxBytes` read) but
 * not its connect-time address check; merging main replaces this file with the guard.
 */
export type EgressFailureKind = 'refused' | 'timeout' | 'connection' | 'too_large';

export class EgressError extends Error {
  override name = 'EgressError';
  constructor(
    readonly kind: EgressFailureKind,
    message: string,
  ) {
    super(message);
  }
}

export interface EgressRequest {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxBytes?: number;
}

export interface EgressResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  durationMs: number;
}

export interface Egress {
  send(request: EgressRequest): Promise<EgressResponse>;
}

const MAX_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 1024 * 1024;

export const createEgress = (_rules: { allowLoopback: boolean }): Egress => ({
  async send({ url, method, headers, body, timeoutMs, maxBytes = DEFAULT_MAX_BYTES }) {
    const started = performance.now();
    const signal = AbortSignal.timeout(Math.min(timeoutMs, MAX_TIMEOUT_MS));
    try {
      const response = await fetch(url, { method, headers, body, redirect: 'manual', signal });
      const chunks: Uint8Array[] = [];
      let read = 0;
      if (maxBytes === 0) await response.body?.cancel();
      else if (response.body) {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          read += chunk.byteLength;
          if (read > maxBytes)
            throw new EgressError('too_large', `the answer is larger than ${maxBytes} bytes`);
          chunks.push(chunk);
        }
      }
      const all = new Uint8Array(read);
      let offset = 0;
      for (const chunk of chunks) {
        all.set(chunk, offset);
        offset += chunk.byteLength;
      }
      const answered: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        answered[name.toLowerCase()] = value;
      });
      return {
        status: response.status,
        headers: answered,
        body: all,
        durationMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      if (error instanceof EgressError) throw error;
      const name = (error as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError') throw new EgressError('timeout', 'timed out');
      throw new EgressError('connection', 'the connection failed');
    }
  },
});
