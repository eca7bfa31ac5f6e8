import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as loginHandler } from '../../../functions/login';
import { handler as refreshHandler } from '../../../functions/refresh-token';
import { keys, shardOf } from '../../../lib/db/keys';
import { getTenant } from '../../../lib/db/tenants';
import { invoke } from '../../support/events';
import { createTestTenant, db } from '../../support/fixtures';

const root = resolve(__dirname, '..', '..', '..');
/** Runs the CLI with `stdin` as its standard input (ended, so a command that reads it never waits). */
const run = (args: string[], env: Record<string, string | undefined> = {}, stdin = '') => {
  const running = promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
  });
  running.child.stdin?.end(stdin);
  return running;
};
const admin = async (...args: string[]) => JSON.parse((await run(args)).stdout);
/** `create-user`, its password on standard input as an operator pipes it in. */
const createUser = async (password: string, ...args: string[]) =>
  JSON.parse((await run(['create-user', ...args], {}, `${password}\n`)).stdout);
/** A failed command: its exit code and the JSON error it printed on stderr. */
const failed = async (running: ReturnType<typeof run>, args: string[]) => {
  const error = await running.then(
    () => undefined,
    (e: { code: number; stderr: string }) => e,
  );
  if (!error) throw new Error(`${args.join(' ')} succeeded`);
  return { code: error.code, ...JSON.parse(error.stderr) } as {
    code: number;
    error: string;
    details?: { path: string; message: string }[];
  };
};
const failure = (...args: string[]) => failed(run(args), args);

/**
 * Each command is a process of its own (node, tsx, the AWS SDK): a few seconds each on a loaded 2-core
 * machine, so these tests get more than the default 30 s.
 */
const CLI_TIMEOUT = { timeout: 300_000 };

