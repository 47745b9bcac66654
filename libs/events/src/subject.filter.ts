// NATS subject filters as a consumer uses them: matching a subject against a filter, and the one
// filter that covers several (for servers older than 2.10, which take a single filter subject).

/** Whether `subject` matches `filter`: `*` stands for one token, a final `>` for one or more. */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return i === f.length - 1 && s.length > i;
    if (i >= s.length) return false;
    if (f[i] !== '*' && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}

/**
 * The narrowest single filter this builds that matches every subject the given filters match:
 * tokens they share, `*` where filters of the same length differ, else their common leading
 * tokens followed by `>`. Undefined when they share nothing (the consumer then takes the stream).
 */
export function coveringFilter(filters: string[]): string | undefined {
  const unique = [...new Set(filters)];
  if (unique.length === 0) return undefined;
  if (unique.length === 1) return unique[0];
  const split = unique.map((f) => f.split('.'));
  const length = split[0].length;
  if (split.every((t) => t.length === length && !t.includes('>'))) {
    return split[0].map((token, i) => (split.every((t) => t[i] === token) ? token : '*')).join('.');
  }
  const common: string[] = [];
  for (let i = 0; ; i++) {
    const token = split[0][i];
    // A shared `>` cannot be followed by another `>`: stop before it.
    if (token === undefined || token === '>' || !split.every((t) => t[i] === token && i < t.length - 1)) break;
    common.push(token);
  }
  return common.length > 0 ? [...common, '>'].join('.') : undefined;
}
