import { randomUUID } from 'node:crypto';
import type {
  MethodDefinition,
  sendUnaryData,
  ServerUnaryCall,
  ServiceDefinition,
  UntypedHandleCall,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { ConflictError, toGrpcError } from '@pim/errors';
import { runWithCallMark, type CallMark, type Logger } from '@pim/logging';
import { callTokenOf } from './metadata';

/**
 * Where an app keeps the calls with an idempotency token that wrote: the token is recorded inside
 * the write's own transaction (so a write and its record commit or vanish together), the answer
 * right after. Implemented over the app's database by @pim/db `IdempotentCallStore`.
 */
export interface IdempotentCallLedger {
  /** The record of a token: absent when no run of the call wrote; `answer` absent until kept. */
  find(token: string): Promise<{ answer: Buffer | null } | undefined>;
  /** Keeps the encoded answer of the run that wrote. */
  keep(token: string, attempt: string, answer: Buffer): Promise<void>;
}

/** How long a run waits for the answer of another run that wrote first (it committed, its answer is on the way). */
export const ANSWER_WAIT_MS = 5_000;
const ANSWER_POLL_MS = 50;

/** The answer to a retry whose first run wrote and then died before its answer was kept. */
export function answerLostError(): ConflictError {
  return new ConflictError('This request was already carried out, but its answer was lost', {
    title: 'Request already carried out',
    solution: 'Do not send it again: read the resource it wrote (list it, newest first) to see the result',
  });
}

type Handler = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;

/**
 * A service whose unary methods answer a retried call from its first run. A call carries a token
 * when its request had an Idempotency-Key (the gateway derives one per call, the same on every
 * retry). The first run's write transactions record the token with their writes; its answer is
 * kept once it is known. A retry then:
 * - finds the answer: replays it without running again;
 * - finds the token but no answer yet (the first run committed and is answering, or died in
 *   between): waits briefly for it, else answers 409 "already carried out";
 * - finds nothing: runs — no earlier run wrote anything.
 * A run that commits after another run of the same call did is rolled back and answered like a
 * retry, so two runs racing (a retry sent while the first still ran) write once.
 * Calls without a token, and streaming methods, run as they are.
 */
export function idempotentService(
  definition: ServiceDefinition,
  implementation: UntypedServiceImplementation,
  ledger: IdempotentCallLedger,
  logger: Logger,
): UntypedServiceImplementation {
  const wrapped: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(implementation)) {
    const method = definition[name] as MethodDefinition<unknown, unknown> | undefined;
    wrapped[name] =
      method && !method.requestStream && !method.responseStream
        ? (idempotentUnary(method, handler as Handler, ledger, logger) as UntypedHandleCall)
        : handler;
  }
  return wrapped;
}

function idempotentUnary(
  method: MethodDefinition<unknown, unknown>,
  handler: Handler,
  ledger: IdempotentCallLedger,
  logger: Logger,
): Handler {
  const replay = async (token: string, callback: sendUnaryData<unknown>): Promise<boolean> => {
    const deadline = Date.now() + ANSWER_WAIT_MS;
    for (;;) {
      const record = await ledger.find(token);
      if (!record) return false;
      if (record.answer) {
        callback(null, method.responseDeserialize(record.answer));
        return true;
      }
      if (Date.now() >= deadline) {
        callback(toGrpcError(answerLostError()) as never, null);
        return true;
      }
      await new Promise((r) => setTimeout(r, ANSWER_POLL_MS));
    }
  };
  const failed = (callback: sendUnaryData<unknown>, err: unknown) => callback(toGrpcError(err) as never, null);

  return (call, callback) => {
    const token = callTokenOf(call.metadata);
    if (!token) return handler(call, callback);
    void (async () => {
      try {
        if (await replay(token, callback)) return;
      } catch (err) {
        return failed(callback, err);
      }
      const mark: CallMark = { token, attempt: randomUUID(), wrote: false, answered: false };
      const answered: sendUnaryData<unknown> = (err, value, ...rest) => {
        mark.answered = true;
        void (async () => {
          if (!err && mark.wrote) {
            // Kept before it is sent: a retry after a lost answer finds it.
            await ledger
              .keep(token, mark.attempt, Buffer.from(method.responseSerialize(value)))
              .catch((e: unknown) =>
                logger.warn({ err: e, path: method.path }, 'the answer of an idempotent call could not be kept'),
              );
          }
          // A run that did not write and failed may have lost to a run that did (its code taken,
          // its version moved by that run): the call's answer is that run's.
          if (err && !mark.wrote && (await replay(token, callback).catch(() => false))) return;
          callback(err, value, ...(rest as []));
        })();
      };
      runWithCallMark(mark, () => handler(call, answered));
    })();
  };
}