describe('npm run admin (operator CLI, JSON output, same table as the service)', CLI_TIMEOUT, () => {
  it('creates a tenant, a user who can log in, a KPI and API keys; changes the plan; revokes a key', async () => {
    const tenant = await admin(
      'create-tenant',
      '--name',
      'CLI Corp',
      '--plan',
      'free',
      '--features',
      'kpi_push_measurement',
    );
    expect(tenant).toMatchObject({
      name: 'CLI Corp',
      plan: 'free',
      features: ['kpi_push_measurement'],
      active: true,
    });

    const user = await createUser(
      'long-enough-pw',
      '--tenant',
      tenant.id,
      '--email',
      'Ops@CLI.example',
      '--role',
      'ADMIN',
    );
    expect(user).toMatchObject({ email: 'ops@cli.example', role: 'ADMIN' });
    expect(JSON.stringify(user)).not.toContain('scrypt');
    const login = await invoke(loginHandler, {
      method: 'POST',
      body: { email: 'ops@cli.example', password: 'long-enough-pw' },
    });
    expect(login.status).toBe(200);

    const kpi = await admin('create-kpi', '--tenant', tenant.id, '--type', 'BSC_KPI', '--name', 'Revenue');
    expect(kpi).toMatchObject({ tenantId: tenant.id, type: 'BSC_KPI', name: 'Revenue' });
    const rule = await admin(
      'update-kpi',
      '--tenant',
      tenant.id,
      '--id',
      kpi.id,
      '--direction',
      'lower_is_better',
      '--tolerance',
      '0.05',
    );
    expect(rule).toMatchObject({
      id: kpi.id,
      direction: 'lower_is_better',
      tolerance: 0.05,
      qualitative: false,
    });
    expect(
      (await failure('update-kpi', '--tenant', tenant.id, '--id', kpi.id, '--tolerance', '1.5')).code,
    ).toBe(1);
    expect(
      (await failure('update-kpi', '--tenant', 'other', '--id', kpi.id, '--qualitative', 'true')).code,
    ).toBe(1);
    const cadence = await admin(
      'update-kpi',
      '--tenant',
      tenant.id,
      '--id',
      kpi.id,
      '--cadence',
      'weekly',
      '--grace-hours',
      '12',
    );
    expect(cadence).toMatchObject({ cadence: 'weekly', graceHours: 12, direction: 'lower_is_better' });
    for (const bad of [
      ['--cadence', 'hourly'],
      ['--grace-hours', '1.5'],
      ['--grace-hours', '721'],
    ]) {
      const refused = await failure('update-kpi', '--tenant', tenant.id, '--id', kpi.id, ...bad);
      expect(refused.code, bad.join(' ')).toBe(1);
      expect(JSON.stringify(refused), bad.join(' ')).toContain(bad[0]!.slice(2));
    }

    const key = await admin('create-api-key', '--tenant', tenant.id, '--name', 'cron');
    expect(key.key).toMatch(/^skm_/);
    await admin('revoke-api-key', '--tenant', tenant.id, '--id', key.id);
    const keys = await admin('list-api-keys', '--tenant', tenant.id);
    expect(keys).toEqual([expect.objectContaining({ id: key.id, status: 'revoked' })]);
    expect(JSON.stringify(keys)).not.toContain(key.key);

    await admin('update-tenant', '--tenant', tenant.id, '--plan', 'enterprise', '--active', 'false');
    expect(await getTenant(db, tenant.id)).toMatchObject({ plan: 'enterprise', active: false });
  });

  it('revoke-sessions ends every session of a user; update-user ends them when it demotes or disables', async () => {
    const { users } = await createTestTenant({ kpiTypes: [] });
    const refreshOf = (refreshToken: string) =>
      invoke(refreshHandler, { method: 'POST', path: '/api/auth/refresh-token', body: { refreshToken } });
    const viewer = users.VIEWER;
    expect(await admin('revoke-sessions', '--tenant', viewer.tenantId, '--user', viewer.id)).toEqual({
      id: viewer.id,
      tokenVersion: 1,
      sessions: 'revoked',
    });
    expect((await refreshOf(viewer.refreshToken)).status).toBe(401);
    // A promotion keeps the sessions; a demotion ends them.
    const editor = users.EDITOR;
    await admin('update-user', '--tenant', editor.tenantId, '--user', editor.id, '--role', 'ADMIN');
    expect((await refreshOf(editor.refreshToken)).status).toBe(200);
    await admin('update-user', '--tenant', editor.tenantId, '--user', editor.id, '--role', 'VIEWER');
    expect((await refreshOf(editor.refreshToken)).status).toBe(401);
    const unknown = await failure('revoke-sessions', '--tenant', viewer.tenantId, '--user', 'nobody');
    expect(unknown.error).toBe('User nobody not found.');
  });

  it('exits non-zero with a JSON error naming the bad option', async () => {
    const refused = await failure('create-tenant', '--name', 'X', '--plan', 'platinum');
    expect(refused.code).toBe(1);
    expect(refused.details?.[0]?.path).toBe('plan');
  });
});

describe('create-user: the password never on the command line', CLI_TIMEOUT, () => {
  const login = (email: string, password: string) =>
    invoke(loginHandler, { method: 'POST', body: { email, password } });

  it('refuses --password as an argument, in either spelling, and writes nothing', async () => {
    const tenant = await admin('create-tenant', '--name', 'Argv Corp');
    for (const spelling of [['--password', 'long-enough-pw'], ['--password=long-enough-pw']]) {
      const args = ['create-user', '--tenant', tenant.id, '--email', 'argv@cli.example', ...spelling];
      // Even with the password also given the right way: the argument is refused before anything runs.
      const refused = await failed(run(args, { USER_PASSWORD: 'long-enough-pw' }), args);
      expect(refused.code, spelling[0]).toBe(2);
      expect(refused.error, spelling[0]).toBe(
        "--password is refused: an argument stays in the shell's history and shows in the process list. Give the password in USER_PASSWORD or on standard input.",
      );
    }
    expect(await admin('list-users', '--tenant', tenant.id)).toEqual([]);
  });

  it('takes the password from USER_PASSWORD, else from standard input, one line break dropped', async () => {
    const tenant = await admin('create-tenant', '--name', 'Stdin Corp');
    const fromEnv = await run(
      ['create-user', '--tenant', tenant.id, '--email', 'env@cli.example'],
      { USER_PASSWORD: 'from-the-environment' },
      'not-this-one\n',
    );
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ email: 'env@cli.example' });
    expect((await login('env@cli.example', 'from-the-environment')).status).toBe(200);

    await createUser('typed in a file\r', '--tenant', tenant.id, '--email', 'stdin@cli.example');
    expect((await login('stdin@cli.example', 'typed in a file')).status).toBe(200);

    // Nothing on standard input: the password is missing, named as such.
    const args = ['create-user', '--tenant', tenant.id, '--email', 'none@cli.example'];
    const empty = await failed(run(args), args);
    expect(empty.code).toBe(1);
    expect(empty.details).toEqual([{ path: 'password', message: 'must be at least 8 characters' }]);
  });

  it('says where the password comes from in its help, and never asks for --password', async () => {
    const { stdout } = await run(['create-user', '--help']);
    expect(stdout).toMatch(
      /^Usage: npm run -s admin -- create-user --tenant <id> --email <address>[^\n]*\[options\]$/m,
    );
    expect(stdout).toMatch(
      /\$USER_PASSWORD or stdin +at least 8 characters \(required\): from USER_PASSWORD, or else standard input; never an argument/,
    );
    expect(stdout).not.toContain('--password');
  });
});

