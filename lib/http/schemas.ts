import * as z from 'zod/mini';
import { pageQuerySchema } from '../db/pagination';
import type { JsonEvent } from './types';
import { parseInput } from './validation';

/** Spec 2.2. The password is not trimmed or normalized beyond NFC: it is compared as typed. */
export const loginSchema = z.strictObject({
  email: z.email('email must be an e-mail address').check(z.maxLength(254)),
  password: z.string().check(z.minLength(1, 'password is required'), z.maxLength(1024)),
});

/** Spec 2.4. */
export const refreshSchema = z.strictObject({
  refreshToken: z.string().check(z.minLength(1, 'refreshToken is required'), z.maxLength(4096)),
});

/** `?limit=&cursor=` of every list endpoint. */
export const parsePageQuery = (event: Pick<JsonEvent, 'queryStringParameters'>) =>
  parseInput(pageQuerySchema, event.queryStringParameters ?? {}, { what: 'query string' });
