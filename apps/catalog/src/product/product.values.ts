import { z } from 'zod';
import type { ErrorDetail } from '@pim/errors';
import {
  isCurrencyCode,
  isoDateSchema,
  isoDateTimeSchema,
  languageCodeSchema,
  type AttributeType,
  type TypeConfig,
} from '@pim/resources';

/** What a value is checked against: the attribute's type, its settings and, for select and multiselect, its live option values. */
export interface ValueRule {
  type: AttributeType;
  type_config?: TypeConfig;
  /** The attribute's live option values (select, multiselect); absent means it has none. */
  options?: Iterable<string>;
}

/** One problem with a value: where it is (`attributes.color.1`) and what is wrong. */
export type ValueProblem = ErrorDetail;

const URL_MAX = 2_048;
const EMAIL_MAX = 254;
const urlSchema = z.url({ protocol: /^https?$/ });
const emailSchema = z.email();

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const show = (v: unknown) => JSON.stringify(v);

// Patterns are compiled once each; a bulk write checks thousands of values against a few patterns.
const compiled = new Map<string, RegExp>();
function regexOf(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) {
    if (compiled.size >= 1_000) compiled.clear();
    re = new RegExp(pattern, 'u');
    compiled.set(pattern, re);
  }
  return re;
}

/** Digits after the decimal point of a number as JSON writes it (1.25 → 2, 1e-7 → 7). */
export function decimalsOf(n: number): number {
  const [mantissa, exponent] = String(Math.abs(n)).split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent ?? 0));
}

function textProblems(config: TypeConfig, text: string, field: string): ValueProblem[] {
  const length = [...text].length;
  if (config.min_length !== undefined && length < config.min_length)
    return [{ field, message: `must have at least ${config.min_length} characters, has ${length}` }];
  if (config.max_length !== undefined && length > config.max_length)
    return [{ field, message: `must have at most ${config.max_length} characters, has ${length}` }];
  if (config.pattern !== undefined && !regexOf(config.pattern).test(text))
    return [{ field, message: `must match the pattern ${config.pattern}` }];
  return [];
}

function localizedProblems(config: TypeConfig, value: unknown, path: string): ValueProblem[] {
  if (!isObject(value))
    return [{ field: path, message: 'must be an object of language codes to texts (the attribute is localizable)' }];
  return Object.entries(value).flatMap(([language, text]) => {
    const field = `${path}.${language}`;
    if (!languageCodeSchema.safeParse(language).success)
      return [{ field, message: 'is not a language code such as pt, en or pt-BR' }];
    if (typeof text !== 'string') return [{ field, message: 'must be a string' }];
    return textProblems(config, text, field);
  });
}

function boundProblems(
  value: number | string,
  config: TypeConfig,
  path: string,
  compare: (a: number | string, b: number | string) => number,
): ValueProblem[] {
  if (config.min !== undefined && compare(value, config.min) < 0)
    return [{ field: path, message: `must be ≥ ${config.min}` }];
  if (config.max !== undefined && compare(value, config.max) > 0)
    return [{ field: path, message: `must be ≤ ${config.max}` }];
  return [];
}

function numberProblems(config: TypeConfig, value: unknown, path: string): ValueProblem[] {
  if (!isNumber(value)) return [{ field: path, message: 'must be a number' }];
  if (config.type === 'integer' && !Number.isInteger(value))
    return [{ field: path, message: 'must be a whole number' }];
  if (config.decimals !== undefined && decimalsOf(value) > config.decimals) {
    return [
      {
        field: path,
        message: `must have at most ${config.decimals} ${config.decimals === 1 ? 'decimal' : 'decimals'}`,
      },
    ];
  }
  return boundProblems(value, config, path, (a, b) => (a as number) - (b as number));
}

function dateProblems(type: 'date' | 'datetime', config: TypeConfig, value: unknown, path: string): ValueProblem[] {
  const schema = type === 'date' ? isoDateSchema : isoDateTimeSchema;
  if (typeof value !== 'string' || !schema.safeParse(value).success) {
    return [
      {
        field: path,
        message:
          type === 'date'
            ? 'must be a date such as 2024-01-31'
            : 'must be an ISO 8601 date and time with Z or an offset, such as 2024-01-31T12:00:00Z',
      },
    ];
  }
  // Dates compare as text; instants with offsets compare by the moment they name.
  const compare =
    type === 'date'
      ? (a: number | string, b: number | string) => String(a).localeCompare(String(b))
      : (a: number | string, b: number | string) => Date.parse(String(a)) - Date.parse(String(b));
  return boundProblems(value, config, path, compare);
}

function optionProblem(options: ReadonlySet<string>, value: unknown, field: string): ValueProblem[] {
  if (typeof value !== 'string')
    return [{ field, message: "must be a string: the value of one of the attribute's options" }];
  if (options.has(value)) return [];
  const known = [...options];
  const listed =
    known.length === 0
      ? 'the attribute has no options'
      : `one of ${known.slice(0, 10).map(show).join(', ')}${known.length > 10 ? ', …' : ''}`;
  return [{ field, message: `${show(value)} is not an option of the attribute (${listed})` }];
}

