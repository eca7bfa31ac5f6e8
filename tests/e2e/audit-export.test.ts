import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { baseUrl, createStackTenant, loginAs, request } from '../support/http';

/**
 * The API guide's cron recipe for a SIEM (docs/api.md, "Audit log"), run as written with bash and curl
 * against the local stack: each run appends the events written since the last one, and keeps its
 * place in `audit.cursor` between runs.
 */
const root = resolve(__dirname, '..', '..');
const guide = readFileSync(join(root, 'docs', 'api.md'), 'utf8');
const recipe = /```sh\n([\s\S]*?)```/.exec(guide.slice(guide.indexOf('\n## Audit log\n')))?.[1] ?? '';

const dir = mkdtempSync(join(tmpdir(), 'audit-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One run of the recipe in `dir`, with this stack's base URL instead of npm start's. */
const runRecipe = async (token: string) => {
  const script = recipe.replaceAll('http://localhost:3000/api', baseUrl());
  const { stdout } = await promisify(execFile)('bash', ['-e', '-o', 'pipefail', '-c', script], {
    cwd: dir,
    env: { ...process.env, TOKEN: token },
  });
  return Number(stdout.trim());
};

const exported = () =>
  readFileSync(join(dir, 'audit.ndjson'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { id: string; type: string; target: { id: string } });

describe("docs/api.md: the audit log's cron recipe", () => {
  it('exports every event once, oldest first, and the next run only what was written since', async () => {
    expect(recipe).toContain('audit.cursor');
    const { email, password } = await createStackTenant('enterprise');
    const { token } = await loginAs(email, password);
    expect(await runRecipe(token)).toBe(1);
    expect(exported().map((event) => event.type)).toEqual(['login.succeeded']);
    expect(readFileSync(join(dir, 'audit.cursor'), 'utf8')).not.toBe('');

    const created = await request('POST', '/api-keys', {
      headers: { Authorization: `Bearer ${token}` },
      body: { name: 'exported' },
    });
    expect(created.status).toBe(201);
    expect(await runRecipe(token)).toBe(2);
    // A run with nothing new appends nothing.
    expect(await runRecipe(token)).toBe(2);
    const events = exported();
    expect(events.map((event) => [event.type, event.target.id])).toEqual([
      ['login.succeeded', expect.any(String)],
      ['api_key.created', created.body.id],
    ]);
    expect(new Set(events.map((event) => event.id)).size).toBe(2);
  });
});
