import { describe, expect, it } from 'vitest';
import {
  BatchGetCommand,
  BatchWriteCommand,
  CreateTableCommand,
  DeleteCommand,
  GetCommand,
  ListTablesCommand,
  marshallItem,
  marshallValue,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UnstorableValueError,
  UpdateCommand,
  UpdateTimeToLiveCommand,
} from '../../../../../lib/db/dynamo';
import {
  fromJson,
  toJson,
  unmarshallOutput,
  unmarshallValue,
} from '../../../../../lib/db/dynamo/marshalling';

/**
 * Every command marshals its input and unmarshals its output in the places lib-dynamodb's
 * DocumentClient does (its inputKeyNodes / outputKeyNodes), with `removeUndefinedValues: true`.
 */
const item = {
  pk: 'a',
  n: 1.5,
  ok: true,
  none: null,
  list: [1, 'x'],
  map: { deep: { s: 'y' } },
  tags: new Set(['t']),
};
const wire = {
  pk: { S: 'a' },
  n: { N: '1.5' },
  ok: { BOOL: true },
  none: { NULL: true },
  list: { L: [{ N: '1' }, { S: 'x' }] },
  map: { M: { deep: { M: { s: { S: 'y' } } } } },
  tags: { SS: ['t'] },
};
const key = { pk: 'a', sk: 'b' };
const wireKey = { pk: { S: 'a' }, sk: { S: 'b' } };

describe('command classes', () => {
  it('keep their lib-dynamodb names and know their operation, statically and per instance', () => {
    const cases = [
      [GetCommand, 'GetCommand', 'GetItem'],
      [PutCommand, 'PutCommand', 'PutItem'],
      [UpdateCommand, 'UpdateCommand', 'UpdateItem'],
      [DeleteCommand, 'DeleteCommand', 'DeleteItem'],
      [QueryCommand, 'QueryCommand', 'Query'],
      [ScanCommand, 'ScanCommand', 'Scan'],
      [BatchGetCommand, 'BatchGetCommand', 'BatchGetItem'],
      [BatchWriteCommand, 'BatchWriteCommand', 'BatchWriteItem'],
      [TransactWriteCommand, 'TransactWriteCommand', 'TransactWriteItems'],
      [CreateTableCommand, 'CreateTableCommand', 'CreateTable'],
      [UpdateTimeToLiveCommand, 'UpdateTimeToLiveCommand', 'UpdateTimeToLive'],
      [ListTablesCommand, 'ListTablesCommand', 'ListTables'],
    ] as const;
    for (const [Command, name, operation] of cases) {
      const command = new (Command as new (input: unknown) => { operation: string; input: unknown })({
        x: 1,
      });
      expect(command.constructor.name).toBe(name);
      expect(Command.operation).toBe(operation);
      expect(command.operation).toBe(operation);
      expect(command.input).toEqual({ x: 1 });
    }
  });
});

