import * as net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cancellationReasons, isConditionalCheckFailed } from '../../../../../lib/db/conditions';
import {
  type CredentialsProvider,
  createDynamoDbClient,
  type DynamoDbClient,
  type DynamoDbClientOptions,
  GetCommand,
  type Middleware,
  PutCommand,
  TransactWriteCommand,
} from '../../../../../lib/db/dynamo';
import { backoffDelay, retryKind } from '../../../../../lib/db/dynamo/client';
import { toAppError } from '../../../../../lib/http/middleware';
import { freePort } from '../../../../../scripts/processes';
import {
  awsError,
  hang,
  json,
  reset,
  startScriptedServer,
  verifySignature,
} from '../../../../support/scripted-server';

/**
 * The client against a real HTTP server on a free local port that answers scripted responses:
 * request format and signature, output and error parsing, retries, timeouts, CRC32, middleware and
 * credentials. DynamoDB itself is exercised in tests/integration/lib/db/dynamo/.
 */
let server: Awaited<ReturnType<typeof startScriptedServer>>;
const clients: DynamoDbClient[] = [];

beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
afterEach(() => {
  for (const client of clients.splice(0)) client.destroy();
});

const credentials = { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' };

const client = (options: Partial<DynamoDbClientOptions> = {}) => {
  const created = createDynamoDbClient({
    region: 'eu-central-1',
    endpoint: server.endpoint,
    credentials,
    ...options,
  });
  clients.push(created);
  return created;
};

/** Pending timers of this process: an attempt must not leave its timeout behind. */
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

const get = () => new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } });

describe('requests', () => {
  it('POSTs the JSON 1.0 protocol to / with the operation in X-Amz-Target and a valid SigV4 signature', async () => {
    server.answer(json(200, {}));
    await client().send(get());
    const [request] = server.received;
    expect(request).toMatchObject({
      method: 'POST',
      url: '/',
      headers: {
        'x-amz-target': 'DynamoDB_20120810.GetItem',
        'content-type': 'application/x-amz-json-1.0',
        host: new URL(server.endpoint).host,
      },
    });
    expect(JSON.parse(request!.body)).toEqual({ TableName: 't', Key: { pk: { S: 'a' }, sk: { S: 'b' } } });
    expect(request!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-central-1\/dynamodb\/aws4_request, /,
    );
    expect(await verifySignature(request!, 'test-secret')).toBe(true);
    expect(await verifySignature(request!, 'another-secret')).toBe(false);
  });

  it('sends and signs X-Amz-Security-Token for temporary credentials', async () => {
    server.answer(json(200, {}));
    await client({ credentials: { ...credentials, sessionToken: 'session-token-1' } }).send(get());
    const [request] = server.received;
    expect(request!.headers['x-amz-security-token']).toBe('session-token-1');
    expect(request!.headers.authorization).toContain('x-amz-security-token');
    expect(await verifySignature(request!, 'test-secret', 'session-token-1')).toBe(true);
  });

  it('reuses one kept-alive connection for sequential requests', async () => {
    server.answer(json(200, {}));
    const c = client();
    for (let i = 0; i < 3; i++) await c.send(get());
    expect(server.received).toHaveLength(3);
    expect(new Set(server.received.map((request) => request.remotePort)).size).toBe(1);
    expect(server.received[0]!.headers.connection).toBe('keep-alive');
  });

  it('refuses a value DynamoDB cannot hold before sending anything', async () => {
    server.answer(json(200, {}));
    await expect(
      client().send(new PutCommand({ TableName: 't', Item: { pk: 'a', n: 1e200 } })),
    ).rejects.toMatchObject({
      name: 'UnstorableValueError',
      path: 'n',
    });
    expect(server.received).toHaveLength(0);
  });
});

