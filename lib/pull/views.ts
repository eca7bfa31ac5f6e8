import * as z from 'zod/mini';
import type { StoredIntegration } from '../db/pull-integrations';
import { usageDaySchema } from '../db/pull-integrations';
import {
  bindingValuesSchema,
  type PullRun,
  pullIntegrationSchema,
  pullRunSchema,
} from '../domain/pull-integration';
import type { Role } from '../domain/user';
import { withoutQueryValues } from '../egress/urls';
import { plannedMeasurementSchema, pushedMeasurement, pushStatusSchema } from '../push/views';
import { ANSWER_LIMITS, REDACTED } from './answer';
import type { Preview } from './run';

/**
 * What clients see of pull integrations and their runs, derived from the entities
 * (lib/domain/pull-integration.ts): never a secret (each shown as `{ "set": true }`), never the sealed
 * credentials, and not the tenant, which is the caller's own.
 */
export const pullIntegrationViewSchema = z.omit(pullIntegrationSchema, { tenantId: true }).check(
  z.meta({
    id: 'PullIntegration',
    description:
      'A pull integration: its source, schedule, bindings and state; secrets only as `{ "set": true }`.',
  }),
);

export const pullIntegrationDetailSchema = z
  .extend(z.omit(pullIntegrationSchema, { tenantId: true }), {
    usage: z
      .array(usageDaySchema)
      .check(
        z.describe('Its runs per UTC day of the last 30 days (days without runs left out), oldest first.'),
      ),
  })
  .check(
    z.meta({
      id: 'PullIntegrationDetail',
      description: 'A pull integration with its usage of the last 30 days.',
    }),
  );

export const pullRunViewSchema = z
  .omit(pullRunSchema, { tenantId: true })
  .check(z.meta({ id: 'PullRun', description: 'One run: what was fetched and what each binding stored.' }));

export const previewSchema = z
  .object({
    httpStatus: z.nullable(z.int()).check(z.describe('The source’s status; `null` without an answer.')),
    durationMs: z.int(),
    errorClass: pullRunSchema.shape.errorClass,
    error: pullRunSchema.shape.error,
    answer: z
      .unknown()
      .check(
        z.describe(
          `The source’s JSON answer as parsed, to read its paths from; \`null\` without one. Shown to ${ANSWER_LIMITS.values} values at most (the first ${ANSWER_LIMITS.arrayItems} items of an array, ${ANSWER_LIMITS.stringLength} characters of a string, ${ANSWER_LIMITS.depth} levels), every value where it is in the full answer, so its path is the same. Any credential the request carried is replaced by \`"${REDACTED}"\` wherever the source echoed it.`,
        ),
      ),
    answerTruncated: z
      .boolean()
      .check(
        z.describe('Whether the answer was cut to those limits (`answer` shows less than the source sent).'),
      ),
    bindings: z
      .array(
        bindingValuesSchema.check(z.meta({ id: 'PullPreviewBinding', description: 'One binding’s values.' })),
      )
      .check(z.describe('Each binding’s extracted values, or why it failed (`problem`).')),
    measurements: z
      .array(z.object({ status: pushStatusSchema, measurement: plannedMeasurementSchema }))
      .check(z.describe('What a run would write now: created or updated, with the stored record’s shape.')),
  })
  .check(
    z.meta({
      id: 'PullPreview',
      description: 'A fetch and its extraction, with nothing stored and the schedule unchanged.',
    }),
  );

/**
 * An integration as a role sees it. Only ADMINs, who manage integrations, see its URLs as stored;
 * other roles see them without their query values (`?api_key=[redacted]`), which may hold a credential.
 */
export const integrationView = (
  { tenantId: _tenant, sealedSecrets: _sealed, claimedSlot: _claim, ...integration }: StoredIntegration,
  role: Role,
) => {
  if (role === 'ADMIN') return integration;
  const { auth } = integration;
  return {
    ...integration,
    url: withoutQueryValues(integration.url),
    auth:
      auth.type === 'oauth2_client_credentials'
        ? { ...auth, tokenUrl: withoutQueryValues(auth.tokenUrl) }
        : auth,
  };
};
export const runView = ({ tenantId: _tenant, ...run }: PullRun) => run;

/** A preview's planned measurements as a push's dry run shows them: the record, without provenance. */
export const previewView = (preview: Preview) => ({
  ...preview,
  measurements: preview.measurements.map(({ status, measurement }) => ({
    status,
    measurement: pushedMeasurement(measurement),
  })),
});
