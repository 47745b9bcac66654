import { join } from 'node:path';
import * as protobuf from 'protobufjs';
import { getMetadataArgsStorage } from 'typeorm';
import { PROTO_ROOT } from '@pim/contracts';

/**
 * The parts of a resource declaration (`defineResource` in @pim/resources) the check reads; named
 * here rather than imported, because @pim/resources' own tests use this lib.
 */
interface DeclaredField {
  spec: {
    type: string;
    required: boolean;
    default?: unknown;
    column?: string;
    stored?: boolean;
    input?: unknown;
    view: unknown;
  };
  writable: boolean;
  optionalInView: boolean;
}

/** A class whose instances are rows of a table. */
type EntityClass = abstract new (...args: never[]) => object;

/** Where one declared resource lives besides its declaration: its table and its proto messages. */
export interface ContractTarget {
  declaration: { collection: string; fields: Record<string, DeclaredField> };
  /** The TypeORM entity of its table. */
  entity: EntityClass;
  /** The .proto file (relative to `protos/`) and the full names of its view and input messages. */
  protoFile: string;
  message: string;
  inputMessage: string;
  /** Fields whose message form is documented to differ (`attributes` travels as a Struct), with the reason. */
  exceptions?: Record<string, string>;
}

/** Column types that can hold each field type. */
const COLUMN_TYPES: Record<string, string[]> = {
  string: ['text', 'varchar', 'character varying', 'char', 'character'],
  id: ['char', 'character', 'text'],
  number: ['integer', 'int', 'int4', 'bigint', 'numeric', 'double precision', 'real', 'float'],
  boolean: ['boolean', 'bool'],
  date: ['timestamptz', 'timestamp with time zone'],
  translate: ['jsonb'],
  object: ['jsonb'],
  array: ['jsonb'],
  'string[]': ['text'],
  'id[]': ['text', 'char'],
};

/** Proto scalar types that carry each field type (maps and messages are checked by shape). */
const PROTO_TYPES: Record<string, string[]> = {
  string: ['string'],
  id: ['string'],
  date: ['string', 'google.protobuf.Timestamp'],
  number: ['int32', 'int64', 'uint32', 'double', 'float'],
  boolean: ['bool'],
  'string[]': ['string'],
  'id[]': ['string'],
};

/** Every TypeORM column declared on an entity class and its ancestors, by property name. */
function columnsOf(entity: EntityClass): Map<string, { type: string; nullable: boolean; array: boolean }> {
  const chain: unknown[] = [];
  for (let c: unknown = entity; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.push(c);
  const columns = new Map<string, { type: string; nullable: boolean; array: boolean }>();
  for (const c of getMetadataArgsStorage().columns.filter((col) => chain.includes(col.target))) {
    const type = typeof c.options.type === 'string' ? c.options.type : String(c.options.type);
    columns.set(c.propertyName, { type, nullable: c.options.nullable === true, array: c.options.array === true });
  }
  return columns;
}

/** Loads a .proto file (with its imports) from `protos/`. */
function loadProto(file: string): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith('/') ? target : join(PROTO_ROOT, target));
  root.loadSync(file, { keepCase: true });
  root.resolveAll();
  return root;
}

/** Whether a message field tells an absent value from a set one (proto3 `optional`, or a message). */
function hasPresence(f: protobuf.Field): boolean {
  return f.options?.proto3_optional === true || (!f.repeated && !f.map && f.resolvedType instanceof protobuf.Type);
}

/** The field names of a zod object schema, or of the elements of a zod array of objects (read by shape, not imported). */
function nestedKeys(schema: unknown): string[] | undefined {
  const s = schema as { shape?: Record<string, unknown>; element?: { shape?: Record<string, unknown> } } | undefined;
  const shape = s?.element?.shape ?? s?.shape;
  return shape ? Object.keys(shape).map((k) => (k === '_id' ? 'id' : k)) : undefined;
}

/** Whether a zod schema (read by shape, not imported) accepts a value. */
function accepts(schema: unknown, value: unknown): boolean {
  return (schema as { safeParse?(v: unknown): { success: boolean } }).safeParse?.(value).success ?? true;
}

