import { readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Deployment } from '../lib/deployment';
import type { AnyRoute } from '../lib/http/route';

/** Where the route modules are: one Lambda function per file. */
export const FUNCTIONS_DIR = resolve(__dirname, '..', 'functions');

export interface RouteModule {
  /** The file name without `.ts`, as serverless.yml names its handler (`functions/<name>.handler`). */
  name: string;
  /** The module's declaration; absent for a function that serves no route (the push authorizer). */
  route: AnyRoute | undefined;
  /** What its deployment needs besides its route (lib/deployment.ts); absent: nothing more. */
  deployment: Deployment | undefined;
}

/**
 * Every module of functions/ with its `route` declaration, in file order: what the OpenAPI document
 * and serverless.yml's functions (scripts/deployment.ts) read. The modules build their handlers when loaded, as a Lambda does at cold
 * start, so they need a configuration: a placeholder one where the environment has none (nothing is
 * called, no table is touched).
 */
export const loadRouteModules = async (): Promise<RouteModule[]> => {
  process.env.TABLE_NAME ??= 'route-declarations';
  if (!process.env.JWT_SECRET && !process.env.JWT_SECRET_PARAMETER) {
    process.env.JWT_SECRET = 'route-declarations-are-read-only-and-never-sign';
  }
  const modules: RouteModule[] = [];
  for (const file of readdirSync(FUNCTIONS_DIR)
    .filter((name) => name.endsWith('.ts'))
    .sort()) {
    const loaded = (await import(join(FUNCTIONS_DIR, file))) as { route?: AnyRoute; deployment?: Deployment };
    modules.push({ name: basename(file, '.ts'), route: loaded.route, deployment: loaded.deployment });
  }
  return modules;
};
