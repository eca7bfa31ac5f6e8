import * as z from 'zod/mini';
import { auditEventPage, cursorAfterEvent } from '../lib/db/audit-events';
import { defineDeployment } from '../lib/deployment';
import { AUDIT_EVENT_TYPES, type AuditEventView, auditEventSchema } from '../lib/domain/audit-event';
import { timestamp } from '../lib/domain/values';
import { header } from '../lib/http/responses';
import { defineRoute, NEXT_CURSOR_HEADER, reply, type TextReply } from '../lib/http/route';
import { namedPageOf, PAGE_NOTE, pageQuerySchema } from '../lib/http/schemas';
import { auditEventExample } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

const NDJSON = 'application/x-ndjson';

/** An instant as the filters take it, written back as `toISOString` writes it (the keys' form). */
const instant = (what: string) =>
  z.optional(
    timestamp.check(
      z.describe(what),
      // Checks run on after a failed one: a value that is no instant is left for its error to name.
      z.overwrite((value) => {
        const at = new Date(value);
        return Number.isNaN(at.getTime()) ? value : at.toISOString();
      }),
    ),
  );

const auditQuerySchema = z
  .extend(pageQuerySchema, {
    from: instant('Events at or after this instant (ISO 8601 date-time).'),
    to: instant('Events before this instant (ISO 8601 date-time).'),
    type: z.optional(
      z
        .array(z.enum(AUDIT_EVENT_TYPES))
        .check(
          z.describe('Only events of these types; repeat the parameter for several (`?type=a&type=b`).'),
        ),
    ),
    actorId: z.optional(
      z
        .string()
        .check(z.minLength(1), z.maxLength(200), z.describe('Only events by this actor (`actor.id`).')),
    ),
    actorEmail: z.optional(
      z
        .string()
        .check(
          z.trim(),
          z.toLowerCase(),
          z.minLength(3),
          z.maxLength(254),
          z.includes('@'),
          z.describe('Only events by the user with this e-mail (`actor.email`, compared in lower case).'),
        ),
    ),
    targetId: z.optional(
      z
        .string()
        .check(z.minLength(1), z.maxLength(200), z.describe('Only events about this target (`target.id`).')),
    ),
    format: z.optional(
      z
        .enum(['json', 'ndjson'])
        .check(z.describe('`ndjson`: the export (as `Accept: application/x-ndjson`), oldest first.')),
    ),
  })
  .check(
    z.refine((query) => query.from === undefined || query.to === undefined || query.from < query.to, {
      message: 'from must be before to',
      path: ['to'],
    }),
  );

/** The export was asked for: `?format=ndjson`, or the Accept header when no format is named. */
const wantsNdjson = (format: 'json' | 'ndjson' | undefined, accept: string | undefined) =>
  format === undefined ? (accept ?? '').toLowerCase().includes(NDJSON) : format === 'ndjson';

/**
 * GET /audit-events (ADMIN): the tenant's audit log. As JSON, newest first, one page per answer. As
 * NDJSON (the export a SIEM pulls), oldest first, one event per line, with the cursor that continues
 * after the last line in X-Next-Cursor, also at the end of the log: a client that keeps it gets only
 * the events written since, on its next run.
 */
export const route = defineRoute({
  operationId: 'listAuditEvents',
  method: 'get',
  path: '/audit-events',
  tag: 'Audit',
  summary: 'List audit events',
  description: `ADMIN. The tenant’s audit events: each change of a key, KPI, webhook endpoint, pull integration or session, each login, with who made it, from where and with which request. Kept 400 days (the stage may say otherwise). Newest first, filtered by time (\`from\`, \`to\`), type (repeatable), actor and target. ${PAGE_NOTE} With \`?format=ndjson\` or \`Accept: ${NDJSON}\`: the same filter as NDJSON, oldest first, \`limit\` lines per answer; the cursor to continue with is in \`${NEXT_CURSOR_HEADER}\`, also at the end of the log, so a client that keeps it gets only newer events next time (docs/api.md, "Audit log").`,
  auth: 'jwt',
  roles: ['ADMIN'],
  query: auditQuerySchema,
  repeatedQuery: ['type'],
  responses: {
    200: {
      description: 'One page of events, newest first; or, as NDJSON, up to `limit` events, oldest first.',
      schema: namedPageOf(auditEventSchema, {
        id: 'AuditEventPage',
        description: 'One page of the tenant’s audit events, newest first.',
      }),
      example: { items: [auditEventExample] },
      alternatives: {
        [NDJSON]: {
          description: 'One AuditEvent (JSON) per line, oldest first.',
          example: `${JSON.stringify(auditEventExample)}\n`,
        },
      },
      headers: {
        [NEXT_CURSOR_HEADER]:
          'NDJSON only: the cursor (`?cursor=`) that continues after the last line; absent only when the log has no event at all in the filter.',
      },
    },
  },
  errors: [],
  core: async ({ query, user, event }) => {
    const { limit, cursor, from, to, type, actorId, actorEmail, targetId, format } = query;
    const filter = { from, to, types: type, actorId, actorEmail, targetId };
    if (!wantsNdjson(format, header(event, 'accept'))) {
      const page = await auditEventPage(db, user.tenantId, { ...filter, order: 'newest' }, { limit, cursor });
      return reply(200, page);
    }
    const page = await auditEventPage(db, user.tenantId, { ...filter, order: 'oldest' }, { limit, cursor });
    const last: AuditEventView | undefined = page.items.at(-1);
    // At the end of the log the cursor stays after the last event read, so that a later run goes on there.
    const next = page.nextCursor ?? (last ? cursorAfterEvent(user.tenantId, last) : cursor);
    return {
      status: 200,
      contentType: NDJSON,
      text: page.items.map((item) => `${JSON.stringify(item)}\n`).join(''),
      headers: next === undefined ? {} : ({ [NEXT_CURSOR_HEADER]: next } as Record<string, string>),
    } satisfies TextReply;
  },
});

/**
 * The tenant's audit events: one Query of its audit partition.
 */
export const deployment = defineDeployment({
  table: {
    Query: ['AUDIT#'],
  },
});

export const handler = jwtEndpoint(route);
