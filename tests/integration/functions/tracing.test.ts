import type { Socket } from 'node:dgram';
import { afterAll, describe, expect, it, vi } from 'vitest';

/**
 * X-Ray through Powertools Tracer, as on Lambda: before anything is imported, this file gives the
 * process the environment Lambda gives a function with active tracing, and an X-Ray daemon address
 * where a UDP socket of its own listens. The X-Ray SDK sends each closed subsegment there, as it sends
 * them to the daemon on Lambda, so the test reads what AWS would receive.
 */
const daemon = await vi.hoisted(async () => {
  const { createSocket } = await import('node:dgram');
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const documents: Record<string, any>[] = [];
  // Each datagram is a header line and one segment document.
  socket.on('message', (message) =>
    documents.push(JSON.parse(message.toString('utf8').split('\n')[1] ?? '{}')),
  );
  Object.assign(process.env, {
    LAMBDA_TASK_ROOT: '/var/task',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${socket.address().port}`,
    AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
    POWERTOOLS_TRACE_ENABLED: 'true',
    _HANDLER: 'functions/list-strategic-cycles.handler',
  });
  return { socket: socket as Socket, documents };
});

const { handler } = await import('../../../functions/list-strategic-cycles');
const { bearer, createTestTenant } = await import('../../support/fixtures');
const { invoke } = await import('../../support/events');

afterAll(() => daemon.socket.close());

const until = async (done: () => boolean) => {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
};

describe('tracing on Lambda (Powertools Tracer)', () => {
  it('traces the handler, and each DynamoDB call as a subsegment inside it', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    // Lambda sets the trace header of each invocation in the environment.
    process.env._X_AMZN_TRACE_ID =
      'Root=1-6748a1b2-3c4d5e6f7a8b9c0d1e2f3a4b;Parent=53995c3f42cd8ad8;Sampled=1';
    const answer = await invoke(handler, {
      path: '/api/strategic-cycles',
      headers: bearer(tenant.users.VIEWER.token),
    });
    expect(answer.status).toBe(200);
    const dynamoCall = (operation: string) =>
      daemon.documents.find((doc) => doc.name === 'DynamoDB' && doc.aws?.operation === operation);
    const handlerSegment = () =>
      daemon.documents.find((doc) => doc.name === '## functions/list-strategic-cycles.handler');
    await until(() => Boolean(handlerSegment() && dynamoCall('Query') && dynamoCall('BatchGetItem')));
    expect(handlerSegment()).toMatchObject({ trace_id: '1-6748a1b2-3c4d5e6f7a8b9c0d1e2f3a4b' });
    // The session check's read (X-Ray names no table for a batch), then the query.
    for (const [operation, aws] of [
      ['BatchGetItem', {}],
      ['Query', { table_name: expect.any(String) }],
    ] as const) {
      expect(dynamoCall(operation)).toMatchObject({
        trace_id: '1-6748a1b2-3c4d5e6f7a8b9c0d1e2f3a4b',
        parent_id: handlerSegment()?.id,
        namespace: 'aws',
        aws: { operation, ...aws },
      });
    }
    // The answer is not captured: a creation's answer holds a raw API key.
    expect(JSON.stringify(daemon.documents)).not.toContain('"items"');
  });
});
