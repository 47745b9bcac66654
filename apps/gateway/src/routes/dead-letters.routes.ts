import { deadLetters as pb } from '@pim/contracts';
import { NotFoundError, PimError, UnavailableError, ValidationError } from '@pim/errors';
import { requireId } from '@pim/ids';
import { buildEnvelope, parseListQuery, sortWithTieBreak, type ListQuery } from '@pim/query';
import {
  DEAD_LETTER_APPS,
  deadLetterListDecl,
  deadLetterRedriveSchema,
  deadLetterSchema,
  type DeadLetterApp,
  type DeadLetterRedriveView,
  type DeadLetterView,
} from '@pim/resources';
import { createRpcClient, toProtoListQuery, type PromiseClient } from '@pim/rpc';
import type { Api } from '../http/route';
import { listQueryDoc } from '../http/list';
import { envelopeSchema } from '../openapi/envelope';
import { API_BASE } from '../openapi/links';

/** The dead letters service of every app with an outbox, by app. */
export type DeadLetterClients = Record<DeadLetterApp, PromiseClient<pb.DeadLettersServiceClient> & { close(): void }>;

/** The most dead letters the gateway reads from each app to merge one page of several apps. */
const MERGE_WINDOW_MAX = 1_000;
const TAGS = ['Dead letters'];
const LIST = `GET ${API_BASE}/dead-letters`;

/** A client of each app's dead letters, at the address the gateway calls that app at. */
export function createDeadLetterClients(addresses: Record<string, string>, deadlineMs: number): DeadLetterClients {
  const clients: Partial<DeadLetterClients> = {};
  for (const app of DEAD_LETTER_APPS) {
    const address = addresses[app];
    if (!address) throw new Error(`no gRPC address for the ${app} app's dead letters`);
    clients[app] = createRpcClient(pb.DeadLettersServiceClient, { service: app, address, deadlineMs });
  }
  return clients as DeadLetterClients;
}

/** A dead letter of `app` as the API shows it. */
function fromMessage(app: DeadLetterApp, m: pb.DeadLetter): DeadLetterView {
  return {
    _id: m.id,
    app,
    source: m.source,
    event_id: m.event_id,
    event_type: m.event_type,
    ...(m.record_id ? { record_id: m.record_id } : {}),
    occurred_at: m.occurred_at,
    attempts: m.attempts,
    last_error: m.last_error,
    size_bytes: m.size_bytes,
    created_at: m.created_at,
    updated_at: m.updated_at,
  };
}

/** The apps a list asks: those its `app` filters allow (`app`, `app_in`, `app_ne`, `app_nin`). */
export function appsOf(q: ListQuery): DeadLetterApp[] {
  let apps: DeadLetterApp[] = [...DEAD_LETTER_APPS];
  for (const f of q.filters.filter((x) => x.field === 'app')) {
    const unknown = f.values.filter((v) => !(DEAD_LETTER_APPS as readonly string[]).includes(v));
    if (!['eq', 'in', 'ne', 'nin'].includes(f.op) || unknown.length > 0)
      throw new ValidationError(
        unknown.length > 0 ? `'${unknown[0]}' is not an app that keeps dead letters` : `app takes no _${f.op} filter`,
        {
          title: 'Invalid app filter',
          solution: `Filter with app, app_in, app_ne or app_nin on: ${DEAD_LETTER_APPS.join(', ')}`,
          details: [{ field: 'app', message: `must be one of ${DEAD_LETTER_APPS.join(', ')}` }],
        },
      );
    const named = new Set(f.values);
    const keep = f.op === 'eq' || f.op === 'in';
    apps = apps.filter((a) => named.has(a) === keep);
  }
  return apps;
}

/** Orders dead letters of several apps as each app ordered its own (the sortable fields compare as text or numbers). */
export function comparator(q: ListQuery): (a: DeadLetterView, b: DeadLetterView) => number {
  const keys = sortWithTieBreak(q.sort);
  return (a, b) => {
    for (const { field, direction } of keys) {
      const x = (a as Record<string, unknown>)[field] as string | number;
      const y = (b as Record<string, unknown>)[field] as string | number;
      if (x === y) continue;
      return (x < y ? -1 : 1) * (direction === 'desc' ? -1 : 1);
    }
    return 0;
  };
}

