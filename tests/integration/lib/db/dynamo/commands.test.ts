import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  BatchGetCommand,
  BatchWriteCommand,
  CreateTableCommand,
  DeleteCommand,
  GetCommand,
  ListTablesCommand,
  marshallItem,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
  UpdateTimeToLiveCommand,
} from '../../../../../lib/db/dynamo';
import { GSI1 } from '../../../../../lib/db/keys';
import { db } from '../../../../support/fixtures';

/**
 * Every command of lib/db/dynamo against DynamoDB Local: what goes in comes back in native values,
 * errors carry what callers switch on, and ConsumedCapacity is DynamoDB's own.
 */
const { client, tableName: TableName } = db;
const partition = () => `DYN#${randomUUID()}`;

describe('item commands', () => {
  it('Put then Get: every type comes back as written', async () => {
    const pk = partition();
    const item = {
      pk,
      sk: 'ITEM',
      s: 'héllo',
      empty: '',
      n: -12.5,
      big: 123456789012345678901234567890n,
      yes: true,
      nothing: null,
      bin: Uint8Array.from([0, 1, 254, 255]),
      list: [1, 'two', [3], { four: 4 }],
      map: { nested: { deeper: ['x'] } },
      strings: new Set(['a', 'b']),
      numbers: new Set([1, 2.5]),
      binaries: new Set([Uint8Array.from([1]), Uint8Array.from([2])]),
    };
    await client.send(new PutCommand({ TableName, Item: { ...item, dropped: undefined } }));
    const { Item, $metadata } = await client.send(
      new GetCommand({ TableName, Key: { pk, sk: 'ITEM' }, ConsistentRead: true }),
    );
    expect(Item).toEqual(item);
    expect($metadata).toMatchObject({ httpStatusCode: 200, attempts: 1 });
  });

  it('Get of a missing item has no Item', async () => {
    const output = await client.send(new GetCommand({ TableName, Key: { pk: partition(), sk: 'NONE' } }));
    expect(output).not.toHaveProperty('Item');
  });

  it('Put with ReturnValues ALL_OLD and ReturnConsumedCapacity TOTAL', async () => {
    const pk = partition();
    await client.send(new PutCommand({ TableName, Item: { pk, sk: 'A', v: 1 } }));
    const output = await client.send(
      new PutCommand({
        TableName,
        Item: { pk, sk: 'A', v: 2 },
        ReturnValues: 'ALL_OLD',
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    expect(output.Attributes).toEqual({ pk, sk: 'A', v: 1 });
    expect(output.ConsumedCapacity).toEqual({ TableName, CapacityUnits: 1 });
  });

  it('a stored form from marshallItem is written as it is', async () => {
    const pk = partition();
    const stored = marshallItem({ pk, sk: 'STORED', n: 7, tags: new Set(['x']) });
    await client.send(new PutCommand({ TableName, Item: stored }));
    const { Item } = await client.send(new GetCommand({ TableName, Key: { pk, sk: 'STORED' } }));
    expect(Item).toEqual({ pk, sk: 'STORED', n: 7, tags: new Set(['x']) });
  });

  it('Update: ADD and SET with ReturnValues UPDATED_NEW and ALL_NEW', async () => {
    const pk = partition();
    const update = (ReturnValues: 'UPDATED_NEW' | 'ALL_NEW') =>
      client.send(
        new UpdateCommand({
          TableName,
          Key: { pk, sk: 'COUNTER' },
          UpdateExpression: 'ADD #c :one SET #label = :label',
          ExpressionAttributeNames: { '#c': 'count', '#label': 'label' },
          ExpressionAttributeValues: { ':one': 1, ':label': 'counter' },
          ReturnValues,
        }),
      );
    expect((await update('UPDATED_NEW')).Attributes).toEqual({ count: 1, label: 'counter' });
    expect((await update('ALL_NEW')).Attributes).toEqual({ pk, sk: 'COUNTER', count: 2, label: 'counter' });
  });

  it('a failed condition is ConditionalCheckFailedException, with the stored item when asked for', async () => {
    const pk = partition();
    await client.send(new PutCommand({ TableName, Item: { pk, sk: 'V', version: 3 } }));
    const conditional = (ReturnValuesOnConditionCheckFailure?: 'ALL_OLD') =>
      client
        .send(
          new UpdateCommand({
            TableName,
            Key: { pk, sk: 'V' },
            UpdateExpression: 'SET version = :next',
            ConditionExpression: 'version = :seen',
            ExpressionAttributeValues: { ':seen': 2, ':next': 3 },
            ...(ReturnValuesOnConditionCheckFailure ? { ReturnValuesOnConditionCheckFailure } : {}),
          }),
        )
        .catch((error: unknown) => error);
    const plain = await conditional();
    expect(plain).toMatchObject({
      name: 'ConditionalCheckFailedException',
      $metadata: { httpStatusCode: 400, attempts: 1 },
    });
    expect(plain).not.toHaveProperty('Item');
    expect(await conditional('ALL_OLD')).toMatchObject({
      name: 'ConditionalCheckFailedException',
      Item: { pk, sk: 'V', version: 3 },
    });
  });

  it('Delete with ReturnValues ALL_OLD', async () => {
    const pk = partition();
    await client.send(new PutCommand({ TableName, Item: { pk, sk: 'D', v: 'x' } }));
    const output = await client.send(
      new DeleteCommand({ TableName, Key: { pk, sk: 'D' }, ReturnValues: 'ALL_OLD' }),
    );
    expect(output.Attributes).toEqual({ pk, sk: 'D', v: 'x' });
    expect((await client.send(new GetCommand({ TableName, Key: { pk, sk: 'D' } }))).Item).toBeUndefined();
  });

  it('a request DynamoDB refuses is a ValidationException', async () => {
    await expect(
      client.send(new GetCommand({ TableName, Key: { pk: 'only-half-a-key' } })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      $metadata: { httpStatusCode: 400 },
    });
  });
});

describe('Query and Scan', () => {
  it('Query pages with LastEvaluatedKey / ExclusiveStartKey, on the table and on the index', async () => {
    const pk = partition();
    const gsi1pk = partition();
    for (let i = 0; i < 5; i++) {
      await client.send(
        new PutCommand({ TableName, Item: { pk, sk: `I#${i}`, gsi1pk, gsi1sk: `I#${i}`, i } }),
      );
    }
    const page = (ExclusiveStartKey?: Record<string, unknown>) =>
      client.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': 'I#' },
          Limit: 3,
          ConsistentRead: true,
          ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
        }),
      );
    const first = await page();
    expect(first.Items?.map((item) => item.i)).toEqual([0, 1, 2]);
    expect(first.Count).toBe(3);
    expect(first.LastEvaluatedKey).toEqual({ pk, sk: 'I#2' });
    const second = await page(first.LastEvaluatedKey);
    expect(second.Items?.map((item) => item.i)).toEqual([3, 4]);
    expect(second.LastEvaluatedKey).toBeUndefined();

    const onIndex = await client.send(
      new QueryCommand({
        TableName,
        IndexName: GSI1,
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': gsi1pk },
        ScanIndexForward: false,
        Limit: 2,
      }),
    );
    expect(onIndex.Items?.map((item) => item.i)).toEqual([4, 3]);
    expect(onIndex.LastEvaluatedKey).toEqual({ pk, sk: 'I#3', gsi1pk, gsi1sk: 'I#3' });
  });

  it('Scan with a filter', async () => {
    const pk = partition();
    await client.send(new PutCommand({ TableName, Item: { pk, sk: 'S', marker: pk } }));
    const { Items = [] } = await client.send(
      new ScanCommand({
        TableName,
        FilterExpression: 'marker = :m',
        ExpressionAttributeValues: { ':m': pk },
      }),
    );
    expect(Items).toEqual([{ pk, sk: 'S', marker: pk }]);
  });
});

