import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { apiEvent, type EventInput, lambdaContext } from '../../scripts/local/events';

export { apiEvent, type EventInput, lambdaContext };

export type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface InvokeResult {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Invokes a handler like API Gateway does and parses the JSON answer. */
export const invoke = async (
  handler: unknown,
  input: EventInput,
  context: Parameters<typeof lambdaContext>[0] = {},
): Promise<InvokeResult> => {
  const result = await (handler as Handler)(apiEvent(input), lambdaContext(context));
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  return { status: result.statusCode, headers, body: result.body ? JSON.parse(result.body) : undefined };
};