describe('inputs', () => {
  it('Get: Key', () => {
    expect(new GetCommand({ TableName: 't', Key: key, ConsistentRead: true }).marshall()).toEqual({
      TableName: 't',
      Key: wireKey,
      ConsistentRead: true,
    });
  });

  it('Put: Item and ExpressionAttributeValues, undefined members left out, the input untouched', () => {
    const input = {
      TableName: 't',
      Item: { ...item, gone: undefined },
      ConditionExpression: '#v < :v',
      ExpressionAttributeNames: { '#v': 'v' },
      ExpressionAttributeValues: { ':v': 3 },
    };
    const copy = structuredClone(input);
    expect(new PutCommand(input).marshall()).toEqual({
      TableName: 't',
      Item: wire,
      ConditionExpression: '#v < :v',
      ExpressionAttributeNames: { '#v': 'v' },
      ExpressionAttributeValues: { ':v': { N: '3' } },
    });
    expect(input).toEqual(copy);
  });

  it('Put: legacy Expected values', () => {
    expect(
      new PutCommand({
        TableName: 't',
        Item: { pk: 'a' },
        Expected: { v: { Value: 1 }, w: { ComparisonOperator: 'BETWEEN', AttributeValueList: [1, 2] } },
      }).marshall(),
    ).toMatchObject({
      Expected: {
        v: { Value: { N: '1' } },
        w: { ComparisonOperator: 'BETWEEN', AttributeValueList: [{ N: '1' }, { N: '2' }] },
      },
    });
  });

  it('Update: Key, ExpressionAttributeValues and legacy AttributeUpdates', () => {
    expect(
      new UpdateCommand({
        TableName: 't',
        Key: key,
        UpdateExpression: 'ADD #c :one',
        ExpressionAttributeNames: { '#c': 'count' },
        ExpressionAttributeValues: { ':one': 1 },
        AttributeUpdates: { x: { Action: 'PUT', Value: 'y' } },
        ReturnValues: 'UPDATED_NEW',
      }).marshall(),
    ).toEqual({
      TableName: 't',
      Key: wireKey,
      UpdateExpression: 'ADD #c :one',
      ExpressionAttributeNames: { '#c': 'count' },
      ExpressionAttributeValues: { ':one': { N: '1' } },
      AttributeUpdates: { x: { Action: 'PUT', Value: { S: 'y' } } },
      ReturnValues: 'UPDATED_NEW',
    });
  });

  it('Delete: Key and ExpressionAttributeValues', () => {
    expect(
      new DeleteCommand({
        TableName: 't',
        Key: key,
        ConditionExpression: 'v = :v',
        ExpressionAttributeValues: { ':v': 'x' },
      }).marshall(),
    ).toEqual({
      TableName: 't',
      Key: wireKey,
      ConditionExpression: 'v = :v',
      ExpressionAttributeValues: { ':v': { S: 'x' } },
    });
  });

  it('Query and Scan: ExclusiveStartKey, ExpressionAttributeValues, legacy conditions', () => {
    expect(
      new QueryCommand({
        TableName: 't',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'a' },
        ExclusiveStartKey: key,
        KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: ['a'] } },
        Limit: 2,
      }).marshall(),
    ).toEqual({
      TableName: 't',
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: 'a' } },
      ExclusiveStartKey: wireKey,
      KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'a' }] } },
      Limit: 2,
    });
    expect(
      new ScanCommand({
        TableName: 't',
        FilterExpression: 'n > :n',
        ExpressionAttributeValues: { ':n': 1 },
        ExclusiveStartKey: key,
        ScanFilter: { n: { ComparisonOperator: 'GT', AttributeValueList: [1] } },
      }).marshall(),
    ).toEqual({
      TableName: 't',
      FilterExpression: 'n > :n',
      ExpressionAttributeValues: { ':n': { N: '1' } },
      ExclusiveStartKey: wireKey,
      ScanFilter: { n: { ComparisonOperator: 'GT', AttributeValueList: [{ N: '1' }] } },
    });
  });

  it('BatchGet: every table’s Keys', () => {
    expect(
      new BatchGetCommand({
        RequestItems: { t: { Keys: [key, { pk: 'c', sk: 'd' }], ConsistentRead: true }, u: { Keys: [key] } },
      }).marshall(),
    ).toEqual({
      RequestItems: {
        t: { Keys: [wireKey, { pk: { S: 'c' }, sk: { S: 'd' } }], ConsistentRead: true },
        u: { Keys: [wireKey] },
      },
    });
  });

  it('BatchWrite: PutRequest.Item and DeleteRequest.Key of every table', () => {
    expect(
      new BatchWriteCommand({
        RequestItems: { t: [{ PutRequest: { Item: item } }, { DeleteRequest: { Key: key } }] },
        ReturnConsumedCapacity: 'TOTAL',
      }).marshall(),
    ).toEqual({
      RequestItems: { t: [{ PutRequest: { Item: wire } }, { DeleteRequest: { Key: wireKey } }] },
      ReturnConsumedCapacity: 'TOTAL',
    });
  });

  it('TransactWrite: ConditionCheck, Put, Delete and Update', () => {
    const values = { ':v': 1 };
    const wireValues = { ':v': { N: '1' } };
    expect(
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: 't',
              Key: key,
              ConditionExpression: 'v = :v',
              ExpressionAttributeValues: values,
            },
          },
          { Put: { TableName: 't', Item: item, ExpressionAttributeValues: values } },
          { Delete: { TableName: 't', Key: key, ExpressionAttributeValues: values } },
          {
            Update: {
              TableName: 't',
              Key: key,
              UpdateExpression: 'SET v = :v',
              ExpressionAttributeValues: values,
            },
          },
        ],
      }).marshall(),
    ).toEqual({
      TransactItems: [
        {
          ConditionCheck: {
            TableName: 't',
            Key: wireKey,
            ConditionExpression: 'v = :v',
            ExpressionAttributeValues: wireValues,
          },
        },
        { Put: { TableName: 't', Item: wire, ExpressionAttributeValues: wireValues } },
        { Delete: { TableName: 't', Key: wireKey, ExpressionAttributeValues: wireValues } },
        {
          Update: {
            TableName: 't',
            Key: wireKey,
            UpdateExpression: 'SET v = :v',
            ExpressionAttributeValues: wireValues,
          },
        },
      ],
    });
  });

  it('table admin commands: passed through as they are', () => {
    const definition = {
      TableName: 't',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' as const }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' as const }],
      BillingMode: 'PAY_PER_REQUEST' as const,
    };
    expect(new CreateTableCommand(definition).marshall()).toEqual(definition);
    expect(new ListTablesCommand({ Limit: 1 }).marshall()).toEqual({ Limit: 1 });
  });

  it('numbers, bigints, binaries and sets as the SDK converts them', () => {
    const body = new PutCommand({
      TableName: 't',
      Item: {
        big: 12345678901234567890n,
        bin: Uint8Array.from([1, 2]),
        nums: new Set([1, 2]),
        bins: new Set([Buffer.from('a')]),
      },
    }).marshall() as { Item: Record<string, unknown> };
    expect(body.Item).toEqual({
      big: { N: '12345678901234567890' },
      bin: { B: Uint8Array.from([1, 2]) },
      nums: { NS: ['1', '2'] },
      bins: { BS: [Buffer.from('a')] },
    });
  });
});

