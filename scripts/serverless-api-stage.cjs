// @ts-check
/**
 * Local Serverless plugin (serverless.yml `plugins`): lets the REST API stage be a CloudFormation
 * `AWS::ApiGateway::Stage` declared in serverless.yml `resources` (logical id `ApiGatewayStage`), so
 * stage settings such as the default method throttle (`MethodSettings` on `/*` `*`) are in the template.
 *
 * Why a plugin: osls compiles the stage implicitly, as the `StageName` of an `AWS::ApiGateway::Deployment`
 * whose logical id changes with every package (`ApiGatewayDeployment<timestamp>`), and it has no setting
 * for stage throttling. The declared stage cannot `Ref` that id, and a stage with the same name as the
 * deployment's would collide ("Stage already exists"). After the template is complete this plugin moves
 * the stage out of the deployment: it removes the deployment's `StageName`, points the declared stage at
 * this package's deployment, and makes the usage plans (which name the stage) wait for the stage.
 * A redeploy creates a new deployment and updates the stage's `DeploymentId` in place (no interruption).
 *
 * Access logs: the stage waits for `ApiGatewayAccount` (the account's CloudWatch role for API
 * Gateway), because a stage cannot enable access logs before the account has that role. With
 * `custom.manageApiGatewayAccount` "false" (the account already has one) both resources are left out.
 */
const ACCOUNT_RESOURCES = ['ApiGatewayAccount', 'ApiGatewayCloudWatchRole'];
const STAGE_LOGICAL_ID = 'ApiGatewayStage';

class ServerlessApiStage {
  /** @param {any} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      // After `resources` are merged into the template, before the template is written.
      'before:aws:package:finalize:saveServiceState': () => this.wireStage(),
    };
  }

  wireStage() {
    /** @type {Record<string, any>} */
    const resources = this.serverless.service.provider.compiledCloudFormationTemplate.Resources;
    const stage = resources[STAGE_LOGICAL_ID];
    if (!stage) return;
    const fail = (/** @type {string} */ message) => {
      throw new this.serverless.classes.Error(`serverless-api-stage: ${message}`);
    };
    if (stage.Type !== 'AWS::ApiGateway::Stage')
      fail(`${STAGE_LOGICAL_ID} must be an AWS::ApiGateway::Stage`);
    const deployments = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::ApiGateway::Deployment');
    if (deployments.length !== 1)
      fail(`expected one AWS::ApiGateway::Deployment, found ${deployments.length}`);
    const [deploymentId, deployment] = /** @type {[string, any]} */ (deployments[0]);
    const stageName = stage.Properties?.StageName;
    if (deployment.Properties.StageName !== stageName) {
      fail(
        `the stage is named "${stageName}" but the deployment targets "${deployment.Properties.StageName}"`,
      );
    }
    delete deployment.Properties.StageName;
    if (String(this.serverless.service.custom?.manageApiGatewayAccount) === 'false') {
      for (const id of ACCOUNT_RESOURCES) delete resources[id];
    } else if (resources.ApiGatewayAccount) {
      stage.DependsOn = [...[stage.DependsOn ?? []].flat(), 'ApiGatewayAccount'];
    }
    stage.Properties.DeploymentId = { Ref: deploymentId };
    for (const resource of Object.values(resources)) {
      if (resource.Type !== 'AWS::ApiGateway::UsagePlan') continue;
      const dependsOn = [resource.DependsOn ?? []].flat();
      if (!dependsOn.includes(STAGE_LOGICAL_ID)) resource.DependsOn = [...dependsOn, STAGE_LOGICAL_ID];
    }
  }
}

module.exports = ServerlessApiStage;
