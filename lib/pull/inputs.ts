import * as z from 'zod/mini';
import {
  MAX_PULL_BINDINGS,
  MAX_PULL_HEADERS,
  MAX_PULL_NAME_LENGTH,
  MAX_PULL_URL_LENGTH,
  type PullBinding,
  pullBindingSchema,
  pullPeriodSchema,
  pullScheduleSchema,
} from '../domain/pull-integration';
import { describedRef } from '../domain/values';

/**
 * What a client sends to create or change a pull integration: the request schemas of the routes
 * (functions/*-pull-integration.ts), shared by both. What zod cannot judge alone (the URL's egress
 * rules, the JMESPath expressions, the KPIs) is checked by the use cases (./service.ts).
 */

/** Request headers the service sets itself or that carry credentials: never from the headers list. */
export const RESERVED_HEADERS = ['authorization', 'cookie', 'host'] as const;

/** RFC 9110 §5.1: a header name is a token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 §5.5: no control characters in a value (no header injection). */
const HEADER_VALUE = /^\P{Cc}*$/u;

const text = (field: string, max: number, description: string) =>
  z
    .string()
    .check(
      z.minLength(1, `${field} must not be empty`),
      z.maxLength(max, `${field} must have at most ${max} characters`),
      z.describe(description),
    );

const secret = (field: string, description: string) =>
  z
    .string()
    .check(
      z.minLength(1, `${field} must not be empty`),
      z.maxLength(4096, `${field} must have at most 4096 characters`),
      z.regex(HEADER_VALUE, `${field} must not contain control characters`),
      z.describe(`${description} Write-only: never shown again (answers show \`{ "set": true }\`).`),
    );

const headerName = z
  .string()
  .check(
    z.regex(HEADER_NAME, 'must be an HTTP header name'),
    z.maxLength(100, 'must have at most 100 characters'),
  );

export const urlField = (description: string) =>
  z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(MAX_PULL_URL_LENGTH, `must have at most ${MAX_PULL_URL_LENGTH} characters`),
      z.describe(description),
    );

/** HTTP header names are caseless: no name twice in any spelling. */
const namesOnce = (headers: Record<string, string>) =>
  // Stryker disable next-line MethodExpression: upper case finds the same repeats as lower case
  new Set(Object.keys(headers).map((name) => name.toLowerCase())).size === Object.keys(headers).length;

export const headersField = z
  .record(
    headerName,
    z
      .string()
      .check(
        z.maxLength(1000, 'must have at most 1000 characters'),
        z.regex(HEADER_VALUE, 'must not contain control characters'),
      ),
  )
  .check(
    z.refine(
      (headers) => Object.keys(headers).length <= MAX_PULL_HEADERS,
      `at most ${MAX_PULL_HEADERS} headers`,
    ),
    z.refine(
      (headers) =>
        Object.keys(headers).every(
          (name) => !(RESERVED_HEADERS as readonly string[]).includes(name.toLowerCase()),
        ),
      `must not set ${RESERVED_HEADERS.map((h) => h[0]?.toUpperCase() + h.slice(1)).join(', ')}: credentials go in auth`,
    ),
    z.refine(namesOnce, 'must not name a header twice'),
    z.describe(
      `Up to ${MAX_PULL_HEADERS} request headers that are not secret (shown as stored), e.g. \`{"Accept-Language": "en"}\`. Not \`Authorization\`, \`Cookie\` or \`Host\`: credentials go in \`auth\`.`,
    ),
  );

const optionalSecrets = <const T extends boolean>(required: T) => {
  const field = <S extends z.core.$ZodType>(schema: S) => (required ? schema : z.optional(schema));
  return z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('none') }),
    z.strictObject({ type: z.literal('bearer'), token: field(secret('token', 'The bearer token.')) }),
    z.strictObject({
      type: z.literal('header'),
      name: headerName.check(
        z.refine((name) => !['cookie', 'host'].includes(name.toLowerCase()), 'must not be Cookie or Host'),
        z.describe('The header that carries the secret, e.g. `X-API-Key`.'),
      ),
      value: field(secret('value', 'The header’s value.')),
    }),
    z.strictObject({
      type: z.literal('basic'),
      username: text('username', 200, 'The user name (shown as stored).'),
      password: field(secret('password', 'The password.')),
    }),
    z.strictObject({
      type: z.literal('oauth2_client_credentials'),
      tokenUrl: urlField(
        'The token endpoint (RFC 6749 §4.4), asked for a token with the client credentials.',
      ),
      clientId: text('clientId', 200, 'The client id (shown as stored).'),
      clientSecret: field(secret('clientSecret', 'The client secret.')),
      scope: z.optional(text('scope', 500, 'The scope to ask for; none when absent.')),
    }),
  ]);
};

