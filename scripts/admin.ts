/**
 * Operator CLI: `npm run admin -- <command> [--options]`. Prints JSON, so it can be scripted.
 * Works on the table named by TABLE_NAME (default strategy-service-local) at DYNAMODB_ENDPOINT
 * (default http://localhost:8000, the `npm start` DynamoDB Local); DYNAMODB_ENDPOINT=aws uses AWS
 * with the usual credential chain. Every command calls the same lib functions as the service.
 */
import { parseArgs } from 'node:util';
import * as z from 'zod/mini';
import { apiKeyView } from '../lib/api-keys/views';
import { hashPassword } from '../lib/auth/passwords';
import { ROLES } from '../lib/auth/roles';
import { createApiKey, listApiKeys, revokeApiKey } from '../lib/db/api-keys';
import { createDatabase } from '../lib/db/client';
import { createKpi } from '../lib/db/kpis';
import { createStrategicCycle } from '../lib/db/strategic-cycles';
import { createTenant, getTenant, type Tenant, updateTenant } from '../lib/db/tenants';
import { createUser, normalizeEmail, updateUser } from '../lib/db/users';
import { FEATURES, KPI_TYPES, PLANS } from '../lib/domain';
import { parseInput } from '../lib/http/validation';
import { type UsagePlans, usagePlansFromEnv } from './usage-plans';

