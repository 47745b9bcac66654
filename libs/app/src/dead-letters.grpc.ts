import { deadLetters as pb } from '@pim/contracts';
import { ValidationError } from '@pim/errors';
import type { DeadLetterStore, DeadLetterSummary } from '@pim/events';
import { requireId } from '@pim/ids';
import type { Logger } from '@pim/logging';
import { validateListQuery } from '@pim/query';
import { deadLetterListDecl } from '@pim/resources';
import { fromProtoListQuery, unary, type ServiceRegistration } from '@pim/rpc';

/** Fully qualified name of the service every app with an outbox serves. */
export const DEAD_LETTERS_SERVICE = 'pim.platform.v1.DeadLettersService';

/** The most dead letters one List call returns: the gateway merges the first pages of several apps. */
export const DEAD_LETTERS_LIST_MAX = 1_000;

/** A dead letter as it crosses gRPC. */
export function deadLetterMessage(d: DeadLetterSummary): pb.DeadLetter {
  return {
    id: d.id,
    source: d.source,
    event_id: d.event_id,
    event_type: d.event_type,
    ...(d.record_id ? { record_id: d.record_id } : {}),
    occurred_at: d.occurred_at.toISOString(),
    attempts: d.attempts,
    last_error: d.last_error ?? '',
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    size_bytes: d.size_bytes,
  };
}

/** gRPC handlers of pim.platform.v1.DeadLettersService over the app's dead letters. */
export function deadLettersGrpc(store: DeadLetterStore, logger: Logger): ServiceRegistration {
  const implementation: pb.DeadLettersServiceServer = {
    listDeadLetters: unary(logger, 'ListDeadLetters', async (req: pb.ListDeadLettersRequest) => {
      const query = validateListQuery(deadLetterListDecl, fromProtoListQuery(req.query), {
        maxLimit: DEAD_LETTERS_LIST_MAX,
      });
      // Which app holds a dead letter is the caller's choice of app to ask, not a column.
      if (query.filters.some((f) => f.field === 'app'))
        throw new ValidationError('This app holds only its own dead letters: it takes no app filter', {
          details: [{ field: 'app', message: 'not a filter of one app' }],
        });
      const { data, total } = await store.list(query, deadLetterListDecl);
      return { data: data.map(deadLetterMessage), page_info: { total } };
    }),
    redriveDeadLetter: unary(logger, 'RedriveDeadLetter', async (req: pb.RedriveDeadLetterRequest) => {
      const { letter, outcome } = await store.redrive(requireId(req.id, 'dead letter', 'id'));
      return { dead_letter: deadLetterMessage(letter), outcome };
    }),
    discardDeadLetter: unary(logger, 'DiscardDeadLetter', async (req: pb.DiscardDeadLetterRequest) => ({
      dead_letter: deadLetterMessage(await store.discard(requireId(req.id, 'dead letter', 'id'))),
    })),
  };
  return { name: DEAD_LETTERS_SERVICE, definition: pb.DeadLettersServiceService, implementation };
}
