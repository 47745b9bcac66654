import { ConflictError } from './errors';

/**
 * A 409 for a move a record's state does not allow, naming both states: `Import '…' is completed: a
 * finished import cannot be canceled (from completed to canceled)`. `kind` names the record
 * (`Import`, `Publication`); `to` is the state the move would have taken it to.
 */
export function stateConflict(
  kind: string,
  record: { _id: string; status: string },
  what: string,
  allowed: readonly string[],
  to?: string,
): ConflictError {
  const move = to ? ` (from ${record.status} to ${to})` : '';
  return new ConflictError(`${kind} '${record._id}' is ${record.status}: ${what}${move}`, {
    title: `${kind} state`,
    solution: `This is possible only while the ${kind.toLowerCase()} is ${allowed.join(' or ')}`,
    details: [{ field: 'status', message: `is ${record.status}; needs ${allowed.join(' or ')}` }],
  });
}
