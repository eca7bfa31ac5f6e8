import type { CancellationReason, ResponseMetadata } from './errors';
import {
  type MarshalledItem,
  marshallInput,
  type NativeItem,
  type Shape,
  unmarshallOutput,
} from './marshalling';

/**
 * The commands of `@aws-sdk/lib-dynamodb`'s DocumentClient that this service uses, under the same
 * class names and with the same input and output shapes (native JavaScript values), plus the three
 * table-admin commands of lib/db/table.ts. Each knows its JSON-protocol operation and where its input
 * and output hold DynamoDB values (the same places lib-dynamodb marshals).
 */

type Names = Record<string, string>;
/** A key or item in native values, or one already converted with `marshallItem`. */
type ItemInput = NativeItem | MarshalledItem;

export type ReturnConsumedCapacity = 'INDEXES' | 'TOTAL' | 'NONE';
export type ReturnItemCollectionMetrics = 'SIZE' | 'NONE';
export type ReturnValuesOnConditionCheckFailure = 'ALL_OLD' | 'NONE';

export interface Capacity {
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
  CapacityUnits?: number;
}

export interface ConsumedCapacity extends Capacity {
  TableName?: string;
  Table?: Capacity;
  LocalSecondaryIndexes?: Record<string, Capacity>;
  GlobalSecondaryIndexes?: Record<string, Capacity>;
}

export interface ItemCollectionMetrics {
  ItemCollectionKey?: NativeItem;
  SizeEstimateRangeGB?: number[];
}

/** Legacy conditional parameters (Expected, QueryFilter, ...): marshalled like lib-dynamodb does. */
export interface LegacyCondition {
  Value?: unknown;
  Exists?: boolean;
  ComparisonOperator?: string;
  AttributeValueList?: unknown[];
}

interface Output {
  $metadata: ResponseMetadata;
}

interface WriteConditions {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Names;
  ExpressionAttributeValues?: NativeItem;
  ReturnConsumedCapacity?: ReturnConsumedCapacity;
  ReturnItemCollectionMetrics?: ReturnItemCollectionMetrics;
  ReturnValuesOnConditionCheckFailure?: ReturnValuesOnConditionCheckFailure;
  Expected?: Record<string, LegacyCondition>;
  ConditionalOperator?: 'AND' | 'OR';
}

interface WriteOutput extends Output {
  Attributes?: NativeItem;
  ConsumedCapacity?: ConsumedCapacity;
  ItemCollectionMetrics?: ItemCollectionMetrics;
}

export interface GetCommandInput {
  TableName: string;
  Key: ItemInput;
  ConsistentRead?: boolean;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Names;
  ReturnConsumedCapacity?: ReturnConsumedCapacity;
  AttributesToGet?: string[];
}
export interface GetCommandOutput extends Output {
  Item?: NativeItem;
  ConsumedCapacity?: ConsumedCapacity;
}

export interface PutCommandInput extends WriteConditions {
  TableName: string;
  Item: ItemInput;
  ReturnValues?: 'NONE' | 'ALL_OLD';
}
export type PutCommandOutput = WriteOutput;

export interface UpdateCommandInput extends WriteConditions {
  TableName: string;
  Key: ItemInput;
  UpdateExpression?: string;
  ReturnValues?: 'NONE' | 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' | 'UPDATED_NEW';
  AttributeUpdates?: Record<string, { Value?: unknown; Action?: 'ADD' | 'PUT' | 'DELETE' }>;
}
export type UpdateCommandOutput = WriteOutput;

export interface DeleteCommandInput extends WriteConditions {
  TableName: string;
  Key: ItemInput;
  ReturnValues?: 'NONE' | 'ALL_OLD';
}
export type DeleteCommandOutput = WriteOutput;

interface ReadManyInput {
  TableName: string;
  IndexName?: string;
  FilterExpression?: string;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Names;
  ExpressionAttributeValues?: NativeItem;
  Limit?: number;
  ExclusiveStartKey?: NativeItem;
  ConsistentRead?: boolean;
  Select?: 'ALL_ATTRIBUTES' | 'ALL_PROJECTED_ATTRIBUTES' | 'SPECIFIC_ATTRIBUTES' | 'COUNT';
  ReturnConsumedCapacity?: ReturnConsumedCapacity;
  AttributesToGet?: string[];
  ConditionalOperator?: 'AND' | 'OR';
}
interface ReadManyOutput extends Output {
  Items?: NativeItem[];
  Count?: number;
  ScannedCount?: number;
  LastEvaluatedKey?: NativeItem;
  ConsumedCapacity?: ConsumedCapacity;
}