describe('outputs', () => {
  const capacity = { TableName: 't', CapacityUnits: 1, Table: { CapacityUnits: 1 } };

  it('Get: Item; ConsumedCapacity passed through', () => {
    expect(
      new GetCommand({ TableName: 't', Key: key }).unmarshall({ Item: wire, ConsumedCapacity: capacity }),
    ).toEqual({
      Item: item,
      ConsumedCapacity: capacity,
    });
    expect(new GetCommand({ TableName: 't', Key: key }).unmarshall({})).toEqual({});
  });

  it('Put, Update, Delete: Attributes and ItemCollectionMetrics.ItemCollectionKey', () => {
    const answer = {
      Attributes: wire,
      ItemCollectionMetrics: { ItemCollectionKey: { pk: { S: 'a' } }, SizeEstimateRangeGB: [0, 1] },
    };
    const native = {
      Attributes: item,
      ItemCollectionMetrics: { ItemCollectionKey: { pk: 'a' }, SizeEstimateRangeGB: [0, 1] },
    };
    expect(new PutCommand({ TableName: 't', Item: {} }).unmarshall(answer)).toEqual(native);
    expect(new UpdateCommand({ TableName: 't', Key: key }).unmarshall(answer)).toEqual(native);
    expect(new DeleteCommand({ TableName: 't', Key: key }).unmarshall(answer)).toEqual(native);
  });

  it('Query and Scan: Items and LastEvaluatedKey; Count passed through', () => {
    const answer = {
      Items: [wire, wireKey],
      Count: 2,
      ScannedCount: 2,
      LastEvaluatedKey: wireKey,
      ConsumedCapacity: capacity,
    };
    const native = {
      Items: [item, key],
      Count: 2,
      ScannedCount: 2,
      LastEvaluatedKey: key,
      ConsumedCapacity: capacity,
    };
    expect(new QueryCommand({ TableName: 't' }).unmarshall(answer)).toEqual(native);
    expect(new ScanCommand({ TableName: 't' }).unmarshall(answer)).toEqual(native);
  });

  it('BatchGet: Responses and UnprocessedKeys of every table', () => {
    expect(
      new BatchGetCommand({ RequestItems: {} }).unmarshall({
        Responses: { t: [wire], u: [] },
        UnprocessedKeys: { t: { Keys: [wireKey], ConsistentRead: true } },
        ConsumedCapacity: [capacity],
      }),
    ).toEqual({
      Responses: { t: [item], u: [] },
      UnprocessedKeys: { t: { Keys: [key], ConsistentRead: true } },
      ConsumedCapacity: [capacity],
    });
  });

  it('BatchWrite: UnprocessedItems in the shape of RequestItems, ready to send again', () => {
    const output = new BatchWriteCommand({ RequestItems: {} }).unmarshall({
      UnprocessedItems: { t: [{ PutRequest: { Item: wire } }, { DeleteRequest: { Key: wireKey } }] },
      ItemCollectionMetrics: { t: [{ ItemCollectionKey: { pk: { S: 'a' } } }] },
      ConsumedCapacity: [capacity],
    });
    expect(output).toEqual({
      UnprocessedItems: { t: [{ PutRequest: { Item: item } }, { DeleteRequest: { Key: key } }] },
      ItemCollectionMetrics: { t: [{ ItemCollectionKey: { pk: 'a' } }] },
      ConsumedCapacity: [capacity],
    });
    const again = new BatchWriteCommand({ RequestItems: output.UnprocessedItems ?? {} }).marshall();
    expect(again).toEqual({
      RequestItems: { t: [{ PutRequest: { Item: wire } }, { DeleteRequest: { Key: wireKey } }] },
    });
  });

  it('TransactWrite: ItemCollectionMetrics; ConsumedCapacity passed through', () => {
    expect(
      new TransactWriteCommand({ TransactItems: [] }).unmarshall({
        ItemCollectionMetrics: { t: [{ ItemCollectionKey: { pk: { S: 'a' } } }] },
        ConsumedCapacity: [capacity],
      }),
    ).toEqual({
      ItemCollectionMetrics: { t: [{ ItemCollectionKey: { pk: 'a' } }] },
      ConsumedCapacity: [capacity],
    });
  });

  it('numbers beyond 2^53 come back as BigInt, as lib-dynamodb gives them', () => {
    expect(
      new GetCommand({ TableName: 't', Key: key }).unmarshall({
        Item: { big: { N: '12345678901234567890' } },
      }),
    ).toEqual({
      Item: { big: 12345678901234567890n },
    });
  });
});