/** The message type a field carries (a nested message or a list of them), unless it is a well-known type (Struct). */
function nestedType(f: protobuf.Field): protobuf.Type | undefined {
  const t = f.resolvedType;
  if (!(t instanceof protobuf.Type) || f.map || t.fullName.startsWith('.google.protobuf.')) return undefined;
  // A wrapper that gives a list presence (`KeyValueList { repeated KeyValue items }`) carries its items' type.
  const only = t.fieldsArray.length === 1 ? t.fieldsArray[0] : undefined;
  return !f.repeated && only?.repeated ? nestedType(only) : t;
}

/** Whether a proto field's shape can carry a declared field's type. */
function shapeFits(f: protobuf.Field, decl: DeclaredField): boolean {
  const type = decl.spec.type;
  if (type === 'translate')
    return f.map && (f as unknown as protobuf.MapField).keyType === 'string' && f.type === 'string';
  if (type === 'object') return f.map || f.type === 'google.protobuf.Struct' || f.resolvedType instanceof protobuf.Type;
  if (type === 'array') return f.repeated || f.type === 'google.protobuf.ListValue';
  const repeated = type === 'string[]' || type === 'id[]';
  return f.repeated === repeated && !f.map && (PROTO_TYPES[type] ?? []).includes(f.type);
}

/**
 * Compares a resource's declaration with its entity and its proto messages — names, types and
 * optionality — and returns every mismatch in words (empty when they agree):
 * - each field has a column of a fitting type, nullable exactly when the field may be unset
 *   (optional without a default);
 * - the view message has each field (`_id` as `id`) with a fitting type, with presence exactly
 *   when the view may leave it out;
 * - the input message has each writable field, required ones without presence (booleans and
 *   numbers may have it), optional ones with presence (or a list or map whose absence is the empty
 *   default, or whose empty value the schema refuses);
 * - a field without a column of its own (`stored(false)`) has none in the entity;
 * - nested messages (links, items) have every field of the declared shapes, and no other;
 * - neither message has a field the declaration lacks (besides id, version and dates).
 */
