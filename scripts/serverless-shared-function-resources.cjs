// @ts-check
/**
 * Local Serverless plugin (serverless.yml `plugins`): what every function needs of CloudFormation but
 * need not have one of its own, shared by all of them, so that a function costs the stack its Lambda,
 * its role, its API method and its share of path resources, and nothing more (docs/architecture.md,
 * "Room to grow"):
 *
 * - **One log group for every function** (`FunctionLogGroup`, `custom.functionLogGroup`): each function
 *   logs to it through `LoggingConfig.LogGroup` instead of a log group of its own. Lambda names each
 *   stream after its function, and every line carries `function_name` (Powertools), so a function's
 *   logs are still one filter away. Each function's role may write streams of that group only.
 * - **One role for API Gateway to invoke the functions** (`ApiGatewayInvokeRole`): every Lambda
 *   integration and the authorizer call with its credentials instead of a resource policy statement
 *   (`AWS::Lambda::Permission`) per function. It may invoke this stack's functions only.
 * - **A template without indentation**, as `--minify-template` writes it.
 */
const LOG_GROUP_ID = 'FunctionLogGroup';
const INVOKE_ROLE_ID = 'ApiGatewayInvokeRole';

class ServerlessSharedFunctionResources {
  /** @param {any} serverless @param {Record<string, unknown>} options */
  constructor(serverless, options) {
    this.serverless = serverless;
    this.options = options;
    this.hooks = {
      // Before the functions compile: no function gets a log group of its own.
      'before:package:compileFunctions': () => this.shareLogGroup(),
      'before:aws:package:finalize:saveServiceState': () => {
        this.wire();
        // The template is written and uploaded without indentation (`--minify-template`, always):
        // the indentation alone would be more than half of CloudFormation's 1 MB at 100 functions.
        this.options['minify-template'] = true;
      },
    };
  }

  shareLogGroup() {
    const service = this.serverless.service;
    for (const name of service.getAllFunctions()) {
      const fn = service.getFunction(name);
      fn.logs = { ...(fn.logs ?? {}), logGroup: { Ref: LOG_GROUP_ID } };
    }
  }

  wire() {
    const service = this.serverless.service;
    const { provider } = service;
    /** @type {Record<string, any>} */
    const resources = provider.compiledCloudFormationTemplate.Resources;
    const naming = this.serverless.getProvider('aws').naming;
    const prefix = `${service.service}-${provider.stage}`;
    const arn = (/** @type {string} */ rest) => ({
      'Fn::Sub': `arn:\${AWS::Partition}:${rest}`,
    });

    resources[LOG_GROUP_ID] = {
      Type: 'AWS::Logs::LogGroup',
      Properties: {
        LogGroupName: `/aws/lambda/${prefix}`,
        ...(provider.logRetentionInDays ? { RetentionInDays: provider.logRetentionInDays } : {}),
      },
    };
    // The framework made a log group per function (and made each function wait for its own).
    const ownGroups = new Set(service.getAllFunctions().map((name) => naming.getLogGroupLogicalId(name)));
    for (const id of ownGroups) delete resources[id];
    for (const resource of Object.values(resources)) {
      if (resource.Type !== 'AWS::Lambda::Function' || !resource.DependsOn) continue;
      resource.DependsOn = [resource.DependsOn].flat().filter((id) => !ownGroups.has(id));
      if (resource.DependsOn.length === 0) delete resource.DependsOn;
    }
    const logStreams = arn(
      `logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/${prefix}:log-stream:*`,
    );
    // Every function has a role of its own (serverless-iam-roles-per-function): the framework's
    // shared role is left to no one.
    const sharedRole = naming.getRoleLogicalId();
    const { [sharedRole]: _shared, ...rest } = resources;
    const others = JSON.stringify(rest);
    if (resources[sharedRole] && !others.includes(`"${sharedRole}"`)) {
      delete resources[sharedRole];
    }
    for (const resource of Object.values(resources)) {
      if (resource.Type !== 'AWS::IAM::Role') continue;
      for (const policy of resource.Properties.Policies ?? []) {
        for (const statement of policy.PolicyDocument.Statement) {
          const actions = [statement.Action].flat();
          if (!actions.includes('logs:PutLogEvents')) continue;
          // The function's own group would be /aws/lambda/<function>; it logs to the shared one.
          statement.Action = ['logs:CreateLogStream', 'logs:PutLogEvents'];
          statement.Resource = [logStreams];
        }
      }
    }

    // API Gateway's invocations: credentials on each integration instead of a permission per function.
    const permissions = Object.entries(resources).filter(
      ([, r]) =>
        r.Type === 'AWS::Lambda::Permission' && r.Properties.Principal === 'apigateway.amazonaws.com',
    );
    if (permissions.length === 0) return;
    const removed = new Set(permissions.map(([id]) => id));
    for (const id of removed) delete resources[id];
    const credentials = { 'Fn::GetAtt': [INVOKE_ROLE_ID, 'Arn'] };
    for (const resource of Object.values(resources)) {
      if (resource.DependsOn) {
        const dependsOn = [resource.DependsOn].flat().filter((id) => !removed.has(id));
        if (dependsOn.length > 0) resource.DependsOn = dependsOn;
        else delete resource.DependsOn;
      }
      if (
        resource.Type === 'AWS::ApiGateway::Method' &&
        resource.Properties.Integration?.Type === 'AWS_PROXY'
      ) {
        resource.Properties.Integration.Credentials = credentials;
      }
      if (resource.Type === 'AWS::ApiGateway::Authorizer')
        resource.Properties.AuthorizerCredentials = credentials;
    }
    resources[INVOKE_ROLE_ID] = {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Principal: { Service: 'apigateway.amazonaws.com' }, Action: 'sts:AssumeRole' },
          ],
        },
        Policies: [
          {
            PolicyName: `${prefix}-invoke`,
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [
                {
                  Effect: 'Allow',
                  Action: 'lambda:InvokeFunction',
                  Resource: arn(`lambda:\${AWS::Region}:\${AWS::AccountId}:function:${prefix}-*`),
                },
              ],
            },
          },
        ],
      },
    };
  }
}

module.exports = ServerlessSharedFunctionResources;
