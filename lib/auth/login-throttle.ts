import { isIP } from 'node:net';
import type { Database } from '../db/client';
import { keys } from '../db/keys';
import {
  type AttemptCounter,
  clearAttempts,
  delayAttempts,
  type ReservationDelay,
  readAttemptCounters,
  releaseAttempt,
  reserveAttempt,
} from '../db/login-attempts';
import { AppError } from '../errors';
import { settleAll } from '../promises';

/**
 * Brute-force protection of login that hurts the attacker, not the victim. Failures are counted per
 * e-mail and source address, so a correct password from a source that has not failed is never refused
 * because of another source's failures; per source address, so one source cannot guess across many
 * e-mails; and per e-mail, as a ceiling only a distributed attack reaches, which alerts operators.
 */
export interface LoginThrottlePolicy {
  /** Length of each counter's window, which opens at its first attempt. */
  windowSeconds: number;
  /** Failures per e-mail from one source, after which it gets 429 until the window ends. */
  maxFailures: number;
  /** Failures from one source over all e-mails, after which it gets 429 until the window ends. */
  maxFailuresPerSource: number;
  /**
   * Failures per e-mail over all sources. Past it, a source that has failed for the e-mail gets no
   * further attempt in the window (a source that has not failed still gets its attempt), and the
   * `LoginCeilingReached` metric alarms.
   */
  emailCeiling: number;
  /**
   * Failures per e-mail and source that cost no wait; each one after them makes the source wait before
   * its next attempt, 1 s and then twice as long each time (the progressive delay).
   */
  freeFailures: number;
}

/** Where the attempts come from, as the counters key it. */
export type Source = string;

/**
 * The source address of a request, as the counters key it: an IPv4 address as it is, an IPv6 address
 * as its /64 (one subscriber gets a whole /64, so counting single IPv6 addresses would count nothing),
 * anything else (a direct invocation without a source) as one shared `unknown`.
 */
export const sourceOf = (address: string | undefined | null): Source => {
  // Stryker disable next-line StringLiteral: any text that is no address gives 'unknown' alike
  const text = (address ?? '').trim();
  if (isIP(text) === 4) return text;
  if (isIP(text) !== 6) return 'unknown';
  // Stryker disable next-line StringLiteral,MethodExpression: groups are parsed as hex, whatever their case; a tail's default only adds groups after the fourth
  const [head = '', tail = ''] = text.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  // Stryker disable next-line ConditionalExpression,ArrayDeclaration,StringLiteral: an empty or dummy right part only moves groups after the fourth
  const right = tail === '' ? [] : tail.split(':');
  // An IPv4-mapped or -embedded tail stands for two groups; only the first four groups matter here.
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  const prefix = groups.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16));
  return `${prefix.join(':')}::/64`;
};

/** The wait before the next attempt after `failures` failures of one e-mail from one source. */
export const delayAfter = (failures: number, policy: LoginThrottlePolicy): number =>
  failures <= policy.freeFailures
    ? 0
    : Math.min(2 ** (failures - policy.freeFailures - 1) * 1000, policy.windowSeconds * 1000);

/** The three counters of an attempt, as they stood before it. */
export interface Counters {
  fromSource: AttemptCounter | undefined;
  ofSource: AttemptCounter | undefined;
  ofEmail: AttemptCounter | undefined;
}

type Refusal = { retryAfterMs: number; detail: string };

/**
 * Whether an attempt may be verified, from the counters alone (so an unknown e-mail is judged exactly
 * like a known one): the refusal, or undefined. `strict`: the e-mail is past its ceiling.
 */
export const judge = (
  { fromSource, ofSource, ofEmail }: Counters,
  policy: LoginThrottlePolicy,
  now: number,
  strict = (ofEmail?.count ?? 0) >= policy.emailCeiling,
): { refusal: Refusal | undefined; strict: boolean } => {
  // An attempt that read its clock before a parallel one opened the window would see the window end
  // more than a window away: no wait is ever longer than a window.
  const refusal = (retryAfterMs: number, detail: string): Refusal => ({
    retryAfterMs: Math.min(retryAfterMs, policy.windowSeconds * 1000),
    detail,
  });
  if (ofSource && ofSource.count >= policy.maxFailuresPerSource) {
    return {
      strict,
      refusal: refusal(ofSource.windowEndsAt - now, 'Too many failed logins from this address.'),
    };
  }
  if (fromSource && fromSource.count >= policy.maxFailures) {
    return {
      strict,
      refusal: refusal(
        fromSource.windowEndsAt - now,
        'Too many failed logins for this e-mail from this address.',
      ),
    };
  }
  if (fromSource && fromSource.retryAt > now) {
    return {
      strict,
      refusal: refusal(
        fromSource.retryAt - now,
        'Wait before the next login for this e-mail from this address.',
      ),
    };
  }
  if (strict && fromSource && fromSource.count > 0) {
    const until = Math.min(fromSource.windowEndsAt, ofEmail?.windowEndsAt ?? fromSource.windowEndsAt);
    return { strict, refusal: refusal(until - now, 'Too many failed logins for this e-mail.') };
  }
  return { strict, refusal: undefined };
};