describe('batches', () => {
  it('BatchWrite puts and deletes; nothing unprocessed; ConsumedCapacity per table', async () => {
    const pk = partition();
    await client.send(new PutCommand({ TableName, Item: { pk, sk: 'OLD' } }));
    const output = await client.send(
      new BatchWriteCommand({
        RequestItems: {
          [TableName]: [
            { PutRequest: { Item: { pk, sk: 'A', n: 1 } } },
            { PutRequest: { Item: marshallItem({ pk, sk: 'B', n: 2 }) } },
            { DeleteRequest: { Key: { pk, sk: 'OLD' } } },
          ],
        },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    expect(output.UnprocessedItems).toEqual({});
    expect(output.ConsumedCapacity).toEqual([{ TableName, CapacityUnits: 3 }]);

    const read = await client.send(
      new BatchGetCommand({
        RequestItems: {
          [TableName]: {
            Keys: [
              { pk, sk: 'A' },
              { pk, sk: 'B' },
              { pk, sk: 'OLD' },
            ],
            ConsistentRead: true,
          },
        },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    expect(read.Responses?.[TableName]?.sort((a, b) => Number(a.n) - Number(b.n))).toEqual([
      { pk, sk: 'A', n: 1 },
      { pk, sk: 'B', n: 2 },
    ]);
    expect(read.UnprocessedKeys).toEqual({});
    // One unit per item found (strongly consistent, under 4 KB); the missing key costs nothing here.
    expect(read.ConsumedCapacity).toEqual([{ TableName, CapacityUnits: 2 }]);
  });
});

describe('TransactWrite', () => {
  it('writes all items, or none with a TransactionCanceledException naming each item’s reason', async () => {
    const pk = partition();
    await client.send(new PutCommand({ TableName, Item: { pk, sk: 'EXISTING', v: 1 } }));
    const output = await client.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName, Item: { pk, sk: 'NEW1' }, ConditionExpression: 'attribute_not_exists(pk)' } },
          {
            Update: {
              TableName,
              Key: { pk, sk: 'EXISTING' },
              UpdateExpression: 'SET v = :v',
              ExpressionAttributeValues: { ':v': 2 },
            },
          },
        ],
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    // Passed through as DynamoDB reports it (DynamoDB Local does not charge transactions double).
    expect(output.ConsumedCapacity).toEqual([{ TableName, CapacityUnits: expect.any(Number) }]);
    expect(output.ConsumedCapacity?.[0]?.CapacityUnits).toBeGreaterThan(0);

    const error = await client
      .send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName, Item: { pk, sk: 'NEW2' }, ConditionExpression: 'attribute_not_exists(pk)' } },
            {
              ConditionCheck: {
                TableName,
                Key: { pk, sk: 'EXISTING' },
                ConditionExpression: 'v = :v',
                ExpressionAttributeValues: { ':v': 1 },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            { Delete: { TableName, Key: { pk, sk: 'NEW1' } } },
          ],
        }),
      )
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'TransactionCanceledException',
      $metadata: { httpStatusCode: 400 },
      CancellationReasons: [
        { Code: 'None' },
        { Code: 'ConditionalCheckFailed', Item: { pk, sk: 'EXISTING', v: 2 } },
        { Code: 'None' },
      ],
    });
    const { Items = [] } = await client.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
      }),
    );
    expect(Items.map((item) => item.sk).sort()).toEqual(['EXISTING', 'NEW1']);
  });
});

describe('table administration', () => {
  it('CreateTable, UpdateTimeToLive, ListTables', async () => {
    const name = `dyn-admin-${randomUUID().slice(0, 8)}`;
    const created = await client.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    expect(created.TableDescription).toMatchObject({
      TableName: name,
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    });
    const ttl = await client.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { AttributeName: 'expires', Enabled: true },
      }),
    );
    expect(ttl.TimeToLiveSpecification).toEqual({ AttributeName: 'expires', Enabled: true });
    const names: string[] = [];
    let start: string | undefined;
    do {
      const page = await client.send(new ListTablesCommand(start ? { ExclusiveStartTableName: start } : {}));
      names.push(...(page.TableNames ?? []));
      start = page.LastEvaluatedTableName;
    } while (start);
    expect(names).toContain(name);
    await expect(
      client.send(
        new CreateTableCommand({
          ...{
            TableName: name,
            AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
            BillingMode: 'PAY_PER_REQUEST',
          },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ResourceInUseException' });
  });
});