export interface QueryCommandInput extends ReadManyInput {
  KeyConditionExpression?: string;
  ScanIndexForward?: boolean;
  KeyConditions?: Record<string, LegacyCondition>;
  QueryFilter?: Record<string, LegacyCondition>;
}
export type QueryCommandOutput = ReadManyOutput;

export interface ScanCommandInput extends ReadManyInput {
  Segment?: number;
  TotalSegments?: number;
  ScanFilter?: Record<string, LegacyCondition>;
}
export type ScanCommandOutput = ReadManyOutput;

export interface KeysAndAttributes {
  Keys: ItemInput[];
  ConsistentRead?: boolean;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Names;
  AttributesToGet?: string[];
}

export interface BatchGetCommandInput {
  RequestItems: Record<string, KeysAndAttributes>;
  ReturnConsumedCapacity?: ReturnConsumedCapacity;
}
export interface BatchGetCommandOutput extends Output {
  Responses?: Record<string, NativeItem[]>;
  UnprocessedKeys?: Record<string, KeysAndAttributes & { Keys: NativeItem[] }>;
  ConsumedCapacity?: ConsumedCapacity[];
}

export interface WriteRequest {
  PutRequest?: { Item: ItemInput };
  DeleteRequest?: { Key: ItemInput };
}

export interface BatchWriteCommandInput {
  RequestItems: Record<string, WriteRequest[]>;
  ReturnConsumedCapacity?: ReturnConsumedCapacity;
  ReturnItemCollectionMetrics?: ReturnItemCollectionMetrics;
}
export interface BatchWriteCommandOutput extends Output {
  /** What DynamoDB did not write (throttling): send these again. Items in native values. */
  UnprocessedItems?: Record<
    string,
    { PutRequest?: { Item: NativeItem }; DeleteRequest?: { Key: NativeItem } }[]
  >;
  ItemCollectionMetrics?: Record<string, ItemCollectionMetrics[]>;
  ConsumedCapacity?: ConsumedCapacity[];
}

interface TransactTarget {
  TableName: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Names;
  ExpressionAttributeValues?: NativeItem;
  ReturnValuesOnConditionCheckFailure?: ReturnValuesOnConditionCheckFailure;
}

export interface TransactWriteItem {
  ConditionCheck?: TransactTarget & { Key: ItemInput; ConditionExpression: string };
  Put?: TransactTarget & { Item: ItemInput };
  Delete?: TransactTarget & { Key: ItemInput };
  Update?: TransactTarget & { Key: ItemInput; UpdateExpression: string };
}

export interface TransactWriteCommandInput {
  TransactItems: TransactWriteItem[];
  ReturnConsumedCapacity?: ReturnConsumedCapacity;
  ReturnItemCollectionMetrics?: ReturnItemCollectionMetrics;
  ClientRequestToken?: string;
}
export interface TransactWriteCommandOutput extends Output {
  ConsumedCapacity?: ConsumedCapacity[];
  ItemCollectionMetrics?: Record<string, ItemCollectionMetrics[]>;
}

export interface KeySchemaElement {
  AttributeName: string;
  KeyType: 'HASH' | 'RANGE';
}
export interface Projection {
  ProjectionType?: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  NonKeyAttributes?: string[];
}
export interface ProvisionedThroughput {
  ReadCapacityUnits: number;
  WriteCapacityUnits: number;
}

export interface CreateTableCommandInput {
  TableName: string;
  AttributeDefinitions: { AttributeName: string; AttributeType: 'S' | 'N' | 'B' }[];
  KeySchema: KeySchemaElement[];
  BillingMode?: 'PROVISIONED' | 'PAY_PER_REQUEST';
  ProvisionedThroughput?: ProvisionedThroughput;
  GlobalSecondaryIndexes?: {
    IndexName: string;
    KeySchema: KeySchemaElement[];
    Projection: Projection;
    ProvisionedThroughput?: ProvisionedThroughput;
  }[];
  LocalSecondaryIndexes?: { IndexName: string; KeySchema: KeySchemaElement[]; Projection: Projection }[];
  StreamSpecification?: { StreamEnabled: boolean; StreamViewType?: string };
  SSESpecification?: { Enabled?: boolean; SSEType?: string; KMSMasterKeyId?: string };
  TableClass?: 'STANDARD' | 'STANDARD_INFREQUENT_ACCESS';
  DeletionProtectionEnabled?: boolean;
  Tags?: { Key: string; Value: string }[];
}
export interface CreateTableCommandOutput extends Output {
  TableDescription?: Record<string, unknown>;
}