/** RFC 6585 §4 (429) with RFC 9110 §10.2.3 `Retry-After` in delay-seconds, rounded up. */
export const tooManyAttempts = ({ retryAfterMs, detail }: Refusal) => {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError('TOO_MANY_LOGIN_ATTEMPTS', `${detail} Try again in ${seconds} seconds.`, {
    headers: { 'Retry-After': String(seconds) },
  });
};

/** What a failed attempt reached, for the audit lines and the ceiling's metric. */
export interface FailureOutcome {
  /** The failure that reached `maxFailures` for the e-mail from this source. */
  lockedSource: boolean;
  /** The failure that reached `maxFailuresPerSource` for the source. */
  lockedAddress: boolean;
  /** The failure that reached the e-mail's ceiling. */
  reachedCeiling: boolean;
  failures: number;
}

/** One attempt admitted by the throttle: reserved on each counter until the password is verified. */
export interface AdmittedAttempt {
  /** The attempt failed: it stays counted, and the source waits as the policy says. */
  failed(): Promise<FailureOutcome>;
  /** The password was right: the source's failures for the e-mail are forgotten, the others given back. */
  succeeded(): Promise<void>;
}

/**
 * The throttle of one login attempt (e-mail, source, clock). `admit()` reads the three counters
 * (one strongly consistent BatchGetItem), refuses from them what it must, and otherwise reserves the
 * attempt on each with a conditional write (one round trip, in parallel): of any number of parallel
 * attempts at most the limit pass. A refused attempt writes nothing, so it does not extend a window.
 */
export const loginThrottle = (
  db: Database,
  policy: LoginThrottlePolicy,
  { email, source, clock }: { email: string; source: Source; clock: () => number },
) => {
  const now = clock();
  const window = { windowSeconds: policy.windowSeconds, now };
  const fromSourceKey = keys.loginAttemptsFromSource(email, source);
  const ofSourceKey = keys.loginAttemptsOfSource(source);
  const ofEmailKey = keys.loginAttemptsOfEmail(email);

  const admit = async (): Promise<AdmittedAttempt> => {
    const [fromSource, ofSource, ofEmail] = await readAttemptCounters(
      db,
      [fromSourceKey, ofSourceKey, ofEmailKey],
      window,
    );
    const counters = { fromSource, ofSource, ofEmail };
    const { refusal: refused, strict } = judge(counters, policy, now);
    if (refused) throw tooManyAttempts(refused);
    const reserve = (
      key: typeof ofEmailKey,
      open: AttemptCounter | undefined,
      limit?: number,
      delay?: ReservationDelay,
    ) =>
      reserveAttempt(db, key, { ...window, windowOpen: open !== undefined, seen: open?.count, limit, delay });
    // The progressive delay is set by the reservation itself, before the password is verified, so
    // parallel guesses cannot slip past it; the failure then starts it again from its answer.
    const progressive = { free: policy.freeFailures, after: (count: number) => delayAfter(count, policy) };
    // Past the ceiling, only a source without a failure for the e-mail gets an attempt.
    const [pair, address, perEmail] = await settleAll([
      reserve(fromSourceKey, fromSource, strict ? 1 : policy.maxFailures, progressive),
      reserve(ofSourceKey, ofSource, policy.maxFailuresPerSource),
      reserve(ofEmailKey, ofEmail),
    ]);
    // A given-back reservation keeps the delay it set: the source's other limits refused the attempt.
    const give = () =>
      settleAll([
        pair.reserved ? releaseAttempt(db, fromSourceKey, pair.counter) : undefined,
        address.reserved ? releaseAttempt(db, ofSourceKey, address.counter) : undefined,
        releaseAttempt(db, ofEmailKey, perEmail.counter),
      ]);
    // Another attempt took the last one between the read and the reservation: this one is refused,
    // for the reason the counter that refused it gives.
    if (!pair.reserved || !address.reserved) {
      await give();
      const counted = { fromSource: pair.counter, ofSource: address.counter, ofEmail: perEmail.counter };
      throw tooManyAttempts(judge(counted, policy, now, strict).refusal as Refusal);
    }
    return {
      async failed() {
        const failures = pair.counter.count;
        const wait = delayAfter(failures, policy);
        // The reservation set the wait from the attempt's start; it runs from the failure's answer:
        // the verification itself takes a good part of a second.
        if (wait > 0) await delayAttempts(db, fromSourceKey, pair.counter, clock() + wait);
        return {
          lockedSource: failures === policy.maxFailures,
          lockedAddress: address.counter.count === policy.maxFailuresPerSource,
          reachedCeiling: perEmail.counter.count === policy.emailCeiling,
          failures,
        };
      },
      async succeeded() {
        await settleAll([
          clearAttempts(db, fromSourceKey),
          releaseAttempt(db, ofSourceKey, address.counter),
          releaseAttempt(db, ofEmailKey, perEmail.counter),
        ]);
      },
    };
  };

  return { admit };
};