/** The endpoint authentication in a creation: every secret of the type is required. */
export const authInputSchema = optionalSecrets(true).check(
  z.meta({
    id: 'PullAuthInput',
    description:
      'How the source authenticates the request: `none`, `bearer` (`token`), `header` (`name`, `value`), `basic` (`username`, `password`) or `oauth2_client_credentials` (`tokenUrl`, `clientId`, `clientSecret`, `scope`?).',
  }),
);
export type AuthInput = z.output<typeof authInputSchema>;

/** In a change: a secret not sent stays as stored (the type must stay the same then). */
export const authPatchSchema = optionalSecrets(false).check(
  z.meta({
    id: 'PullAuthPatch',
    description:
      'As in a creation, but a secret that is not sent keeps its stored value (only while the type stays the same).',
  }),
);
export type AuthPatch = z.output<typeof authPatchSchema>;

const bindings = z
  .array(pullBindingSchema)
  .check(
    z.minLength(1, 'must contain at least 1 binding'),
    z.maxLength(MAX_PULL_BINDINGS, `must contain at most ${MAX_PULL_BINDINGS} bindings`),
    z.describe(`1 to ${MAX_PULL_BINDINGS} KPIs fed by the answer, each KPI at most once.`),
  );

const fields = {
  name: text(
    'name',
    MAX_PULL_NAME_LENGTH,
    `What the integration is, 1 to ${MAX_PULL_NAME_LENGTH} characters.`,
  ),
  url: urlField(
    'The `GET` address: `https://`, no user name or password, not an address of a private, loopback or link-local network (the local stage also allows `http://` to this machine).',
  ),
  bindings,
};

/** The bindings' former name, taken for one version (CHANGELOG, 0.3.0). */
const deprecatedBindings = bindings.check(
  z.meta({ deprecated: true, description: 'The former name of `bindings`: send `bindings` instead.' }),
);

/** The bindings a body gives, under their name or the former one, and the name it used (for problem paths). */
export const givenBindings = (body: {
  bindings?: PullBinding[] | undefined;
  measurements?: PullBinding[] | undefined;
}): { bindings: PullBinding[] | undefined; list: 'bindings' | 'measurements' } =>
  body.bindings === undefined && body.measurements !== undefined
    ? { bindings: body.measurements, list: 'measurements' }
    : { bindings: body.bindings, list: 'bindings' };

const oneBindingList = z.refine(
  (body: unknown) => {
    const { bindings: current, measurements } = body as { bindings?: unknown; measurements?: unknown };
    return current === undefined || measurements === undefined;
  },
  { message: 'send bindings only (measurements is its former name)', path: ['measurements'] },
);
const scheduleField = (description: string) => describedRef(pullScheduleSchema, description);
const periodField = (description: string) => describedRef(pullPeriodSchema, description);

export const createPullIntegrationSchema = z
  .strictObject({
    name: fields.name,
    url: fields.url,
    bindings: z.optional(fields.bindings),
    measurements: z.optional(deprecatedBindings),
    headers: z.optional(headersField),
    schedule: scheduleField('When to fetch: a unit and, for day, week and month, a time of day (UTC).'),
    auth: z._default(
      describedRef(
        authInputSchema,
        'How the source authenticates the request; secrets are write-only. Default `{"type": "none"}`.',
      ),
      { type: 'none' },
    ),
    period: z.optional(
      periodField('Which period a value stands for; default `month`, as a push without a period.'),
    ),
  })
  .check(
    oneBindingList,
    z.refine((body) => body.bindings !== undefined || body.measurements !== undefined, {
      message: 'is required: 1 or more bindings',
      path: ['bindings'],
    }),
    z.meta({ id: 'CreatePullIntegrationRequest', description: 'A new pull integration.' }),
  );
export type CreatePullIntegration = z.output<typeof createPullIntegrationSchema>;

export const updatePullIntegrationSchema = z
  .strictObject({
    name: z.optional(fields.name),
    url: z.optional(fields.url),
    headers: z.optional(headersField),
    auth: z.optional(describedRef(authPatchSchema, 'A new authentication; a secret not sent is kept.')),
    schedule: z.optional(scheduleField('A new schedule; the next run moves to its next slot.')),
    period: z.optional(periodField('Which period a value stands for.')),
    bindings: z.optional(fields.bindings),
    measurements: z.optional(deprecatedBindings),
  })
  .check(
    oneBindingList,
    z.meta({
      id: 'UpdatePullIntegrationRequest',
      description:
        'What changes; fields not sent stay as they are. Any change makes a failing or disabled integration active again, due at once.',
    }),
  );
export type UpdatePullIntegration = z.output<typeof updatePullIntegrationSchema>;
