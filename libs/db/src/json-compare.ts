import { OrmUtils } from 'typeorm/util/OrmUtils';

/** Whether a value is an object JSON could have made: `{}` or a null-prototype object, not a Date or a Buffer. */
const isJsonObject = (v: object): boolean => {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * Whether two JSON values are equal, members in any order (jsonb keeps them sorted); undefined
 * when one holds something JSON cannot (a Date, a Buffer, a class instance), for TypeORM to judge.
 * Members are read as own keys only, so one named `hasOwnProperty` or `constructor` is data.
 */
export function jsonEqual(a: unknown, b: unknown): boolean | undefined {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return typeof a === 'function' || typeof b === 'function' ? undefined : false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return isJsonObject(Array.isArray(a) ? b : a) ? false : undefined;
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const same = jsonEqual(a[i], b[i]);
      if (same !== true) return same;
    }
    return true;
  }
  if (!isJsonObject(a) || !isJsonObject(b)) return undefined;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) {
    if (!Object.hasOwn(b, k)) return false;
    const same = jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]);
    if (same !== true) return same;
  }
  return true;
}

let installed = false;

/**
 * Makes TypeORM's change detection of json and jsonb columns (`OrmUtils.deepCompare`, run by every
 * `save()` of a loaded record) compare JSON by own members. Its own comparison calls
 * `value.hasOwnProperty(key)` on the values, so a free-form object holding a member named
 * `hasOwnProperty` (an order's `metadata`, which the API stores as sent) failed every later
 * write, delete and status move of its record with a TypeError (a 500); and a `constructor` member
 * was compared as the object's constructor. Values JSON cannot hold (dates, buffers, instances)
 * are still judged by TypeORM. Installed once per process, by `createDataSource`.
 */
export function installJsonCompare(): void {
  if (installed) return;
  installed = true;
  const original = OrmUtils.deepCompare.bind(OrmUtils);
  OrmUtils.deepCompare = <T>(...args: T[]): boolean => {
    if (args.length !== 2) return original(...args);
    return jsonEqual(args[0], args[1]) ?? original(...args);
  };
}
