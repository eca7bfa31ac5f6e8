/**
 * Operator CLI: `npm run -s admin -- <command> [--option value ...]`; `--help` after any command
 * explains it. Prints JSON (or, with `--field`, one field as plain text, for scripts).
 *
 * Database: the table named by TABLE_NAME (default strategy-service-local) at DYNAMODB_ENDPOINT, or,
 * without it, DynamoDB Local on DYNAMODB_PORT, the same variable `npm start` reads, else where the
 * running `npm start` put it (scripts/local-data.ts `localDynamoDb`).
 * DYNAMODB_ENDPOINT=aws uses AWS with the usual credential chain, and then also the stage's
 * usage plans (scripts/usage-plans.ts). Every command calls the same lib functions as the service.
 *
 * Dates (one format everywhere): ISO 8601. A calendar date is `YYYY-MM-DD`; a moment
 * (`--expires-at`) is a date-time with a zone, `2027-06-30T18:00:00Z` or `…+02:00`, or a date alone,
 * meaning 00:00:00 UTC of that day. Output is always UTC with milliseconds, `2027-06-30T00:00:00.000Z`.
 */
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as z from 'zod/mini';
import { indexExistingKeyExpiries } from '../lib/alerts/check';
import { keyNameSchema, kpiScopeSchema } from '../lib/api-keys/inputs';
import { ROLL_GRACE_HOURS } from '../lib/api-keys/rules';
import { createApiKey, listApiKeys, revokeApiKey, rollApiKey } from '../lib/api-keys/service';
import { apiKeyView, createdApiKeyView } from '../lib/api-keys/views';
import { revokeAllSessions, updateAccount } from '../lib/auth/accounts';
import { hashPassword } from '../lib/auth/passwords';
import { createDatabase, type Database } from '../lib/db/client';
import { createKpi, listKpis } from '../lib/db/kpis';
import type { Page, PageRequest } from '../lib/db/pagination';
import { createStrategicCycle, listStrategicCycles } from '../lib/db/strategic-cycles';
import { createTenant, getTenant, listTenants, type Tenant, updateTenant } from '../lib/db/tenants';
import { createUser, listUsers, normalizeEmail, type User } from '../lib/db/users';
import type { Actor } from '../lib/domain/api-key';
import { type AuditContext, operatorContext } from '../lib/domain/audit-event';
import {
  GRACE_HOURS,
  graceHoursSchema,
  KPI_CADENCES,
  KPI_DIRECTIONS,
  KPI_TYPES,
  kpiCadenceSchema,
  kpiDirectionSchema,
} from '../lib/domain/kpi';
import { FEATURES, PLANS } from '../lib/domain/plan';
import { ROLES } from '../lib/domain/user';
import { AppError } from '../lib/errors';
import { parseInput } from '../lib/http/validation';
import { inferKpiPeriods, migrateKpiIndex } from '../lib/kpis/periods';
import { updateKpi } from '../lib/kpis/settings';
import type { Publish } from '../lib/webhooks/events';
import { webhookLocalQueue } from '../lib/webhooks/local-queue';
import { createPublisher } from '../lib/webhooks/publisher';
import { sqsQueue } from '../lib/webhooks/queue';
import { localDynamoDb, unreachableDynamoDb } from './local-data';
import { type UsagePlans, usagePlansFromEnv } from './usage-plans';

// ---------------------------------------------------------------------------------------------------
// Option types

const nonEmpty = z.string().check(z.minLength(1, 'must not be empty'));
const commaList = z.pipe(
  z.string(),
  z.transform((value: string) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  ),
);
const features = z.pipe(commaList, z.array(z.enum(FEATURES)));
const bool = z.pipe(
  z.enum(['true', 'false'], 'must be true or false'),
  z.transform((value: 'true' | 'false') => value === 'true'),
);