/** Checks that an object has exactly the keys given (each present), naming the missing and the unknown. */
function shapeProblems(value: unknown, keys: string[], path: string, what: string): ValueProblem[] | null {
  if (!isObject(value)) return [{ field: path, message: `must be an object {${keys.join(', ')}} (${what})` }];
  const problems = [
    ...keys.filter((k) => !(k in value)).map((k) => ({ field: `${path}.${k}`, message: 'is required' })),
    ...Object.keys(value)
      .filter((k) => !keys.includes(k))
      .map((k) => ({ field: `${path}.${k}`, message: 'is not a known field' })),
  ];
  return problems.length > 0 ? problems : null;
}

function priceProblems(config: TypeConfig, value: unknown, path: string): ValueProblem[] {
  const shape = shapeProblems(value, ['amount', 'currency'], path, 'a price');
  if (shape) return shape;
  const { amount, currency } = value as { amount: unknown; currency: unknown };
  const problems: ValueProblem[] = [];
  if (!isNumber(amount) || amount < 0) problems.push({ field: `${path}.amount`, message: 'must be a number ≥ 0' });
  if (typeof currency !== 'string' || !isCurrencyCode(currency)) {
    problems.push({ field: `${path}.currency`, message: 'must be an ISO 4217 currency code such as BRL' });
  } else if (config.currencies !== undefined && !config.currencies.includes(currency)) {
    problems.push({
      field: `${path}.currency`,
      message: `must be one of the attribute's currencies (${config.currencies.join(', ')})`,
    });
  }
  return problems;
}

function metricProblems(config: TypeConfig, value: unknown, path: string): ValueProblem[] {
  const shape = shapeProblems(value, ['amount', 'unit'], path, 'a measure');
  if (shape) return shape;
  const { amount, unit } = value as { amount: unknown; unit: unknown };
  const problems: ValueProblem[] = [];
  if (!isNumber(amount)) problems.push({ field: `${path}.amount`, message: 'must be a number' });
  const units = config.units ?? [];
  if (typeof unit !== 'string' || !units.includes(unit))
    problems.push({ field: `${path}.unit`, message: `must be one of the attribute's units (${units.join(', ')})` });
  return problems;
}

function urlProblems(value: unknown, path: string): ValueProblem[] {
  if (typeof value !== 'string' || value.length > URL_MAX || !urlSchema.safeParse(value).success) {
    return [{ field: path, message: `must be an absolute http or https URL of at most ${URL_MAX} characters` }];
  }
  return [];
}

/**
 * Every problem with one value of an attribute, by its type and type_config (docs/platform/rules.md: attribute types),
 * each named by its path. `null` and `undefined` are no value and pass: whether a value is
 * required is the caller's rule. Pure: no I/O, so a bulk write can check thousands of values.
 *
 * text/textarea: a string (a Translate when `localizable`), within min/max_length, matching
 * `pattern`; number: within min/max, whole for `integer`, at most `decimals`; boolean; date
 * (`2024-01-31`) and datetime (ISO 8601 with an offset) within min/max; select: an option value;
 * multiselect: distinct option values; price `{amount ≥ 0, currency}` (ISO 4217, one of
 * `currencies` when set); metric `{amount, unit}` (one of `units`); url/image/file: an http(s)
 * URL; email: an address.
 */
export function validateAttributeValue(attribute: ValueRule, value: unknown, path: string): ValueProblem[] {
  if (value === null || value === undefined) return [];
  const config = attribute.type_config ?? {};
  switch (attribute.type) {
    case 'text':
    case 'textarea':
      if (config.localizable === true) return localizedProblems(config, value, path);
      return typeof value === 'string'
        ? textProblems(config, value, path)
        : [{ field: path, message: 'must be a string' }];
    case 'number':
      return numberProblems(config, value, path);
    case 'boolean':
      return typeof value === 'boolean' ? [] : [{ field: path, message: 'must be true or false' }];
    case 'date':
    case 'datetime':
      return dateProblems(attribute.type, config, value, path);
    case 'select':
      return optionProblem(new Set(attribute.options ?? []), value, path);
    case 'multiselect': {
      if (!Array.isArray(value)) return [{ field: path, message: "must be an array of the attribute's option values" }];
      const options = new Set(attribute.options ?? []);
      const seen = new Set<unknown>();
      return value.flatMap((v, i) => {
        if (seen.has(v)) return [{ field: `${path}.${i}`, message: `repeats ${show(v)}` }];
        seen.add(v);
        return optionProblem(options, v, `${path}.${i}`);
      });
    }
    case 'price':
      return priceProblems(config, value, path);
    case 'metric':
      return metricProblems(config, value, path);
    case 'url':
    case 'image':
    case 'file':
      return urlProblems(value, path);
    case 'email':
      return typeof value === 'string' && value.length <= EMAIL_MAX && emailSchema.safeParse(value).success
        ? []
        : [{ field: path, message: 'must be an email address such as ana@example.com' }];
    default: {
      const unknownType: never = attribute.type;
      return [{ field: path, message: `has an attribute of unknown type ${show(unknownType)}` }];
    }
  }
}
