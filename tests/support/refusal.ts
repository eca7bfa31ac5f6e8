import { expect } from 'vitest';

/** What `run` throws (the test fails if it returns): a refused input's error, to assert on. */
export const refusalOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error as { code: string; message: string; errors: { path: string; message: string }[] };
  }
  return expect.unreachable('accepted');
};