const DATE_HELP = 'ISO 8601 date, YYYY-MM-DD';
const MOMENT_HELP =
  'an ISO 8601 date-time with a zone, 2027-06-30T18:00:00Z, or a date, 2027-06-30 (00:00 UTC)';

/** A calendar date. */
const date = z.iso.date(`must be an ${DATE_HELP}, e.g. 2027-06-30`);

/** A moment: a date-time with a zone, or a date alone (00:00:00 UTC of that day); normalized to UTC. */
const moment = z.pipe(
  z
    .string()
    .check(
      z.refine(
        (value) =>
          z.safeParse(date, value).success || z.safeParse(z.iso.datetime({ offset: true }), value).success,
        `must be ${MOMENT_HELP}`,
      ),
    ),
  z.transform((value: string) =>
    new Date(z.safeParse(date, value).success ? `${value}T00:00:00Z` : value).toISOString(),
  ),
);
const futureMoment = z.pipe(
  moment,
  z.string().check(z.refine((value) => Date.parse(value) > Date.now(), 'must be in the future')),
);

const wholeNumber = (min: number, max: number) =>
  z.pipe(
    z.string().check(z.regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)),
    z.pipe(
      z.transform((value: string) => Number(value)),
      z.number().check(z.gte(min, `must be at least ${min}`), z.lte(max, `must be at most ${max}`)),
    ),
  );

// ---------------------------------------------------------------------------------------------------
// Commands

interface CommandContext {
  /** The deployed stage's usage plans, or undefined on the local stack. */
  usagePlans: UsagePlans | undefined;
  /** Who runs the CLI, recorded on the API keys they create, roll or revoke. */
  operator: Actor;
  /** The same operator as the actor of the audit events of the changes they make. */
  audit: AuditContext;
  /** Key events go to the tenant's webhooks, as from the API. */
  publish: Publish;
}

interface Command<S extends z.ZodMiniObject> {
  summary: string;
  /** Value placeholder and help text of each option of the schema (a test checks they match). */
  options: { [K in keyof S['shape']]: [value: string, help: string] };
  /**
   * The option that holds a secret (a password): never taken from the arguments, where the shell's
   * history keeps it and the process list shows it to every user of the machine, but from the
   * environment variable `env` or else from standard input (./admin.ts `readSecret`).
   */
  secret?: { option: keyof S['shape'] & string; env: string };
  schema: S;
  example: string;
  run: (db: Database, input: z.output<S>, context: CommandContext) => Promise<unknown>;
}

const command = <S extends z.ZodMiniObject>(definition: Command<S>) => definition;

/** What the CLI shows of a tenant: everything but its usage plan key, which nobody is shown. */
const tenantView = ({ usageKey: _usageKey, ...tenant }: Tenant) => tenant;
const userView = ({ passwordHash: _hash, ...user }: User) => user;

/** Every page of a list. */
const all = async <T>(list: (page: PageRequest) => Promise<Page<T>>): Promise<T[]> => {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await list({ limit: 1000, cursor });
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
};

/** Lists of a tenant say so when the tenant does not exist, rather than print an empty list. */
const requireTenant = async (db: Database, tenantId: string) => {
  const tenant = await getTenant(db, tenantId);
  if (!tenant) throw new AppError('NOT_FOUND', `Tenant ${tenantId} not found.`);
  return tenant;
};

const TENANT: [string, string] = ['<id>', 'the tenant (required; see list-tenants)'];

