/**
 * A place in the public API that an error points the caller to, named by what it holds (a
 * collection, a record, a query) rather than by its URL. Owners know no REST paths: they raise
 * errors with links, and the gateway, which owns the paths, writes each link as `METHOD /path`.
 */
export interface ApiLink {
  /** HTTP method; GET when absent. */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The collection: `attribute_groups`, `attribute_options`. */
  collection: string;
  /** The parent record of a nested collection (the attribute whose options these are). */
  parent?: string;
  /** One record of the collection; absent for its list. */
  id?: string;
  /** What the record holds under it, by name (`deliveries` of a webhook). */
  sub?: string;
  /** Query parameters of a list, written in the given order: `{ group_ids: '…' }`. */
  query?: Record<string, string>;
}

/** Writes one link as text: `GET /api/v1/attributes?group_ids=…` at the gateway. */
export type LinkWriter = (link: ApiLink) => string;

/** Where links stand in a message or solution: `{link:0}` is the first link. */
const LINK_TOKEN = /\{link:(\d+)\}/g;

/** The query string of a link (values as given, so a placeholder such as `{id}` stays readable). */
export function linkQuery(link: ApiLink): string {
  const entries = Object.entries(link.query ?? {});
  return entries.length === 0 ? '' : `?${entries.map(([k, v]) => `${k}=${v}`).join('&')}`;
}

/**
 * How a link reads where no gateway wrote it (logs, a caller of the owner's gRPC service):
 * method, collection and record, e.g. `GET attributes?group_ids=…`, `PATCH webhooks/{id}`.
 */
export const plainLinkWriter: LinkWriter = (link) => {
  const parent = link.parent === undefined ? '' : `${link.parent}/`;
  const id = link.id === undefined ? '' : `/${link.id}`;
  const sub = link.sub === undefined ? '' : `/${link.sub}`;
  return `${link.method ?? 'GET'} ${parent}${link.collection}${id}${sub}${linkQuery(link)}`;
};

/** A text with its `{link:N}` tokens written by `write` (a token without a link stays as it is). */
export function writeLinks(text: string, links: readonly ApiLink[] | undefined, write: LinkWriter): string {
  if (!links || links.length === 0) return text;
  return text.replace(LINK_TOKEN, (token, n: string) => {
    const link = links[Number(n)];
    return link === undefined ? token : write(link);
  });
}

/**
 * Builds a text that points at API places, and the links it names, for an error's options:
 * `new ConflictError(msg, { ...withLinks((link) => \`Remove it first (${link({ collection: 'attributes' })})\`) })`.
 */
export function withLinks(build: (link: (l: ApiLink) => string) => string): { solution: string; links: ApiLink[] } {
  const links: ApiLink[] = [];
  const solution = build((l) => {
    links.push(l);
    return `{link:${links.length - 1}}`;
  });
  return { solution, links };
}
