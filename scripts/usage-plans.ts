/**
 * The tenants' API Gateway keys on the usage plans of their tiers, for the operator CLI.
 *
 * The push authorizer returns a tenant's key as the request's usage identifier, so API Gateway applies
 * that tenant's plan (rate, burst, monthly quota) before any Lambda runs. The service makes one key per
 * tenant with a random value nobody is shown: with the API's key source AUTHORIZER a key grants nothing
 * by itself, it only names the plan. Never part of a Lambda: only `scripts/` import this module.
 */
import { randomBytes } from 'node:crypto';
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetUsagePlansCommand,
} from '@aws-sdk/client-api-gateway';
import type { Tenant } from '../lib/db/tenants';
import type { Plan } from '../lib/domain/plan';

export interface UsagePlans {
  /** Creates the tenant's key on the usage plan of its tier. */
  provision(tenant: Pick<Tenant, 'id' | 'plan'>): Promise<NonNullable<Tenant['usageKey']>>;
  /** Moves the tenant's key from the plan of one tier to another's. */
  move(usageKey: NonNullable<Tenant['usageKey']>, from: Plan, to: Plan): Promise<void>;
}

const SERVICE = 'strategy-service';

/**
 * Usage plans named as serverless.yml makes them: `<service>-<tier>-<stage>`. Access for the operator is
 * the `OperatorPolicy` of the stack: keys tagged with this service and stage, and these plans only.
 */
export const apiGatewayUsagePlans = ({
  client,
  stage,
}: {
  client: APIGatewayClient;
  stage: string;
}): UsagePlans => {
  let planIds: Promise<Map<string, string>> | undefined;
  const planId = async (plan: Plan) => {
    planIds ??= (async () => {
      const ids = new Map<string, string>();
      let position: string | undefined;
      do {
        const page = await client.send(new GetUsagePlansCommand({ position, limit: 500 }));
        for (const item of page.items ?? []) if (item.name && item.id) ids.set(item.name, item.id);
        position = page.position;
      } while (position);
      return ids;
    })();
    const name = `${SERVICE}-${plan}-${stage}`;
    const id = (await planIds).get(name);
    if (!id) throw new Error(`No usage plan named ${name}: is the ${stage} stage deployed?`);
    return id;
  };

  return {
    async provision(tenant) {
      const value = randomBytes(30).toString('base64url'); // 40 characters; API Gateway wants at least 20
      const key = await client.send(
        new CreateApiKeyCommand({
          name: `${SERVICE}-${stage}-tenant-${tenant.id}`,
          description: `Usage plan key of tenant ${tenant.id} (made by the operator CLI; never shown)`,
          enabled: true,
          value,
          tags: { service: SERVICE, stage, tenant: tenant.id },
        }),
      );
      if (!key.id) throw new Error('API Gateway created a key without an id');
      await client.send(
        new CreateUsagePlanKeyCommand({
          usagePlanId: await planId(tenant.plan),
          keyId: key.id,
          keyType: 'API_KEY',
        }),
      );
      return { id: key.id, value };
    },

    async move(usageKey, from, to) {
      if (from === to) return;
      // A key can be on one plan of a stage at a time: off the old one, then onto the new one. Requests
      // in the moment between are refused (INVALID_API_KEY); the CLI makes the two calls back to back.
      await client.send(
        new DeleteUsagePlanKeyCommand({ usagePlanId: await planId(from), keyId: usageKey.id }),
      );
      await client.send(
        new CreateUsagePlanKeyCommand({
          usagePlanId: await planId(to),
          keyId: usageKey.id,
          keyType: 'API_KEY',
        }),
      );
    },
  };
};

/**
 * The usage plans of the deployed stage, or undefined on the local stack (no API Gateway there).
 * `DYNAMODB_ENDPOINT=aws` means the CLI works on a deployed stage; its stage comes from `STAGE`, or from
 * `TABLE_NAME` (`strategy-service-<stage>`). `APIGATEWAY_ENDPOINT` points the client elsewhere (tests).
 */
export const usagePlansFromEnv = (env: NodeJS.ProcessEnv): UsagePlans | undefined => {
  const onAws = env.DYNAMODB_ENDPOINT === 'aws';
  if (!onAws && !env.APIGATEWAY_ENDPOINT) return undefined;
  const stage = env.STAGE ?? env.TABLE_NAME?.replace(new RegExp(`^${SERVICE}-`), '');
  if (!stage)
    throw new Error('Set STAGE (or TABLE_NAME=strategy-service-<stage>) to manage usage plan keys.');
  const client = new APIGatewayClient({
    region: env.AWS_REGION ?? 'eu-central-1',
    ...(env.APIGATEWAY_ENDPOINT ? { endpoint: env.APIGATEWAY_ENDPOINT } : {}),
  });
  return apiGatewayUsagePlans({ client, stage });
};