const commands = {
  'create-tenant': command({
    summary: 'Create a tenant (organization); on AWS also its usage plan key.',
    options: {
      name: ['<text>', 'the tenant’s name (required)'],
      plan: ['<plan>', `${PLANS.join(' | ')} (default free)`],
      features: ['<list>', `comma-separated plan features: ${FEATURES.join(', ')} (default none)`],
      active: ['<bool>', 'true | false (default true)'],
    },
    schema: z.strictObject({
      name: nonEmpty,
      plan: z._default(z.enum(PLANS), 'free'),
      features: z._default(features, []),
      active: z._default(bool, true),
    }),
    example: 'create-tenant --name "Initrode" --plan business --features kpi_push_measurement',
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
  }),
  'update-tenant': command({
    summary:
      'Change a tenant’s name, plan, features or active flag; on AWS a plan change moves its usage plan key.',
    options: {
      tenant: TENANT,
      name: ['<text>', 'new name'],
      plan: ['<plan>', `new plan: ${PLANS.join(' | ')}`],
      features: [
        '<list>',
        `comma-separated plan features, replacing the current ones: ${FEATURES.join(', ')}`,
      ],
      active: ['<bool>', 'true | false'],
    },
    schema: z.strictObject({
      tenant: nonEmpty,
      name: z.optional(nonEmpty),
      plan: z.optional(z.enum(PLANS)),
      features: z.optional(features),
      active: z.optional(bool),
    }),
    example: 'update-tenant --tenant "$TENANT" --plan enterprise',
    run: async (db, { tenant, ...patch }, { usagePlans }) => {
      const before = await requireTenant(db, tenant);
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
  }),
  'get-tenant': command({
    summary: 'Show one tenant.',
    options: { tenant: TENANT },
    schema: z.strictObject({ tenant: nonEmpty }),
    example: 'get-tenant --tenant "$TENANT"',
    run: async (db, { tenant }) => tenantView(await requireTenant(db, tenant)),
  }),
  'list-tenants': command({
    summary: 'List every tenant, oldest first.',
    options: {},
    schema: z.strictObject({}),
    example: 'list-tenants --field name',
    run: async (db) => (await all((page) => listTenants(db, page))).map(tenantView),
  }),
  'index-key-expiries': command({
    summary:
      'Put every key that still expires into the expiry index the alert check reads (once, after upgrading a stage whose keys predate it).',
    options: {},
    schema: z.strictObject({}),
    example: 'index-key-expiries',
    run: async (db) => ({ indexed: await indexExistingKeyExpiries(db, Date.now()) }),
  }),
  'create-user': command({
    summary: 'Create a user of a tenant, who can then sign in.',
    options: {
      tenant: TENANT,
      email: ['<address>', 'the e-mail to sign in with (required; unique across tenants)'],
      password: [
        '',
        'at least 8 characters (required): from USER_PASSWORD, or else standard input; never an argument',
      ],
      role: ['<role>', `${ROLES.join(' | ')} (default VIEWER)`],
    },
    secret: { option: 'password', env: 'USER_PASSWORD' },
    schema: z.strictObject({
      tenant: nonEmpty,
      email: z.email('must be an e-mail address'),
      password: z.string().check(z.minLength(8, 'must be at least 8 characters')),
      role: z._default(z.enum(ROLES), 'VIEWER'),
    }),
    example: 'create-user --tenant "$TENANT" --email ops@initrode.example --role ADMIN < password.txt',
    run: async (db, { tenant, email, password, role }) =>
      userView(
        await createUser(db, {
          tenantId: tenant,
          email: normalizeEmail(email),
          role,
          passwordHash: await hashPassword(password),
        }),
      ),
  }),
  'update-user': command({
    summary:
      'Change a user’s role, or disable or enable them. Disabling or demoting ends every session of the user.',
    options: {
      tenant: TENANT,
      user: ['<id>', 'the user (required; see list-users)'],
      role: ['<role>', `new role: ${ROLES.join(' | ')}`],
      disabled: ['<bool>', 'true | false'],
    },
    schema: z.strictObject({
      tenant: nonEmpty,
      user: nonEmpty,
      role: z.optional(z.enum(ROLES)),
      disabled: z.optional(bool),
    }),
    example: 'update-user --tenant "$TENANT" --user "$USER_ID" --role VIEWER --disabled true',
    run: async (db, { tenant, user, ...patch }, { audit }) =>
      userView(await updateAccount(db, tenant, user, patch, audit)),
  }),
  'revoke-sessions': command({
    summary:
      'End every session of a user: their refresh tokens stop working at once, their access tokens within the session cache’s bound (60 s at most).',
    options: { tenant: TENANT, user: ['<id>', 'the user (required; see list-users)'] },
    schema: z.strictObject({ tenant: nonEmpty, user: nonEmpty }),
    example: 'revoke-sessions --tenant "$TENANT" --user "$USER_ID"',
    run: async (db, { tenant, user }, { audit }) => {
      const { id, tokenVersion } = await revokeAllSessions(db, tenant, user, audit);
      return { id, tokenVersion, sessions: 'revoked' };
    },
  }),
  'list-users': command({
    summary: 'List the users of a tenant, oldest first.',
    options: { tenant: TENANT },
    schema: z.strictObject({ tenant: nonEmpty }),
    example: 'list-users --tenant "$TENANT"',
    run: async (db, { tenant }) => {
      await requireTenant(db, tenant);
      return (await all((page) => listUsers(db, tenant, page))).map(userView);
    },
  }),
  'create-kpi': command({
    summary: 'Create a KPI of a tenant.',
    options: {
      tenant: TENANT,
      type: ['<type>', `the kpiType (required): ${KPI_TYPES.join(', ')}`],
      name: ['<text>', 'the KPI’s name (required)'],
    },
    schema: z.strictObject({ tenant: nonEmpty, type: z.enum(KPI_TYPES), name: nonEmpty }),
    example: 'create-kpi --tenant "$TENANT" --type BSC_KPI --name "Revenue"',
    run: (db, { tenant, type, name }) => createKpi(db, tenant, { type, name }),
  }),
  'list-kpis': command({
    summary: 'List the KPIs of a tenant, oldest first.',
    options: { tenant: TENANT },
    schema: z.strictObject({ tenant: nonEmpty }),
    example: 'list-kpis --tenant "$TENANT"',
    run: async (db, { tenant }) => {
      await requireTenant(db, tenant);
      return all((page) => listKpis(db, tenant, page));
    },
  }),
  'infer-kpi-periods': command({
    summary:
      'Store the period of each KPI made before KPIs had one, as its history and cadence show (once, after upgrading a stage; KPIs with a period keep it).',
    options: { tenant: ['<id>', 'only this tenant (default: every tenant)'] },
    schema: z.strictObject({ tenant: z.optional(nonEmpty) }),
    example: 'infer-kpi-periods --tenant "$TENANT"',
    run: async (db, { tenant }) => {
      const tenants = tenant
        ? [(await requireTenant(db, tenant)).id]
        : (await all((page) => listTenants(db, page))).map(({ id }) => id);
      const results = [];
      for (const id of tenants) results.push(...(await inferKpiPeriods(db, id)));
      return results;
    },
  }),
  'migrate-kpi-index': command({
    summary:
      'Put each KPI where the KPI lists find it (by archived state and cycle) and store each tenant’s count of live KPIs (once, after upgrading a stage; running it again moves nothing).',
    options: { tenant: ['<id>', 'only this tenant (default: every tenant)'] },
    schema: z.strictObject({ tenant: z.optional(nonEmpty) }),
    example: 'migrate-kpi-index --tenant "$TENANT"',
    run: async (db, { tenant }) => {
      const tenants = tenant
        ? [(await requireTenant(db, tenant)).id]
        : (await all((page) => listTenants(db, page))).map(({ id }) => id);
      const results = [];
      for (const id of tenants) results.push(await migrateKpiIndex(db, id));
      return results;
    },
  }),
  'update-kpi': command({
    summary:
      'Set how a KPI’s status is measured (direction, tolerance, qualitative) and how often it expects data (cadence, grace hours).',
    options: {
      tenant: TENANT,
      id: ['<id>', 'the KPI (required; see list-kpis)'],
      direction: ['<direction>', `${KPI_DIRECTIONS.join(' or ')}`],
      tolerance: ['<fraction>', 'how far below (or above) the target is still at risk, 0 to 1 (e.g. 0.1)'],
      qualitative: ['<true|false>', 'true: the KPI has no status'],
      cadence: ['<cadence>', `how often measurements are expected: ${KPI_CADENCES.join(', ')}`],
      'grace-hours': ['<hours>', `how late they may be before the KPI is quiet, 0 to ${GRACE_HOURS.max}`],
    },
    schema: z
      .strictObject({
        tenant: nonEmpty,
        id: nonEmpty,
        direction: z.optional(kpiDirectionSchema),
        tolerance: z.optional(
          z.pipe(
            z.string().check(z.regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a number from 0 to 1')),
            z.transform(Number),
          ),
        ),
        qualitative: z.optional(
          z.pipe(
            z.enum(['true', 'false']),
            z.transform((value) => value === 'true'),
          ),
        ),
        cadence: z.optional(kpiCadenceSchema),
        'grace-hours': z.optional(
          z.pipe(
            z.string().check(z.regex(/^\d+$/, 'must be a whole number of hours')),
            z.pipe(z.transform(Number), graceHoursSchema),
          ),
        ),
      })
      .check(
        z.refine(
          (input) =>
            [input.direction, input.tolerance, input.qualitative, input.cadence, input['grace-hours']].some(
              (v) => v !== undefined,
            ),
          {
            message: 'give at least one of --direction, --tolerance, --qualitative, --cadence, --grace-hours',
          },
        ),
      ),
    example:
      'update-kpi --tenant "$TENANT" --id "$KPI" --direction lower_is_better --cadence daily --grace-hours 3',
    run: async (db, { tenant, id, 'grace-hours': graceHours, ...rule }, { audit }) => {
      const kpi = await updateKpi(db, tenant, id, { ...rule, graceHours }, audit);
      if (!kpi) throw new AppError('NOT_FOUND', `KPI ${id} not found in tenant ${tenant}.`);
      return kpi;
    },
  }),
  'create-cycle': command({
    summary: 'Create a strategic cycle of a tenant.',
    options: {
      tenant: TENANT,
      name: ['<text>', 'the cycle’s name (required)'],
      start: ['<date>', `first day (required): ${DATE_HELP}`],
      end: ['<date>', `last day, on or after the start (required): ${DATE_HELP}`],
    },
    schema: z.strictObject({ tenant: nonEmpty, name: nonEmpty, start: date, end: date }).check(
      z.refine((cycle) => cycle.start <= cycle.end, {
        path: ['end'],
        message: 'must be on or after --start',
      }),
    ),
    example: 'create-cycle --tenant "$TENANT" --name "FY 2027" --start 2027-01-01 --end 2027-12-31',
    run: (db, { tenant, name, start, end }) =>
      createStrategicCycle(db, tenant, { name, startDate: start, endDate: end }),
  }),
  'list-cycles': command({
    summary: 'List the strategic cycles of a tenant, oldest first.',
    options: { tenant: TENANT },
    schema: z.strictObject({ tenant: nonEmpty }),
    example: 'list-cycles --tenant "$TENANT"',
    run: async (db, { tenant }) => {
      await requireTenant(db, tenant);
      return all((page) => listStrategicCycles(db, tenant, page));
    },
  }),
  'create-api-key': command({
    summary: 'Create an API key of a tenant. Prints the raw key: this is the only time it is shown.',
    options: {
      tenant: TENANT,
      name: ['<text>', 'what the key is for, 1 to 100 characters (required)'],
      'expires-at': ['<moment>', `when the key stops working (default never): ${MOMENT_HELP}`],
      'kpi-ids': ['<ids>', 'comma-separated KPI ids the key may push to, 1 to 100 (default every KPI)'],
    },
    schema: z.strictObject({
      tenant: nonEmpty,
      name: keyNameSchema,
      'expires-at': z.optional(futureMoment),
      'kpi-ids': z.optional(z.pipe(commaList, kpiScopeSchema)),
    }),
    example: 'create-api-key --tenant "$TENANT" --name "CI" --expires-at 2030-12-31 --kpi-ids "$KPI"',
    run: async (db, input, { operator }) =>
      createdApiKeyView(
        await createApiKey(db, {
          tenantId: input.tenant,
          name: input.name,
          expiresAt: input['expires-at'],
          kpiIds: input['kpi-ids'],
          createdBy: operator,
        }),
      ),
  }),
  'roll-api-key': command({
    summary:
      'Replace an API key: a new key (printed once) with the same name and scope; the old one expires after the grace period.',
    options: {
      tenant: TENANT,
      id: ['<id>', 'the key to roll (required; see list-api-keys)'],
      'grace-period-hours': [
        '<hours>',
        `how long the old key keeps working, 0 to ${ROLL_GRACE_HOURS.max} (default ${ROLL_GRACE_HOURS.default}; 0: it stops now)`,
      ],
      'expires-at': [
        '<moment>',
        `the new key’s expiration (default: the old key’s lifetime from now): ${MOMENT_HELP}`,
      ],
    },
    schema: z.strictObject({
      tenant: nonEmpty,
      id: nonEmpty,
      'grace-period-hours': z.optional(wholeNumber(0, ROLL_GRACE_HOURS.max)),
      'expires-at': z.optional(futureMoment),
    }),
    example: 'roll-api-key --tenant "$TENANT" --id "$KEY_ID" --grace-period-hours 48',
    run: async (db, input, { operator, publish }) => {
      const { created, previous } = await rollApiKey(
        db,
        {
          tenantId: input.tenant,
          keyId: input.id,
          gracePeriodHours: input['grace-period-hours'],
          expiresAt: input['expires-at'],
          by: operator,
        },
        publish,
      );
      return { ...createdApiKeyView(created), previous: apiKeyView(previous) };
    },
  }),
  'list-api-keys': command({
    summary: 'List the API keys of a tenant with their status, scope and audit trail (never the keys).',
    options: { tenant: TENANT },
    schema: z.strictObject({ tenant: nonEmpty }),
    example: 'list-api-keys --tenant "$TENANT"',
    run: async (db, { tenant }) => {
      await requireTenant(db, tenant);
      const now = Date.now();
      return (await all((page) => listApiKeys(db, tenant, page))).map((key) => apiKeyView(key, now));
    },
  }),
  'revoke-api-key': command({
    summary: 'Revoke an API key at once (it can never be reactivated).',
    options: { tenant: TENANT, id: ['<id>', 'the key to revoke (required; see list-api-keys)'] },
    schema: z.strictObject({ tenant: nonEmpty, id: nonEmpty }),
    example: 'revoke-api-key --tenant "$TENANT" --id "$KEY_ID"',
    run: async (db, { tenant, id }, { operator, publish }) => {
      await revokeApiKey(db, tenant, id, operator, publish);
      return { id, status: 'revoked' };
    },
  }),
};

type CommandName = keyof typeof commands;
// biome-ignore lint/suspicious/noExplicitAny: the table holds commands of different option schemas
type AnyCommand = Command<any>;

// ---------------------------------------------------------------------------------------------------
// Help

const GLOBAL_OPTIONS: Record<string, [string, string]> = {
  field: ['<name>', 'print only this field of the result, as plain text (lists: one line per item)'],
  help: ['', 'show this help'],
};

const isOptional = (schema: unknown) => (schema as { _zod: { optin?: string } })._zod.optin === 'optional';

const optionLines = (options: Record<string, [string, string]>, secret?: AnyCommand['secret']) => {
  const flags = Object.entries(options).map(([name, [value]]) =>
    name === secret?.option ? `$${secret.env} or stdin` : `--${name}${value ? ` ${value}` : ''}`,
  );
  const width = Math.max(...flags.map((flag) => flag.length)) + 2;
  return Object.values(options).map(([, help], i) => `  ${flags[i]?.padEnd(width)}${help}`);
};

const ENVIRONMENT = [
  'Environment:',
  '  TABLE_NAME         the table (default strategy-service-local)',
  "  DYNAMODB_PORT      port of the local DynamoDB, as for npm start (default: npm start's, else 8000)",
  '  DYNAMODB_ENDPOINT  a DynamoDB endpoint URL instead; "aws" for AWS (then STAGE or TABLE_NAME name the stage)',
  '  OPERATOR           your name, recorded on the API keys you create, roll or revoke (default: your login)',
];

const commandHelp = (name: string, { summary, options, schema, example, secret }: AnyCommand) => {
  const required = (Object.entries(options) as [string, [string, string]][]).filter(
    ([option]) => !isOptional(schema.shape[option]) && option !== secret?.option,
  );
  return [
    `Usage: npm run -s admin -- ${name}${required.map(([option, [value]]) => ` --${option} ${value}`).join('')} [options]`,
    '',
    summary,
    '',
    'Options:',
    ...optionLines({ ...options, ...GLOBAL_OPTIONS }, secret),
    '',
    `Dates: a day is ${DATE_HELP}; a moment is ${MOMENT_HELP}. Output is UTC.`,
    '',
    'Example:',
    `  npm run -s admin -- ${example}`,
  ].join('\n');
};

const overview = () =>
  [
    'Usage: npm run -s admin -- <command> [--option value ...]',
    '       npm run -s admin -- <command> --help',
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, { summary }]) => `  ${name.padEnd(16)} ${summary}`),
    '',
    ...ENVIRONMENT,
    '',
    'Output is JSON; --field <name> prints one field as plain text.',
  ].join('\n');