export interface UpdateTimeToLiveCommandInput {
  TableName: string;
  TimeToLiveSpecification: { AttributeName: string; Enabled: boolean };
}
export interface UpdateTimeToLiveCommandOutput extends Output {
  TimeToLiveSpecification?: { AttributeName: string; Enabled: boolean };
}

export interface ListTablesCommandInput {
  ExclusiveStartTableName?: string;
  Limit?: number;
}
export interface ListTablesCommandOutput extends Output {
  TableNames?: string[];
  LastEvaluatedTableName?: string;
}

/** Where the values are, per command: lib-dynamodb's inputKeyNodes / outputKeyNodes. */
const expected: Shape = { '*': { Value: 'value', AttributeValueList: 'list' } };
const legacyList: Shape = { '*': { AttributeValueList: 'list' } };
const writeOut: Shape = { Attributes: 'map', ItemCollectionMetrics: { ItemCollectionKey: 'map' } };
const readManyOut: Shape = { Items: { '*': 'map' }, LastEvaluatedKey: 'map' };
const collectionMetrics: Shape = { '*': { '*': { ItemCollectionKey: 'map' } } };
const writeRequests: Shape = {
  '*': { '*': { PutRequest: { Item: 'item' }, DeleteRequest: { Key: 'map' } } },
};
const keys: Shape = { '*': { Keys: { '*': 'map' } } };
const none: Shape = {};
// Named rather than written inline: tests/integration/infra/operations-template.test.ts reads each
// function's bundle for `Put: {`, `Update: {`, ... to find the transaction parts a function sends, and
// must not take this table of shapes for a transaction of its own.
const keyed: Shape = { Key: 'map', ExpressionAttributeValues: 'map' };
const transactPut: Shape = { Item: 'item', ExpressionAttributeValues: 'map' };

/**
 * Base of every command: `input` is what the caller passed (native values), untouched; the client
 * marshals it per attempt-independent request body and unmarshals the answer.
 */
export abstract class DynamoDbCommand<Input, Result> {
  /** The JSON protocol's operation (`X-Amz-Target: DynamoDB_20120810.<operation>`). */
  static readonly operation: string;
  protected static readonly inputShape: Shape = none;
  protected static readonly outputShape: Shape = none;
  readonly input: Input;

  constructor(input: Input) {
    this.input = input;
  }

  private get kind() {
    return this.constructor as unknown as {
      operation: string;
      inputShape: Shape;
      outputShape: Shape;
    };
  }

  get operation(): string {
    return this.kind.operation;
  }

  /** The request body's structure; throws `UnstorableValueError` before anything is sent. */
  marshall(): unknown {
    return marshallInput(this.input, this.kind.inputShape);
  }

  /** The parsed response body → the output in native values (without `$metadata`). */
  unmarshall(body: Record<string, unknown>): Omit<Result, '$metadata'> {
    return unmarshallOutput(body, this.kind.outputShape) as Omit<Result, '$metadata'>;
  }
}

/**
 * A minifier renames classes, but logs, the benchmark and tests/support/instrumented-db.ts identify
 * commands by `constructor.name`: each class keeps its name explicitly. Pure, so a bundle still drops
 * the commands its function never uses.
 */
const named = <T extends abstract new (input: never) => unknown>(name: string, command: T): T =>
  Object.defineProperty(command, 'name', { value: name });

export const GetCommand = /* @__PURE__ */ named(
  'GetCommand',
  class extends DynamoDbCommand<GetCommandInput, GetCommandOutput> {
    static override readonly operation = 'GetItem';
    protected static override readonly inputShape: Shape = { Key: 'map' };
    protected static override readonly outputShape: Shape = { Item: 'map' };
  },
);
export type GetCommand = InstanceType<typeof GetCommand>;

export const PutCommand = /* @__PURE__ */ named(
  'PutCommand',
  class extends DynamoDbCommand<PutCommandInput, PutCommandOutput> {
    static override readonly operation = 'PutItem';
    protected static override readonly inputShape: Shape = {
      Item: 'item',
      Expected: expected,
      ExpressionAttributeValues: 'map',
    };
    protected static override readonly outputShape = writeOut;
  },
);
export type PutCommand = InstanceType<typeof PutCommand>;

export const UpdateCommand = /* @__PURE__ */ named(
  'UpdateCommand',
  class extends DynamoDbCommand<UpdateCommandInput, UpdateCommandOutput> {
    static override readonly operation = 'UpdateItem';
    protected static override readonly inputShape: Shape = {
      Key: 'map',
      AttributeUpdates: { '*': { Value: 'value' } },
      Expected: expected,
      ExpressionAttributeValues: 'map',
    };
    protected static override readonly outputShape = writeOut;
  },
);
export type UpdateCommand = InstanceType<typeof UpdateCommand>;