describe('marshallItem (stored form ahead of a write)', () => {
  it('converts an item once; commands send the stored form as it is', () => {
    const stored = marshallItem(item);
    expect(stored.attributes).toEqual(wire);
    expect(Object.isFrozen(stored)).toBe(true);
    expect(new PutCommand({ TableName: 't', Item: stored }).marshall()).toEqual({
      TableName: 't',
      Item: wire,
    });
    expect(
      new BatchWriteCommand({ RequestItems: { t: [{ PutRequest: { Item: stored } }] } }).marshall(),
    ).toEqual({ RequestItems: { t: [{ PutRequest: { Item: wire } }] } });
    expect(
      new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 't', Item: stored } }] }).marshall(),
    ).toEqual({
      TransactItems: [{ Put: { TableName: 't', Item: wire } }],
    });
  });

  it('sizes items by DynamoDB’s rules (names + values; numbers by base-100 digits)', () => {
    const bytes = (value: unknown) => marshallItem({ v: value }).bytes - 1;
    expect(bytes('héllo')).toBe(6);
    expect(bytes(true)).toBe(1);
    expect(bytes(null)).toBe(1);
    expect(bytes(0)).toBe(1);
    expect(bytes(12345)).toBe(4);
    expect(bytes(1.5)).toBe(3);
    expect(bytes(0.001)).toBe(2);
    expect(bytes(100)).toBe(2);
    expect(bytes(Uint8Array.from([1, 2, 3]))).toBe(3);
    expect(bytes(['a', null])).toBe(3 + 2 + 2);
    expect(bytes({ ab: 'c' })).toBe(3 + 1 + 2 + 1);
    expect(bytes(new Set(['a', 'bb']))).toBe(3);
    expect(bytes(new Set([12345, 1.5]))).toBe(4 + 3);
    expect(bytes(new Set([Uint8Array.from([1, 2]), Uint8Array.from([3])]))).toBe(3);
  });

  it('refuses what DynamoDB cannot hold, naming where', () => {
    const refused = (value: Record<string, unknown>) => {
      try {
        marshallItem(value);
      } catch (error) {
        expect(error).toBeInstanceOf(UnstorableValueError);
        return { path: (error as UnstorableValueError).path, message: (error as Error).message };
      }
      throw new Error(`accepted ${String(value)}`);
    };
    // JS numbers beyond 2^53 are refused as lib-dynamodb refuses them (precision); bigints by range.
    expect(refused({ n: 10n ** 126n }).path).toBe('n');
    expect(refused({ a: { list: [{ n: 10n ** 126n }] } }).path).toBe('a.list[0].n');
    expect(refused({ n: -(10n ** 126n) }).message).toContain('range');
    expect(refused({ n: 1e-131 }).path).toBe('n');
    expect(refused({ n: 123456789012345678901234567890123456789n }).message).toContain(
      '38 significant digits',
    );
    expect(refused({ a: { b: [1, Number.NaN] } }).path).toBe('a.b[1]');
    expect(refused({ n: Number.POSITIVE_INFINITY }).path).toBe('n');
    expect(refused({ n: 2 ** 53 }).message).toContain('MAX_SAFE_INTEGER');
    expect(refused({ when: new Date(0) }).path).toBe('when');
    expect(refused({ tags: new Set() }).path).toBe('tags');
    expect(refused({ bins: new Set([Buffer.from('a'), Buffer.from('a')]) }).message).toContain('twice');
    // Two members of a JS Set, one number of DynamoDB's.
    expect(refused({ nums: new Set([1, 1n]) })).toEqual({
      path: 'nums',
      message: 'nums: a set holds a value twice',
    });
    // The path names what cannot be stored: a member left out (undefined, a function) is not it, and
    // a class instance is refused as a whole, whatever it holds.
    class Box {
      n = Number.NaN;
    }
    expect(refused({ o: { a: undefined, f: () => 1, b: Number.NaN } }).path).toBe('o.b');
    expect(refused({ o: { box: new Box() } }).path).toBe('o.box');
    // A Blob is binary to lib-dynamodb, but its bytes cannot be read synchronously to size and send.
    expect(refused({ file: new Blob(['a']) })).toEqual({
      path: 'file',
      message: 'file: binary values must be a Uint8Array, Buffer or ArrayBuffer',
    });
    expect(refused({ big: 'x'.repeat(400 * 1024) }).path).toBe('(item)');
    let deep: unknown = 'leaf';
    for (let i = 0; i < 32; i++) deep = { a: deep };
    expect(refused({ deep }).message).toContain('at most 30');
  });

  it('accepts the boundary values (DynamoDB Local accepts them too: limits.test.ts)', () => {
    let deep: unknown = { a: 'leaf' };
    for (let i = 0; i < 30; i++) deep = { a: deep };
    expect(() =>
      marshallItem({
        max: BigInt(`${'9'.repeat(38)}${'0'.repeat(88)}`),
        min: 1e-130,
        negative: -1e-130,
        digits: 12345678901234567890123456789012345678n,
        zeros: 10n ** 100n,
        empty: '',
        deep,
        big: 'x'.repeat(400 * 1024 - 3 - 3),
      }),
    ).toThrow(/the item is/);
    expect(marshallItem({ big: 'x'.repeat(400 * 1024 - 3) }).bytes).toBe(400 * 1024);
    expect(() =>
      marshallItem({
        max: BigInt(`${'9'.repeat(38)}${'0'.repeat(88)}`),
        min: 1e-130,
        digits: 12345678901234567890123456789012345678n,
        zeros: 10n ** 100n,
        empty: '',
        deep,
      }),
    ).not.toThrow();
  });
});