// ---------------------------------------------------------------------------------------------------
// Running a command

/** The database the CLI works on: AWS for `DYNAMODB_ENDPOINT=aws`, else the local stack's DynamoDB. */
const localDb = (env: NodeJS.ProcessEnv) =>
  env.DYNAMODB_ENDPOINT === 'aws' ? undefined : localDynamoDb(resolve(__dirname, '..'), env);
const endpointFromEnv = (env: NodeJS.ProcessEnv): string | undefined => localDb(env)?.endpoint;

/** A field of the result as plain text: one line per item for a list. */
const pick = (result: unknown, field: string): string => {
  const one = (value: unknown) => {
    const picked = (value as Record<string, unknown> | null)?.[field];
    if (picked === undefined) throw new Error(`The result has no field "${field}".`);
    return typeof picked === 'string' ? picked : JSON.stringify(picked);
  };
  return Array.isArray(result) ? result.map(one).join('\n') : one(result);
};

/** Error paths name the options as typed: `kpiIds[1]` → `kpi-ids[1]`. */
const asOption = (path: string) => path.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

class UsageError extends Error {}

/**
 * A command's secret: the environment variable if it is set, else standard input up to its end (one
 * trailing line break dropped), so `… < file`, a pipe and a here-document all work. A terminal is
 * refused rather than read: what is typed there would be shown.
 */
