/** A JSON object (not an array, not null). */
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * RFC 7396 JSON merge patch: members of the patch replace those of the target, `null` removes a
 * member, and objects merge recursively (so `{"name": {"en": "Coffee"}}` adds a language and
 * keeps the others). Arrays are replaced whole. Neither argument is modified.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}
