import type { Context } from 'aws-lambda';
import { defineDeployment } from '../lib/deployment';
import { logger } from '../lib/logger';
import { schedulePass } from '../lib/pull/scheduler';
import { db, pullQueue } from '../lib/runtime';

/**
 * The sparse index gsi2 (due integrations: Query only), the claims (Update of the integration
 * item), one message per claimed slot (SQS; on the local stage a Put of `QUEUE#*`).
 */
export const deployment = defineDeployment({
  table: {
    PutItem: ['QUEUE#'],
    UpdateItem: ['TENANT#'],
  },
  indexes: ['gsi2'],
  queues: {
    PullRunQueue: ['SendMessage'],
  },
  trigger: {
    schedule: 'rate(1 minute)',
  },
  timeout: 60,
});

/**
 * The pull scheduler, run by an EventBridge schedule every minute (serverless.yml,
 * schedulePullIntegrations): the due integrations, found with Queries of the sparse index, each slot
 * claimed with a conditional write and handed to the worker through SQS (lib/pull/run.ts). It calls no
 * tenant URL itself. Locally, `npm run pull:run` runs the same pass.
 *
 * A pass whose messages could not all be sent fails, so that the function's Errors alarm tells the
 * operator; those slots are due again when their lease ends.
 */
export const handler = async (_event: unknown, context: Context) => {
  logger.addContext(context);
  const result = await schedulePass({ db, queue: pullQueue, now: Date.now() });
  logger.info('pull scheduler', { ...result });
  if (result.failed > 0) {
    throw new Error(
      `${result.failed} due pull integrations were not handed to the worker; due again after the lease.`,
    );
  }
  return result;
};