const nonEmpty = z.string().check(z.minLength(1));
const list = z.pipe(
  z.pipe(
    z.string(),
    z.transform((value: string) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ),
  z.array(z.enum(FEATURES)),
);
const bool = z.pipe(
  z.enum(['true', 'false']),
  z.transform((value: 'true' | 'false') => value === 'true'),
);

/** What the CLI shows of a tenant: everything but its usage plan key, which nobody is shown. */
const tenantView = ({ usageKey: _usageKey, ...tenant }: Tenant) => tenant;

interface CommandContext {
  /** The deployed stage's usage plans, or undefined on the local stack. */
  usagePlans: UsagePlans | undefined;
}

const commands = {
  'create-tenant': {
    schema: z.strictObject({
      name: nonEmpty,
      plan: z._default(z.enum(PLANS), 'free'),
      features: z._default(list, []),
      active: z._default(bool, true),
    }),
    run: async (db, input, { usagePlans }) => {
      const tenant = await createTenant(db, input);
      if (!usagePlans) return tenantView(tenant);
      try {
        return tenantView(
          await updateTenant(db, tenant.id, { usageKey: await usagePlans.provision(tenant) }),
        );
      } catch (error) {
        throw new Error(
          `Tenant ${tenant.id} was created, but its usage plan key was not: ${(error as Error).message}. Run update-tenant --tenant ${tenant.id} --plan ${tenant.plan} to finish.`,
          { cause: error },
        );
      }
    },
  },
  'update-tenant': {
    schema: z.strictObject({
      tenant: nonEmpty,
      name: z.optional(nonEmpty),
      plan: z.optional(z.enum(PLANS)),
      features: z.optional(list),
      active: z.optional(bool),
    }),
    run: async (db, { tenant, ...patch }, { usagePlans }) => {
      const before = await getTenant(db, tenant);
      if (!before) throw new Error(`Tenant ${tenant} not found.`);
      const updated = await updateTenant(db, tenant, patch);
      // The plan change reaches API Gateway here: the tenant's key moves to the new tier's usage plan
      // (or is made, if the tenant has none yet, e.g. one created before the stage had usage plans).
      if (usagePlans && patch.plan !== undefined) {
        if (!before.usageKey) {
          return tenantView(
            await updateTenant(db, tenant, { usageKey: await usagePlans.provision(updated) }),
          );
        }
        await usagePlans.move(before.usageKey, before.plan, updated.plan);
      }
      return tenantView(updated);
    },
  },
  'get-tenant': {
    schema: z.strictObject({ tenant: nonEmpty }),
    run: async (db, { tenant }) => {
      const found = await getTenant(db, tenant);
      return found ? tenantView(found) : null;
    },
  },
  'create-user': {
    schema: z.strictObject({
      tenant: nonEmpty,
      email: z.email(),
      password: z.string().check(z.minLength(8)),
      role: z._default(z.enum(ROLES), 'VIEWER'),
    }),
    run: async (db, { tenant, email, password, role }) => {
      const { passwordHash: _hash, ...user } = await createUser(db, {
        tenantId: tenant,
        email: normalizeEmail(email),
        role,
        passwordHash: await hashPassword(password),
      });
      return user;
    },
  },
  'update-user': {
    schema: z.strictObject({
      tenant: nonEmpty,
      user: nonEmpty,
      role: z.optional(z.enum(ROLES)),
      disabled: z.optional(bool),
    }),
    run: async (db, { tenant, user, ...patch }) => {
      const { passwordHash: _hash, ...updated } = await updateUser(db, tenant, user, patch);
      return updated;
    },
  },
  'create-kpi': {
    schema: z.strictObject({ tenant: nonEmpty, type: z.enum(KPI_TYPES), name: nonEmpty }),
    run: (db, { tenant, type, name }) => createKpi(db, tenant, { type, name }),
  },
  'create-cycle': {
    schema: z.strictObject({
      tenant: nonEmpty,
      name: nonEmpty,
      start: z.iso.date(),
      end: z.iso.date(),
    }),
    run: (db, { tenant, name, start, end }) =>
      createStrategicCycle(db, tenant, { name, startDate: start, endDate: end }),
  },
  'create-api-key': {
    schema: z.strictObject({
      tenant: nonEmpty,
      name: z.string().check(z.minLength(1), z.maxLength(100)),
      'expires-at': z.optional(z.iso.datetime({ offset: true })),
    }),
    run: (db, { tenant, name, 'expires-at': expiresAt }) =>
      createApiKey(db, { tenantId: tenant, name, expiresAt }),
  },
  'list-api-keys': {
    schema: z.strictObject({ tenant: nonEmpty }),
    run: async (db, { tenant }) => {
      const page = await listApiKeys(db, tenant, { limit: 1000 });
      return page.items.map((key) => apiKeyView(key));
    },
  },
  'revoke-api-key': {
    schema: z.strictObject({ tenant: nonEmpty, id: nonEmpty }),
    run: async (db, { tenant, id }) => {
      await revokeApiKey(db, tenant, id);
      return { id, status: 'revoked' };
    },
  },
} satisfies Record<
  string,
  {
    schema: z.ZodMiniObject;
    // biome-ignore lint/suspicious/noExplicitAny: each command's input type comes from its own schema
    run: (db: ReturnType<typeof createDatabase>, input: any, context: CommandContext) => Promise<unknown>;
  }
>;

type CommandName = keyof typeof commands;

const usage = () =>
  [
    'Usage: npm run admin -- <command> [--option value ...]',
    '',
    ...Object.entries(commands).map(
      ([name, { schema }]) =>
        `  ${name.padEnd(16)} ${Object.keys(schema.shape)
          .map((option) => `--${option}`)
          .join(' ')}`,
    ),
    '',
    'Environment: TABLE_NAME (default strategy-service-local), DYNAMODB_ENDPOINT (default http://localhost:8000; "aws" for AWS)',
  ].join('\n');

const main = async () => {
  const [name, ...args] = process.argv.slice(2);
  const command = name && name in commands ? commands[name as CommandName] : undefined;
  if (!command) {
    console.error(usage());
    process.exit(2);
  }
  const optionNames = Object.keys(command.schema.shape);
  const { values } = parseArgs({
    args,
    options: Object.fromEntries(optionNames.map((option) => [option, { type: 'string' as const }])),
  });
  const input = parseInput(command.schema, values, { what: 'command line' });
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? 'http://localhost:8000';
  const db = createDatabase({
    tableName: process.env.TABLE_NAME ?? 'strategy-service-local',
    region: process.env.AWS_REGION ?? 'eu-central-1',
    ...(endpoint === 'aws'
      ? // An operator has profiles, SSO or a role, not Lambda's environment variables: the SDK's standard
        // chain (env, ~/.aws config and SSO, process, IMDS). Loaded only here, so it never reaches a Lambda.
        { credentials: (await import('@aws-sdk/credential-providers')).fromNodeProviderChain() }
      : { endpoint }),
  });
  const result = await command.run(db, input as never, { usagePlans: usagePlansFromEnv(process.env) });
  db.client.destroy();
  console.log(JSON.stringify(result ?? null, null, 2));
};

main().catch((error) => {
  const details = (error as { errors?: unknown }).errors;
  console.error(
    JSON.stringify({ error: error instanceof Error ? error.message : String(error), details }, null, 2),
  );
  process.exit(1);
});
