import type { LinkWriter } from '@pim/errors';
import { linkQuery } from '@pim/errors';
import { collectionInfo, collectionPath } from '@pim/resources';

/** The base path of every route of the public API. */
export const API_BASE = '/api/v1';

/**
 * Writes the API places an owner's error points to as this gateway serves them:
 * `{ collection: 'attributes', query: { group_ids } }` → `GET /api/v1/attributes?group_ids=…`,
 * a nested collection under its parent's id, a record by id, a sub-resource after it.
 */
export const apiLinkWriter: LinkWriter = (link) => {
  const path = collectionPath(collectionInfo(link.collection)).replace(':id', link.parent ?? '{id}');
  const id = link.id === undefined ? '' : `/${link.id}`;
  const sub = link.sub === undefined ? '' : `/${link.sub}`;
  return `${link.method ?? 'GET'} ${API_BASE}${path}${id}${sub}${linkQuery(link)}`;
};
