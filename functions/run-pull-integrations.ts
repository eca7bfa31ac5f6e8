import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { defineDeployment } from '../lib/deployment';
import { logger } from '../lib/logger';
import { runMessage } from '../lib/pull/run';
import { runMessageSchema } from '../lib/pull/scheduler';
import { createTenantLimiter } from '../lib/pull/tenant-limit';
import { pullRunDeps } from '../lib/runtime';

/**
 * The pull worker: the Lambda event source of the pull queue (serverless.yml, PullRunQueue), each
 * message one claimed slot of one integration (lib/pull/run.ts), a batch's messages in parallel so one
 * slow source does not delay the others. A tenant gets at most TENANT_RUNS_AT_ONCE of them at once in
 * this container, so a tenant with many slow sources holds few of the worker's reserved instances. A
 * message that failed (the table unreachable, say) is reported as a batch item failure: SQS hands it
 * out again, and after the queue's maxReceiveCount it goes to the dead-letter queue.
 */
export const TENANT_RUNS_AT_ONCE = 2;

const limiter = createTenantLimiter(TENANT_RUNS_AT_ONCE);
const processor = new BatchProcessor(EventType.SQS);

const tenantOf = (body: string) => {
  try {
    return runMessageSchema.parse(JSON.parse(body)).tenantId;
  } catch {
    return '';
  }
};

const runRecord = async (record: SQSRecord) =>
  limiter.run(tenantOf(record.body), () => runMessage(pullRunDeps, record.body));

/**
 * The integration and the tenant (Get), the KPIs and existing records (BatchGet), the run's
 * writes, integration.disabled to the tenant's webhooks; the credentials open with the secrets
 * key.
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['KPI#'],
    BatchWriteItem: ['KPI#'],
    GetItem: ['TENANT#'],
    PutItem: ['AUDIT#', 'PULL#'],
    UpdateItem: ['KPI#', 'PULL#', 'TENANT#'],
  },
  publishesWebhookEvents: true,
  secrets: ['secretsKey'],
  tenantUrls: {
    reservedConcurrency: 20,
  },
  trigger: {
    queue: 'PullRunQueue',
    batchSize: 5,
    maximumBatchingWindow: 1,
  },
  timeout: 60,
});

export const handler = async (event: SQSEvent, context: Context) => {
  logger.addContext(context);
  return processPartialResponse(event, runRecord, processor, { context });
};
