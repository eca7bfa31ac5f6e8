import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { listApiKeys } from '../../../lib/api-keys/service';
import { listKpis } from '../../../lib/db/kpis';
import { listTenants } from '../../../lib/db/tenants';
import { db } from '../../support/fixtures';

const root = resolve(__dirname, '..', '..', '..');
const page = readFileSync(resolve(root, 'docs', 'operations.md'), 'utf8');
/** Every page a reader may copy an operator command from. */
const pages = [
  'README.md',
  ...readdirSync(resolve(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The first `sh` code block after a heading of docs/operations.md. */
const blockAfter = (heading: string) => {
  const section = page.slice(page.indexOf(`\n${heading}\n`));
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error(`No sh block after ${heading}`);
  return match[1];
};

describe('docs/operations.md: the operator CLI examples run as pasted', () => {
  const block = blockAfter('## The operator CLI');

  it('every local `npm run -s admin` line of the docs is a line of the block that is run', () => {
    // Command lines of code blocks: the command itself, or a variable assigned its output. The
    // runbooks' lines name a tenant and key of their own (shell variables set by the reader), and the
    // deployed stage's lines need AWS: both are checked for their commands' names below instead.
    const lines = pages.flatMap((name) =>
      readFileSync(resolve(root, name), 'utf8')
        .split('\n')
        .filter((line) => /^([A-Z_]+=\$\()?npm run -s admin -- /.test(line)),
    );
    const run = new Set(block.split('\n'));
    expect(lines.length).toBeGreaterThan(15);
    const commands = new Set([...block.matchAll(/npm run -s admin -- ([a-z-]+)/g)].map((match) => match[1]));
    for (const line of lines) {
      if (!run.has(line)) expect(commands, line).toContain(/npm run -s admin -- ([a-z-]+)/.exec(line)![1]);
    }
    expect([...run].filter((line) => lines.includes(line)).length).toBeGreaterThan(15);
    // No placeholders to fill in and no optional-argument brackets to delete: pasted, it runs.
    expect(block).not.toMatch(/<[a-z]+>|\[--/);
  });

  it('runs in bash against DynamoDB Local found through DYNAMODB_PORT, as after `DYNAMODB_PORT=… npm start`', async () => {
    const { DYNAMODB_ENDPOINT: endpoint, ...env } = process.env;
    const port = new URL(inject('dynamodbEndpoint')).port;
    expect(endpoint).toBe(inject('dynamodbEndpoint'));
    const { stdout } = await promisify(execFile)('bash', ['-e', '-o', 'pipefail', '-c', block], {
      cwd: root,
      env: { ...env, DYNAMODB_PORT: port, OPERATOR: 'readme-operator' },
      maxBuffer: 10 * 1024 * 1024,
    });
    expect(stdout).toContain(
      'Usage: npm run -s admin -- create-kpi --tenant <id> --type <type> --name <text>',
    );

    // What the block did, read back through the library.
    const tenant = (await listTenants(db, { limit: 1000 })).items.find((t) => t.name === 'Initrode');
    expect(tenant).toMatchObject({ plan: 'enterprise', active: false, features: ['kpi_push_measurement'] });
    const kpis = (await listKpis(db, tenant!.id, { limit: 10 })).items;
    const apiKeys = (await listApiKeys(db, tenant!.id, { limit: 10 })).items;
    expect(apiKeys).toHaveLength(2);
    const [rolled, replacement] = apiKeys;
    expect(rolled).toMatchObject({
      name: 'Revenue cron',
      revokedBy: { type: 'operator', name: 'readme-operator' },
      replacedBy: { id: replacement!.id },
      expiresAt: expect.any(String),
      kpiIds: [kpis[0]!.id],
    });
    expect(rolled!.revokedAt).not.toBeNull();
    expect(replacement).toMatchObject({
      name: 'Revenue cron',
      revokedAt: null,
      kpiIds: [kpis[0]!.id],
      createdBy: { type: 'operator', name: 'readme-operator' },
      replaces: { id: rolled!.id },
    });
    expect(kpis[0]).toMatchObject({ direction: 'higher_is_better', tolerance: 0.05 });
    // Printed: the raw key of the create and of the roll, once each.
    expect(stdout.match(/"key": "skm_/g)).toHaveLength(2);
  }, 300_000);
});