describe('operator CLI for newcomers', CLI_TIMEOUT, () => {
  it('--help lists the commands; each command has its own --help with its options and an example', async () => {
    const overview = (await run(['--help'])).stdout;
    const names = [...overview.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((match) => match[1]!);
    expect(names).toEqual(
      expect.arrayContaining(['list-tenants', 'list-users', 'list-kpis', 'roll-api-key', 'create-cycle']),
    );
    expect(overview).toContain('DYNAMODB_PORT');
    const helps = await Promise.all(names.map((name) => run([name, '--help'])));
    helps.forEach(({ stdout }, i) => {
      expect(stdout).toMatch(new RegExp(`^Usage: npm run -s admin -- ${names[i]}`));
      expect(stdout).toContain('--field <name>');
      expect(stdout).toContain(`Example:\n  npm run -s admin -- ${names[i]}`);
    });
    expect(helps[names.indexOf('create-cycle')]!.stdout).toMatch(
      /--start <date> +first day \(required\): ISO 8601 date, YYYY-MM-DD/,
    );
    const unknown = await failure('create-kpi', '--tenant', 'x', '--colour', 'red');
    expect(unknown.code).toBe(2);
    expect(unknown.error).toContain("Unknown option '--colour'");
    expect(unknown.error).toContain('npm run -s admin -- create-kpi --help');
    expect((await failure('make-tenant')).code).toBe(2);
  });

  it('every create refuses a tenant that does not exist, and a cycle that ends before it starts; nothing is written', async () => {
    const missing = '01a00000-0000-7000-8000-000000000000';
    for (const args of [
      ['create-kpi', '--tenant', missing, '--type', 'BSC_KPI', '--name', 'Ghost'],
      [
        'create-cycle',
        '--tenant',
        missing,
        '--name',
        'Ghost',
        '--start',
        '2027-01-01',
        '--end',
        '2027-12-31',
      ],
      ['create-user', '--tenant', missing, '--email', 'ghost@cli.example'],
      ['create-api-key', '--tenant', missing, '--name', 'Ghost'],
      ['list-kpis', '--tenant', missing],
    ]) {
      const refused = await failed(run(args, {}, 'long-enough\n'), args);
      expect(refused.code, args[0]).toBe(1);
      expect(refused.error, args[0]).toBe(`Tenant ${missing} not found.`);
    }
    const { Items = [] } = await db.client.send(
      new ScanCommand({
        TableName: db.tableName,
        FilterExpression: 'contains(pk, :t) OR tenantId = :t',
        ExpressionAttributeValues: { ':t': missing },
      }),
    );
    expect(Items).toEqual([]);

    const tenant = await admin('create-tenant', '--name', 'Dated');
    const backwards = await failure(
      ...[
        'create-cycle',
        '--tenant',
        tenant.id,
        '--name',
        'Backwards',
        '--start',
        '2027-12-31',
        '--end',
        '2027-01-01',
      ],
    );
    expect(backwards.details).toEqual([{ path: 'end', message: 'must be on or after --start' }]);
    // A key's name follows the API's rule (lib/api-keys/inputs.ts), message included.
    const blank = await failure('create-api-key', '--tenant', tenant.id, '--name', '   ');
    expect(blank.details).toEqual([{ path: 'name', message: 'name is required' }]);
    const sameDay = await admin(
      ...[
        'create-cycle',
        '--tenant',
        tenant.id,
        '--name',
        'One day',
        '--start',
        '2027-03-01',
        '--end',
        '2027-03-01',
      ],
    );
    expect(sameDay).toMatchObject({ startDate: '2027-03-01', endDate: '2027-03-01' });
    const invalidDay = await failure(
      ...[
        'create-cycle',
        '--tenant',
        tenant.id,
        '--name',
        'X',
        '--start',
        '2027-02-30',
        '--end',
        '2027-03-01',
      ],
    );
    expect(invalidDay.details?.map((d) => d.path)).toEqual(['start']);
  });

  it('one date format: a day (00:00 UTC) or a date-time with a zone, printed in UTC; brackets, other forms and the past are refused', async () => {
    const tenant = await admin('create-tenant', '--name', 'Dates', '--plan', 'enterprise');
    const key = (expiresAt: string) => [
      'create-api-key',
      '--tenant',
      tenant.id,
      '--name',
      'k',
      '--expires-at',
      expiresAt,
    ];
    expect((await admin(...key('2035-06-30'))).expiresAt).toBe('2035-06-30T00:00:00.000Z');
    expect((await admin(...key('2035-06-30T20:00:00+02:00'))).expiresAt).toBe('2035-06-30T18:00:00.000Z');
    expect((await admin(...key('2035-06-30T18:00:00Z'))).expiresAt).toBe('2035-06-30T18:00:00.000Z');
    for (const bad of ['[2035-06-30]', '30.06.2035', '2035-06-30T18:00:00', '06/30/2035']) {
      const refused = await failure(...key(bad));
      expect(refused.details?.[0]?.path, bad).toBe('expires-at');
      expect(refused.details?.[0]?.message, bad).toMatch(/ISO 8601/);
    }
    expect((await failure(...key('2020-01-01'))).details).toEqual([
      { path: 'expires-at', message: 'must be in the future' },
    ]);
  });

  it('list-tenants, list-users (never a password hash), list-kpis and list-cycles', async () => {
    const tenant = await admin('create-tenant', '--name', 'Listed Corp');
    await createUser('long-enough', '--tenant', tenant.id, '--email', 'a@listed.example');
    await createUser('long-enough', '--tenant', tenant.id, '--email', 'b@listed.example');
    const kpi = await admin(
      'create-kpi',
      '--tenant',
      tenant.id,
      '--type',
      'OKR_KEY_RESULT',
      '--name',
      'Deploys',
    );
    await admin(
      'create-cycle',
      '--tenant',
      tenant.id,
      '--name',
      'FY',
      '--start',
      '2027-01-01',
      '--end',
      '2027-12-31',
    );

    expect((await admin('list-tenants')).map((t: { id: string }) => t.id)).toContain(tenant.id);
    const users = (await run(['list-users', '--tenant', tenant.id])).stdout;
    expect(JSON.parse(users).map((u: { email: string }) => u.email)).toEqual([
      'a@listed.example',
      'b@listed.example',
    ]);
    expect(users).not.toMatch(/scrypt|passwordHash/);
    expect(await admin('list-kpis', '--tenant', tenant.id)).toEqual([kpi]);
    expect((await admin('list-cycles', '--tenant', tenant.id)).map((c: { name: string }) => c.name)).toEqual([
      'FY',
    ]);
    // --field: plain text, one line per item.
    expect((await run(['list-users', '--tenant', tenant.id, '--field', 'email'])).stdout).toBe(
      'a@listed.example\nb@listed.example\n',
    );
  });

  it('API keys: --kpi-ids scopes a key, roll-api-key replaces it, and the list shows scope, roll and the operator', async () => {
    const tenant = await admin(
      'create-tenant',
      '--name',
      'Keys Corp',
      '--plan',
      'free',
      '--features',
      'kpi_push_measurement',
    );
    const kpi = await admin('create-kpi', '--tenant', tenant.id, '--type', 'BSC_KPI', '--name', 'Revenue');
    const operator = { OPERATOR: 'carol' };
    const created = JSON.parse(
      (await run(['create-api-key', '--tenant', tenant.id, '--name', 'cron', '--kpi-ids', kpi.id], operator))
        .stdout,
    );
    expect(created).toMatchObject({ kpiIds: [kpi.id], createdBy: { type: 'operator', name: 'carol' } });
    const foreign = await failure(
      'create-api-key',
      '--tenant',
      tenant.id,
      '--name',
      'x',
      '--kpi-ids',
      `${kpi.id},01a00000-0000-7000-8000-000000000000`,
    );
    expect(foreign.details?.map((d) => d.path)).toEqual(['kpi-ids[1]']);

    const rolled = JSON.parse(
      (
        await run(
          ['roll-api-key', '--tenant', tenant.id, '--id', created.id, '--grace-period-hours', '0'],
          operator,
        )
      ).stdout,
    );
    expect(rolled).toMatchObject({ kpiIds: [kpi.id], replaces: { id: created.id } });
    expect(rolled.key).toMatch(/^skm_/);
    expect(rolled.previous).toMatchObject({ status: 'expired', replacedBy: { id: rolled.id } });
    expect(
      (await failure('roll-api-key', '--tenant', tenant.id, '--id', rolled.id, '--grace-period-hours', '200'))
        .details,
    ).toEqual([{ path: 'grace-period-hours', message: 'must be at most 168' }]);

    const listed = await admin('list-api-keys', '--tenant', tenant.id);
    expect(listed).toEqual([
      expect.objectContaining({
        id: created.id,
        kpiIds: [kpi.id],
        replacedBy: { id: rolled.id, prefix: rolled.prefix },
        rolledBy: { type: 'operator', name: 'carol' },
      }),
      expect.objectContaining({ id: rolled.id, kpiIds: [kpi.id], status: 'active' }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(rolled.key);
  });
});

describe('npm run admin: key events on AWS', CLI_TIMEOUT, () => {
  it('refuses to revoke or roll a key on AWS without the webhook delivery queue, before writing anything', async () => {
    for (const command of ['revoke-api-key', 'roll-api-key']) {
      const error = await run([command, '--tenant', 't', '--id', 'k'], {
        DYNAMODB_ENDPOINT: 'aws',
        WEBHOOK_QUEUE_URL: '',
        AWS_ACCESS_KEY_ID: 'none',
        AWS_SECRET_ACCESS_KEY: 'none',
      }).then(
        () => undefined,
        (e: { code: number; stderr: string }) => e,
      );
      expect(error?.code, command).toBe(2);
      expect(JSON.parse(error!.stderr).error, command).toMatch(/set WEBHOOK_QUEUE_URL/);
    }
  });
});

describe('npm run admin shard-due-indexes', CLI_TIMEOUT, () => {
  it('moves a KPI of the unsharded cadence partition into its shard, once', async () => {
    const tenant = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    const kpi = tenant.kpis[0]!;
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.kpi(kpi.id),
        UpdateExpression: 'SET gsi2pk = :pk, gsi2sk = :sk, cadence = :cadence',
        ExpressionAttributeValues: {
          ':pk': 'CADENCE',
          ':sk': `TENANT#${tenant.tenant.id}#KPI#${kpi.id}`,
          ':cadence': 'daily',
        },
      }),
    );
    const first = await admin('shard-due-indexes');
    expect(first.moved.kpis).toBeGreaterThanOrEqual(1);
    const { Item } = await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.kpi(kpi.id) }));
    expect(Item?.gsi2pk).toBe(`QUIET#${shardOf(kpi.id)}`);
    expect(await admin('shard-due-indexes')).toEqual({ moved: { kpis: 0, integrations: 0 } });
  });
});
