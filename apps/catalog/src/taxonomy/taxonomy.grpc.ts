import type { Logger } from '@pim/logging';
import type { TaxonomyInput, TaxonomyView } from '@pim/resources';
import { recordHandlers, type RecordCodec, type RecordHandlers } from '../record/record.grpc';
import type { TaxonomyEntity } from './taxonomy.entity';
import type { TaxonomyService } from './taxonomy.service';

/** The seven handlers of a taxonomy service: its BatchGet reads by `ids` and `codes`. */
export function taxonomyHandlers<E extends TaxonomyEntity, V extends TaxonomyView, I extends TaxonomyInput, M, In>(
  service: TaxonomyService<E, V, I>,
  codec: RecordCodec<V, M, In>,
  logger: Logger,
  names: { one: string; many: string },
): RecordHandlers<M, In, { ids: string[]; codes: string[] }> {
  return recordHandlers(service, codec, logger, names, (req) => req.codes ?? []);
}