export const DeleteCommand = /* @__PURE__ */ named(
  'DeleteCommand',
  class extends DynamoDbCommand<DeleteCommandInput, DeleteCommandOutput> {
    static override readonly operation = 'DeleteItem';
    protected static override readonly inputShape: Shape = {
      Key: 'map',
      Expected: expected,
      ExpressionAttributeValues: 'map',
    };
    protected static override readonly outputShape = writeOut;
  },
);
export type DeleteCommand = InstanceType<typeof DeleteCommand>;

export const QueryCommand = /* @__PURE__ */ named(
  'QueryCommand',
  class extends DynamoDbCommand<QueryCommandInput, QueryCommandOutput> {
    static override readonly operation = 'Query';
    protected static override readonly inputShape: Shape = {
      KeyConditions: legacyList,
      QueryFilter: legacyList,
      ExclusiveStartKey: 'map',
      ExpressionAttributeValues: 'map',
    };
    protected static override readonly outputShape = readManyOut;
  },
);
export type QueryCommand = InstanceType<typeof QueryCommand>;

export const ScanCommand = /* @__PURE__ */ named(
  'ScanCommand',
  class extends DynamoDbCommand<ScanCommandInput, ScanCommandOutput> {
    static override readonly operation = 'Scan';
    protected static override readonly inputShape: Shape = {
      ScanFilter: legacyList,
      ExclusiveStartKey: 'map',
      ExpressionAttributeValues: 'map',
    };
    protected static override readonly outputShape = readManyOut;
  },
);
export type ScanCommand = InstanceType<typeof ScanCommand>;

export const BatchGetCommand = /* @__PURE__ */ named(
  'BatchGetCommand',
  class extends DynamoDbCommand<BatchGetCommandInput, BatchGetCommandOutput> {
    static override readonly operation = 'BatchGetItem';
    protected static override readonly inputShape: Shape = { RequestItems: keys };
    protected static override readonly outputShape: Shape = {
      Responses: { '*': { '*': 'map' } },
      UnprocessedKeys: keys,
    };
  },
);
export type BatchGetCommand = InstanceType<typeof BatchGetCommand>;

export const BatchWriteCommand = /* @__PURE__ */ named(
  'BatchWriteCommand',
  class extends DynamoDbCommand<BatchWriteCommandInput, BatchWriteCommandOutput> {
    static override readonly operation = 'BatchWriteItem';
    protected static override readonly inputShape: Shape = { RequestItems: writeRequests };
    protected static override readonly outputShape: Shape = {
      UnprocessedItems: writeRequests,
      ItemCollectionMetrics: collectionMetrics,
    };
  },
);
export type BatchWriteCommand = InstanceType<typeof BatchWriteCommand>;

export const TransactWriteCommand = /* @__PURE__ */ named(
  'TransactWriteCommand',
  class extends DynamoDbCommand<TransactWriteCommandInput, TransactWriteCommandOutput> {
    static override readonly operation = 'TransactWriteItems';
    protected static override readonly inputShape: Shape = {
      TransactItems: {
        '*': { ConditionCheck: keyed, Put: transactPut, Delete: keyed, Update: keyed },
      },
    };
    protected static override readonly outputShape: Shape = { ItemCollectionMetrics: collectionMetrics };
  },
);
export type TransactWriteCommand = InstanceType<typeof TransactWriteCommand>;

export const CreateTableCommand = /* @__PURE__ */ named(
  'CreateTableCommand',
  class extends DynamoDbCommand<CreateTableCommandInput, CreateTableCommandOutput> {
    static override readonly operation = 'CreateTable';
  },
);
export type CreateTableCommand = InstanceType<typeof CreateTableCommand>;

export const UpdateTimeToLiveCommand = /* @__PURE__ */ named(
  'UpdateTimeToLiveCommand',
  class extends DynamoDbCommand<UpdateTimeToLiveCommandInput, UpdateTimeToLiveCommandOutput> {
    static override readonly operation = 'UpdateTimeToLive';
  },
);
export type UpdateTimeToLiveCommand = InstanceType<typeof UpdateTimeToLiveCommand>;

export const ListTablesCommand = /* @__PURE__ */ named(
  'ListTablesCommand',
  class extends DynamoDbCommand<ListTablesCommandInput, ListTablesCommandOutput> {
    static override readonly operation = 'ListTables';
  },
);
export type ListTablesCommand = InstanceType<typeof ListTablesCommand>;

/** Where error bodies hold items: a cancelled transaction's reasons, a failed condition's old item. */
export const errorShape: Shape = { CancellationReasons: { '*': { Item: 'map' } }, Item: 'map' };
export type { CancellationReason };