/** Calls every app at once, each outcome beside its app. */
async function askEvery<T>(
  apps: DeadLetterApp[],
  call: (app: DeadLetterApp) => Promise<T>,
): Promise<{ app: DeadLetterApp; result: PromiseSettledResult<T> }[]> {
  const results = await Promise.allSettled(apps.map(call));
  return apps.map((app, i) => ({ app, result: results[i] }));
}

/** Whether a call failed in transport (the app is down or slow), rather than with the app's own answer. */
function unreached(err: unknown): boolean {
  // An app's own error object comes back without a cause; a transport failure keeps the gRPC error as its cause.
  return !(err instanceof PimError) || (err instanceof UnavailableError && err.cause !== undefined);
}

/** The failures of a fan-out: the first answer an app gave stands; otherwise the apps not reached are named. */
export function failureOf<T>(
  answers: { app: DeadLetterApp; result: PromiseSettledResult<T> }[],
  what: string,
  ignore: (err: unknown) => boolean = () => false,
): PimError | undefined {
  const failed = answers.flatMap((a) =>
    a.result.status === 'rejected' ? [{ app: a.app, err: a.result.reason as unknown }] : [],
  );
  const answer = failed.find((f) => !unreached(f.err) && !ignore(f.err));
  if (answer) return answer.err as PimError;
  const down = failed.filter((f) => unreached(f.err)).map((f) => f.app);
  if (down.length === 0) return undefined;
  return new UnavailableError(`Could not reach the ${down.join(', ')} app${down.length > 1 ? 's' : ''} ${what}`, {
    title: 'App unavailable',
    solution: `Retry in a moment; meanwhile the other apps' dead letters can be listed with app_nin=${down.join(',')}`,
    retryAfter: 1,
  });
}

/**
 * Finds the app that holds a dead letter by calling `call` on every app at once (only the holder
 * acts; the others answer 404), and returns its answer.
 */
async function onHolder<T>(
  clients: DeadLetterClients,
  id: string,
  call: (client: DeadLetterClients[DeadLetterApp]) => Promise<T>,
): Promise<{ app: DeadLetterApp; answer: T }> {
  const answers = await askEvery([...DEAD_LETTER_APPS], (app) => call(clients[app]));
  for (const { app, result } of answers) if (result.status === 'fulfilled') return { app, answer: result.value };
  const failure = failureOf(answers, `to look for dead letter '${id}'`, (err) => err instanceof NotFoundError);
  if (failure) throw failure;
  throw new NotFoundError(`No app holds a dead letter with _id '${id}'`, {
    title: 'Dead letter not found',
    solution: `List the dead letters with ${LIST} to find the right _id; one already re-driven or discarded is gone`,
  });
}

