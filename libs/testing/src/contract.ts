import { join } from 'node:path';
import * as protobuf from 'protobufjs';
import { getMetadataArgsStorage } from 'typeorm';
import { PROTO_ROOT } from '@pim/contracts';

/**
 * The parts of a resource declaration (`defineResource` in @pim/resources) the check reads; named
 * here rather than imported, because @pim/resources' own tests use this lib.
 */
interface DeclaredField {
  spec: { type: string; required: boolean; default?: unknown; column?: string };
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
 * - the input message has each writable field, required ones without presence, optional ones with
 *   presence (or a list or map whose absence is the empty default);
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
  for (const [name, f] of Object.entries(declaration.fields)) {
    if (exceptions[name] !== undefined) continue;
    const unset = f.optionalInView;
    const column = columns.get(f.spec.column ?? name);
    if (!column) problems.push(`${where}.${name}: the entity has no column ${f.spec.column ?? name}`);
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
      if (hasPresence(out) !== unset && !(out.resolvedType instanceof protobuf.Type && !unset)) {
        problems.push(
          `${where}.${name}: ${target.message}.${name} ${hasPresence(out) ? 'is' : 'is not'} optional, but the view ${unset ? 'may leave it out' : 'always shows it'}`,
        );
      }
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
    if (f.spec.required && hasPresence(inField) && !wrapped) {
      problems.push(`${where}.${name}: required, yet ${target.inputMessage}.${name} is optional`);
    }
    if (!f.spec.required && !hasPresence(inField) && !emptyDefault) {
      problems.push(`${where}.${name}: optional, yet ${target.inputMessage}.${name} cannot be absent`);
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