export function contractProblems(target: ContractTarget): string[] {
  const problems: string[] = [];
  const { declaration, exceptions = {} } = target;
  const root = loadProto(target.protoFile);
  const view = root.lookupType(target.message);
  const input = root.lookupType(target.inputMessage);
  const columns = columnsOf(target.entity);
  const where = declaration.collection;
  // Fields of each nested message type that some declared shape names (`_id` as `id`).
  const nestedNamed = new Map<protobuf.Type, Set<string>>();
  const checkNested = (message: string, out: protobuf.Field, name: string, schema: unknown) => {
    const type = nestedType(out);
    const keys = nestedKeys(schema);
    if (!type || !keys) return;
    const named = nestedNamed.get(type) ?? new Set<string>();
    nestedNamed.set(type, named);
    for (const key of keys) {
      named.add(key);
      if (!type.fields[key]) problems.push(`${where}.${name}: ${message}.${name} (${type.name}) has no field ${key}`);
    }
  };
  for (const [name, f] of Object.entries(declaration.fields)) {
    if (exceptions[name] !== undefined) continue;
    const unset = f.optionalInView;
    const column = f.spec.stored === false ? null : columns.get(f.spec.column ?? name);
    if (column === null) {
      if (columns.has(f.spec.column ?? name))
        problems.push(`${where}.${name}: declared without a column of its own, yet the entity has one`);
    } else if (!column) problems.push(`${where}.${name}: the entity has no column ${f.spec.column ?? name}`);
    else {
      const fits = (COLUMN_TYPES[f.spec.type] ?? []).includes(column.type);
      if (!fits) problems.push(`${where}.${name}: ${f.spec.type} field in a ${column.type} column`);
      if ((f.spec.type === 'string[]' || f.spec.type === 'id[]') !== column.array) {
        problems.push(
          `${where}.${name}: ${f.spec.type} field in a column that is${column.array ? '' : ' not'} an array`,
        );
      }
      if (column.nullable !== unset) {
        problems.push(
          `${where}.${name}: column is ${column.nullable ? '' : 'not '}nullable, but the field ${unset ? 'may be unset' : 'is always set'}`,
        );
      }
    }
    const out = view.fields[name];
    if (!out) problems.push(`${where}.${name}: ${target.message} has no field ${name}`);
    else {
      if (!shapeFits(out, f))
        problems.push(`${where}.${name}: ${target.message}.${name} (${out.type}) cannot carry a ${f.spec.type}`);
      // A message field always set may still carry a field the view always shows; a list or map
      // without presence may carry one the view leaves out (empty is how it travels absent).
      const carries = (out.resolvedType instanceof protobuf.Type && !unset) || (unset && (out.repeated || out.map));
      if (hasPresence(out) !== unset && !carries) {
        problems.push(
          `${where}.${name}: ${target.message}.${name} ${hasPresence(out) ? 'is' : 'is not'} optional, but the view ${unset ? 'may leave it out' : 'always shows it'}`,
        );
      }
      checkNested(target.message, out, name, f.spec.view);
    }
    if (!f.writable) {
      if (input.fields[name]) problems.push(`${where}.${name}: read-only, yet ${target.inputMessage} has it`);
      continue;
    }
    const inField = input.fields[name];
    if (!inField) {
      problems.push(`${where}.${name}: ${target.inputMessage} has no field ${name}`);
      continue;
    }
    const wrapped = inField.resolvedType instanceof protobuf.Type && !inField.repeated && !inField.map;
    if (!wrapped && !shapeFits(inField, f)) {
      problems.push(`${where}.${name}: ${target.inputMessage}.${name} (${inField.type}) cannot carry a ${f.spec.type}`);
    }
    const emptyDefault =
      (inField.repeated || inField.map) &&
      (Array.isArray(f.spec.default) || (typeof f.spec.default === 'object' && f.spec.default !== null));
    // A required boolean or number may have presence: false and 0 are values, so only presence tells one missing.
    const zeroIsValue = f.spec.type === 'boolean' || f.spec.type === 'number';
    if (f.spec.required && hasPresence(inField) && !wrapped && !zeroIsValue) {
      problems.push(`${where}.${name}: required, yet ${target.inputMessage}.${name} is optional`);
    }
    // An optional list or map with no default travels empty when absent: its schema must refuse an
    // empty one, or a caller's empty value would come back absent.
    const emptyIsAbsent = unset && (inField.repeated || inField.map);
    if (emptyIsAbsent && accepts(f.spec.input, inField.map ? {} : [])) {
      problems.push(
        `${where}.${name}: ${target.inputMessage}.${name} sends an absent value empty, yet an empty one is valid`,
      );
    }
    if (!f.spec.required && !hasPresence(inField) && !emptyDefault && !emptyIsAbsent) {
      problems.push(`${where}.${name}: optional, yet ${target.inputMessage}.${name} cannot be absent`);
    }
    checkNested(target.inputMessage, inField, name, f.spec.input);
  }
  for (const [type, named] of nestedNamed) {
    for (const key of Object.keys(type.fields)) {
      if (!named.has(key)) problems.push(`${where}: ${type.name}.${key} is not declared in any field's shape`);
    }
  }
  const declared = new Set([
    ...Object.keys(declaration.fields),
    'id',
    'version',
    'created_at',
    'updated_at',
    'created_by_name',
  ]);
  for (const name of Object.keys(view.fields)) {
    if (!declared.has(name)) problems.push(`${where}: ${target.message}.${name} is not declared`);
  }
  for (const name of Object.keys(input.fields)) {
    if (!declared.has(name)) problems.push(`${where}: ${target.inputMessage}.${name} is not declared`);
  }
  return problems;
}

/** The RPC names of a service in a .proto file (relative to `protos/`), sorted. */
export function rpcsOf(protoFile: string, service: string): string[] {
  return Object.keys(loadProto(protoFile).lookupService(service).methods).sort();
}

/** The seven RPCs every record service answers (`AttributeGroup`, `AttributeGroups` → CreateAttributeGroup…), sorted. */
export function recordRpcs(one: string, many: string): string[] {
  return [
    `BatchGet${many}`,
    `Create${one}`,
    `Delete${one}`,
    `Get${one}`,
    `List${many}`,
    `Patch${one}`,
    `Update${one}`,
  ].sort();
}
