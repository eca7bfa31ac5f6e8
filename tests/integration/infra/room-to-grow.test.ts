import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPageRoute } from '../../../lib/http/route';
import { type DeclaredFunction, serverlessFunctions } from '../../../scripts/deployment';
import { privateTempDir } from '../../../scripts/local/processes';
import { loadRouteModules } from '../../../scripts/routes';
import {
  type CloudFormationTemplate,
  packageTemplate,
  removePackages,
  resourcesOfType,
} from '../../support/serverless-template';
import { templateProblems } from '../../support/template-spec';

/**
 * The stack keeps fitting CloudFormation's limits as the API grows (docs/architecture.md, "Room to
 * grow"): `serverless package --stage prod` of the functions of today plus as many more HTTP routes as
 * make 100 functions, each new one declared like one of today's routes (its role, its auth, its
 * CORS), on a path of its own (a path resource each: no sharing assumed). The functions are built
 * from declarations by the same generator as infra/functions.json; their code is left out (one tiny
 * zip, and the health function bundled), since only the template is judged.
 */
const FUNCTIONS = 100;
/** CloudFormation's quotas of one stack. */
const MAX_RESOURCES = 500;
const MAX_OUTPUTS = 200;
const MAX_TEMPLATE_BYTES = 1_000_000;

let grown: CloudFormationTemplate;
let declared: DeclaredFunction[];
const temp = privateTempDir('room-to-grow-');

beforeAll(async () => {
  declared = (await loadRouteModules()).map(({ name, route, deployment }) => ({
    file: name,
    route,
    deployment,
  }));
  const routes = declared.filter(({ route }) => route && !isPageRoute(route));
  const more: DeclaredFunction[] = [];
  for (let i = 0; more.length + declared.length < FUNCTIONS; i++) {
    const model = routes[i % routes.length]!;
    const route = model.route as Exclude<DeclaredFunction['route'], undefined>;
    more.push({
      file: `grown-${i}`,
      route: { ...route, path: `/grown-${i}` } as never,
      deployment: { ...model.deployment, name: `grown${i}` },
    });
  }
  const artifact = join(temp.dir, 'empty.zip');
  const zip = new JSZip();
  zip.file('index.js', 'exports.handler = async () => ({});\n');
  writeFileSync(artifact, await zip.generateAsync({ type: 'nodebuffer' }));
  const functions = serverlessFunctions([...declared, ...more]);
  // serverless-esbuild needs one function to build (the smallest): the others keep their zip.
  for (const [name, fn] of Object.entries(functions)) {
    if (name === 'health') continue;
    fn.skipEsbuild = true;
    fn.package = { artifact };
  }
  mkdirSync(temp.dir, { recursive: true });
  const file = join(temp.dir, 'functions.json');
  writeFileSync(file, JSON.stringify(functions));
  grown = await packageTemplate('prod', {}, { FUNCTIONS_FILE: file });
}, 300_000);
afterAll(() => {
  removePackages();
  temp.remove();
});

describe('room for 100 functions', () => {
  it('packages a template of 100 functions', () => {
    expect(resourcesOfType(grown, 'AWS::Lambda::Function')).toHaveLength(FUNCTIONS);
    expect(declared.length).toBeLessThan(FUNCTIONS);
  });

  it('stays within 500 resources, 200 outputs and 1 MB of template', () => {
    const resources = Object.keys(grown.Resources).length;
    const outputs = Object.keys(grown.Outputs ?? {}).length;
    console.log(
      `100 functions: ${resources} resources, ${outputs} outputs, ${grown.templateBytes} bytes of template`,
    );
    expect(resources).toBeLessThanOrEqual(MAX_RESOURCES);
    expect(outputs).toBeLessThanOrEqual(MAX_OUTPUTS);
    expect(grown.templateBytes).toBeLessThanOrEqual(MAX_TEMPLATE_BYTES);
  });

  it('is a template AWS would take: specifications, IAM statements and quotas', async () => {
    expect(await templateProblems(grown, grown.templateBytes)).toEqual([]);
  }, 120_000);

  it('keeps a role of its own for every function, and shares the log group and the invocation role', () => {
    const roles = new Set(
      resourcesOfType(grown, 'AWS::Lambda::Function').map(([, fn]) => fn.Properties.Role['Fn::GetAtt'][0]),
    );
    expect(roles.size).toBe(FUNCTIONS);
    expect(
      resourcesOfType(grown, 'AWS::Logs::LogGroup')
        .map(([id]) => id)
        .sort(),
    ).toEqual(['ApiGatewayAccessLogGroup', 'FunctionLogGroup']);
    expect(resourcesOfType(grown, 'AWS::Lambda::Permission').map(([, p]) => p.Properties.Principal)).toEqual(
      expect.not.arrayContaining(['apigateway.amazonaws.com']),
    );
  });
});
