import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import type { SeedFile } from '../../scripts/seed';

/** What the end-to-end tests talk to: the running local stack and its demo data. */
export const baseUrl = () => inject('baseUrl');
export const seed = (): SeedFile => JSON.parse(readFileSync(inject('seedFile'), 'utf8'));

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
}

/** A curl-equivalent request: JSON in, JSON (or problem+json) out. */
export const request = async (
  method: string,
  path: string,
  { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpResult> => {
  const response = await fetch(`${baseUrl()}${path}`, {
    method,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
};

export const loginAs = async (email: string, password: string) => {
  const result = await request('POST', '/auth/login', { body: { email, password } });
  if (result.status !== 200) throw new Error(`login failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body as { token: string; refreshToken: string; expiresIn: number };
};