describe('JSON with binaries', () => {
  it('sends B and BS as base64 and reads them back as Uint8Array; an attribute named "B" is left alone', () => {
    const body = {
      Item: {
        bin: { B: Buffer.from('hi') },
        set: { BS: [Uint8Array.from([255]), Buffer.from('x')] },
        B: { S: 'not binary' },
      },
    };
    const text = toJson(body);
    expect(JSON.parse(text)).toEqual({
      Item: { bin: { B: 'aGk=' }, set: { BS: ['/w==', 'eA=='] }, B: { S: 'not binary' } },
    });
    expect(fromJson(text)).toEqual({
      Item: {
        bin: { B: Uint8Array.from([104, 105]) },
        set: { BS: [Uint8Array.from([255]), Uint8Array.from([120])] },
        B: { S: 'not binary' },
      },
    });
  });
});

describe('refusals and rare shapes', () => {
  it('a Put item over 400 KB is refused while marshalling, naming Item and its size', () => {
    const command = new PutCommand({ TableName: 't', Item: { pk: 'a', big: 'x'.repeat(400 * 1024) } });
    expect(() => command.marshall()).toThrow(UnstorableValueError);
    expect(() => command.marshall()).toThrow(/^Item: the item is \d+ bytes; DynamoDB stores at most 409600$/);
    const transaction = new TransactWriteCommand({
      TransactItems: [{ Put: { TableName: 't', Item: { pk: 'a', big: 'x'.repeat(400 * 1024) } } }],
    });
    expect(() => transaction.marshall()).toThrow(/^TransactItems\[0\]\.Put\.Item: the item is /);
  });

  it('an item that is not an object of attributes is refused, naming where', () => {
    for (const Item of ['x', [1]]) {
      expect(() => new PutCommand({ TableName: 't', Item: Item as never }).marshall()).toThrow(
        'Item: must be an object of attribute names to values',
      );
      // Converted ahead of a command (marshallItem), the item has no name in a command yet.
      expect(() => marshallItem(Item as never)).toThrow(
        '(item): must be an object of attribute names to values',
      );
    }
  });

  it('names a refused single value "(value)" and a legacy condition value by its place in the list', () => {
    const thrown = (marshall: () => unknown) => {
      try {
        marshall();
      } catch (error) {
        return { path: (error as UnstorableValueError).path, message: (error as Error).message };
      }
      throw new Error('accepted');
    };
    expect(thrown(() => marshallValue(Number.NaN)).path).toBe('(value)');
    // Converted, and then checked as DynamoDB would: out of its number range.
    expect(thrown(() => marshallValue(10n ** 126n)).message).toContain('outside DynamoDB');
    expect(
      thrown(() =>
        new QueryCommand({
          TableName: 't',
          KeyConditions: { pk: { ComparisonOperator: 'BETWEEN', AttributeValueList: [1, Number.NaN] } },
        }).marshall(),
      ).path,
    ).toBe('KeyConditions.pk.AttributeValueList[1]');
  });

  it('reads single values and lists where a shape says so', () => {
    expect(
      unmarshallOutput(
        { one: { N: '1' }, many: [{ S: 'x' }, { BOOL: true }] },
        { one: 'value', many: 'list' },
      ),
    ).toEqual({ one: 1, many: ['x', true] });
  });

  it('refuses what DynamoDB never answers, as lib-dynamodb does', () => {
    expect(() => unmarshallValue({ X: 'y' } as never)).toThrow('Unsupported type passed: X');
    expect(() => unmarshallValue({} as never)).toThrow('No value defined: {}');
    expect(() => unmarshallValue({ N: '1e20' })).toThrow(
      "1e20 can't be converted to BigInt. Set options.wrapNumbers to get string value.",
    );
  });

  it('writes an ArrayBuffer as base64 in the request body', () => {
    expect(toJson({ B: new Uint8Array([1, 2, 3]).buffer })).toBe('{"B":"AQID"}');
  });
});
