/** Longest error text kept on an outbox row or a dead letter. */
const ERROR_TEXT_MAX = 2_000;

/** An error as the text kept beside an event (`Name: message`, bounded). */
export function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  // Postgres text cannot hold NUL.
  return text.replace(/\0/g, '').slice(0, ERROR_TEXT_MAX);
}