describe('responses', () => {
  it('unmarshals the output, passes ConsumedCapacity through and adds $metadata', async () => {
    server.answer(
      json(
        200,
        {
          Item: {
            pk: { S: 'a' },
            n: { N: '42' },
            tags: { SS: ['x', 'y'] },
            nested: { M: { list: { L: [{ BOOL: true }, { NULL: true }] } } },
          },
          ConsumedCapacity: { TableName: 't', CapacityUnits: 0.5 },
        },
        { requestId: 'RID-1' },
      ),
    );
    const output = await client().send(get());
    expect(output).toEqual({
      Item: { pk: 'a', n: 42, tags: new Set(['x', 'y']), nested: { list: [true, null] } },
      ConsumedCapacity: { TableName: 't', CapacityUnits: 0.5 },
      $metadata: { httpStatusCode: 200, requestId: 'RID-1', attempts: 1, totalRetryDelay: 0 },
    });
  });
});

describe('errors', () => {
  it('names the error after __type, keeps message and status, and does not retry a 4xx', async () => {
    server.answer(awsError(400, 'ValidationException', 'One or more parameter values were invalid'));
    const error = await client()
      .send(get())
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'ValidationException',
      message: 'One or more parameter values were invalid',
      $fault: 'client',
      $metadata: { httpStatusCode: 400, requestId: 'REQ123', attempts: 1 },
    });
    expect(error).toBeInstanceOf(Error);
    expect(server.received).toHaveLength(1);
  });

  it('gives a ConditionalCheckFailedException the stored item (ReturnValuesOnConditionCheckFailure)', async () => {
    server.answer(
      awsError(400, 'ConditionalCheckFailedException', 'The conditional request failed', {
        Item: { pk: { S: 'a' }, version: { N: '7' } },
      }),
    );
    const error = await client()
      .send(
        new PutCommand({ TableName: 't', Item: { pk: 'a' }, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
      )
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ConditionalCheckFailedException', Item: { pk: 'a', version: 7 } });
    // Members DynamoDB did not send are absent, as on the SDK's errors.
    expect(error).not.toHaveProperty('CancellationReasons');
    expect(isConditionalCheckFailed(error)).toBe(true);
    expect(toAppError(error).code).toBe('INTERNAL');
  });

  it('gives a TransactionCanceledException its reasons, items unmarshalled (Message spelled either way)', async () => {
    server.answer(
      json(400, {
        __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
        Message:
          'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]',
        CancellationReasons: [
          { Code: 'None' },
          {
            Code: 'ConditionalCheckFailed',
            Message: 'The conditional request failed',
            Item: { pk: { S: 'b' }, n: { N: '1' } },
          },
        ],
      }),
    );
    const error = await client()
      .send(new TransactWriteCommand({ TransactItems: [] }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'TransactionCanceledException',
      message: expect.stringContaining('Transaction cancelled'),
      CancellationReasons: [
        { Code: 'None' },
        {
          Code: 'ConditionalCheckFailed',
          Message: 'The conditional request failed',
          Item: { pk: 'b', n: 1 },
        },
      ],
    });
    expect(cancellationReasons(error)).toEqual(['None', 'ConditionalCheckFailed']);
    expect(error).not.toHaveProperty('Item');
  });

  it('takes the name from x-amzn-errortype when the body has none', async () => {
    server.answer((response) =>
      response
        .writeHead(400, { 'x-amzn-errortype': 'AccessDeniedException:http://internal.amazon.com/' })
        .end('{}'),
    );
    await expect(client().send(get())).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });

  it('names a 4xx without a JSON body or error type UnknownError, with the status in its message', async () => {
    server.answer((response) => response.writeHead(403).end('<html>Forbidden</html>'));
    await expect(client().send(get())).rejects.toMatchObject({
      name: 'UnknownError',
      message: 'DynamoDB answered HTTP 403',
      $fault: 'client',
      $metadata: { httpStatusCode: 403, attempts: 1 },
    });
    expect(server.received).toHaveLength(1);
  });
});

