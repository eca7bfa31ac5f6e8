import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json';

/**
 * Issue 14: `engines` states the real minimum. The floor is the strictest of the toolchain's ranges
 * (osls: ^20.19.0 || ^22.13.0 || >=24; vite: ^20.19.0 || >=22.12.0) and covers what the code uses
 * (node:zlib crc32: 20.15 / 22.2). CI runs the unit and integration projects on Node 20 and 22.
 */
const satisfies = (version: string, range: string) => {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number) as [number, number];
  return range.split('||').some((part) => {
    const match = /^\s*(\^|>=)(\d+)\.(\d+)\.\d+\s*$/.exec(part);
    if (!match) throw new Error(`unsupported range part "${part}"`);
    const [, op, wantMajor, wantMinor] = match;
    if (op === '^') return major === Number(wantMajor) && minor >= Number(wantMinor);
    return major > Number(wantMajor) || (major === Number(wantMajor) && minor >= Number(wantMinor));
  });
};

describe('engines', () => {
  it('is satisfied by the Node running the tests (20 and 22 in CI)', () => {
    expect(satisfies(process.version, packageJson.engines.node)).toBe(true);
  });

  it('excludes the versions without node:zlib crc32 and those the toolchain refuses', () => {
    for (const version of ['20.14.0', '20.18.0', '21.7.0', '22.2.0', '22.12.0', '23.9.0']) {
      expect(satisfies(version, packageJson.engines.node), version).toBe(false);
    }
    for (const version of ['20.19.0', '22.13.0', '24.0.0']) {
      expect(satisfies(version, packageJson.engines.node), version).toBe(true);
    }
    expect(crc32('strategy')).toBeTypeOf('number');
  });
});