const readSecret = async ({ option, env }: NonNullable<AnyCommand['secret']>): Promise<string> => {
  const fromEnv = process.env[env];
  if (fromEnv) return fromEnv;
  if (process.stdin.isTTY) {
    throw new UsageError(
      `Give the ${option} in ${env} or on standard input (… < file), not typed at a terminal: for example read -rs ${env} && export ${env}.`,
    );
  }
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.replace(/\r?\n$/, '');
};

const main = async () => {
  const [name, ...args] = process.argv.slice(2);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? args[0] : undefined;
    if (topic && topic in commands) {
      console.log(commandHelp(topic, commands[topic as CommandName] as AnyCommand));
    } else {
      (name === undefined ? console.error : console.log)(overview());
      if (name === undefined) process.exit(2);
    }
    return;
  }
  if (!(name in commands)) {
    throw new UsageError(`Unknown command "${name}". Run npm run -s admin -- --help for the list.`);
  }
  const definition = commands[name as CommandName] as AnyCommand;
  if (args.includes('--help') || args.includes('-h')) {
    console.log(commandHelp(name, definition));
    return;
  }
  const { secret } = definition;
  if (secret && args.some((arg) => arg === `--${secret.option}` || arg.startsWith(`--${secret.option}=`))) {
    throw new UsageError(
      `--${secret.option} is refused: an argument stays in the shell's history and shows in the process list. Give the ${secret.option} in ${secret.env} or on standard input.`,
    );
  }
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: Object.fromEntries(
        [...Object.keys(definition.options).filter((option) => option !== secret?.option), 'field'].map(
          (option) => [option, { type: 'string' as const }],
        ),
      ),
    }));
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message}. Run npm run -s admin -- ${name} --help for its options.`,
    );
  }
  const { field, ...options } = values;
  const input = parseInput(
    definition.schema,
    secret ? { ...options, [secret.option]: await readSecret(secret) } : options,
    { what: 'command line' },
  );
  // The SDK's notice about Node 20 support is known (docs/development.md); it would bury the CLI's own output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const endpoint = endpointFromEnv(process.env);
  const db = createDatabase({
    tableName: process.env.TABLE_NAME || 'strategy-service-local',
    region: process.env.AWS_REGION || 'eu-central-1',
    // The stage's retention of audit events, when it sets one (docs/operations.md, "Stage parameters").
    auditRetentionDays: Number(process.env.AUDIT_RETENTION_DAYS) || undefined,
    ...(endpoint === undefined
      ? // An operator has profiles, SSO or a role, not Lambda's environment variables: the SDK's standard
        // chain (env, ~/.aws config and SSO, process, IMDS). Loaded only here, so it never reaches a Lambda.
        { credentials: (await import('@aws-sdk/credential-providers')).fromNodeProviderChain() }
      : { endpoint }),
  });
  const operator: Actor = {
    type: 'operator',
    name: (process.env.OPERATOR || userInfo().username).slice(0, 64),
  };
  // On a deployed stage the stage's delivery queue (WEBHOOK_QUEUE_URL, docs/operations.md); locally the
  // local queue in the table, which `npm run alerts:run` drains. A key change on AWS without the queue
  // would announce itself to nobody: refused before anything is written.
  const queueUrl = process.env.WEBHOOK_QUEUE_URL;
  if (endpoint === undefined && !queueUrl && (name === 'revoke-api-key' || name === 'roll-api-key')) {
    throw new UsageError(
      `${name} on AWS publishes a webhook event: set WEBHOOK_QUEUE_URL to the stage's webhook delivery queue (the stack resource WebhookDeliveryQueue).`,
    );
  }
  const queue = queueUrl
    ? sqsQueue({ url: queueUrl, region: process.env.AWS_REGION || 'eu-central-1' })
    : webhookLocalQueue(db);
  const result = await definition.run(db, input, {
    usagePlans: usagePlansFromEnv(process.env),
    operator,
    audit: operatorContext(operator.name),
    publish: createPublisher({ db, queue }),
  });
  db.client.destroy();
  console.log(field ? pick(result, field) : JSON.stringify(result ?? null, null, 2));
};

main().catch((error) => {
  const details = (error as { errors?: { path: string; message: string }[] }).errors?.map((detail) => ({
    ...detail,
    path: asOption(detail.path),
  }));
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  const local = localDb(process.env);
  const hint = code === 'ECONNREFUSED' && local ? `. ${unreachableDynamoDb(local)}` : '';
  console.error(JSON.stringify({ error: `${message}${hint}`, details }, null, 2));
  process.exit(error instanceof UsageError ? 2 : 1);
});