describe('retries (SDK standard mode)', () => {
  const counting = () => {
    const attempts: { operation: string; attempt: number }[] = [];
    const middleware: Middleware = (next) => (request) => {
      attempts.push({ operation: request.operation, attempt: request.attempt });
      return next(request);
    };
    return { attempts, middleware };
  };

  it('retries throttling up to maxAttempts (3) and then surfaces it; the API answers 503', async () => {
    server.answer(awsError(400, 'ProvisionedThroughputExceededException', 'Rate exceeded'));
    const error = await client()
      .send(get())
      .catch((e: unknown) => e);
    expect(server.received).toHaveLength(3);
    expect(error).toMatchObject({
      name: 'ProvisionedThroughputExceededException',
      $metadata: { attempts: 3 },
    });
    expect(toAppError(error)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '1' } });
  });

  it('retries ThrottlingException, RequestLimitExceeded, InternalServerError and any 5xx, then succeeds', async () => {
    server.answer(
      awsError(400, 'ThrottlingException', 'slow down'),
      awsError(400, 'RequestLimitExceeded', 'account limit'),
      json(200, { Item: { pk: { S: 'a' } } }),
    );
    const output = await client({ maxAttempts: 5 }).send(get());
    expect(output.Item).toEqual({ pk: 'a' });
    expect(output.$metadata.attempts).toBe(3);

    server.answer(
      awsError(500, 'InternalServerError', 'Internal server error'),
      (response) => response.writeHead(502).end('<html>Bad Gateway</html>'),
      (response) => response.writeHead(503).end('<html>unavailable</html>'),
      json(200, {}),
    );
    expect((await client({ maxAttempts: 4 }).send(get())).$metadata.attempts).toBe(4);
  });

  it('names a 5xx without a JSON body by its status, so it stays transient', async () => {
    server.answer((response) => response.writeHead(503).end('<html>unavailable</html>'));
    const error = await client({ maxAttempts: 2 })
      .send(get())
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'ServiceUnavailable',
      $fault: 'server',
      $metadata: { httpStatusCode: 503, attempts: 2 },
    });
    expect(toAppError(error).code).toBe('SERVICE_UNAVAILABLE');

    for (const status of [500, 502]) {
      server.answer((response) => response.writeHead(status).end('<html>Bad Gateway</html>'));
      await expect(client({ maxAttempts: 1 }).send(get())).rejects.toMatchObject({
        name: 'InternalServerError',
        message: `DynamoDB answered HTTP ${status}`,
        $fault: 'server',
      });
    }
  });

  it('retries a connection reset and keeps Node’s code when it persists', async () => {
    server.answer(reset, json(200, {}));
    expect((await client().send(get())).$metadata.attempts).toBe(2);

    server.answer(reset);
    const error = await client()
      .send(get())
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ECONNRESET', $metadata: { attempts: 3 } });
    expect(toAppError(error).code).toBe('SERVICE_UNAVAILABLE');
  });

  it('reports the attempts and the total time waited between them', async () => {
    server.answer(
      awsError(500, 'InternalServerError', 'a'),
      awsError(500, 'InternalServerError', 'b'),
      json(200, {}),
    );
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      // Half of 50 ms × 2^0, then half of 50 ms × 2^1.
      expect((await client().send(get())).$metadata).toMatchObject({ attempts: 3, totalRetryDelay: 25 + 50 });
    } finally {
      random.mockRestore();
    }
  });

  it('passes on what a middleware throws, also when it is no object', async () => {
    for (const thrown of ['a string', null]) {
      await expect(
        client({
          middleware: () => () => {
            throw thrown;
          },
        }).send(get()),
      ).rejects.toBe(thrown);
    }
  });

  it('retries an answer whose connection breaks in the middle of its body', async () => {
    server.answer(
      (response) => {
        response.writeHead(200, { 'content-length': '100' });
        response.write('{"Item": {"pk"', () => response.socket?.destroy());
      },
      json(200, { Item: { pk: { S: 'a' } } }),
    );
    const output = await client().send(get());
    expect(output).toMatchObject({ Item: { pk: 'a' }, $metadata: { attempts: 2 } });
  });

  it('leaves no timer behind once an answer is complete', async () => {
    server.answer(json(200, {}));
    const c = client();
    const before = timers();
    await c.send(get());
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('speaks TLS to an https endpoint', async () => {
    // A plain TCP server: it sees the client's first bytes, a TLS handshake record (0x16), and hangs up.
    const firstBytes: number[] = [];
    const tcp = net.createServer((socket) =>
      socket.once('data', (data) => {
        firstBytes.push(data[0] as number);
        socket.destroy();
      }),
    );
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = tcp.address() as net.AddressInfo;
      await expect(
        client({ endpoint: `https://127.0.0.1:${port}`, maxAttempts: 1 }).send(get()),
      ).rejects.toBeInstanceOf(Error);
      expect(firstBytes).toEqual([0x16]);
    } finally {
      await new Promise((resolve) => tcp.close(resolve));
    }
  });

  it('destroy() closes the kept-alive connections', async () => {
    let closed = 0;
    server.answer((response, request) => {
      response.socket?.once('close', () => closed++);
      json(200, {})(response, request);
    });
    const c = createDynamoDbClient({ region: 'eu-central-1', endpoint: server.endpoint, credentials });
    await c.send(get());
    expect(closed).toBe(0);
    c.destroy();
    await expect.poll(() => closed).toBe(1);
  });

  it('retries a refused connection and keeps ECONNREFUSED', async () => {
    const { attempts, middleware } = counting();
    const closed = createDynamoDbClient({
      region: 'eu-central-1',
      endpoint: `http://127.0.0.1:${await freePort()}`,
      credentials,
      middleware,
    });
    clients.push(closed);
    const before = timers();
    await expect(closed.send(get())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    // A failed attempt stops its timeout: no timer is left to fire later (or to keep a Lambda busy).
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('times out an attempt after requestTimeoutMs (TimeoutError) and retries it', async () => {
    // A server of its own: an attempt the client gave up on may still reach a server after the test
    // (the machine is shared and loaded), and must not take an answer scripted for the next test.
    const own = await startScriptedServer();
    try {
      own.answer(hang, json(200, { Item: { pk: { S: 'late' } } }));
      const output = await client({ endpoint: own.endpoint, requestTimeoutMs: 200 }).send(get());
      expect(output).toMatchObject({ Item: { pk: 'late' }, $metadata: { attempts: 2 } });

      // The attempt given up on is closed, not left open on the kept-alive agent.
      let closed = 0;
      own.answer((response) => response.on('close', () => closed++));
      const { attempts, middleware } = counting();
      const error = await client({
        endpoint: own.endpoint,
        requestTimeoutMs: 100,
        maxAttempts: 2,
        middleware,
      })
        .send(get())
        .catch((e: unknown) => e);
      expect(error).toMatchObject({
        name: 'TimeoutError',
        message: 'GetItem: no complete answer within 100 ms',
        $metadata: { attempts: 2 },
      });
      expect(attempts.map((a) => a.attempt)).toEqual([1, 2]);
      await expect.poll(() => closed).toBe(2);
      expect(toAppError(error).code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await own.close();
    }
  });

  it('checks x-amz-crc32 and retries a damaged body', async () => {
    server.answer(
      json(200, { Item: { pk: { S: 'a' } } }, { crc32: 12345 }),
      json(200, { Item: { pk: { S: 'a' } } }),
    );
    expect((await client().send(get())).$metadata.attempts).toBe(2);

    server.answer(json(200, {}, { crc32: 1 }));
    await expect(client({ maxAttempts: 2 }).send(get())).rejects.toMatchObject({
      name: 'Crc32MismatchError',
      message: expect.stringMatching(/^Response body CRC32 \d+ does not match x-amz-crc32 1$/),
    });
    expect(server.received).toHaveLength(2);

    // No header, no check (DynamoDB Local sends none).
    server.answer(json(200, {}, { crc32: false }));
    expect((await client().send(get())).$metadata.attempts).toBe(1);
  });

  it('classifies only throttling, transient errors and network failures as retryable', () => {
    // Anything thrown that is not an object (a string, null) is not a failure it can retry.
    for (const thrown of [null, undefined, 'ThrottlingException', 503])
      expect(retryKind(thrown)).toBeUndefined();
    for (const name of [
      'ProvisionedThroughputExceededException',
      'ThrottlingException',
      'RequestLimitExceeded',
    ]) {
      expect(retryKind(Object.assign(new Error(), { name }))).toBe('throttling');
    }
    for (const name of ['InternalServerError', 'ServiceUnavailable', 'TimeoutError', 'Crc32MismatchError']) {
      expect(retryKind(Object.assign(new Error(), { name }))).toBe('transient');
    }
    for (const code of ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND']) {
      expect(retryKind(Object.assign(new Error(), { code }))).toBe('transient');
    }
    // A system error that is no network failure (a full disk, a permission) does not pass by retrying.
    for (const code of ['EACCES', 'ENOSPC'])
      expect(retryKind(Object.assign(new Error(), { code }))).toBeUndefined();
    for (const httpStatusCode of [500, 504])
      expect(retryKind(Object.assign(new Error(), { name: 'X', $metadata: { httpStatusCode } }))).toBe(
        'transient',
      );
    for (const name of [
      'ValidationException',
      'ConditionalCheckFailedException',
      'TransactionCanceledException',
      'TransactionConflictException',
      'ResourceNotFoundException',
      'UnstorableValueError',
      'CredentialsError',
    ]) {
      expect(
        retryKind(Object.assign(new Error(), { name, $metadata: { httpStatusCode: 400 } })),
      ).toBeUndefined();
    }
  });

  it('waits a full-jitter exponential backoff: [0, 50 ms × 2^n), [0, 1 s × 2^n) when throttled, at most 20 s', () => {
    // Math.random() is the jitter: at its extremes the delay is 0 and just under the bound.
    const random = vi.spyOn(Math, 'random');
    try {
      const delays = (value: number) => {
        random.mockReturnValue(value);
        return [0, 1, 4, 5, 11].map((retries) => [
          backoffDelay('transient', retries),
          backoffDelay('throttling', retries),
        ]);
      };
      expect(delays(0)).toEqual([
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
      ]);
      expect(delays(0.9999)).toEqual([
        [49, 999],
        [99, 1999],
        [799, 15_998],
        [1599, 19_998],
        [19_998, 19_998],
      ]);
    } finally {
      random.mockRestore();
    }
    // Jitter: not a constant.
    expect(new Set(Array.from({ length: 50 }, () => backoffDelay('throttling', 3))).size).toBeGreaterThan(1);
  });
});

describe('middleware', () => {
  it('wraps every attempt, outermost first, and can answer without the server (throttling injected on the real client)', async () => {
    server.answer(json(200, { Item: { pk: { S: 'a' } } }));
    const log: string[] = [];
    const outer: Middleware = (next) => async (request) => {
      log.push(`outer ${request.operation} #${request.attempt}`);
      return next(request);
    };
    const throttleFirst: Middleware = (next) => async (request) => {
      log.push(`inner #${request.attempt}`);
      if (request.attempt > 1) return next(request);
      return {
        statusCode: 400,
        headers: {},
        body: JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
          message: 'injected',
        }),
      };
    };
    const output = await client({ middleware: [outer, throttleFirst] }).send(get());
    expect(output).toMatchObject({ Item: { pk: 'a' }, $metadata: { attempts: 2 } });
    expect(log).toEqual(['outer GetItem #1', 'inner #1', 'outer GetItem #2', 'inner #2']);
    expect(server.received).toHaveLength(1);
  });

  it('sees the marshalled request body', async () => {
    server.answer(json(200, {}));
    const bodies: string[] = [];
    await client({
      middleware: (next) => (request) => {
        bodies.push(request.body);
        return next(request);
      },
    }).send(new PutCommand({ TableName: 't', Item: { pk: 'a', n: 1, skip: undefined } }));
    expect(bodies.map((body) => JSON.parse(body))).toEqual([
      { TableName: 't', Item: { pk: { S: 'a' }, n: { N: '1' } } },
    ]);
  });

  it('use() adds one outermost; its remover takes out that one only, also when called twice', async () => {
    server.answer(json(200, {}));
    const log: string[] = [];
    const named =
      (name: string): Middleware =>
      (next) =>
      (request) => {
        log.push(name);
        return next(request);
      };
    const subject = client({ middleware: named('given') });
    const removeFirst = subject.use(named('first'));
    subject.use(named('second'));
    await subject.send(get());
    expect(log.splice(0)).toEqual(['second', 'first', 'given']);
    removeFirst();
    await subject.send(get());
    expect(log.splice(0)).toEqual(['second', 'given']);
    removeFirst();
    await subject.send(get());
    expect(log.splice(0)).toEqual(['second', 'given']);
  });
});

describe('credentials', () => {
  it('defaults to the environment (what Lambda provides)', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: 'AKIDFROMENV',
      AWS_SECRET_ACCESS_KEY: 'env-secret',
      AWS_SESSION_TOKEN: 'env-token',
    });
    try {
      server.answer(json(200, {}));
      await client({ credentials: undefined }).send(get());
      const [request] = server.received;
      expect(request!.headers.authorization).toContain('Credential=AKIDFROMENV/');
      expect(request!.headers['x-amz-security-token']).toBe('env-token');
      expect(await verifySignature(request!, 'env-secret', 'env-token')).toBe(true);

      // Long-term credentials: no session token is sent.
      delete process.env.AWS_SESSION_TOKEN;
      server.answer(json(200, {}));
      await client({ credentials: undefined }).send(get());
      const [plain] = server.received.slice(-1);
      expect(plain!.headers.authorization).toContain('Credential=AKIDFROMENV/');
      expect(plain!.headers).not.toHaveProperty('x-amz-security-token');
      expect(await verifySignature(plain!, 'env-secret')).toBe(true);

      delete process.env.AWS_ACCESS_KEY_ID;
      await expect(client({ credentials: undefined }).send(get())).rejects.toMatchObject({
        name: 'CredentialsError',
        message: 'No AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set.',
      });
    } finally {
      process.env = saved;
    }
  });

  it('calls a provider once while its credentials are valid, shared by concurrent requests', async () => {
    server.answer(json(200, {}));
    let calls = 0;
    const provider: CredentialsProvider = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { ...credentials, sessionToken: `t${calls}`, expiration: new Date(Date.now() + 3600_000) };
    };
    const c = client({ credentials: provider });
    await Promise.all(Array.from({ length: 5 }, () => c.send(get())));
    await c.send(get());
    expect(calls).toBe(1);
    expect(new Set(server.received.map((r) => r.headers['x-amz-security-token']))).toEqual(new Set(['t1']));
  });

  it('refreshes credentials once they are 5 minutes from expiring, to the millisecond', async () => {
    server.answer(json(200, {}));
    const now = vi.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-11-23T04:00:00Z'));
    try {
      let calls = 0;
      const provider: CredentialsProvider = async () => {
        calls++;
        // At the second request, exactly 5 minutes are left.
        return {
          ...credentials,
          sessionToken: `t${calls}`,
          expiration: new Date(Date.now() + 5 * 60_000 + 1),
        };
      };
      const c = client({ credentials: provider });
      await c.send(get());
      now.mockReturnValue(Date.now() + 1);
      await c.send(get());
      expect(calls).toBe(2);
    } finally {
      now.mockRestore();
    }
  });

  it('refreshes credentials that expire within 5 minutes', async () => {
    server.answer(json(200, {}));
    let calls = 0;
    const provider: CredentialsProvider = async () => {
      calls++;
      return { ...credentials, sessionToken: `t${calls}`, expiration: new Date(Date.now() + 4 * 60_000) };
    };
    const c = client({ credentials: provider });
    await c.send(get());
    await c.send(get());
    expect(calls).toBe(2);
    expect(server.received.map((r) => r.headers['x-amz-security-token'])).toEqual(['t1', 't2']);
  });

  it('surfaces a failing provider as CredentialsError without sending or retrying', async () => {
    server.answer(json(200, {}));
    let calls = 0;
    const provider: CredentialsProvider = async () => {
      calls++;
      throw new Error('no SSO session');
    };
    const error = await client({ credentials: provider })
      .send(get())
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'CredentialsError',
      message: 'Could not load AWS credentials.',
      cause: { message: 'no SSO session' },
    });
    expect(calls).toBe(1);
    expect(server.received).toHaveLength(0);
  });
});