/** GET /dead-letters, POST /dead-letters/{id}/redrive and DELETE /dead-letters/{id}: admin only. */
export function deadLetterRoutes(
  api: Api,
  clients: () => DeadLetterClients,
  limits: { maxLimit: number; defaultLimit: number },
): void {
  api.route({
    method: 'get',
    path: '/dead-letters',
    operationId: 'listDeadLetters',
    scope: 'admin',
    summary: 'List dead letters: events that could not be delivered',
    description: `Every change on the platform becomes an event, which each app first publishes to the event stream and which webhook deliveries and automatic republishing then consume. An event that still fails after every retry is set aside as a *dead letter*, so that the events after it keep flowing: \`source\` \`outbox\` when its app could not publish it (e.g. it is larger than the event stream accepts), or the name of the consumer that could not handle it (\`fan-out\`: webhook deliveries; \`auto-republish\`: publishing changed products again). While an \`outbox\` dead letter waits, the later events of the same record (\`record_id\`) wait behind it, so that nobody receives a record's changes out of order. Fix the cause named in \`last_error\`, then re-drive it (\`POST ${API_BASE}/dead-letters/{id}/redrive\`), or discard it (\`DELETE ${API_BASE}/dead-letters/{id}\`). Filter by app with \`app\` or \`app_in\` (${DEAD_LETTER_APPS.join(', ')}); pagination, sorting and filters as in every list, newest first by default. Without an app filter, \`skip\` + \`limit\` may not pass ${MERGE_WINDOW_MAX}.`,
    tags: TAGS,
    listQuery: listQueryDoc('DeadLetter', 'dead letters', deadLetterListDecl, limits.maxLimit),
    responses: {
      200: {
        description: 'A page of dead letters',
        schema: envelopeSchema('DeadLetterList', deadLetterSchema, limits.maxLimit),
      },
    },
    handler: async ({ query, path, origin }) => {
      const q = parseListQuery(deadLetterListDecl, query, limits);
      const apps = appsOf(q);
      const own: ListQuery = { ...q, filters: q.filters.filter((f) => f.field !== 'app') };
      // One app answers the page itself; several answer their first skip+limit, merged here.
      const window = apps.length === 1 ? own : { ...own, page: 1, skip: 0, limit: q.skip + q.limit };
      if (apps.length > 1 && window.limit > MERGE_WINDOW_MAX)
        throw new ValidationError(`skip + limit is ${window.limit}: over ${MERGE_WINDOW_MAX} across several apps`, {
          title: 'Page too deep',
          solution: `Filter by one app (app=…) to page further, or narrow the list with filters`,
          details: [
            { field: 'page', message: `skip + limit must be at most ${MERGE_WINDOW_MAX} without an app filter` },
          ],
        });
      const answers = await askEvery(apps, (app) =>
        clients()[app].listDeadLetters({ query: toProtoListQuery(window) }),
      );
      const failure = failureOf(answers, 'to read their dead letters');
      if (failure) throw failure;
      let total = 0;
      let data: DeadLetterView[] = [];
      for (const { app, result } of answers) {
        if (result.status !== 'fulfilled') continue;
        total += result.value.page_info?.total ?? 0;
        data.push(...result.value.data.map((m) => fromMessage(app, m)));
      }
      if (apps.length > 1) data = data.sort(comparator(q)).slice(q.skip, q.skip + q.limit);
      return {
        status: 200,
        body: buildEnvelope({ query: q, total, data, path: `${origin}${path}`, raw: query, decl: deadLetterListDecl }),
      };
    },
  });

  api.route({
    method: 'post',
    path: '/dead-letters/:id/redrive',
    operationId: 'redriveDeadLetter',
    scope: 'admin',
    summary: 'Try a dead letter again',
    description:
      'Fix the cause first (the dead letter’s `last_error` names it), then re-drive. An `outbox` dead letter goes back to its app’s outbox with a fresh set of retries and is published in a moment, before the later events of its record that waited behind it (`outcome: queued`); if it fails again it comes back to the dead letters. A consumer’s dead letter is handed to that consumer now (`outcome: handled`); if it fails again the answer is a 409 with the reason, and it stays a dead letter.',
    tags: TAGS,
    errors: [409],
    responses: {
      200: { description: 'The dead letter, re-driven (and gone from the list)', schema: deadLetterRedriveSchema },
    },
    handler: async ({ params }) => {
      const id = requireId(params.id, 'dead letter', 'id');
      const { app, answer } = await onHolder(clients(), id, (c) => c.redriveDeadLetter({ id }));
      if (!answer.dead_letter) throw new Error(`the ${app} app answered a re-drive without its dead letter`);
      const { _id, source, event_id, event_type } = fromMessage(app, answer.dead_letter);
      const body: DeadLetterRedriveView = {
        _id,
        app,
        source,
        event_id,
        event_type,
        outcome: answer.outcome as DeadLetterRedriveView['outcome'],
      };
      return { status: 200, body };
    },
  });

  api.route({
    method: 'delete',
    path: '/dead-letters/:id',
    operationId: 'discardDeadLetter',
    scope: 'admin',
    summary: 'Discard a dead letter',
    description:
      'Drops the event for good: it is never published or handled, and nobody receives it. The later events of its record that waited behind it go on at once.',
    tags: TAGS,
    responses: { 204: { description: 'Discarded' } },
    handler: async ({ params }) => {
      const id = requireId(params.id, 'dead letter', 'id');
      await onHolder(clients(), id, (c) => c.discardDeadLetter({ id }));
      return { status: 204 };
    },
  });
}
