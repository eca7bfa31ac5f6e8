import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * scrypt with OWASP's "N=2^15, r=8, p=3" profile (Password Storage Cheat Sheet): memory-hard, 32 MiB
 * per hash. The parameters are stored with each hash so they can be raised without a migration.
 * Format: `scrypt$N=<n>,r=<r>,p=<p>$<salt base64>$<hash base64>`.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 3 } as const;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

const derive = (password: string, salt: Buffer, params: { N: number; r: number; p: number }) =>
  new Promise<Buffer>((resolve, reject) => {
    // scrypt needs 128·N·r bytes; twice that leaves room, so the 1 MiB added or not changes nothing.
    // Stryker disable next-line ArithmeticOperator: see above
    const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });

export const hashPassword = async (password: string): Promise<string> => {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, PARAMS);
  return `scrypt$N=${PARAMS.N},r=${PARAMS.r},p=${PARAMS.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
};

const FORMAT = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

export const verifyPassword = async (password: string, stored: string): Promise<boolean> => {
  const match = FORMAT.exec(stored);
  if (!match) return false;
  const [, n, r, p, salt, hash] = match as unknown as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
};

/**
 * A hash of a random password nobody knows, with the current parameters. Login verifies against it
 * when the e-mail is unknown, so an unknown e-mail costs the same time as a wrong password and the
 * response time does not reveal which accounts exist.
 */
export const DUMMY_PASSWORD_HASH =
  'scrypt$N=32768,r=8,p=3$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
